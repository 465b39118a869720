// vmodtool report: draws the recorded per-step changes of one game.
// Every text from a log or a module is set with textContent, never as HTML.
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("game-data").textContent);
  var SVG = "http://www.w3.org/2000/svg";
  var CHECK = 250;                      // a checkpoint of the whole state every CHECK steps
  var last = D.changes.length - 1;
  var state = [];                        // piece index -> change record, or undefined
  var checkpoints = [[]];                // checkpoints[k]: the state after step k*CHECK
  var reached = -1;                      // the state is the one after this step (-1: nothing yet)
  var els = [];                          // piece index -> its element
  var maps = [], layers = [];
  var view = document.getElementById("view");

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function svg(tag, attrs) {
    var e = document.createElementNS(SVG, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  }
  function src(i) { return D.images[i]; }

  D.maps.forEach(function (m, mi) {
    var div = el("div", "map");
    div.style.width = m.w + "px"; div.style.height = m.h + "px";
    div.appendChild(el("h2", "", m.name));
    m.boards.forEach(function (b) {
      if (b.img < 0 || !src(b.img)) {
        var r = el("div", "box");
        r.style.cssText = "position:absolute;background:#deded2;border:1px solid #777";
        r.style.left = b.x + "px"; r.style.top = b.y + "px"; r.style.width = b.w + "px"; r.style.height = b.h + "px";
        r.title = b.name;
        div.appendChild(r);
        return;
      }
      var img = el("img", b.rev ? "rev" : "");
      img.src = src(b.img); img.alt = b.name; img.width = b.w; img.height = b.h;
      img.style.left = b.x + "px"; img.style.top = b.y + "px";
      div.appendChild(img);
    });
    var grid = svg("svg", {width: m.w, height: m.h, "class": "grid"});
    m.boards.forEach(function (b) {
      (b.labels || []).forEach(function (t) {
        var text = svg("text", {x: t[1], y: t[2] - 12});
        text.textContent = t[0];
        grid.appendChild(text);
      });
    });
    if (grid.childNodes.length) div.appendChild(grid);
    var over = svg("svg", {width: m.w, height: m.h});
    var defs = svg("defs", {}), head = svg("marker", {id: mi ? "head" + mi : "head", markerWidth: 6, markerHeight: 6,
      refX: 5, refY: 3, orient: "auto"});
    head.appendChild(svg("path", {d: "M0,0 L6,3 L0,6 z", fill: "#e00"}));
    defs.appendChild(head); over.appendChild(defs);
    div.appendChild(over);
    view.appendChild(div);
    maps.push(div); layers.push(over);
  });

  function apply(changes) {
    for (var i = 0; i < changes.length; i++) {
      var c = changes[i];
      state[c[0]] = c.length > 1 ? c : undefined;
    }
  }
  function stateAt(n) {
    // the state after step n, from the nearest checkpoint at or before it
    var k = Math.min(Math.floor(n / CHECK), checkpoints.length - 1);
    if (n < reached || k * CHECK > reached) {
      state = checkpoints[k].slice(); reached = k * CHECK;
      if (k === 0) { state = []; reached = -1; }
    }
    for (var s = reached + 1; s <= n; s++) {
      apply(D.changes[s]);
      if (s % CHECK === 0 && checkpoints.length === s / CHECK) checkpoints.push(state.slice());
    }
    reached = n;
  }
  function draw(pi, c) {
    var e = els[pi];
    if (!c) { if (e) e.style.display = "none"; return; }
    if (!e || e._look !== c[4] || e._label !== c[5]) {
      if (e) e.remove();
      e = el("div", "counter");
      e.dataset.piece = D.pieces[pi];
      e._look = c[4]; e._label = c[5];
      var label = D.labels[c[5]];
      e.title = label;
      D.looks[c[4]].forEach(function (l) {
        var part;
        if (l[0] < 0) { part = el("div", "box", label); part.dir = "auto"; }
        else { part = el("img"); part.src = src(l[0]); part.alt = label; }
        part.style.left = l[1] + "px"; part.style.top = l[2] + "px";
        part.style.width = l[3] + "px"; part.style.height = l[4] + "px";
        e.appendChild(part);
      });
      els[pi] = e;
    }
    if (e.parentNode !== maps[c[1]]) maps[c[1]].insertBefore(e, layers[c[1]]);
    e.style.display = "";
    e.style.left = c[2] + "px"; e.style.top = c[3] + "px"; e.style.zIndex = c[6];
    e.dataset.x = c[2]; e.dataset.y = c[3];
  }

  var current = -1;
  var slider = document.getElementById("step"), number = document.getElementById("number");
  var moveItems = [], findingItems = [];
  function go(n, focusFinding) {
    n = Math.max(0, Math.min(last, n | 0));
    var before = state.slice();
    stateAt(n);
    var count = Math.max(before.length, state.length);
    for (var pi = 0; pi < count; pi++) if (before[pi] !== state[pi] || els[pi] === undefined && state[pi]) draw(pi, state[pi]);
    current = n;
    slider.value = n; number.value = n;
    document.getElementById("where").textContent = n ? stepTitle(D.steps[n - 1]) : "saved state";
    moveItems.forEach(function (li) { li.classList.toggle("current", +li.dataset.step === n); });
    var cur = moveItems.filter(function (li) { return +li.dataset.step === n; });
    if (cur.length) cur[0].scrollIntoView({block: "nearest"});
    layers.forEach(function (l) { while (l.childNodes.length > 1) l.removeChild(l.lastChild); });
    if (n) D.steps[n - 1].arrows.forEach(function (a) {
      layers[a[0]].appendChild(svg("line", {"class": "arrow", x1: a[1], y1: a[2], x2: a[3], y2: a[4],
        "marker-end": "url(#" + (a[0] ? "head" + a[0] : "head") + ")"}));
    });
    D.findings.forEach(function (f, fi) {
      var on = f.step === n;
      findingItems[fi].classList.toggle("current", on && (focusFinding === undefined || focusFinding === fi));
      if (on && f.map >= 0) {
        var mark = svg("circle", {"class": "mark" + (f.withdrawn ? " withdrawn" : "") +
          (focusFinding === fi ? " current" : ""), cx: f.x, cy: f.y, r: 40});
        mark.dataset.finding = fi;
        layers[f.map].appendChild(mark);
        if (focusFinding === fi) {
          var m = maps[f.map];
          view.scrollTo({left: m.offsetLeft + f.x - view.clientWidth / 2, top: m.offsetTop + f.y - view.clientHeight / 2});
        }
      }
    });
  }
  function stepTitle(s) { return "step " + s.n + (s.player ? ", " + s.player : "") + (s.file ? " (" + s.file + ")" : ""); }

  var moves = document.getElementById("moves");
  var zero = el("li", "", "saved state"); zero.dataset.step = 0; moves.appendChild(zero); moveItems.push(zero);
  D.steps.forEach(function (s) {
    var lines = s.lines.length ? s.lines : ["(no event)"];
    lines.forEach(function (line) {
      var li = el("li", s.undone_by ? "undone" : "", s.n + (s.player ? " " + s.player : "") + ": " + line);
      li.dir = "auto"; li.dataset.step = s.n;
      moves.appendChild(li); moveItems.push(li);
    });
  });
  moves.addEventListener("click", function (e) { var li = e.target.closest("li"); if (li) go(+li.dataset.step); });
  var findings = document.getElementById("findings");
  D.findings.forEach(function (f, fi) {
    var li = el("li", f.severity + (f.withdrawn ? " withdrawn" : ""),
      (f.step !== null ? "step " + f.step + ": " : "") + f.source + " " + f.kind + ": " + f.message +
      (f.withdrawn ? " (withdrawn by undo)" : ""));
    li.dir = "auto"; li.dataset.finding = fi;
    findings.appendChild(li); findingItems.push(li);
  });
  findings.addEventListener("click", function (e) {
    var li = e.target.closest("li"); if (!li) return;
    var f = D.findings[+li.dataset.finding];
    if (f.step !== null) go(f.step, +li.dataset.finding);
  });
  slider.max = last; number.max = last;
  slider.addEventListener("input", function () { go(+slider.value); });
  number.addEventListener("change", function () { go(+number.value); });
  document.getElementById("prev").addEventListener("click", function () { go(current - 1); });
  document.getElementById("next").addEventListener("click", function () { go(current + 1); });
  document.addEventListener("keydown", function (e) {
    if (e.target === number) return;
    if (e.key === "ArrowRight") { go(current + 1); e.preventDefault(); }
    else if (e.key === "ArrowLeft") { go(current - 1); e.preventDefault(); }
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(last);
  });
  window.vmodReport = {go: go, step: function () { return current; }, last: last};
  var hash = /^#step=(\d+)$/.exec(location.hash);
  go(hash ? +hash[1] : 0);
})();
