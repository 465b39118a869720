"""The chat-line guards of :class:`~vmodtool.audit.timeline.Clock` (a line
that cannot begin as every match of the time-report or dice pattern does is
not matched at all) change no answer: every chat line of the example logs
read with and without them, and the literal prefix of a pattern held to
the matches of that pattern."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from vmodtool.audit.game import scenario_positions
from vmodtool.audit.timeline import DEFAULT_DICE_REGEX, DEFAULT_REPORT_REGEX, Clock, literal_prefix
from vmodtool.replay import ChatEvent, DiceEvent, Replay
from vmodtool.scenario import load_scenario

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SYSTEMS = ("modern-tactical", "ww1-operational", "combat-commander")


def _messages(system: str) -> list[str]:
    scenario = load_scenario(EXAMPLES / system / "scenario.yaml")
    positions, properties, hands = scenario_positions(scenario)
    out = []
    for log in sorted((EXAMPLES / system / "logs").glob("*.vlog")):
        for step in Replay.open([log], positions=positions, properties=properties, hands=hands).steps():
            out += [ev.message for ev in step.events if type(ev) in (ChatEvent, DiceEvent) and ev.message]
    return out


@pytest.mark.parametrize("system", SYSTEMS)
def test_guards_change_no_answer(system: str) -> None:
    scenario = load_scenario(EXAMPLES / system / "scenario.yaml")
    guarded, plain = Clock(scenario), Clock(scenario)
    plain._report_start = plain._dice_start = ""
    assert guarded._dice_start                      # (the examples' patterns have a prefix)
    messages = _messages(system)
    # and lines made to look like the patterns: entities, spaces, cut short
    messages += [m.replace("*", "&#42;", 1) for m in messages[:50]] + [" " + m for m in messages[:50]]
    messages += [m[:k] for m in messages[:20] for k in range(6)]
    times = rolls = 0
    for message in messages:
        assert guarded.time(message) == plain.time(message), message
        assert guarded.roll(message) == plain.roll(message), message
        times += plain.time(message) is not None
        rolls += plain.roll(message) is not None
    assert times > 5 and rolls > 5 and len(messages) > 500


PATTERNS = [DEFAULT_REPORT_REGEX, DEFAULT_DICE_REGEX, r"^\* TT\|(?P<turn>\d+)\|(?P<side>[^|]+)\|(?P<phase>.+)$",
            r"^ab*c", r"^a|b", r"^x(a|b)y", r"^\.\.x+", r"^Turn (\d+)", r"^x[]|]|y", r"^ab\|c", r"^a\\|b",
            r"^a?b", r"^a{2}b", r"^\** x", r"^abc$", r"^[ab]c", r"ab", r"^a\d"]


def test_literal_prefix_begins_every_match() -> None:
    rnd = random.Random(18)
    alphabet = "ab*| .x\\c1TturnT"
    texts = ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 8))) for _ in range(20000)]
    texts += ["** x", "..xx", "Turn 3", "abc", "ab|c", "b", "xay", "aab", "* TT|3|A|B", "*** 2d6 = 4 ***"]
    matched = 0
    for pattern in PATTERNS:
        prefix, compiled = literal_prefix(pattern), re.compile(pattern)
        for text in texts:
            if compiled.match(text):
                matched += 1
                assert text.startswith(prefix), (pattern, prefix, text)
    assert matched > 1000
    assert literal_prefix(r"^\* TT\|(?P<turn>\d+)") == "* TT|"
    assert literal_prefix(r"^\*\*\* (?P<label>.+)") == "*** "
    assert literal_prefix(r"^a|b") == literal_prefix(r"ab") == literal_prefix(r"^a{2}") == ""
