"""A VASSAL log (or a chain of logs) as a sequence of steps.

::

    replay = Replay.open(["game-1.vlog", "game-2.vlog"], module="game.vmod",
                         board_sizes={"Main": (3300, 2457)})
    for step in replay.steps():
        print(step.number, step.player, step.side, [e.text() for e in step.events])
    replay.chain_differences      # filled while iterating past a file boundary
    replay.state_at(37)           # the board after step 37 (0 = saved state)

Each top-level ``LOG`` entry of a file is one step (what VASSAL's Step
button replays, ``docs/vassal-format.md`` §4.7).  A file starts from its own
saved state (``begin_save`` … ``end_save``); in a chain, the state the
previous file ended in is compared with it and every difference is kept in
:attr:`Replay.chain_differences`.
"""

from __future__ import annotations

import bisect
import os
from collections.abc import Iterator, Sequence
from typing import Any, TypeVar, Union, overload

from vmodtool.errors import VmodError
from vmodtool.gc_policy import relaxed_gc
from vmodtool.replay.board_state import (
    BoardState,
    DeckSnapshot,
    HandSnapshot,
    PieceSnapshot,
    snapshot,
)
from vmodtool.replay.chain import ChainDifference, compare_states
from vmodtool.replay.engine import ReplayEngine, ReplayWarning, Roster
from vmodtool.replay.events import AddEvent, ChangeEvent, ChatEvent, DiceEvent, Event, MoveEvent
from vmodtool.replay.positions import Positions
from vmodtool.replay.properties import ModuleProperties
from vmodtool.replay.state import GameObject, Stack
from vmodtool.replay.step import Step
from vmodtool.replay.viewer import OBSERVER, Viewer
from vmodtool.replay.visitor import Drive, LogStart, ReplayVisitor
from vmodtool.vassal.commands import (
    AddPiece,
    ChangePiece,
    Chat,
    Command,
    LogEntry,
    MovePiece,
    Node,
    NullCommand,
    RemovePiece,
    Undo,
    leaf_commands,
)
from vmodtool.vassal.decks import HandDef
from vmodtool.vassal.decks import hands as module_hands
from vmodtool.vassal.module import Module
from vmodtool.vassal.savefile import SavedGame

__all__ = ["Replay", "Step", "PieceSnapshot", "BoardState", "DeckSnapshot", "HandSnapshot",
           "relaxed_gc"]

PathLike = Union[str, "os.PathLike[str]"]
R1 = TypeVar("R1")
R2 = TypeVar("R2")
R3 = TypeVar("R3")


class Replay:
    """A log or a chain of logs (or saves) replayed step by step."""

    def __init__(self, games: Sequence[SavedGame], positions: Positions | None = None,
                 files: Sequence[str] | None = None, *,
                 properties: ModuleProperties | None = None, viewer: Viewer = OBSERVER,
                 hands: Sequence[HandDef] | None = None) -> None:
        """``viewer``: who watches (which cards and hidden pieces the events
        and board states name); ``hands``: the private maps (PlayerHand,
        PrivateMap), by default the module's."""
        self.games = list(games)
        self.files = list(files) if files is not None else [g.file for g in self.games]
        self.positions = positions or Positions()
        module = self.positions.module
        if properties is None and module is not None:
            properties = ModuleProperties.of(module.buildfile)
        #: the module's global properties (None without a module or
        #: properties given)
        self.properties = properties
        self.viewer = viewer
        if hands is None:
            hands = module_hands(module.buildfile) if module is not None else []
        #: the private maps by name
        self.hands: dict[str, HandDef] = {h.name: h for h in hands}
        self.chain_differences: list[ChainDifference] = []
        self.warnings: list[ReplayWarning] = []
        self.engine: ReplayEngine | None = None
        #: per file replayed so far, the chain steps played before its first
        #: step (:meth:`log_position`, :meth:`chain_step`)
        self.log_starts: list[int] = []
        self.roster = Roster()
        for g in self.games:
            self.roster.redactor.learn_from(g.commands)

    # ------------------------------------------------------------- opening
    @classmethod
    def open(cls, paths: PathLike | Sequence[PathLike], *, module: Module | PathLike | None = None,
             board_sizes: dict[str, tuple[int, int]] | None = None,
             positions: Positions | None = None,
             properties: ModuleProperties | None = None,
             viewer: Viewer = OBSERVER,
             hands: Sequence[HandDef] | None = None) -> Replay:
        """Read the logs (``VmodError`` when one cannot be read at all) and
        the module (a path to a ``.vmod``, folder or buildFile, or an open
        :class:`~vmodtool.vassal.module.Module`).  Without a module,
        ``positions`` (e.g. :meth:`Positions.from_maps`) and ``properties``
        (the module's global properties) and ``hands`` (its private
        windows) stand for what the replay reads from one."""
        if module is not None and positions is not None:
            raise TypeError("Replay.open: give a module or positions, not both")
        if isinstance(paths, (str, os.PathLike)):
            paths = [paths]
        # what is read lives as long as the replay, and none of it is cyclic
        # garbage to collect meanwhile: the GC would scan the command trees
        # again and again while they are built (a sixth of the reading)
        with relaxed_gc():
            games = [SavedGame.read(p) for p in paths]
            if module is not None and not isinstance(module, Module):
                module = Module.open(module)
            if module is not None:
                positions = Positions(module, board_sizes)
            return cls(games, positions or Positions(), [os.fspath(p) for p in paths],
                       properties=properties, viewer=viewer, hands=hands)

    @property
    def missing_board_sizes(self) -> list[str]:
        """Boards of the module whose pixel size is unknown."""
        return list(self.positions.missing_sizes)

    # ------------------------------------------------------------ replaying
    def _restore(self, k: int, add_plans: dict[str, Any] | None = None) -> ReplayEngine:
        game = self.games[k]
        engine = ReplayEngine(self.positions, self.roster, file=self.files[k], properties=self.properties,
                        viewer=self.viewer, hands=self.hands, add_plans=add_plans)
        engine.in_restore = True
        engine.apply_all([cmd for node in game.restore_part() for cmd in leaf_commands(node)])
        engine.in_restore = False
        for player_id in list(self.roster.players):
            self.roster.redactor.learn(player_id, self.roster.players[player_id][0])
        return engine

    def restore(self, k: int, add_plans: dict[str, Any] | None = None) -> ReplayEngine:
        """A new engine holding file ``k``'s saved state, as the replay
        restores it before that file's first step; ``add_plans`` (the
        AddPiece texts parsed so far) may be shared between calls."""
        return self._restore(k, add_plans)

    def apply_step(self, engine: ReplayEngine, node: Node, number: int, history: list[Step], *,
                   file_step: int | None = None, index: int | None = None) -> Step:
        """Apply one step's commands to ``engine`` as the replay does and
        return the :class:`Step` (``history``: the steps before it, for
        undo; ``file_step``/``index`` default to ``number``)."""
        return self._run_step(engine, node, number, number if file_step is None else file_step,
                              number if index is None else index, history)

    def steps(self, *, until: int | None = None) -> Iterator[Step]:
        """Replay from the first file's saved state, yielding each step after
        it was applied (:attr:`engine` holds the live state).  ``until``
        stops after that step number.  A consumer that reads the board at a
        log's start or end is a visitor (:meth:`run`)."""
        with relaxed_gc():
            yield from self._steps(until)

    def _steps(self, until: int | None, *, drive: Drive | None = None) -> Iterator[Step]:
        # what a pass fills as it goes, emptied when one starts
        self.chain_differences = []
        self.warnings = []
        self.log_starts = []
        number = 0
        history: list[Step] = []
        previous: ReplayEngine | None = None
        # the AddPieces parsed so far, by text: a log's saved state repeats
        # most of the previous log's
        add_plans: dict[str, Any] = {}
        for k, game in enumerate(self.games):
            engine = self._restore(k, add_plans)
            self.log_starts.append(number)
            self.warnings.extend(engine.warnings)
            differences: list[ChainDifference] = []
            if previous is not None:
                differences = self._compare(previous, engine, k)
                self.chain_differences.extend(differences)
            self.engine = engine
            log = LogStart(k, self.files[k], number, tuple(differences))
            if drive is not None:
                drive.begin_log(log, engine)
            stopped = until is not None and number >= until
            if not stopped:
                for file_step, (index, node) in enumerate(game.log_steps(), 1):
                    number += 1
                    step = self._run_step(engine, node, number, file_step, index, history)
                    history.append(step)
                    self.warnings.extend(step.warnings)
                    if drive is not None:
                        drive.step(step)
                    yield step
                    if until is not None and number >= until:
                        stopped = True
                        break
            if drive is not None:
                drive.end_log(log, engine)
            if stopped:
                return
            previous = engine

    def log_position(self, step: int) -> tuple[str | None, int]:
        """Chain step ``step`` (counted from 1 over every file) as (the file
        it is in, its step within that file, from 1), for a finding a player
        quotes; step 0 is (the first file, 0), its saved state.  Valid for
        the files replayed so far (:attr:`log_starts`); ``ValueError`` past
        them or below 0."""
        if step < 0 or not self.log_starts:
            raise ValueError(f"no chain step {step} in this replay")
        k = max(bisect.bisect_left(self.log_starts, step) - 1, 0)
        return self.files[k], step - self.log_starts[k]

    def chain_step(self, file_index: int, file_step: int = 0) -> int:
        """The chain step of step ``file_step`` of file ``file_index`` (0: the
        chain steps played before its saved state), the inverse of
        :meth:`log_position`."""
        return self.log_starts[file_index] + file_step

    @overload
    def run(self, v1: ReplayVisitor[R1], /, *, until: int | None = None) -> tuple[R1]: ...

    @overload
    def run(self, v1: ReplayVisitor[R1], v2: ReplayVisitor[R2], /, *,
            until: int | None = None) -> tuple[R1, R2]: ...

    @overload
    def run(self, v1: ReplayVisitor[R1], v2: ReplayVisitor[R2], v3: ReplayVisitor[R3], /, *,
            until: int | None = None) -> tuple[R1, R2, R3]: ...

    @overload
    def run(self, *visitors: ReplayVisitor[Any], until: int | None = None) -> tuple[Any, ...]: ...

    def run(self, *visitors: ReplayVisitor[Any], until: int | None = None) -> tuple[Any, ...]:
        """Replay the game once, driving every visitor through it
        (:mod:`vmodtool.replay.visitor`), in the order given, and return
        their results in that order.  ``until`` stops after that step."""
        drive = Drive(tuple(visitors))
        with relaxed_gc():
            for _ in self._steps(until, drive=drive):
                pass
        return tuple(v.result() for v in visitors)

    def _run_step(self, engine: ReplayEngine, node: Node, number: int, file_step: int,
                  index: int, history: list[Step]) -> Step:
        engine.step_number = number
        engine.events = []
        engine.player_ids = []
        engine.undo_brackets = 0
        engine.reordered = []
        engine.deck_to_deck = False
        nwarn = len(engine.warnings)
        count, moves, referenced = _execute_step(engine, node)
        if engine.reordered or engine.deck_to_deck:
            engine.finish_step([e.message for e in engine.events
                                if isinstance(e, (ChatEvent, DiceEvent)) and e.message])
        step = Step(number, engine.file, file_step, index, commands=count,
                    events=_fold(engine.events), warnings=engine.warnings[nwarn:],
                    stacks=_stacks_after(engine, referenced, everything=file_step == 1))
        step._moves = tuple(moves)
        if engine.player_ids:
            step.player, step.side = self.roster.who(engine.player_ids[0])
        else:
            step.player, step.side = engine.chat_player(step.events)
        _mark_undo(step, engine.file, bool(engine.undo_brackets), history)
        return step

    def _compare(self, previous: ReplayEngine, engine: ReplayEngine, k: int) -> list[ChainDifference]:
        return compare_states(previous.state, engine.state, previous.place_of, engine.place_of,
                              ReplayEngine.ref, self.files[k - 1], self.files[k])

    # -------------------------------------------------------------- states
    def initial_state(self) -> BoardState:
        """The first file's saved state (the board before step 1)."""
        return snapshot(self._restore(0), 0)

    def state_at(self, step: int) -> BoardState:
        """The board after step ``step`` (0: the first file's saved state)."""
        last = 0
        for s in self.steps(until=step):
            last = s.number
        if step > last and step != 0:
            raise VmodError(f"step {step} does not exist: the replay has {last} step(s)",
                            file=self.files[-1] if self.files else None)
        return self.snapshot(last)

    def snapshot(self, step: int = 0) -> BoardState:
        """The live state (:attr:`engine`) as a :class:`BoardState`."""
        engine = self.engine
        if engine is None:
            raise VmodError("nothing replayed yet")
        return snapshot(engine, step)


def stack_key(stack: Stack) -> str:
    """The key :attr:`Step.stacks` uses for a stack."""
    return stack.id or f"@{id(stack)}"


def _stacks_after(engine: ReplayEngine, piece_ids: Sequence[str | None],
                  everything: bool = False) -> dict[str, tuple[str, ...]]:
    """The stacks holding (or being) these pieces now; every stack when
    ``everything``.  A piece in no stack is a stack of its own."""
    pieces = engine.state.pieces
    objects = pieces.values() if everything else [pieces.get(pid) for pid in piece_ids if pid]
    out: dict[str, tuple[str, ...]] = {}
    for obj in objects:
        if obj is None:
            continue
        stack = obj if isinstance(obj, Stack) else obj.parent
        if stack is None:
            out[f"@{obj.id}"] = (obj.id or "",)
            continue
        key = stack.id or f"@{id(stack)}"
        if key not in out:
            out[key] = tuple([m.id or "" for m in stack.members])
    return out


#: what :meth:`Replay._run_step` notes of a command, by its class
_LOG, _MOVE, _CHANGE, _ADD, _REMOVE, _QUIET, _OTHER = range(7)
_KINDS: dict[type, int] = {}


def _kind_of(cls: type) -> int:
    """The :data:`_KINDS` entry of a command class (kept for the next)."""
    for base, kind in ((LogEntry, _LOG), (MovePiece, _MOVE), (ChangePiece, _CHANGE), (AddPiece, _ADD),
                       (RemovePiece, _REMOVE), (Undo, _QUIET), (Chat, _QUIET), (NullCommand, _QUIET)):
        if issubclass(cls, base):
            _KINDS[cls] = kind
            return kind
    _KINDS[cls] = _OTHER
    return _OTHER


def _execute_step(engine: ReplayEngine, node: Node) -> tuple[int, list[tuple[str, ...]], list[str | None]]:
    """Execute a step's commands; (how many, what :attr:`Step._moves`
    notes of them, the piece ids they name)."""
    count = 0
    moves: list[tuple[str, ...]] = []
    stacks_seen: set[str] = set()
    referenced: list[str | None] = []
    execute = engine.execute
    pieces = engine.state.pieces
    kinds = _KINDS
    for cmd in leaf_commands(node):
        count += 1
        inner: Command = cmd
        kind = kinds.get(type(cmd))
        if kind is None:
            kind = _kind_of(type(cmd))
        if kind == _LOG:
            logged = cmd.logged      # type: ignore[attr-defined]
            if logged is None:
                continue
            inner = logged
            kind = kinds.get(type(inner))
            if kind is None:
                kind = _kind_of(type(inner))
            if kind == _LOG:        # a LOG inside a LOG: nothing VASSAL executes
                kind = _OTHER
        if kind == _REMOVE:
            pid: str | None = inner.piece_id     # type: ignore[attr-defined]
            if isinstance(pieces.get(pid) if pid is not None else None, Stack):
                stacks_seen.add(pid)     # type: ignore[arg-type]
        execute(inner)
        if kind != _QUIET:
            _note(kind, inner, pieces, stacks_seen, moves, referenced)
    return count, moves, referenced


def _note(kind: int, inner: Command, pieces: dict[str, GameObject], stacks_seen: set[str],
          moves: list[tuple[str, ...]], referenced: list[str | None]) -> None:
    """What :func:`_execute_step` notes of an executed command."""
    if kind == _MOVE:
        # (id, new map, x, y, old map, x, y) from the fields the engine
        # already decoded: compared with the previous step's to spot
        # an old-style undo
        f = inner.fields     # type: ignore[attr-defined]
        referenced.append(f[0] if f and f[0] else "")
        if len(f) >= 8:
            moves.append((f[0], "" if f[1] == "null" else f[1], f[2], f[3],
                          "" if f[5] == "null" else f[5], f[6], f[7]))
    elif kind == _CHANGE:
        f = inner.fields     # type: ignore[attr-defined]
        pid = f[0] if f and f[0] else ""
        referenced.append(pid)
        if not pid.startswith("replay-") and not isinstance(pieces.get(pid), Stack):
            moves.append(("D", pid, f[1] if len(f) > 1 and f[1] else "",
                          f[2] if len(f) > 2 and f[2] else ""))
    elif kind == _ADD:
        referenced.append(inner.piece_id)     # type: ignore[attr-defined]
        if not inner.is_stack:     # type: ignore[attr-defined]
            moves.append(("other", "add"))
    elif kind == _REMOVE:
        pid = inner.piece_id     # type: ignore[attr-defined]
        referenced.append(pid)
        if pid not in stacks_seen:
            moves.append(("other", "remove"))
    elif kind == _OTHER:
        moves.append(("other", inner.kind))


def _mark_undo(step: Step, file: str | None, bracket: bool, history: list[Step]) -> None:
    """Whether ``step`` undoes an earlier step of its file (VASSAL's UNDO
    brackets, or the exact inverse of the last step not undone, or the
    "* UNDO: " chat lines of VASSAL before the brackets), marking both."""
    target = _last_undoable(history, file)
    if bracket:
        step.undo, step.undo_kind = True, "bracket"
        if target is not None:
            _mark_undone(target, step)
    elif target is not None and _is_inverse(step._moves, target._moves):
        step.undo, step.undo_kind = True, "inverse"
        _mark_undone(target, step)
    elif not step._moves and step.chat_lines and \
            all(line.startswith(_UNDO_LINE) for line in step.chat_lines):
        # before the brackets, the undo of a chat or dice line was the
        # line again behind "* UNDO: ": it undid the latest step that
        # said it (the previous step may be one whose undo is not
        # recognised, e.g. an add undone by a remove)
        step.undo, step.undo_kind = True, "inverse"
        said = _said(history, file, [line[len(_UNDO_LINE):] for line in step.chat_lines])
        if said is not None:
            _mark_undone(said, step)


def _is_stack(engine: ReplayEngine, piece_id: str | None) -> bool:
    return isinstance(engine.state.get(piece_id), Stack)


def _fold(events: list[Event]) -> list[Event]:
    """Attach a piece's state change to its move in the same step (VASSAL
    logs "mark moved" with every move), and an added piece's first move to
    its addition."""
    if len(events) < 2:
        return list(events)         # nothing to attach to (most steps: one event)
    moved = {e.piece.id for e in events if isinstance(e, MoveEvent)}
    out: list[Event] = []
    added: dict[str | None, AddEvent] = {}
    for e in events:
        if isinstance(e, ChangeEvent) and e.after.id in moved:
            for m in events:
                if isinstance(m, MoveEvent) and m.piece.id == e.after.id:
                    m.change = e
                    break
            continue
        if isinstance(e, AddEvent):
            added[e.piece.id] = e
        elif isinstance(e, MoveEvent) and e.piece.id in added:
            a = added[e.piece.id]
            a.target = e.target
            a.piece = e.piece
            continue
        out.append(e)
    return out


def _last_undoable(history: list[Step], file: str | None) -> Step | None:
    for s in reversed(history):
        if s.file != file:
            return None
        if s.undo or s.undone_by is not None:
            continue
        return s
    return None


#: how VASSAL before the UNDO brackets logged the undo of a chat line
_UNDO_LINE = "* UNDO: "


def _said(history: list[Step], file: str | None, lines: list[str]) -> Step | None:
    """The latest step of ``file`` not undone yet that logged these chat
    lines (exactly, else among others)."""
    within = None
    for s in reversed(history):
        if s.file != file:
            break
        if s.undo or s.undone_by is not None:
            continue
        said = s.chat_lines
        if said == lines:
            return s
        if within is None and said and all(line in said for line in lines):
            within = s
    return within


def _mark_undone(target: Step, step: Step) -> None:
    step.undoes = target.number
    target.undone_by = step.number
    for e in target.events:
        e.undone = True


def _is_inverse(moves: tuple[tuple[str, ...], ...], before: tuple[tuple[str, ...], ...]) -> bool:
    """True when ``moves`` exactly reverses ``before`` (every MovePiece with
    new and old swapped, every ChangePiece with new and old states swapped,
    in reverse order) — how VASSAL before the UNDO brackets logged an undo."""
    if not moves or len(moves) != len(before) or any(m[0] == "other" for m in moves):
        return False
    if not any(m[0] != "D" for m in moves):
        return False
    for m, b in zip(moves, reversed(before), strict=True):
        if m[0] == "D":
            if b[0] != "D" or m[1] != b[1] or m[2] != b[3] or m[3] != b[2] or not m[3]:
                return False
        elif b[0] == "D" or m[0] != b[0] or m[1:4] != b[4:7] or m[4:7] != b[1:4]:
            return False
    return True
