"""Undos: who undid what and when (check ``undo``, ``docs/check-game.md``
"Undos").

The replay marks the undo steps (:class:`~vmodtool.replay.game.Step`
``undo``, ``undoes``, ``undone_by``): VASSAL's ``UNDO`` brackets, and
what versions before them logged — the exact reversal of the previous
step, or a chat or dice line again behind ``* UNDO: ``.  This check names
who undid, and what each undone step had done, in the module's location
names (a hidden or masked piece only as such, :func:`actions.piece_label`).

Undo steps one player made in a row (pressing Undo several times) are one
finding.  A finding whose undone steps include a dice roll is SUSPICIOUS:
a roll taken back can be rolled again, or its result dropped (the dice
check reports the roll rolled again with both values) — unless every such
roll was logged again with the same values after the undo, as the dice
check links them (VASSAL logs again what a player steps through again):
then, like every other undo, it is a note.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vmodtool.checkgame.actions import concealment, move_text
from vmodtool.checkgame.model import NOTE, SUSPICIOUS, Finding, GameRecord, Section
from vmodtool.checkgame.visitor import SectionVisitor, run_section
from vmodtool.replay.events import (
    AddEvent,
    ChangeEvent,
    ChatEvent,
    DiceEvent,
    Event,
    MoveEvent,
    PropertyEvent,
    RemoveEvent,
    chat_display,
)
from vmodtool.replay.visitor import ReplayVisitor, walk_events

if TYPE_CHECKING:
    from collections.abc import Callable

    from vmodtool.replay.engine import Roster
    from vmodtool.replay.game import Step
    from vmodtool.vassal.module import Module

__all__ = ["section", "UndoSection", "Roll", "roll_of", "undoer"]

#: what older VASSAL versions logged as the undo of a chat or dice line
UNDO_LINE = "* UNDO: "
#: a DiceButton's default report (``** $name$ = $result$ *** <$PlayerName$>``)
#: and its common variants: the label and the result
_DICE_REPORT = re.compile(r"^\*{2,3} ?(?P<label>[^=*]+?) ?= ?(?P<values>[^*]+?) ?\*{2,3}")
_NAME = re.compile(r"<([^<>]{1,64})>")
#: what a DiceButton sets after a roll (``<button>_result`` …)
_ROLL_PROPERTIES = ("_result", "_total", "_keep", "_summary")
#: undone steps named one by one in a finding (besides every roll)
_SHOWN = 3
#: events described per undone step
_EVENTS = 2
_CHAT = 60


@dataclass(frozen=True)
class Roll:
    """An undone roll: the die or button label and the result as reported."""

    label: str | None
    values: str

    def text(self) -> str:
        return f"a {self.label} roll: {self.values}" if self.label else f"a roll: {self.values}"


def roll_of(event: DiceEvent) -> Roll:
    """The roll of a report line (``*** 2d6 = 3,5 *** <Joel>``) or of a
    SpecialDiceButton's results."""
    if event.results is not None and event.button:
        return Roll(event.button, ",".join(str(v) for v in event.results))
    return _report_roll(chat_display(event.message)) or Roll(None, _short(chat_display(event.message)))


def _report_roll(text: str) -> Roll | None:
    m = _DICE_REPORT.match(text)
    return Roll(m.group("label").strip(), m.group("values").strip()) if m else None


def _short(text: str, limit: int = _CHAT) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _named(lines: list[str], roster: Roster) -> str | None:
    """The roster name a line gives as ``<Name>`` (typed chat, VASSAL's
    default dice report), else the one it holds as a word (``… by Name``)."""
    texts = [chat_display(line) for line in lines]
    for text in texts:
        for name in _NAME.findall(text):
            found, _ = roster.by_name(name)
            if found is not None:
                return found
    names = sorted({name for name, _ in roster.players.values() if name}, key=len, reverse=True)
    for text in texts:
        for name in names:
            if re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text):
                return name
    return None


def undoer(step: Step, target: Step | None, roster: Roster) -> str | None:
    """Who undid: the undo step's mover, else the undone step's (only the
    player who logged a step can undo it), else the roster name in their
    chat or dice lines (``* UNDO: *** d6 = 3 *** <Joel>``)."""
    if step.player:
        return step.player
    if target is not None and target.player:
        return target.player
    return _named(step.chat_lines, roster) or (_named(target.chat_lines, roster) if target else None)


def _dice_buttons(module: Module | None) -> frozenset[str]:
    if module is None:
        return frozenset()
    names = set()
    for element in module.buildfile.root.iter():
        if isinstance(element.tag, str) and element.tag.rsplit(".", 1)[-1] in ("DiceButton", "SpecialDiceButton"):
            name = element.get("name")
            if name:
                names.add(name)
    return frozenset(names)


def _is_roll_property(event: PropertyEvent, buttons: frozenset[str]) -> str | None:
    """The button whose ``_result`` this is (None: not a roll's)."""
    for suffix in _ROLL_PROPERTIES:
        if event.name.endswith(suffix) and event.name[:-len(suffix)] in buttons:
            return event.name[:-len(suffix)]
    return None


@dataclass
class _Undone:
    """One undone step (``step`` None: not in the log) and what it did."""

    step: Step | None
    did: str
    rolls: list[Roll] = field(default_factory=list)
    #: the step did nothing but this one roll
    only_roll: bool = False
    #: the step in the log where each of its rolls was logged again with the
    #: same values after the undo (VASSAL re-logs what a player steps through
    #: again): nothing was rolled again
    relogged: int | None = None

    @property
    def reroll_risk(self) -> bool:
        """A roll taken back that was not logged again unchanged."""
        return bool(self.rolls) and self.relogged is None

    def record(self) -> dict[str, Any]:
        s = self.step
        return {"step": s.number if s else None, "file_step": s.file_step if s else None,
                "player": s.player if s else None, "did": self.did,
                "rolls": [r.text() for r in self.rolls], "logged_again_at": self.relogged}


class _WhatItDid(ReplayVisitor[_Undone]):
    """What an undone step did, from its events: its rolls (a dice report,
    else the ``<button>_result`` a DiceButton sets), the module's reports of
    what it did (chat lines starting ``*``), everything else it did (a card
    drawn is a move).  Pieces are named only for what is shown (naming
    decodes the piece): each event is kept as the way to say it."""

    def __init__(self, target: Step, roster: Roster, buttons: frozenset[str]) -> None:
        self.target = target
        self.roster = roster
        self.buttons = buttons
        self.rolls: list[Roll] = []
        #: the rolls a DiceButton's ``_result`` says (used when no dice event does)
        self.property_rolls: list[Roll] = []
        self.dice = False
        self.events: list[Callable[[], str]] = []
        self.reports: list[Callable[[], str]] = []

    def visit_event(self, event: Event) -> None:
        self.events.append(event.text)

    def visit_dice(self, event: DiceEvent) -> None:
        self.dice = True
        self.rolls.append(roll_of(event))

    def visit_property(self, event: PropertyEvent) -> None:
        button = _is_roll_property(event, self.buttons)
        if button is None:
            self.events.append(event.text)
        elif event.name == f"{button}_result":
            self.property_rolls.append(Roll(button, event.new))

    def visit_chat(self, event: ChatEvent) -> None:
        said = partial(_chat_text, event)
        (self.reports if event.message.startswith("*") else self.events).append(said)

    def visit_move(self, event: MoveEvent) -> None:
        self.events.append(partial(_move_text, event, self.roster))

    def visit_change(self, event: ChangeEvent) -> None:
        self.events.append(partial(_change_text, event, self.roster))

    def visit_add(self, event: AddEvent) -> None:
        self.events.append(partial(_add_text, event, self.roster))

    def visit_remove(self, event: RemoveEvent) -> None:
        self.events.append(partial(_remove_text, event, self.roster))

    def result(self) -> _Undone:
        rolls = self.rolls if self.dice else self.property_rolls
        rest = self.events or self.reports     # the module's report only when the step did nothing else
        count = len(rolls) + len(rest)
        if not count:
            return _Undone(self.target, "a step that changed nothing")
        parts = [r.text() for r in rolls][:_EVENTS]
        parts += [say() for say in rest[:_EVENTS - len(parts)]]
        did = "; ".join(parts) + (f"; and {count - len(parts)} more" if count > len(parts) else "")
        return _Undone(self.target, did, rolls, only_roll=count == 1 and len(rolls) == 1)


def _move_text(event: MoveEvent, roster: Roster) -> str:
    hidden = concealment(event.piece, roster)
    name = hidden.label() if hidden is not None else event.piece.label()
    src, dst = event.source, event.target
    if src.map == dst.map and src.location is not None and src.location == dst.location:
        return f"{name} moved within {dst.label()}"
    return f"{name} moved {move_text(src, dst)}"


def _change_text(event: ChangeEvent, roster: Roster) -> str:
    hidden = concealment(event.after, roster) or concealment(event.before, roster)
    if hidden is not None:
        return f"{hidden.label()} changed at {event.place.label()}"
    return event.text()


def _add_text(event: AddEvent, roster: Roster) -> str:
    hidden = concealment(event.piece, roster)
    if hidden is not None:
        return f"{hidden.label()} added at {event.target.label()}"
    return event.text()


def _remove_text(event: RemoveEvent, roster: Roster) -> str:
    hidden = concealment(event.piece, roster)
    if hidden is not None:
        return f"{hidden.label()} removed from {event.source.label()}"
    return event.text()


def _chat_text(event: ChatEvent) -> str:
    return f"the chat line «{_short(event.display)}»"


def _what(target: Step, roster: Roster, buttons: frozenset[str]) -> _Undone:
    what = _WhatItDid(target, roster, buttons)
    walk_events(what, target.events)
    return what.result()


def _not_in_log(step: Step) -> _Undone:
    """An undo whose undone step is not in this log: what its own
    ``* UNDO:`` lines say it undid."""
    said = [chat_display(line[len(UNDO_LINE):]) for line in step.chat_lines if line.startswith(UNDO_LINE)]
    rolls = [r for r in (_report_roll(line) for line in said) if r is not None]
    if said:
        return _Undone(None, f"a step not in this log, which said «{_short(said[0])}»", rolls)
    return _Undone(None, "a step not in this log", rolls)


def _how(step: Step) -> str:
    if step.undo_kind == "bracket":
        return "bracket"
    if step.chat_lines and all(line.startswith(UNDO_LINE) for line in step.chat_lines):
        return "undo line"
    return "reversal"


@dataclass
class _Run:
    """Undo steps one player made in a row in one log file (one finding): who,
    the file, the undo steps and what each of them undid."""

    who: str | None
    file: str | None
    steps: list[Step] = field(default_factory=list)
    undone: list[_Undone] = field(default_factory=list)

    @property
    def rolls(self) -> list[Roll]:
        return [r for u in self.undone for r in u.rolls]


def _message(run: _Run) -> str:
    who = run.who or "An unnamed player"

    def item(u: _Undone) -> str:
        again = f", logged again unchanged at step {u.relogged}" if u.relogged is not None else ""
        return f"step {u.step.file_step} ({u.did}{again})" if u.step is not None else u.did

    if len(run.undone) == 1:
        return f"{who} undid {item(run.undone[0])}"
    shown: list[str] = []
    others = 0
    undone = sorted(run.undone, key=lambda u: u.step.number if u.step else 0)
    i = 0
    while i < len(undone):
        group = _roll_group(undone, i)
        if len(group) > 1:
            label = group[0].rolls[0].label
            first, last = group[0].step, group[-1].step
            assert first is not None and last is not None
            again = ""
            if all(g.relogged is not None for g in group):
                again = f", each logged again unchanged from step {min(g.relogged or 0 for g in group)}"
            shown.append(f"steps {first.file_step}–{last.file_step} ({len(group)} {label + ' ' if label else ''}"
                         f"rolls: {'; '.join(g.rolls[0].values for g in group)}{again})")
        elif group[0].rolls or len(shown) < _SHOWN:
            shown.append(item(group[0]))
        else:
            others += 1
        i += len(group)
    text = f"{who} undid {len(run.undone)} steps in a row: " + "; ".join(shown)
    if others:
        text += f"; and {others} more"
    return text


def _roll_group(undone: list[_Undone], i: int) -> list[_Undone]:
    """``undone[i]`` and the undone steps right after it when each of them
    was one roll of the same dice (one item of the message), else
    ``[undone[i]]``."""
    group = [undone[i]]
    while True:
        last = group[-1]
        nxt = undone[i + len(group)] if i + len(group) < len(undone) else None
        if nxt is None or not (last.only_roll and nxt.only_roll) or last.step is None or nxt.step is None \
                or nxt.step.number != last.step.number + 1 or nxt.rolls[0].label != last.rolls[0].label \
                or (nxt.relogged is None) != (last.relogged is None):
            return group
        group.append(nxt)


def _logged_again(record: GameRecord, logs: set[str | None]) -> dict[int, int]:
    """Undone steps of ``logs`` whose every roll was logged again unchanged
    after the undo (as the dice check links them, :func:`dice.read_rolls`):
    chain step -> the step in the log of the first repeat."""
    from vmodtool.checkgame.dice import read_rolls

    rolled: Counter[int] = Counter()
    again: dict[int, list[int]] = {}
    for r in read_rolls(record, logs=logs):
        if r.repeat_of is not None:
            again.setdefault(r.repeat_of, []).append(r.file_step)
        else:
            rolled[r.step] += 1
    return {step: min(at) for step, at in again.items() if len(at) >= rolled[step]}


class UndoSection(SectionVisitor):
    """The ``undo`` section: each undo step (the replay marks them), who
    undid and what the step it undid had done (:class:`_WhatItDid`: a card
    drawn is a move), in series of one player's undos in a row."""

    def __init__(self, record: GameRecord) -> None:
        super().__init__(record)
        self.roster = record.replay.roster
        self.buttons = _dice_buttons(record.module)
        self.runs: list[_Run] = []
        self.how: Counter[str] = Counter()

    def begin_step(self, step: Step) -> None:
        if not step.undo:
            return
        steps = self.record.steps
        target = steps[step.undoes - 1] if step.undoes and 0 < step.undoes <= len(steps) else None
        who = undoer(step, target, self.roster)
        self.how[_how(step)] += 1
        last = self.runs[-1] if self.runs else None
        if last is None or last.who != who or last.file != step.file or last.steps[-1].number != step.number - 1:
            last = _Run(who, step.file)
            self.runs.append(last)
        last.steps.append(step)
        last.undone.append(_what(target, self.roster, self.buttons) if target is not None else _not_in_log(step))

    def result(self) -> Section:
        with_rolls = [u for run in self.runs for u in run.undone if u.step is not None and u.rolls]
        if with_rolls:          # (the dice are read again only for them)
            relogged = _logged_again(self.record, {u.step.file for u in with_rolls if u.step is not None})
            for undone in with_rolls:
                assert undone.step is not None
                undone.relogged = relogged.get(undone.step.number)
        per_player: dict[str, Counter[str]] = {}
        findings = [_finding(run, per_player) for run in self.runs]
        summary = _summary(self.how, len(self.runs), per_player)
        by_log: Counter[str] = Counter()
        for run in self.runs:
            by_log[Path(run.file).name if run.file else ""] += len(run.steps)
        rolls_total = sum(c["undone_rolls"] for c in per_player.values())
        rolls_again = sum(c["undone_rolls_logged_again"] for c in per_player.values())
        data = {"undo_steps": sum(self.how.values()), "runs": len(self.runs), "undone_rolls": rolls_total,
                "undone_rolls_logged_again": rolls_again, "by_how": dict(sorted(self.how.items())),
                "by_player": {p: dict(sorted(c.items())) for p, c in sorted(per_player.items())},
                "by_log": dict(by_log)}
        return Section("undo", "Undos", summary, findings, data)


def _finding(run: _Run, per_player: dict[str, Counter[str]]) -> Finding:
    """A series' finding (its counts added to its player's)."""
    rolls = run.rolls
    risky = any(u.reroll_risk for u in run.undone)
    counts = per_player.setdefault(run.who or "unnamed", Counter())
    counts["undo_steps"] += len(run.steps)
    counts["undone_rolls"] += len(rolls)
    counts["undone_rolls_logged_again"] += sum(len(u.rolls) for u in run.undone if u.relogged is not None)
    first = run.steps[0]
    return Finding(
        "undone_roll" if rolls else "undo", SUSPICIOUS if risky else NOTE, _message(run),
        first.file, first.number, first.file_step, run.who,
        {"undo_steps": [s.file_step for s in run.steps], "how": sorted({_how(s) for s in run.steps}),
         "undone": [u.record() for u in run.undone], "rolls": [r.text() for r in rolls]})


def _summary(how: Counter[str], runs: int, per_player: dict[str, Counter[str]]) -> list[str]:
    total = sum(how.values())
    if not total:
        return ["no undo in the logs"]
    players = ", ".join(
        f"{p} {c['undo_steps']}" + (f" ({c['undone_rolls']} dice roll(s) undone)" if c["undone_rolls"] else "")
        for p, c in sorted(per_player.items()))
    summary = [f"{total} undo step(s) in {runs} series: {players}"]
    kinds = []
    if how["bracket"]:
        kinds.append(f"{how['bracket']} in VASSAL's UNDO brackets")
    if how["undo line"]:
        kinds.append(f"{how['undo line']} '* UNDO:' line(s) of an older VASSAL")
    if how["reversal"]:
        kinds.append(f"{how['reversal']} exact reversal(s) of the previous step (how older VASSAL logged "
                     "an undo; a piece moved straight back reads the same)")
    summary.append("; ".join(kinds))
    rolls_total = sum(c["undone_rolls"] for c in per_player.values())
    rolls_again = sum(c["undone_rolls_logged_again"] for c in per_player.values())
    if rolls_total:
        line = f"{rolls_total} dice roll(s) undone"
        if rolls_total > rolls_again:
            line += (f": {rolls_total - rolls_again} SUSPICIOUS (taken back, then rolled again or not at all; "
                     "the dice check shows any new values)")
        if rolls_again:
            line += (f"{';' if rolls_total > rolls_again else ':'} {rolls_again} logged again unchanged after "
                     "the undo (the steps stepped through again: nothing rolled again)")
        summary.append(line)
    return summary


def section(record: GameRecord) -> Section:
    """The ``undo`` section of one game."""
    return run_section(UndoSection(record))
