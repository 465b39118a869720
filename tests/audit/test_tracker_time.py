"""Game time from the turn tracker's state: ``TURN`` commands in the log and
the state the saved game starts from, with no chat report at all."""

from __future__ import annotations

import dataclasses

from tests.audit.helpers import built_module
from vmodtool.audit.game import audit_logs
from vmodtool.audit.timeline import Clock, ClockChange
from vmodtool.vassal.gamewriter import GameWriter, Player
from vmodtool.vassal.sequence import encode_sequence


def tracker_state(turn: int, phase_index: int) -> str:
    """The modern-tactical tracker (Turn counter > Phase list) at a turn
    and phase, encoded as VASSAL's TurnTracker.getState does."""
    phase = encode_sequence([phase_index, 0, 0, "true,true"], ";")
    counter = encode_sequence([turn, 0, "false", 12, phase], ";")
    return encode_sequence([0, counter], "|")


def test_tracker_levels_give_the_clock(modern, ww1):
    clock = Clock(ww1)
    assert clock.tracker_time([("Turn", "3"), ("Side", "Allies"), ("Phase", "Movement Phase")]) == \
        ClockChange(3, "all", "movement")
    assert clock.tracker_time([("Month", "June")]) is None
    # a module whose levels have other names: named by position in the scenario
    log = dict(ww1.log, turn_tracker={**ww1.log["turn_tracker"],
                                      "levels": {"turn": 2, "side": None, "phase": "Segment"}})
    clock = Clock(dataclasses.replace(ww1, log=log))
    assert clock.tracker_time([("Year", "1918"), ("Week", "7"), ("Segment", "Air Phase")]) == \
        ClockChange(7, None, "air")


def test_an_audit_reads_time_from_turn_commands(modern, tmp_path):
    module, sizes = built_module(modern)
    w = GameWriter(module, players=[Player("p1", "Avi", "Israel Defense Forces"),
                                    Player("p2", "Sami", "Syrian Arab Army")], board_sizes=sizes)
    cav = next(pid for pid, p in w.pieces.items() if p.piece.get_property("UnitId") == "syr.cav.1")
    start = w.location(cav)
    w.set_turn(tracker_state(2, 1))            # the save stands in turn 2, Action Phase
    w.snapshot()
    w.move(cav, "0905", player="Sami")         # step 1: judged (Action Phase), too far
    w.set_turn(tracker_state(3, 0))            # step 2: turn 3, Marker Removal: no chat report
    w.move(cav, start, player="Sami")          # step 3: not a movement phase
    w.set_turn(tracker_state(3, 1))            # step 4: Action Phase
    w.move(cav, "0905", player="Sami")         # step 5: judged again
    path = tmp_path / "tracker.vlog"
    path.write_bytes(w.to_bytes())
    report = audit_logs([path], modern, only=["move.ground"])
    found = [(v.rule_id, v.step, v.turn, v.phase) for v in report.violations]
    assert found == [("move.ground", 1, 2, "action"), ("move.ground", 5, 3, "action")]
    assert report.replay_warnings == [] and report.rule_failures == []
