"""The derived terrain as a layer for the HTML report (``vmodtool terrain
--report-layer``, read by ``vmodtool report --terrain-layer``).

A small JSON document, independent of the scenario it was derived with, so
that the report can draw it over the board it shows: which module map and
board the hexes lie on, the hex size and orientation, each hex's centre
(board pixels), terrain type and confidence, each hexside feature found,
and the colours to draw the types with::

    {"format": "vmodtool-terrain-layer/1", "map": "Normandy", "board": "Normandy",
     "grid": {"dx": 55.4, "dy": 64.0, "sideways": false}, "low": 0.25,
     "types": {"clear": {"name": "Clear", "fill": "#f0ecd8"}, ...},
     "hexside_types": {"river": {"name": "River", "stroke": "#2f66c0", "drawn_as": "hexside"}},
     "hexes": {"0101": [36, 64, "clear", 0.93], ...},
     "hexsides": {"river": [["0101", "0102", 0.81], ...]}}

:func:`read_layer` checks every field of a file given to the report (an
untrusted input): a mistake is one line naming the file and the field.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from vmodtool.errors import VmodError
from vmodtool.scenario import model as M

__all__ = ["FORMAT", "MAX_LAYER_BYTES", "TerrainLayer", "layer_document", "read_layer"]

FORMAT = "vmodtool-terrain-layer/1"
#: the largest layer file read (a 10,000-hex board's layer is about 0.5 MB)
MAX_LAYER_BYTES = 64_000_000
#: fills for types the scenario gives no colour (as the --picture draws them)
PALETTE = ("#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666666")
_HEX_COLOUR = "0123456789abcdefABCDEF"


class TerrainLayer:
    """A checked layer: ``hexes`` label → (x, y, type, confidence) in board
    pixels; ``hexsides`` type → [(a, b, confidence)]; the rest as the
    document gives it."""

    def __init__(self, doc: dict[str, Any]) -> None:
        self.map: str | None = doc.get("map")
        self.board: str | None = doc.get("board")
        grid = doc["grid"]
        self.dx = float(grid["dx"])
        self.dy = float(grid["dy"])
        self.sideways = bool(grid["sideways"])
        self.low = float(doc["low"])
        self.types: dict[str, dict[str, str]] = doc["types"]
        self.hexside_types: dict[str, dict[str, str]] = doc["hexside_types"]
        self.hexes: dict[str, tuple[float, float, str, float]] = {
            label: (float(v[0]), float(v[1]), str(v[2]), float(v[3])) for label, v in doc["hexes"].items()}
        self.hexsides: dict[str, list[tuple[str, str, float]]] = {
            t: [(str(a), str(b), float(c)) for a, b, c in sides] for t, sides in doc["hexsides"].items()}


def _colour(value: str | None, fallback: str) -> str:
    ok = isinstance(value, str) and len(value) == 7 and value[0] == "#" and all(c in _HEX_COLOUR for c in value[1:])
    return value if ok and value is not None else fallback


def layer_document(scenario: M.Scenario, hexes: dict[str, tuple[str, float]],
                   hexsides: dict[str, list[tuple[str, str, float]]], low: float) -> dict[str, Any]:
    """The layer of a derived terrain (or of any scenario's terrain, every
    confidence 1) as a JSON-ready document."""
    hmap = scenario.map
    grid = hmap.grid
    types = list(hmap.terrain_types)
    return {
        "format": FORMAT,
        "map": hmap.module_map,
        "board": hmap.module_board,
        "grid": {"dx": float(grid.grid.dx), "dy": float(grid.grid.dy), "sideways": bool(grid.grid.sideways)},
        "low": low,
        "types": {t: {"name": k.name, "fill": _colour(k.fill, PALETTE[types.index(t) % len(PALETTE)])}
                  for t, k in hmap.terrain_types.items()},
        "hexside_types": {t: {"name": k.name, "stroke": _colour(k.stroke, "#202020"),
                              "drawn_as": "symbol" if k.symbol else k.drawn_as}
                          for t, k in hmap.hexside_types.items() if t in hexsides},
        "hexes": {label: [grid.centres[label][0], grid.centres[label][1], name, round(conf, 3)]
                  for label, (name, conf) in hexes.items()},
        "hexsides": {t: [[a, b, round(c, 3)] for a, b, c in sides] for t, sides in hexsides.items()},
    }


def _fail(file: Path, message: str) -> VmodError:
    return VmodError(f"not a terrain layer: {message}", file=file)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _check_types(file: Path, doc: dict[str, Any]) -> None:
    for key, colour in (("types", "fill"), ("hexside_types", "stroke")):
        table = doc.get(key)
        if not isinstance(table, dict):
            raise _fail(file, f"{key!r} is not a mapping")
        for name, entry in table.items():
            if not (isinstance(entry, dict) and isinstance(entry.get("name"), str)
                    and _colour(entry.get(colour), "") == entry.get(colour)):
                raise _fail(file, f"{key}.{name}: expected {{name: text, {colour}: \"#rrggbb\"}}")


def _check_hexes(file: Path, doc: dict[str, Any]) -> None:
    hexes = doc.get("hexes")
    if not isinstance(hexes, dict):
        raise _fail(file, "'hexes' is not a mapping")
    for label, value in hexes.items():
        if not (isinstance(value, list) and len(value) == 4 and _number(value[0]) and _number(value[1])
                and value[2] in doc["types"] and _number(value[3])):
            raise _fail(file, f"hexes.{label}: expected [x, y, a type of 'types', confidence]")
    sides = doc.get("hexsides")
    if not isinstance(sides, dict):
        raise _fail(file, "'hexsides' is not a mapping")
    for name, pairs in sides.items():
        if name not in doc["hexside_types"] or not isinstance(pairs, list):
            raise _fail(file, f"hexsides.{name}: not a hexside type of 'hexside_types', or not a list")
        for pair in pairs:
            if not (isinstance(pair, list) and len(pair) == 3 and pair[0] in hexes and pair[1] in hexes
                    and _number(pair[2])):
                raise _fail(file, f"hexsides.{name}: expected [hex, hex, confidence] of hexes the layer has")


def read_layer(path: Path) -> TerrainLayer:
    """The layer in ``path``, every field checked."""
    from vmodtool.fileio import parse_json

    try:
        size = path.stat().st_size
        if size > MAX_LAYER_BYTES:
            raise _fail(path, f"{size:,} bytes, more than the {MAX_LAYER_BYTES:,} a layer may have")
        doc = parse_json(path.read_bytes())
    except OSError as exc:
        raise VmodError(f"cannot read the terrain layer: {exc.strerror}", file=path) from None
    except ValueError as exc:
        raise _fail(path, f"not JSON ({exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise _fail(path, f"expected a JSON object with \"format\": \"{FORMAT}\" (vmodtool terrain --report-layer)")
    for key in ("map", "board"):
        if doc.get(key) is not None and not isinstance(doc.get(key), str):
            raise _fail(path, f"{key!r} is not a name")
    grid = doc.get("grid")
    if not (isinstance(grid, dict) and _number(grid.get("dx")) and _number(grid.get("dy"))
            and grid["dx"] > 0 and grid["dy"] > 0 and isinstance(grid.get("sideways"), bool)):
        raise _fail(path, "'grid' is not {dx: number > 0, dy: number > 0, sideways: true|false}")
    if not _number(doc.get("low")):
        raise _fail(path, "'low' is not a number")
    _check_types(path, doc)
    _check_hexes(path, doc)
    return TerrainLayer(doc)
