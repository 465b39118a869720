"""Terrain that is pieces (``binding.terrain``, ``docs/scenario-format.md``,
"Terrain from pieces"): a woods, town or hill piece put on the board by a
module's scenario makes the hex it stands on that terrain; a river, road or
bridge piece gives the hexside it stands on that feature.  Read from the
game's own state at every step, so one scenario serves every scenario of a
module.

:class:`PieceTerrain` follows where the terrain pieces are and gives the
scenario map with their terrain laid over the typed one
(:meth:`PieceTerrain.current`): the map the rules read terrain from
(``AuditState.terrain_map``).  A map is made once per distinct layout of
the pieces (they rarely move) and kept, so the movement tables made for it
(by the map's identity) are kept too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from vmodtool.scenario.model import HexMap, Hexside

__all__ = ["PieceTerrain", "nearest_side"]

#: a board point of the scenario map for a replay place on it (None: not on it)
ToBoard = Callable[[str | None, int, int], "tuple[int, int] | None"]

#: the layouts kept (a terrain piece moved back and forth is a few)
_MAPS_MAX = 16


def nearest_side(hex_map: HexMap, hex_id: str, point: tuple[int, int]) -> frozenset[str] | None:
    """The hexside a board point near the edge of ``hex_id`` is on: between
    that hex and its neighbour whose centre is nearest to the point (None:
    a hex with no neighbour on the map)."""
    centres = hex_map.grid.centres
    x, y = point
    best: tuple[float, str] | None = None
    for near in hex_map.neighbours(hex_id):
        c = centres.get(near)
        if c is None:
            continue
        d = (c[0] - x) ** 2 + (c[1] - y) ** 2
        if best is None or d < best[0]:
            best = (d, near)
    return frozenset((hex_id, best[1])) if best is not None else None


class PieceTerrain:
    """Where the game's terrain pieces stand, and the map they make."""

    def __init__(self, base: HexMap, to_board: ToBoard) -> None:
        self.base = base
        self._to_board = to_board
        #: VASSAL piece id -> (terrain type, hexside feature): one of them set
        self.kinds: dict[str, tuple[str | None, str | None]] = {}
        #: piece id -> (hex, terrain type), in the order they were put there
        #: (the last one put in a hex wins)
        self._hexes: dict[str, tuple[str, str]] = {}
        #: piece id -> (hexside pair, feature)
        self._sides: dict[str, tuple[frozenset[str], str]] = {}
        self._maps: dict[tuple[object, ...], HexMap] = {}
        self.current: HexMap = base

    def bind(self, piece_id: str, terrain: str | None, hexside: str | None) -> None:
        """Piece ``piece_id`` is a terrain piece (of a ``binding.terrain`` entry)."""
        self.kinds[piece_id] = (terrain, hexside)

    def place(self, piece_id: str, hex_id: str | None, map_name: str | None, x: int, y: int) -> bool:
        """A terrain piece is now in ``hex_id`` (None: off the scenario map,
        no terrain); whether the map changed."""
        terrain, feature = self.kinds[piece_id]
        before = (self._hexes.pop(piece_id, None), self._sides.pop(piece_id, None))
        if hex_id is not None:
            if terrain is not None:
                self._hexes[piece_id] = (hex_id, terrain)
            elif feature is not None:
                point = self._to_board(map_name, x, y)
                pair = nearest_side(self.base, hex_id, point) if point is not None else None
                if pair is not None:
                    self._sides[piece_id] = (pair, feature)
        after = (self._hexes.get(piece_id), self._sides.get(piece_id))
        if before == after and before[0] is None:
            return False
        self.current = self._map()
        return True

    def remove(self, piece_id: str) -> bool:
        """A terrain piece left the game; whether the map changed."""
        if self._hexes.pop(piece_id, None) is None and self._sides.pop(piece_id, None) is None:
            return False
        self.current = self._map()
        return True

    def _map(self) -> HexMap:
        """The scenario map with the pieces' terrain over the typed one."""
        overlay: dict[str, str] = {}
        for hex_id, terrain in self._hexes.values():
            overlay[hex_id] = terrain
        sides = sorted({(tuple(sorted(pair)), feature) for pair, feature in self._sides.values()})
        key = (tuple(sorted(overlay.items())), tuple(sides))
        found = self._maps.get(key)
        if found is not None:
            return found
        if not overlay and not sides:
            found = self.base
        else:
            extra = tuple(Hexside(feature, pair[0], pair[1]) for pair, feature in sides)
            found = replace(self.base, terrain={**self.base.terrain, **overlay},
                            hexsides=self.base.hexsides + extra)
        if len(self._maps) >= _MAPS_MAX:
            self._maps.clear()
        self._maps[key] = found
        return found
