"""Loading the ``maps`` section: the map windows beside ``map`` (a
strategic map beside a tactical one, a chart or track map with a grid).

Each entry is read as ``map`` is (:func:`~vmodtool.scenario.load_map.build_map`
at its own path: grid, terrain, hexsides, labels, objectives, board image),
and becomes one more VASSAL ``Map`` window of the built module.  A second
map has its own grid of this file: ``from_module`` is only ``map``'s (a
module's other windows are its boxes).  Every window's name is unique: saves
refer to a map by its name (``docs/vassal-format.md`` §2.4.2)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from vmodtool.scenario import model as M
from vmodtool.scenario.collector import ProblemCollector
from vmodtool.scenario.load_map import build_map

__all__ = ["build_extra_maps"]


def build_extra_maps(c: ProblemCollector, main: M.HexMap, taken: Iterable[str],
                     board_sizes: Mapping[str, tuple[int, int]] | None) -> list[M.HexMap]:
    """The ``maps`` entries as maps (an entry that cannot be built is left
    out, its problems reported); ``taken``: the names of the module's other
    windows (off-map, hands)."""
    names: dict[str, str] = {main.name: "the map (map.name)"}
    for name in taken:
        names.setdefault(name, "a window vmodtool builds")
    ids = {main.id}
    out: list[M.HexMap] = []
    for mp, _ in c.list_of(("maps",)):
        if c.get(mp + ("from_module",)) is not None:
            c.err(mp + ("from_module",), "only 'map' is taken from a module; a second map window has its own grid")
            continue
        if c.text(mp + ("name",)) is None:
            c.err(mp, "a second map window needs its name (the window's title; saves refer to it)")
            continue
        extra = build_map(c, None, None, board_sizes, mp)
        if extra is None:
            continue
        if extra.boards:
            c.err(mp + ("boards",), "only the main map ('map') has alternative boards a scenario chooses among")
            continue
        if extra.name in names:
            c.err(mp + ("name",), f"the map name {extra.name!r} is already {names[extra.name]}: "
                                  "saves refer to a map window by its name")
            continue
        if c.text(mp + ("id",)) is None:
            c.err(mp, "a second map window needs its id (the scenario's name for it)")
            continue
        if extra.id in ids:
            c.err(mp + ("id",), f"the map id {extra.id!r} is taken: each map has its own")
            continue
        names[extra.name] = f"maps[{len(out)}]"
        ids.add(extra.id)
        out.append(extra)
    return out
