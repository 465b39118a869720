"""The Ragnarok example (``examples/ragnarok``): a scenario for a game played
with a module vmodtool did not build, whose hex grid is a zone's own grid.

The module, its start save and a log VASSAL wrote from that save are in
../shared (skipped without it).  The stacking findings are compared with a
count of units per hex made here, independently of the audit: from the
replay's own board state for the save, and from VASSAL's ground truth of
every step for the scripted log.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.conftest import shared_path
from vmodtool.audit.game import AuditGame, audit_logs
from vmodtool.cli import cli
from vmodtool.replay import Replay
from vmodtool.scenario import load_scenario
from vmodtool.vassal.module import Module

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "ragnarok"
SCENARIO = EXAMPLE / "scenario.yaml"
# the module's pieces by side, as its palette panels "Aesir" and "Jotun" hold them (vmodtool dump)
AESIR = {"freyr", "heimdall", "odin", "thor", "tyr", "vidar", "berserk", "valkyrie", "warrior"}
JOTUN = {"fenir", "garm", "hrym", "loki", "serpent", "surt", "fire", "frost"}
SIZES = {"Map": (3300, 2457)}


def _module_path() -> Path:
    return shared_path("corpus", "ragnarok", "buildFile.xml")


def _side_of(name: str) -> str | None:
    """The side of a unit piece (hero-*, unit-*), None for anything else."""
    found = re.fullmatch(r"(?:hero|unit)-([a-z]+)", name)
    if found is None:
        return None
    word = found.group(1)
    return "aesir" if word in AESIR else "jotun" if word in JOTUN else None


def _is_hex(label: str | None) -> bool:
    return label is not None and re.fullmatch(r"\d{4}", label) is not None


def _scenario_with_limit(tmp_path: Path, limit: int) -> Path:
    text = SCENARIO.read_text(encoding="utf-8")
    changed = text.replace("params: {limit: 3,", f"params: {{limit: {limit},", 1)
    assert f"params: {{limit: {limit}," in changed
    path = tmp_path / f"scenario-{limit}.yaml"
    path.write_text(changed, encoding="utf-8")
    return path


def _stacking(report_violations: list, withdrawn: bool = False) -> Counter[tuple[str, str, tuple[str, ...]]]:
    """(hex, side, piece names) of each stacking finding (a duplicate's ``#n`` dropped)."""
    out: Counter[tuple[str, str, tuple[str, ...]]] = Counter()
    for v in report_violations:
        if v.rule_id != "stack.limit" or v.withdrawn_by_undo != withdrawn:
            continue
        names = tuple(sorted(re.sub(r" #\d+$", "", u) for u in v.units))
        out[(v.hexes[0], v.evidence["side_counted"], names)] += 1
    return out


# -- the scenario loads with the module ------------------------------------------------------

def test_check_scenario_with_the_module() -> None:
    result = CliRunner().invoke(cli, ["check-scenario", str(SCENARIO), "-m", str(_module_path())])
    assert result.exit_code == 0, result.output
    assert "467 hexes" in result.output


def test_the_map_and_boxes_are_the_modules() -> None:
    scenario = load_scenario(SCENARIO, module=_module_path())
    assert scenario.map.name == "Main Map"
    assert len(scenario.map.grid.hexes) == 467
    assert {b.id: (b.module_map, b.module_zone) for b in scenario.boxes} == {
        "deployment": ("deployment", None), "dead": ("DeadPile", None), "warrior_box": ("Main Map", "warrior")}
    # the board's size in the example is the one measured from the board image
    sizes = json.loads(shared_path("corpus", "ragnarok", "board-sizes.json").read_text(encoding="utf-8"))
    assert tuple(scenario.module.board_sizes["Map"]) == (sizes["boards"]["Map"]["width"],
                                                         sizes["boards"]["Map"]["height"])


# -- the start save -----------------------------------------------------------------------

def test_every_piece_of_the_start_save_is_bound() -> None:
    save = shared_path("corpus", "ragnarok", "ragnarok-start.vsav")
    module = Module.open(_module_path())
    scenario = load_scenario(SCENARIO, module=module)
    game = AuditGame(scenario, Replay.open(save, module=module, board_sizes=SIZES), module)
    bound = game.prepare()
    units = {uid: bound.unit_type_of(bound.counter(uid)).id for uid in game.piece_unit.values()}
    assert game.unknown_pieces == set() and not game.binder.problems
    # 99 pieces: 85 units and 14 markers (12 Endurance markers, Melee, Inc)
    assert len(game.piece_unit) == len(units) == 85
    assert Counter(units.values()) == {"god": 12, "berserk": 8, "einherjar": 20, "valkyrie": 15,
                                       "fire_giant": 12, "frost_giant": 18}
    assert Counter(game.piece_marker.values()) == {"endurance": 12, "melee": 1, "inc": 1}
    sides = Counter(bound.counter(uid).side for uid in units)
    assert sides == {"aesir": 6 + 8 + 20 + 15, "jotun": 6 + 12 + 18}
    # units are named by the module's piece names (the second of a name is "NAME #2")
    assert "hero-heimdall" in units and "unit-warrior #20" in units and "unit-warrior #21" not in units


@pytest.mark.parametrize("limit", [0, 1, 3])
def test_start_save_stacking_equals_a_count_of_units_per_hex(tmp_path: Path, limit: int) -> None:
    save = shared_path("corpus", "ragnarok", "ragnarok-start.vsav")
    # the independent count: the replay's board at step 0, unit pieces on map hexes, by side
    board = Replay.open(save, module=_module_path(), board_sizes=SIZES).state_at(0)
    groups: dict[tuple[str, str], list[str]] = {}
    for piece in board.pieces:
        side = _side_of(piece.name)
        if side is not None and piece.map == "Main Map" and _is_hex(piece.location):
            groups.setdefault((piece.location or "", side), []).append(piece.name)
    expected = Counter((h, s, tuple(sorted(names))) for (h, s), names in groups.items() if len(names) > limit)
    report = audit_logs([save], load_scenario(_scenario_with_limit(tmp_path, limit), module=_module_path()),
                        module=_module_path(), only=["stack.limit"])
    assert _stacking(report.violations) == expected
    assert report.not_checked == {} and report.complete
    if limit == 0:      # hero-heimdall in 0101 is the only unit on a hex of the main map
        assert expected == {("0101", "aesir", ("hero-heimdall",)): 1}


def test_start_save_audit_is_clean_and_complete() -> None:
    save = shared_path("corpus", "ragnarok", "ragnarok-start.vsav")
    result = CliRunner().invoke(cli, ["audit", str(save), "--scenario", str(SCENARIO), "-m", str(_module_path()),
                                      "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["steps"] == 0 and report["violations"] == [] and report["not_checked"] == {}
    assert report["rules_checked"] == ["stack.limit", "enter.not_onto_enemy", "forces.from_deployment"]
    assert report["complete"] is True


# -- a log VASSAL wrote from the start save ----------------------------------------------------

def _truth_findings(limit: int) -> Counter[tuple[str, str, tuple[str, ...]]]:
    """Stacking findings from VASSAL's ground truth of every step: a
    (hex, side) over the limit is a finding when it appears or its units change."""
    truth = json.loads(shared_path("golden", "logs", "ragnarok-scripted-A.truth.json").read_text(encoding="utf-8"))
    where: dict[str, tuple[str, str | None]] = {}       # piece id -> (name, hex)
    for piece in truth["initial_state"]:
        where[piece["id"]] = (piece["name"], piece["location"] if piece["map"] == "Main Map" else None)
    found: Counter[tuple[str, str, tuple[str, ...]]] = Counter()
    last: dict[tuple[str, str], tuple[str, ...]] = {}
    for step in truth["steps"]:
        for piece in step["pieces"]:
            after = piece.get("after")
            on_map = after is not None and after.get("map") == "Main Map"
            where[piece["id"]] = (piece["name"], after["location"] if on_map and after else None)
        groups: dict[tuple[str, str], list[str]] = {}
        for name, hex_id in where.values():
            side = _side_of(name)
            if side is not None and _is_hex(hex_id):
                groups.setdefault((hex_id or "", side), []).append(name)
        now = {key: tuple(sorted(names)) for key, names in groups.items() if len(names) > limit}
        for key, names in now.items():
            if last.get(key) != names:
                found[(key[0], key[1], names)] += 1
        last = now
    return found


@pytest.mark.parametrize("limit", [1, 2, 3])
def test_scripted_log_stacking_equals_vassals_truth(tmp_path: Path, limit: int) -> None:
    log = shared_path("golden", "logs", "ragnarok-scripted-A.vlog")
    report = audit_logs([log], load_scenario(_scenario_with_limit(tmp_path, limit), module=_module_path()),
                        module=_module_path(), only=["stack.limit"])
    expected = _truth_findings(limit)
    assert _stacking(report.violations) == expected
    if limit == 1:     # hero-odin joins unit-berserk in 1320, the stack moves on to 0610; hero-garm cloned
        assert expected == {("1320", "aesir", ("hero-odin", "unit-berserk")): 1,
                            ("0610", "aesir", ("hero-odin", "unit-berserk")): 1,
                            ("0420", "jotun", ("hero-garm", "hero-garm")): 1}
    if limit == 3:
        assert expected == {}


def test_scripted_log_findings() -> None:
    log = shared_path("golden", "logs", "ragnarok-scripted-A.vlog")
    report = audit_logs([log], load_scenario(SCENARIO, module=_module_path()), module=_module_path())
    assert report.not_checked == {} and report.complete
    by_rule = Counter(v.rule_id for v in report.errors)
    # a hero-garm cloned, a unit-valkyrie and a hero-thor dragged from the palette
    assert by_rule == {"forces.from_deployment": 3, "enter.not_onto_enemy": 1}
    onto_enemy = next(v for v in report.errors if v.rule_id == "enter.not_onto_enemy")
    assert onto_enemy.hexes[0] == "0504" and onto_enemy.units == ("hero-thor #2",)
    assert "hero-loki" in onto_enemy.message
    added = sorted(u for v in report.errors if v.rule_id == "forces.from_deployment" for u in v.units)
    assert added == ["hero-garm #2", "hero-thor #2", "unit-valkyrie #16"]
