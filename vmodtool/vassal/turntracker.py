"""Turn trackers: their levels as a module defines them and the turn a
``TURN`` command (or a saved game's tracker state) sets
(``docs/vassal-format.md`` §2.4 TurnTracker, §4.8 "Turn tracker").

A tracker's state is ``currentLevel|<state of each top-level level>``; a
counter level's state is ``current;currentSubLevel;loop;loopLimit[;child
states]``, a list level's ``current;currentSubLevel;first;activeFlags[;child
states]`` (``current`` a 0-based index into its list).  The *active* levels
are the current top-level one and, below each, its current sub-level —
what VASSAL's ``TurnTracker.getTurnString`` shows as ``$level1$``,
``$level2$``…  Decoding follows ``TurnTracker.setState`` and the levels'
``setState`` (a missing or malformed number takes the reader's default).

The id a ``TURN`` command names is the tracker's automatic id: the class's
short name plus its index among the module's trackers of that class, in
document order (``TurnTracker0``; ``UniqueIdManager``, §2.4).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from vmodtool.vassal.pieces import java_int
from vmodtool.vassal.sequence import decode_sequence, encode_sequence

if TYPE_CHECKING:
    from lxml import etree

    from vmodtool.vassal.buildfile import BuildFile

__all__ = ["TurnLevelDef", "TurnTrackerDef", "turn_trackers"]

_COUNTER = "CounterTurnLevel"
_LIST = "ListTurnLevel"


@dataclass(frozen=True)
class TurnLevelDef:
    """One level: ``kind`` ``counter`` or ``list``, its name, the global
    property it sets, a counter's start, a list's values, its sub-levels."""

    kind: str
    name: str
    property: str = ""
    start: int = 1
    values: tuple[str, ...] = ()
    children: tuple[TurnLevelDef, ...] = ()

    def value_string(self, current: int) -> str:
        """``getValueString``: the counter's number, the list's entry."""
        if self.kind == "counter":
            return str(current)
        return self.values[current] if 0 <= current < len(self.values) else ""

    def state(self, current: int | None = None, loop_limit: int = -1) -> str:
        """``getState`` of the level at its value ``current`` (a counter's
        number, a list's index; default its start, the first entry), its
        first sub-level active, every list entry active: a counter is
        ``current;sub;loop;loopLimit;<sub-levels>``, a list
        ``current;sub;first;<active flags>;<sub-levels>``."""
        children = [child.state() for child in self.children]
        if self.kind == "counter":
            head = [str(self.start if current is None else current), "0", "false", str(loop_limit)]
        else:
            head = [str(current or 0), "0", "0", ",".join("true" for _ in self.values)]
        return encode_sequence(head + children, ";") or ""

    def _active(self, state: str, out: list[tuple[str, str]]) -> None:
        tokens = decode_sequence(state, ";") if state else []

        def number(i: int, default: int) -> int:
            value = java_int(tokens[i]) if i < len(tokens) else None
            return default if value is None else value
        current = number(0, self.start)
        sub = number(1, 0)
        out.append((self.name, self.value_string(current)))
        first_child = 4                 # counter: current, sub, loop, loopLimit; list: current, sub, first, flags
        if 0 <= sub < len(self.children):
            i = first_child + sub
            self.children[sub]._active(tokens[i] if i < len(tokens) else "", out)


@dataclass(frozen=True)
class TurnTrackerDef:
    """A module's TurnTracker: its id in commands, its name, its levels."""

    id: str
    name: str
    levels: tuple[TurnLevelDef, ...]

    def state(self, top: int | None = None, loop_limit: int = -1) -> str:
        """``TurnTracker.getState``: the first level active at ``top`` (see
        :meth:`TurnLevelDef.state`), the others at their start."""
        levels = [level.state(top if i == 0 else None, loop_limit if i == 0 else -1)
                  for i, level in enumerate(self.levels)]
        return encode_sequence(["0"] + levels, "|") or ""

    def active_levels(self, state: str) -> list[tuple[str, str]]:
        """(level name, value shown) of the active levels a state sets,
        outermost first (``$level1$``, ``$level2$``…)."""
        tokens = decode_sequence(state, "|") if state else []
        current = java_int(tokens[0]) if tokens else None
        current = 0 if current is None else current
        out: list[tuple[str, str]] = []
        if 0 <= current < len(self.levels):
            i = 1 + current
            self.levels[current]._active(tokens[i] if i < len(tokens) else "", out)
        return out


def _short(tag: object) -> str:
    return str(tag).rsplit(".", 1)[-1]


def _level(element: etree._Element) -> TurnLevelDef | None:
    kind = _short(element.tag)
    if kind not in (_COUNTER, _LIST):
        return None
    children = tuple(c for c in (_level(child) for child in element) if c is not None)
    name = element.get("name", "")
    prop = element.get("property", "")
    if kind == _COUNTER:
        start = java_int(element.get("start"))
        return TurnLevelDef("counter", name, prop, 1 if start is None else start, (), children)
    values = tuple(decode_sequence(element.get("list", ""), ",")) if element.get("list") else ()
    return TurnLevelDef("list", name, prop, 1, values, children)


def turn_trackers(buildfile: BuildFile) -> dict[str, TurnTrackerDef]:
    """Every turn tracker of a module's buildFile by the id its ``TURN``
    commands carry (a subclass such as ``…POGTurnTracker`` numbers its own)."""
    counts: dict[str, int] = {}
    out: dict[str, TurnTrackerDef] = {}
    for element in buildfile.root.iter():
        if not isinstance(element.tag, str):
            continue
        short = _short(element.tag)
        if not short.endswith("TurnTracker"):
            continue
        n = counts.get(short, 0)
        counts[short] = n + 1
        levels = tuple(c for c in (_level(child) for child in element) if c is not None)
        tracker = TurnTrackerDef(f"{short}{n}", element.get("name", ""), levels)
        out[tracker.id] = tracker
    return out
