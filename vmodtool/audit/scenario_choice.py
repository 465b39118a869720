"""Which scenario of a game a log is a game of: the log's starting
positions compared with each scenario's set-up (the ``scenarios`` section;
``docs/guide/scenarios.md``).

The first log's saved state is read (a replay to step 0, the same binding of
pieces to units as the audit's) and each scenario scored by the share of
units that stand where its set-up puts them, among the units it sets up and
those standing on the maps that it does not set up.  A scenario is chosen
only when it is a clear best match; otherwise the audit stops and asks for
``--scenario-name`` (no guess: a game judged by the wrong scenario's rules
would be a false accusation or a false clean).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from vmodtool.audit.binding import PieceBinder
from vmodtool.errors import VmodError
from vmodtool.replay.visitor import BoardView, LogStart, ReplayVisitor
from vmodtool.scenario.model import NamedScenario, Scenario, SetupBox, SetupStack
from vmodtool.scenario.offmap import OFF_MAP_NAME, layout_off_map

if TYPE_CHECKING:
    from vmodtool.replay.game import Replay
    from vmodtool.vassal.module import Module

__all__ = ["ScenarioScore", "ScenarioChoice", "score_scenarios", "choose_scenario", "scenario_for_logs",
           "MIN_SCORE", "MIN_LEAD", "MIN_IN_PLACE"]

#: the least share of units in place for a scenario to be chosen
MIN_SCORE = 0.6
#: how far the best score must be ahead of the second's
MIN_LEAD = 0.15
#: the least number of units in place: a share of one or two units is no
#: evidence (Paths of Glory 10.0's save binds one unit through 10.8's binding)
MIN_IN_PLACE = 5

#: where a unit stands: (map name, location name); location None when it has none
Where = tuple[str | None, str | None]


@dataclass(frozen=True)
class ScenarioScore:
    """How well a log's start matches one scenario: units where its set-up
    puts them (``in_place``), set up elsewhere or absent (``misplaced``),
    on the maps though it sets them not up (``extra``)."""

    id: str
    name: str
    in_place: int
    misplaced: int
    extra: int

    @property
    def score(self) -> float:
        total = self.in_place + self.misplaced + self.extra
        return self.in_place / total if total else 0.0

    def as_json(self) -> dict[str, object]:
        return {"id": self.id, "name": self.name, "in_place": self.in_place, "misplaced": self.misplaced,
                "extra": self.extra, "score": round(self.score, 3)}


@dataclass(frozen=True)
class ScenarioChoice:
    """The scenario chosen (None: no clear best match), every score (best
    first) and how it was chosen (``by``: ``name`` or ``start``)."""

    chosen: NamedScenario | None
    scores: tuple[ScenarioScore, ...]
    by: str = "start"

    def describe(self) -> str:
        shown = ", ".join(f"{s.name!r} {s.in_place}/{s.in_place + s.misplaced + s.extra}" for s in self.scores)
        return shown


def _setup_places(scenario: Scenario, setup: Sequence[object]) -> dict[str, Where]:
    """Unit id → where a set-up puts it (a box: its zone of the off-map
    window, or the map and zone of the module it names)."""
    zones: dict[str, str] = {}
    if any(isinstance(e, SetupBox) for e in setup):
        zones = {z.ref: z.name for z in layout_off_map(scenario).zones if z.kind == "box"}
    out: dict[str, Where] = {}
    for entry in setup:
        if isinstance(entry, SetupStack):
            hex_map = scenario.map if entry.map is None else scenario.map_window(entry.map)   # its own window
            for uid in entry.units:
                out[uid] = (hex_map.module_map or hex_map.name, entry.hex)
        elif isinstance(entry, SetupBox):
            box = scenario.box(entry.box)
            where: Where = (box.module_map, box.module_zone) if box.module_map else (OFF_MAP_NAME, zones.get(box.id))
            for uid in entry.units:
                out[uid] = where
    return out


def score_scenarios(scenario: Scenario, start: Mapping[str, Where]) -> list[ScenarioScore]:
    """Each scenario's score for a game whose units start at ``start``
    (unit id → where), best first (file order among equals)."""
    out = []
    for named in scenario.scenarios:
        expected = _setup_places(scenario, named.setup)
        in_place = sum(1 for uid, where in expected.items() if _same(start.get(uid), where))
        extra = sum(1 for uid in start if uid not in expected)
        out.append(ScenarioScore(named.id, named.name, in_place, len(expected) - in_place, extra))
    return sorted(out, key=lambda s: -s.score)


def _same(actual: Where | None, expected: Where) -> bool:
    if actual is None:
        return False
    if expected[1] is None:                 # a whole map window
        return actual[0] == expected[0]
    return actual == expected


def _on_board(scenario: Scenario, scores: list[ScenarioScore], board: str | None) -> list[ScenarioScore]:
    """The scores of the scenarios played on ``board`` (the main map's
    board the game's save sets), when the map has alternative boards and
    some scenario is played on it; else all of them."""
    if board is None or not scenario.map.boards:
        return scores
    names = {b.id: b.name for b in scenario.map.boards}
    board_of = {named.id: names.get(named.board or "", scenario.map.name) for named in scenario.scenarios}
    return [s for s in scores if board_of.get(s.id) == board] or scores


def choose_scenario(scenario: Scenario, start: Mapping[str, Where], board: str | None = None) -> ScenarioChoice:
    """The scenario a game starting at ``start`` is a game of, when one is a
    clear best match (:data:`MIN_SCORE`, :data:`MIN_LEAD`, :data:`MIN_IN_PLACE`)
    among the scenarios played on ``board``, the main map's board the save
    sets (``map.boards``; all scenarios when none is played on it)."""
    scores = score_scenarios(scenario, start)
    if not scores:
        return ScenarioChoice(None, ())
    candidates = _on_board(scenario, scores, board)
    best = candidates[0]
    second = candidates[1].score if len(candidates) > 1 else 0.0
    if best.score >= MIN_SCORE and best.score - second >= MIN_LEAD and best.in_place >= MIN_IN_PLACE:
        return ScenarioChoice(scenario.find_named(best.id), tuple(scores))
    return ScenarioChoice(None, tuple(scores))


class StartPlaces(ReplayVisitor[dict[str, Where]]):
    """Where each unit of the scenario stands in the first log's saved
    state (unit id → map, location), the pieces bound as the audit binds them."""

    def __init__(self, binder: PieceBinder, board_map: str | None = None) -> None:
        self.binder = binder
        self.places: dict[str, Where] = {}
        #: the map whose board is read (:attr:`board`), and its first board in the saved state
        self.board_map = board_map
        self.board: str | None = None

    def begin_log(self, log: LogStart, initial: BoardView) -> None:
        if log.index != 0:
            return
        if self.board_map is not None:
            self.board = next(iter(initial.board_names(self.board_map)), None)
        for piece in initial.pieces():
            bound = self.binder.bind(piece.ref)
            if bound.unit is not None and piece.place.map is not None:
                self.places[bound.unit] = (piece.place.map, piece.place.location)

    def result(self) -> dict[str, Where]:
        return self.places


def scenario_for_logs(logs: Sequence[Path], scenario: Scenario, *, name: str | None = None,
                      open_first: Callable[[], Replay], module: Module | None = None
                      ) -> tuple[Scenario, ScenarioChoice]:
    """The scenario of a game with several that the logs are judged by:
    the one ``name`` names (an id or a name), else the clear best match of
    the first log's start (``open_first`` opens the replay of the first log
    with ``module``, the module the game is audited with); a :class:`VmodError` when
    there is none."""
    if name is not None:
        found = scenario.find_named(name)
        if found is None:
            known = "; ".join(f"{s.id} ({s.name})" for s in scenario.scenarios)
            raise VmodError(f"--scenario-name {name!r}: the game has no such scenario; its scenarios: {known}",
                            file=scenario.path)
        return scenario.named(found.id), ScenarioChoice(found, (), by="name")
    replay = open_first()
    places = StartPlaces(PieceBinder(scenario, module), scenario.map.name if scenario.map.boards else None)
    (start,) = replay.run(places, until=0)
    choice = choose_scenario(scenario, start, places.board)
    if choice.chosen is None:
        raise VmodError(f"cannot tell which scenario of the game this is from its starting positions "
                        f"(units in place: {choice.describe()}); name it with --scenario-name",
                        file=str(logs[0]))
    return scenario.named(choice.chosen.id), choice
