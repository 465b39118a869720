"""The judging pass of the audit: the recorded steps of a game walked again
(:func:`~vmodtool.replay.visitor.walk_step`) into a visitor that moves the
:class:`~vmodtool.audit.bound.BoundGame` forward and makes the audit events
the rules take (``docs/seed-rules.md`` §4.2–§4.5).

The game is judged once it has been replayed whole and every piece bound: a
step's undo may come any number of steps later, and the steps it reverses
are checked between a checkpoint and a rollback of the rules and reported as
withdrawn (:meth:`StepJudge.judge`).

What an event is to the audit: a card drawn, returned or played is a card
event (:class:`~vmodtool.audit.card_feed.CardFeed`), never a unit's or a
marker's move, although the replay's card events are moves
(``CardDrawEvent(MoveEvent)``): :class:`StepJudge` overrides
``visit_card_draw``/``visit_card_return``/``visit_card_play`` so that they
do not fall back to :meth:`StepJudge.visit_move`.  Events no rule reads
(properties, players, boards, masks …) are counted and nothing else.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from vmodtool.audit.api import EVENT_KINDS, Event
from vmodtool.audit.binding import read_property
from vmodtool.gc_policy import relaxed_gc
from vmodtool.replay.visitor import ReplayVisitor, walk_step
from vmodtool.scenario.binding import FORMATION

if TYPE_CHECKING:
    from vmodtool.audit.bound import BoundGame
    from vmodtool.audit.engine import Engine
    from vmodtool.audit.timeline import ClockChange
    from vmodtool.replay.events import (
        AddEvent,
        CardDrawEvent,
        CardPlayEvent,
        CardReturnEvent,
        ChangeEvent,
        ChatEvent,
        DeckOrderEvent,
        DeckShuffleEvent,
        DiceEvent,
        MoveEvent,
        PieceRef,
        RemoveEvent,
        TurnEvent,
    )
    from vmodtool.replay.events import Event as ReplayEvent
    from vmodtool.replay.game import Step

__all__ = ["StepJudge"]

#: the event kinds wanted when a step is replayed without judging it (an undo)
_NOTHING: frozenset[str] = frozenset()


class StepJudge(ReplayVisitor[None]):
    """Judges a bound game's recorded steps with an :class:`Engine` (its
    rules made for the game's scenario): :meth:`judge` walks them all."""

    def __init__(self, game: BoundGame, engine: Engine) -> None:
        self.game = game
        self.engine = engine
        self.state = game.state
        self.dispatch = engine.dispatch
        # the kinds some rule takes (the same for the whole audit: Engine.wants),
        # asked once, not for every event the game could make
        self.judged = frozenset(k for k in EVENT_KINDS if engine.wants(k))
        #: the kinds built in the current step (none in an undo: events no
        #: rule takes are not built, and most steps matter to few rules)
        self.wanted = self.judged
        #: the current step is judged (False: an undo, replayed to keep the
        #: state in step)
        self.live = True
        #: the current step: its number, the event's place in it, who moves
        self.n = 0
        self.sub = 0
        self.player: str | None = None
        self.side: str | None = None
        #: hexes whose stacks the current step changed
        self.touched: list[str] = []
        self._activation_by: tuple[str | None, str | None] = (None, None)
        #: VASSAL piece id -> its Formation property (a chit's never changes)
        self.chit_formation: dict[str | None, str | None] = {}

    def result(self) -> None:
        return None

    # -- the whole game --------------------------------------------------------------------------
    def judge(self, steps: Sequence[Step]) -> None:
        """The saved state, every step (an undo keeps the state in step and
        checks nothing; a step that will be undone is judged between a
        checkpoint and a rollback of the rules), the game's end."""
        game, engine, state = self.game, self.engine, self.state
        game.load_initial()
        undone = {s.number for s in steps if s.undone_by}
        undo_steps = {s.number for s in steps if s.undo}
        engine.note_units(state, game.unit_piece)
        engine.dispatch(state, Event("setup_end", 0, turn=state.turn))
        with relaxed_gc():
            for step in steps:
                game.steps += 1
                if step.number in undo_steps:
                    self.live, self.wanted = False, _NOTHING
                    walk_step(self, step)
                    continue
                self.live, self.wanted = True, self.judged
                if step.number in undone:
                    frame = engine.checkpoint()
                    walk_step(self, step)
                    engine.rollback(frame)
                else:
                    walk_step(self, step)
        engine.dispatch(state, Event("game_end", game.steps, turn=state.turn, phase=state.phase))
        engine.note_units(state, game.unit_piece)

    # -- a step ----------------------------------------------------------------------------------
    def begin_step(self, step: Step) -> None:
        st = self.state
        st.step = self.n = n = step.number
        self.sub = 0
        self.touched = []
        self.player = player = step.player
        self.side = side = self.game.side_ids.get(step.side or "", step.side)
        if "step_start" in self.wanted:
            self.dispatch(st, Event("step_start", n, player=player, side=side, turn=st.turn, phase=st.phase))

    def end_step(self, step: Step) -> None:
        if self.touched:
            self.game.sync_order(step, self.touched)
        st = self.state
        if "step_end" in self.wanted and not self.engine.skips(st, "step_end"):
            self.dispatch(st, Event("step_end", self.n, player=self.player, side=self.side, turn=st.turn,
                                    phase=st.phase))

    def _send(self, kind: str, **kw: Any) -> None:
        """Give the rules an event of the current step (the caller asked
        :attr:`wanted` first: an event no rule takes is not built)."""
        st = self.state
        self.dispatch(st, Event(kind, self.n, self.sub, player=self.player, side=self.side, turn=st.turn,
                                phase=st.phase, **kw))

    def _touch(self, from_hex: str | None, to_hex: str | None) -> None:
        if from_hex:
            self.touched.append(from_hex)
        if to_hex:
            self.touched.append(to_hex)

    def visit_event(self, event: ReplayEvent) -> None:
        """An event the audit does not read (it still has its place in the step)."""
        self.sub += 1

    # -- pieces ----------------------------------------------------------------------------------
    def visit_move(self, event: MoveEvent) -> None:
        """A piece moved: a unit's move (``move``, ``enter``, ``leave``,
        ``transfer``, ``reorder``), a marker's, a chit drawn, or a terrain
        piece or card dragged as a plain piece.  (Never a card drawn,
        returned or played: see the methods below.)"""
        self.sub += 1
        game = self.game
        piece = event.piece
        uid, kind = game.identify(piece)
        fh, fb = game.place(event.source)
        th, tb = game.place(event.target)
        if uid is not None:
            self.state.place_unit(uid, th, tb)
            game.note_place(uid, event.target, th, tb)
            self._touch(fh, th)
            if fh == th and fb == tb:
                kind_name = "reorder"
            else:
                kind_name = "move" if fh and th else "enter" if th else "leave" if fh else "transfer"
            if kind_name in self.wanted:
                st = self.state
                self.dispatch(st, Event(kind_name, self.n, self.sub, unit=uid, from_hex=fh, to_hex=th, from_box=fb,
                                        to_box=tb, player=self.player, side=self.side, turn=st.turn, phase=st.phase))
        elif kind is not None and (key := piece.id) is not None:   # (identified: it has an id)
            self.state.place_marker(key, kind, th, tb, game.space(event.target))
            self._touch(fh, th)
            if "marker_move" in self.wanted:
                self._send("marker_move", unit=key, marker=kind, from_hex=fh, to_hex=th, from_box=fb, to_box=tb)
            drawn = game.drawn_boxes
            if tb in drawn and fb not in drawn:
                self._chit_drawn(piece, kind)
        else:
            game.other_moved(piece, event.target)

    def visit_add(self, event: AddEvent) -> None:
        self.sub += 1
        game = self.game
        uid, kind = game.identify(event.piece)
        th, tb = game.place(event.target)
        if uid is not None:
            self.state.place_unit(uid, th, tb)
            game.note_place(uid, event.target, th, tb)
            game.set_face_and_layers(uid, event.piece)
            self._touch(None, th)
            kind_name = "add" if th else "transfer"
            if kind_name in self.wanted:
                self._send(kind_name, unit=uid, to_hex=th, to_box=tb)
        elif kind is not None and (key := event.piece.id) is not None:   # (identified: it has an id)
            self.state.place_marker(key, kind, th, tb, game.space(event.target))
            self._touch(None, th)
            if "marker_add" in self.wanted:
                self._send("marker_add", unit=key, marker=kind, to_hex=th, to_box=tb)
        else:
            game.other_moved(event.piece, event.target)

    def visit_remove(self, event: RemoveEvent) -> None:
        self.sub += 1
        game = self.game
        uid, kind = game.identify(event.piece)
        fh, fb = game.place(event.source)
        if uid is not None:
            self.state.remove_unit(uid)
            if "remove" in self.wanted:
                self._send("remove", unit=uid, from_hex=fh, from_box=fb)
        elif kind is not None and (key := event.piece.id) is not None:
            self.state.remove_marker(key)
            if "marker_remove" in self.wanted:
                self._send("marker_remove", unit=key, marker=kind, from_hex=fh, from_box=fb)
        else:
            game.other_moved(event.piece, None)

    def visit_change(self, event: ChangeEvent) -> None:
        """A piece's state changed: a unit's face (a ``flip``) or status layers."""
        self.sub += 1
        game = self.game
        uid, _ = game.identify(event.after)
        if uid is None:
            return
        s = self.state.units_state[uid]
        faces = game.faces[uid]
        old_face, old_layers = faces[s.face], s.layers
        game.set_face_and_layers(uid, event.after)
        new_face = faces[s.face]
        hex_id = s.hex
        if new_face != old_face and "flip" in self.wanted:
            scenario = game.scenario
            utype = scenario.unit_type_of(scenario.counter(uid))
            before, after = utype.face(old_face).state, utype.face(new_face).state
            diff: dict[str, tuple[Any, Any]] = {"face": (old_face, new_face)}
            for key in set(before) | set(after):
                if before.get(key) != after.get(key):
                    diff[key] = (before.get(key), after.get(key))
            self._send("flip", unit=uid, from_hex=hex_id, to_hex=hex_id, changes=diff)
        if old_layers != s.layers and "layer" in self.wanted:
            for kind in sorted(old_layers ^ s.layers):
                self._send("layer", unit=uid, marker=kind, from_hex=hex_id, to_hex=hex_id,
                           changes={"active": (kind in old_layers, kind in s.layers)})

    # -- cards (never a move to the audit) ---------------------------------------------------------
    def _cards(self, made: list[Event]) -> None:
        for card_event in made:
            if card_event.kind in self.wanted:
                self.dispatch(self.state, card_event)

    def visit_card_draw(self, event: CardDrawEvent) -> None:
        self.sub += 1
        if self.game.card_feed is not None:
            self._cards(self.game.card_feed.drawn(self.state, event, self.n, self.sub, self.player, self.side))

    def visit_card_play(self, event: CardPlayEvent) -> None:
        self.sub += 1
        if self.game.card_feed is not None:
            self._cards(self.game.card_feed.played(self.state, event, self.n, self.sub, self.player, self.side))

    def visit_card_return(self, event: CardReturnEvent) -> None:
        self.sub += 1
        if self.game.card_feed is not None:
            self._cards(self.game.card_feed.returned(self.state, event, self.n, self.sub, self.player,
                                                     self.side))

    def visit_deck_shuffle(self, event: DeckShuffleEvent) -> None:
        self.sub += 1
        if self.game.card_feed is not None:
            self._cards(self.game.card_feed.shuffled(self.state, event, self.n, self.sub, self.player,
                                                     self.side))

    def visit_deck_order(self, event: DeckOrderEvent) -> None:
        self.sub += 1
        if self.game.card_feed is not None:
            self._cards(self.game.card_feed.ordered(self.state, event, self.n, self.sub, self.player, self.side))

    # -- time, dice, notes -------------------------------------------------------------------------
    def visit_turn(self, event: TurnEvent) -> None:
        self.sub += 1
        change = self.game.tracker_time(event.tracker, event.new)
        if change is not None:
            self._time(change)

    def visit_chat(self, event: ChatEvent) -> None:
        self.sub += 1
        self._said(event.message or "")

    def visit_dice(self, event: DiceEvent) -> None:
        self.sub += 1
        self._said(event.message or "")

    def _said(self, message: str) -> None:
        """A chat or dice line: a time report, a roll, or an annotation."""
        if not message:
            return
        clock = self.game.clock
        change = clock.time(message) if message[0] == "*" or clock.any_line else None
        if change is not None:
            self._time(change)
            return
        roll = clock.roll(message)
        if roll is not None:
            if "dice" in self.wanted:
                self._send("dice", text=roll[0], dice=roll[1])
            return
        # (an annotation no rule takes is not read: reading one changes nothing)
        note = clock.annotation(message, self.n) if "annotation" in self.wanted else None
        if note is not None:
            st = self.state
            self.dispatch(st, Event("annotation", self.n, self.sub, annotation=note, player=note.player or self.player,
                                    side=self.side, turn=st.turn, phase=st.phase))

    def _emit(self, event: Event) -> None:
        """An event of the game's time: every rule sees it (none in an undo)."""
        if self.live:
            self.dispatch(self.state, event)

    def _time(self, change: ClockChange) -> None:
        state = self.state
        n, player, side = self.n, self.player, self.side

        def ev(kind: str, **kw: Any) -> Event:
            return Event(kind, n, player=player, side=side, turn=state.turn, phase=state.phase, **kw)
        new_turn = change.turn if change.turn is not None else state.turn
        new_phase = change.phase if change.phase is not None else state.phase
        new_side = change.side if change.side is not None else state.phasing_side
        side_ids = self.game.side_ids
        if change.side is None and change.addressed and side in side_ids.values():
            # ("your movement phase": the side the speaker addresses, of two)
            others = sorted({s for s in side_ids.values() if s != side})
            new_side = others[0] if len(others) == 1 else new_side
        if (new_turn, new_phase, new_side) == (state.turn, state.phase, state.phasing_side):
            return
        if state.active_formation is not None:
            self._emit(ev("activation_end", text=state.active_formation))
            state.active_formation = None
        if state.phase is not None:
            self._emit(ev("phase_end"))
        if state.turn is not None and new_turn != state.turn:
            self._emit(ev("turn_end"))
        turn_changed = new_turn != state.turn
        state.turn, state.phase, state.phasing_side = new_turn, new_phase, new_side
        if turn_changed:
            state.activation_count = 0
            self._emit(ev("turn_start"))
        self._emit(ev("phase_start"))

    def _chit_drawn(self, piece: PieceRef, kind: str) -> None:
        """A chit went into a "drawn" box: any chit drawn (a formation's or
        an End Turn chit) ends the activation under way; a formation chit
        starts its own."""
        st = self.state
        n, sub = self.n, self.sub
        formation = self._formation_of(piece) if "formation" in kind else None
        if st.active_formation is not None:
            # dated to this step, attributed to who ran the activation
            who, whose = self._activation_by
            self._emit(Event("activation_end", n, sub, text=st.active_formation, player=who,
                             side=whose, turn=st.turn, phase=st.phase))
            st.active_formation = None
        if formation:
            self._activation_by = (self.player, self.side)
            st.active_formation = formation
            st.activation_count += 1
            self._emit(Event("activation_start", n, sub, text=formation, player=self.player, side=self.side,
                             turn=st.turn, phase=st.phase))

    def _formation_of(self, piece: PieceRef) -> str | None:
        """The ``Formation`` property of a chit (read once per piece: a
        chit's formation never changes)."""
        pid = piece.id
        if pid in self.chit_formation:
            return self.chit_formation[pid]
        found = self.chit_formation[pid] = read_property(piece, FORMATION)
        return found
