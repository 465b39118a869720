"""AddPiece in the replay: a piece, a stack or a deck created from its
``+/`` text, with the fast paths of a saved state (each text parsed once
into a plan, :func:`_plan_add`, shared by a chain's logs).  A part of the
replay engine (:class:`Adding` is mixed into
:class:`~vmodtool.replay.engine.ReplayEngine`)."""

from __future__ import annotations

from typing import Any

from vmodtool.replay.engine_decks import Decks
from vmodtool.replay.engine_stacking import Stacking, _stack_tokens, _unread_position
from vmodtool.replay.events import (
    AddEvent,
)
from vmodtool.replay.state import (
    Deck,
    Piece,
    Stack,
    _split_basic,
    type_tokens,
)
from vmodtool.vassal.commands import (
    AddPiece,
)
from vmodtool.vassal.pieces import java_int

__all__ = ["Adding"]



class Adding(Decks, Stacking):
    """AddPiece: new pieces, stacks and decks."""

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
    (:attr:`EngineCore.add_plans`)."""
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


