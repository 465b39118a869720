"""Apply VASSAL commands to a :class:`~vmodtool.replay.state.GameState`, as
VASSAL 3.7.26's ``AddPiece``/``RemovePiece``/``ChangePiece``/``MovePiece``
``executeCommand`` do (with ``StackMetrics.merge``, ``Map.placeAt``,
``Map.addPiece`` and ``Stack``'s own bookkeeping), producing typed events.

Problems in the data (unknown pieces or maps, malformed states, global
properties the module does not define) become warnings carrying the step
number; the replay always goes on.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

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
    DeckRef,
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
from vmodtool.replay.positions import Positions
from vmodtool.replay.properties import ModuleProperties
from vmodtool.replay.state import (
    UNIQUE_ID,
    Deck,
    GameObject,
    GameState,
    MapState,
    Piece,
    Stack,
    _split_basic,
    split_levels,
    type_tokens,
)
from vmodtool.replay.viewer import OBSERVER, Viewer
from vmodtool.vassal.commands import (
    AddPiece,
    BeginSave,
    ChangePiece,
    Chat,
    Command,
    GlobalPropertySet,
    LogEntry,
    MovePiece,
    MutableProperty,
    PlayerAdd,
    PlayerRemove,
    Redactor,
    RemovePiece,
    SetBoards,
    SpecialDiceResults,
    TurnState,
    Undo,
    UnknownCommand,
    VersionCheck,
)
from vmodtool.vassal.decks import ALWAYS, DeckState, HandDef, ObscuredState, hidden_by
from vmodtool.vassal.pieces import java_int, written_pairs
from vmodtool.vassal.sequence import decode_sequence, encode_sequence

__all__ = ["Engine", "ReplayWarning", "Roster"]

_NOWHERE = Place(None)
_CHAT_NAME = re.compile(r"^(?:&lt;|<)(.+?)(?:&gt;|>) - ")
#: a dice report in DiceButton's default format (``** $name$ = $result$ ***
#: <$playerName$>``, VASSAL 2.x to 3.7) with the chat's ``*`` prefix: the
#: button, the comma list of dice and the roller's name
_DICE_REPORT = re.compile(r"^\*{2,3} (.+?) = (\d+(?:,\d+)*) \*\*\* (?:&lt;|<)([^<>]+?)(?:&gt;|>)\s*$")


@dataclass
class ReplayWarning:
    """A problem met while replaying: the file, the step (``None`` for the
    saved state a file starts from) and what happened."""

    file: str | None
    step: int | None
    message: str

    def __str__(self) -> str:
        where = f"step {self.step}" if self.step is not None else "saved state"
        return f"{self.file or '-'}: {where}: {self.message}"

    def record(self) -> dict[str, object]:
        return {"file": self.file, "step": self.step, "message": self.message}


class _CardOrigin(NamedTuple):
    """Where a moving piece was: its deck and index there (top = last),
    the hand (private map) it was on, whether the viewer could see it."""

    deck: Deck | None
    position: int
    hand: HandDef | None
    visible: bool


@dataclass
class Roster:
    """Players by id (the VASSAL password, never printed): display name and
    side.  ``label`` gives what may be printed for an id."""

    redactor: Redactor = field(default_factory=Redactor)
    players: dict[str, tuple[str, str | None]] = field(default_factory=dict)

    def add(self, player_id: str, name: str, side: str | None) -> None:
        if player_id:
            self.players[player_id] = (name, side)
            self.redactor.learn(player_id, name or None)

    def who(self, player_id: str | None) -> tuple[str | None, str | None]:
        """(display name, side) for a player id; an id without a roster entry
        gets a stable ``player-N`` label."""
        if not player_id:
            return None, None
        found = self.players.get(player_id)
        if found is not None:
            return found
        return self.redactor.label(player_id), None

    def by_name(self, name: str) -> tuple[str | None, str | None]:
        for pname, side in self.players.values():
            if pname == name:
                return pname, side
        return None, None


class Engine:
    """One game state and the rules VASSAL applies to it."""

    def __init__(self, positions: Positions, roster: Roster, *, file: str | None = None,
                 properties: ModuleProperties | None = None, viewer: Viewer = OBSERVER,
                 hands: Mapping[str, HandDef] | None = None,
                 add_plans: dict[str, Any] | None = None) -> None:
        """``properties``: the global properties of the module (when one is
        given), so that a command naming another one is dropped and reported
        as VASSAL drops it.  ``viewer``: who watches (which cards events
        name); ``hands``: the module's private maps by name; ``add_plans``:
        AddPiece texts parsed so far (:func:`_plan_add`), shared by the
        engines of a chain's logs."""
        self.add_plans: dict[str, Any] = add_plans if add_plans is not None else {}
        self.positions = positions
        self.viewer = viewer
        self.hands: Mapping[str, HandDef] = hands or {}
        #: decks whose order a ``D/`` changed in this step, with the event
        #: (a shuffle report later in the step makes it a shuffle)
        self.reordered: list[tuple[Deck, DeckOrderEvent]] = []
        #: cards went from a deck into another in this step (a reshuffle?)
        self.deck_to_deck = False
        #: target deck id -> (the deck sent into it, the step): a shuffle of
        #: the target in the next step completes the reshuffle
        self.sent_into: dict[str, tuple[str, int | None]] = {}
        self.roster = roster
        self.properties = properties
        self.state = GameState()
        self.file = file
        self.step_number: int | None = None
        self.warnings: list[ReplayWarning] = []
        self.events: list[Event] = []
        self.player_ids: list[str] = []
        self.undo_brackets = 0
        self.unknown_commands = 0
        self.in_restore = True
        #: pieces whose place on the board of the VASSAL that wrote the log
        #: may differ from the replay's: moved by an unlogged stack's move
        #: (:meth:`unlogged_stack_move`) or left where a removed stack that
        #: still held them was; piece id -> (map, x, y) there, until a logged
        #: command moves or removes the piece
        self.ghosts: dict[str, tuple[str | None, int, int]] = {}
        #: unlogged stacks' ids -> their members
        self.ghost_stacks: dict[str, list[str]] = {}
        #: ids removed so far -> the step that removed them
        self.removed_at: dict[str, int | None] = {}
        for name in positions.map_names():
            self.state.maps[name] = MapState(name, stacking=positions.stacking(name))

    # ------------------------------------------------------------------ util
    def warn(self, message: str) -> None:
        self.warnings.append(ReplayWarning(self.file, self.step_number, message))

    def map_for(self, map_id: str) -> MapState | None:
        """``Map.getMapById``.  Without a module every map id is accepted;
        with one, a map the module lacks is reported (once per replay) and
        created anyway, so that its pieces stay tracked."""
        m = self.state.maps.get(map_id)
        if m is not None:
            return m
        m = MapState(map_id, known=not self.positions.has_module)
        self.state.maps[map_id] = m
        if self.positions.has_module:
            self.warn_once(("map", map_id),
                           f"map {map_id!r} is not in the module; its pieces are tracked "
                           "in pixels")
        return m

    def warn_once(self, key: Hashable, message: str) -> None:
        reported = self.positions.reported
        if key not in reported:
            reported.add(key)
            self.warn(message)

    def place_of(self, obj: GameObject) -> Place:
        parent = obj.parent
        if parent is not None:
            m = parent.map
            if m is None:
                return _NOWHERE
            return self.positions.place(m.name, parent.x, parent.y)
        m = obj.map
        if m is None:
            return _NOWHERE
        return self.positions.place(m.name, obj.x, obj.y)

    @staticmethod
    def ref(p: Piece) -> PieceRef:
        levels = p._levels
        return PieceRef(p.id, p.type, (*(levels if levels is not None else p.levels), p.basic))

    # --------------------------------------------------------------- dispatch
    def apply(self, cmd: Command) -> None:
        """Execute one leaf command (a ``LOG`` entry's logged command is
        unwrapped; ``LOG<TAB>null`` and empty leaves do nothing)."""
        if isinstance(cmd, LogEntry):
            inner = cmd.logged
            if inner is None:
                return
            cmd = inner
        self.execute(cmd)

    def execute(self, cmd: Command) -> None:
        """Execute one command that is not a ``LOG`` entry."""
        kind = type(cmd)
        handler = _HANDLERS.get(kind)
        if handler is None:
            for base, fn in _HANDLERS_BY_BASE:
                if isinstance(cmd, base):
                    handler = fn
                    break
        if handler is not None:
            try:
                handler(self, cmd)
            except (ValueError, IndexError, KeyError) as exc:
                self.warn(f"{cmd.kind} could not be applied ({exc}): {self._short(cmd)}")

    def apply_all(self, commands: Iterable[Command]) -> None:
        """:meth:`apply` each command (a saved state's thousands of
        AddPieces go to :meth:`on_add` directly; while restoring, a piece or
        a stack whose AddPiece was planned before is made here from its
        plan, as :meth:`_add_fresh_piece` and :meth:`_add_fresh_stack` would
        make it, without their calls: a chain's saved states repeat most of
        the previous log's AddPieces)."""
        on_add = self.on_add
        apply = self.apply
        plans = self.add_plans
        get_plan = plans.get
        game = self.state
        pieces = game.pieces
        maps = game.maps
        fresh = Piece.fresh
        for cmd in commands:
            if type(cmd) is AddPiece:
                plan = get_plan(cmd.text) if self.in_restore else None
                if plan is not None and plan[1] is not None:
                    if plan[0] is None:
                        _, piece_id, type_text, ntraits, state, basic, map_id, x, y = plan
                        piece = fresh(piece_id, type_text, ntraits, state, basic, x, y)
                        pieces[piece_id] = piece          # GameState.register
                        if map_id is not None:
                            m = maps.get(map_id)
                            if m is None:
                                m = self.map_for(map_id)
                            if m is not None:
                                piece.map = m
                                m.add_new(piece)
                        continue
                    if self._restore_stack(plan):
                        continue
                try:
                    on_add(cmd)
                except (ValueError, IndexError, KeyError) as exc:
                    self.warn(f"{cmd.kind} could not be applied ({exc}): {self._short(cmd)}")
            else:
                apply(cmd)

    def _restore_stack(self, plan: _StackPlan) -> bool:
        """:meth:`_add_fresh_stack` for a stack of a saved state whose
        listed ids are all pieces in no stack (each listed once), or are its
        ``@@layer`` (False, nothing done, for anything else: the general
        path warns or moves members up)."""
        _, stack_id, map_id, x, y, toks = plan
        if stack_id is None:
            return False
        pieces = self.state.pieces
        members: list[Piece] = []
        layer = -1
        for tok, tok_layer in toks:
            child = pieces.get(tok)
            if child is None:
                if tok_layer is not None:
                    if tok_layer is not _NO_LAYER:
                        layer = tok_layer
                elif tok:
                    return False
            elif child.parent is not None or not isinstance(child, Piece):
                return False
            else:
                members.append(child)
        if len(members) > 1 and len(set(members)) != len(members):
            return False                       # listed twice: the general path moves it up
        s = Stack(stack_id)
        pieces[stack_id] = s                   # GameState.register
        s.x = x
        s.y = y
        s.layer = layer
        s.members = members
        for child in members:
            own = child.map
            if own is not None:          # Stack.insert_child takes it off its map
                own.remove(child)
                child.map = None
            child.parent = s
        if map_id is not None:
            m = self.state.maps.get(map_id)
            if m is None:
                m = self.map_for(map_id)
            if m is not None:
                s.map = m
                for child in members:
                    child.map = m
                m.add_new(s)
        return True

    def _short(self, cmd: Command) -> str:
        text = self.roster.redactor.scrub(cmd.text)
        return text if len(text) <= 80 else text[:77] + "..."

    # ----------------------------------------------------------------- pieces
    def on_add(self, cmd: AddPiece) -> None:
        text = cmd.text
        plans = self.add_plans
        plan = plans.get(text, _NO_PLAN)
        if plan is _NO_PLAN:
            plan = plans[text] = _plan_add(text)
        if plan is not None:
            if plan[0] is None:
                self._add_fresh_piece(plan)
            else:
                self._add_fresh_stack(plan)
            return
        parsed = _add_fields(text)
        if parsed is None:
            if cmd._field(2) is None:
                self.warn(f"AddPiece without type or state (truncated?): {self._short(cmd)}")
                return
            parsed = (cmd.piece_id, cmd.type, cmd.state)
        piece_id, type_text, state = parsed
        if type_text == "stack":
            stack = Stack(piece_id)
            self.state.register(stack)
            self.stack_set_state(stack, state)
            return
        if type_text.startswith("deck;"):
            deck = Deck(piece_id, type_text)
            self.state.register(deck)
            self.deck_set_state(deck, state)
            return
        types = type_tokens(type_text)
        basic = types[-1] if types else ""
        if not basic.startswith("piece;"):
            self.warn(f"AddPiece of a piece whose innermost trait is not a basic piece "
                      f"({basic[:20]!r}): {self._short(cmd)}")
            return
        piece = Piece(piece_id, type_text)
        self._check_readd(piece.id)
        self.state.register(piece)
        self.piece_set_state(piece, state)
        self._added(piece)

    def _check_readd(self, piece_id: str | None) -> None:
        if not self.in_restore and piece_id is not None and piece_id in self.state.pieces:
            self.warn(f"AddPiece for id {piece_id} which is already in the game "
                      "(VASSAL keeps both objects)")

    def _added(self, piece: Piece) -> None:
        if not self.in_restore:
            problem = piece.definition_problem()
            if problem is not None:
                self.warn(f"AddPiece {piece.id}: the piece cannot be decoded ({problem}); its "
                          "name and properties are unknown")
            self.events.append(AddEvent(piece=self.ref(piece), target=self.place_of(piece),
                                        visible=not self.hands or self.sees_map(piece.current_map)))

    def _add_fresh_piece(self, plan: _PiecePlan) -> None:
        """What ``Piece(...)``, ``register`` and ``piece_set_state`` do for a
        new piece whose whole state splits on its TABs (:meth:`Piece.set_raw_state`),
        from the AddPiece's text parsed once (:func:`_plan_add`)."""
        _, piece_id, type_text, ntraits, state, basic, map_id, x, y = plan
        piece = Piece.fresh(piece_id, type_text, ntraits, state, basic, x, y)
        game = self.state
        if piece_id is None:
            piece_id = piece.id = game.new_id()
        elif not self.in_restore:
            self._check_readd(piece_id)
        game.pieces[piece_id] = piece          # GameState.register
        m = self.map_for(map_id) if map_id is not None else None
        if m is not None:
            m.add(piece)
        if not self.in_restore:
            self._added(piece)

    def _add_fresh_stack(self, plan: _StackPlan) -> None:
        """What ``Stack(...)``, ``register`` and :meth:`stack_set_state` do
        for a new stack (off every map until its state puts it on one),
        from the AddPiece's text parsed once (:func:`_plan_add`)."""
        _, stack_id, map_id, x, y, toks = plan
        s = Stack(stack_id)
        game = self.state
        if stack_id is None:
            stack_id = s.id = game.new_id()
        game.pieces[stack_id] = s              # GameState.register
        s.x = x
        s.y = y
        new_map = self.map_for(map_id) if map_id is not None else None
        pieces = game.pieces
        members = s.members
        for tok, layer in toks:
            child = pieces.get(tok)
            if child is not None:
                if isinstance(child, Stack):
                    self.warn(f"stack {s.id} lists stack {tok} as a member (ignored)")
                    continue
                # Stack.insert_child on top, the new stack being on no map yet
                parent = child.parent
                if parent is not None:
                    parent.remove(child)
                elif child.map is not None:
                    child.map.remove(child)
                child.parent = s
                child.map = None
                members.append(child)
            elif layer is not None:          # an @@layer token (its value parsed with the plan)
                if layer is not _NO_LAYER:
                    s.layer = layer
            elif tok and not _unread_position(map_id, toks, tok):
                self.warn(f"stack {s.id} lists unknown piece {tok}")
        if new_map is not None:
            new_map.add(s)

    def on_remove(self, cmd: RemovePiece) -> None:
        target = self.state.get(cmd.piece_id)
        if target is None:
            self.warn(f"RemovePiece of unknown piece {cmd.piece_id}{self._gone(cmd.piece_id)}")
            return
        if target.id is not None:
            self.removed_at[target.id] = self.step_number
        if self.ghosts and target.id is not None:
            self.ghosts.pop(target.id, None)
        if isinstance(target, Piece) and not self.in_restore:
            self.events.append(RemoveEvent(piece=self.ref(target), source=self.place_of(target),
                                           visible=not self.hands or self.sees_map(target.current_map)))
        m = target.current_map
        if isinstance(target, Stack) and target.members and m is not None and not self.in_restore:
            # VASSAL 3.7 takes the pieces still in a removed stack off the map
            # with it (an old-style undo of the stack's AddPiece); the VASSAL
            # that wrote the log may have kept them where the stack was
            for member in target.members:
                self.ghosts[member.id or ""] = (m.name, target.x, target.y)
        if m is not None:
            m.remove(target)
            if isinstance(target, Stack):
                target.set_map(None)
            else:
                target.map = None
        if isinstance(target, Piece) and target.parent is not None:
            target.parent.remove(target)
        if target.id is not None and self.state.pieces.get(target.id) is target:
            del self.state.pieces[target.id]

    def on_change(self, cmd: ChangePiece) -> None:
        f = cmd.fields
        piece_id = f[0] if f and f[0] else ""
        target = self.state.pieces.get(piece_id)
        if target is None:
            self.warn(f"ChangePiece of unknown piece {piece_id}")
            return
        if len(f) < 2:
            self.warn(f"ChangePiece without a new state (truncated?): {self._short(cmd)}")
            return
        new = f[1] or ""
        old = f[2] if len(f) > 2 else None
        if isinstance(target, Deck):
            self.on_deck_change(target, new, old)
            return
        if isinstance(target, Stack):
            if old is not None and old != target.state_string():
                new = _merge_stack_state(target, new, old)
            self.stack_set_state(target, new)
            return
        before = self.ref(target) if not self.in_restore else None
        place = self.place_of(target) if before is not None else None
        if old is None:
            self.piece_set_state(target, new)
        else:
            self.piece_merge_state(target, new, old)
        if before is not None:
            after = self.ref(target)
            if after.states != before.states:
                new_place = self.place_of(target)
                # (a piece in a private window the viewer cannot open is not named)
                seen = not self.hands or self.sees_map(target.current_map)
                if place is not None and new_place != place:
                    self.events.append(MoveEvent(piece=after, source=place, target=new_place,
                                                 visible=seen or self.viewer.sees_hand(
                                                     self.hands.get(place.map or ""))))
                if ("obs;" in target.type or "hide;" in target.type) and \
                        not self.mask_events(target, before, after, new_place):
                    return
                self.events.append(ChangeEvent(before=before, after=after, place=new_place, visible=seen))

    def on_move(self, cmd: MovePiece) -> None:
        # the fields read once (MovePiece's properties decode them one by one)
        f = cmd.fields
        if len(f) < 9:
            self.warn(f"MovePiece with missing fields (truncated?): {self._short(cmd)}")
            return
        piece_id = f[0] or ""
        piece = self.state.pieces.get(piece_id)
        if piece is None:
            self.unlogged_stack_move(cmd)
            return
        is_stack = isinstance(piece, Stack)
        if self.ghosts:
            for p in (piece.members if is_stack else [piece]):     # type: ignore[union-attr]
                self.ghosts.pop(p.id or "", None)
        player = f[9] if len(f) > 9 and f[9] != "null" else None
        if player:
            self.player_ids.append(player)
        movers: list[Piece] = piece.members[:] if is_stack else [piece]     # type: ignore[union-attr,list-item]
        place_of = self.place_of
        befores = [place_of(p) for p in movers] if not self.in_restore else None
        # where each mover came from when a deck or a hand is involved: (its
        # deck, its index there, the hand it was on, whether the viewer saw it)
        cards: list[_CardOrigin] | None = None
        if befores is not None and (self.hands or self.state.has_decks):
            cards = [self.card_origin(p) for p in movers]
        new_map_id = f[1]
        new_map = self.map_for(new_map_id) if new_map_id != "null" else None
        if new_map is not None:
            pos = cmd.new_position
            under_id = f[4] if f[4] != "null" else None
            if under_id is not None:
                under = self.state.get(under_id)
                if (under is not None and under.position == pos
                        and under.current_map is new_map):
                    self.merge(new_map, under, piece)
                elif not self.merge_finder(new_map, piece, pos):
                    self.stack_or_place(piece, new_map, pos)
            else:
                if not self.merge_finder(new_map, piece, pos):
                    self.stack_or_place(piece, new_map, pos)
                if piece.parent is not None:
                    piece.parent.insert(piece, 0)
        else:
            old_map_id = cmd.old_map
            old_map = self.state.maps.get(old_map_id) if old_map_id is not None else None
            if old_map is not None:
                old_map.remove(piece)
        if befores is not None:
            stack_id = piece.id if piece.is_stack else None
            old_map_id = cmd.old_map
            for i, before in enumerate(befores):
                if before.map is None and old_map_id is not None:
                    # off all maps now (e.g. its stack was removed by an undo):
                    # the command's own origin is where it came from
                    ox, oy = cmd.old_position
                    loc, cell = self.positions.locate(old_map_id, ox, oy)
                    befores[i] = Place(old_map_id, ox, oy, loc, cell)
            if cards is not None:
                for k, (p, before) in enumerate(zip(movers, befores, strict=True)):
                    self.card_event(p, before, cards[k], stack_id, player)
            else:
                append = self.events.append
                ref = self.ref
                for p, before in zip(movers, befores, strict=True):
                    append(MoveEvent(piece=ref(p), source=before, target=place_of(p), stack_id=stack_id))

    def unlogged_stack_move(self, cmd: MovePiece) -> None:
        """A MovePiece naming an id no command created.  VASSAL gives a
        stack it makes while executing a move (a piece dropped where no
        stack is, as an old-style undo does) a fresh id on the mover's
        machine and logs no ``+/`` for it; a later move of that whole stack
        names the id.  VASSAL replaying the log does not know the id and
        ignores the move, as the replay does; on the mover's board the
        stack moved.  When the move's origin holds exactly one stack (one the
        replay created itself, ``replay-N``, or one the saved state names by
        another id), its members are that stack:
        :attr:`ghosts` keeps where they are on the mover's board (until a
        logged command moves them), so that a next log saved on the mover's
        machine is not read as pieces moved between the logs."""
        piece_id = cmd.piece_id or ""
        members = self.ghost_stacks.get(piece_id)
        where = "the mover's board"
        if members is None:
            old_map_id = cmd.old_map
            m = self.state.maps.get(old_map_id) if old_map_id is not None else None
            x, y = cmd.old_position
            found = [o for o in (m.at(x, y) if m is not None else [])
                     if isinstance(o, Stack) and o.members]
            if piece_id in self.removed_at or len(found) != 1:
                gone = self._gone(piece_id) or f" (no stack at its origin {cmd.old_map} {x},{y})"
                self.warn(f"MovePiece of unknown piece {cmd.piece_id}{gone}: ignored, as VASSAL "
                          "ignores it")
                return
            members = [p.id or "" for p in found[0].members]
            self.ghost_stacks[piece_id] = members
            where = f"{self.place_of(found[0]).label()}"
        new_map = cmd.new_map
        nx, ny = cmd.new_position
        for pid in members:
            self.ghosts[pid] = (new_map, nx, ny)
        names = ", ".join(p.name for p in (self.state.get(i) for i in members) if isinstance(p, Piece))
        if new_map is not None:
            loc, cell = self.positions.locate(new_map, nx, ny)
            target = Place(new_map, nx, ny, loc, cell).label()
        else:
            target = "nowhere"
        self.warn(f"MovePiece of stack {piece_id}, which VASSAL created on the mover's machine without "
                  f"logging it ({names} at {where}): VASSAL replaying the log ignores the move, "
                  f"as the replay does; on the mover's board the pieces went to {target}")

    def _gone(self, piece_id: str | None) -> str:
        """Why an id is unknown when an earlier command removed it."""
        if piece_id is None or piece_id not in self.removed_at:
            return ""
        step = self.removed_at[piece_id]
        return (f" (removed at step {step}; VASSAL ignores a command naming a removed piece)"
                if step is not None else " (removed in the saved state)")


    # ------------------------------------------------ decks, hands, masks
    def hand_of(self, m: MapState | None) -> HandDef | None:
        return self.hands.get(m.name) if m is not None else None

    def sees_map(self, m: MapState | None) -> bool:
        """Whether the viewer may look at map ``m`` (a public map, or a
        private window it may open)."""
        return self.viewer.sees_hand(self.hand_of(m))

    @staticmethod
    def deck_ref(d: Deck) -> DeckRef:
        return DeckRef(d.id, d.name, len(d.members))

    @staticmethod
    def count_on(m: MapState | None) -> int:
        """The pieces on a map outside its decks (a hand's card count)."""
        if m is None:
            return 0
        n = 0
        for obj in m.pieces:
            if isinstance(obj, Deck):
                continue
            n += len(obj.members) if isinstance(obj, Stack) else 1
        return n

    def _mover_name(self, player: str | None) -> str | None:
        if player:
            return self.roster.who(player)[0]
        return self.roster.who(self.player_ids[-1])[0] if self.player_ids else None

    @staticmethod
    def _level_of(p: Piece, prefix: str) -> str | None:
        """The state of the piece's outermost trait with this type prefix."""
        if prefix not in p.type:
            return None
        for i, tok in enumerate(type_tokens(p.type)[:-1]):
            if tok.startswith(prefix):
                levels = p.levels
                return levels[i] if i < len(levels) else ""
        return None

    def masked_by(self, p: Piece) -> str | None:
        """The player id that masks the piece (``obs;``), or None."""
        state = self._level_of(p, "obs;")
        return ObscuredState.parse(state).by if state is not None else None

    def hidden_by(self, p: Piece) -> str | None:
        state = self._level_of(p, "hide;")
        return hidden_by(state) if state is not None else None

    def visible(self, p: Piece) -> bool:
        """Whether the viewer could see which piece this is where it is now."""
        viewer = self.viewer
        if viewer.referee:
            return True
        for by in (self.masked_by(p), self.hidden_by(p)):
            if by is not None and not viewer.sees_masked(self.roster.who(by)[1], by):
                return False
        parent = p.parent
        if isinstance(parent, Deck) and parent.face_down:
            return False
        return self.sees_map(p.current_map)

    def seen_ref(self, p: Piece, ref: PieceRef | None = None) -> PieceRef:
        """The piece's ref named as one who sees through its mask or hide
        sees it (``Obscurable``/``Hideable`` answer others with the mask's
        name): the BasicPiece's own name when a mask or hide is on."""
        ref = ref if ref is not None else self.ref(p)
        if self.masked_by(p) is not None or self.hidden_by(p) is not None:
            basic = decode_sequence(type_tokens(p.type)[-1], ";")
            ref._name = basic[4] if len(basic) > 4 else ""
        return ref

    def card_origin(self, p: Piece) -> _CardOrigin:
        parent = p.parent
        deck = parent if isinstance(parent, Deck) else None
        index = -1
        if deck is not None:
            for i, member in enumerate(deck.members):
                if member is p:
                    index = i
                    break
        return _CardOrigin(deck, index, self.hand_of(p.current_map), self.visible(p))

    def card_event(self, p: Piece, before: Place, origin: _CardOrigin, stack_id: str | None,
                   player: str | None) -> None:
        """The event of a piece moving from/to a deck or a hand (else a plain
        move)."""
        parent = p.parent
        new_deck = parent if isinstance(parent, Deck) else None
        old_deck = origin.deck
        target = self.place_of(p)
        ref = self.ref(p)
        who = self._mover_name(player)
        hand = self.hand_of(p.current_map)
        if old_deck is not None and old_deck is not new_deck and new_deck is None:
            visible = self.visible(p)
            if visible:
                ref = self.seen_ref(p, ref)
            self.events.append(CardDrawEvent(
                piece=ref, source=before, target=target, stack_id=stack_id,
                deck=self.deck_ref(old_deck), hand=hand.name if hand is not None else None,
                hand_count=self.count_on(p.current_map) if hand is not None else None,
                player=who, visible=visible))
            if origin.position != len(old_deck.members) and old_deck.deck_type.shuffle_option != ALWAYS:
                # not the top card (the deck had len+1 cards, its top at len)
                self.events.append(DeckOrderEvent(deck=self.deck_ref(old_deck), how="searched",
                                                  searched=True, player=who))
            return
        if new_deck is not None and old_deck is not new_deck:
            if origin.visible or self.visible(p):
                ref = self.seen_ref(p, ref)
            if origin.hand is not None and not new_deck.face_down and self.hand_of(new_deck.map) is None:
                self.events.append(CardPlayEvent(
                    piece=self.seen_ref(p, ref), source=before, target=target, stack_id=stack_id,
                    from_hand=origin.hand.name, deck=self.deck_ref(new_deck), player=who,
                    hand_count=self.count_on(self.state.maps.get(origin.hand.name))))
            else:
                if old_deck is not None:
                    self.deck_to_deck = True
                self.events.append(CardReturnEvent(
                    piece=ref, source=before, target=target, stack_id=stack_id,
                    deck=self.deck_ref(new_deck),
                    from_hand=origin.hand.name if origin.hand is not None else None,
                    player=who, visible=origin.visible or self.visible(p)))
            return
        if origin.hand is not None and hand is None and self.masked_by(p) is None:
            self.events.append(CardPlayEvent(
                piece=ref, source=before, target=target, stack_id=stack_id,
                from_hand=origin.hand.name, player=who,
                hand_count=self.count_on(self.state.maps.get(origin.hand.name))))
            return
        # inside private windows the viewer cannot open (a card rearranged in
        # another side's hand, or passed between two such): not named
        viewer = self.viewer
        unseen = (origin.hand is not None and not viewer.sees_hand(origin.hand)
                  and hand is not None and not viewer.sees_hand(hand))
        if not unseen and (origin.hand is not None or hand is not None) and self.visible(p):
            ref = self.seen_ref(p, ref)     # (a card its hand's side masked: that side sees it)
        self.events.append(MoveEvent(piece=ref, source=before, target=target, stack_id=stack_id,
                                     visible=not unseen))

    def mask_events(self, p: Piece, before: PieceRef, after: PieceRef, place: Place) -> bool:
        """MaskEvent/HideEvent for a change of an ``obs;``/``hide;`` state.
        False when the change was only that (no ChangeEvent then); a card
        still in its deck (``Deck.pieceRemoved`` masking a card being drawn)
        gets no event of its own."""
        types = type_tokens(p.type)
        olds, news = before.states, after.states
        in_view = self.sees_map(p.current_map)
        other = False
        found: list[Event] = []
        for i in range(max(len(olds), len(news))):
            a = olds[i] if i < len(olds) else ""
            b = news[i] if i < len(news) else ""
            if a == b:
                continue
            tok = types[i] if i < len(types) else ""
            if tok.startswith("obs;"):
                old_by, new_by = ObscuredState.parse(a).by, ObscuredState.parse(b).by
                if (old_by is None) == (new_by is None):
                    continue
                by = new_by if new_by is not None else old_by
                name, side = self.roster.who(by) if by != "nobody" else ("the deck", None)
                masked = new_by is not None
                seen = in_view and (not masked or self.viewer.sees_masked(side, by))
                found.append(MaskEvent(piece=self.seen_ref(p) if seen else after, masked=masked, by=name,
                                       side=side, place=place, visible=seen))
            elif tok.startswith("hide;"):
                old_h, new_h = hidden_by(a), hidden_by(b)
                if (old_h is None) == (new_h is None):
                    continue
                by = new_h if new_h is not None else old_h
                name, side = self.roster.who(by)
                hidden = new_h is not None
                seen = in_view and (not hidden or self.viewer.sees_masked(side, by))
                found.append(HideEvent(piece=self.seen_ref(p) if seen else after, hidden=hidden, by=name,
                                       side=side, place=place, visible=seen))
            else:
                other = True
        if isinstance(p.parent, Deck):
            return other
        self.events.extend(found)
        return other or not found

    def on_deck_change(self, d: Deck, new: str, old: str | None) -> None:
        """``ChangePiece`` of a deck: ``Stack.mergeState`` (Deck does not
        override it) when the deck changed since ``old``, then
        ``Deck.setState``; a face change or a new order is an event."""
        before_ids = [m.id for m in d.members]
        before_face = d.face_down
        if old is not None and old != d.state_string():
            new = _merge_stack_state(d, new, old)
        self.deck_set_state(d, new)
        if self.in_restore:
            return
        if d.face_down != before_face:
            self.events.append(DeckFaceEvent(deck=self.deck_ref(d), face_down=d.face_down))
        after_ids = [m.id for m in d.members]
        if after_ids != before_ids:
            how = "by hand" if sorted(map(str, after_ids)) == sorted(map(str, before_ids)) else "contents set"
            ev = DeckOrderEvent(deck=self.deck_ref(d), how=how, player=self._mover_name(None))
            self.events.append(ev)
            if how == "by hand":
                self.reordered.append((d, ev))

    def deck_set_state(self, d: Deck, state: str) -> None:
        """``Deck.setState``: position, map, face-down flag, then
        ``setContents`` (``removeAll`` and each listed card inserted in
        order; a card no longer listed keeps its parent pointer, as
        ``Stack.removeAll`` leaves it)."""
        ds = DeckState.parse(state)
        d.x, d.y = ds.x, ds.y
        new_map = self.map_for(ds.map) if ds.map is not None else None
        if new_map is not d.map:
            if new_map is not None:
                new_map.add(d)
            else:
                if d.map is not None:
                    d.map.remove(d)
                d.set_map(None)
        elif d.map is not None:
            d.map.relocate(d)
        d.face_down = ds.face_down
        d.members.clear()
        pieces = self.state.pieces
        for card_id in ds.cards:
            child = pieces.get(card_id)
            if child is None:
                self.warn(f"deck {d.id} ({d.name}) lists unknown piece {card_id}")
                continue
            if isinstance(child, Stack):
                self.warn(f"deck {d.id} ({d.name}) lists stack {card_id} as a card (ignored)")
                continue
            d.insert_child(child, len(d.members))

    def finish_step(self, chat_lines: list[str]) -> None:
        """At the end of a step: a deck reordered in it was shuffled when
        the step reports the deck's shuffle (its ``shuffleMsgFormat``) —
        a reshuffle when cards came in from another deck first.  A deck
        emptied into its reshuffle target (``Deck.sendToDeck``) whose target
        draws at random (shuffleOption Always: no ``D/`` needed) is a
        reshuffle too."""
        sent: dict[str, tuple[str, DeckRef]] = {}      # target deck id -> (source name, target)
        for e in self.events:
            if isinstance(e, CardReturnEvent) and e.source.map is not None and e.deck.id is not None:
                source = self._deck_at(e.source)
                if source is not None and source.deck_type.reshuffle_target == e.deck.name:
                    sent[e.deck.id] = (source.name, e.deck)
        for d, ev in self.reordered:
            if not _reports_shuffle(d, chat_lines):
                continue
            origin = sent.pop(d.id or "", None)
            from_deck = origin[0] if origin else None
            earlier = self.sent_into.pop(d.id or "", None)
            if from_deck is None and earlier is not None and self.step_number is not None and \
                    earlier[1] == self.step_number - 1:
                from_deck = earlier[0]
            shuffle = DeckShuffleEvent(deck=ev.deck, from_deck=from_deck, player=ev.player)
            self.events[self.events.index(ev)] = shuffle
        for deck_id, (source_name, _) in sent.items():
            self.sent_into[deck_id] = (source_name, self.step_number)
            target = self.state.get(deck_id)
            source = next((o for o in self.state.decks() if o.name == source_name), None)
            if isinstance(target, Deck) and target.deck_type.shuffle_option == ALWAYS and \
                    source is not None and not source.members:
                self.events.append(DeckShuffleEvent(deck=self.deck_ref(target), from_deck=source_name,
                                                    player=self._mover_name(None)))
        self.reordered = []

    def _deck_at(self, place: Place) -> Deck | None:
        for o in self.state.decks():
            if o.map is not None and o.map.name == place.map and (o.x, o.y) == (place.x, place.y):
                return o
        return None

    # ------------------------------------------------------- VASSAL internals
    def piece_set_state(self, p: Piece, state: str) -> None:
        """``Decorator.setState`` down the chain, then ``BasicPiece.setState``."""
        n = p.ntraits
        basic = p.set_raw_state(state)
        if basic is not None:
            self.basic_set_state(p, basic)
            return
        levels = split_levels(state, n)
        if len(levels) < n:
            self.warn(f"piece {p.id}: state has {len(levels)} level(s) for {n} trait(s); "
                      "the traits without a state keep theirs")
            for i, tok in enumerate(levels):
                if i < len(p.levels):
                    p.levels[i] = tok
                elif i == len(p.levels) and i < n - 1:
                    p.levels.append(tok)
            p._state = None
            p._def = None
            return
        p._levels = list(levels[:-1])
        p._state = None
        p._def = None
        self.basic_set_state(p, levels[-1])

    def piece_merge_state(self, p: Piece, new: str, old: str) -> None:
        """``Decorator.mergeState``: a trait whose old and new tokens are equal
        keeps its current state; the BasicPiece takes the new state only when
        it differs from the old one."""
        n = p.ntraits
        news = split_levels(new, n)
        olds = split_levels(old, n)
        if len(news) < n or len(olds) < n:
            self.warn(f"piece {p.id}: changed state has fewer levels than its {n} traits")
        levels = p.levels
        last = n - 1
        for i in range(min(len(news), len(olds), n)):
            if i == last:
                if news[i] != olds[i]:
                    self.basic_set_state(p, news[i])
            elif news[i] != olds[i]:
                if i < len(levels):
                    levels[i] = news[i]
        p._state = None
        p._def = None

    def basic_set_state(self, p: Piece, state: str) -> None:
        map_id, x, y = _split_basic(state)
        new_map = None if map_id == "null" else self.map_for(map_id)
        old_map = p.current_map
        p.x, p.y = x, y
        if p.map is not None:
            p.map.relocate(p)
        if new_map is not old_map:
            if new_map is not None:
                new_map.add(p)
            else:
                if old_map is not None:
                    old_map.remove(p)
                p.map = None
        old_basic = p.basic
        if UNIQUE_ID in old_basic and UNIQUE_ID not in state:
            state = _keep_unique_id(old_basic, state)
        p.basic = state

    def stack_set_state(self, s: Stack, state: str) -> None:
        """``Stack.setState``: position, members bottom → top (each taken out
        of its previous stack or map), layer, map."""
        self._stack_set_tokens(s, *_stack_tokens(state))

    def _stack_set_tokens(self, s: Stack, map_id: str | None, x: int, y: int,
                          toks: Sequence[str]) -> None:
        """:meth:`stack_set_state` from the state's fields (:func:`_stack_tokens`)."""
        s.x = x
        s.y = y
        if s.map is not None:
            s.map.relocate(s)
        s.members.clear()
        new_map = None if map_id is None else self.map_for(map_id)
        pieces = self.state.pieces
        for tok in toks:
            child = pieces.get(tok)
            if child is not None:
                if isinstance(child, Stack):
                    self.warn(f"stack {s.id} lists stack {tok} as a member (ignored)")
                    continue
                s.insert_child(child, len(s.members))
            elif tok.startswith("@@"):
                layer = java_int(tok[2:])
                if layer is not None:
                    s.layer = layer
            elif tok and not _unread_position(map_id, toks, tok):
                self.warn(f"stack {s.id} lists unknown piece {tok}")
        if new_map is not s.map:
            if new_map is not None:
                new_map.add(s)
            else:
                s.set_map(None)

    def merge_finder(self, m: MapState, p: GameObject, pt: tuple[int, int]) -> bool:
        """``MovePiece.createMergeFinder`` applied to the map's top-level
        pieces in drawing order: merge into the first stack (or stackable
        piece) exactly at the point.  True when one was found."""
        x, y = pt
        decks = self.state.has_decks
        stacks = m.stacking and not (isinstance(p, Piece) and p.no_stack)
        if not (decks or stacks):
            return False
        for obj in m.at(x, y):
            if decks and isinstance(obj, Deck):
                # MovePiece.createMergeFinder: a deck exactly at the point takes
                # the piece whatever the stacking rules (even when empty)
                self.merge(m, obj, p)
                return True
            if not stacks:
                continue
            if isinstance(obj, Stack):
                if obj.members:
                    self.merge(m, obj, p)
                    return True
            elif not obj.no_stack:
                self.merge(m, obj, p)
                return True
        return False

    def merge(self, m: MapState, fixed: GameObject, moving: GameObject) -> None:
        """``StackMetrics.merge``: put ``moving`` just above ``fixed`` (on top
        of it when ``fixed`` is a stack), creating a stack if needed."""
        if isinstance(fixed, Stack) and fixed.members:
            fixed = fixed.members[-1]
        fixed_parent: Stack | None = None
        index = 0
        if isinstance(fixed, Piece) and fixed.parent is not None:
            fixed_parent = fixed.parent
            index = fixed_parent.members.index(fixed) + 1
        if moving is fixed or moving is fixed_parent:
            return
        if fixed_parent is None:
            if isinstance(fixed, Stack):
                fixed_parent = fixed
                index = len(fixed.members)
            else:
                fixed_parent = Stack(None)
                fmap = fixed.current_map
                fixed_parent.set_map(fmap)
                fixed_parent.x, fixed_parent.y = fixed.position
                fixed_parent.insert(fixed, 0)
                self.state.register(fixed_parent)
                if fmap is not None:
                    fmap.add(fixed_parent)
                index = 1
        if isinstance(moving, Stack):
            for p in list(moving.members):
                fixed_parent.insert_child(p, index)
                index += 1
        else:
            if moving.parent is fixed_parent and fixed_parent.members.index(moving) < index:
                index -= 1
            mm = moving.current_map
            if mm is not None and mm is not m:
                mm.remove(moving)
            fixed_parent.insert(moving, index)

    def stack_or_place(self, p: GameObject, m: MapState, pt: tuple[int, int]) -> None:
        placed: GameObject = p
        if m.stacking and isinstance(p, Piece) and p.parent is None and not p.no_stack:
            s = Stack(None)
            s.insert(p, 0)
            self.state.register(s)
            placed = s
        placed.x, placed.y = pt
        m.add(placed)

    # ------------------------------------------------------------ the rest
    def on_chat(self, cmd: Chat) -> None:
        if self.in_restore:
            return
        message = cmd.message
        if message.startswith("** ") or message.startswith("*** "):
            last = self.events[-1] if self.events else None
            if isinstance(last, DiceEvent) and not last.message:
                last.message = message
            else:
                m = _DICE_REPORT.match(message)
                self.events.append(DiceEvent(message=message, button=m.group(1) if m else None,
                                             results=[int(v) for v in m.group(2).split(",")] if m else None))
        else:
            self.events.append(ChatEvent(message=message))

    def on_dice(self, cmd: SpecialDiceResults) -> None:
        if not self.in_restore:
            self.events.append(DiceEvent(button=cmd.button, results=cmd.results))

    def _undefined_property(self, cmd: MutableProperty | GlobalPropertySet) -> bool:
        """True (after a warning) when the module does not define the
        property: VASSAL decodes such a command as null and drops it."""
        if self.properties is None or self.properties.defines(cmd.name, cmd.container):
            return False
        where = f"container {cmd.container!r}" if cmd.container else "any container"
        self.warn(f"{cmd.kind} names global property {cmd.name!r}, which the module does not "
                  f"define in {where}; VASSAL drops the command (not applied)")
        return True

    def on_mutable(self, cmd: MutableProperty) -> None:
        if self._undefined_property(cmd):
            return
        key = (cmd.container, cmd.name)
        old = self.state.global_properties.get(key)
        self.state.global_properties[key] = cmd.new_value
        if not self.in_restore:
            self.events.append(PropertyEvent(name=cmd.name, old=cmd.old_value if old is None
                                             else old, new=cmd.new_value,
                                             container=cmd.container))

    def on_global(self, cmd: GlobalPropertySet) -> None:
        if self._undefined_property(cmd):
            return
        name, container = cmd.name, cmd.container
        if "\t" in name:
            # a ZoneProperty's id (name, zone, board, map): the zone's
            # property, under the container id its changes name (``map:zone``)
            parts = name.split("\t")
            if len(parts) == 4:
                name, container = parts[0], f"{parts[3]}:{parts[1]}"
        key = (container, name)
        old = self.state.global_properties.get(key)
        self.state.global_properties[key] = cmd.value
        if not self.in_restore and old != cmd.value:
            self.events.append(PropertyEvent(name=name, old=old, new=cmd.value, container=container))

    def on_turn(self, cmd: TurnState) -> None:
        old = self.state.turns.get(cmd.tracker_id)
        self.state.turns[cmd.tracker_id] = cmd.state
        if not self.in_restore and old != cmd.state:
            self.events.append(TurnEvent(tracker=cmd.tracker_id, old=old, new=cmd.state))

    def on_player(self, cmd: PlayerAdd) -> None:
        known = cmd.player_id in self.roster.players
        self.roster.add(cmd.player_id, cmd.name, cmd.side)
        if not self.in_restore and not known:
            self.events.append(PlayerEvent(name=cmd.name, side=cmd.side))

    def on_player_remove(self, cmd: PlayerRemove) -> None:
        name, side = self.roster.who(cmd.player_id)
        if not self.in_restore:
            self.events.append(PlayerEvent(name=name or "", side=side, joined=False))

    def on_boards(self, cmd: SetBoards) -> None:
        boards = cmd.boards
        self.state.boards[cmd.map_id] = boards
        if self.positions.has_module and not self.positions.knows_map(cmd.map_id):
            self.warn_once(("map", cmd.map_id), f"map {cmd.map_id!r} is not in the module; "
                           "its pieces are tracked in pixels")
        problem = self.positions.set_boards(cmd.map_id, boards)
        if problem:
            self.warn_once(("boards", cmd.map_id, problem),
                           f"map {cmd.map_id!r}: {problem}; its locations stay in pixels")
        if not self.in_restore:
            self.events.append(BoardsEvent(map=cmd.map_id, boards=boards))

    def on_undo(self, cmd: Undo) -> None:
        self.undo_brackets += 1 if cmd.in_progress else 0

    def on_unknown(self, cmd: UnknownCommand) -> None:
        if isinstance(cmd, VersionCheck):
            return
        self.unknown_commands += 1
        if not self.in_restore:
            self.events.append(UnknownEvent(prefix=cmd.prefix,
                                            command=self._short(cmd)))

    def on_begin(self, cmd: BeginSave) -> None:
        pass

    def chat_player(self, events: list[Event]) -> tuple[str | None, str | None]:
        """A step's player when it has no move: the name in a user chat line
        ``<Name> - text`` or in a dice report in the default format
        (``*** 2d6 = 3,5 *** <Name>``) if it is a roster name."""
        for ev in events:
            if isinstance(ev, (ChatEvent, DiceEvent)):
                dice = isinstance(ev, DiceEvent)
                m = (_DICE_REPORT if dice else _CHAT_NAME).match(ev.message)
                if m:
                    name, side = self.roster.by_name(m.group(3 if dice else 1))
                    if name is not None:
                        return name, side
        return None, None


def _add_fields(text: str) -> tuple[str | None, str, str] | None:
    """``+/id/type/state`` split quickly when the state holds no ``/`` and
    nothing is quoted (else None: use the full decoder).  The type as
    written is checked and decoded once (:func:`_add_type`): pieces of one
    kind share it, and it is most of the text."""
    i = text.find("/", 2)
    if i < 0 or text.find("'", 2) >= 0:
        return None
    j = text.rfind("/", 2)
    if j <= i or text[j - 1] == "\\":
        return None
    type_raw = text[i + 1:j]
    type_text = _ADD_TYPES.get(type_raw, _NO_PLAN)
    if type_text is _NO_PLAN:
        type_text = _add_type(type_raw)
    if type_text is None:
        return None
    piece_id = text[2:i]
    return (None if piece_id == "null" else piece_id, type_text, text[j + 1:])


#: :func:`_add_type` by the type as written (emptied past
#: :data:`_ADD_TYPES_LIMIT` characters of keys: types run to kilobytes)
_ADD_TYPES: dict[str, str | None] = {}
_ADD_TYPES_CHARS = [0]
_ADD_TYPES_LIMIT = 32 * 1024 * 1024


def _add_type(type_raw: str) -> str | None:
    """The type field of an AddPiece as written, decoded when its only
    escapes are of ``/`` (None: not one token, or other escapes), kept in
    :data:`_ADD_TYPES`."""
    if type_raw.startswith("\\") or "/" in type_raw.replace("\\/", ""):
        found = None
    else:
        found = type_raw.replace("\\/", "/") if "\\" in type_raw else type_raw
    if _ADD_TYPES_CHARS[0] > _ADD_TYPES_LIMIT:
        _ADD_TYPES.clear()
        _ADD_TYPES_CHARS[0] = 0
    _ADD_TYPES[type_raw] = found
    _ADD_TYPES_CHARS[0] += len(type_raw)
    return found


def _stack_tokens(state: str) -> tuple[str | None, int, int, list[str]]:
    """A stack state's map id (None for ``null``), position and the tokens
    after them (member ids, ``@@layer``)."""
    toks = decode_sequence(state, ";") if ("\\" in state or "'" in state) else state.split(";")
    map_id = toks[0] if toks else "null"
    if map_id == "null":
        return None, 0, 0, toks[1:]
    x = java_int(toks[1] if len(toks) > 1 else None) or 0
    y = java_int(toks[2] if len(toks) > 2 else None) or 0
    return map_id, x, y, toks[3:]


def _unread_position(map_id: str | None, toks: Sequence[Any], tok: str) -> bool:
    """Whether an unknown member token of a stack is the position VASSAL
    wrote after ``null`` for a stack on no map (``null;0;0;@@-1``): 3.7's
    ``Stack.setState`` reads no position after ``null`` and looks the two
    numbers up as piece ids, finds none and says nothing.  Only these two
    tokens of a mapless stack, only when they are numbers."""
    if map_id is not None or not toks:
        return False
    lead = [t[0] if isinstance(t, tuple) else t for t in toks[:2]]
    return tok in lead and java_int(tok) is not None


#: an AddPiece parsed once (:func:`_plan_add`): a new piece (None, id, type,
#: trait count, state, BasicPiece state, map id or None, x, y)
_PiecePlan = tuple[None, "str | None", str, int, str, str, "str | None", int, int]
#: a new stack ("stack", id, map id or None, x, y, its member and layer
#: tokens each with the layer it sets)
_StackPlan = tuple[str, "str | None", "str | None", int, int, tuple[tuple[str, Any], ...]]
_NO_PLAN: Any = object()
_NO_LAYER: Any = object()


def _layer(text: str) -> Any:
    value = java_int(text)
    return _NO_LAYER if value is None else value


def _plan_add(text: str) -> _PiecePlan | _StackPlan | None:
    """An AddPiece's text parsed into what creating its piece or stack
    needs, when that is the common case (a piece whose state splits on its
    TABs; a stack whose state quotes nothing); else None (the general
    path).  A pure function of the text: a chain's saved states repeat most
    AddPieces of the previous log's, and the engine keeps the plans by text
    (:attr:`Engine.add_plans`)."""
    parsed = _add_fields(text)
    if parsed is None:
        return None
    piece_id, type_text, state = parsed
    if type_text == "stack":
        if "\\" in state or "'" in state:
            return None
        map_id, x, y, toks = _stack_tokens(state)
        # each token with its layer when it is ``@@n`` (_NO_LAYER when n is
        # no int), None when not
        return ("stack", piece_id, map_id, x, y,
                tuple((tok, _layer(tok[2:]) if tok.startswith("@@") else None) for tok in toks))
    if type_text.startswith("deck;"):
        return None
    types = type_tokens(type_text)
    if not types or not types[-1].startswith("piece;"):
        return None
    n = len(types)
    if state.count("\t") != n - 1 or "'" in state:
        return None
    basic = state[state.rfind("\t") + 1:] if n > 1 else state
    map_id, x, y = _split_basic(basic)
    return (None, piece_id, type_text, n, state, basic, None if map_id == "null" else map_id, x, y)


def _keep_unique_id(old_basic: str, new_basic: str) -> str:
    """``BasicPiece.setState`` keeps the piece's UniqueID when the new state
    has none."""
    old = decode_sequence(old_basic, ";")
    uid = None
    if len(old) > 4:
        count = java_int(old[4]) or 0
        for i in range(min(count, written_pairs(old))):     # (the pairs past the tokens hold no id)
            k = 5 + 2 * i
            if k < len(old) and old[k] == UNIQUE_ID:
                uid = old[k + 1] if k + 1 < len(old) else ""
    if uid is None:
        return new_basic
    toks = decode_sequence(new_basic, ";")
    while len(toks) < 4:
        toks.append("")
    count = (java_int(toks[4]) if len(toks) > 4 else 0) or 0
    props = toks[5:5 + 2 * count]
    out = toks[:4] + [str(count + 1), UNIQUE_ID, uid] + props
    return encode_sequence(out, ";") or ""


def _merge_stack_state(s: Stack, new: str, old: str) -> str:
    """``Stack.mergeState`` when the stack changed since ``old``: members the
    change does not mention stay, after the piece they followed."""
    nt = decode_sequence(new, ";")
    ot = decode_sequence(old, ";")
    head = nt[:3]
    new_contents = nt[3:]
    old_contents = ot[3:]
    for i, member in enumerate(s.members):
        mid = member.id
        if mid is not None and mid not in new_contents and mid not in old_contents:
            below = s.members[i - 1].id if i > 0 else None
            index = new_contents.index(below) if below is not None and below in new_contents else -1
            new_contents.insert(index + 1, mid)
    return encode_sequence(head + new_contents, ";") or ""


_Handler = Callable[[Engine, Any], None]
_HANDLERS: dict[type[Command], _Handler] = {
    AddPiece: Engine.on_add,
    RemovePiece: Engine.on_remove,
    ChangePiece: Engine.on_change,
    MovePiece: Engine.on_move,
    Chat: Engine.on_chat,
    SpecialDiceResults: Engine.on_dice,
    MutableProperty: Engine.on_mutable,
    GlobalPropertySet: Engine.on_global,
    TurnState: Engine.on_turn,
    PlayerAdd: Engine.on_player,
    PlayerRemove: Engine.on_player_remove,
    SetBoards: Engine.on_boards,
    Undo: Engine.on_undo,
    UnknownCommand: Engine.on_unknown,
    VersionCheck: Engine.on_unknown,
    BeginSave: Engine.on_begin,
}
#: handlers by base class, for subclasses without their own entry (notes,
#: null commands, end_save and the set-up marker do nothing)
_HANDLERS_BY_BASE: list[tuple[type[Command], _Handler]] = [(UnknownCommand, Engine.on_unknown)]


def _reports_shuffle(d: Deck, lines: list[str]) -> bool:
    """Whether a chat line is the deck's shuffle report: ``Deck.shuffle``
    logs ``* `` + its ``shuffleMsgFormat`` ($deckName$ and $commandName$
    filled in; other properties matched loosely); an empty format logs no
    report, and then a line naming the deck and a shuffle counts."""
    fmt = d.deck_type.shuffle_format
    name = d.name
    if fmt:
        parts = re.split(r"\$([^$]*)\$", fmt)
        pattern = ""
        for i, part in enumerate(parts):
            if i % 2 == 0:
                pattern += re.escape(part)
            elif part == "deckName":
                pattern += re.escape(name)
            elif part == "commandName":
                pattern += re.escape(d.deck_type.shuffle_command)
            else:
                pattern += ".*?"
        rx = re.compile(r"^\*\s?" + pattern + r"\s*$")
        if any(rx.match(html.unescape(line)) for line in lines):
            return True
    lowered = name.lower()
    return any("shuffl" in line.lower() and lowered in line.lower() for line in lines)
