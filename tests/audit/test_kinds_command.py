"""command_range and per_turn_limit on the example scenarios (``docs/seed-rules.md`` §5.5 rows
"command range", "activation limit").

Example A at setup: HQ 85 (Mechanised HQ, command range 3 full / 2 reduced)
in 1003; its units: BMP 1/85 1003 (distance 0), Recce/85 0904 (1), B-10 1106
(3), BMP 2/85 and 3/85 in 1206 (4), PA Cav 1 1209 (7), PA Cav 2 1110 (7).
HQ 78 (Tank HQ, range 4 / 3) in 1103.
"""

from __future__ import annotations

import copy

import pytest

from tests.audit.harness import Game as _Game
from tests.audit.helpers import example, make_rule, rule


class Game(_Game):
    """The shared driver, in the Action Phase by default."""

    def __init__(self, scenario, *rules, phase: str | None = "action", turn: int = 1) -> None:
        super().__init__(scenario, *rules, phase=phase, turn=turn)


@pytest.fixture(scope="module")
def quneitra():
    return example("modern-tactical")


def command_game(sc, **params):
    r = rule(sc, "command.range", params=params) if params else rule(sc, "command.range")
    return Game(sc, r)


# ======================================================================================
# command_range
# ======================================================================================

def test_units_within_range_move_freely(quneitra):
    # B-10 at distance 3 = range 3 of the full HQ 85, Recce/85 at 1
    g = command_game(quneitra)
    g.activation("bn_85")
    g.step(("move", "syr.rcl", "1105"))
    g.step(("move", "syr.brdm", "0804"))
    g.end_activation()
    assert g.violations == []
    assert set(g.rules[0].owed) == set()      # reset at activation end


def test_out_of_range_unit_moves_without_proof(quneitra):
    # PA Cav 1 in 1209 is 7 hexes from HQ 85: warning at its first move only
    g = command_game(quneitra)
    g.activation("bn_85")
    assert set(g.rules[0].owed) == {"syr.bmp.2", "syr.inf", "syr.cav.1", "syr.cav.2"}
    s = g.step(("move", "syr.cav.1", "1208"))
    g.step(("move", "syr.cav.1", "1108"))
    g.end_activation()
    assert g.found() == [("command.range", s, ("syr.cav.1",), ("1209", "1208", "1003"))]
    v = g.violations[0]
    assert v.severity == "warning"
    assert v.message == (
        "PA Cav 1 Militia cavalry platoon (syr.cav.1) moved 1209 → 1208: it was 7 hexes from "
        "its HQ 85 Mechanised HQ (syr.hq_85) in 1003 at the start of the activation (command "
        "range 3), and there is no passed morale check for 1209 and no Out of Command marker "
        "in 1209")
    assert v.activation == "bn_85" and v.evidence["distance"] == 7


def test_reduced_hq_has_a_shorter_range(quneitra):
    # reduced HQ 85: range 2, so the B-10 at distance 3 is out of range
    g = command_game(quneitra)
    g.state.units_state["syr.hq_85"].face = 1
    g.activation("bn_85")
    s = g.step(("move", "syr.rcl", "1105"))
    assert g.found() == [("command.range", s, ("syr.rcl",), ("1106", "1105", "1003"))]
    assert "(command range 2)" in g.violations[0].message


def test_full_tank_hq_range_four(quneitra):
    # HQ 78 in 1103 (range 4): a T-72 in 1107 (distance 4) is in range, one in
    # 1108 (distance 5) is not
    g = command_game(quneitra)
    g.state.place_unit("syr.t72.2", "1107", None)
    g.state.place_unit("syr.t72.3", "1108", None)
    g.activation("bn_78")
    g.step(("move", "syr.t72.2", "1007"))
    s = g.step(("move", "syr.t72.3", "1008"))
    assert g.found() == [("command.range", s, ("syr.t72.3",), ("1108", "1008", "1103"))]


def test_passed_check_covers_every_unit_of_the_hex(quneitra):
    # one check per hex: 2d6 = 5, "#check 1206 pass", then both units of 1206 move
    g = command_game(quneitra)
    g.activation("bn_85")
    g.step(("dice", 3, 2))
    g.step(("chat", "#check 1206 pass"))
    g.step(("move", "syr.bmp.2", "1205"), ("move", "syr.inf", "1205"))
    g.end_activation()
    assert g.violations == []


def test_check_without_a_roll_proves_nothing(quneitra):
    g = command_game(quneitra)
    g.activation("bn_85")
    g.step(("chat", "#check 1206 pass"))
    s = g.step(("move", "syr.bmp.2", "1205"))
    assert g.found() == [("command.range", s, ("syr.bmp.2",), ("1206", "1205", "1003"))]


def test_one_roll_links_one_check(quneitra):
    # the second #check has no roll of its own left
    g = command_game(quneitra)
    g.activation("bn_85")
    g.step(("dice", 2, 2))
    g.step(("chat", "#check 1206 pass"))
    g.step(("chat", "#check 1209 pass"))
    g.step(("move", "syr.bmp.2", "1205"))
    s = g.step(("move", "syr.cav.1", "1208"))
    assert g.found() == [("command.range", s, ("syr.cav.1",), ("1209", "1208", "1003"))]


def test_ooc_marker_hands_the_unit_to_the_status_rule(quneitra):
    g = command_game(quneitra)
    g.activation("bn_85")
    g.step(("dice", 6, 5))
    g.step(("chat", "#check 1209 fail"), ("marker", "out_of_command", "1209"))
    g.step(("move", "syr.cav.1", "1208"))     # status.out_of_command's business
    g.end_activation()
    assert g.violations == []


def test_failed_check_and_the_unit_moves_without_marker(quneitra):
    g = command_game(quneitra)
    g.activation("bn_85")
    g.step(("dice", 6, 5))
    g.step(("chat", "#check 1209 fail"))
    s = g.step(("move", "syr.cav.1", "1208"))
    g.end_activation()
    assert g.found() == [("command.range", s, ("syr.cav.1",), ("1209", "1208"))]
    v = g.violations[0]
    assert v.severity == "error"
    assert "morale check for 1209 failed (roll 6+5)" in v.message


def test_failed_check_but_no_marker_by_activation_end(quneitra):
    # nobody in 1206 moves, but the OOC marker is never placed: error dated
    # to the #check step
    g = command_game(quneitra)
    g.activation("bn_85")
    g.step(("dice", 5, 6))
    s = g.step(("chat", "#check 1206 fail"))
    g.step(("move", "syr.brdm", "0804"))       # in range
    g.end_activation()
    assert g.found() == [("command.range", s, (), ("1206",))]
    assert g.violations[0].severity == "error"
    assert g.violations[0].activation == "bn_85"


def test_hq_off_the_map_puts_everyone_out_of_range(quneitra):
    # 001:1.3.3.3b: with HQ 85 eliminated even the BMP in its old hex is out
    g = command_game(quneitra)
    g.state.place_unit("syr.hq_85", None, "syr_elim")
    g.activation("bn_85")
    s = g.step(("move", "syr.bmp.1", "1004"))
    assert g.found() == [("command.range", s, ("syr.bmp.1",), ("1003", "1004"))]
    assert "its HQ 85 Mechanised HQ (syr.hq_85) was not on the map" in g.violations[0].message


def test_units_entering_this_activation_are_exempt(quneitra):
    # 003:4.2e: the IDF reinforcement enters at the west edge (0110, 8 hexes
    # from HQ A/74 in 0402) and moves in the same activation
    g = command_game(quneitra)
    g.activation("team_ari")
    g.step(("enter", "idf.m113.2", "0110"))
    g.step(("move", "idf.m113.2", "0209"))
    g.end_activation()
    assert g.violations == []


def test_only_the_activated_formation_is_measured(quneitra):
    # during the 78th's activation the 85th's far cavalry is not judged here
    g = command_game(quneitra)
    g.activation("bn_78")
    g.step(("move", "syr.cav.1", "1208"))
    assert g.violations == []


def test_exempt_formation_and_helicopters(quneitra):
    # IDF aviation has no HQ (command: exempt); the Cobra is no subject anyway
    g = command_game(quneitra)
    g.activation("idf_aviation")
    g.step(("move", "idf.cobra", "1201"))
    assert g.violations == []


def test_claimed_pass_above_the_target(quneitra):
    # with check_target {hq_factor: morale} (HQ 85 full: morale 7), a roll of
    # 5+4 = 9 cannot pass: the claim is an error and the hex counts as failed
    g = command_game(quneitra, out_of_range={"accept_if": ["passed_check", "ooc_marker"],
                                             "otherwise": "warning",
                                             "check_target": {"hq_factor": "morale"}})
    g.activation("bn_85")
    g.step(("dice", 5, 4))
    s1 = g.step(("chat", "#check 1209 pass"))
    s2 = g.step(("move", "syr.cav.1", "1208"))
    assert g.found() == [("command.range", s1, (), ("1209",)),
                         ("command.range", s2, ("syr.cav.1",), ("1209", "1208"))]
    assert "above the target 7" in g.violations[0].message


def test_roll_within_target_passes(quneitra):
    g = command_game(quneitra, out_of_range={"check_target": 7})
    g.activation("bn_85")
    g.step(("dice", 3, 4))
    g.step(("chat", "#check 1209 pass"))
    g.step(("move", "syr.cav.1", "1208"))
    assert g.violations == []


def test_command_range_memory_rolls_back(quneitra):
    g = command_game(quneitra)
    g.activation("bn_85")
    before = copy.deepcopy(g.rules[0])
    g.step(("dice", 1, 1))
    g.step(("chat", "#check 1209 pass"))
    assert g.rules[0].passed and not before.passed
    assert before.owed == g.rules[0].owed and before.owed is not g.rules[0].owed


# ======================================================================================
# per_turn_limit
# ======================================================================================

def limit_game(sc):
    return Game(sc, rule(sc, "activation.limit"))


def test_team_ari_may_activate_twice(quneitra):
    g = limit_game(quneitra)
    for _ in range(2):
        g.activation("team_ari")
        g.end_activation()
    assert g.violations == []


def test_78th_activates_twice_in_one_turn(quneitra):
    g = limit_game(quneitra)
    g.activation("bn_78")
    g.end_activation()
    g.activation("bn_85")
    g.end_activation()
    s = g.activation("bn_78")
    assert g.found() == [("activation.limit", s, (), ())]
    v = g.violations[0]
    assert v.message == ("78th Tank Battalion (bn_78) activated twice in turn 1; the limit is "
                         "1 (formation.chits)")
    assert v.evidence["count"] == 2 and v.evidence["limit"] == 1


def test_team_ari_third_activation(quneitra):
    g = limit_game(quneitra)
    for _ in range(2):
        g.activation("team_ari")
    s = g.activation("team_ari")
    assert g.found() == [("activation.limit", s, (), ())]


def test_counts_reset_each_turn(quneitra):
    g = limit_game(quneitra)
    g.activation("bn_78")
    g.clock("turn_start", turn=2)
    g.activation("bn_78")
    assert g.violations == []


def test_per_side_fixed_max(quneitra):
    r = make_rule(quneitra, "per_turn_limit", {"event": "activation", "per": "side", "max": 2},
                  rule_id="side.limit")
    g = Game(quneitra, r)
    g.activation("bn_78")
    g.activation("idf_aviation")
    g.activation("bn_85")
    s = g.activation("syr_aviation")
    assert g.found() == [("side.limit", s, (), ())]
    assert g.violations[0].message.startswith("Syrian Arab Army activated 3 times in turn 1")


@pytest.fixture(scope="module")
def somme():
    return example("ww1-operational")


def test_step_gains_per_unit_per_turn(somme):
    # 004:1.7a-3 as a per_turn_limit: 208th Division (ger.inf.3, reduced in
    # 1003) regains a step, loses it, regains it again in the same turn
    r = make_rule(somme, "per_turn_limit", {"event": "step_gain", "per": "unit", "max": 1,
                                            "subject": {"tags": ["combat"]}}, rule_id="rp.once")
    g = Game(somme, r, phase="replacement")
    g.step(("flip", "ger.inf.3", "full"))
    g.step(("flip", "ger.inf.3", "reduced"))     # a loss: not counted
    s = g.step(("flip", "ger.inf.3", "full"))
    assert g.found() == [("rp.once", s, ("ger.inf.3",), ())]
    # a return from the dead pile is a step gain too, for another unit: fine
    g.step(("enter", "all.bri.2", "0204"))
    assert len(g.violations) == 1
    g.clock("turn_start", turn=2)
    g.step(("flip", "ger.inf.3", "reduced"))
    g.step(("flip", "ger.inf.3", "full"))
    assert len(g.violations) == 1
