"""Area and point-to-point maps (issue 42): spaces, the connections between
them, and the one location interface rules ask of any map
(``docs/scenario-format.md``, "Area maps").

A hex map's locations are its hexes (:class:`~vmodtool.scenario.mapgrid.MapGrid`);
an area map's are named *spaces* — a module's ``RegionGrid`` regions and
gridless ``Zone``\\ s, named as VASSAL names them (``Map.locationName``,
``docs/vassal-format.md`` §5.9), or spaces typed in the scenario — joined by
typed *connections* (a kind such as clear, mountain, river, sea, rail, each
with a cost).  :class:`Locations` is what a rule asks of either: whether a
label is a location and of which kind, its neighbours, the distance in
steps and the cheapest path cost between two locations.  A rule that needs
what a kind of location cannot give (hex geometry on spaces without
connections) says NOT CHECKED instead of guessing
(:mod:`vmodtool.audit.coverage`).

Pure: no files are read here; the module's board comes from the caller.
"""

from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from vmodtool.vassal.grid import Board, HexGrid, RegionGrid, SquareGrid, ZonedGrid
from vmodtool.vassal.grid_common import Point

__all__ = ["Space", "Connection", "AreaMap", "Locations", "spaces_of_board", "area_map", "HEX", "SPACE"]

#: the kinds of location a rule may meet
HEX = "hex"
SPACE = "space"


@dataclass(frozen=True)
class Space:
    """A named space of an area map: where VASSAL's grid puts it on the
    board (``point``: a region's origin, a zone's centre; None for a typed
    space without one), what it is in the module (``region``, ``zone``,
    ``typed``) and its attributes (terrain, owner, capacity, fort …)."""

    name: str
    point: Point | None = None
    source: str = "typed"
    zone: str | None = None                      # the zone a region lies in
    attributes: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class Connection:
    """Two spaces joined by a printed line of some ``kind`` and ``cost``
    (both ways)."""

    a: str
    b: str
    kind: str = "clear"
    cost: float = 1.0


class Locations(Protocol):
    """What rules ask of a map's locations, hexes or spaces alike."""

    def location_kind(self, label: str) -> str | None:
        """:data:`HEX`, :data:`SPACE`, or None for no location of the map."""
        ...

    def neighbours(self, label: str) -> list[str]:
        ...

    def distance(self, a: str, b: str) -> int | None:
        ...


@dataclass
class AreaMap:
    """The spaces of an area map and the connections between them.
    ``proposed``: the connections are a guess (``vmodtool import`` proposes
    them from the spaces' positions) that the user has not confirmed.
    ``complete``: every printed line is typed (else more may be missing:
    a path the connections give is a real one, but a shorter one may
    exist)."""

    spaces: dict[str, Space] = field(default_factory=dict)
    connections: tuple[Connection, ...] = ()
    proposed: bool = False
    #: the connection kinds the scenario defines and their costs
    #: (``map.connection_types``; ``clear`` costs 1 unless it says otherwise)
    kinds: Mapping[str, float] = field(default_factory=dict)
    complete: bool = False
    _adjacent: dict[str, dict[str, Connection]] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        self._index()

    def _index(self) -> None:
        adjacent: dict[str, dict[str, Connection]] = {name: {} for name in self.spaces}
        for c in self.connections:
            for x, y in ((c.a, c.b), (c.b, c.a)):
                here = adjacent.setdefault(x, {})
                known = here.get(y)
                if known is None or c.cost < known.cost:     # (two lines: the cheaper one counts)
                    here[y] = c
        self._adjacent = adjacent

    def __contains__(self, label: object) -> bool:
        return label in self.spaces

    def location_kind(self, label: str) -> str | None:
        return SPACE if label in self.spaces else None

    def neighbours(self, label: str) -> list[str]:
        """The spaces a connection joins to ``label`` (sorted)."""
        return sorted(self._adjacent.get(label, {}))

    def adjacent(self, a: str, b: str) -> bool:
        return b in self._adjacent.get(a, {})

    def connected(self, label: str) -> bool:
        """Whether some connection joins ``label`` to another space (a space
        no typed line reaches yet is one no path or distance can name)."""
        return bool(self._adjacent.get(label))

    def connection(self, a: str, b: str) -> Connection | None:
        return self._adjacent.get(a, {}).get(b)

    def distance(self, a: str, b: str) -> int | None:
        """Connections crossed on the shortest way (None: not joined)."""
        if a not in self.spaces or b not in self.spaces:
            return None
        if a == b:
            return 0
        seen = {a}
        queue = deque([(a, 0)])
        while queue:
            here, steps = queue.popleft()
            for there in self._adjacent.get(here, {}):
                if there == b:
                    return steps + 1
                if there not in seen:
                    seen.add(there)
                    queue.append((there, steps + 1))
        return None

    def path_cost(self, a: str, b: str, costs: Mapping[str, float] | None = None) -> float | None:
        """The cheapest sum of connection costs from ``a`` to ``b`` (None:
        not joined).  ``costs`` overrides the cost of a connection kind
        (a movement class's own table); a kind it maps to ``inf`` is closed."""
        if a not in self.spaces or b not in self.spaces:
            return None
        best = {a: 0.0}
        heap = [(0.0, a)]
        while heap:
            cost, here = heapq.heappop(heap)
            if here == b:
                return cost
            if cost > best.get(here, float("inf")):
                continue
            for there, c in self._adjacent.get(here, {}).items():
                step = costs.get(c.kind, c.cost) if costs is not None else c.cost
                total = cost + step
                if total < best.get(there, float("inf")):
                    best[there] = total
                    heapq.heappush(heap, (total, there))
        return None


def spaces_of_board(board: Board) -> dict[str, Space]:
    """The spaces of a module board, named as VASSAL names a point there
    (``Board.locationName``): every ``RegionGrid`` region (the board's grid,
    a zone's own or its parent's background grid, the background outside
    all zones) and every zone without a grid of its own, by its location
    format.  A space is kept only where the board gives its point that very
    name (two regions on one origin, a region hidden under an earlier zone
    are not spaces: no piece can be named by them); the first of a name
    wins.  Hex and square grids give no spaces (a hex map's locations are
    its hexes)."""
    found: dict[str, Space] = {}

    def keep(name: str | None, point: Point, source: str, zone: str | None) -> None:
        if not name or name in found or name == "offboard":
            return
        if board.location_name(*board.global_point(*point)) != name:
            return
        found[name] = Space(name, point, source, zone)

    grid = board.grid
    if isinstance(grid, RegionGrid):
        for region in grid.regions:
            keep(region.name, (region.x, region.y), "region", None)
    elif isinstance(grid, ZonedGrid):
        for zone in grid.zones:
            zgrid = zone.grid
            if isinstance(zgrid, RegionGrid):
                for region in zgrid.regions:
                    if grid.find_zone(region.x, region.y) is zone:
                        keep(zone.location_name(region.x, region.y), (region.x, region.y), "region", zone.name)
            elif zgrid is None or not isinstance(zgrid, (HexGrid, SquareGrid)):
                cx, cy = _centre(zone)
                keep(zone.location_name(cx, cy), (cx, cy), "zone", zone.name)
        background = grid.background
        if isinstance(background, RegionGrid):
            for region in background.regions:
                if grid.find_zone(region.x, region.y) is None:
                    keep(region.name, (region.x, region.y), "region", None)
    return found


def _centre(zone: object) -> Point:
    """A point inside a zone (its centre as ``Zone.getLocation`` finds it)."""
    from vmodtool.vassal.grid_zoned import Zone
    assert isinstance(zone, Zone)
    poly = zone.polygon
    n = poly.npoints
    if n == 0:
        return (0, 0)
    x = int(sum(poly.xs) / n)
    y = int(sum(poly.ys) / n)
    return (x, y) if zone.contains(x, y) else (poly.xs[0], poly.ys[0])


def area_map(spaces: Iterable[Space], connections: Iterable[Connection] = (), *,
             proposed: bool = False, kinds: Mapping[str, float] | None = None,
             complete: bool = False) -> AreaMap:
    """An :class:`AreaMap` of these spaces (the first of a name wins) and
    connections (``kinds``: the connection kinds defined, by default those
    the connections use)."""
    by_name: dict[str, Space] = {}
    for space in spaces:
        by_name.setdefault(space.name, space)
    joins = tuple(connections)
    if kinds is None:
        kinds = {}
        for c in joins:
            kinds.setdefault(c.kind, c.cost)
    return AreaMap(by_name, joins, proposed, dict(kinds), complete)
