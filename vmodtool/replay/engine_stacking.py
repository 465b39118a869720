"""Piece and stack states as VASSAL sets them (``Decorator.setState`` and
``mergeState``, ``BasicPiece.setState``, ``Stack.setState``) and stacking
(``MovePiece``'s merge finder, ``StackMetrics.merge``, ``Map.placeAt``).
A part of the replay engine (:class:`Stacking` is mixed into
:class:`~vmodtool.replay.engine.ReplayEngine`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from vmodtool.replay.engine_core import EngineCore
from vmodtool.replay.state import (
    UNIQUE_ID,
    Deck,
    GameObject,
    MapState,
    Piece,
    Stack,
    _split_basic,
    split_levels,
)
from vmodtool.vassal.pieces import java_int, written_pairs
from vmodtool.vassal.sequence import decode_sequence, encode_sequence

__all__ = ["Stacking"]


class Stacking(EngineCore):
    """``setState``/``mergeState`` of pieces and stacks, and stacking."""

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

