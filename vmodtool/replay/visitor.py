"""The one seam between the replay and everything that reads a game.

A consumer of a replay (the audit, each check-game section, the report's
frames, a batch task) is a :class:`ReplayVisitor`: the replay drives it
through the game — every log's start, every event of every step, every
step's end, every warning, every log's end — and asks it for its
:meth:`~ReplayVisitor.result` at the end, as python-chess drives a
``BaseVisitor`` through a PGN game::

    class Moves(ReplayVisitor[int]):
        def __init__(self) -> None:
            self.count = 0

        def visit_move(self, event: MoveEvent) -> None:
            self.count += 1

        def result(self) -> int:
            return self.count

    moves, states = Replay.open(logs, module=vmod).run(Moves(), FinalState())

* One pass feeds any number of visitors (:meth:`Replay.run`).
* Event dispatch is here and only here: one ``visit_<event>`` per event
  type; a subtype's method falls back to its base type's (a card drawn is
  a move unless the visitor says otherwise: ``visit_card_draw`` calls
  ``visit_move``), and every ``visit_<event>`` falls back to
  :meth:`~ReplayVisitor.visit_event`, which does nothing.
* A visitor sees the board only through a read-only :class:`BoardView`,
  never the replay engine.
* A consumer that must judge the game after it has seen all of it (an
  undo may come any number of steps later) keeps the steps and walks them
  again with :func:`walk_step`, through the same dispatch.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, TypeVar

from vmodtool.replay.board_state import snapshot
from vmodtool.replay.events import (
    AddEvent,
    BoardsEvent,
    CardDrawEvent,
    CardPlayEvent,
    CardReturnEvent,
    ChangeEvent,
    ChatEvent,
    DeckFaceEvent,
    DeckOrderEvent,
    DeckShuffleEvent,
    DiceEvent,
    Event,
    HideEvent,
    MaskEvent,
    MoveEvent,
    PieceRef,
    Place,
    PlayerEvent,
    PropertyEvent,
    RemoveEvent,
    TurnEvent,
    UnknownEvent,
)

if TYPE_CHECKING:
    from vmodtool.replay.board_state import BoardState
    from vmodtool.replay.chain import ChainDifference
    from vmodtool.replay.engine import Engine, ReplayWarning
    from vmodtool.replay.step import Step

__all__ = ["ReplayVisitor", "BoardView", "LogStart", "PieceOnBoard", "walk_step", "walk_events",
           "visit_method"]

R = TypeVar("R", covariant=True)


@dataclass(frozen=True)
class LogStart:
    """One file of the replay, as it starts: its index in the chain, its
    path, the chain steps played before its first step, and what changed
    between the previous file's end and its saved state (empty for the
    first file)."""

    index: int
    file: str | None
    steps_before: int
    differences: tuple[ChainDifference, ...] = field(default=())


class PieceOnBoard(NamedTuple):
    """A piece of the board as a :class:`BoardView` lists it: who it is,
    where it is, and its place in its stack (the stack's key, and its
    ``stack_index`` from the bottom; a piece in no stack is a stack of its own,
    ``("@" + id, 0)``)."""

    ref: PieceRef
    place: Place
    stack: str
    stack_index: int


class BoardView:
    """The board, read-only: what a visitor may look at when a log starts
    or ends.  It reads the live replay state: the view a visitor gets at
    :meth:`ReplayVisitor.begin_log` follows the board through that log's
    steps (a visitor drawing the board after each step may keep it) until
    that log's :meth:`ReplayVisitor.end_log`; past it, keep what it
    returned, not the view."""

    __slots__ = ("_engine",)

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    @property
    def file(self) -> str | None:
        """The file whose state this is."""
        return self._engine.file

    def pieces(self) -> Iterator[PieceOnBoard]:
        """Every game piece (registration order; stacks and decks are not
        pieces) with its place and its place in its stack."""
        engine = self._engine
        ref, place_of = engine.ref, engine.place_of
        for p in engine.state.game_pieces():
            parent = p.parent
            if parent is not None:
                stack = parent.id or f"@{id(parent)}"
                index = parent.members.index(p)
            else:
                stack, index = f"@{p.id}", 0
            yield PieceOnBoard(ref(p), place_of(p), stack, index)

    def positions(self) -> dict[str, tuple[str | None, int, int]]:
        """Piece id → (map, x, y) of every game piece: the cheap form of
        :meth:`pieces` (no location names)."""
        out: dict[str, tuple[str | None, int, int]] = {}
        for p in self._engine.state.game_pieces():
            m = p.current_map
            x, y = p.position
            out[p.id or ""] = (m.name if m is not None else None, x, y)
        return out

    def ghosts(self) -> dict[str, tuple[str | None, int, int]]:
        """Pieces VASSAL left behind in a stack that moved without a logged
        move (id → map, x, y); see ``Engine.ghosts``."""
        return dict(self._engine.ghosts)

    @property
    def deck_count(self) -> int:
        """How many decks the game holds (on a map or not)."""
        return sum(1 for _ in self._engine.state.decks())

    @property
    def boards(self) -> frozenset[str]:
        """The names of the maps whose boards are set."""
        return frozenset(self._engine.state.boards)

    def board_names(self, map_name: str) -> tuple[str, ...]:
        """The names of the boards the game's ``SetBoards`` set on a map,
        in slot order (empty when none were set)."""
        return tuple(b[0] for b in self._engine.state.boards.get(map_name, ()))

    @property
    def turns(self) -> Mapping[str, str]:
        """Turn tracker id → its state."""
        return dict(self._engine.state.turns)

    @property
    def global_properties(self) -> Mapping[tuple[str | None, str], str]:
        """(container, name) → value of every global property set."""
        return dict(self._engine.state.global_properties)

    def snapshot(self, step: int = 0) -> BoardState:
        """The whole state as a :class:`~vmodtool.replay.game.BoardState`
        (what ``replay --state`` prints), as the viewer sees it."""
        return snapshot(self._engine, step)


class ReplayVisitor(ABC, Generic[R]):
    """Base class of every consumer of a replay.  Override what you need;
    every method has a default that does nothing (or falls back to its base
    event's method), except :meth:`result`, which every visitor defines."""

    def begin_log(self, log: LogStart, initial: BoardView) -> None:
        """A file's saved state was restored (before its first step)."""

    def begin_step(self, step: Step) -> None:
        """A step starts (its events follow; ``step`` is complete: its
        events, player, undo marks as the replay knows them so far)."""

    def visit_event(self, event: Event) -> None:
        """Any event no more specific method took."""

    def visit_move(self, event: MoveEvent) -> None:
        self.visit_event(event)

    def visit_add(self, event: AddEvent) -> None:
        self.visit_event(event)

    def visit_remove(self, event: RemoveEvent) -> None:
        self.visit_event(event)

    def visit_change(self, event: ChangeEvent) -> None:
        self.visit_event(event)

    def visit_chat(self, event: ChatEvent) -> None:
        self.visit_event(event)

    def visit_dice(self, event: DiceEvent) -> None:
        self.visit_event(event)

    def visit_property(self, event: PropertyEvent) -> None:
        self.visit_event(event)

    def visit_turn(self, event: TurnEvent) -> None:
        self.visit_event(event)

    def visit_player(self, event: PlayerEvent) -> None:
        self.visit_event(event)

    def visit_boards(self, event: BoardsEvent) -> None:
        self.visit_event(event)

    def visit_unknown(self, event: UnknownEvent) -> None:
        self.visit_event(event)

    def visit_card_draw(self, event: CardDrawEvent) -> None:
        """A card drawn from a deck: a move unless overridden."""
        self.visit_move(event)

    def visit_card_return(self, event: CardReturnEvent) -> None:
        """A card returned to a deck: a move unless overridden."""
        self.visit_move(event)

    def visit_card_play(self, event: CardPlayEvent) -> None:
        """A card played from a hand: a move unless overridden."""
        self.visit_move(event)

    def visit_deck_shuffle(self, event: DeckShuffleEvent) -> None:
        self.visit_event(event)

    def visit_deck_order(self, event: DeckOrderEvent) -> None:
        self.visit_event(event)

    def visit_deck_face(self, event: DeckFaceEvent) -> None:
        self.visit_event(event)

    def visit_mask(self, event: MaskEvent) -> None:
        self.visit_event(event)

    def visit_hide(self, event: HideEvent) -> None:
        self.visit_event(event)

    def end_step(self, step: Step) -> None:
        """The step's events were all visited."""

    def warning(self, warning: ReplayWarning) -> None:
        """Something the replay could not do as VASSAL would (restoring a
        file or in a step), as it happened."""

    def end_log(self, log: LogStart, final: BoardView) -> None:
        """A file's last step was played (or the replay stopped in it)."""

    @abstractmethod
    def result(self) -> R:
        """What the visitor found (asked once, after the last log)."""


#: event class → the name of its visitor method (a subclass not listed
#: takes its nearest listed base's: :func:`visit_method`)
_METHODS: dict[type[Event], str] = {
    Event: "visit_event", MoveEvent: "visit_move", AddEvent: "visit_add", RemoveEvent: "visit_remove",
    ChangeEvent: "visit_change", ChatEvent: "visit_chat", DiceEvent: "visit_dice",
    PropertyEvent: "visit_property", TurnEvent: "visit_turn", PlayerEvent: "visit_player",
    BoardsEvent: "visit_boards", UnknownEvent: "visit_unknown", CardDrawEvent: "visit_card_draw",
    CardReturnEvent: "visit_card_return", CardPlayEvent: "visit_card_play",
    DeckShuffleEvent: "visit_deck_shuffle", DeckOrderEvent: "visit_deck_order",
    DeckFaceEvent: "visit_deck_face", MaskEvent: "visit_mask", HideEvent: "visit_hide",
}


def visit_method(cls: type[Event]) -> str:
    """The visitor method that takes events of class ``cls``."""
    name = _METHODS.get(cls)
    if name is None:
        name = next(_METHODS[base] for base in cls.__mro__ if base in _METHODS)
        _METHODS[cls] = name
    return name


class _Dispatch:
    """One visitor's bound methods by event class (looked up once per
    class, not per event)."""

    __slots__ = ("visitor", "_bound")

    def __init__(self, visitor: ReplayVisitor[Any]) -> None:
        self.visitor = visitor
        self._bound: dict[type, Callable[[Any], None]] = {}

    def __call__(self, event: Event) -> None:
        method = self._bound.get(type(event))
        if method is None:
            method = self._bound[type(event)] = getattr(self.visitor, visit_method(type(event)))
        method(event)


def _dispatch_of(visitor: ReplayVisitor[Any]) -> _Dispatch:
    """The visitor's dispatcher, made once and kept with it: a consumer
    walking its recorded steps again (the audit's judge, check-game's
    sections) looks each event class's method up once, not once a step."""
    kept: _Dispatch | None = visitor.__dict__.get(_DISPATCH_KEY)
    if kept is None:
        kept = visitor.__dict__[_DISPATCH_KEY] = _Dispatch(visitor)
    return kept


_DISPATCH_KEY = "_replay_visitor_dispatch"


def walk_events(visitor: ReplayVisitor[Any], events: list[Event]) -> None:
    """Visit ``events`` in order (no step start or end)."""
    dispatch = _dispatch_of(visitor)
    for event in events:
        dispatch(event)


def walk_step(visitor: ReplayVisitor[Any], step: Step) -> None:
    """Drive ``visitor`` through one recorded step again, exactly as the
    replay did: :meth:`~ReplayVisitor.begin_step`, each event's method,
    :meth:`~ReplayVisitor.end_step` (warnings are not repeated)."""
    visitor.begin_step(step)
    walk_events(visitor, step.events)
    visitor.end_step(step)


class Drive:
    """What :meth:`Replay.run` does with its visitors (one dispatcher each,
    in the order given)."""

    __slots__ = ("visitors", "_dispatch")

    def __init__(self, visitors: tuple[ReplayVisitor[Any], ...]) -> None:
        self.visitors = visitors
        self._dispatch = [_dispatch_of(v) for v in visitors]

    def begin_log(self, log: LogStart, engine: Engine) -> None:
        view = BoardView(engine)
        for v in self.visitors:
            v.begin_log(log, view)
        for w in engine.warnings:
            for v in self.visitors:
                v.warning(w)

    def step(self, step: Step) -> None:
        for v, dispatch in zip(self.visitors, self._dispatch, strict=True):
            v.begin_step(step)
            for event in step.events:
                dispatch(event)
            for w in step.warnings:
                v.warning(w)
            v.end_step(step)

    def end_log(self, log: LogStart, engine: Engine) -> None:
        view = BoardView(engine)
        for v in self.visitors:
            v.end_log(log, view)
