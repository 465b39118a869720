"""Movement over derived terrain (issue 44): a map whose terrain was read
from its image (``map.terrain.derived``) may miss a road or misread a hex,
so ``movement_allowance`` accuses a move only if it is over even in the
best case the derived data cannot exclude (every hexside a possible road,
unsure hexes the cheapest terrain); a move over by the derived map alone
is NOT CHECKED (exit 3).  Hand-typed terrain is judged as before."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from tests.audit.harness import Game
from tests.audit.helpers import example, rule
from vmodtool.audit.game import audit_logs
from vmodtool.errors import VmodError
from vmodtool.scenario import load_scenario
from vmodtool.scenario.model import DerivedTerrain, Scenario

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "modern-tactical"


@pytest.fixture(scope="module")
def quneitra() -> Scenario:
    return example("modern-tactical")


def derived(sc: Scenario, unsure: frozenset[str] = frozenset()) -> Scenario:
    return replace(sc, map=replace(sc.map, derived=DerivedTerrain("board.png", unsure)))


def _end(g: Game) -> list:
    g.clock("game_end")
    return [v for v in g.violations if v.evidence.get("not_checked")]


def test_a_move_over_only_by_the_derived_map_is_not_checked(quneitra: Scenario) -> None:
    # T-72 3/78 1104 → 1110: 9 MP by the map (its allowance 8), but 6 hexes at
    # the tracked road cost 0.5 = 3 MP if the image hid a road
    sc = derived(quneitra)
    g = Game(sc, rule(sc, "move.ground"), phase="action")
    g.activation("bn_78")
    g.step(("move", "syr.t72.3", "1110"))
    assert [v for v in g.violations if not v.evidence.get("not_checked")] == []
    (note,) = _end(g)
    assert note.rule_id == "move.ground" and note.severity == "info"
    assert "1104 → 1110" in note.message and "rests on derived terrain: needs 9 MP by the derived map, " \
        "3 in the best case, has 8" in note.message and "derived terrain" in note.message


def test_the_same_move_on_typed_terrain_is_a_violation(quneitra: Scenario) -> None:
    g = Game(quneitra, rule(quneitra, "move.ground"), phase="action")
    g.activation("bn_78")
    g.step(("move", "syr.t72.3", "1110"))
    (v,) = g.violations
    assert "needs 9 MP" in v.message and not v.evidence.get("not_checked")
    assert _end(g) == []


def test_a_move_over_even_in_the_best_case_is_a_violation(quneitra: Scenario) -> None:
    # militia cavalry (foot, allowance 3; a foot step costs 1 at best, road or
    # not): 1008 → 0805 is 3 hexes, 1008 → 0804 is 4, over in every reading
    sc = derived(quneitra)
    g = Game(sc, rule(sc, "move.ground"), phase="action")
    g.place("syr.cav.1", "1008")
    g.activation("bn_85")
    g.step(("move", "syr.cav.1", "0704"))
    (v,) = g.violations
    assert not v.evidence.get("not_checked") and v.hexes == ("1008", "0704")
    assert _end(g) == []


def test_a_hex_the_derived_map_prohibits_may_have_been_misread(quneitra: Scenario) -> None:
    # BRDM (wheeled) 0904 → 0902: rough by the map, prohibited for wheeled (a
    # violation on typed terrain); read from an image it may be clear
    sc = derived(quneitra, frozenset({"0902"}))
    g = Game(sc, rule(sc, "move.ground"), phase="action")
    g.activation("bn_85")
    g.step(("move", "syr.brdm", "0902"))
    assert [v for v in g.violations if not v.evidence.get("not_checked")] == []
    (note,) = _end(g)
    assert "0904 → 0902" in note.message and "prohibited for wheeled movement by the derived map, 1 in the " \
        "best case" in note.message


def _copy(tmp_path: Path, name: str, *edits: tuple[str, str]) -> Path:
    """The modern-tactical example's scenario (no logs), with ``edits``."""
    folder = tmp_path / name
    shutil.copytree(EXAMPLE, folder, ignore=shutil.ignore_patterns("logs"))
    path = folder / "scenario.yaml"
    text = path.read_text("utf-8")
    for old, new in edits:
        assert old in text
        text = text.replace(old, new, 1)
    path.write_text(text, encoding="utf-8")
    return path


#: a foot road costs 0.5 (1 in the example): the militia cavalry's 4-hex move
#: off the roads of illegal-over-long-move.vlog is then over by the map, not
#: if the image hid a road
CHEAP_ROAD = ("cost: {foot: 1, tracked: 0.5", "cost: {foot: 0.5, tracked: 0.5")
MARKED = ("  terrain:\n    default: clear\n",
          '  terrain:\n    default: clear\n    derived: {source: "карта.png", unsure: ["0902"]}\n')


def test_the_audit_of_a_game_on_derived_terrain_says_not_checked_exit_3(tmp_path: Path) -> None:
    """A real example log audited with the scenario marked ``derived`` (as
    ``vmodtool terrain`` writes it): a move over only by what the image may
    hide is no accusation, the rule NOT CHECKED, exit 3; the same scenario
    typed by hand: the violation, exit 1."""
    log = EXAMPLE / "logs" / "illegal-over-long-move.vlog"
    typed = audit_logs([log], load_scenario(_copy(tmp_path, "typed", CHEAP_ROAD)))
    (v,) = [v for v in typed.errors if v.rule_id == "move.ground"]
    assert "needs 2 MP" not in v.message and "has 3" in v.message and typed.exit_code == 1
    scenario = load_scenario(_copy(tmp_path, "derived", CHEAP_ROAD, MARKED))
    assert scenario.map.derived == DerivedTerrain("карта.png", frozenset({"0902"}))
    report = audit_logs([log], scenario)
    assert not [v for v in report.errors if v.rule_id == "move.ground"]
    assert "1108 → 0905 (step 125): rests on derived terrain: needs 4 MP by the derived map, 2 in the best " \
        "case, has 3" in report.not_checked["move.ground"]
    assert report.exit_code == 3


def test_a_flagrant_move_in_a_real_game_stays_a_violation_on_derived_terrain(tmp_path: Path) -> None:
    """The example's own costs (a foot step costs 1 at best): 4 hexes with 3
    MP is over whatever the image hid."""
    report = audit_logs([EXAMPLE / "logs" / "illegal-over-long-move.vlog"],
                        load_scenario(_copy(tmp_path, "derived", MARKED)))
    (v,) = [v for v in report.errors if v.rule_id == "move.ground"]
    assert "needs 4 MP" in v.message and "move.ground" not in report.not_checked and report.exit_code == 1


def test_a_derived_marker_naming_no_hex_of_the_map_is_a_located_error(tmp_path: Path) -> None:
    path = _copy(tmp_path, "s", (MARKED[0], MARKED[0] + '    derived: {unsure: ["9999"]}\n'))
    with pytest.raises(VmodError) as caught:
        load_scenario(path)
    assert "scenario.yaml:63:" in str(caught.value)
    assert "map.terrain.derived.unsure[0]: hex '9999' is not on the map" in str(caught.value)


def test_the_best_case_counts_the_earlier_drags_of_the_window(quneitra: Scenario) -> None:
    # militia cavalry 1008 → 0807 → 0805: 2 hexes each, 4 MP of 3 at best
    # (a foot step costs 1 on a road too); the second drag alone would fit
    sc = derived(quneitra)
    g = Game(sc, rule(sc, "move.ground"), phase="action")
    g.place("syr.cav.1", "1008")
    g.activation("bn_85")
    g.step(("move", "syr.cav.1", "0807"))
    s2 = g.step(("move", "syr.cav.1", "0805"))
    assert g.found() == [("move.ground", s2, ("syr.cav.1",), ("0807", "0805"))]
    assert _end(g) == []
