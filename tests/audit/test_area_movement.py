"""The kinds that measure the map, on an area map (issue 42): movement
allowance as path cost over typed connections, zones of control as an enemy
in a space a connection joins, command range as connections between a unit
and its HQ, through the same location interface as hexes.  What the typed
graph cannot measure (a space no connection reaches, two spaces no path
joins) is NOT CHECKED, exit 3, never an accusation nor an error.

Games are written with ``GameWriter`` on a small module whose board is a
``RegionGrid`` (tests/audit/area_module.py); command range, which needs
activations, is fed events on the same scenario."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from click.testing import CliRunner

from tests.audit.area_module import piece, write_scenario, writer
from tests.audit.harness import Game
from tests.audit.helpers import make_rule
from vmodtool.audit.game import audit_logs
from vmodtool.audit.report import AuditReport
from vmodtool.cli import cli
from vmodtool.scenario import load_scenario
from vmodtool.scenario.model import Counter, Formation
from vmodtool.vassal.gamewriter import GameWriter


def _audit(folder: Path, w: GameWriter, extra: str = "", connections: str | None = None,
           complete: bool = True) -> AuditReport:
    scenario = write_scenario(folder, extra, connections, complete)
    log = folder / "game.vlog"
    log.write_bytes(w.to_bytes())
    return audit_logs([log], load_scenario(scenario))


def test_a_move_within_its_allowance_is_legal(tmp_path: Path) -> None:
    write_scenario(tmp_path)
    w = writer(tmp_path)
    w.move(piece(w, "Red 2"), "Metz", player="Ann")          # Lille-Paris-Nancy-Metz: 3 MP of 3
    report = _audit(tmp_path, w)
    assert report.violations == [] and report.not_checked == {} and report.exit_code == 0
    assert "move.allowance" in report.rules_checked


def test_a_move_over_its_allowance_is_flagged_with_its_path_cost(tmp_path: Path) -> None:
    write_scenario(tmp_path)
    w = writer(tmp_path)
    w.move(piece(w, "Blue 1"), "Metz", player="Ann")         # Belfort-Metz: 1 MP, and out of the way
    w.move(piece(w, "Red 1"), "Dijon", player="Ann")         # via Nancy, the pass and the river: 5 MP
    report = _audit(tmp_path, w)
    (error,) = report.errors
    assert error.units == ("Red 1",) and error.hexes == ("Paris", "Dijon")
    assert ("Paris → Dijon: needs 5 MP by the cheapest legal path "
            "Paris-Nancy(1)-Belfort(2)-Dijon(2), has 3") in error.message
    assert error.evidence["cost"] == 5 and error.evidence["path"] == ["Paris", "Nancy", "Belfort", "Dijon"]
    assert report.exit_code == 1


def test_on_connections_not_declared_complete_only_what_they_prove_is_judged(tmp_path: Path) -> None:
    """A typed line is a printed one, so a move the typed lines make
    within the allowance is legal; one they make longer may be shorter by a
    line not typed yet: NOT CHECKED, not flagged."""
    write_scenario(tmp_path)
    w = writer(tmp_path)
    w.move(piece(w, "Blue 1"), "Metz", player="Ann")
    w.move(piece(w, "Red 1"), "Dijon", player="Ann")         # 5 MP by the typed lines, has 3
    w.move(piece(w, "Red 2"), "Paris", player="Ann")         # 1 MP: legal whatever is missing
    report = _audit(tmp_path, w, complete=False)
    assert report.violations == [] and report.exit_code == 3
    why = report.not_checked["move.allowance"]
    assert why.startswith("1 move(s) not judged") and "Red 1" in why and "Paris → Dijon" in why
    assert "5 MP by the typed lines, over its 3" in why and "not declared complete" in why


def test_a_movement_class_prices_a_connection_kind(tmp_path: Path) -> None:
    """The class's cost table names connection kinds: with the mountain
    pass closed to foot and a clear line at 1.5, Paris → Belfort goes round
    by Metz at 4.5 MP; a kind it does not name costs what the map says."""
    write_scenario(tmp_path)
    w = writer(tmp_path)
    w.move(piece(w, "Blue 1"), "Dijon", player="Ann")        # across the river: 2 MP
    w.move(piece(w, "Red 1"), "Belfort", player="Ann")       # 3 MP, by the pass or by Metz
    log = tmp_path / "game.vlog"
    log.write_bytes(w.to_bytes())
    path = tmp_path / "scenario.yaml"
    assert audit_logs([log], load_scenario(path)).violations == []
    path.write_text(path.read_text(encoding="utf-8").replace(
        "foot: {default: 1}", "foot: {default: 1, mountain: prohibited, clear: 1.5}"), encoding="utf-8")
    (error,) = audit_logs([log], load_scenario(path)).errors
    assert error.units == ("Red 1",)
    assert "needs 4.5 MP by the cheapest legal path Paris-Nancy(1.5)-Metz(1.5)-Belfort(1.5)" in error.message
    # a river crossing still costs its kind's 2: Blue 1's move stays legal


def test_a_move_to_a_space_no_connection_reaches_is_not_checked(tmp_path: Path) -> None:
    write_scenario(tmp_path)
    w = writer(tmp_path)
    w.move(piece(w, "Red HQ"), "Остров", player="Ann")      # no line typed for the island
    report = _audit(tmp_path, w)
    assert report.violations == []
    why = report.not_checked["move.allowance"]
    assert "1 move(s) not judged" in why and "Paris → Остров" in why and "no connection is typed for Остров" in why
    assert report.exit_code == 3
    log = tmp_path / "game.vlog"
    result = CliRunner().invoke(cli, ["audit", str(log), "--scenario", str(tmp_path / "scenario.yaml"),
                                      "--format", "json"])
    assert result.exit_code == 3, result.output
    assert "no connection is typed for Остров" in json.loads(result.output)["not_checked"]["move.allowance"]


def test_a_move_between_spaces_no_path_joins_is_not_checked(tmp_path: Path) -> None:
    """Two pieces of a graph typed so far: Lille-Paris and Nancy-Metz."""
    write_scenario(tmp_path)
    w = writer(tmp_path)
    w.move(piece(w, "Red 1"), "Metz", player="Ann")          # Paris → Metz: no typed way
    w.move(piece(w, "Red 2"), "Paris", player="Ann")         # Lille → Paris: 1 MP, judged
    report = _audit(tmp_path, w, connections="  connections:\n    - [Lille, Paris]\n    - [Nancy, Metz]\n")
    assert report.violations == []
    assert "no path joins Paris and Metz in the typed connections" in report.not_checked["move.allowance"]
    assert report.exit_code == 3


def test_proposed_connections_judge_no_move(tmp_path: Path) -> None:
    path = write_scenario(tmp_path)
    path.write_text(path.read_text(encoding="utf-8").replace("  connections:\n",
                                                             "  connections_proposed: true\n  connections:\n"),
                    encoding="utf-8")
    w = writer(tmp_path)
    w.move(piece(w, "Red 1"), "Dijon", player="Ann")         # over its allowance by the proposed lines
    log = tmp_path / "game.vlog"
    log.write_bytes(w.to_bytes())
    report = audit_logs([log], load_scenario(path))
    assert report.violations == [] and report.exit_code == 3
    assert "proposal" in report.not_checked["move.allowance"]


ZOC = "      enemy_zoc: {enter: stop}\n"


def test_entering_a_space_next_to_an_enemy_stops_the_move(tmp_path: Path) -> None:
    """Blue 1 in Belfort: Nancy and Metz (joined to Belfort) are in its zone
    of control, Paris and Lille (not joined) are not, however near."""
    write_scenario(tmp_path, ZOC)
    w = writer(tmp_path)
    w.move(piece(w, "Red 2"), "Nancy", player="Ann")         # Lille-Paris-Nancy: 2 MP, stops in the ZOC
    w.move(piece(w, "Red 2"), "Metz", player="Ann")          # and leaves it: a violation
    w.move(piece(w, "Red 1"), "Metz", player="Ann")          # one drag through Nancy: no legal path
    report = _audit(tmp_path, w, ZOC)
    found = sorted((v.units, v.hexes, v.message) for v in report.errors)
    assert [(u, h) for u, h, _ in found] == [(("Red 1",), ("Paris", "Metz")), (("Red 2",), ("Nancy", "Metz"))]
    assert "no legal path for foot movement" in found[0][2] and "stopping on entering enemy ZOC" in found[0][2]
    assert "after entering the enemy zone of control at Nancy" in found[1][2]
    # without the zone of control both are legal moves
    assert _audit(tmp_path, w).errors == []


def test_a_move_into_the_enemy_space_is_blocked(tmp_path: Path) -> None:
    write_scenario(tmp_path)
    w = writer(tmp_path)
    w.move(piece(w, "Red 1"), "Belfort", player="Ann")
    (error,) = _audit(tmp_path, w).errors
    assert "Belfort holds enemy units" in error.message


# -- command range: connections between a unit and its HQ -----------------------------------

def _command_game(tmp_path: Path, complete: bool = True) -> Game:
    scenario = load_scenario(write_scenario(tmp_path, complete=complete))
    counters = (Counter("hq", "hq", "red", "army"), Counter("near", "infantry", "red", "army"),
                Counter("far", "infantry", "red", "army"), Counter("lost", "infantry", "red", "army"),
                Counter("foe", "infantry", "blue"))
    scenario = replace(scenario, counters=counters, formations=(Formation("army", "red", "Army", hq="hq"),))
    r = make_rule(scenario, "command_range", {"range_factor": "command_range",
                                              "out_of_range": {"accept_if": ["ooc_marker"]}})
    g = Game(scenario, r)
    for uid, space in (("hq", "Paris"), ("near", "Nancy"), ("far", "Metz"), ("lost", "Остров"),
                       ("foe", "Belfort")):
        g.place(uid, space)
    return g


def test_command_range_counts_connections(tmp_path: Path) -> None:
    """HQ in Paris, range 1: Nancy (1 connection) is in range, Metz (2) is
    not; Остров, which no connection reaches, is not judged."""
    g = _command_game(tmp_path)
    g.activation("army")
    g.step(("move", "near", "Paris"))
    s = g.step(("move", "far", "Nancy"))
    g.step(("move", "lost", "Paris"))
    g.end_activation()
    (v,) = g.violations
    assert (v.step, v.units, v.hexes) == (s, ("far",), ("Metz", "Nancy", "Paris"))
    assert "it was 2 connections from its HQ" in v.message and v.evidence["distance"] == 2
    g.clock("game_end")
    (info,) = [v for v in g.violations if v.severity == "info"]
    assert info.evidence["not_checked"] and "no connection is typed for Остров" in info.message
    assert "lost" in info.message


def test_command_range_beyond_the_typed_lines_is_not_checked_unless_they_are_complete(tmp_path: Path) -> None:
    g = _command_game(tmp_path, complete=False)
    g.activation("army")
    g.step(("move", "near", "Paris"))                        # 1 connection: in range whatever is missing
    g.step(("move", "far", "Nancy"))                         # 2 by the typed lines: maybe 1 by a missing one
    g.end_activation()
    assert g.violations == []
    g.clock("game_end")
    (info,) = g.violations
    assert info.severity == "info" and info.evidence["units_not_judged"] == 2
    assert "far" in info.message and "2 connections by the typed lines" in info.message


# -- retreats: connections from the enemy --------------------------------------------------

def _retreat_game(tmp_path: Path, complete: bool = True) -> Game:
    scenario = load_scenario(write_scenario(tmp_path, complete=complete))
    scenario = replace(scenario, counters=(Counter("attacker", "infantry", "red"),
                                           Counter("defender", "infantry", "blue")))
    g = Game(scenario, make_rule(scenario, "retreat", {"max_hexes": 1}))
    g.state.phasing_side = "red"
    g.place("attacker", "Nancy")
    g.place("defender", "Belfort")
    return g


def test_a_retreat_is_measured_in_connections(tmp_path: Path) -> None:
    """Red in Nancy attacks Belfort: a retreat to Dijon (behind the river)
    goes away from it; one to Metz, joined to Nancy, stays next to it."""
    g = _retreat_game(tmp_path)
    g.step(("dice", 3, 4))
    g.step(("move", "defender", "Dijon"))
    assert g.violations == []
    g = _retreat_game(tmp_path)
    g.step(("dice", 3, 4))
    s = g.step(("move", "defender", "Metz"))
    (v,) = g.violations
    assert (v.step, v.units, v.hexes) == (s, ("defender",), ("Belfort", "Metz"))
    assert "not away from the enemy (1 hex(es) from the nearest enemy of the combat before, 1 after)" in v.message


def test_a_retreat_on_connections_not_declared_complete_is_not_checked(tmp_path: Path) -> None:
    g = _retreat_game(tmp_path, complete=False)
    g.step(("dice", 3, 4))
    g.step(("move", "defender", "Metz"))
    g.clock("game_end")
    (info,) = g.violations
    assert info.severity == "info" and info.evidence["not_checked"]
    assert "Belfort → Metz: the typed connections are not declared complete" in info.message


def test_which_rules_an_area_map_cannot_measure_at_all() -> None:
    """Proposed or untyped connections: every kind that measures the map is
    NOT CHECKED; an escort (end points only) and stacking (one space) are
    judged on any area map; a hex map skips nothing."""
    from vmodtool.audit.coverage import area_not_judged
    from vmodtool.scenario.locations import Connection, Space, area_map
    from vmodtool.scenario.model import RuleSpec
    rules = [RuleSpec(f"r.{kind}", kind) for kind in ("movement_allowance", "command_range", "retreat",
                                                      "advance_after_combat", "escorted_move", "stacking")]
    spaces = [Space("A"), Space("B")]
    line = [Connection("A", "B")]
    assert set(area_not_judged(rules, area_map(spaces, line, proposed=True))) == {
        "r.movement_allowance", "r.command_range", "r.retreat", "r.advance_after_combat"}
    assert "proposal" in area_not_judged(rules, area_map(spaces, line, proposed=True))["r.retreat"]
    assert "no connections typed" in area_not_judged(rules, area_map(spaces))["r.command_range"]
    assert area_not_judged(rules, area_map(spaces, line)) == {}
    assert area_not_judged(rules, None) == {}
