"""The dice check of ``vmodtool check-game`` (``docs/check-game.md``, "Dice"):
every roll of a game over all its logs, statistics per player and die,
dice rolled again after an undo or in a log that restarts from a saved
state another log already played on.

Rolls are read from

* the chat report of each ``DiceButton`` of the module, in the button's
  own ``reportFormat`` (and each ``SpecialDiceButton``'s ``format``);
* VASSAL's default dice report (``*** 2d6 = 3,5 *** <Name>``, every version
  from 2.x, also without a module) and reports of the same shape
  (``*** (IFT DR) 6,6 *** <Name> …``);
* the ``<button>_result`` property change a DiceButton logs with its report
  (``<button>_summary`` for a button that reports only its total);
* a ``SpecialDiceButton``'s ``SHOW_RESULTS`` command (face indexes).

A press logs a report *and* a property change in one step: they are paired
(same button, else same values) and the roll counted once, with the
property's values and the report's roller.
"""

from __future__ import annotations

import csv
import hashlib
import html
import io
import re
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vmodtool.checkgame.dice_reports import (
    dice_faces,
    is_dice_like,
    move_reports,
    report_formats,
    user_patterns,
)
from vmodtool.checkgame.model import NOTE, SUSPICIOUS, Finding, GameRecord, Section
from vmodtool.checkgame.stats import ChiSquare, Runs, chi_square_fair, in_words, runs_test
from vmodtool.checkgame.visitor import SectionVisitor, run_section
from vmodtool.errors import VmodError
from vmodtool.replay.events import AddEvent, ChangeEvent, ChatEvent, DiceEvent, MoveEvent, PropertyEvent, RemoveEvent
from vmodtool.replay.visitor import walk_step
from vmodtool.vassal.pieces import java_int

if TYPE_CHECKING:
    from lxml import etree

    from vmodtool.replay.game import Step
    from vmodtool.vassal.module import Module

__all__ = ["Roll", "DiceGroup", "ButtonDef", "section", "DiceSection", "read_rolls", "dice_buttons", "dice_groups",
           "csv_text", "P_SUSPICIOUS", "MIN_PER_FACE", "MIN_PER_SIDE_RUNS"]

#: a test is SUSPICIOUS below this p-value (1 game in 1,000)
P_SUSPICIOUS = 0.001
#: the chi-square test judges a die only with at least this many dice per
#: face (its expected counts must not be small)
MIN_PER_FACE = 5
#: the runs test judges a die only with at least this many dice above and
#: as many below the median (the normal approximation)
MIN_PER_SIDE_RUNS = 10
#: standard dice, for a die whose sides no button or label says
_STANDARD_DICE = (2, 3, 4, 6, 8, 10, 12, 20, 100)
#: the most faces a die's rolls are counted face by face for (the faces
#: test, the counts, the chart); a button of more sides (``nSides`` is any
#: Java int) has its faces test not judged, and its counts only the faces seen
MAX_COUNTED_FACES = 1000

_P = "VASSAL.build.module."
_DEFAULT_REPORT = "** $name$ = $result$ *** &lt;$PlayerName$&gt;"
_DEFAULT_SPECIAL = "** $name$ = [$result1$] *** &lt;$PlayerName$&gt;"
_VARIABLE = re.compile(r"\$([^$\s]+)\$")
#: any dice report of the default shape: stars, a label, the dice, stars,
#: the roller (VASL's own reports add counts after the name)
_GENERIC = re.compile(r"^\*{2,3} (?P<label>.+?)(?: =)? (?P<values>-?\d+(?:,-?\d+)*) \*\*\*"
                      r"(?:\s*(?:&lt;|<)(?P<player>[^<>]*?)(?:&gt;|>))?")
_NDS = re.compile(r"^(\d*)[dD](\d+)$")
_SUMMARY = re.compile(r"(-?\d+) x(\d+)")
#: the most dice a summary property is read for (a count past it, or a
#: number longer than VASSAL writes, is not a roll: a damaged log's
#: "5 x2147483647" would be a tuple of two billion dice)
_MAX_SUMMARY_DICE = 10_000


def _summary_dice(pairs: list[tuple[str, str]]) -> int:
    """How many dice the (face, count) pairs of a summary list (past
    :data:`_MAX_SUMMARY_DICE` when a number is longer than any it allows)."""
    if any(len(face) > 12 or len(count) > 6 for face, count in pairs):
        return _MAX_SUMMARY_DICE + 1
    return sum(int(count) for _, count in pairs)


_INT_LIST = re.compile(r"^\s*-?\d+(?:\s*,\s*-?\d+)*\s*$")


@dataclass(frozen=True)
class ButtonDef:
    """A dice button of the module: how many dice, how many sides, what
    its report looks like.  ``faces`` is set for a SpecialDiceButton (the
    face texts of each die)."""

    name: str
    n_dice: int
    n_sides: int
    report_format: str
    plus: int = 0
    report_total: bool = False
    faces: tuple[tuple[str, ...], ...] | None = None

    def pattern(self) -> re.Pattern[str] | None:
        """The report as a regular expression (None for a report that says
        nothing of the dice)."""
        parts: list[str] = []
        pos = 0
        has_result = False
        groups: set[str] = set()
        text = self.report_format.strip()
        for m in _VARIABLE.finditer(text):
            parts.append(re.escape(text[pos:m.start()]))
            pos = m.end()
            var = m.group(1)
            low = var.lower()
            if low == "name":
                parts.append(re.escape(self.name))
            elif low == "result" and "result" not in groups:
                groups.add("result")
                has_result = True
                parts.append(r"(?P<result>-?\d+(?:\s*,\s*-?\d+)*)" if self.faces is None else r"(?P<result>.*?)")
            elif re.fullmatch(r"result\d+", low) and low not in groups:
                groups.add(low)
                has_result = True
                parts.append(f"(?P<{low}>-?\\d+)" if self.faces is None else f"(?P<{low}>.*?)")
            elif low in ("playername", "playerid") and "player" not in groups:
                groups.add("player")
                parts.append(r"(?P<player>.*?)")
            elif low == "ndice":
                parts.append(re.escape(str(self.n_dice)))
            elif low == "nsides":
                parts.append(re.escape(str(self.n_sides)))
            else:
                parts.append(r".*?")
        parts.append(re.escape(text[pos:]))
        if not has_result:
            return None
        return re.compile(r"\s*" + "".join(parts) + r"\s*", re.DOTALL)


@dataclass(frozen=True)
class Roll:
    """One physical roll: where (log, chain step, step in the log), who,
    which button (or report label), how many dice of how many sides, the
    values (each die's face, the button's ``plus`` added), where it was read
    from, and whether an undo took it back."""

    log: str
    step: int
    file_step: int
    player: str | None
    button: str
    dice: int
    sides: int | None
    values: tuple[int, ...]
    source: str
    plus: int = 0
    undone: bool = False
    undone_by: int | None = None
    sides_inferred: bool = False
    #: the chain step of the undone roll this one logs again (same button,
    #: player and values after the undo): not a roll of its own
    repeat_of: int | None = None
    #: what the report shows when its dice are not numbers (symbol faces:
    #: ``ARTx2 INFx1``): the roll is counted, its faces not judged
    shown: str = ""

    @property
    def die(self) -> str:
        return f"d{self.sides}" if self.sides else "d?"

    @property
    def faces(self) -> list[int]:
        """The faces shown (``plus`` taken off), those a fair die can show."""
        if not self.sides:
            return []
        return [v - self.plus for v in self.values if 1 <= v - self.plus <= self.sides]

    def text(self) -> str:
        return f"{self.button} {','.join(str(v) for v in self.values) or self.shown}"

    def record(self) -> dict[str, Any]:
        return {"log": self.log, "step": self.step, "file_step": self.file_step, "player": self.player,
                "button": self.button, "dice": self.dice, "sides": self.sides, "values": list(self.values),
                "source": self.source, "undone": self.undone, "repeat_of": self.repeat_of, "shown": self.shown}


@dataclass
class DiceGroup:
    """The rolls of one player with one die type (or one button): face
    counts, mean and the two tests (None: too few rolls to judge)."""

    player: str | None
    sides: int
    button: str | None = None
    rolls: int = 0
    faces: list[int] = field(default_factory=list)
    sides_inferred: bool = False
    chi: ChiSquare | None = None
    runs: Runs | None = None

    @property
    def die(self) -> str:
        return f"d{self.sides}"

    @property
    def counted(self) -> bool:
        """Whether the faces are counted one by one (not for a die of more
        than :data:`MAX_COUNTED_FACES` sides)."""
        return self.sides <= MAX_COUNTED_FACES

    @property
    def counts(self) -> list[int]:
        """The count of each face, 1 to ``sides`` (empty when not :attr:`counted`)."""
        if not self.counted:
            return []
        c = Counter(self.faces)
        return [c.get(face, 0) for face in range(1, self.sides + 1)]

    @property
    def mean(self) -> float | None:
        return sum(self.faces) / len(self.faces) if self.faces else None

    @property
    def chi_judged(self) -> bool:
        return self.counted and len(self.faces) >= MIN_PER_FACE * self.sides

    @property
    def runs_judged(self) -> bool:
        return self.runs is not None and min(self.runs.above, self.runs.below) >= MIN_PER_SIDE_RUNS

    def compute(self) -> DiceGroup:
        if self.sides >= 2 and self.faces:
            self.chi = chi_square_fair(self.counts) if self.counted else None
            self.runs = runs_test(self.faces, self.sides)
        return self

    def unlikely(self) -> list[tuple[str, float]]:
        """The tests that judged the dice and found them unlikely."""
        out = []
        if self.chi is not None and self.chi_judged and self.chi.p < P_SUSPICIOUS:
            out.append(("faces", self.chi.p))
        if self.runs is not None and self.runs_judged and self.runs.p < P_SUSPICIOUS:
            out.append(("runs", self.runs.p))
        return out

    def record(self) -> dict[str, Any]:
        return {"player": self.player, "die": self.die, "sides": self.sides, "button": self.button,
                "sides_inferred": self.sides_inferred, "rolls": self.rolls, "dice": len(self.faces),
                "counts": {str(i): c for i, c in enumerate(self.counts, 1)} if self.counted else
                {str(face): c for face, c in sorted(Counter(self.faces).items())}, "mean": self.mean,
                "fair_mean": (self.sides + 1) / 2,
                "chi_square": dict(self.chi.record(), judged=self.chi_judged) if self.chi else None,
                "runs": dict(self.runs.record(), judged=self.runs_judged) if self.runs else None}

    def line(self) -> str:
        who = self.player or "unknown player"
        what = f"{who}, {self.die}" + (" (sides guessed)" if self.sides_inferred else "")
        if self.button is not None:
            what += f", {self.button}"
        mean = f"{self.mean:.2f}" if self.mean is not None else "-"
        counts = " ".join(str(c) for c in self.counts) if self.counted else \
            f"{len(set(self.faces))} distinct faces"
        text = f"{what}: {self.rolls} roll(s), {len(self.faces)} dice [{counts}], mean {mean} " \
               f"(fair {(self.sides + 1) / 2:.2f})"
        if not self.counted:
            text += f"; faces not judged (more than {MAX_COUNTED_FACES:,} sides)"
        elif not self.chi_judged:
            return text + "; too few rolls to judge"
        else:
            assert self.chi is not None
            text += f"; faces {in_words(self.chi.p)} (p = {self.chi.p:.3g})"
        if self.runs is not None and self.runs_judged:
            text += f"; runs {in_words(self.runs.p)} (p = {self.runs.p:.3g})"
        else:
            text += "; runs: too few rolls to judge"
        return text


# ---------------------------------------------------------------------------------- the module

def dice_buttons(module: Module | None) -> dict[str, ButtonDef]:
    """The module's DiceButtons and SpecialDiceButtons by name (toolbar and
    map toolbars)."""
    if module is None:
        return {}
    out: dict[str, ButtonDef] = {}
    for element in module.buildfile.root.iter(_P + "DiceButton", _P + "SpecialDiceButton"):
        name = element.get("name") or ""
        if not name or name in out:
            continue
        if element.tag == _P + "DiceButton":
            out[name] = ButtonDef(name, _number(element, "nDice", 2), _number(element, "nSides", 6),
                                  element.get("reportFormat", _DEFAULT_REPORT),
                                  plus=_number(element, "plus", 0),
                                  report_total=element.get("reportTotal", "false") == "true")
        else:
            faces = tuple(tuple(face.get("text", "") for face in die if face.tag == _P + "SpecialDieFace")
                          for die in element if die.tag == _P + "SpecialDie")
            sides = {len(f) for f in faces}
            out[name] = ButtonDef(name, len(faces), sides.pop() if len(sides) == 1 else 0,
                                  element.get("format", _DEFAULT_SPECIAL), faces=faces)
    return out


def _number(element: etree._Element, key: str, default: int) -> int:
    """An int attribute as Java's ``Integer.parseInt`` reads it; ``default``
    for one it refuses (VASSAL then drops the button: lint reports it)."""
    value = java_int(element.get(key) or str(default))
    return default if value is None else value


# ---------------------------------------------------------------------------------- the rolls

@dataclass
class _Seen:
    """A roll as one source saw it, before pairing."""

    button: str
    values: tuple[int, ...] | None
    player: str | None
    source: str
    shown: str = ""
    dice: int = 0


class _Reader:
    """Reads one line (a chat or dice report) as a roll: the module's
    buttons' reports, VASSAL's default report, the dice reports of pieces and
    components and the user's patterns."""

    def __init__(self, record: GameRecord) -> None:
        self.buttons = dice_buttons(record.module)
        self.patterns = [(b, p) for b in self.buttons.values() if (p := b.pattern()) is not None]
        self.roster = record.replay.roster
        #: dice reported by pieces and components, and the user's patterns
        self.reports = report_formats(record.module) + user_patterns(record.dice_patterns)

    def player(self, name: str | None, step: Step) -> str | None:
        if name:
            name = html.unescape(name).strip()
            if name in self.roster.players:             # a password: never shown
                return self.roster.who(name)[0]
            return name or step.player
        return step.player

    def from_piece_report(self, message: str) -> _Seen | None:
        """A chat line as one of the module's dice reports of pieces and
        components, or as a user's pattern."""
        for report in self.reports:
            texts = [message] if report.source == "pattern" else _report_texts(message)
            for text in texts:
                m = report.match(text)
                if m is not None:
                    return _Seen(m.label, m.values, m.player, report.source, shown=m.text, dice=m.dice)
        return None

    def from_report(self, message: str) -> _Seen | None:
        """A chat line as one of the module's reports, or as a report of the
        default shape."""
        for text in _report_texts(message):
            for button, pattern in self.patterns:
                m = pattern.fullmatch(text)
                if m is None:
                    continue
                values = self._values(button, m)
                if values is None:
                    continue
                return _Seen(button.name, values, m.groupdict().get("player"), "report")
        if message.startswith(("** ", "*** ")):
            m = _GENERIC.match(message)
            if m:
                label = m.group("label").strip()
                if label.startswith("(") and label.endswith(")"):
                    label = label[1:-1].strip()
                values = tuple(int(v) for v in m.group("values").split(","))
                return _Seen(label, values, m.group("player"), "chat")
        return None

    def _values(self, button: ButtonDef, m: re.Match[str]) -> tuple[int, ...] | None:
        found = m.groupdict()
        if button.faces is not None:
            return self._special_values(button, found)
        if button.report_total:
            return ()                                       # the total only: no dice to count
        if found.get("result"):
            return tuple(int(v) for v in found["result"].split(","))
        numbered = sorted((int(k[6:]), v) for k, v in found.items() if k.startswith("result") and k != "result"
                          and v is not None)
        return tuple(int(v) for _, v in numbered) if numbered else None

    @staticmethod
    def _special_values(button: ButtonDef, found: dict[str, str | None]) -> tuple[int, ...] | None:
        faces = button.faces or ()
        texts: list[str] = []
        if found.get("result"):
            texts = [t.strip() for t in (found["result"] or "").split(",")]
        else:
            texts = [v.strip() for _, v in sorted((int(k[6:]), v) for k, v in found.items()
                                                  if k.startswith("result") and k != "result" and v is not None)]
        out = []
        for i, t in enumerate(texts):
            die = faces[i] if i < len(faces) else ()
            if t not in die:
                return None
            out.append(die.index(t) + 1)
        return tuple(out) if out else None


class DiceSection(SectionVisitor):
    """The ``dice`` section.  A step's rolls are read from its dice events
    (a report line, or a SpecialDiceButton's results), its chat lines (a
    report) and its ``<button>_result`` and ``<button>_summary`` property
    changes; at the step's end a property and a report of one press are
    paired (one roll).  A step that is neither an undo nor undone and moves,
    adds, removes or changes a piece (a card drawn is a move) changes its
    log's board (:func:`_restarts`)."""

    def __init__(self, record: GameRecord) -> None:
        super().__init__(record)
        self.reader = _Reader(record)
        self.buttons = self.reader.buttons
        self.has_module = record.module is not None
        #: dice-like report lines no reader took: (step, the line)
        self.unread: list[tuple[Step, str]] = []
        self.not_rolls = move_reports(record.module)
        #: every roll read so far, in the order played (sides not yet guessed)
        self.read: list[Roll] = []
        #: the logs whose board a step changed
        self.changed: set[str] = set()
        self._last_player: dict[str | None, str] = {}
        self._step: Step | None = None
        self._reports: list[_Seen] = []
        self._props: list[_Seen] = []

    def begin_step(self, step: Step) -> None:
        self._step = step
        self._reports = []
        self._props = []

    # -------------------------------------------------------------- the reports
    def visit_dice(self, event: DiceEvent) -> None:
        button = self.buttons.get(event.button) if event.button else None
        if button is not None and button.faces is not None and event.results is not None:
            self._reports.append(_Seen(button.name, tuple(r + 1 for r in event.results), _name_in(event.message),
                                       "special"))
        elif event.message:
            seen = self.reader.from_report(event.message) or (self.reader.from_piece_report(event.message)
                                                              if self.reader.reports else None)
            self._report(seen, event.message)
        elif event.button and event.results is not None:
            self._reports.append(_Seen(event.button, tuple(r + 1 for r in event.results), None, "special"))

    def visit_chat(self, event: ChatEvent) -> None:
        reader = self.reader
        seen = reader.from_report(event.message) if reader.patterns and event.message.startswith("*") else None
        if seen is None and reader.reports:
            seen = reader.from_piece_report(event.message)
        self._report(seen, event.message)

    def _report(self, seen: _Seen | None, message: str) -> None:
        if seen is not None:
            self._reports.append(seen)
        elif self._step is not None and is_dice_like(message, self.not_rolls):
            self.unread.append((self._step, message))

    # ----------------------------------------------------------- the properties
    def visit_property(self, event: PropertyEvent) -> None:
        if event.name.endswith("_result"):
            self._result_property(event.name[:-len("_result")], event.new)
        elif event.name.endswith("_summary"):
            self._summary_property(event.name[:-len("_summary")], event.new)

    def _result_property(self, button: str, value: str) -> None:
        known = self.buttons.get(button)
        if known is not None and known.faces is None and not known.report_total and _INT_LIST.match(value):
            self._props.append(_Seen(button, tuple(int(v) for v in value.split(",")), None, "property"))
        elif known is not None and known.faces is not None:
            self._props.append(_Seen(button, None, None, "property"))
        elif known is None and not self.has_module and _INT_LIST.match(value):
            self._props.append(_Seen(button, tuple(int(v) for v in value.split(",")), None, "property"))

    def _summary_property(self, button: str, value: str) -> None:
        """A button that reports its total only: the dice are in the
        summary (3.7.16+, ``5 x1, 6 x1``), in ascending order."""
        known = self.buttons.get(button)
        pairs = _SUMMARY.findall(value)
        if known is not None and known.report_total and pairs and _summary_dice(pairs) <= _MAX_SUMMARY_DICE:
            summed = tuple(int(v) for v, n in pairs for _ in range(int(n)))
            self._props.append(_Seen(known.name, summed, None, "property"))

    # ----------------------------------------------------------- the board changed
    def visit_move(self, event: MoveEvent) -> None:
        self._board_changed()

    def visit_add(self, event: AddEvent) -> None:
        self._board_changed()

    def visit_remove(self, event: RemoveEvent) -> None:
        self._board_changed()

    def visit_change(self, event: ChangeEvent) -> None:
        self._board_changed()

    def _board_changed(self) -> None:
        step = self._step
        if step is not None and step.undone_by is None and not step.undo:
            self.changed.add(step.file or "")

    # ------------------------------------------------------------- the step's rolls
    def end_step(self, step: Step) -> None:
        seen_rolls = _paired(self._props, self._reports)
        if step.player:
            self._last_player[step.file] = step.player
        self.read.extend(self._roll(s, step) for s in seen_rolls)

    def _roll(self, s: _Seen, step: Step) -> Roll:
        values = s.values or ()
        bdef = self.buttons.get(s.button)
        sides: int | None = bdef.n_sides if bdef is not None and bdef.n_sides > 0 else None
        if sides is None:
            nds = _NDS.match(s.button)
            if nds:
                sides = int(nds.group(2))
        player = self.reader.player(s.player, step)
        if player is None and s.source in ("piece report", "component report", "pattern"):
            # a piece's report in a step of its own: the key command's mover
            player = self._last_player.get(step.file)
        dice_count = len(values) if values else (bdef.n_dice if bdef else s.dice or dice_faces(s.shown))
        return Roll(step.file or "", step.number, step.file_step, player, s.button, dice_count, sides, values,
                    s.source, plus=bdef.plus if bdef is not None else 0,
                    undone=step.undone_by is not None, undone_by=step.undone_by, shown=s.shown)

    def rolls(self) -> list[Roll]:
        """:func:`read_rolls` of the steps walked so far."""
        rolls = self.read
        highest = max((max(r.values) for r in rolls if r.sides is None and r.values), default=0)
        guess = next((d for d in _STANDARD_DICE if d >= highest), None)
        out = []
        for r in rolls:
            if r.sides is None and r.values:
                if guess is not None:
                    r = replace(r, sides=guess, sides_inferred=True)
            out.append(r)
        _link_undone(out)
        return out

    def result(self) -> Section:
        return _section(self.record, self.rolls(), self.unread, self.changed)


def _paired(props: list[_Seen], reports: list[_Seen]) -> list[_Seen]:
    """A step's rolls: each property change paired with the report of the
    same press (same button, else same values) and counted once, with the
    property's values and the report's roller; then the reports left."""
    reports = list(reports)
    seen_rolls: list[_Seen] = []
    for prop in props:
        match = next((r for r in reports if r.button == prop.button), None)
        if match is None and prop.values is not None:
            match = next((r for r in reports if r.values == prop.values), None)
        if match is not None:
            reports.remove(match)
            values = prop.values if prop.values is not None else match.values
            seen_rolls.append(_Seen(prop.button, values, match.player, match.source))
        elif prop.values is not None:
            seen_rolls.append(prop)
    seen_rolls.extend(reports)
    return seen_rolls


def _report_texts(message: str) -> list[str]:
    """A chat line without the prefix VASSAL adds to a report (``*`` before
    a report that starts with ``*``, else ``* ``)."""
    out = []
    if message.startswith("* "):
        out.append(message[2:])
    if message.startswith("*"):
        out.append(message[1:])
    return out


def _name_in(message: str) -> str | None:
    m = re.search(r"(?:&lt;|<)([^<>]+?)(?:&gt;|>)\s*$", message or "")
    return m.group(1) if m else None


def read_rolls(record: GameRecord, *, logs: Collection[str | None] | None = None) -> list[Roll]:
    """Every roll the logs show, in the order played: each physical roll
    once, a roll logged again after an undo marked ``repeat_of``; a die
    whose sides neither its button nor its label says gets the smallest
    standard die that shows every value such dice rolled in the game (VASL's ``IFT DR``/``RS dr``: d6).
    ``logs``: only the rolls of these logs (the steps' ``file``), each as
    in the whole game (a roll is linked to its repeat within its log), but
    the sides guessed from their rolls only."""
    return _read(record, logs)[0]


def _read(record: GameRecord, logs: Collection[str | None] | None = None,
          ) -> tuple[list[Roll], list[tuple[Step, str]]]:
    """:func:`read_rolls`, and the dice-like report lines no reader took."""
    reader = DiceSection(record)
    for step in record.steps:
        if logs is None or step.file in logs:
            walk_step(reader, step)
    return reader.rolls(), reader.unread


def dice_groups(rolls: Iterable[Roll], *, by_button: bool = False) -> list[DiceGroup]:
    """The rolls per player and die type (and per button with ``by_button``),
    in order of first roll, statistics computed."""
    groups: dict[tuple[str | None, int, str | None], DiceGroup] = {}
    for r in rolls:
        if not r.sides or not r.faces or r.repeat_of is not None:
            continue
        key = (r.player, r.sides, r.button if by_button else None)
        g = groups.get(key)
        if g is None:
            g = groups[key] = DiceGroup(r.player, r.sides, r.button if by_button else None)
        g.rolls += 1
        g.faces.extend(r.faces)
        g.sides_inferred = g.sides_inferred or r.sides_inferred
    return [g.compute() for g in groups.values()]


def csv_text(rolls: Sequence[Roll]) -> str:
    """One row per roll: log, step (in the log), chain step, player, button,
    dice, sides, values, source, undone; a roll only logged again after an
    undo (``repeat_of``) is no row of its own."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["log", "step", "chain_step", "player", "button", "dice", "sides", "values", "source", "undone"])
    for r in rolls:
        if r.repeat_of is not None:
            continue
        w.writerow([Path(r.log).name, r.file_step, r.step, r.player or "", r.button, r.dice, r.sides or "",
                    " ".join(str(v) for v in r.values), r.source, "yes" if r.undone else ""])
    return buf.getvalue()


# ---------------------------------------------------------------------------------- repeated rolls

def _link_undone(rolls: list[Roll]) -> tuple[list[tuple[Roll, Roll]], list[Roll]]:
    """Each roll an undo took back, with the same button rolled next by the
    same player later in the same log (after the undo).  The same values
    again are the same roll logged again (VASSAL re-logs what a player steps
    through again after undoing): that roll is marked ``repeat_of`` and not
    counted twice.  Other values are a re-roll.  Returns the re-rolls (the
    undone roll, the new one) and the undone rolls never rolled again;
    ``rolls`` is updated in place."""
    rerolls: list[tuple[Roll, Roll]] = []
    lonely: list[Roll] = []
    used: set[int] = set()
    for i, r in enumerate(rolls):
        if not r.undone or r.undone_by is None or r.repeat_of is not None:
            continue
        for j in range(i + 1, len(rolls)):
            again = rolls[j]
            if again.log != r.log:
                lonely.append(r)
                break
            if j in used or again.step <= r.undone_by or again.button != r.button:
                continue
            if r.player and again.player and r.player != again.player:
                continue
            used.add(j)
            if again.values == r.values:
                rolls[j] = replace(again, repeat_of=r.step)
            else:
                rerolls.append((r, again))
            break
        else:
            lonely.append(r)
    return rerolls, lonely


def _reroll_finding(r: Roll, again: Roll) -> Finding:
    return Finding(
        "reroll", SUSPICIOUS,
        f"{again.button} rolled again after an undo: {_values(r)} at step {r.file_step} "
        f"(undone at #{r.undone_by}), then {_values(again)}",
        log=again.log, step=again.step, file_step=again.file_step, player=again.player,
        details={"first": r.record(), "again": again.record()})


def _values(r: Roll) -> str:
    return ",".join(str(v) for v in r.values) or "?"


def _restore_key(record: GameRecord, k: int) -> str:
    """A fingerprint of the saved state file ``k`` starts from (its restore
    commands, in any order, the roster left out)."""
    from vmodtool.vassal.commands import PlayerAdd, VersionCheck, leaf_commands
    texts = sorted(cmd.encode() for node in record.replay.games[k].restore_part()
                   for cmd in leaf_commands(node) if not isinstance(cmd, (PlayerAdd, VersionCheck)))
    return hashlib.sha256("\x00".join(texts).encode("utf-8", "surrogatepass")).hexdigest()


def _restarts(record: GameRecord, rolls: Sequence[Roll], changed: set[str]) -> list[Finding]:
    """A log that starts from the very saved state an earlier log started
    from, after that earlier log changed the board (``changed``: the logs
    whose board a step changed), and rolls dice that the earlier log had
    rolled too: the phase played again with new dice."""
    files = [f or "" for f in record.replay.files]
    if len(files) < 2:
        return []
    by_log: dict[str, list[Roll]] = defaultdict(list)
    for r in rolls:
        by_log[r.log].append(r)
    first_with_key: dict[str, int] = {}
    out = []
    for k, file in enumerate(files):
        try:
            key = _restore_key(record, k)
        except VmodError:           # a restore that cannot be read is the chain check's to report
            continue
        earlier = first_with_key.get(key)
        if earlier is None:
            first_with_key[key] = k
            continue
        before = files[earlier]
        if before not in changed or not by_log.get(file) or not by_log.get(before):
            continue
        again = by_log[file][0]
        first = next((r for r in by_log[before] if r.button == again.button), None)
        if first is None:
            continue
        out.append(Finding(
            "restart_reroll", SUSPICIOUS,
            f"starts from the same saved state as {Path(before).name}, which went on to change the board, "
            f"and rolls {again.button} again: {_values(first)} in {Path(before).name} step {first.file_step}, "
            f"now {_values(again)}",
            log=file, step=again.step, file_step=again.file_step, player=again.player,
            details={"restarts": before, "first": first.record(), "again": again.record(),
                     "rolls_before": len(by_log[before]), "rolls_again": len(by_log[file])}))
    return out


# ---------------------------------------------------------------------------------- the section

def section(record: GameRecord) -> Section:
    """The ``dice`` section of one game."""
    return run_section(DiceSection(record))


def _section(record: GameRecord, logged: list[Roll], unread: list[tuple[Step, str]],
             changed: set[str]) -> Section:
    rolls = [r for r in logged if r.repeat_of is None]
    pairs, lonely = _link_undone(list(logged))
    sec = Section("dice", "Dice")
    groups = dice_groups(rolls)
    buttons = dice_groups(rolls, by_button=True)
    sec.summary.extend(_roll_lines(record, rolls, groups, unread))
    if unread:
        sec.checked = False
        first_step, first_line = unread[0]
        sec.summary.append(
            f"NOT CHECKED: {len(unread)} dice-like report line(s) that no reader took, first "
            f"{Path(first_step.file or '').name} step {first_step.file_step}: «{html.unescape(first_line)[:120]}» "
            "(give the module, or --dice-pattern REGEX)")
    for g in groups:
        sec.findings.extend(_unlikely_finding(g, test, p) for test, p in g.unlikely())
    rerolls = [_reroll_finding(r, again) for r, again in pairs]
    restarts = _restarts(record, rolls, changed)
    sec.findings.extend(rerolls)
    sec.findings.extend(restarts)
    sec.findings.extend(Finding("roll_undone", NOTE,
                                f"{r.button} {_values(r)} undone (at #{r.undone_by}) and not rolled again "
                                "in this log", log=r.log, step=r.step, file_step=r.file_step,
                                player=r.player, details={"roll": r.record()}) for r in lonely)
    undone = [r for r in rolls if r.undone]
    relogged = len(logged) - len(rolls)
    if undone:
        sec.summary.append(f"{len(undone)} roll(s) undone: {len(rerolls)} rolled again with other values, "
                           f"{relogged} logged again unchanged (counted once), {len(lonely)} not rolled again")
    if restarts:
        sec.summary.append(f"{len(restarts)} log(s) restart from a saved state already played and roll again")
    without_player = sum(1 for r in rolls if not r.player)
    if without_player:
        sec.findings.append(Finding("dice_unattributed", NOTE,
                                    f"{without_player} roll(s) name no player (counted as an unknown player)"))
    sources = Counter(r.source for r in rolls)
    sec.data = {"rolls": len(rolls), "sources": dict(sources),
                "thresholds": {"p_suspicious": P_SUSPICIOUS, "min_dice_per_face": MIN_PER_FACE,
                               "min_dice_each_side_runs": MIN_PER_SIDE_RUNS},
                "groups": [g.record() for g in groups], "buttons": [g.record() for g in buttons],
                "undone": len(undone), "rerolls": len(rerolls), "logged_again": relogged,
                "restart_rerolls": len(restarts), "unread_reports": len(unread),
                "unread_examples": [{"log": st.file, "log_step": st.file_step, "step": st.number, "line": line}
                                    for st, line in unread[:20]]}
    return sec


def _roll_lines(record: GameRecord, rolls: list[Roll], groups: list[DiceGroup],
                unread: list[tuple[Step, str]]) -> list[str]:
    """The summary's lines of the rolls read: how many, by whom, from
    where, and each group's statistics."""
    if not rolls and not unread:
        return ["no dice rolled" + ("" if record.module is not None else " (read from the chat only: no module given)")]
    if not rolls:
        return ["no roll read"]
    sources = Counter(r.source for r in rolls)
    players = {r.player for r in rolls}
    dice_count = sum(len(r.values) or (r.dice if r.shown else 0) for r in rolls)
    src = ", ".join(f"{n} {_SOURCE_WORDS.get(s, s)}" for s, n in sources.most_common())
    lines = [f"{len(rolls)} roll(s), {dice_count} dice, by {len(players)} player(s) ({src})"]
    lines.extend(g.line() for g in groups)
    shown: Counter[tuple[str | None, str]] = Counter((r.player, r.button) for r in rolls
                                                     if not r.faces and r.repeat_of is None)
    for (who, label), n in shown.items():
        lines.append(f"{who or 'unknown player'}, {label}: {n} roll(s) whose faces are not numbers "
                     "(counted, faces not judged)")
    return lines


def _unlikely_finding(g: DiceGroup, test: str, p: float) -> Finding:
    what = "the faces' counts" if test == "faces" else "the runs above and below the median"
    return Finding(
        "dice_unlikely", SUSPICIOUS,
        f"{g.die} rolled by {g.player or 'an unknown player'}: {what} are {in_words(p)} "
        f"(p = {p:.3g}) for a fair die over {len(g.faces)} dice",
        player=g.player, details=g.record())


_SOURCE_WORDS = {"report": "button reports", "chat": "chat dice reports", "property": "property changes",
                 "special": "special dice", "piece report": "piece reports", "component report": "component reports",
                 "pattern": "--dice-pattern lines"}
