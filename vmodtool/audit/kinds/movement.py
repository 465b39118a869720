"""Movement kinds: ``movement_allowance`` (``docs/seed-rules.md`` §2.5 item 3,
§4.5 "Movement, precisely") and ``escorted_move`` (§2.5 item 12).

The log gives only the old and the new hex of a drag, so
``movement_allowance`` charges the *cheapest legal* cost between them (a
lower bound of what was really spent) and sums the drags of a unit inside its
window (activation, phase, …).  On an area map the same search runs over
the typed connections (a step costs its connection's kind, or what the
movement class's table says for that kind); a move the typed graph cannot
measure (a space no connection reaches, no path between the two) is NOT
CHECKED, never charged (:func:`vmodtool.audit.coverage.unjoined`).  ``escorted_move`` compares end points only:
a subject (an HQ) that moved A → B needs an escort that also went A → B in
the same window.

Both kinds keep their memory in plain attributes (dicts and lists of
immutable values) and share their precomputed map tables between the copies
the engine takes before each step.
"""

from __future__ import annotations

import copy
import heapq
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypedDict, TypeGuard

from vmodtool.audit.api import Event, GameView, Rule, RuleContext, UnitView, Violation
from vmodtool.audit.combat import COMBAT_EVENTS, CombatSpec, Window, new_window
from vmodtool.audit.coverage import Tally, unjoined
from vmodtool.audit.kinds import register
from vmodtool.audit.map_tables import MAPS_KEPT, ByMap, map_neighbours, per_map
from vmodtool.audit.selectors import as_list, matches
from vmodtool.audit.windows import BETWEEN_WINDOWS, Windows, window_location
from vmodtool.scenario.model import DerivedTerrain, HexMap, Scenario

__all__ = ["MovementAllowance", "EscortedMove", "MoveCosts", "Moment", "fmt_mp", "map_neighbours"]

PROHIBITED = "prohibited"
EPSILON = 1e-9

#: the events that open or close a window, for each window (an enclosing
#: window's boundary closes the inner one too)
WINDOW_BOUNDS = {
    "step": frozenset({"step_start", "activation_start", "activation_end", "phase_start",
                       "phase_end", "turn_start", "turn_end"}),
    "activation": frozenset({"activation_start", "activation_end", "phase_start", "phase_end",
                             "turn_start", "turn_end"}),
    "phase": frozenset({"phase_start", "phase_end", "turn_start", "turn_end"}),
    "turn": frozenset({"turn_start", "turn_end"}),
}


def fmt_mp(value: float) -> str:
    """2.0 → "2", 2.5 → "2.5"."""
    if abs(value - round(value)) < EPSILON:
        return str(int(round(value)))
    return f"{value:.2f}".rstrip("0").rstrip(".")


def plain_copy(value: Any) -> Any:
    """Copy containers (dict, list, set) recursively; share everything else
    (events, tuples, strings and numbers are immutable)."""
    if isinstance(value, dict):
        return {k: plain_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain_copy(v) for v in value]
    if isinstance(value, set):
        return set(value)
    return value


class CheapCopy:
    """For a rule whose memory is plain containers (dicts, lists, sets) of
    immutable values: a copy (:meth:`Rule.__deepcopy__`) copies just the
    containers."""

    def _copy_memory(self, value: Any, memo: dict[int, Any]) -> Any:
        return plain_copy(value)


class Moment(tuple[int | None, str | None, str | None, str | None, bool]):
    """The clock of a moment (turn, phase, phasing side, activation, inferred)."""

    @classmethod
    def of(cls, state: GameView) -> Moment:
        return cls((state.turn, state.phase, state.phasing_side, state.active_formation,
                    state.time_inferred))


class At:
    """A game view with the clock of an earlier moment: violations judged at
    a window's end keep the turn, phase and activation of the act itself."""

    def __init__(self, state: GameView, clock: Moment) -> None:
        self._state = state
        self.turn: int | None
        self.phase: str | None
        self.phasing_side: str | None
        self.active_formation: str | None
        self.time_inferred: bool
        (self.turn, self.phase, self.phasing_side, self.active_formation,
         self.time_inferred) = clock

    def unit(self, uid: str) -> UnitView:
        return self._state.unit(uid)


def describe(state: GameView, uid: str) -> str:
    try:
        return state.unit(uid).describe()
    except KeyError:
        return uid


# --------------------------------------------------------------------------------------
# movement costs
# --------------------------------------------------------------------------------------

class MoveCosts:
    """The cost tables of one ``movement_allowance`` entry over the scenario
    map: per movement class, for each hex the legal steps to its neighbours
    with their cost, plus a cache of Dijkstra runs.  Shared by every copy of
    the rule (never deep-copied)."""

    CACHE_SIZE = 4096

    def __init__(self, scenario: Scenario, params: Mapping[str, Any], hex_map: HexMap | None = None) -> None:
        #: the map measured: ``map``, or the window of ``maps`` given
        self.map = scenario.map if hex_map is None else hex_map
        #: an area map's spaces and connections (None: a hex map)
        self.areas = self.map.areas
        self.params = params
        self.costs: Mapping[str, Mapping[str, Any]] = params.get("costs") or {}
        self.ignore_hexsides = bool(params.get("ignore_hexsides", False))
        self.extra: Mapping[str, Mapping[str, Any]] = params.get("hexside_extra") or {}
        self.negated = frozenset(as_list(params.get("bridge_negates")))
        self.bridges = frozenset(as_list(params.get("bridge_types"))) or frozenset(
            t.id for t in self.map.hexside_types.values()
            if t.id == "bridge" or t.symbol == "bridge")
        road = params.get("road") or {}
        self.road_types = frozenset(as_list(road.get("types")))
        self.road_cost = road.get("cost")
        # the map's tables depend on the map and the entry only: made once per
        # scenario (every audit of its logs, and the rules made again for a
        # game's bound units, share them)
        tables = _map_tables(self.map, params)
        #: hexside pair -> feature types (HexMap.hexside_features scans a list)
        self.sides: dict[frozenset[str], frozenset[str]] = tables.sides
        self.neighbours: dict[str, tuple[str, ...]] = tables.neighbours
        self._edges: dict[str, dict[str, tuple[tuple[str, float], ...]]] = tables.edges
        # the searches are functions of the tables and their arguments alone:
        # kept with the tables for every audit
        self._cache: dict[tuple[str, str, frozenset[str], frozenset[str]],
                          tuple[dict[str, float], dict[str, str]]] = tables.searches
        #: cheapest() answers (read-only)
        self._paths: dict[tuple[str, str, str, frozenset[str], frozenset[str]], Path | None] = tables.paths
        self._entrances: dict[str, frozenset[str]] = tables.entrances
        self._best, self._floors = tables.best, tables.floors
        #: the map's terrain was read from its image (None: typed by hand)
        self.derived: DerivedTerrain | None = self.map.derived
        self.sides_of = {c.id: c.side for c in scenario.counters}
        #: (side, moves of the other sides) -> the rule's enemy hexes (of
        #: one audit: the game's positions)
        self.enemy_cache: dict[tuple[str, object], Enemies] = {}

    def __deepcopy__(self, memo: dict[int, Any]) -> MoveCosts:
        return self

    def follow(self, hex_map: HexMap) -> None:
        """Read terrain from ``hex_map`` (the state's ``terrain_map``: the
        scenario's, with terrain pieces laid over it): the tables made for
        it (once per map: terrain pieces rarely move)."""
        if hex_map is self.map:
            return
        self.map = hex_map
        self.areas = hex_map.areas
        tables = _map_tables(hex_map, self.params)
        self.sides, self.neighbours, self._edges = tables.sides, tables.neighbours, tables.edges
        self._cache, self._paths, self._entrances = tables.searches, tables.paths, tables.entrances
        self._best, self._floors = tables.best, tables.floors
        self.derived = hex_map.derived

    # -- per-edge costs ------------------------------------------------------------------
    def knows(self, cls: str | None) -> TypeGuard[str]:
        return cls is not None and cls in self.costs

    def terrain_cost(self, cls: str, hex_id: str) -> Any:
        table = self.costs.get(cls) or {}
        terrain = self.map.terrain.get(hex_id)
        if terrain is not None and terrain in table:
            return table[terrain]
        return table.get("default", 1)

    def _road_cost(self, cls: str) -> Any:
        if isinstance(self.road_cost, Mapping):
            return self.road_cost.get(cls)
        return self.road_cost

    def step_cost(self, cls: str, a: str, b: str) -> float | None:
        """Cost of moving from ``a`` into the adjacent ``b`` (None: prohibited)."""
        if self.areas is not None:
            return self._connection_cost(cls, a, b)
        features = frozenset() if self.ignore_hexsides else self.sides.get(frozenset((a, b)),
                                                                            frozenset())
        base: Any = None
        if features & self.road_types:
            base = self._road_cost(cls)
        if base is None:
            base = self.terrain_cost(cls, b)
        if base == PROHIBITED:
            return None
        cost = float(base)
        bridged = bool(features & self.bridges)
        for feature in features:
            if feature in self.road_types or feature not in self.extra:
                continue
            if bridged and feature in self.negated:
                continue
            extra = (self.extra.get(feature) or {}).get(cls, 0)
            if extra == PROHIBITED:
                return None
            cost += float(extra)
        return cost

    def _connection_cost(self, cls: str, a: str, b: str) -> float | None:
        """On an area map: the cost of the connection from ``a`` to ``b``,
        by its kind (the movement class's table may price a kind, or
        prohibit it); terrain does not price a step there."""
        assert self.areas is not None
        joined = self.areas.connection(a, b)
        if joined is None:
            return None
        cost = (self.costs.get(cls) or {}).get(joined.kind, joined.cost)
        return None if cost == PROHIBITED else float(cost)

    def edges(self, cls: str) -> dict[str, tuple[tuple[str, float], ...]]:
        table = self._edges.get(cls)
        if table is None:
            table = {}
            for a, near in self.neighbours.items():
                out = []
                for b in near:
                    cost = self.step_cost(cls, a, b)
                    if cost is not None:
                        out.append((b, cost))
                table[a] = tuple(out)
            self._edges[cls] = table
        return table

    # -- searches ------------------------------------------------------------------------
    def dijkstra(self, cls: str, src: str, blocked: frozenset[str],
                 stop: frozenset[str]) -> tuple[dict[str, float], dict[str, str]]:
        """Cheapest costs from ``src`` to every reachable hex: ``blocked``
        hexes are never entered, ``stop`` hexes are entered but not left."""
        key = (cls, src, blocked, stop)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        dist, prev = self._search(cls, src, blocked, stop)
        if len(self._cache) >= self.CACHE_SIZE:
            self._cache.clear()
        self._cache[key] = (dist, prev)
        return dist, prev

    def _search(self, cls: str, src: str, blocked: frozenset[str], stop: frozenset[str],
                target: str | None = None) -> tuple[dict[str, float], dict[str, str]]:
        """Dijkstra from ``src`` (costs and predecessors), over the whole map
        or until ``target`` is settled: its cost and the predecessors along
        its path are final then, so its path is the one the whole search
        finds, ties included, at the cost of the hexes nearer than it only (a
        big map is not searched whole for every move)."""
        edges = self.edges(cls)
        dist: dict[str, float] = {src: 0.0}
        prev: dict[str, str] = {}
        heap = [(0.0, src)]
        done: set[str] = set()
        while heap:
            d, a = heapq.heappop(heap)
            if a in done:
                continue
            if a == target:
                break
            done.add(a)
            if a != src and a in stop:
                continue
            for b, cost in edges.get(a, ()):
                if b in blocked:
                    continue
                nd = d + cost
                if nd < dist.get(b, float("inf")) - EPSILON:
                    dist[b] = nd
                    prev[b] = a
                    heapq.heappush(heap, (nd, b))
        return dist, prev

    def cheapest(self, cls: str, src: str, dst: str, blocked: frozenset[str] = frozenset(),
                 stop: frozenset[str] = frozenset()) -> Path | None:
        """(cost, [(hex, cost to enter it), …]) of the cheapest legal path, or None."""
        key = (cls, src, dst, blocked, stop)
        try:
            return self._paths[key]             # (None too: no legal path)
        except KeyError:
            pass
        if len(self._paths) >= self.CACHE_SIZE:
            self._paths.clear()
        found = self._paths[key] = self._cheapest(cls, src, dst, blocked, stop)
        return found

    def entrances(self, cls: str) -> frozenset[str]:
        """The hexes some legal step of ``cls`` enters (a hex of prohibited
        terrain, or behind prohibited hexsides on every side, is not one)."""
        found = self._entrances.get(cls)
        if found is None:
            found = self._entrances[cls] = frozenset(b for near in self.edges(cls).values() for b, _ in near)
        return found

    def _cheapest(self, cls: str, src: str, dst: str, blocked: frozenset[str],
                  stop: frozenset[str]) -> Path | None:
        if dst != src and (dst in blocked or dst not in self.entrances(cls)):
            # no step ever enters it: the search would settle every hex it can
            # reach (a big map whole: 7,000 hexes for a move into an enemy hex
            # on The Longest Day's) to find no path, which is known now
            return None
        dist, prev = self._search(cls, src, blocked, stop, target=dst)
        if dst not in dist:
            return None
        path = [dst]
        while path[-1] != src:
            path.append(prev[path[-1]])
        path.reverse()
        legs = tuple((b, dist[b] - dist[a]) for a, b in zip(path, path[1:], strict=False))
        return dist[dst], legs

    # -- derived terrain -----------------------------------------------------------------
    def _floor(self, cls: str) -> float:
        """The cheapest a step of ``cls`` can cost on the map: its road
        cost (when the entry has roads) or its cheapest terrain of the map."""
        prices = [self._road_cost(cls)] if self.road_types else []
        prices += [self.terrain_cost(cls, h) for h in {t: h for h, t in self.map.terrain.items()}.values()]
        numbers = [float(p) for p in prices if isinstance(p, (int, float)) and not isinstance(p, bool)]
        return min(numbers, default=0.0)

    def _best_steps(self, cls: str) -> dict[str, float]:
        """Per hex, the cheapest entering it can be if the derived map
        misread it: any hexside may be a missed road (and a river or wall a
        misread line: no hexside adds or prohibits), an unsure or
        prohibited hex may be the cheapest terrain (made once per class)."""
        found = self._floors.get(cls)
        if found is not None:
            return found
        assert self.derived is not None
        floor = self._floor(cls)
        road = self._road_cost(cls) if self.road_types else None
        found = {}
        for b in self.neighbours:
            cost = self.terrain_cost(cls, b)
            if b in self.derived.unsure or cost == PROHIBITED or not isinstance(cost, (int, float)):
                found[b] = floor
            else:
                found[b] = min(float(cost), float(road)) if isinstance(road, (int, float)) else float(cost)
        self._floors[cls] = found
        return found

    def best_case(self, cls: str, src: str, dst: str, blocked: frozenset[str] = frozenset(),
                  stop: frozenset[str] = frozenset(), limit: float = float("inf")) -> float | None:
        """On a derived map: the cheapest a move from ``src`` to ``dst``
        can cost whatever the derived terrain misread (:meth:`_best_steps`;
        enemy hexes and zones of control still count), None: no way even
        so, or none within ``limit`` MP (the search stops there)."""
        key = (cls, src, dst, blocked, stop, limit)
        try:
            return self._best[key]           # (None too: no way)
        except KeyError:
            pass
        steps = self._best_steps(cls)
        dist: dict[str, float] = {src: 0.0}
        heap = [(0.0, src)]
        done: set[str] = set()
        while heap:
            d, a = heapq.heappop(heap)
            if a == dst or d > limit + EPSILON:
                break
            if a in done:
                continue
            done.add(a)
            if a != src and a in stop:
                continue
            for b in self.neighbours.get(a, ()):
                if b in blocked:
                    continue
                nd = d + steps.get(b, 0.0)
                if nd < dist.get(b, float("inf")) - EPSILON:
                    dist[b] = nd
                    heapq.heappush(heap, (nd, b))
        if len(self._best) >= self.CACHE_SIZE:
            self._best.clear()
        cost = dist.get(dst)
        if cost is not None and cost > limit + EPSILON:
            cost = None
        self._best[key] = cost
        return cost

    def within_hexes(self, cls: str, src: str, dst: str, hexes: int, blocked: frozenset[str],
                     stop: frozenset[str]) -> bool:
        """Whether a legal path of at most ``hexes`` hexes leads from src to dst."""
        edges = self.edges(cls)
        frontier = {src}
        seen = {src}
        for _ in range(hexes):
            nxt: set[str] = set()
            for a in frontier:
                if a != src and a in stop:
                    continue
                for b, _cost in edges.get(a, ()):
                    if b in blocked or b in seen:
                        continue
                    if b == dst:
                        return True
                    nxt.add(b)
            seen |= nxt
            frontier = nxt
        return False


#: the cheapest legal path of a drag: (its cost, ((hex, cost to enter it), …))
Path = tuple[float, tuple[tuple[str, float], ...]]


class _MapTables:
    """What a :class:`MoveCosts` computes from the map and its rule entry
    alone: hexsides, neighbours, the edge costs of each movement class and
    the searches over them (pure functions of the two and the searches'
    arguments, so shared by every audit)."""

    def __init__(self, hex_map: HexMap, params: Mapping[str, Any]) -> None:
        self.params = params                # (a copy: compared with the params of later rules)
        self.sides: dict[frozenset[str], frozenset[str]] = {}
        for side in hex_map.hexsides:
            self.sides[side.pair] = self.sides.get(side.pair, frozenset()) | {side.type}
        self.neighbours = map_neighbours(hex_map)
        self.edges: dict[str, dict[str, tuple[tuple[str, float], ...]]] = {}
        #: the searches made over these tables (see MoveCosts.dijkstra, cheapest)
        self.searches: dict[tuple[str, str, frozenset[str], frozenset[str]],
                            tuple[dict[str, float], dict[str, str]]] = {}
        self.paths: dict[tuple[str, str, str, frozenset[str], frozenset[str]], Path | None] = {}
        #: movement class -> the hexes a legal step enters (MoveCosts.entrances)
        self.entrances: dict[str, frozenset[str]] = {}
        #: on a derived map: best_case() answers, and each class's cheapest step
        self.best: dict[tuple[str, str, str, frozenset[str], frozenset[str], float], float | None] = {}
        self.floors: dict[str, dict[str, float]] = {}


#: the tables of the rule entries (by their params) made for a map
_TABLES: ByMap[list[_MapTables]] = {}


def _map_tables(hex_map: HexMap, params: Mapping[str, Any]) -> _MapTables:
    """The tables of a map and a rule entry's params (equal params: the same
    entry of the scenario, whose rules are made again for every audit)."""
    made = per_map(_TABLES, hex_map, list)
    for tables in made:
        if tables.params == params:
            return tables
    if len(made) >= MAPS_KEPT:
        made.clear()
    tables = _MapTables(hex_map, copy.deepcopy(dict(params)))
    made.append(tables)
    return tables


#: enemy-occupied hexes, the hexes in their ZOC, and which enemy units are where
Enemies = tuple[frozenset[str], frozenset[str], dict[str, list[str]]]


class _Drag(TypedDict):
    """A drag of a subject, judged at the end of its step."""

    event: Event
    clock: Moment
    uid: str
    from_hex: str                   # the event's hexes (both set for a drag)
    to_hex: str
    cls: str
    best: Path | None
    reason: str | None
    minimum_search: tuple[frozenset[str], frozenset[str]] | None   # (blocked, stop)
    derived_search: tuple[frozenset[str], frozenset[str]] | None   # (blocked, stop) on a derived map
    allowance: float | None
    ends_in_zoc: bool
    carrier: bool                   # not an ``attached`` piece (a leader, an HQ …)
    window: str | None              # the window of ``maps`` it is on (None: ``map``)
    side: str


#: a ``#retreat``/``#advance`` annotation naming hexes: the step that used it
_Retreat = TypedDict("_Retreat", {"from": tuple[str, ...], "to": tuple[str, ...], "used": int | None})


def path_text(src: str, legs: Sequence[tuple[str, float]]) -> str:
    return "-".join([src] + [f"{h}({fmt_mp(c)})" for h, c in legs])


# --------------------------------------------------------------------------------------
# movement_allowance
# --------------------------------------------------------------------------------------

@register("movement_allowance")
class MovementAllowance(CheapCopy, Rule):
    """Movement points a unit spends in its window never exceed its allowance.

    Each ``move`` of a subject in one of ``phases`` is charged the cheapest
    legal cost from its old to its new hex (judged on the game as it was when
    the drag happened); drags of one unit in one window are summed.  Moves in
    a step that carries a ``#retreat``/``#advance`` annotation (or matching a
    pending one that names the hexes) are exempt, and so are the combat
    moves of a ``combat`` window (§4.11: judged by ``retreat`` and
    ``advance_after_combat``).  A unit matching ``attached`` (a leader, an
    HQ, a marker on a unit) that makes the same drag in the same step as a
    unit that does not match is carried by it: not charged.  With
    ``phasing_side_only`` the moves of a unit not of the phasing side are
    not movement.  With ``exempt_entering`` a unit that entered the map in
    the window (from a display or box, or a window the scenario does not
    bind: strategic movement) is not charged its later moves in it.  Judged
    at the end of the step, dated to the move."""

    _shared = ("ctx", "params", "tables", "combat", "windows", "window_tables")
    # a step_end only judges the drags of the step (none: nothing to do); a
    # move of a unit that is not a subject is not charged
    quiet_step_end = True
    subject_events = frozenset({"move"})

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        p = self.params
        self.window = p.get("window", "activation")
        self.subscribes = frozenset({"move", "annotation", "step_end", "game_end"}
                                    | WINDOW_BOUNDS.get(self.window, WINDOW_BOUNDS["activation"]))
        combat = p.get("combat")
        #: the combat windows whose moves are not movement (None: no ``combat``)
        self.combat: CombatSpec | None = CombatSpec(combat) if isinstance(combat, dict) else None
        if self.combat is not None:
            self.subscribes |= COMBAT_EVENTS
        self.attached = p.get("attached")
        self.phasing_only = bool(p.get("phasing_side_only", False))
        self.take_backs = bool(p.get("take_backs", False))
        self.exempt_entering = bool(p.get("exempt_entering", False))
        if self.exempt_entering:
            self.subscribes |= {"enter"}
        self.phases = frozenset(as_list(p.get("phases")))
        self.exempt_kinds = frozenset(as_list(p.get("exempt_annotations", ["retreat", "advance"])))
        self.enemy_prohibited = p.get("enemy_occupied", "prohibited") == PROHIBITED
        zoc = p.get("enemy_zoc") or {}
        self.zoc_stop = zoc.get("enter") == "stop"
        self.zoc_by = zoc.get("exerted_by")
        self.enemy_ignore = p.get("enemy_ignore")
        minimum = p.get("minimum_move", 0)
        self.minimum = 1 if minimum is True else int(minimum or 0)
        self.tables = MoveCosts(ctx.scenario, p)
        #: the windows of ``maps`` and their cost tables (made when a move there is judged)
        self.windows = Windows(ctx.scenario)
        self.window_tables: dict[str, MoveCosts] = {}
        # memory (rolled back with the step on undo)
        self.spent: dict[str, float] = {}
        self.legs: dict[str, list[tuple[str, str, float]]] = {}   # uid -> [(from, to, cost)] this window
        self.minimum_used: dict[str, bool] = {}
        self.stopped: dict[str, str] = {}          # uid -> EZOC hex its last drag ended in
        self.entered: set[str] = set()             # units that entered the map this window
        self.pending: list[_Drag] = []              # this step's judged drags
        self.step_exempt = False
        self.step_no: int | None = None
        self.retreats: list[_Retreat] = []          # pending annotations naming hexes
        self.combat_window: Window = new_window()
        self.unjudged = Tally()                     # moves an area map's typed connections cannot measure
        self.underived = Tally()                    # moves over only by what derived terrain may misread
        self.between = Tally()                      # moves from one map window to another (no grid joins them)

    def idle(self, state: GameView) -> bool:
        """Whether its ``step_end`` now would do nothing (see
        ``Engine.skips``): no drag pending (a step_end bounds no window)."""
        return not self.pending and "step_end" not in WINDOW_BOUNDS.get(self.window, ())

    # -- events --------------------------------------------------------------------------
    def check(self, state: GameView, event: Event) -> Iterable[Violation]:
        kind = event.kind
        if kind == "move":
            self._on_move(state, event)
            return ()
        if kind == "enter":
            if event.unit is not None and (not self.phases or state.phase in self.phases):
                self.entered.add(event.unit)
            return ()
        combat = self.combat
        if kind in ("annotation", "dice"):
            if combat is not None:
                combat.on_event(state, event, self.combat_window)
            if kind == "annotation":
                self._on_annotation(event)
            return ()
        out = self._flush(state) if self.pending else []
        if combat is not None and kind in COMBAT_EVENTS:
            combat.on_event(state, event, self.combat_window)
        self._window_bound(kind)
        if kind == "game_end":
            whys = [(self.unjudged.reason("move(s)"), self.unjudged.number),
                    (self.underived.reason(
                        "move(s)", "on the derived terrain (read from the board image: a missed road or a misread "
                        "hex may make the way cheaper)"), self.underived.number),
                    (self.between.reason("move(s)", BETWEEN_WINDOWS), self.between.number)]
            why = "; ".join(text for text, _ in whys if text is not None)
            if why:
                out.append(self.ctx.violation(event, state, why, severity="info", not_checked=True,
                                              moves_not_judged=sum(n for _, n in whys)))
        return out

    def _tables_of(self, window: str | None) -> MoveCosts:
        """The cost tables of ``map`` (None) or of the window of ``maps`` so named."""
        if window is None:
            return self.tables
        found = self.window_tables.get(window)
        if found is None:
            found = self.window_tables[window] = MoveCosts(self.ctx.scenario, self.params,
                                                           self.windows.by_name[window])
        return found

    def _window_of(self, state: GameView, event: Event, unit: UnitView) -> tuple[str | None, str, str] | None:
        """(window, from, to) of a drag, the two labels as the window's grid
        names them (window None: ``map``); None for a drag between two
        windows, which no grid measures (noted NOT CHECKED)."""
        src, dst = event.from_hex, event.to_hex
        assert src is not None and dst is not None
        if not self.windows:
            return None, src, dst
        on = self.windows.common(src, dst, self.tables.map)
        if isinstance(on, str):
            self.between = self.between.noted(f"{describe(state, unit.uid)} {src} → {dst} (step {event.step})")
            return None
        hex_map, a, b = on
        return (hex_map.name if hex_map.name in self.windows.by_name and a != src else None), a, b

    def _window_bound(self, kind: str) -> None:
        """Forget the window's moves at one of its bounds."""
        if kind in WINDOW_BOUNDS.get(self.window, ()):
            self.spent, self.legs, self.minimum_used, self.stopped = {}, {}, {}, {}
            self.entered = set()
            if kind.startswith(("phase", "turn")):
                self.retreats = []

    def _new_step(self, step: int) -> None:
        if self.step_no != step:
            self.step_no = step
            self.step_exempt = False

    def _on_annotation(self, event: Event) -> None:
        ann = event.annotation
        if ann is None or ann.kind not in self.exempt_kinds:
            return
        self._new_step(event.step)
        self.step_exempt = True
        hexes_from = tuple(h for h in as_list(ann.args.get("from")) if isinstance(h, str))
        hexes_to = tuple(h for h in as_list(ann.args.get("to")) if isinstance(h, str))
        if hexes_from or hexes_to:
            self.retreats.append({"from": hexes_from, "to": hexes_to, "used": None})

    def _mover(self, state: GameView, event: Event) -> UnitView | None:
        """The unit a drag moves, if this rule prices the drag: a move
        between two places, in the rule's phases, of a unit its ``subject``
        names and its tables know, not a retreat or an advance, not a
        displacement of the other side's unit, not an entry."""
        if event.unit is None or not event.from_hex or not event.to_hex:
            return None
        if event.from_hex == event.to_hex:
            return None
        if self.phases and state.phase not in self.phases:
            return None
        try:
            unit = state.unit(event.unit)
        except KeyError:
            return None
        if self.combat is not None and self.combat.combat_move(state, event, unit, self.combat_window):
            return None                 # (a retreat, an advance: judged by their own kinds)
        if not matches(self.params.get("subject"), unit, state, unit):
            return None
        if self.phasing_only and state.phasing_side is not None and unit.side != state.phasing_side:
            return None                 # (not its side's movement: a displacement, or the clock missed a phase)
        if unit.uid in self.entered:
            return None                 # (it came onto the map this window: strategic movement, an entry)
        if not self.tables.knows(unit.movement_class):
            return None
        return unit

    def _on_move(self, state: GameView, event: Event) -> None:
        unit = self._mover(state, event)
        if unit is None:
            return
        cls = unit.movement_class
        assert cls is not None and event.from_hex and event.to_hex      # (as _mover found them)
        on = self._window_of(state, event, unit)
        if on is None:
            return
        window, src, dst = on
        tables = self._tables_of(window)
        if window is None:
            tables.follow(state.terrain_map)        # (terrain pieces lie on ``map``)
        areas = tables.areas
        if areas is not None:
            gap = unjoined(areas, src, dst)
            if gap is not None:         # (the typed graph may lack the line: no accusation)
                self.unjudged = self.unjudged.noted(
                    f"{describe(state, unit.uid)} {event.from_hex} → {event.to_hex} (step {event.step}): {gap}")
                return
        self._new_step(event.step)
        blocked, stop, enemies = self._enemies(state, unit, tables, window)
        if not self.enemy_prohibited:
            blocked = frozenset()
        if not self.zoc_stop:
            stop = frozenset()
        best = tables.cheapest(cls, src, dst, blocked, stop)
        if best is not None and window is not None:       # (the path named as the rules name locations)
            best = best[0], tuple((window_location(window, h), c) for h, c in best[1])
        # whether a minimum move covers it is searched only for a move over its
        # allowance (with the enemy hexes of the moment)
        minimum_search = (blocked, stop) if self.minimum and best is not None else None
        reason = None
        if best is None:
            reason = self._why_no_path(tables, cls, dst, blocked, stop, enemies)
        self.pending.append({
            "event": event, "clock": Moment.of(state), "uid": unit.uid,
            "from_hex": event.from_hex, "to_hex": event.to_hex, "cls": cls,
            "best": best, "reason": reason, "minimum_search": minimum_search,
            "derived_search": (blocked, stop) if self.tables.derived is not None and window is None else None,
            "allowance": self._allowance(unit),
            "ends_in_zoc": dst in stop, "window": window,
            "carrier": self.attached is None or not matches(self.attached, unit, state, unit),
            "side": unit.side,
        })

    def _enemies(self, state: GameView, unit: UnitView, tables: MoveCosts, window: str | None) -> Enemies:
        """Hexes holding enemy units, hexes in their ZOC, and who is where.
        When only sides and positions decide (no ``enemy_ignore`` or
        ``exerted_by`` selector), the answer is kept until a unit of another
        side moves (:meth:`GameView.moves_of_others`)."""
        if self.enemy_ignore is not None or self.zoc_by is not None:
            return self._find_enemies(state, unit, tables, window)
        key = (unit.side, state.moves_of_others(unit.side))
        cache = tables.enemy_cache
        hit = cache.get(key)
        if hit is None:
            if len(cache) >= 256:
                cache.clear()
            hit = cache[key] = self._find_enemies(state, unit, tables, window)
        return hit

    def _find_enemies(self, state: GameView, unit: UnitView, tables: MoveCosts, window: str | None) -> Enemies:
        enemies: dict[str, list[str]] = {}
        exerting: set[str] = set()
        for uid, s in state.unit_places().items():
            if not s.present or s.hex is None or uid == unit.uid:
                continue
            other: UnitView | None = None
            if self.enemy_ignore is not None or self.zoc_by is not None:
                other = state.unit(uid)
                if other.side == unit.side:
                    continue
                if self.enemy_ignore is not None and matches(self.enemy_ignore, other, state, unit):
                    continue
            elif tables.sides_of.get(uid) == unit.side:
                continue
            where = s.hex
            if window is not None:                  # (on a window: its own labels, its units only)
                found = self.windows.split(where)
                if found is None or found[0].name != window:
                    continue
                where = found[1]
            enemies.setdefault(where, []).append(uid)
            if self.zoc_by is None or (other is not None and matches(self.zoc_by, other, state, unit)):
                exerting.add(where)
        zoc: set[str] = set()
        for h in exerting:
            zoc.update(tables.neighbours.get(h, ()))
        return frozenset(enemies), frozenset(zoc), enemies

    def _allowance(self, unit: UnitView) -> float | None:
        allowance = self.params.get("allowance")
        value: Any                      # a number, if the scenario says one
        if isinstance(allowance, Mapping):
            factor = allowance.get("factor")
            value = unit.factors.get(factor) if factor is not None else None
        else:
            value = allowance
        try:
            return float(value)
        except (TypeError, ValueError):
            return None

    def _why_no_path(self, tables: MoveCosts, cls: str, dst: str, blocked: frozenset[str], stop: frozenset[str],
                     enemies: Mapping[str, list[str]]) -> str:
        if dst in blocked:
            return f"{dst} holds enemy units ({', '.join(enemies.get(dst, []))})"
        if tables.areas is not None:
            notes = [f"connection kinds prohibited for {cls} movement"]
        elif tables.terrain_cost(cls, dst) == PROHIBITED:
            terrain = tables.map.terrain.get(dst)
            name = tables.map.terrain_types[terrain].name if terrain else "?"
            return f"{dst} is {name}, prohibited for {cls} movement"
        else:
            notes = ["prohibited terrain and hexsides"]
        if blocked:
            notes.append("enemy-occupied hexes" if tables.areas is None else "enemy-occupied spaces")
        if stop:
            notes.append("stopping on entering enemy ZOC")
        return f"no legal path for {cls} movement (" + ", ".join(notes) + ")"

    # -- judging -------------------------------------------------------------------------
    def _exempt(self, item: _Drag) -> bool:
        event = item["event"]
        hit = False
        for ann in self.retreats:
            if ann["used"] not in (None, event.step):
                continue
            if (not ann["from"] or event.from_hex in ann["from"]) and \
                    (not ann["to"] or event.to_hex in ann["to"]):
                ann["used"] = event.step      # consumed by the step that carries it out
                hit = True
                break
        return hit or (self.step_exempt and self.step_no == event.step)

    def _flush(self, state: GameView) -> list[Violation]:
        out: list[Violation] = []
        pending, self.pending = self.pending, []
        carried = {(d["event"].step, d["from_hex"], d["to_hex"], d["side"]) for d in pending if d["carrier"]}
        for item in pending:
            if self._exempt(item):
                continue
            if not item["carrier"] and (item["event"].step, item["from_hex"], item["to_hex"],
                                        item["side"]) in carried:
                continue                # (attached to a unit that made the same drag: counted once)
            v = self._judge(state, item)
            if v is not None:
                out.append(v)
        self.retreats = [r for r in self.retreats if r["used"] is None]
        return out

    def _take_back(self, uid: str, to_hex: str) -> bool:
        """Whether a drag goes back to a hex the unit began an earlier drag
        of the window in: it takes those drags back (a player correcting a
        move), what they cost is no longer spent, and it costs nothing."""
        legs = self.legs.get(uid)
        if not legs:
            return False
        for i, (a, _b, _c) in enumerate(legs):
            if a == to_hex:
                del legs[i:]
                self.spent[uid] = sum(c for _a, _b, c in legs)
                return True
        return False

    def _unsure(self, state: GameView, item: _Drag, why: str) -> bool:
        """Whether a verdict rests on an area map's typed connections that
        are not declared complete (``map.connections_complete``): a line
        not typed yet may make the way shorter (or a space a zone of
        control), so the move is noted NOT CHECKED instead.  Never on a
        hex map."""
        areas = self._tables_of(item["window"]).areas
        if areas is None or areas.complete:
            return False
        self.unjudged = self.unjudged.noted(
            f"{describe(state, item['uid'])} {item['from_hex']} → {item['to_hex']} (step {item['event'].step}): "
            f"{why}; the typed connections are not declared complete")
        return True

    def _misread(self, state: GameView, item: _Drag, total: float | None, allowance: float) -> bool:
        """Whether a verdict rests on derived terrain (``map.terrain.derived``):
        the move is over its allowance (``total`` MP by the derived map; None:
        no legal path by it) but not in the best case the derived data
        cannot exclude (:meth:`MoveCosts.best_case`, with the unit's earlier
        drags of the window priced so too), so it is noted NOT CHECKED."""
        search = item["derived_search"]
        if search is None:
            return False
        cls, uid = item["cls"], item["uid"]
        best = self.tables.best_case(cls, item["from_hex"], item["to_hex"], *search, limit=allowance)
        if best is None:
            return False                # (no way within the allowance whatever the terrain)
        if total is not None:
            for a, b, _c in self.legs.get(uid, [])[:-1]:
                leg = self.tables.best_case(cls, a, b, limit=allowance - best)
                if leg is None:
                    return False
                best += leg
        needs = f"needs {fmt_mp(total)} MP by the derived map" if total is not None else \
            f"{item['reason']} by the derived map"
        self.underived = self.underived.noted(
            f"{describe(state, uid)} {item['from_hex']} → {item['to_hex']} (step {item['event'].step}): rests on "
            f"derived terrain: {needs}, {fmt_mp(best)} in the best case"
            + (f", has {fmt_mp(allowance)}" if total is not None else ""))
        return True

    def _within_minimum(self, item: _Drag) -> bool:
        """Whether a minimum move covers a drag (on its own window's grid)."""
        a, b = item["from_hex"], item["to_hex"]
        window = item["window"]
        if window is not None:                  # (both on the window: checked when noted)
            a, b = (found[1] if (found := self.windows.split(x)) is not None else x for x in (a, b))
        search = item["minimum_search"]
        assert search is not None
        return self._tables_of(window).within_hexes(item["cls"], a, b, self.minimum, *search)

    def _judge(self, state: GameView, item: _Drag) -> Violation | None:
        event, uid = item["event"], item["uid"]
        a, b = item["from_hex"], item["to_hex"]
        stopped_at = self.stopped.pop(uid, None)
        if item["ends_in_zoc"]:
            self.stopped[uid] = b
        if item["best"] is None:
            if self._unsure(state, item, str(item["reason"])) or self._misread(
                    state, item, None, float("inf") if item["allowance"] is None else item["allowance"]):
                return None
            return self.ctx.violation(event, At(state, item["clock"]),
                                      f"{describe(state, uid)} moved {a} → {b}: {item['reason']}",
                                      units=[uid], hexes=[a, b], reason=item["reason"],
                                      movement_class=item["cls"])
        cost, legs = item["best"]
        if self.take_backs and self._take_back(uid, b):
            return None                 # (the unit is back where it was: nothing spent)
        before = self.spent.get(uid, 0.0)
        earlier = list(self.legs.get(uid, ()))
        total = before + cost
        self.spent[uid] = total
        self.legs.setdefault(uid, []).append((a, b, cost))
        allowance = item["allowance"]
        left_zoc = stopped_at is not None and stopped_at == a
        if not left_zoc:
            # a legal move (the common case) costs no text
            if allowance is None or total <= allowance + EPSILON:
                if self.zoc_stop:
                    self._unsure(state, item, "legal by the typed lines, but where an untyped line puts a zone "
                                              "of control is unknown")
                return None
            if not earlier and item["minimum_search"] and self._within_minimum(item):
                self.minimum_used[uid] = True
                self.spent[uid] = max(total, allowance)
                return None
            if self._unsure(state, item, f"{fmt_mp(total)} MP by the typed lines, over its {fmt_mp(allowance)}"):
                return None
            if self._misread(state, item, total, allowance):
                return None
        at = At(state, item["clock"])
        who = describe(state, uid)
        path = path_text(a, legs)
        evidence: dict[str, Any] = {"path": [a] + [h for h, _ in legs], "costs": [c for _, c in legs],
                    "cost": cost, "spent": total, "allowance": allowance,
                    "earlier": earlier}
        if left_zoc:
            return self.ctx.violation(
                event, at, f"{who} moved {a} → {b} after entering the enemy zone of control "
                f"at {a}, where its movement had to stop", units=[uid], hexes=[a, b],
                zoc_stop=a, **evidence)
        assert allowance is not None        # (a drag without an allowance is legal: returned above)
        window = self.window
        if not earlier:
            msg = (f"{who} moved {a} → {b}: needs {fmt_mp(cost)} MP by the cheapest legal "
                   f"path {path}, has {fmt_mp(allowance)}")
        else:
            done = ", ".join(f"{x} → {y} {fmt_mp(c)}" for x, y, c in earlier)
            note = " (its first move was a minimum move)" if self.minimum_used.get(uid) else ""
            msg = (f"{who} moved {a} → {b}: {fmt_mp(cost)} MP by the cheapest legal path "
                   f"{path}; with its earlier moves this {window} ({done}){note} it spent "
                   f"{fmt_mp(total)} MP, has {fmt_mp(allowance)}")
        return self.ctx.violation(event, at, msg, units=[uid], hexes=[a, b], **evidence)


# --------------------------------------------------------------------------------------
# escorted_move
# --------------------------------------------------------------------------------------

@register("escorted_move")
class EscortedMove(CheapCopy, Rule):
    """A subject (an HQ) moves only together with an escort: every subject
    move A → B needs a unit matching ``escort`` (relative to the subject)
    that also went from A to B in the same window (one drag, or several
    consecutive ones).  Judged at the window's end, dated to the move."""

    # a step_end judges and forgets the moves since the last one (none: nothing to do)
    quiet_step_end = True

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        self.window = self.params.get("window", "step")
        end = {"step": {"step_end"}, "activation": {"activation_end", "phase_end",
                                                     "phase_start", "turn_start", "turn_end"}}
        self.ends = frozenset(end.get(self.window, end["step"]) | {"game_end"})
        # (a step's moves are judged at its step_end, which always comes)
        starts = {"step": set(), "activation": {"activation_start"}}
        self.starts = frozenset(starts.get(self.window, starts["step"]))
        self.subscribes = frozenset({"move"} | self.ends | self.starts)
        self.subject_moves: list[tuple[Event, Moment, str, str, str]] = []   # (event, clock, uid, from, to)
        self.trails: dict[str, list[tuple[str, str]]] = {}        # uid -> [(from, to)] in the window

    def check(self, state: GameView, event: Event) -> Iterable[Violation]:
        if event.kind == "move":
            if event.unit and event.from_hex and event.to_hex and event.from_hex != event.to_hex:
                self.trails.setdefault(event.unit, []).append((event.from_hex, event.to_hex))
                try:
                    unit = state.unit(event.unit)
                except KeyError:
                    return ()
                if matches(self.params.get("subject"), unit, state, unit):
                    self.subject_moves.append((event, Moment.of(state), event.unit, event.from_hex,
                                               event.to_hex))
            return ()
        out: list[Violation] = []
        if event.kind in self.ends or event.kind in self.starts:
            if self.subject_moves:
                out = self._judge(state)
                self.subject_moves = []
            if self.trails:
                self.trails = {}
        return out

    def idle(self, state: GameView) -> bool:
        """Whether its ``step_end`` now would do nothing (see
        ``Engine.skips``): it ends no window, or nothing moved in it."""
        return ("step_end" not in self.ends and "step_end" not in self.starts) or \
            (not self.subject_moves and not self.trails)

    @staticmethod
    def _went(trail: Sequence[tuple[str, str]], a: str, b: str) -> bool:
        """Whether consecutive drags of a trail lead from a to b."""
        for i, (x, _y) in enumerate(trail):
            if x != a:
                continue
            here = a
            for fx, fy in trail[i:]:
                if fx != here:
                    break
                here = fy
                if here == b:
                    return True
        return False

    def _judge(self, state: GameView) -> list[Violation]:
        out = []
        escort_sel = self.params.get("escort")
        for event, clock, uid, a, b in self.subject_moves:
            subject = state.unit(uid)
            candidates = []
            ok = False
            for other, trail in self.trails.items():
                if other == uid:
                    continue
                try:
                    unit = state.unit(other)
                except KeyError:
                    continue
                if not matches(escort_sel, unit, state, subject):
                    continue
                if self._went(trail, a, b):
                    ok = True
                    break
                left = [f"{x} → {y}" for x, y in trail if x == a]
                if left:
                    candidates.append(f"{unit.describe()} moved {', '.join(left)}")
            if ok:
                continue
            window = "step" if self.window == "step" else "activation"
            msg = f"{subject.describe()} moved {a} → {b}, but no escort moved {a} → {b} " \
                  f"in the same {window}"
            msg += f" ({'; '.join(candidates)})" if candidates else " (it moved alone)"
            out.append(self.ctx.violation(event, At(state, clock), msg, units=[uid],
                                          hexes=[a, b], escort_moves=candidates))
        return out
