"""Combat moves and attached pieces (issue 43 items 1 and 2,
``docs/seed-rules.md`` §4.11) on seeded games written with ``GameWriter``
against the module ``vmodtool build`` makes of the ww1-operational example.

The clean game has a leader carried by a unit, a two-hex retreat and an
advance after a ``#attack`` in the Combat Phase, and a retreat and an
advance after a roll in the Exploitation Phase (a movement phase here, the
advancing unit's allowance already spent); each seeded copy carries ONE
illegal move instead: every one is caught, and the clean game is clean.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.audit.helpers import built_module, example
from vmodtool.audit.game import audit_logs
from vmodtool.scenario.model import RuleSpec, Scenario
from vmodtool.vassal.gamewriter import GameWriter, Player

FRITZ, TOMMY = "Fritz", "Tommy"
PLAYERS = [Player("ger-2b8e", FRITZ, "German Empire"), Player("all-c4d1", TOMMY, "Allies")]
COMBAT = {"phases": ["combat"], "rolls": True}
COSTS = {"foot": {"default": 1}, "mounted": {"default": 1}, "tracked": {"default": 1}}


def _rules(*, attached: bool = True, combat: bool = True) -> tuple[RuleSpec, ...]:
    move: dict[str, object] = {"subject": {"not": {"tags": ["aircraft"]}}, "window": "phase",
                               "phases": ["movement", "exploitation"], "allowance": {"factor": "move"},
                               "costs": COSTS, "phasing_side_only": True}
    if attached:
        move["attached"] = {"tags": ["hq"]}
    if combat:
        move["combat"] = COMBAT
    return (RuleSpec("move", "movement_allowance", move, check_at="phase_end"),
            RuleSpec("retreat", "retreat", {"combat": COMBAT, "max_hexes": 2}),
            RuleSpec("advance", "advance_after_combat", {"combat": COMBAT, "max_hexes": 1}))


def _scenario(**kw: bool) -> Scenario:
    """The example with these rules only, and HQs that move 2 on their own
    (slower than the infantry that carries one)."""
    base = example("ww1-operational")
    hq = base.unit_types["corps_hq"]
    faces = tuple(replace(f, factors={**f.factors, "move": 2}) for f in hq.faces)
    return replace(base, rules=_rules(**kw), unit_types={**base.unit_types, "corps_hq": replace(hq, faces=faces)})


SEEDS = ("leader-alone", "retreat-toward-enemy", "advance-too-far", "exploit-too-far")


def _game(tmp_path: Path, seed: str | None = None) -> Path:
    scenario = example("ww1-operational")
    module, sizes = built_module(scenario)
    w = GameWriter(module, players=PLAYERS, board_sizes=sizes)
    unit = {p.piece.get_property("UnitId"): pid for pid, p in w.pieces.items() if p.piece.get_property("UnitId")}
    where = scenario.map.name

    def mv(uid: str, hex_id: str, who: str) -> None:
        w.move(unit[uid], hex_id, map_name=where, player=who)

    def phase(name: str) -> None:
        w.report(f"TT|1|German Empire|{name}")

    w.snapshot()
    phase("Movement Phase")
    mv("ger.storm.1", "1001", FRITZ)
    # the III Corps HQ (2 MP of its own) carried 3 hexes by the 27th Division
    w.move_stack([unit["ger.hq14"], unit["ger.inf.1"]], "1104", map_name=where, player=FRITZ)
    mv("ger.hq4", "1201" if seed == "leader-alone" else "1203", FRITZ)     # alone: 3 hexes, has 2
    phase("Combat Phase")
    w.chat("#attack 1001,1002 > 0902", player=FRITZ)
    w.dice("2d6", [5, 4], player=FRITZ)
    if seed == "retreat-toward-enemy":
        mv("all.bri.1", "0903", TOMMY)          # still next to the 1002 stack: not away
    else:
        mv("all.bri.1", "0802", TOMMY)          # two hexes, dragged hex by hex
        mv("all.bri.1", "0702", TOMMY)
    mv("ger.storm.1", "0902", FRITZ)            # into the hex the 58th left
    if seed == "advance-too-far":
        mv("ger.storm.1", "0802", FRITZ)        # a second hex
    phase("Exploitation Phase")
    mv("ger.storm.2", "1202", FRITZ)            # 2 MP
    mv("ger.storm.2", "1004", FRITZ)            # 3 more: all of its 5, next to the 58th in 0904
    w.dice("1d6", [6], player=FRITZ)            # 1003 and 1004 attack 0904 (a roll, no #attack)
    mv("all.bri.3", "0804", TOMMY)              # retreat in a movement phase: not movement
    mv("ger.storm.2", "0904", FRITZ)            # the advance: a 6th hex, not movement
    # movement again, away from the combat (it closes the window)
    mv("ger.a7v", "1208" if seed == "exploit-too-far" else "1205", FRITZ)   # 4 hexes, has 3
    phase("Replacement & Reinforcement Phase")
    path = tmp_path / f"{seed or 'clean'}.vlog"
    path.write_bytes(w.to_bytes())
    return path


def _found(path: Path, scenario: Scenario) -> list[tuple[str, str]]:
    report = audit_logs([path], scenario)
    return sorted((v.rule_id, v.message) for v in report.violations if not v.withdrawn_by_undo)


def test_the_clean_game_is_clean(tmp_path: Path) -> None:
    assert _found(_game(tmp_path), _scenario()) == []


@pytest.mark.parametrize("seed", SEEDS)
def test_each_illegal_move_is_caught(tmp_path: Path, seed: str) -> None:
    found = _found(_game(tmp_path, seed), _scenario())
    expected = {
        "leader-alone": ("move", "ger.hq4", "needs 3 MP"),
        "retreat-toward-enemy": ("retreat", "all.bri.1", "not away from the enemy"),
        "advance-too-far": ("advance", "ger.storm.1", "2 hexes, at most 1"),
        "exploit-too-far": ("move", "ger.a7v", "needs 4 MP"),
    }[seed]
    assert len(found) == 1, found
    rule_id, message = found[0]
    assert rule_id == expected[0] and expected[1] in message and expected[2] in message, found


def test_without_attached_the_carried_leader_is_charged(tmp_path: Path) -> None:
    found = _found(_game(tmp_path), _scenario(attached=False))
    assert [(r, "ger.hq14" in m and "needs 3 MP" in m) for r, m in found] == [("move", True)]


def test_without_combat_windows_the_advance_is_charged_as_movement(tmp_path: Path) -> None:
    """Without ``combat`` on the movement rule, Sturm 8's advance after the
    Exploitation Phase roll is a 6th hex of movement for a unit of 5 MP;
    the retreat and advance rules judge the combat with their own windows
    all the same."""
    found = _found(_game(tmp_path), _scenario(combat=False))
    assert [(r, "ger.storm.2" in m and "spent 6 MP, has 5" in m) for r, m in found] == [("move", True)]


@pytest.mark.parametrize("take_backs", [True, False])
def test_a_move_taken_back_costs_nothing_with_take_backs(tmp_path: Path, take_backs: bool) -> None:
    """The 50th Reserve Division (4 MP) is dragged 3 hexes, back to where it
    began (the player corrects his move) and 3 hexes again: 3 MP spent, not 9."""
    scenario = example("ww1-operational")
    module, sizes = built_module(scenario)
    w = GameWriter(module, players=PLAYERS, board_sizes=sizes)
    division = next(pid for pid, p in w.pieces.items() if p.piece.get_property("UnitId") == "ger.inf.3")
    w.snapshot()
    w.report("TT|1|German Empire|Movement Phase")
    other = next(pid for pid, p in w.pieces.items() if p.piece.get_property("UnitId") == "ger.inf4.2")
    for hex_id in ("1006", "1003", "1006"):
        w.move(division, hex_id, map_name=scenario.map.name, player=FRITZ)
        # (another drag in between: a drag straight back is read as VASSAL's undo of the last)
        w.move(other, "1106" if hex_id == "1006" else "1105", map_name=scenario.map.name, player=FRITZ)
    w.report("TT|1|German Empire|Combat Phase")
    path = tmp_path / "take-back.vlog"
    path.write_bytes(w.to_bytes())
    rules = _rules()
    move = replace(rules[0], params={**rules[0].params, "take_backs": take_backs})
    found = _found(path, replace(_scenario(), rules=(move,)))
    if take_backs:
        assert found == []
    else:
        # (the drag back charged as movement, and the third drag on top of both)
        assert sorted(m.split(" it ")[-1] for _, m in found) == ["spent 6 MP, has 4", "spent 9 MP, has 4"]


# -- the kinds' own checks, step by step (tests/audit/harness.py) ---------------------------------
def _harness(max_retreat: int = 2):
    from tests.audit.harness import Game
    from tests.audit.helpers import make_rule
    scenario = example("ww1-operational")
    retreat = make_rule(scenario, "retreat", {"combat": {"rolls": True}, "max_hexes": max_retreat})
    advance = make_rule(scenario, "advance_after_combat", {"combat": {"rolls": True}, "max_hexes": 1},
                        rule_id="advance")
    g = Game(scenario, retreat, advance, phase="combat")
    g.state.phasing_side = "ger"
    g.place("ger.storm.1", "1001")          # next to the 58th in 0902
    return g


def test_a_retreat_longer_than_max_hexes() -> None:
    g = _harness()
    g.step(("dice", 4, 3))
    for hex_id in ("0802", "0702", "0602"):
        g.step(("move", "all.bri.1", hex_id))
    assert [(v.rule_id, v.evidence.get("hexes_moved")) for v in g.violations] == [("test.rule", 3)]


def test_a_retreat_next_to_another_enemy_unit() -> None:
    g = _harness()
    g.place("ger.inf4.2", "0601")           # not in the combat; 0702 is next to it
    g.step(("dice", 4, 3))
    g.step(("move", "all.bri.1", "0802"))
    g.step(("move", "all.bri.1", "0702"))
    assert [(v.rule_id, v.evidence.get("into")) for v in g.violations] == [("test.rule", "enemy_zoc")]


def test_an_advance_into_a_hex_nobody_left() -> None:
    g = _harness()
    g.step(("dice", 4, 3))
    g.step(("move", "all.bri.1", "0802"))
    g.step(("move", "ger.storm.1", "0902"))  # the vacated hex: legal
    assert g.violations == []
    g2 = _harness()
    g2.step(("dice", 4, 3))
    g2.step(("move", "all.bri.1", "0802"))
    g2.step(("move", "ger.storm.1", "0901"))  # next to the 58th, but 0901 was never held
    assert [(v.rule_id, v.evidence.get("vacated")) for v in g2.violations] == [("advance", ["0902"])]


def test_a_move_away_from_the_combat_is_not_a_combat_move() -> None:
    g = _harness()
    g.place("all.bri.1", "0602")            # far from every German unit
    g.step(("dice", 4, 3))                   # (the 50th in 1003 is next to the 58th in 0904)
    g.step(("move", "all.bri.1", "0702"))    # toward the Germans, but no part of the combat
    assert g.violations == []
