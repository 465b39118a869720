// vmodtool report: the narrative column (a notes file's notes and a merged log's
// [note] lines) beside the move list.  Added to the page only when the game has
// notes; it follows the page's step through window.vmodReport and the step line
// (#where) the page sets on every step.  Every note is set with textContent.
(function () {
  "use strict";
  var R = window.vmodReport;
  var notes = JSON.parse(document.getElementById("game-data").textContent).notes || [];
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  var column = el("aside");
  column.id = "narrative";
  column.setAttribute("aria-label", "notes");
  column.appendChild(el("h2", "", "Notes"));
  var list = el("ol");
  column.appendChild(list);
  var items = notes.map(function (n) {
    var li = el("li", n.source === "log" ? "from-log" : "");
    li.dataset.step = n.step;
    li.appendChild(el("span", "at", n.step ? "step " + n.step : "saved state"));
    var text = el("span", "text", n.text);
    text.dir = "auto";
    li.appendChild(text);
    list.appendChild(li);
    return li;
  });
  var side = document.getElementById("side");
  side.parentNode.insertBefore(column, side.nextSibling);
  var noted = {};
  notes.forEach(function (n) { noted[n.step] = true; });
  document.querySelectorAll("#moves li").forEach(function (li) {
    if (noted[li.dataset.step]) li.classList.add("noted");
  });
  list.addEventListener("click", function (e) {
    var li = e.target.closest("li");
    if (li) R.go(+li.dataset.step);
  });
  function show() {
    var n = R.step(), first = null;
    items.forEach(function (li) {
      var s = +li.dataset.step;
      li.classList.toggle("current", s === n);
      li.classList.toggle("ahead", s > n);
      if (s === n && first === null) first = li;
    });
    if (first !== null) first.scrollIntoView({block: "nearest"});
  }
  new MutationObserver(show).observe(document.getElementById("where"), {childList: true, characterData: true});
  show();
})();
