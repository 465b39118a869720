"""Moves out of turn and moves of hidden pieces (check ``actions``,
``docs/check-game.md`` "Actions").

**Off-turn moves.**  Who is phasing comes from the module's turn tracker:
the ``TURN`` states of the logs (each log's saved state, then the steps'
``TURN`` commands) and the tracker's chat reports (its ``reportFormat`` and
``turnFormat`` read back into a pattern).  No scenario says which level is
the side: a list level whose values are the players' sides (the roster's,
as VASSAL names them) is.  Without a module, or when no level lists the
sides, or when the tracker never shows one, off-turn moves are NOT CHECKED
(the section says why) — never an all-clear.  A move by a player whose side
is not the phasing one is a note (retreats, losses and reactions happen in
the other side's turn in most games); it is SUSPICIOUS when the piece
belongs to the phasing side, i.e. the phasing side's own players moved it
in one of their turns before.  Undo steps are not moves of their own;
an off-turn move that was undone stays a note.

**Hidden moves.**  A move of a piece that was invisible (``hide;``) or
masked (``obs;``) for the other players when it moved is reported as "a
masked piece of <player (side)> moved A → B": never its name, its unit, or
what it turned into.  A note when its owner (the player or side who hid it)
moved it or the mover is unknown; SUSPICIOUS when another player, or a
player of another side, moved it.

:func:`concealment` and :func:`piece_label` are the check-game way of naming
a piece without revealing what the opponent could not see; the other checks
use them too.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vmodtool.checkgame.model import NOTE, SUSPICIOUS, Finding, GameRecord, Section
from vmodtool.checkgame.visitor import SectionVisitor, run_section
from vmodtool.errors import FormatError
from vmodtool.replay.events import (
    CardDrawEvent,
    CardPlayEvent,
    CardReturnEvent,
    ChatEvent,
    DiceEvent,
    MoveEvent,
    PieceRef,
    Place,
    PropertyEvent,
    TurnEvent,
    chat_display,
)
from vmodtool.vassal.commands import LogEntry, TurnState, leaf_commands
from vmodtool.vassal.turntracker import TurnLevelDef, TurnTrackerDef, turn_trackers

if TYPE_CHECKING:
    from vmodtool.replay.engine import Roster
    from vmodtool.replay.game import Step
    from vmodtool.vassal.buildfile import BuildFile

__all__ = ["section", "ActionsSection", "Concealment", "concealment", "piece_label", "move_text", "PhasingSides"]

#: moves listed in one finding's message (the rest are counted)
_SHOWN = 3
#: chat lines longer than this are not matched against a tracker report
_MAX_REPORT = 500


# ------------------------------------------------------------------ naming
@dataclass(frozen=True)
class Concealment:
    """How a piece was concealed when it moved: ``how`` ``hidden``
    (Invisible) or ``masked`` (Mask); ``by`` the display name of the player
    who concealed it (never the VASSAL password), ``side`` that player's
    side or the side that concealed it (side access); both None when the
    log does not say whose it is."""

    how: str
    by: str | None
    side: str | None

    def owner(self) -> str | None:
        if self.by and self.side:
            return f"{self.by} ({self.side})"
        return self.by or self.side

    def label(self) -> str:
        owner = self.owner()
        return f"a {self.how} piece of {owner}" if owner else f"a {self.how} piece"

    def differs_from(self, player: str | None, side: str | None) -> bool | None:
        """Whether a mover is someone else than the owner (None: unknown)."""
        if self.by is not None and player is not None:
            return self.by != player
        if self.by is None and self.side is not None and side is not None:
            return self.side != side
        return None


def concealment(ref: PieceRef, roster: Roster) -> Concealment | None:
    """The piece's concealment at the moment of the event, or None when it
    was visible (invisible beats masked when it is both)."""
    text = ref.type_text
    if "hide;" not in text and "obs;" not in text:
        return None
    try:
        definition = ref.definition()
    except FormatError:
        return None
    found: Concealment | None = None
    for trait in definition.traits:
        if trait.prefix not in ("hide;", "obs;"):
            continue
        try:
            view: Any = trait.view()
            token = view.hidden_by if trait.prefix == "hide;" else view.obscured_by
        except (FormatError, IndexError, ValueError):
            continue
        if not token:
            continue
        how = "hidden" if trait.prefix == "hide;" else "masked"
        if found is None or (how == "hidden" and found.how == "masked"):
            found = Concealment(how, *_owner(str(token), roster))
    return found


def _owner(token: str, roster: Roster) -> tuple[str | None, str | None]:
    """(player name, side) of a concealment state: a player id (``player:``
    access) or a side name (side access).  An id the roster does not know
    stays unnamed: it is a password."""
    found = roster.players.get(token)
    if found is not None:
        return found
    if any(side == token for _, side in roster.players.values()):
        return None, token
    return None, None


def piece_label(ref: PieceRef, roster: Roster) -> str:
    """The piece's name (and unit), or only its concealment when it was
    hidden or masked."""
    hidden = concealment(ref, roster)
    return hidden.label() if hidden is not None else ref.label()


def move_text(source: Place, target: Place) -> str:
    """``A → B`` in the module's location names, maps named when they differ."""
    if source.map != target.map and target.map is not None and source.map is not None:
        return f"{source.map}: {source.label()} → {target.map}: {target.label()}"
    return f"{source.label()} → {target.label()}"


def _displaced(move: MoveEvent) -> bool:
    s, t = move.source, move.target
    if s.map != t.map:
        return True
    if (s.x, s.y) == (t.x, t.y):
        return False
    return s.location is None or s.location != t.location


# -------------------------------------------------------- the phasing side
def _levels(levels: Iterable[TurnLevelDef]) -> Iterator[TurnLevelDef]:
    for level in levels:
        yield level
        yield from _levels(level.children)


def _tracker_elements(buildfile: BuildFile) -> dict[str, Any]:
    """The tracker elements by the id ``TURN`` commands name (numbered as
    :func:`~vmodtool.vassal.turntracker.turn_trackers` numbers them)."""
    counts: dict[str, int] = {}
    out: dict[str, Any] = {}
    for element in buildfile.root.iter():
        if not isinstance(element.tag, str):
            continue
        short = element.tag.rsplit(".", 1)[-1]
        if short.endswith("TurnTracker"):
            n = counts.get(short, 0)
            counts[short] = n + 1
            out[f"{short}{n}"] = element
    return out


_VARIABLE = re.compile(r"\$([^$\s]*)\$")
_LEVEL_VARIABLE = re.compile(r"level(\d+)")


def _format_pattern(text: str, variable: Any) -> str:
    out: list[str] = []
    pos = 0
    for m in _VARIABLE.finditer(text):
        out.append(re.escape(text[pos:m.start()]))
        out.append(variable(m.group(1)))
        pos = m.end()
    out.append(re.escape(text[pos:]))
    return "".join(out)


def _report_pattern(report_format: str, turn_format: str) -> tuple[str, re.Pattern[str]] | None:
    """The tracker's chat report read back: VASSAL writes ``* `` and the
    report format with ``$newTurn$`` the turn format, whose ``$levelN$`` are
    the active levels' values (each captured).  Returns the literal text
    the report starts with and the pattern; None when the report shows no
    level."""
    used: set[str] = set()

    def level(name: str) -> str:
        m = _LEVEL_VARIABLE.fullmatch(name)
        if m and name not in used:
            used.add(name)
            return f"(?P<{name}>.*?)"
        return ".*?"

    turn = _format_pattern(turn_format or "$level1$", level)
    seen = False

    def report(name: str) -> str:
        nonlocal seen
        if name == "newTurn" and not seen:
            seen = True
            return turn
        return ".*?"

    body = _format_pattern(report_format, report)
    if not used:
        return None
    head = report_format.split("$", 1)[0]
    return head, re.compile(rf"^\* ?{body}\s*$")


@dataclass
class _Tracker:
    """A turn tracker of the module with a level that lists the players' sides:
    its definition, the names of those levels and its chat report read back
    (:func:`_report_pattern`; None when the report shows no level)."""

    definition: TurnTrackerDef
    side_levels: frozenset[str]
    report: tuple[str, re.Pattern[str]] | None


#: words of a chat line that announce a turn or a phase (English, French,
#: German, Spanish, Italian, Russian)
_TURN_WORDS = re.compile(r"(?<!\w)(?:turn|phase|impulse|segment|tour|zug|runde|turno|fase|ход\w*|фаз\w*)(?!\w)",
                         re.IGNORECASE)
#: the longest chat line read as a turn announcement
_MAX_ANNOUNCEMENT = 200


def _side_stems(sides: Iterable[str]) -> dict[str, str]:
    """Each side's name as a chat line names it: a one-word side by its
    stem (``Allies`` -> ``allie``: "Allied", "Allies"; ``Germans`` ->
    ``german``: "German", "Germany"), a longer one by its whole name."""
    out = {}
    for side in sides:
        low = side.lower()
        if " " not in low and len(low) >= 5:
            stem = low[:-3] + "ie" if low.endswith("ies") else low[:-1] if low.endswith("s") else low
            out[side] = stem
        else:
            out[side] = low
    return out


class PhasingSides:
    """Who is phasing, step by step: from a module's turn trackers when a
    tracker level lists the players' sides; else from the logs themselves —
    a chat line that announces a turn or phase of exactly one side
    (``Beginning the Allied Movement Phase``, ``* Turn 3: French player``)
    (a report of the module, never a player's own chat line) and a global
    property set to a side's name.  :meth:`of` returns the
    reason when the logs name fewer than two sides."""

    def __init__(self, trackers: list[_Tracker], sides: frozenset[str], no_tracker: str | None = None) -> None:
        self.trackers = {t.definition.id: t for t in trackers}
        #: the players' sides a side level lists: the sides that take turns
        self.sides = frozenset(v for t in trackers for level in _levels(t.definition.levels)
                               if level.name in t.side_levels for v in level.values) & sides if trackers else sides
        self.current: str | None = None
        #: why no tracker says it (None: one does); the chat and the
        #: global properties say it then
        self.no_tracker = no_tracker
        self._stems = _side_stems(self.sides)
        #: how often each source set the side
        self.announced = 0
        self.by_property = 0

    @classmethod
    def of(cls, record: GameRecord, sides: frozenset[str]) -> PhasingSides | str:
        module = record.module
        if len(sides) < 2:
            return (f"the logs name {'one side' if sides else 'no side'}"
                    f"{': ' + next(iter(sides)) if sides else ''}: no side can be out of turn")
        if module is None:
            return cls([], sides, "no module given (-m)")
        definitions = turn_trackers(module.buildfile)
        if not definitions:
            return cls([], sides, "the module has no turn tracker")
        elements = _tracker_elements(module.buildfile)
        found = []
        for tid, definition in definitions.items():
            names = frozenset(level.name for level in _levels(definition.levels)
                              if level.kind == "list" and len(sides & set(level.values)) >= 2)
            if not names:
                continue
            element = elements.get(tid)
            report = None
            if element is not None:
                report = _report_pattern(element.get("reportFormat", ""), element.get("turnFormat", ""))
            found.append(_Tracker(definition, names, report))
        if not found:
            return cls([], sides, f"no level of the module's turn tracker lists the players' sides "
                                  f"({', '.join(sorted(sides))})")
        return cls(found, sides)

    def describe(self) -> str:
        if self.no_tracker is not None:
            return (f"turn announcements of the module's chat reports ({self.announced}) and global properties "
                    f"naming a side ({self.by_property}) ({self.no_tracker})")
        parts = []
        for t in self.trackers.values():
            levels = ", ".join(f"'{n}'" for n in sorted(t.side_levels))
            how = "TURN states and chat reports" if t.report is not None else "TURN states"
            parts.append(f"turn tracker '{t.definition.name or t.definition.id}', level {levels} ({how})")
        return "; ".join(parts)

    def restore(self, commands: Iterable[TurnState]) -> None:
        """A log's saved tracker states (kept when they show no side)."""
        for cmd in commands:
            self.turn(cmd.tracker_id, cmd.state)

    def turn(self, tracker_id: str, state: str) -> bool:
        tracker = self.trackers.get(tracker_id)
        if tracker is None:
            return False
        for name, value in tracker.definition.active_levels(state):
            if name in tracker.side_levels and value in self.sides:
                self.current = value
                return True
        return False

    def announcement(self, message: str) -> bool:
        """A report line (the module's: ``*`` first) that announces a turn
        or phase of exactly one side sets the side (only without a tracker
        that says it).  A player's own chat line is not read: it is talk as
        often as an announcement ("on subsequent turns, Allied units
        arrive …", 25 such lines in The Longest Day's first logs)."""
        if self.no_tracker is None or not message.startswith("*") or message.startswith("* UNDO:"):
            return False
        text = chat_display(message)
        if len(text) > _MAX_ANNOUNCEMENT or not _TURN_WORDS.search(text):
            return False
        low = text.lower()
        words = re.findall(r"\w+", low)
        named = {side for side, stem in self._stems.items()
                 if (stem in low if " " in stem else any(w.startswith(stem) for w in words))}
        if len(named) != 1:
            return False
        self.current = named.pop()
        self.announced += 1
        return True

    def property(self, name: str, value: str) -> bool:
        """A global property set to a side's name (``ActiveSide``,
        ``Phasing`` …) sets the side (only without a tracker that says it)."""
        if self.no_tracker is None or value not in self.sides:
            return False
        self.current = value
        self.by_property += 1
        return True

    def report(self, message: str) -> bool:
        """A chat line: the tracker's report of a new turn sets the side."""
        text = chat_display(message)
        if len(text) > _MAX_REPORT or not text.startswith("*"):
            return False
        rest = text[1:].lstrip(" ")
        for tracker in self.trackers.values():
            if tracker.report is None:
                continue
            head, pattern = tracker.report
            if head and not rest.startswith(head):
                continue
            m = pattern.match(text)
            if m is None:
                continue
            named = {v.strip() for v in m.groupdict().values() if v is not None} & self.sides
            if len(named) == 1:
                self.current = named.pop()
                return True
        return False


def _restore_states(record: GameRecord, k: int) -> list[TurnState]:
    out: list[TurnState] = []
    for node in record.replay.games[k].restore_part():
        for cmd in leaf_commands(node):
            inner = cmd.logged if isinstance(cmd, LogEntry) else cmd
            if isinstance(inner, TurnState):
                out.append(inner)
    return out


# ------------------------------------------------------------------ the check
@dataclass
class _Counts:
    """The tally of one kind of move (off-turn, or of hidden pieces) for the
    section's summary line and data: moves, the steps they were in, the
    SUSPICIOUS steps, and moves by player."""

    moves: int = 0
    steps: int = 0
    suspicious: int = 0
    by_player: Counter[str] | None = None

    def add(self, player: str | None, moves: int, suspicious: bool) -> None:
        self.moves += moves
        self.steps += 1
        self.suspicious += int(suspicious)
        if self.by_player is None:
            self.by_player = Counter()
        self.by_player[player or "unnamed"] += moves

    def record(self) -> dict[str, Any]:
        return {"moves": self.moves, "steps": self.steps, "suspicious": self.suspicious,
                "by_player": dict(sorted((self.by_player or Counter()).items()))}


def _who(step: Step) -> str:
    if step.player and step.side:
        return f"{step.player} ({step.side})"
    return step.player or "an unnamed player"


def _listed(items: list[str]) -> str:
    shown = "; ".join(items[:_SHOWN])
    return shown + (f"; and {len(items) - _SHOWN} more" if len(items) > _SHOWN else "")


def _sides(record: GameRecord) -> frozenset[str]:
    """The sides the logs record (the roster's PLAYER sides, the movers'),
    and the scenario's when an audit gives them."""
    sides = {side for _, side in record.replay.roster.players.values() if side}
    sides.update(s.side for s in record.steps if s.side)
    sides.update(record.sides)
    return frozenset(sides)


@dataclass
class _StepMoves:
    """The moves of one step the section reports: off-turn moves (and the
    phasing side then) and moves of hidden or masked pieces."""

    off: list[str] = field(default_factory=list)
    off_side: str | None = None
    off_suspicious: bool = False
    hidden: list[str] = field(default_factory=list)
    hidden_suspicious: bool = False


class ActionsSection(SectionVisitor):
    """The ``actions`` section.  Its moves are the pieces displaced by a
    move (a card drawn, returned or played is one: :meth:`visit_card_draw`)
    outside undo steps; who is phasing follows the turn tracker's ``TURN``
    states, the module's chat and dice reports and the global properties
    that name a side (:class:`PhasingSides`)."""

    def __init__(self, record: GameRecord) -> None:
        super().__init__(record)
        self.roster = record.replay.roster
        self.found = PhasingSides.of(record, _sides(record))
        self.tracker = self.found if isinstance(self.found, PhasingSides) else None
        self.files = {f: k for k, f in enumerate(record.replay.files)}
        self.owners: dict[str, str] = {}          # piece id -> the side that moved it in its own turn
        self.off = _Counts()
        self.hidden = _Counts()
        self.not_judged = 0
        self.concealable = 0
        self.ever_known = False
        self.chat_set: dict[int, str | None] = {}  # step that set the side by a report -> the side before
        self.findings: list[Finding] = []
        self.current_file: str | None = None
        self.step: Step | None = None
        self.moves = _StepMoves()

    # ------------------------------------------------------------- who is phasing
    def begin_step(self, step: Step) -> None:
        self.step = step
        self.moves = _StepMoves()
        tracker = self.tracker
        if tracker is None:
            return
        if step.file != self.current_file:
            self.current_file = step.file
            k = self.files.get(step.file or "")
            if k is not None:
                tracker.restore(_restore_states(self.record, k))
        if step.undo and step.undoes in self.chat_set:
            tracker.current = self.chat_set.pop(step.undoes or 0)

    def visit_turn(self, event: TurnEvent) -> None:
        if self.tracker is not None:
            self.tracker.turn(event.tracker, event.new)

    def visit_chat(self, event: ChatEvent) -> None:
        self._report(event.message)

    def visit_dice(self, event: DiceEvent) -> None:
        self._report(event.message)

    def _report(self, message: str) -> None:
        tracker, step = self.tracker, self.step
        if tracker is None or step is None or not message:
            return
        before = tracker.current
        if tracker.report(message) or tracker.announcement(message):
            self.chat_set[step.number] = before

    def visit_property(self, event: PropertyEvent) -> None:
        tracker, step = self.tracker, self.step
        if tracker is None or step is None:
            return
        before = tracker.current
        if tracker.property(event.name, event.new):
            self.chat_set[step.number] = before

    # ------------------------------------------------------------------ the moves
    def visit_move(self, event: MoveEvent) -> None:
        self._move(event, card=False)

    def visit_card_draw(self, event: CardDrawEvent) -> None:
        self._move(event, card=True)

    def visit_card_return(self, event: CardReturnEvent) -> None:
        self._move(event, card=True)

    def visit_card_play(self, event: CardPlayEvent) -> None:
        self._move(event, card=True)

    def _move(self, event: MoveEvent, *, card: bool) -> None:
        step = self.step
        if step is None or step.undo or not _displaced(event):
            return
        ref = event.piece
        hide = None
        if "hide;" in ref.type_text or "obs;" in ref.type_text:
            self.concealable += 1
            hide = concealment(ref, self.roster)
        other = hide is not None and hide.differs_from(step.player, step.side)
        # a player's own masked card drawn, returned or played is how a
        # deck works (the decks section judges decks); another player's is not
        if hide is not None and (other or not card):
            self.moves.hidden.append(f"{hide.label()}: {move_text(event.source, event.target)}"
                                     + (" (another player's)" if other else ""))
            self.moves.hidden_suspicious |= bool(other)
        if self.tracker is not None:
            self._off_turn(step, event, hide, self.tracker.current)

    def _off_turn(self, step: Step, event: MoveEvent, hide: Concealment | None, side: str | None) -> None:
        assert self.tracker is not None
        ref = event.piece
        if side is None or step.side is None or step.side not in self.tracker.sides:
            self.not_judged += 1
            return
        if step.side == side:
            if ref.id:
                self.owners.setdefault(ref.id, side)
            return
        theirs = ref.id is not None and self.owners.get(ref.id) == side
        label = hide.label() if hide is not None else ref.label()
        mine = f" (a {side} piece: {side} moved it in its own turn)" if theirs else ""
        self.moves.off.append(f"{label} {move_text(event.source, event.target)}{mine}")
        self.moves.off_side = side
        self.moves.off_suspicious |= theirs

    def end_step(self, step: Step) -> None:
        tracker, moves = self.tracker, self.moves
        self.ever_known |= tracker is not None and tracker.current is not None
        undone = f" (undone at step {_file_step(self.record, step.undone_by)})" if step.undone_by else ""
        if moves.off:
            severity = SUSPICIOUS if moves.off_suspicious and not undone else NOTE
            self.off.add(step.player, len(moves.off), severity == SUSPICIOUS)
            self.findings.append(Finding(
                "off_turn_move", severity,
                f"{_who(step)} moved {_listed(moves.off)} during the turn of {moves.off_side}{undone}",
                step.file, step.number, step.file_step, step.player,
                {"phasing": moves.off_side, "side": step.side, "moves": len(moves.off),
                 "undone_by": step.undone_by}))
        if moves.hidden:
            severity = SUSPICIOUS if moves.hidden_suspicious and not undone else NOTE
            self.hidden.add(step.player, len(moves.hidden), severity == SUSPICIOUS)
            self.findings.append(Finding(
                "hidden_move", severity, f"{_who(step)} moved {_listed(moves.hidden)}{undone}",
                step.file, step.number, step.file_step, step.player,
                {"moves": len(moves.hidden), "side": step.side, "undone_by": step.undone_by}))

    # ----------------------------------------------------------------- the verdict
    def _reason(self) -> str | None:
        """Why off-turn moves are NOT CHECKED (None: they are)."""
        tracker = self.tracker
        if tracker is None:
            return str(self.found)
        if not self.ever_known and tracker.no_tracker is not None:
            return (f"the logs never show whose turn it is ({', '.join(sorted(tracker.sides))}): "
                    f"{tracker.no_tracker}, no report of the module announces one side's turn or phase, no "
                    "global property names a side")
        if not self.ever_known:
            return f"the {tracker.describe()} never shows whose turn it is ({', '.join(sorted(tracker.sides))})"
        return None

    def result(self) -> Section:
        tracker = self.tracker
        summary = []
        reason = self._reason()
        if reason is None:
            assert tracker is not None
            summary.append(f"phasing side from the {tracker.describe()}")
            summary.append(_count_line("off-turn move(s)", "no off-turn move", self.off,
                                       "a piece of the phasing side moved by the other side"))
            if self.not_judged:
                summary.append(f"{self.not_judged} move(s) not judged: the phasing side or the mover's side "
                               "unknown")
        else:
            summary.append(f"off-turn moves NOT CHECKED: {reason}")
        if self.hidden.moves:
            summary.append(_count_line("move(s) of hidden or masked pieces", "", self.hidden,
                                       "moved by another player than the one who hid it"))
        elif self.concealable:
            summary.append(f"no hidden or masked piece moved ({self.concealable} move(s) of pieces that can be)")
        else:
            summary.append("no moved piece can be hidden or masked (no Invisible or Mask trait)")
        data = {"off_turn": {"checked": reason is None, "reason": reason,
                             "phasing_from": tracker.describe() if tracker is not None else None,
                             "not_judged": self.not_judged, **self.off.record()},
                "hidden": {"concealable_moves": self.concealable, **self.hidden.record()}}
        return Section("actions", "Actions: off-turn and hidden moves", summary, self.findings, data,
                       reason is None)


def section(record: GameRecord) -> Section:
    """The ``actions`` section of one game."""
    return run_section(ActionsSection(record))


def _count_line(noun: str, none: str, counts: _Counts, suspicious: str) -> str:
    if not counts.moves:
        return none
    players = ", ".join(f"{p} {n}" for p, n in sorted((counts.by_player or Counter()).items()))
    line = f"{counts.moves} {noun} in {counts.steps} step(s): {players}"
    if counts.suspicious:
        line += f"; {counts.suspicious} step(s) SUSPICIOUS ({suspicious})"
    return line


def _file_step(record: GameRecord, number: int | None) -> int | None:
    if number is None or not 0 < number <= len(record.steps):
        return number
    return record.steps[number - 1].file_step
