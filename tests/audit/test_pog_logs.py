"""Paths of Glory audited on logs, not only on saves (issue 42, item 6).

The logs are written by ``examples/paths-of-glory/make_logs.py`` with
GameWriter on the real module, going on from the corpus save
Historical10-8 (../shared; every test here skips without it and writes the
logs into a temporary folder: nothing of the corpus is committed).

The reference is the replay's own count: each log is replayed with the
module, every piece bound by the example's binding, and the units of each
side are counted per space VASSAL names at the end of every step.  An
over-stack is one run of steps at whose end a space holds more than three
units of a side; the audit must report each run once, at its first step,
and nothing else."""

from __future__ import annotations

import collections
import importlib.util
import json
import sys
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from click.testing import CliRunner

from tests.conftest import EXAMPLES, shared_path
from vmodtool.audit.binding import PieceBinder
from vmodtool.cli import cli
from vmodtool.replay import Replay
from vmodtool.replay.step import Step
from vmodtool.replay.visitor import BoardView, LogStart, ReplayVisitor
from vmodtool.scenario.loader import load_scenario
from vmodtool.vassal.commands import PlayerAdd, leaf_commands
from vmodtool.vassal.gamepieces import MissingPrototypeWarning
from vmodtool.vassal.module import Module
from vmodtool.vassal.savefile import SavedGame

EXAMPLE = EXAMPLES / "paths-of-glory"

Key = tuple[int, str, str | None]   # (step, space, side; None: sides together)


def _make_logs() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pog_make_logs", EXAMPLE / "make_logs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    corpus = shared_path("corpus", "pog")
    shared_path("corpus", "pog", "Historical10-8__63fbf0b.vsav")
    return dict(_make_logs().write_logs(corpus, tmp_path_factory.mktemp("pog-logs")))


def _audit(log: Path, scenario: Path = EXAMPLE / "scenario.yaml") -> tuple[int, dict[str, Any]]:
    module = shared_path("corpus", "pog", "buildFile.xml")
    result = CliRunner().invoke(cli, ["audit", str(log), "--scenario", str(scenario), "-m", str(module),
                                      "--format", "json"])
    return result.exit_code, json.loads(result.output)


class _StepUnits(ReplayVisitor[dict[int, dict[tuple[str, str | None], frozenset[str]]]]):
    """The units (piece ids) of each side per space of the main map at the
    end of every step."""

    def __init__(self, binder: PieceBinder, per_side: bool) -> None:
        self.binder = binder
        self.per_side = per_side
        self.view: BoardView | None = None
        self.units: dict[int, dict[tuple[str, str | None], frozenset[str]]] = {}

    def begin_log(self, log: LogStart, initial: BoardView) -> None:
        self.view = initial

    def end_step(self, step: Step) -> None:
        assert self.view is not None
        here: dict[tuple[str, str | None], set[str]] = collections.defaultdict(set)
        for p in self.view.pieces():
            if p.place.map != "Map" or not p.place.location or p.place.location.startswith("RB_"):
                continue                    # (the reserve boxes' spaces are boxes, not stacking spaces)
            side = p.ref.get_property("Side")
            if side and p.ref.id is not None and self.binder.bind(p.ref).unit is not None:
                here[(p.place.location, side.lower() if self.per_side else None)].add(p.ref.id)
        self.units[step.number] = {key: frozenset(ids) for key, ids in here.items()}

    def result(self) -> dict[int, dict[tuple[str, str | None], frozenset[str]]]:
        return self.units


def _overstacks(log: Path, limit: int, per_side: bool = True) -> set[Key]:
    """Where the replay's own count says a finding is due: a space holding
    more than ``limit`` units of a side at the end of a step when it did
    not at the end of the one before, or holds a unit it did not hold then
    (an over-stack that merely persists, or only loses units, is the same
    act; what stands over the limit in the saved position is due at step 1)."""
    module_path = shared_path("corpus", "pog", "buildFile.xml")
    module = Module.open(module_path)
    scenario = load_scenario(EXAMPLE / "scenario.yaml", module=module)
    assert scenario.module is not None
    replay = Replay.open([log], module=module, board_sizes=dict(scenario.module.board_sizes))
    (units,) = replay.run(_StepUnits(PieceBinder(scenario, module), per_side))
    due: set[Key] = set()
    before: dict[tuple[str, str | None], frozenset[str]] = {}
    for step in sorted(units):
        over = {key: ids for key, ids in units[step].items() if len(ids) > limit}
        due |= {(step, space, side) for (space, side), ids in over.items()
                if not ids <= before.get((space, side), frozenset())}
        before = over
    return due


def _found(report: dict[str, Any]) -> set[Key]:
    return {(v["step"], v["hexes"][0], v["evidence"]["side_counted"]) for v in report["violations"]
            if v["rule_id"] == "stack.three"}


def _with_limit(tmp_path: Path, limit: int, per_side: bool = True) -> Path:
    text = (EXAMPLE / "scenario.yaml").read_text(encoding="utf-8")
    rule = "params: {limit: 3, count: units, per_side: true}"
    assert rule in text
    path = tmp_path / "scenario.yaml"
    path.write_text(text.replace(rule, rule.replace("3", str(limit)).replace("true", str(per_side).lower())),
                    encoding="utf-8")
    (tmp_path / "connections.csv").write_bytes((EXAMPLE / "connections.csv").read_bytes())
    return path


def test_the_logs_go_on_from_the_save_with_its_state(logs: dict[str, Path]) -> None:
    """The log's restore part is the save's own, but for the roster: our
    players, never the save's (their ids are passwords)."""
    save = SavedGame.read(shared_path("corpus", "pog", "Historical10-8__63fbf0b.vsav"))
    log = SavedGame.read(logs["moves"])
    assert len(log.log_steps()) == 3
    restore = log.restore_part()
    assert len(restore) == 1            # a log's restore part is one command: begin_save … end_save
    saved_ids = {c.player_id for node in save.restore_part() for c in leaf_commands(node)
                 if isinstance(c, PlayerAdd)}
    assert saved_ids and {p.name for p in log.players()} == {"Ann", "Carl"}
    assert not any(pid in log.text for pid in saved_ids)
    pieces = [line for line in restore[0].encode().split("\x1b") if line.startswith("+/")]
    assert len(pieces) > 1000


@pytest.mark.parametrize("limit,per_side", [(3, True), (2, True), (1, True), (1, False)])
@pytest.mark.parametrize("name", ["moves", "overstack", "unconnected"])
def test_stacking_findings_are_exactly_where_the_replay_counts_over_the_limit(name: str, limit: int,
                                                                             per_side: bool,
                                                                             logs: dict[str, Path],
                                                                             tmp_path: Path) -> None:
    """The example's rule (three units of a side), the same rule at 2 and 1
    for many more findings (the saved position's own pairs among them), and
    at 1 over all units, sides together."""
    example = limit == 3 and per_side
    scenario = EXAMPLE / "scenario.yaml" if example else _with_limit(tmp_path, limit, per_side)
    code, report = _audit(logs[name], scenario)
    expected = _overstacks(logs[name], limit, per_side)
    assert _found(report) == expected
    assert len(report["violations"]) == len(expected)          # (one finding each)
    assert report["not_checked"] == {} and report["units_not_checked"] == {}
    assert code == (1 if any(not v["withdrawn_by_undo"] for v in report["violations"]) else 0), report
    if limit == 1:
        assert len(expected) > 5                  # (the test can fail: there is much to find)


def test_the_overstack_log_holds_what_its_script_says(logs: dict[str, Path]) -> None:
    """A 4th corps in Belfort undone (reported, withdrawn), five in Belfort
    by one drag of two corps (an error), a legal 3-stack in Liege and the
    same three in Belfort again (nothing)."""
    code, report = _audit(logs["overstack"])
    assert code == 1
    assert _found(report) == {(2, "Belfort", "ap"), (4, "Belfort", "ap")}
    withdrawn = {v["step"]: v["withdrawn_by_undo"] for v in report["violations"]}
    assert withdrawn == {2: True, 4: False}
    five = next(v for v in report["violations"] if v["step"] == 4)
    assert five["evidence"]["count"] == 5 and sorted(five["units"]) == ["FR1", "FR3", "FR4", "FRc #10", "FRc #8"]


def test_a_legal_three_stack_is_clean(logs: dict[str, Path]) -> None:
    code, report = _audit(logs["moves"])
    assert code == 0 and report["violations"] == [] and report["steps"] == 3


#: rule 11.1.2 as a movement rule: what the typed lines cannot judge is NOT CHECKED
MOVE_RULE = """\
  - id: move.mp
    kind: movement_allowance
    params: {allowance: {factor: move}, costs: {land: {default: 1}}}
"""


def test_a_move_to_a_space_no_typed_line_reaches_is_not_checked(logs: dict[str, Path], tmp_path: Path) -> None:
    text = (EXAMPLE / "scenario.yaml").read_text(encoding="utf-8")
    text = text.replace("    tags: [ground]\n", "    tags: [ground]\n    movement_class: land\n") + MOVE_RULE
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(text, encoding="utf-8")
    (tmp_path / "connections.csv").write_bytes((EXAMPLE / "connections.csv").read_bytes())
    code, report = _audit(logs["unconnected"], scenario)
    assert code == 3 and report["violations"] == [], report
    assert "BEF Combat unit (BEF) Brussels → France (step 1): no connection is typed for France" in (
        report["not_checked"]["move.mp"])
    assert "Verdun" not in report["not_checked"]["move.mp"]   # (step 2, on a printed line: judged)
    code_moves, moves = _audit(logs["moves"], scenario)     # every move on a printed line: judged
    assert code_moves == 0 and moves["violations"] == [], moves


def test_the_module_s_missing_prototypes_expand_to_nothing() -> None:
    """The module names prototypes it does not define (``ArmyRebuild_TU`` in
    ``ArmyTU``): GameWriter expands them to nothing, as VASSAL does, and
    says which."""
    from vmodtool.vassal.gamewriter import GameWriter
    module = Module.open(shared_path("corpus", "pog", "buildFile.xml"))
    with pytest.warns(MissingPrototypeWarning) as caught:
        writer = GameWriter(module, board_sizes=_make_logs().board_sizes())
    (warning,) = caught                             # one warning naming them all
    assert "ArmyRebuild_TU" in str(warning.message) and "buildFile.xml" in str(warning.message)
    assert "ArmyRebuild_TU" in writer.missing_prototypes
    army_tu = writer.find_slots(Nation="TU", Side="CP")
    assert army_tu                                  # (the Turkish units: built without the missing traits)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        writer.find_slots(Side="CP")                # (each name is warned once)
