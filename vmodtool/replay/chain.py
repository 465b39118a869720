"""Continuity of a chain of logs: the state at the end of one file compared
with the saved state the next file starts from.

Pieces are compared by id on what a player sees and a rules checker reads:
the map and position (and location name), the stack they are in (its other
members and their order, not the stack's id, which VASSAL may renumber), the
trait states and the BasicPiece's gpid and persistent properties.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from vmodtool.replay.events import PieceRef, Place
from vmodtool.replay.state import GameObject, GameState, Piece

__all__ = ["ChainDifference", "compare_states"]


@dataclass
class ChainDifference:
    """One difference between the end of ``before_file`` and the start of
    ``after_file``.  ``kind``: ``added``, ``removed``, ``moved``,
    ``restacked`` (same place, other stack neighbours or order),
    ``changed`` (trait states), ``property`` (global property), ``turn``."""

    before_file: str | None
    after_file: str | None
    kind: str
    piece: PieceRef | None = None
    before: Place | None = None
    after: Place | None = None
    detail: str = ""
    #: for ``changed``: the piece as it was at the end of ``before_file``
    before_piece: PieceRef | None = None

    def text(self) -> str:
        head = f"{self.kind}"
        if self.piece is not None:
            head += f" {self.piece.label()}"
        where = ""
        if self.before is not None and self.after is not None:
            where = f" {self.before.label()} → {self.after.label()}"
        elif self.after is not None:
            where = f" at {self.after.label()}"
        elif self.before is not None:
            where = f" from {self.before.label()}"
        return head + where + (f" ({self.detail})" if self.detail else "")

    def record(self) -> dict[str, object]:
        return {"kind": self.kind, "before_file": self.before_file, "after_file": self.after_file,
                "piece": self.piece.record() if self.piece else None,
                "before": self.before.record() if self.before else None,
                "after": self.after.record() if self.after else None,
                "detail": self.detail}


def _props_without_position(p: Piece) -> str:
    parts = p.basic.split(";", 3)
    return parts[3] if len(parts) > 3 else ""


def _type_difference(a: str, b: str) -> str:
    from vmodtool.replay.state import type_tokens
    from vmodtool.vassal.pieces import type_prefix
    ta, tb = type_tokens(a), type_tokens(b)
    if len(ta) != len(tb):
        return f"trait chain differs: {len(ta)} → {len(tb)} traits"
    changed = [type_prefix(x) for x, y in zip(ta, tb, strict=True) if x != y]
    return "trait definition differs: " + ", ".join(changed)


def _stack_of(p: Piece) -> list[Piece] | None:
    """The members of the stack the piece is in (None outside one: a card
    a Deck's setContents dropped keeps its parent pointer)."""
    parent = p.parent
    if parent is None:
        return None
    members = parent.members
    for m in members:
        if m is p:
            return members
    return None


def _same_neighbours(a: Piece, b: Piece) -> bool:
    """Whether the two pieces are in stacks of the same ids in the same
    order (or both in none)."""
    sa, sb = _stack_of(a), _stack_of(b)
    if sa is None or sb is None:
        return sa is sb
    if len(sa) != len(sb):
        return False
    for x, y in zip(sa, sb, strict=True):
        if x.id != y.id:
            return False
    return True


def _same_states(a: Piece, b: Piece) -> bool:
    """Equal trait states and BasicPiece gpid/properties (the position
    aside).  Pieces read from the same AddPiece text hold equal strings:
    they compare at once, without splitting."""
    if a.basic == b.basic and a._state is not None and a._state == b._state:
        return True
    ka, kb = a.levels_key(), b.levels_key()
    same_levels = ka == kb or (type(ka) is not type(kb) and list(a.levels) == list(b.levels))
    return same_levels and _props_without_position(a) == _props_without_position(b)


def compare_states(before: GameState, after: GameState,
                   place_before: Callable[[GameObject], Place],
                   place_after: Callable[[GameObject], Place], ref: Callable[[Piece], PieceRef],
                   before_file: str | None, after_file: str | None
                   ) -> list[ChainDifference]:
    """Every difference between two states (pieces by id, then global
    properties and turn trackers)."""
    out: list[ChainDifference] = []
    # the registered pieces by id (GameState.register files each under its id)
    a_pieces: dict[str | None, Piece] = {pid: p for pid, p in before.pieces.items() if isinstance(p, Piece)}
    b_pieces: dict[str | None, Piece] = {pid: p for pid, p in after.pieces.items() if isinstance(p, Piece)}
    b_get = b_pieces.get

    def diff(kind: str, piece: PieceRef | None = None, pb: Place | None = None,
             pa: Place | None = None, detail: str = "", was: PieceRef | None = None) -> None:
        out.append(ChainDifference(before_file, after_file, kind, piece, pb, pa, detail, was))

    for pid, a in a_pieces.items():
        b = b_get(pid)
        if b is None:
            diff("removed", ref(a), place_before(a), None)
            continue
        _piece_differences(a, b, diff, place_before, place_after, ref)
    for pid, b in b_pieces.items():
        if pid not in a_pieces:
            diff("added", ref(b), None, place_after(b))
    for key in sorted(set(before.global_properties) | set(after.global_properties),
                      key=lambda k: (k[0] or "", k[1])):
        va, vb = before.global_properties.get(key), after.global_properties.get(key)
        if va != vb and vb is not None:
            container, name = key
            diff("property", None, None, None,
                 f"{name}{' (' + container + ')' if container else ''}: {va} → {vb}")
    for tracker in sorted(set(before.turns) | set(after.turns)):
        va, vb = before.turns.get(tracker), after.turns.get(tracker)
        if va != vb:
            diff("turn", None, None, None, f"{tracker}: {va} → {vb}")
    return out


_Diff = Callable[..., None]


def _piece_differences(a: Piece, b: Piece, diff: _Diff, place_before: Callable[[GameObject], Place],
                       place_after: Callable[[GameObject], Place], ref: Callable[[Piece], PieceRef]) -> None:
    """What differs between a piece at the end of a log (``a``) and in the
    next log's saved state (``b``): its place, its stack, its type or state."""
    pa, pb = a.parent, b.parent
    if pa is None:
        ma, xa, ya = a.map, a.x, a.y
    else:
        ma, xa, ya = pa.map, pa.x, pa.y
    if pb is None:
        mb, xb, yb = b.map, b.x, b.y
    else:
        mb, xb, yb = pb.map, pb.x, pb.y
    if xa != xb or ya != yb or (ma is not mb and (ma.name if ma else None) != (mb.name if mb else None)):
        diff("moved", ref(b), place_before(a), place_after(b))
    elif pa is not None or pb is not None:
        if pa is not None and pb is not None:
            la, lb = pa.members, pb.members
            # the common case at once: each alone in its stack
            same = (len(la) == 1 and len(lb) == 1 and la[0] is a and lb[0] is b) or _same_neighbours(a, b)
        else:
            same = _same_neighbours(a, b)
        if not same:
            diff("restacked", ref(b), place_before(a), place_after(b),
                 f"stack {len(pa.members) if pa else 0} → "
                 f"{len(pb.members) if pb else 0} pieces")
    if a.type != b.type:
        diff("changed", ref(b), None, place_after(b), _type_difference(a.type, b.type), ref(a))
        return
    state = a._state
    if state is not None and a.basic == b.basic and state == b._state:
        return                         # equal whole states (see _same_states)
    if not _same_states(a, b):
        changed = [i for i, (x, y) in enumerate(zip(a.levels, b.levels, strict=False)) if x != y]
        what = (f"trait state(s) {', '.join(str(i + 1) for i in changed)}" if changed
                else "BasicPiece gpid/properties")
        diff("changed", ref(b), None, place_after(b), what, ref(a))
