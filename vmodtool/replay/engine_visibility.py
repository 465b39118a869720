"""What the viewer of a replay may see (:class:`~vmodtool.replay.viewer.Viewer`):
private windows (hands), masked (``obs;``) and hidden (``hide;``) pieces,
face-down decks, and the mask and hide events a change of those traits
makes.  A part of the replay engine (:class:`Visibility` is mixed into
:class:`~vmodtool.replay.engine.ReplayEngine`)."""

from __future__ import annotations

from vmodtool.replay.engine_core import EngineCore
from vmodtool.replay.events import (
    Event,
    HideEvent,
    MaskEvent,
    PieceRef,
    Place,
)
from vmodtool.replay.state import (
    Deck,
    MapState,
    Piece,
    type_tokens,
)
from vmodtool.vassal.decks import HandDef, ObscuredState, hidden_by
from vmodtool.vassal.sequence import decode_sequence

__all__ = ["Visibility"]


class Visibility(EngineCore):
    """Which pieces, hands and decks the viewer sees, and how it names them."""

    def hand_of(self, m: MapState | None) -> HandDef | None:
        return self.hands.get(m.name) if m is not None else None

    def sees_map(self, m: MapState | None) -> bool:
        """Whether the viewer may look at map ``m`` (a public map, or a
        private window it may open)."""
        return self.viewer.sees_hand(self.hand_of(m))

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
