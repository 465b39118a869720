"""Tables computed once per scenario map and kept while the map lives: a
hex's neighbours (read by the movement kinds and the combat windows) and
whatever else a rule kind makes per map (:func:`per_map`).

A few maps' worth is kept (an audit session meets one or two), each entry
gone with its map: a process auditing game after game, each with a scenario
loaded afresh, must not keep every map's tables (megabytes each for a
published module's)."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import TypeVar

from vmodtool.scenario.model import HexMap

__all__ = ["ByMap", "per_map", "map_neighbours", "MAPS_KEPT"]

_T = TypeVar("_T")
#: id of a map -> (a weak reference to it, what was made for it)
ByMap = dict[int, tuple["weakref.ref[HexMap]", _T]]
#: how many maps' entries a cache keeps at most
MAPS_KEPT = 32
_NEIGHBOURS: ByMap[dict[str, tuple[str, ...]]] = {}


def per_map(cache: ByMap[_T], hex_map: HexMap, make: Callable[[], _T]) -> _T:
    """``cache``'s value for ``hex_map``, made when missing."""
    key = id(hex_map)
    hit = cache.get(key)
    if hit is not None and hit[0]() is hex_map:
        return hit[1]
    if len(cache) >= MAPS_KEPT:
        cache.clear()
    value = make()

    def forget(ref: weakref.ref[HexMap]) -> None:
        entry = cache.get(key)
        if entry is not None and entry[0] is ref:
            del cache[key]
    cache[key] = (weakref.ref(hex_map, forget), value)
    return value


def map_neighbours(hex_map: HexMap) -> dict[str, tuple[str, ...]]:
    """Each location's neighbours on a map (a hex's; on an area map a
    space's, by its connections), computed once per map."""
    return per_map(_NEIGHBOURS, hex_map,
                   lambda: {h: tuple(hex_map.neighbours(h)) for h in hex_map.location_ids})
