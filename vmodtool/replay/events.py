"""Typed events of a replay step: what happened, to which piece, where.

Every event has a ``kind`` and ``text()`` (one readable line) and
``record()`` (a JSON-ready dict).  Piece events carry a :class:`PieceRef`
(id, name, ``UnitId`` when present) and :class:`Place` values (map, pixels,
location name, raw hex cell).  Names and property differences are computed
when first asked for, so replaying stays cheap.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from vmodtool.bounded import BoundedCache
from vmodtool.errors import FormatError

if TYPE_CHECKING:
    from vmodtool.vassal.pieces import PieceDef

__all__ = ["Place", "PieceRef", "Event", "MoveEvent", "AddEvent", "RemoveEvent",
           "ChangeEvent", "ChatEvent", "DiceEvent", "PropertyEvent", "TurnEvent",
           "PlayerEvent", "BoardsEvent", "UnknownEvent", "chat_display",
           "DeckRef", "CardDrawEvent", "CardReturnEvent", "CardPlayEvent", "DeckShuffleEvent",
           "DeckOrderEvent", "DeckFaceEvent", "MaskEvent", "HideEvent"]


def chat_display(message: str) -> str:
    """The chat line as the chat window shows it (HTML entities decoded)."""
    return html.unescape(message)


class Place(NamedTuple):
    """Where a piece is: map id, map pixels, VASSAL's location name (None
    without a module) and the raw hex cell (column, row) on a hex grid.
    Immutable (a named tuple: the replay makes two per moved piece)."""

    map: str | None
    x: int = 0
    y: int = 0
    location: str | None = None
    grid_cell: tuple[int, int] | None = None

    def label(self) -> str:
        """The location name, else ``map (x,y)`` pixels; ``nowhere`` off all maps."""
        if self.map is None:
            return "nowhere"
        if self.location is not None and self.location != "offboard":
            return self.location
        if self.grid_cell is not None:
            return f"hex {self.grid_cell[0]},{self.grid_cell[1]}"
        if self.location is not None:
            return f"offboard ({self.x},{self.y})"
        return f"({self.x},{self.y})"

    def record(self) -> dict[str, object]:
        return {"map": self.map, "x": self.x, "y": self.y, "location": self.location,
                "grid_cell": list(self.grid_cell) if self.grid_cell else None}


#: names and properties by (id, type, states), shared by the refs of a piece
#: in one state (a change's "before" is the previous change's "after"): both
#: depend on nothing else (bounded: 100,000 entries, 32 MiB of the keys'
#: types and states)
_RefKey = tuple[str | None, str, tuple[str, ...]]
_NAMES: BoundedCache[_RefKey, str] = BoundedCache(100_000)
#: the ``UnitId`` of each, as a 1-tuple (None is an answer: no such property)
_UNITS: BoundedCache[_RefKey, tuple[str | None]] = BoundedCache(100_000)
_PROPERTIES: BoundedCache[_RefKey, Mapping[str, str]] = BoundedCache(100_000)
T = TypeVar("T")


def _shared(cache: BoundedCache[_RefKey, T], key: _RefKey, make: Callable[[], T]) -> T:
    """``cache[key]``, made when missing."""
    value = cache.get(key)
    if value is None:
        value = cache.remember(key, make(), len(key[1]) + sum(map(len, key[2])))
    return value


class PieceRef:
    """A piece at the moment of an event: id, and lazily its name and
    ``UnitId`` from its trait chain as it was then.  A chain that cannot be
    decoded (a :class:`~vmodtool.errors.FormatError`; the engine reports it
    as a warning with its step when the piece enters the game) has the name
    ``""`` and no properties."""

    __slots__ = ("id", "_type", "_states", "_name", "_unit", "_props", "_def", "_one")

    def __init__(self, piece_id: str | None, type_text: str, states: tuple[str, ...]) -> None:
        self.id = piece_id
        self._type = type_text
        self._states = states
        self._name: str | None = None
        self._unit: str | None | bool = False
        self._props: Mapping[str, str] | None = None
        self._def: PieceDef | None = None
        self._one: dict[str, str | None] | None = None

    def _definition(self) -> PieceDef:
        if self._def is None:
            from vmodtool.replay.state import type_tokens
            from vmodtool.vassal.pieces import PieceDef, Trait
            types = type_tokens(self._type)
            traits = [Trait(t, self._states[i] if i < len(self._states) else "")
                      for i, t in enumerate(types)]
            self._def = PieceDef.from_traits(traits, self.id)
        return self._def

    @property
    def type_text(self) -> str:
        """The piece's type (its trait chain's types, as the log wrote them)."""
        return self._type

    def definition(self) -> PieceDef:
        """The piece as it was then (raises :class:`~vmodtool.errors.FormatError`
        for a chain that cannot be decoded)."""
        return self._definition()

    def get_property(self, key: str) -> str | None:
        """One property, as ``getProperty`` on the piece would answer it
        (cheaper than :meth:`properties` when a reader needs a few)."""
        if self._props is not None:
            return self._props.get(key)
        one = self._one
        if one is None:
            one = self._one = {}
        elif key in one:
            return one[key]
        try:
            value = self._definition().get_property(key)
        except FormatError:
            value = None
        one[key] = value
        return value

    @property
    def name(self) -> str:
        name = self._name
        if name is None:
            name = self._name = _shared(_NAMES, (self.id, self._type, self._states), self._own_name)
        return name

    def _own_name(self) -> str:
        try:
            return self._definition().name if self._type != "stack" else "stack"
        except FormatError:
            return ""

    @property
    def unit_id(self) -> str | None:
        unit = self._unit
        if unit is False or unit is True:
            unit = self._unit = _shared(_UNITS, (self.id, self._type, self._states), self._own_unit)[0]
        return unit

    def _own_unit(self) -> tuple[str | None]:
        try:
            return (self._definition().get_property("UnitId"),)
        except FormatError:
            return (None,)

    def properties(self) -> Mapping[str, str]:
        """The piece's properties then (read-only: shared by every ref of
        the piece in this state)."""
        props = self._props
        if props is None:
            props = self._props = _shared(_PROPERTIES, (self.id, self._type, self._states), self._own_properties)
        return props

    def _own_properties(self) -> Mapping[str, str]:
        try:
            return MappingProxyType(self._definition().properties())
        except FormatError:
            return MappingProxyType({})

    @property
    def states(self) -> tuple[str, ...]:
        return self._states

    def label(self) -> str:
        name = self.name or f"piece {self.id}"
        unit = self.unit_id
        if unit and unit != name:
            return f"{name} [{unit}]"
        return name

    def record(self) -> dict[str, object]:
        return {"id": self.id, "name": self.name, "unit_id": self.unit_id}


@dataclass
class Event:
    """Base of all events; ``undone`` is set when a later undo reverses the
    step this event belongs to."""

    kind = "event"
    undone: bool = field(default=False, init=False)

    def text(self) -> str:
        return self.kind

    def record(self) -> dict[str, object]:
        rec: dict[str, object] = {"kind": self.kind}
        rec.update(self._fields())
        if self.undone:
            rec["undone"] = True
        return rec

    def _fields(self) -> dict[str, object]:
        return {}


#: how an event names a piece the viewer may not know: one in a private
#: window (a PlayerHand) the viewer cannot open, before and after the event
UNSEEN_PIECE = "1 card"


def _unseen_record(ref: PieceRef) -> dict[str, object]:
    """A piece's record without what names it (its id stays: VASSAL's ids
    say nothing of what a card is)."""
    return {"id": ref.id, "name": None, "unit_id": None}


@dataclass
class MoveEvent(Event):
    """A piece (or each piece of a moved stack) changed place.  ``visible``
    is False for a piece moved inside private windows the viewer cannot
    open (a card rearranged in another side's hand, or passed between two
    such hands): its text and record do not name it nor its change."""

    kind = "move"
    piece: PieceRef = None  # type: ignore[assignment]
    source: Place = None  # type: ignore[assignment]
    target: Place = None  # type: ignore[assignment]
    stack_id: str | None = None
    #: the state change logged with the move ("mark moved", a flip…)
    change: ChangeEvent | None = None
    visible: bool = True

    def text(self) -> str:
        src, dst = self.source, self.target
        what = self.piece.label() if self.visible else UNSEEN_PIECE
        if src.map != dst.map and dst.map is not None:
            text = f"{what} moved {src.map}: {src.label()} → {dst.map}: {dst.label()}"
        else:
            text = f"{what} moved {src.label()} → {dst.label()}"
        if self.change is not None and self.visible:
            extra = self.change.summary(skip=("Moved",))
            if extra:
                text += f" ({extra})"
        return text

    def _fields(self) -> dict[str, object]:
        rec: dict[str, object] = {"piece": self.piece.record() if self.visible else _unseen_record(self.piece),
                                  "from": self.source.record(), "to": self.target.record(),
                                  "stack": self.stack_id}
        if self.change is not None and self.visible:
            rec["changes"] = {k: list(v) for k, v in self.change.changes().items()}
        if not self.visible:
            rec["visible"] = False
        return rec


@dataclass
class AddEvent(Event):
    """A piece was added to the game (``AddPiece``): ``target`` is where it
    appeared."""

    kind = "add"
    piece: PieceRef = None  # type: ignore[assignment]
    target: Place = None  # type: ignore[assignment]
    #: False for a piece added into a private window the viewer cannot open
    visible: bool = True

    def text(self) -> str:
        return f"{self.piece.label() if self.visible else UNSEEN_PIECE} added at {self.target.label()}"

    def _fields(self) -> dict[str, object]:
        if not self.visible:
            return {"piece": _unseen_record(self.piece), "to": self.target.record(), "visible": False}
        return {"piece": self.piece.record(), "to": self.target.record()}


@dataclass
class RemoveEvent(Event):
    """A piece was deleted from the game (``RemovePiece``): ``source`` is where
    it was."""

    kind = "remove"
    piece: PieceRef = None  # type: ignore[assignment]
    source: Place = None  # type: ignore[assignment]
    #: False for a piece deleted from a private window the viewer cannot open
    visible: bool = True

    def text(self) -> str:
        return f"{self.piece.label() if self.visible else UNSEEN_PIECE} removed from {self.source.label()}"

    def _fields(self) -> dict[str, object]:
        if not self.visible:
            return {"piece": _unseen_record(self.piece), "from": self.source.record(), "visible": False}
        return {"piece": self.piece.record(), "from": self.source.record()}


@dataclass
class ChangeEvent(Event):
    """A piece's state changed (flip, rotate, marker, step loss…): the
    trait states before and after; ``changes()`` lists the properties that
    differ (face/layer levels, markers, names)."""

    kind = "change"
    before: PieceRef = None  # type: ignore[assignment]
    after: PieceRef = None  # type: ignore[assignment]
    place: Place = None  # type: ignore[assignment]
    #: False for a piece in a private window the viewer cannot open: its
    #: text and record say only that something there changed
    visible: bool = True

    def changes(self) -> dict[str, tuple[str | None, str | None]]:
        old, new = self.before.properties(), self.after.properties()
        out: dict[str, tuple[str | None, str | None]] = {}
        for key in sorted(set(old) | set(new)):
            if key.startswith("Old") or key in ("ClickedX", "ClickedY"):
                continue
            if old.get(key) != new.get(key):
                out[key] = (old.get(key), new.get(key))
        return out

    def summary(self, skip: tuple[str, ...] = ()) -> str:
        """The changed properties as ``key old → new``, names and images left out."""
        parts = []
        for key, (a, b) in self.changes().items():
            if key in ("PieceName", "BasicName") or key in skip or \
                    key.endswith(("_Image", "_Active", "_Name")):
                continue
            parts.append(f"{key} {a if a is not None else '-'} → {b if b is not None else '-'}")
        return ", ".join(parts)

    def text(self) -> str:
        if not self.visible:
            return f"{UNSEEN_PIECE} changed at {self.place.label()}"
        name_before, name_after = self.before.label(), self.after.label()
        what = self.summary() or "state changed"
        if name_before != name_after:
            return f"{name_before} became {name_after} ({what}) at {self.place.label()}"
        return f"{name_before} changed at {self.place.label()}: {what}"

    def _fields(self) -> dict[str, object]:
        if not self.visible:
            return {"piece": _unseen_record(self.after), "name_before": None, "at": self.place.record(),
                    "changes": {}, "visible": False}
        return {"piece": self.after.record(), "name_before": self.before.name,
                "at": self.place.record(),
                "changes": {k: list(v) for k, v in self.changes().items()}}


@dataclass
class ChatEvent(Event):
    """A chat line that is not a dice report: ``message`` as logged,
    ``display`` as the chat window shows it."""

    kind = "chat"
    message: str = ""

    @property
    def display(self) -> str:
        return chat_display(self.message)

    def text(self) -> str:
        return f"chat: {self.display}"

    def _fields(self) -> dict[str, object]:
        return {"message": self.message, "display": self.display}


@dataclass
class DiceEvent(Event):
    """A dice roll: the report line and/or a SpecialDice result."""

    kind = "dice"
    message: str = ""
    button: str | None = None
    results: list[int] | None = None

    def text(self) -> str:
        if self.message:
            return f"dice: {chat_display(self.message)}"
        return f"dice: {self.button} {self.results}"

    def _fields(self) -> dict[str, object]:
        return {"message": self.message, "display": chat_display(self.message),
                "button": self.button, "results": self.results}


@dataclass
class PropertyEvent(Event):
    """A global property changed value: ``old`` None when it was not known
    before, ``container`` the map or zone it belongs to (None: the module)."""

    kind = "property"
    name: str = ""
    old: str | None = None
    new: str = ""
    container: str | None = None

    def text(self) -> str:
        return f"property {self.name}: {self.old if self.old is not None else '-'} → {self.new}"

    def _fields(self) -> dict[str, object]:
        return {"name": self.name, "old": self.old, "new": self.new, "container": self.container}


@dataclass
class TurnEvent(Event):
    """A turn tracker's state changed (``TURN``): ``tracker`` is its id, ``old``
    (None: not known before) and ``new`` its states as the log encodes them."""

    kind = "turn"
    tracker: str = ""
    old: str | None = None
    new: str = ""

    def text(self) -> str:
        return f"turn tracker {self.tracker}: {self.old or '-'} → {self.new}"

    def _fields(self) -> dict[str, object]:
        return {"tracker": self.tracker, "old": self.old, "new": self.new}


@dataclass
class PlayerEvent(Event):
    """A player joined the roster (``joined``) or left it: their display name
    and the side they took, if any."""

    kind = "player"
    name: str = ""
    side: str | None = None
    joined: bool = True

    def text(self) -> str:
        verb = "joined" if self.joined else "left"
        return f"player {self.name} {verb}" + (f" as {self.side}" if self.side else "")

    def _fields(self) -> dict[str, object]:
        return {"name": self.name, "side": self.side, "joined": self.joined}


@dataclass
class BoardsEvent(Event):
    """The boards of a map were set (``SetBoards``): ``boards`` is (board name,
    reversed, column, row) per board."""

    kind = "boards"
    map: str = ""
    boards: list[tuple[str, bool, int, int]] = field(default_factory=list)

    def text(self) -> str:
        return f"boards of {self.map}: " + ", ".join(b[0] for b in self.boards)

    def _fields(self) -> dict[str, object]:
        return {"map": self.map, "boards": [list(b) for b in self.boards]}


@dataclass
class UnknownEvent(Event):
    """A command no standard encoder knows (custom module code): kept and
    reported, never applied."""

    kind = "unknown"
    prefix: str = ""
    command: str = ""

    def text(self) -> str:
        return f"unknown command {self.prefix!r}"

    def _fields(self) -> dict[str, object]:
        return {"prefix": self.prefix, "command": self.command}


# --------------------------------------------------------------------------
# decks, hands and hidden pieces (docs/vassal-format.md §4.12)

class DeckRef(NamedTuple):
    """A deck at the moment of an event: its VASSAL id, its name (the
    ``DrawPile`` name, also in the deck's type) and how many cards it holds
    after the event (``size``)."""

    id: str | None
    name: str
    size: int

    def label(self) -> str:
        return self.name or f"deck {self.id}"

    def record(self) -> dict[str, object]:
        return {"id": self.id, "name": self.name, "size": self.size}


@dataclass
class CardDrawEvent(MoveEvent):
    """A card left a deck (drawn by hand, or dealt): to a player's hand
    (``hand`` is the PlayerHand window's name, ``hand_count`` its size
    after the draw) or to a map.  ``visible`` is whether the auditing viewer
    may see which card it is; ``player`` the drawer's display name."""

    kind = "draw"
    deck: DeckRef = None  # type: ignore[assignment]
    hand: str | None = None
    hand_count: int | None = None
    player: str | None = None
    visible: bool = False

    def text(self) -> str:
        who = f"{self.player} drew" if self.player else "drew"
        where = (f"to {self.hand} ({self.hand_count} in hand)" if self.hand is not None
                 else f"to {self.target.label()}")
        what = self.piece.label() if self.visible else UNSEEN_PIECE
        return f"{who} {what} from {self.deck.label()} {where} ({self.deck.size} left)"

    def _fields(self) -> dict[str, object]:
        rec = super()._fields()
        if not self.visible:
            rec["piece"] = _unseen_record(self.piece)
            rec.pop("changes", None)        # property values would tell the card
        rec.update({"deck": self.deck.record(), "hand": self.hand, "hand_count": self.hand_count,
                    "player": self.player, "visible": self.visible})
        return rec


@dataclass
class CardReturnEvent(MoveEvent):
    """A card went into a deck (discarded, returned, or a reshuffle's card
    sent back): ``from_hand`` names the hand it came from, if any."""

    kind = "to_deck"
    deck: DeckRef = None  # type: ignore[assignment]
    from_hand: str | None = None
    player: str | None = None
    visible: bool = False

    def text(self) -> str:
        who = f"{self.player} put" if self.player else "put"
        what = self.piece.label() if self.visible else UNSEEN_PIECE
        src = f" from {self.from_hand}" if self.from_hand else ""
        return f"{who} {what}{src} into {self.deck.label()} ({self.deck.size} in it)"

    def _fields(self) -> dict[str, object]:
        rec = super()._fields()
        if not self.visible:
            rec["piece"] = _unseen_record(self.piece)
            rec.pop("changes", None)
        rec.update({"deck": self.deck.record(), "from_hand": self.from_hand,
                    "player": self.player, "visible": self.visible})
        return rec


@dataclass
class CardPlayEvent(MoveEvent):
    """A card left a hand face up for everyone to see: laid on a map or on a
    face-up deck (``deck``).  Its identity is public from here on."""

    kind = "play"
    from_hand: str = ""
    deck: DeckRef | None = None
    player: str | None = None
    hand_count: int | None = None

    def text(self) -> str:
        who = f"{self.player} played" if self.player else "played"
        where = f" onto {self.deck.label()}" if self.deck is not None else f" at {self.target.label()}"
        return f"{who} {self.piece.label()}{where}"

    def _fields(self) -> dict[str, object]:
        rec = super()._fields()
        rec.update({"from_hand": self.from_hand, "deck": self.deck.record() if self.deck else None,
                    "player": self.player, "hand_count": self.hand_count})
        return rec


@dataclass
class DeckShuffleEvent(Event):
    """A deck was shuffled (its order changed by VASSAL's shuffle, reported
    in the chat) — or reshuffled: ``from_deck`` names the deck whose cards
    were sent into it first."""

    kind = "shuffle"
    deck: DeckRef = None  # type: ignore[assignment]
    from_deck: str | None = None
    player: str | None = None

    def text(self) -> str:
        who = f"{self.player} " if self.player else ""
        if self.from_deck:
            return f"{who}reshuffled {self.from_deck} into {self.deck.label()} ({self.deck.size} cards)"
        return f"{who}shuffled {self.deck.label()} ({self.deck.size} cards)"

    def _fields(self) -> dict[str, object]:
        return {"deck": self.deck.record(), "from_deck": self.from_deck, "player": self.player}


@dataclass
class DeckOrderEvent(Event):
    """A deck's order changed with no shuffle: by hand (cards taken out and
    put back at another place, a ``D/`` of the deck without a shuffle
    report) or by VASSAL's reverse/sort commands (``how``).  ``searched``
    is true when a card was drawn from other than the top of a deck that
    does not draw at random."""

    kind = "deck_order"
    deck: DeckRef = None  # type: ignore[assignment]
    how: str = "by hand"
    searched: bool = False
    player: str | None = None

    def text(self) -> str:
        what = "searched" if self.searched else f"reordered {self.how}"
        who = f"{self.player} " if self.player else ""
        return f"{who}{what}: {self.deck.label()} ({self.deck.size} cards)"

    def _fields(self) -> dict[str, object]:
        return {"deck": self.deck.record(), "how": self.how, "searched": self.searched,
                "player": self.player}


@dataclass
class DeckFaceEvent(Event):
    """A deck was turned face up or face down (``Deck.setContentsFaceDown``)."""

    kind = "deck_face"
    deck: DeckRef = None  # type: ignore[assignment]
    face_down: bool = True

    def text(self) -> str:
        return f"{self.deck.label()} turned face {'down' if self.face_down else 'up'}"

    def _fields(self) -> dict[str, object]:
        return {"deck": self.deck.record(), "face_down": self.face_down}


@dataclass
class _ConcealEvent(Event):
    """A piece concealed or revealed: ``by`` is the player's display name
    (their side in ``side``), never the id; ``visible`` whether the viewer
    sees which piece it is."""

    piece: PieceRef = None  # type: ignore[assignment]
    by: str | None = None
    side: str | None = None
    place: Place = None  # type: ignore[assignment]
    visible: bool = False

    def _text(self, verb: str) -> str:
        what = self.piece.label() if self.visible else "a piece"
        by = f" by {self.by}" if self.by else ""
        return f"{what} {verb}{by} at {self.place.label()}"

    def _record(self) -> dict[str, object]:
        piece = self.piece.record() if self.visible else _unseen_record(self.piece)
        return {"piece": piece, "by": self.by, "side": self.side, "at": self.place.record(),
                "visible": self.visible}


@dataclass
class MaskEvent(_ConcealEvent):
    """A piece was masked or unmasked (``obs;``, Obscurable); ``visible``:
    an unmasked piece on a public map, yes; in a hand not the viewer's, no."""

    kind = "mask"
    masked: bool = True

    def text(self) -> str:
        return self._text("masked" if self.masked else "unmasked (revealed)")

    def _fields(self) -> dict[str, object]:
        return {"masked": self.masked, **self._record()}


@dataclass
class HideEvent(_ConcealEvent):
    """A piece was made invisible or visible again (``hide;``, Hideable)."""

    kind = "hide"
    hidden: bool = True

    def text(self) -> str:
        return self._text("hidden" if self.hidden else "shown again")

    def _fields(self) -> dict[str, object]:
        return {"hidden": self.hidden, **self._record()}
