"""Typed events of a replay step: what happened, to which piece, where.

Every event has a ``kind`` and ``text()`` (one readable line) and
``record()`` (a JSON-ready dict).  Piece events carry a :class:`PieceRef`
(id, name, ``UnitId`` when present) and :class:`Place` values (map, pixels,
location name, raw hex cell).  Names and property differences are computed
when first asked for, so replaying stays cheap.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from vmodtool.errors import FormatError

if TYPE_CHECKING:
    from vmodtool.vassal.pieces import PieceDef

__all__ = ["Place", "PieceRef", "Event", "MoveEvent", "AddEvent", "RemoveEvent",
           "ChangeEvent", "ChatEvent", "DiceEvent", "PropertyEvent", "TurnEvent",
           "PlayerEvent", "BoardsEvent", "UnknownEvent", "chat_display"]


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
        self._props: dict[str, str] | None = None
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
        if self._name is None:
            try:
                self._name = self._definition().name if self._type != "stack" else "stack"
            except FormatError:
                self._name = ""
        return self._name

    @property
    def unit_id(self) -> str | None:
        unit = self._unit
        if unit is False or unit is True:
            try:
                unit = self._definition().get_property("UnitId")
            except FormatError:
                unit = None
            self._unit = unit
        return unit

    def properties(self) -> dict[str, str]:
        if self._props is None:
            try:
                self._props = self._definition().properties()
            except FormatError:
                self._props = {}
        return self._props

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


@dataclass
class MoveEvent(Event):
    """A piece (or each piece of a moved stack) changed place."""

    kind = "move"
    piece: PieceRef = None  # type: ignore[assignment]
    source: Place = None  # type: ignore[assignment]
    target: Place = None  # type: ignore[assignment]
    stack_id: str | None = None
    #: the state change logged with the move ("mark moved", a flip…)
    change: ChangeEvent | None = None

    def text(self) -> str:
        src, dst = self.source, self.target
        if src.map != dst.map and dst.map is not None:
            text = (f"{self.piece.label()} moved {src.map}: {src.label()} → "
                    f"{dst.map}: {dst.label()}")
        else:
            text = f"{self.piece.label()} moved {src.label()} → {dst.label()}"
        if self.change is not None:
            extra = self.change.summary(skip=("Moved",))
            if extra:
                text += f" ({extra})"
        return text

    def _fields(self) -> dict[str, object]:
        rec: dict[str, object] = {"piece": self.piece.record(), "from": self.source.record(),
                                  "to": self.target.record(), "stack": self.stack_id}
        if self.change is not None:
            rec["changes"] = {k: list(v) for k, v in self.change.changes().items()}
        return rec


@dataclass
class AddEvent(Event):
    kind = "add"
    piece: PieceRef = None  # type: ignore[assignment]
    target: Place = None  # type: ignore[assignment]

    def text(self) -> str:
        return f"{self.piece.label()} added at {self.target.label()}"

    def _fields(self) -> dict[str, object]:
        return {"piece": self.piece.record(), "to": self.target.record()}


@dataclass
class RemoveEvent(Event):
    kind = "remove"
    piece: PieceRef = None  # type: ignore[assignment]
    source: Place = None  # type: ignore[assignment]

    def text(self) -> str:
        return f"{self.piece.label()} removed from {self.source.label()}"

    def _fields(self) -> dict[str, object]:
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
        name_before, name_after = self.before.label(), self.after.label()
        what = self.summary() or "state changed"
        if name_before != name_after:
            return f"{name_before} became {name_after} ({what}) at {self.place.label()}"
        return f"{name_before} changed at {self.place.label()}: {what}"

    def _fields(self) -> dict[str, object]:
        return {"piece": self.after.record(), "name_before": self.before.name,
                "at": self.place.record(),
                "changes": {k: list(v) for k, v in self.changes().items()}}


@dataclass
class ChatEvent(Event):
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
