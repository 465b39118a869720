"""Loading an area map's ``map.spaces``, ``map.connection_types``,
``map.connections`` and ``map.connections_csv`` (issue 42;
``docs/scenario-format.md``, "Area maps") with located problems: a space
name the module's board does not give, a connection of an unknown kind or
between unknown spaces, a space joined to itself."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from vmodtool.scenario.locations import AreaMap, Connection, Space, area_map
from vmodtool.scenario.problems import Path, Problem
from vmodtool.scenario.source import load_csv

if TYPE_CHECKING:
    from vmodtool.scenario.collector import ProblemCollector

__all__ = ["build_areas", "AREA_KEYS"]

#: the map keys that only an area map takes
AREA_KEYS = ("spaces", "connection_types", "connections", "connections_csv", "connections_proposed",
             "connections_complete")


def _hint(name: str, spaces: Mapping[str, object]) -> str:
    folded = name.casefold()
    close = [s for s in spaces if s.casefold() == folded or s.casefold().startswith(folded[:4])][:5]
    return f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""


def build_areas(b: ProblemCollector, found: AreaMap | None, ttypes: Mapping[str, Any],
                terrain: dict[str, str]) -> AreaMap | None:
    """The area map of ``map`` (``found``: the spaces the module's board
    gives, None on a hex map) with the file's space attributes and
    connections; space terrains go into ``terrain`` (space name → terrain
    type id, beside the hexes'), where the rules that read a location's
    terrain find them."""
    p: Path = ("map",)
    if found is None:
        for key in AREA_KEYS:
            if b.get(p + (key,)) is not None:
                b.err(p + (key,), f"map.{key} is for an area map (map.from_module on a board of regions and "
                                  "zones); this map is a hex map")
        return None
    spaces = dict(found.spaces)
    _space_attributes(b, p, spaces, ttypes, terrain)
    kinds: dict[str, float] = {"clear": 1.0}
    for kid, kdef in (b.get(p + ("connection_types",), dict, {}) or {}).items():
        cost = kdef.get("cost", 1) if isinstance(kdef, dict) else 1
        kinds[str(kid)] = float(cost) if isinstance(cost, (int, float)) and not isinstance(cost, bool) else 1.0
    joins = _Connections(b, spaces, kinds)
    for cp, entry in b.list_of(p + ("connections",)):
        if isinstance(entry, list) and len(entry) in (2, 3) and all(isinstance(v, str) for v in entry):
            joins.add(cp, entry[0], entry[1], entry[2] if len(entry) == 3 else "clear")
    _csv_connections(b, p, joins)
    proposed = bool(b.get(p + ("connections_proposed",), bool, False))
    complete = bool(b.get(p + ("connections_complete",), bool, False))
    return area_map(spaces.values(), joins.connections, proposed=proposed, kinds=kinds, complete=complete)


def _space_attributes(b: ProblemCollector, p: Path, spaces: dict[str, Space], ttypes: Mapping[str, Any],
                      terrain: dict[str, str]) -> None:
    """``map.spaces``: each space's terrain and attributes."""
    default = next(iter(terrain.values()), None) if terrain else next(iter(ttypes), None)
    if default is not None:
        for name in spaces:
            terrain.setdefault(name, default)
    for key, attrs in (b.get(p + ("spaces",), dict, {}) or {}).items():
        sp: Path = p + ("spaces", key)
        name = str(key)
        if name not in spaces:
            b.err(sp, f"space {name!r} is not a space of the module's board{_hint(name, spaces)}")
            continue
        if not isinstance(attrs, dict):
            continue
        if "terrain" in attrs:
            tid = b.ref(sp + ("terrain",), ttypes, "terrain type")
            if tid:
                terrain[name] = tid
        spaces[name] = replace(spaces[name], attributes={str(k): v for k, v in attrs.items()})


class _Connections:
    """The connections between spaces, each checked as it is added."""

    def __init__(self, b: ProblemCollector, spaces: Mapping[str, Space], kinds: Mapping[str, float]) -> None:
        self.b, self.spaces, self.kinds = b, spaces, kinds
        self.connections: list[Connection] = []

    def add(self, where: Path | Problem, a: str, c: str, kind: str) -> None:
        spaces, kinds = self.spaces, self.kinds
        problems = []
        for name in (a, c):
            if name not in spaces:
                problems.append(f"space {name!r} is not a space of the map{_hint(name, spaces)}")
        if not problems and a == c:
            problems.append(f"a connection joins two different spaces; both are {a!r}")
        if kind not in kinds:
            problems.append(f"connection kind {kind!r} is not in map.connection_types "
                            f"(known: {', '.join(sorted(kinds))})")
        for message in problems:
            if isinstance(where, Problem):
                self.b.problems.append(replace(where, message=message))
            else:
                self.b.err(where, message)
        if not problems:
            self.connections.append(Connection(a, c, kind, kinds[kind]))


def _csv_connections(b: ProblemCollector, p: Path, joins: _Connections) -> None:
    """``map.connections_csv``: connections by rows (a, b, kind)."""
    csv_name = b.text(p + ("connections_csv",))
    if not csv_name:
        return
    csv_path = b.local_file(p + ("connections_csv",), csv_name, "connections CSV")
    if csv_path is None:
        return
    rows, lines, problems = load_csv(csv_path)
    b.problems.extend(problems)
    for row, line in zip(rows, lines, strict=True):
        a, c = (row.get("a") or "").strip(), (row.get("b") or "").strip()
        where = Problem("", file=str(csv_path), line=line, path=p + ("connections_csv",))
        if not a or not c:
            b.problems.append(replace(where, message="a connection row needs columns a and b"))
            continue
        joins.add(where, a, c, (row.get("kind") or "clear").strip() or "clear")
