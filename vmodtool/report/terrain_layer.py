"""A terrain layer on the report's map (``vmodtool report --terrain-layer``):
the hexes of a derived terrain (:mod:`vmodtool.terrain.layer`) tinted by
their type, the hexside features drawn, the doubtful hexes outlined, placed
on the map and board of the report that the layer names, in the map's
pixels.  The page draws it with ``assets/terrain.js`` (a checkbox shows and
hides it)."""

from __future__ import annotations

import math
from typing import Any

from vmodtool.errors import VmodError
from vmodtool.report.frames import Frames
from vmodtool.terrain.layer import TerrainLayer

__all__ = ["layer_record"]


def _placement(frames: Frames, layer: TerrainLayer) -> tuple[int, float, float]:
    """(map index, x, y of the board's top left) where the layer's hexes lie."""
    names = [m["name"] for m in frames.maps]
    if layer.map is not None:
        if layer.map not in names:
            raise VmodError(f"the terrain layer is of map {layer.map!r}, which the game does not show "
                            f"(its maps: {', '.join(names) or 'none'})")
        candidates = [names.index(layer.map)]
    else:
        candidates = list(range(len(names)))
    for index in candidates:
        for board in frames.maps[index]["boards"]:
            if layer.board is None or board["name"] == layer.board:
                return index, float(board["x"]), float(board["y"])
    raise VmodError(f"no map of the game shows the terrain layer's board {layer.board!r}")


def layer_record(frames: Frames, layer: TerrainLayer) -> dict[str, Any]:
    """The layer as the page's script draws it: hexes as ``[x, y, type
    index, confidence]`` and hexside features as ``[x1, y1, x2, y2, type
    index]``, in pixels of map ``map``."""
    index, ox, oy = _placement(frames, layer)
    types = list(layer.types)
    side_types = list(layer.hexside_types)
    half_side = layer.dy / math.sqrt(3) / 2
    hexes = [[round(ox + x, 1), round(oy + y, 1), types.index(name), round(conf, 3)]
             for x, y, name, conf in layer.hexes.values()]
    sides: list[list[float]] = []
    for type_id, found in layer.hexsides.items():
        kind = layer.hexside_types[type_id].get("drawn_as", "hexside")
        for a, b, _ in found:
            ax, ay = layer.hexes[a][0] + ox, layer.hexes[a][1] + oy
            bx, by = layer.hexes[b][0] + ox, layer.hexes[b][1] + oy
            mx, my = (ax + bx) / 2, (ay + by) / 2
            if kind == "centre_line":
                ends = (ax, ay, bx, by)
            elif kind == "symbol":       # a bridge: a short stroke across the side's middle
                ends = (mx - (bx - ax) * 0.18, my - (by - ay) * 0.18, mx + (bx - ax) * 0.18, my + (by - ay) * 0.18)
            else:                        # along the side, corner to corner
                length = math.hypot(bx - ax, by - ay) or 1.0
                ux, uy = -(by - ay) / length * half_side, (bx - ax) / length * half_side
                ends = (mx - ux, my - uy, mx + ux, my + uy)
            sides.append([round(v, 1) for v in ends] + [side_types.index(type_id)])
    return {
        "map": index,
        "radius": round(layer.dy / math.sqrt(3), 2),
        "sideways": layer.sideways,
        "low": layer.low,
        "types": [[t, layer.types[t]["name"], layer.types[t]["fill"]] for t in types],
        "sideTypes": [[t, layer.hexside_types[t]["name"], layer.hexside_types[t]["stroke"]] for t in side_types],
        "hexes": hexes,
        "sides": sides,
    }
