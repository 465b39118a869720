"""Turn trackers: levels read from a buildFile, states decoded as VASSAL's
``TurnTracker.setState`` does (``docs/vassal-format.md`` §4.8), ids as ``UniqueIdManager`` numbers
them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from vmodtool.vassal.buildfile import BuildFile
from vmodtool.vassal.sequence import encode_sequence
from vmodtool.vassal.turntracker import TurnLevelDef, TurnTrackerDef, turn_trackers

SHARED = Path(os.environ.get("VMODTOOL_SHARED") or Path(__file__).resolve().parents[3] / "shared")

MODULE = """<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<VASSAL.build.GameModule name="T" version="1" VassalVersion="3.7.0" nextPieceSlotId="1">
  <VASSAL.build.module.turn.TurnTracker name="Turn" turnFormat="$level1$ $level2$ $level3$">
    <VASSAL.build.module.turn.CounterTurnLevel name="Turn" property="Turn" start="1" incr="1" loop="false" loopLimit="-1" turnFormat="$value$">
      <VASSAL.build.module.turn.ListTurnLevel name="Side" property="Side" list="Blue,Red">
        <VASSAL.build.module.turn.ListTurnLevel name="Phase" property="Phase" list="Move,Fire\\,Assault,Rally"/>
      </VASSAL.build.module.turn.ListTurnLevel>
    </VASSAL.build.module.turn.CounterTurnLevel>
  </VASSAL.build.module.turn.TurnTracker>
  <VASSAL.build.module.turn.TurnTracker name="Weather">
    <VASSAL.build.module.turn.ListTurnLevel name="Sky" list="Clear,Rain"/>
    <VASSAL.build.module.turn.CounterTurnLevel name="Day" start="10"/>
  </VASSAL.build.module.turn.TurnTracker>
</VASSAL.build.GameModule>
"""  # noqa: E501  (a buildFile as VASSAL writes it: one element per line)


def _counter(current, sub=0, *children):
    return encode_sequence([current, sub, "false", -1, *children], ";")


def _list(current, sub=0, *children, flags="true,true"):
    return encode_sequence([current, sub, 0, flags, *children], ";")


def _tracker(current_level, *levels):
    return encode_sequence([current_level, *levels], "|")


@pytest.fixture(scope="module")
def trackers():
    return turn_trackers(BuildFile.parse(MODULE.encode()))


def test_levels_and_ids(trackers):
    assert list(trackers) == ["TurnTracker0", "TurnTracker1"]
    turn = trackers["TurnTracker0"]
    assert turn.name == "Turn"
    (counter,) = turn.levels
    assert (counter.kind, counter.name, counter.property, counter.start) == ("counter", "Turn", "Turn", 1)
    (side,) = counter.children
    assert side.values == ("Blue", "Red")
    (phase,) = side.children
    assert phase.values == ("Move", "Fire,Assault", "Rally")      # an escaped comma is one entry


def test_active_levels_follow_the_nested_state(trackers):
    turn = trackers["TurnTracker0"]
    state = _tracker(0, _counter(3, 0, _list(1, 0, _list(1))))
    assert turn.active_levels(state) == [("Turn", "3"), ("Side", "Red"), ("Phase", "Fire,Assault")]
    # a level without a state of its own reads "" (its list index then
    # defaults to 1, as in VASSAL's ListTurnLevel.setState)
    assert turn.active_levels(_tracker(0, _counter(12))) == [("Turn", "12"), ("Side", "Red"),
                                                            ("Phase", "Fire,Assault")]
    assert turn.active_levels(_tracker(0, _counter(4, 0, _list(0, 0, _list(0))))) == [
        ("Turn", "4"), ("Side", "Blue"), ("Phase", "Move")]


def test_missing_or_malformed_numbers_take_the_readers_defaults(trackers):
    turn = trackers["TurnTracker0"]
    assert turn.active_levels("") == [("Turn", "1"), ("Side", "Red"), ("Phase", "Fire,Assault")]
    assert turn.active_levels("x|y") == turn.active_levels("")
    assert turn.active_levels(_tracker(0, _counter(2, 0, _list(7)))) == [
        ("Turn", "2"), ("Side", ""), ("Phase", "Fire,Assault")]      # off the list: shown empty
    assert turn.active_levels(_tracker(5, _counter(2))) == []        # no such top level


def test_the_current_top_level_is_chosen(trackers):
    weather = trackers["TurnTracker1"]
    assert weather.active_levels(_tracker(0, _list(1), _counter(14))) == [("Sky", "Rain")]
    assert weather.active_levels(_tracker(1, _list(1), _counter(14))) == [("Day", "14")]
    assert weather.active_levels(_tracker(1, _list(1), "")) == [("Day", "10")]   # the counter's start


def test_a_level_definition_alone():
    level = TurnLevelDef("list", "Phase", values=("A", "B"))
    assert TurnTrackerDef("t", "t", (level,)).active_levels(_tracker(0, _list(1))) == [("Phase", "B")]


def test_our_generated_modules_trackers():
    from tests.audit.helpers import built_module
    from vmodtool.scenario import load_scenario
    root = Path(__file__).resolve().parents[2]
    scenario = load_scenario(root / "examples" / "ww1-operational" / "scenario.yaml")
    module, _ = built_module(scenario)
    (tracker,) = turn_trackers(module.buildfile).values()
    state = _tracker(0, _counter(2, 0, _list(1, 0, _list(2))))
    assert tracker.active_levels(state) == [("Turn", "2"), ("Side", "Allies"),
                                            ("Phase", "Movement Phase")]


@pytest.mark.skipif(not (SHARED / "corpus").exists(), reason="../shared is not available")
@pytest.mark.parametrize("folder,save,expected", [
    ("kassala", "Default_Setup.vsav", [("", "1")]),
    ("ragnarok", "ragnarok-start.vsav", [("Turn", "1")]),
    ("pog", "Classic10-5__cadea1d.vsav", [("Turn", "1")]),
    ("pog", "Historical10-0__12fab9b.vsav", None),     # an older module's POGTurnTracker0
])
def test_corpus_saves(folder, save, expected):
    from vmodtool.vassal.commands import LogEntry, TurnState, leaf_commands
    from vmodtool.vassal.savefile import SavedGame
    trackers = turn_trackers(BuildFile.parse((SHARED / "corpus" / folder / "buildFile.xml").read_bytes()))
    game = SavedGame.read(SHARED / "corpus" / folder / save)
    states = [c for c in (x.logged if isinstance(x, LogEntry) else x
                          for x in leaf_commands(game.commands)) if isinstance(c, TurnState)]
    assert states
    tracker = trackers.get(states[0].tracker_id)
    if expected is None:
        assert tracker is None
    else:
        assert tracker.active_levels(states[0].state) == expected


def test_state_encodes_as_getstate_and_reads_back():
    """``TurnTrackerDef.state``: the first level at a value, the others at
    their start, as ``TurnTracker.getState`` writes it (VASSAL 3.7.26 read a
    state written so back unchanged, locally); read back by ``active_levels``."""
    trackers = turn_trackers(BuildFile.parse(MODULE.encode()))
    turn, weather = trackers["TurnTracker0"], trackers["TurnTracker1"]
    phase = encode_sequence(["0", "0", "0", "true,true,true"], ";")
    side = encode_sequence(["0", "0", "0", "true,true", phase], ";")
    assert turn.state(4, 9) == "0|" + encode_sequence(["4", "0", "false", "9", side], ";")
    assert turn.active_levels(turn.state(4, 9)) == [("Turn", "4"), ("Side", "Blue"), ("Phase", "Move")]
    assert turn.active_levels(turn.state()) == [("Turn", "1"), ("Side", "Blue"), ("Phase", "Move")]
    # a tracker of two top levels: the first active; the counter at its own start
    assert weather.state() == "0|0;0;0;true,true|10;0;false;-1"
    assert weather.active_levels(weather.state(1)) == [("Sky", "Rain")]
