"""Which pieces of a module are which units, sides and markers of a
scenario: the ``binding`` section (``docs/scenario-format.md``, "Games played
with any module").

The model only: selectors over what a piece shows (name, prototypes,
properties, images, the palette slot it came from) and what a match makes
of the piece.  Matching live pieces is the audit's work
(:mod:`vmodtool.audit.binding`); this module knows no VASSAL file.

A module that ``vmodtool build`` made is bound the same way: its pieces
carry the properties :data:`UNIT_ID`, :data:`MARKER_KIND` … and
:func:`built_module_binding` is the binding they imply.  Build writes those
names and the audit reads them through this one definition.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

__all__ = [
    "Pattern", "PatternError", "PieceSelector", "SideBinding", "UnitBinding", "PieceOverride",
    "MarkerBinding", "TerrainBinding", "FaceBinding", "StatusBinding", "Binding", "ModuleSource",
    "built_module_binding",
    "UNIT_ID", "UNIT_TYPE", "SIDE", "FORMATION", "MARKER_KIND", "FACE_LAYER", "CARD_ID", "CARD_DECK",
]

# -- what a module built by vmodtool writes on its pieces (the build/audit contract) --
#: the counter id of a unit (a Marker trait)
UNIT_ID = "UnitId"
#: the unit type id of a unit
UNIT_TYPE = "UnitType"
#: the side id of a unit
SIDE = "Side"
#: the formation id of a unit or an activation chit
FORMATION = "Formation"
#: the marker kind of a marker counter or chit
MARKER_KIND = "MarkerKind"
#: the layer (Embellishment) whose level is a unit's face
FACE_LAYER = "Face"
#: the scenario id of a card (a Marker trait; copies ``id#2`` …)
CARD_ID = "CardId"
#: the scenario id of the deck a card belongs to (where it is discarded to)
CARD_DECK = "CardDeck"


class PatternError(ValueError):
    """A pattern that cannot be compiled (a bad regular expression)."""


@dataclass(frozen=True)
class Pattern:
    """One value a selector key accepts: exact text, a glob (``*``, ``?``;
    ``*`` also crosses ``/``) or ``re:`` + a regular expression that must
    match the whole text."""

    text: str
    kind: str = "exact"                  # exact | glob | regex
    _regex: re.Pattern[str] | None = field(default=None, compare=False, repr=False)

    @classmethod
    def parse(cls, text: str) -> Pattern:
        if text.startswith("re:"):
            try:
                return cls(text, "regex", re.compile(text[3:]))
            except re.error as exc:
                raise PatternError(f"{text!r} is not a regular expression: {exc}") from None
        if "*" in text or "?" in text:
            # only * and ? are special: names such as "[Sherman]" stay literal
            escaped = text.replace("[", "\x00").replace("]", "\x01")
            body = fnmatch.translate(escaped).replace("\x00", r"\[").replace("\x01", r"\]")
            return cls(text, "glob", re.compile(body))
        return cls(text)

    def matches(self, value: str | None) -> bool:
        if value is None:
            return False
        if self._regex is None:
            return value == self.text
        return self._regex.fullmatch(value) is not None


def any_match(patterns: tuple[Pattern, ...], values: Iterable[str]) -> bool:
    """Whether some value matches some pattern."""
    return any(p.matches(v) for v in values for p in patterns)


@dataclass(frozen=True)
class PieceSelector:
    """Keys that must all match (a key not given matches anything); each key
    holds the patterns of which one must match."""

    name: tuple[Pattern, ...] = ()
    prototype: tuple[Pattern, ...] = ()
    properties: tuple[tuple[str, tuple[Pattern, ...]], ...] = ()
    image: tuple[Pattern, ...] = ()
    palette: tuple[Pattern, ...] = ()
    slot: tuple[Pattern, ...] = ()
    line: int | None = None

    @property
    def needs_slot(self) -> bool:
        """Whether matching needs the palette slot a piece came from."""
        return bool(self.palette or self.slot)


@dataclass(frozen=True)
class SideBinding:
    """One ``sides`` entry: the side of the pieces ``match`` selects, taken by
    a unit whose ``units`` entry (or override) names no side."""

    side: str
    match: PieceSelector


@dataclass(frozen=True)
class UnitBinding:
    """Pieces that are units: of unit ``type`` (with ``side`` and
    ``formation``, else the side from the ``sides`` entries), or, with
    ``counter_from``, the scenario counter whose id is that property's value
    (its type, side and formation are the counter's)."""

    match: PieceSelector
    type: str | None = None
    side: str | None = None
    formation: str | None = None
    counter_from: str | None = None
    line: int | None = None
    #: the property whose value names the unit (else its label or BasicPiece name)
    name_from: str | None = None


@dataclass(frozen=True)
class PieceOverride:
    """One piece, by its exact name: wins over ``units``."""

    piece: str
    type: str | None = None
    side: str | None = None
    formation: str | None = None
    line: int | None = None


@dataclass(frozen=True)
class MarkerBinding:
    """Pieces that are markers of ``kind`` (or of the kind a property names);
    with ``before_units`` tried before the ``units`` entries (a division
    marker that a units selector would also take)."""

    match: PieceSelector
    kind: str | None = None
    kind_from: str | None = None
    line: int | None = None
    before_units: bool = False


@dataclass(frozen=True)
class TerrainBinding:
    """Pieces that are terrain: the hex a piece stands on is of terrain type
    ``terrain`` while it is there, or the hexside it stands on (between its
    hex and the neighbour nearest to it) has the feature ``hexside``."""

    match: PieceSelector
    terrain: str | None = None
    hexside: str | None = None
    line: int | None = None


@dataclass(frozen=True)
class FaceBinding:
    """The layer whose level is a unit's face."""

    layer: str


@dataclass(frozen=True)
class StatusBinding:
    """When a unit shows the status (a layer-type marker kind): a layer is
    on (at a level whose name matches ``level``), or a property's value
    matches ``value``."""

    marker: str
    layer: str | None = None
    level: tuple[Pattern, ...] = ()
    property: str | None = None
    value: tuple[Pattern, ...] = ()


@dataclass(frozen=True)
class Binding:
    """The ``binding`` section: the selectors that make a piece terrain
    (first), a unit (``overrides`` by exact name, then ``markers`` entries
    marked ``before_units``, then ``units``), a marker or ignored,
    the sides of units, and how a unit's face and statuses are read."""

    sides: tuple[SideBinding, ...] = ()
    units: tuple[UnitBinding, ...] = ()
    overrides: Mapping[str, PieceOverride] = field(default_factory=dict)
    markers: tuple[MarkerBinding, ...] = ()
    faces: FaceBinding | None = None
    status: tuple[StatusBinding, ...] = ()
    ignore: tuple[PieceSelector, ...] = ()
    #: pieces that define the terrain of their hex or hexside (tried first)
    terrain: tuple[TerrainBinding, ...] = ()
    #: True when the scenario had no ``binding`` section (the binding of a
    #: module built by vmodtool)
    implied: bool = False

    def selectors(self) -> Iterable[PieceSelector]:
        yield from (s.match for s in self.sides)
        yield from (u.match for u in self.units)
        yield from (m.match for m in self.markers)
        yield from (t.match for t in self.terrain)
        yield from self.ignore


@dataclass(frozen=True)
class ModuleSource:
    """The ``module`` section: the module the game is played with."""

    file: str | None = None          # as written, relative to the scenario
    name: str | None = None
    board_sizes: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    #: other names of the module (renamed between versions): a log saved
    #: with one is accepted with a warning naming both
    aliases: tuple[str, ...] = ()
    #: chat lines that report dice rolls, as ``check-game --dice-pattern``
    dice_reports: tuple[str, ...] = ()


def _any() -> tuple[Pattern, ...]:
    return (Pattern.parse("*"),)


def built_module_binding(layer_markers: Iterable[str]) -> Binding:
    """The binding of a module built by ``vmodtool build``: units by
    :data:`UNIT_ID`, markers by :data:`MARKER_KIND`, faces the
    :data:`FACE_LAYER` layer, a status per layer-type marker kind (the layer
    named after it)."""
    return Binding(
        units=(UnitBinding(PieceSelector(properties=((UNIT_ID, _any()),)), counter_from=UNIT_ID),),
        markers=(MarkerBinding(PieceSelector(properties=((MARKER_KIND, _any()),)), kind_from=MARKER_KIND),),
        faces=FaceBinding(FACE_LAYER),
        status=tuple(StatusBinding(kind, layer=kind) for kind in layer_markers),
        implied=True)
