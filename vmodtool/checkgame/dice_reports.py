"""Dice rolled without a DiceButton, for the dice check of ``vmodtool
check-game`` (``docs/guide/check-game.md``, "Dice sources").

Many published modules roll through a game piece (a dice tray whose key
command sets its properties or random layers and reports to the chat:
``* Joel rolls 5 dice: ARTx2 INFx1 XSWx2``), a Global Key Command or an
action button.  Their chat lines are learned from the module's own
components:

* the ``report;`` (ReportState) traits of every piece and prototype: their
  report format and their cycled formats;
* the ``reportFormat`` of every other component that has one (Global Key
  Commands of maps and the module, action buttons …), DiceButtons aside
  (:mod:`vmodtool.checkgame.dice` reads those);

each kept when its text or its variables speak of dice (:data:`DICE_WORDS`),
or, for a piece's report, when the piece's (or prototype's) name does.
A format becomes a pattern: its text literally, ``$PlayerName$`` /
``$PlayerSide$`` the roller, every other ``$variable$`` a value (numbers are
dice faces; other text, such as symbol faces, counts the roll without faces,
a number beside such text being the count of dice).
The user adds patterns (``--dice-pattern REGEX``, groups ``player`` and
``values`` optional).

A report line (VASSAL prefixes a report with ``*``) that speaks of dice and
that no reader took is *unread*: the dice check is then NOT CHECKED with
their count, never "no dice rolled".
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from vmodtool.errors import VmodError

if TYPE_CHECKING:
    from vmodtool.vassal.module import Module

__all__ = ["ReportFormat", "DiceMatch", "report_formats", "user_patterns", "DICE_WORDS", "is_dice_like",
           "dice_faces", "move_reports", "speaks_of_dice"]

#: words of a chat line or a report format that speak of dice (English,
#: French, German, Spanish, Italian, Russian), or a die's name (``2d6``)
DICE_WORDS = re.compile(
    r"(?<![^\W\d_])(?:dice|die|roll(?:s|ed|ing)?|re-?roll\w*|\d*d(?:4|6|8|10|12|20|100)|dés?|dado\w*|würfel\w*|"
    r"wurf|кост\w*|кубик\w*|брос\w*)(?![^\W\d_])", re.IGNORECASE)
#: variables of a report that say who did it
_PLAYER_VARS = {"playername", "playerid"}
_SIDE_VARS = {"playerside"}
#: variables whose value is never a roll (where, which piece, which command)
_NOT_VALUES = {"location", "oldlocation", "newlocation", "mapname", "oldmapname", "newmapname",
               "menucommand", "oldpiecename", "newpiecename", "piecename", "basicname", "deckname",
               "zonename", "oldzone", "newzone", "boardname", "currentzone", "currentmap", "currentboard",
               "selected", "count", "description", "commandname", "name"}
_VARIABLE = re.compile(r"\$([^$\s]+)\$")
_INT = re.compile(r"-?\d+")
_MAX_FORMAT = 2000


@dataclass(frozen=True)
class DiceMatch:
    """A chat line read as a roll: the report's ``label`` (the component's
    name or the pattern), the roller as the line names them (None: the
    step's mover), the dice faces it shows (numbers) and its text values
    (``ARTx2 INFx1``) when they are not numbers."""

    label: str
    player: str | None
    values: tuple[int, ...]
    text: str
    #: how many dice were rolled
    dice: int = 0


@dataclass(frozen=True)
class ReportFormat:
    """A chat report of the module (or a user's pattern) that reports dice:
    where it comes from (``source``: ``piece report``, ``component report``,
    ``pattern``), a label (the piece, prototype or component name) and its
    regular expression."""

    source: str
    label: str
    regex: re.Pattern[str]
    #: the names of the groups that hold values (faces or their text)
    value_groups: tuple[str, ...]
    #: the format's own text (what the pattern matches literally): the
    #: more, the more specific (tried first)
    literal: int = 0
    #: taken only for its piece's name: its values must look like dice
    #: (numbers, ``FACExN`` counts), not any text
    strict: bool = False

    def match(self, text: str) -> DiceMatch | None:
        m = self.regex.fullmatch(text) if self.source != "pattern" else self.regex.search(text)
        if m is None:
            return None
        found = m.groupdict()
        player = found.get("player") or None
        values: list[int] = []
        texts: list[str] = []
        for name in self.value_groups:
            value = (found.get(name) or "").strip()
            if not value:
                continue
            if re.fullmatch(r"-?\d+(?:\s*[,;/ ]\s*-?\d+)*", value):
                values.extend(int(v) for v in _INT.findall(value))
            else:
                texts.append(value)
        if not values and not texts and self.value_groups:
            return None
        if texts and self.strict and not all(_SYMBOLS.fullmatch(t) for t in texts):
            return None
        if texts:
            # faces that are not numbers: the numbers beside them count the
            # dice (``rolls 5 dice: ARTx2 …``), they are no faces
            shown = " ".join(texts)
            return DiceMatch(self.label, player, (), shown, values[0] if len(values) == 1 else dice_faces(shown))
        return DiceMatch(self.label, player, tuple(values), "", len(values))

    @classmethod
    def of_format(cls, source: str, label: str, fmt: str, *, of_dice: bool = False) -> ReportFormat | None:
        """A report format as a pattern, when it reports dice: its text or a
        variable speaks of dice (or it is a report of a piece whose name
        does: ``of_dice``), and it has a value to read."""
        text = fmt.strip()
        if not text or len(text) > _MAX_FORMAT or not (of_dice or speaks_of_dice(text)):
            return None
        parts: list[str] = []
        values: list[str] = []
        pos = 0
        has_player = False
        for m in _VARIABLE.finditer(text):
            parts.append(_literal(text[pos:m.start()]))
            pos = m.end()
            low = m.group(1).lower()
            if low in _PLAYER_VARS and not has_player:
                has_player = True
                parts.append(r"(?P<player>.*?)")
            elif low in _NOT_VALUES or low in _SIDE_VARS or low in _PLAYER_VARS:
                parts.append(r".*?")
            else:
                group = f"v{len(values)}"
                values.append(group)
                parts.append(f"(?P<{group}>.*?)")
        parts.append(_literal(text[pos:]))
        if not values:
            return None
        body = "".join(parts)
        literal = len(_VARIABLE.sub("", text).strip())
        return cls(source, label, re.compile(r"\s*" + body + r"\s*", re.DOTALL), tuple(values), literal,
                   strict=not speaks_of_dice(text))


def _literal(text: str) -> str:
    """A format's literal text as a pattern: HTML entities as logged, any
    run of spaces as any run."""
    out = []
    for chunk in re.split(r"(\s+)", text):
        out.append(r"\s+" if chunk.isspace() else re.escape(chunk))
    return "".join(out)


def _trait_formats(definition: str, label: str) -> Iterable[tuple[str, str]]:
    """The report formats of one piece or prototype definition's
    ``report;`` traits (and their cycled formats)."""
    from vmodtool.vassal.pieces import PieceDef
    from vmodtool.vassal.traits import ReportState
    if "report;" not in definition:
        return
    try:
        piece = PieceDef.parse(definition)
        views = piece.views()
    except (VmodError, ValueError, IndexError):
        return
    for view in views:
        if isinstance(view, ReportState):
            fields = view.fields()
            fmt = fields.get("report_format")
            if isinstance(fmt, str) and fmt:
                yield label, fmt
            cycled = fields.get("cycle_formats")
            if isinstance(cycled, (list, tuple)):
                yield from ((label, f) for f in cycled if isinstance(f, str) and f)


def report_formats(module: Module | None) -> list[ReportFormat]:
    """The module's reports that report dice (the module docstring),
    each format once."""
    if module is None:
        return []
    bf = module.buildfile
    seen: set[str] = set()
    out: list[ReportFormat] = []

    def add(source: str, label: str, fmt: str) -> None:
        if fmt in seen:
            return
        seen.add(fmt)
        # a dice piece's report need not say "dice" ("$PlayerName$: $Result$")
        report = ReportFormat.of_format(source, label, fmt, of_dice=source == "piece report" and
                                        speaks_of_dice(label))
        if report is not None:
            out.append(report)

    for slot in bf.piece_slots():
        for label, fmt in _trait_formats(slot.definition, slot.entry_name or "a piece"):
            add("piece report", label, fmt)
    for name, definition in bf.prototypes().items():
        for label, fmt in _trait_formats(definition, f"prototype {name}"):
            add("piece report", label, fmt)
    for element in bf.root.iter():
        if not isinstance(element.tag, str) or element.tag.endswith(("DiceButton", "SpecialDiceButton")):
            continue
        component_format = element.get("reportFormat")
        if component_format:
            add("component report", element.get("name") or element.tag.rsplit(".", 1)[-1], component_format)
    # the most specific first: "All units roll: $result$" before "$PlayerName$: $Wurf$"
    out.sort(key=lambda r: -r.literal)
    return out


def user_patterns(patterns: Sequence[str]) -> list[ReportFormat]:
    """``--dice-pattern`` regular expressions (searched in each chat line;
    groups ``player`` and ``values`` optional): ``VmodError`` for one that
    does not compile."""
    out = []
    for text in patterns:
        try:
            regex = re.compile(text)
        except re.error as exc:
            raise VmodError(f"--dice-pattern {text!r} is not a regular expression: {exc}") from None
        groups = tuple(g for g in regex.groupindex if g not in ("player",))
        out.append(ReportFormat("pattern", text, regex, groups))
    return out


_TAG = re.compile(r"<[^<>]*>")


def speaks_of_dice(text: str) -> bool:
    """Whether a text's words (HTML tags aside: ``<img src="d6-1.png">``
    is a picture, no word) speak of dice."""
    return bool(DICE_WORDS.search(_TAG.sub(" ", html.unescape(text))))


def is_dice_like(message: str, not_rolls: Sequence[re.Pattern[str]] = ()) -> bool:
    """Whether a chat line is a report (VASSAL's ``*`` prefix) that speaks
    of dice: a roll some reader should have taken.  Not an older VASSAL's
    ``* UNDO:`` echo (the undo check reads those), nor a line of one of
    ``not_rolls`` (:func:`move_reports`: a piece named "Dice" moved)."""
    if not message.startswith("*") or message.startswith("* UNDO:") or not speaks_of_dice(message):
        return False
    return not any(p.fullmatch(text) for p in not_rolls for text in (message[2:], message[1:]))


#: VASSAL's map reports of a move and a creation (``Map`` defaults)
_MAP_REPORTS = {"moveWithinFormat": "$pieceName$ moves $previousLocation$ -> $location$ *",
                "moveToFormat": "$pieceName$ moves $previousLocation$ -> $location$ *",
                "createFormat": "$pieceName$ created in $location$ *",
                "changeFormat": "$message$"}


def move_reports(module: Module | None) -> list[re.Pattern[str]]:
    """The module's map reports of moves and creations (VASSAL's defaults
    without a module) as patterns: lines that name a piece, not a roll."""
    formats: set[str] = set()
    maps = [] if module is None else [e for e in module.buildfile.root.iter()
                                       if isinstance(e.tag, str) and e.tag.endswith(("Map", "PrivateMap",
                                                                                     "PlayerHand"))]
    for key, default in _MAP_REPORTS.items():
        if key == "changeFormat":
            continue
        formats.add(default)
        formats.update(fmt for e in maps if (fmt := e.get(key)))
    out = []
    for fmt in sorted(formats):
        if len(fmt) > _MAX_FORMAT or not _VARIABLE.search(fmt):
            continue
        parts, pos = [], 0
        for m in _VARIABLE.finditer(fmt):
            parts.append(_literal(fmt[pos:m.start()]))
            parts.append(r".*?")
            pos = m.end()
        parts.append(_literal(fmt[pos:]))
        out.append(re.compile(r"\s*" + "".join(parts) + r"\s*", re.DOTALL))
    return out


#: symbol faces with their counts, the text of a roll of symbol dice
_SYMBOLS = re.compile(r"(?:\S+?\s*[x×]\s*\d+\b[\s,;]*)+")
#: a symbol face with its count (``ARTx2``)
_SYMBOL_COUNT = re.compile(r"(\S+?)\s*[x×]\s*(\d+)\b")


def dice_faces(text: str) -> int:
    """How many dice a text value shows: the counts of ``FACExN`` items,
    else its words."""
    pairs = _SYMBOL_COUNT.findall(text)
    if pairs:
        return sum(min(int(n), 1000) for _, n in pairs)
    return len(text.split())
