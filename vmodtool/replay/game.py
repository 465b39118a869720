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
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, Union, overload

from vmodtool.errors import VmodError
from vmodtool.gc_policy import relaxed_gc
from vmodtool.replay.chain import ChainDifference, compare_states
from vmodtool.replay.engine import ReplayEngine, ReplayWarning, Roster
from vmodtool.replay.events import AddEvent, ChangeEvent, ChatEvent, DiceEvent, Event, MoveEvent
from vmodtool.replay.positions import Positions
from vmodtool.replay.properties import ModuleProperties
from vmodtool.replay.state import Deck, GameObject, Piece, Stack
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


@dataclass
class Step:
    """One replay step.

    ``number`` counts from 1 over the whole chain; ``file``/``file_step``
    say where it comes from; ``player``/``side`` are the mover's display name
    and side (never the VASSAL password); ``undo`` marks a step that undoes
    an earlier one (``undoes`` is that step's number, ``undo_kind``
    ``"bracket"`` for VASSAL's UNDO brackets or ``"inverse"`` for a step
    whose moves exactly reverse the previous step's, as older versions
    logged undo); ``undone_by`` is set on the step an undo reversed."""

    number: int
    file: str | None
    file_step: int
    index: int
    player: str | None = None
    side: str | None = None
    events: list[Event] = field(default_factory=list)
    warnings: list[ReplayWarning] = field(default_factory=list)
    undo: bool = False
    undo_kind: str | None = None
    undoes: int | None = None
    undone_by: int | None = None
    commands: int = 0
    #: the stacks the step's commands touched, as they are after it: stack
    #: key (its id, or ``@…`` for one without) -> member piece ids bottom ->
    #: top; the first step of each file lists every stack (the file's saved
    #: state sets them all).  Lets a consumer follow stack order without
    #: replaying again.
    stacks: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False)
    _moves: tuple[tuple[str, ...], ...] = field(default=(), repr=False)

    @property
    def chat_lines(self) -> list[str]:
        """The raw text of every chat/report/dice line the step logged."""
        return [e.message for e in self.events
                if isinstance(e, (ChatEvent, DiceEvent)) and e.message]

    @property
    def dice_lines(self) -> list[str]:
        """The raw text of every dice report the step logged."""
        return [e.message for e in self.events if isinstance(e, DiceEvent) and e.message]

    @property
    def rolled(self) -> bool:
        """Whether the step rolled dice (a dice report, or VASSAL's own
        dice results without one)."""
        return any(isinstance(e, DiceEvent) for e in self.events)

    @property
    def only_talk(self) -> bool:
        """Whether every event of the step is a chat line or a dice roll
        (leaving it out changes no piece, property or tracker)."""
        return all(e.kind in ("chat", "dice") for e in self.events)

    def record(self) -> dict[str, object]:
        return {"step": self.number, "file": self.file, "file_step": self.file_step,
                "player": self.player, "side": self.side, "undo": self.undo,
                "undo_kind": self.undo_kind, "undoes": self.undoes, "undone_by": self.undone_by,
                "events": [e.record() for e in self.events],
                "warnings": [w.message for w in self.warnings]}


@dataclass
class PieceSnapshot:
    """A piece on the board at one moment (the fields of the golden truth)."""

    id: str
    name: str
    map: str | None
    x: int
    y: int
    location: str | None
    stack_id: str | None
    stack_index: int | None
    stack_size: int | None
    grid_cell: tuple[int, int] | None
    state: str
    unit_id: str | None = None
    #: the deck holding the piece (its name), if any
    deck: str | None = None
    #: the viewer may not see which piece it is (in a face-down deck, in a
    #: hand not theirs, masked or hidden by another side): reports print no
    #: name or state for it
    hidden: bool = False

    def record(self) -> dict[str, object]:
        if self.hidden:
            return {"id": self.id, "name": None, "unit_id": None, "map": self.map,
                    "x": self.x, "y": self.y, "location": self.location, "stack_id": self.stack_id,
                    "stack_index": self.stack_index, "stack_size": self.stack_size,
                    "grid_cell": list(self.grid_cell) if self.grid_cell else None,
                    "state": None, "deck": self.deck, "hidden": True}
        return {"id": self.id, "name": self.name, "unit_id": self.unit_id, "map": self.map,
                "x": self.x, "y": self.y, "location": self.location,
                "stack_id": self.stack_id, "stack_index": self.stack_index,
                "stack_size": self.stack_size,
                "grid_cell": list(self.grid_cell) if self.grid_cell else None,
                "state": self.state, "deck": self.deck, "hidden": False}


@dataclass
class DeckSnapshot:
    """A deck at one moment: id, name, map and position, card count, face;
    ``cards`` the names bottom → top when the viewer may see them (a
    face-up deck, or a referee), else None."""

    id: str
    name: str
    map: str | None
    x: int
    y: int
    count: int
    face_down: bool
    cards: list[str] | None = None

    def record(self) -> dict[str, object]:
        return {"id": self.id, "name": self.name, "map": self.map, "x": self.x, "y": self.y,
                "count": self.count, "face_down": self.face_down, "cards": self.cards}


@dataclass
class HandSnapshot:
    """A private map (PlayerHand/PrivateMap) at one moment: its pieces'
    count (outside decks), its sides, whether the viewer may look in."""

    name: str
    kind: str
    sides: list[str]
    count: int
    visible: bool

    def record(self) -> dict[str, object]:
        return {"name": self.name, "kind": self.kind, "sides": self.sides, "count": self.count,
                "visible": self.visible}


@dataclass
class BoardState:
    """The whole game at one step: pieces (registration order), global
    properties, turn trackers."""

    step: int
    pieces: list[PieceSnapshot]
    global_properties: dict[str, str]
    turns: dict[str, str]
    decks: list[DeckSnapshot] = field(default_factory=list)
    hands: list[HandSnapshot] = field(default_factory=list)

    def by_id(self) -> dict[str, PieceSnapshot]:
        return {p.id: p for p in self.pieces}


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

    def steps(self, *, until: int | None = None,
              on_restore: Callable[[int, ReplayEngine], None] | None = None) -> Iterator[Step]:
        """Replay from the first file's saved state, yielding each step after
        it was applied (:attr:`engine` holds the live state).  ``until``
        stops after that step number; ``on_restore(k, engine)`` is called
        when file ``k``'s saved state is restored, before its first step
        (a consumer reads the initial state there instead of replaying the
        saved state a second time)."""
        self.chain_differences = []
        self.warnings = []
        self.log_starts = []
        with relaxed_gc():
            yield from self._steps(until, on_restore)

    def _steps(self, until: int | None,
               on_restore: Callable[[int, ReplayEngine], None] | None = None, *,
               drive: Drive | None = None) -> Iterator[Step]:
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
            if on_restore is not None:
                on_restore(k, engine)
            if drive is not None:
                drive.begin_log(log, engine)
            if until is not None and number >= until:
                if drive is not None:
                    drive.end_log(log, engine)
                return
            for file_step, (index, node) in enumerate(game.log_steps(), 1):
                number += 1
                step = self._run_step(engine, node, number, file_step, index, history)
                history.append(step)
                self.warnings.extend(step.warnings)
                if drive is not None:
                    drive.step(step)
                yield step
                if until is not None and number >= until:
                    if drive is not None:
                        drive.end_log(log, engine)
                    return
            if drive is not None:
                drive.end_log(log, engine)
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
        self.chain_differences = []
        self.warnings = []
        self.log_starts = []
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


def snapshot(engine: ReplayEngine, step: int = 0) -> BoardState:
    pieces = []
    watching = bool(engine.hands) or engine.state.has_decks
    for p in engine.state.game_pieces():
        snap = piece_snapshot(engine, p)
        if watching or "obs;" in p.type or "hide;" in p.type:
            parent = p.parent
            if isinstance(parent, Deck) and p in parent.members:
                snap.deck = parent.name
            snap.hidden = not engine.visible(p)
            if not snap.hidden and ("obs;" in p.type or "hide;" in p.type):
                snap.name = engine.seen_ref(p).name
        pieces.append(snap)
    props = {(f"{c}:{n}" if c else n): v for (c, n), v in engine.state.global_properties.items()}
    decks = []
    for d in engine.state.decks():
        if d.map is None and not d.members:
            continue
        see = engine.viewer.referee or (not d.face_down and engine.viewer.sees_hand(engine.hand_of(d.map)))
        decks.append(DeckSnapshot(d.id or "", d.name, d.map.name if d.map is not None else None, d.x, d.y,
                                  len(d.members), d.face_down,
                                  [engine.seen_ref(m).name if engine.viewer.referee else m.name
                                   for m in d.members] if see else None))
    hands = [HandSnapshot(h.name, h.kind, list(h.sides), engine.count_on(engine.state.maps.get(h.name)),
                          engine.viewer.sees_hand(h))
             for h in engine.hands.values()]
    return BoardState(step, pieces, props, dict(engine.state.turns), decks, hands)


def piece_snapshot(engine: ReplayEngine, p: Piece) -> PieceSnapshot:
    place = engine.place_of(p)
    parent = p.parent
    if parent is not None:
        stack_id = parent.id
        try:
            stack_index: int | None = parent.members.index(p)
        except ValueError:
            stack_index = None
        stack_size: int | None = len(parent.members)
    else:
        stack_id = stack_index = stack_size = None
    return PieceSnapshot(p.id or "", p.name, place.map, place.x, place.y, place.location,
                         stack_id, stack_index, stack_size, place.grid_cell, p.state_string(),
                         p.unit_id)


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
