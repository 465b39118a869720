// vmodtool report: the terrain layer (vmodtool report --terrain-layer): each hex
// tinted by its derived terrain type, the hexside features drawn, the doubtful
// hexes outlined; a checkbox shows and hides it.  Names are set with textContent.
(function () {
  "use strict";
  var T = JSON.parse(document.getElementById("game-data").textContent).terrain;
  var SVG = "http://www.w3.org/2000/svg";
  var map = document.querySelectorAll("#view > .map")[T.map];
  if (!map) return;
  function svg(tag, attrs) {
    var e = document.createElementNS(SVG, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  }
  var r = T.radius * 0.96, turn = T.sideways ? Math.PI / 6 : 0, corners = [];
  for (var k = 0; k < 6; k++) corners.push([r * Math.cos(Math.PI / 3 * k + turn), r * Math.sin(Math.PI / 3 * k + turn)]);
  function points(h) {
    return corners.map(function (c) { return (h[0] + c[0]).toFixed(1) + "," + (h[1] + c[1]).toFixed(1); }).join(" ");
  }
  var layer = svg("svg", {width: parseInt(map.style.width, 10), height: parseInt(map.style.height, 10), "class": "terrain",
                          "aria-label": "derived terrain"});
  var tints = T.types.map(function (t, i) {
    var g = svg("g", {"class": "tint", fill: t[2]});
    g.dataset.type = t[0];
    layer.appendChild(g);
    return g;
  });
  var doubtful = svg("g", {"class": "low"});
  T.hexes.forEach(function (h) {
    var p = svg("polygon", {points: points(h)});
    tints[h[2]].appendChild(p);
    if (h[3] < T.low) doubtful.appendChild(svg("polygon", {points: points(h)}));
  });
  var lines = T.sideTypes.map(function (t) {
    var g = svg("g", {"class": "feature", stroke: t[2]});
    g.dataset.type = t[0];
    layer.appendChild(g);
    return g;
  });
  T.sides.forEach(function (s) {
    lines[s[4]].appendChild(svg("line", {x1: s[0], y1: s[1], x2: s[2], y2: s[3]}));
  });
  layer.appendChild(doubtful);
  var before = map.querySelector("svg");
  map.insertBefore(layer, before);

  var box = document.createElement("div");
  box.id = "terrain-legend";
  var label = document.createElement("label");
  var toggle = document.createElement("input");
  toggle.type = "checkbox"; toggle.id = "terrain-toggle"; toggle.checked = true;
  toggle.addEventListener("change", function () { layer.style.display = toggle.checked ? "" : "none"; });
  label.appendChild(toggle);
  label.appendChild(document.createTextNode(" Terrain layer (" + T.hexes.length + " hexes, " +
    doubtful.childNodes.length + " doubtful, outlined)"));
  box.appendChild(label);
  T.types.concat(T.sideTypes).forEach(function (t) {
    var key = document.createElement("span");
    key.className = "key"; key.dir = "auto";
    var swatch = document.createElement("i");
    swatch.style.background = t[2];
    key.appendChild(swatch);
    key.appendChild(document.createTextNode(t[1]));
    box.appendChild(key);
  });
  document.getElementById("controls").appendChild(box);
})();
