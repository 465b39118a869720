"""The whole game at one moment, as plain records: each piece's place,
stack and state, the global properties, turn trackers, decks and private
windows (what ``replay --state`` prints and the golden tests compare), made
from the replay's live state by :func:`snapshot`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from vmodtool.replay.state import Deck, Piece

if TYPE_CHECKING:
    from vmodtool.replay.engine import ReplayEngine

__all__ = ["PieceSnapshot", "DeckSnapshot", "HandSnapshot", "BoardState", "snapshot", "piece_snapshot"]


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
