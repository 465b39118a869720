"""Binding the pieces of a game to the scenario: which piece is which unit
(of which type, side and formation), which is a marker, and what face and
status a unit shows (``docs/scenario-format.md``, "Games played with any
module").

A piece is bound once, the first time the audit sees it, and keeps its
binding by its VASSAL id.  What a selector reads of a piece: its name, the
prototypes it uses (through the module's prototype definitions), its
properties (its own traits first, then its prototypes'), its images, and
the palette slot it came from — the module's slot whose BasicPiece has the
piece's name and image (else its name: a module updated between games may
rename images).

The binding of a module that ``vmodtool build`` made
(:func:`~vmodtool.scenario.binding.built_module_binding`) goes through the
same code: units by ``UnitId``, markers by ``MarkerKind``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from vmodtool.errors import VmodError
from vmodtool.replay.state import type_tokens
from vmodtool.scenario.binding import Binding, MarkerBinding, PieceSelector, StatusBinding, any_match
from vmodtool.scenario.model import Counter, Scenario
from vmodtool.vassal.pieces import PieceDef
from vmodtool.vassal.sequence import decode_sequence

if TYPE_CHECKING:
    from vmodtool.replay.events import PieceRef
    from vmodtool.vassal.buildfile import BuildFile, PieceSlotEntry
    from vmodtool.vassal.module import Module
    from vmodtool.vassal.traits import TraitView

__all__ = ["PieceBinder", "SlotIndex", "BoundPiece", "read_property"]

_WIDGETS = frozenset({"PieceWindow", "TabWidget", "ListWidget", "PanelWidget", "BoxWidget", "HandWidget"})


@dataclass(frozen=True)
class _Slot:
    """A palette slot of the module as the audit reads it: its palette path
    (``Window/Tab/…``), the names ``slot`` selectors match and the
    prototypes its definition names."""

    palette: str
    names: tuple[str, ...]         # gpid and name: what ``slot`` selectors match
    prototypes: tuple[str, ...]    # the prototypes its definition names (a log may hold them expanded)


class SlotIndex:
    """The module's piece slots by their piece's basic name and image, and by
    basic name (the name of the BasicPiece, which layers' level names do not
    change: a flipped piece is still found)."""

    def __init__(self, buildfile: BuildFile) -> None:
        self.buildfile = buildfile
        self.by_name_image: dict[tuple[str, str], _Slot] = {}
        self.by_name_stem: dict[tuple[str, str], _Slot] = {}
        self.by_name: dict[str, _Slot] = {}
        #: slots by the images they show, each image set looked up once
        self._by_images: dict[frozenset[str], list[_Slot]] = {}
        self._entries: list[tuple[PieceSlotEntry, tuple[str, ...]]] = []
        self._protos: _PrototypeImages | None = None
        for entry in buildfile.piece_slots():
            types = _slot_types(entry.definition)
            if not types:
                continue
            self._entries.append((entry, types))
            name, image = _basic_of(types[-1])
            slot = _Slot(_palette_path(entry), tuple(n for n in (entry.gpid, entry.entry_name) if n),
                         tuple(_prototype_names_of(types)))
            self.by_name_image.setdefault((name, image), slot)
            self.by_name_stem.setdefault((name, image_stem(image)), slot)
            self.by_name.setdefault(name, slot)

    def find(self, name: str, image: str) -> _Slot | None:
        """The slot of a piece's name and image; else of its name and the
        image's stem (a module updated between games renamed ``1445.svg``
        ``1445.f.svg``: the stem still tells apart pieces of one name, such
        as The Longest Day's many "1"); else of its name."""
        return (self.by_name_image.get((name, image)) or self.by_name_stem.get((name, image_stem(image)))
                or self.by_name.get(name))

    def find_by_images(self, images: Iterable[str]) -> list[_Slot]:
        """The slots a piece whose name no slot has may have come from, told
        by the images it shows (its own and its layers', prototypes
        expanded): a save of an earlier module version whose pieces were
        renamed since (Paths of Glory 10.0's "FR Corps" is 10.8's "FRc",
        both showing ``fr_corps.png``, ``fr_corps_back.png``,
        ``shadow_blurred.png``).  Slots that differ only in palette and
        names (the eleven "FRc" of the palette) are one slot with no palette
        and no name (a ``slot`` or ``palette`` selector matches none of
        them); slots whose prototypes differ (10.8's full and reduced
        "GEc", both showing what 10.0's "GE Corps" shows) are each one
        candidate, the binding deciding whether they bind alike.  Empty
        when no slot shows exactly these images."""
        key = frozenset(images)
        if not key:
            return []
        if key not in self._by_images:
            self._by_images[key] = self._showing(key)
        by_prototypes: dict[tuple[str, ...], list[_Slot]] = {}
        for slot in self._by_images[key]:
            by_prototypes.setdefault(slot.prototypes, []).append(slot)
        out = []
        for prototypes, slots in by_prototypes.items():
            first = slots[0]
            palette = first.palette if all(s.palette == first.palette for s in slots) else ""
            names = first.names if all(s.names == first.names for s in slots) else ()
            out.append(_Slot(palette, names, prototypes))
        return out

    def _showing(self, key: frozenset[str]) -> list[_Slot]:
        """The slots whose piece shows exactly the images ``key``, prototypes
        expanded (each prototype read once).  A slot is read whole only when
        its definition names one of the images or one of its prototypes
        shows one: an image's name stands in the definition as written, but
        for the escapes of its separators, so the longest run of it free of
        them is what is looked for."""
        if self._protos is None:
            self._protos = _PrototypeImages(self.buildfile.prototypes())
        protos = self._protos
        needles = [max(re.split(r"[,;\\\t/]", image), key=len) for image in key]
        found: list[_Slot] = []
        for entry, types in self._entries:
            try:
                names = _prototype_names_of(types)
                if not any(n in entry.definition for n in needles) and \
                        not any(protos.of(name)[0] & key for name in names):
                    continue
                piece = PieceDef.parse(entry.definition)
                shown = set(_layer_images(piece))
                shown.add(_basic(piece)[1])
                closure: dict[str, None] = {}
                for name in names:
                    images, used = protos.of(name)
                    shown |= images
                    closure.update(dict.fromkeys(used))
            except VmodError:
                continue                # (a prototype the module lacks: VASSAL cannot show the piece)
            if frozenset(i for i in shown if i) == key:
                found.append(_Slot(_palette_path(entry), tuple(n for n in (entry.gpid, entry.entry_name) if n),
                                   tuple(sorted(closure))))
        return found


class _PrototypeImages:
    """Each prototype's images (its layers', and its own prototypes') and
    the prototypes it names, transitively; read once each."""

    def __init__(self, texts: dict[str, str]) -> None:
        self.texts = texts
        self.done: dict[str, tuple[frozenset[str], tuple[str, ...]]] = {}

    def of(self, name: str, depth: int = 0) -> tuple[frozenset[str], tuple[str, ...]]:
        if name in self.done:
            return self.done[name]
        if name not in self.texts or depth > 20:
            raise VmodError(f"the piece uses prototype {name!r}, which the module does not define"
                            if depth <= 20 else "prototypes refer to each other in a loop")
        piece = PieceDef.parse(self.texts[name])
        images = set(_layer_images(piece))  # (its own BasicPiece dropped, as PieceCloner does)
        names = {name: None}
        for sub in _prototype_names(piece):
            shown, subs = self.of(sub, depth + 1)
            images |= shown
            names.update(dict.fromkeys(subs))
        self.done[name] = (frozenset(images), tuple(names))
        return self.done[name]


def image_stem(image: str) -> str:
    """An image file's name up to its first dot, without folders."""
    return image.rsplit("/", 1)[-1].split(".", 1)[0]


def _palette_path(entry: PieceSlotEntry) -> str:
    """``Window/Tab/List/Panel``: the names of the palette widgets holding a
    slot, outermost first (unnamed widgets are skipped)."""
    parts = []
    for ancestor in entry.element.iterancestors():
        tag = ancestor.tag if isinstance(ancestor.tag, str) else ""
        if tag.rsplit(".", 1)[-1] in _WIDGETS:
            name = ancestor.get("entryName") or ancestor.get("name") or ""
            if name:
                parts.append(name)
    return "/".join(reversed(parts))


def _slot_types(definition: str) -> tuple[str, ...]:
    """The trait types of a slot's piece definition (``+/id/type/state``),
    outermost first: all an index needs (no states, no trait objects)."""
    if not definition.startswith("+/"):
        return ()
    parts = decode_sequence(definition[2:], "/")
    return type_tokens(parts[1]) if len(parts) > 1 else ()


def _prototype_names_of(types: Iterable[str]) -> list[str]:
    """The prototypes trait types name (``prototype;NAME[;…]``)."""
    return [decode_sequence(t[len("prototype;"):], ";")[0] for t in types if t.startswith("prototype;")]


def _prototype_names(piece: PieceDef) -> list[str]:
    return _prototype_names_of(t.type for t in piece.traits)


def _basic_of(basic_type: str) -> tuple[str, str]:
    """(name, image) of a BasicPiece type (``piece;clone;delete;image;name``)."""
    fields = decode_sequence(basic_type, ";")
    return (fields[4] if len(fields) > 4 else "", fields[3] if len(fields) > 3 else "")


def _basic(piece: PieceDef) -> tuple[str, str]:
    """(name, image) of a piece's BasicPiece."""
    try:
        return _basic_of(piece.basic.type)
    except VmodError:
        return "", ""


def _images(piece: PieceDef) -> list[str]:
    out = [_basic(piece)[1]]
    for view in piece.find("emb2;") + piece.find("emb;"):
        out.extend(str(i) for i in (getattr(view, "image_names", None) or ()) if i)
    return [i for i in out if i]


def _layer_images(piece: PieceDef) -> list[str]:
    """The images of a piece's layers (``emb2;``, ``emb;``), read without
    the class look-up of every trait that :meth:`PieceDef.find` makes."""
    from vmodtool.vassal.traits import view_of
    out: list[str] = []
    for trait in piece.traits:
        if trait.prefix in ("emb2;", "emb;"):
            out.extend(str(i) for i in (getattr(view_of(trait), "image_names", None) or ()) if i)
    return out


@dataclass(frozen=True)
class BoundPiece:
    """What a piece of the game is to the audit."""

    unit: str | None = None        # scenario unit (counter) id
    marker: str | None = None      # marker kind
    ignored: bool = False          # matched ``ignore``: neither, on purpose
    terrain: str | None = None     # the terrain type of the hex it stands on
    hexside: str | None = None     # the feature of the hexside it stands on


_NOTHING = BoundPiece()
_IGNORED = BoundPiece(ignored=True)


def _plain(name: str) -> bool:
    """Whether a name is written as it is inside a trait's type (nothing to
    escape: letters, digits and "_")."""
    return name.replace("_", "").isalnum()


def may_define(ref: PieceRef, key: str) -> bool:
    """False when a piece cannot have the property ``key`` (a name of
    letters, digits and ``_`` that is none of VASSAL's own and not made by a
    layer or a rotation, ``<name>_Level`` …): a trait answers such a property
    only if its type names it (a Marker's, Dynamic Property's, Calculated
    Property's, Label's, …) or as a persistent property of the BasicPiece,
    in its state.  Cheaper than the read, which walks the trait chain (a
    unit is asked for a card's id, a marker for a unit's)."""
    if not _plain(key) or key in _BUILT_IN or key.endswith(_MADE_SUFFIXES):
        return True
    return key in ref.type_text or any(key in state for state in ref.states)


#: property reads of the pieces seen: (key, type, states, id or None) -> value
_PROPERTIES: dict[tuple[str, str, tuple[str, ...], str | None], str | None] = {}
_PROPERTIES_MAX = 100000


def read_property(ref: PieceRef, key: str) -> str | None:
    """``ref.get_property(key)``, None at once when the piece cannot have it
    (:func:`may_define`), and read once per distinct trait chain: a
    property is a function of the chain's types and states alone, and of
    the piece's id only as ``PieceUID`` (or through a trait naming it).  The
    binding reads each new piece's properties (a unit's ``UnitId``, a
    marker's kind, a card's id), and pieces repeat their chains across the
    games of a batch and among a game's markers; a read decodes the chain."""
    if not may_define(ref, key):
        return None
    type_text, states = ref.type_text, ref.states
    uid = (ref.id if key == "PieceUID" or "PieceUID" in type_text or any("PieceUID" in s for s in states)
           else None)
    memo_key = (key, type_text, states, uid)
    if memo_key in _PROPERTIES:
        return _PROPERTIES[memo_key]
    if len(_PROPERTIES) >= _PROPERTIES_MAX:
        _PROPERTIES.clear()
    value = _PROPERTIES[memo_key] = ref.get_property(key)
    return value


#: the endings of the properties a layer (Embellishment) or a rotation makes
#: of its name
_MADE_SUFFIXES = ("_Level", "_Active", "_Name", "_Image", "_Facing", "_Degrees")
#: properties a BasicPiece answers without naming them
_BUILT_IN = frozenset({"BasicName", "PieceName", "CurrentMap", "CurrentX", "CurrentY", "LocationName",
                       "CurrentBoard", "CurrentZone", "DeckName", "DeckPosition", "StackPos", "StackSize",
                       "PieceUID", "UniqueID", "Moved", "InvisibleToOthers", "ObscuredToOthers"})


#: a Labeler: a name the players give a piece in the game
_LABEL = "label;"
#: traits that change a piece's name for what it shows, not what it is (a
#: layer's level name, a mask, hiding)
_NAME_CHANGERS = ("emb2;", "emb;", "obs;", "hide;")


class _Facts:
    """What selectors read of one piece, computed as they ask."""

    __slots__ = ("binder", "ref", "_expanded", "_prototypes", "_slot", "_images", "_candidates")

    def __init__(self, binder: PieceBinder, ref: PieceRef) -> None:
        self.binder = binder
        self.ref = ref
        self._expanded: PieceDef | None | bool = False
        self._prototypes: set[str] | None = None
        self._slot: _Slot | None | bool = False
        self._images: list[str] | None = None
        self._candidates: list[_Slot] = []

    def definition(self) -> PieceDef | None:
        try:
            return self.ref.definition()
        except VmodError:
            return None

    def basic_name(self) -> str:
        piece = self.definition()
        return _basic(piece)[0] if piece is not None else ""

    def own_name(self) -> str:
        """The name the piece is given in the game by its labels
        (``British Leader (Fergusson)``: a Labeler's text in its name
        format) without what layers, masks and hiding make of it (a unit
        flipped to its reduced side is the same unit); the BasicPiece's
        name when no label names it."""
        basic = self.basic_name()
        piece = self.expanded() or self.definition()
        if piece is None or not any(t.type.startswith(_LABEL) for t in piece.traits):
            return basic
        kept = [t for t in piece.traits if not t.type.startswith(_NAME_CHANGERS)]
        try:
            named = PieceDef.from_traits(kept, piece.id).name.strip()
        except VmodError:
            return basic
        return named or basic

    def expanded(self) -> PieceDef | None:
        if self._expanded is False:
            piece = self.definition()
            protos = self.binder.prototypes
            if piece is not None and protos and piece.find("prototype;"):
                from vmodtool.vassal.gamewriter import expand_prototypes
                try:
                    piece = expand_prototypes(piece, protos)
                except VmodError:
                    pass
            self._expanded = piece
        return self._expanded if isinstance(self._expanded, PieceDef) else None

    def prototypes(self) -> set[str]:
        if self._prototypes is None:
            found: set[str] = set()
            piece = self.definition()
            todo = _prototype_names(piece) if piece else []
            # VASSAL 2.x logs hold pieces with their prototypes expanded: the
            # slot the piece came from still names them
            slot = self.slot()
            if slot is not None:
                todo.extend(slot.prototypes)
            while todo:
                name = todo.pop()
                if name in found:
                    continue
                found.add(name)
                todo.extend(self.binder.prototype_uses(name))
            self._prototypes = found
        return self._prototypes

    def prop(self, key: str) -> str | None:
        value = read_property(self.ref, key)
        if value is None and self.binder.prototypes:
            expanded = self.expanded()
            if expanded is not None and expanded is not self.definition():
                try:
                    value = expanded.get_property(key)
                except VmodError:
                    value = None
        return value

    def images(self) -> list[str]:
        if self._images is None:
            piece = self.expanded() or self.definition()
            self._images = _images(piece) if piece is not None else []
        return self._images

    def slot(self) -> _Slot | None:
        if self._slot is False:
            index = self.binder.slots
            piece = self.definition()
            slot = None if index is None or piece is None else index.find(*_basic(piece))
            if slot is None and index is not None and piece is not None:
                self._candidates = index.find_by_images(self.images())
                if len(self._candidates) == 1 and (self._candidates[0].names or not self.binder.wants_slot_names):
                    slot = self._candidates[0]
                # else: several candidates (:meth:`variants`), or one whose
                # name a slot or palette selector would need: none is known
            self._slot = slot
        return self._slot if isinstance(self._slot, _Slot) else None

    def untold(self) -> bool:
        """Whether the piece's name is no slot's and the images it shows
        are shown by slots that differ: which piece of the module it is
        cannot be told (:meth:`SlotIndex.find_by_images`)."""
        return self.slot() is None and bool(self._candidates)

    def variants(self) -> list[_Facts]:
        """The piece as it would be if it came from each slot its images
        may be from, when they are several (else the piece itself): what
        the binding makes of it is known only if it makes the same of each."""
        if self.slot() is not None or len(self._candidates) < 2 or self.binder.wants_slot_names:
            return [self]
        out = []
        for candidate in self._candidates:
            variant = _Facts(self.binder, self.ref)
            variant._slot, variant._candidates = candidate, [candidate]
            out.append(variant)
        return out

    def matches(self, sel: PieceSelector) -> bool:
        if sel.name and not any_match(sel.name, (self.ref.name,)):
            return False
        for key, patterns in sel.properties:
            if not any_match(patterns, (v for v in (self.prop(key),) if v is not None)):
                return False
        if sel.prototype and not any_match(sel.prototype, self.prototypes()):
            return False
        if sel.image and not any_match(sel.image, self.images()):
            return False
        if sel.palette or sel.slot:
            slot = self.slot()
            if slot is None:
                return False
            if sel.palette and not any_match(sel.palette, (slot.palette,)):
                return False
            if sel.slot and not any_match(sel.slot, slot.names):
                return False
        return True


class PieceBinder:
    """Binds the pieces of one game to a scenario's units and markers.

    :attr:`counters` holds every unit of the game: the scenario's own
    counters and one per piece a ``type`` binding made a unit (its id and
    label the piece name, ``NAME #2`` … for later pieces of the same name).
    :attr:`problems` says which pieces could not be bound (a unit with no
    side)."""

    def __init__(self, scenario: Scenario, module: Module | None = None) -> None:
        self.scenario = scenario
        self.binding: Binding = scenario.binding
        self.counters: dict[str, Counter] = {c.id: c for c in scenario.counters}
        self.new_counters: list[Counter] = []
        self.problems: list[str] = []
        #: pieces left unbound whose name no palette slot has and whose
        #: images several slots that differ show (:meth:`SlotIndex.find_by_images`):
        #: which piece of the module each is cannot be told
        self.untold: set[str] = set()
        self._no_side: set[str] = set()
        #: declared counters a piece of the same name was bound to (:meth:`_claims`)
        self._claimed: set[str] = set()
        buildfile = module.buildfile if module is not None else None
        self.prototypes: dict[str, str] = buildfile.prototypes() if buildfile is not None else {}
        #: prototype name -> the prototypes it uses, parsed as a piece asks
        #: (:meth:`prototype_uses`): a module defines more than its pieces reach
        self._prototype_uses: dict[str, list[str]] = {}
        wants_slot = any(s.needs_slot or s.prototype for s in self.binding.selectors())
        #: whether a selector reads a slot's palette or names (``slot``, ``palette``)
        self.wants_slot_names = any(s.needs_slot for s in self.binding.selectors())
        self.slots = SlotIndex(buildfile) if wants_slot and buildfile is not None else None
        self._names: dict[str, int] = {}
        # what a piece shows is a function of its traits and the scenario's
        # face and status bindings alone: the reads are kept for every audit
        # with this binding (a batch audits many logs of one scenario)
        memo = _shown_memo(self.binding)
        self._layer_cache: dict[tuple[str, str], tuple[str, bool] | None] = memo.layers
        self._last_layers: tuple[str, list[TraitView]] | None = None
        #: what a piece shows (the face level and its status layers) by the
        #: key :meth:`_shown_key` gives: a function of its traits alone, and a
        #: unit turned back (a marker layer off again) shows what it did before
        self._shown: dict[tuple[object, ...], tuple[int | None, frozenset[str]]] = memo.shown
        #: type of a piece -> the traits (their places in the chain) whose
        #: states alone decide what it shows, None when others may; and (id,
        #: states) of the one piece of a type seen once so far (see _shown_key)
        self._deciders: dict[str, tuple[int, ...] | None] = memo.deciders
        self._seen_once: dict[str, tuple[str | None, tuple[str, ...]]] = memo.seen_once

    def prototype_uses(self, name: str) -> list[str]:
        """The prototypes the module's prototype ``name`` uses (none for a
        name no prototype has, or a definition that cannot be read)."""
        uses = self._prototype_uses.get(name)
        if uses is None:
            uses = []
            text = self.prototypes.get(name)
            if text is not None:
                try:
                    uses = _prototype_names(PieceDef.parse(text))
                except VmodError:
                    pass
            self._prototype_uses[name] = uses
        return uses

    def bind(self, ref: PieceRef) -> BoundPiece:
        """The binding of a piece the audit has not seen before.  A piece
        whose slot only its images tell, shown by slots that differ
        (:meth:`SlotIndex.find_by_images`), is bound when every one of
        those slots binds it alike; else it is left unbound and named in
        :attr:`untold`."""
        facts = _Facts(self, ref)
        variants = facts.variants()
        decision = self._decide(variants[0])
        if any(self._decide(other) != decision for other in variants[1:]):
            self.untold.add(ref.name)
            return _NOTHING
        if isinstance(decision, BoundPiece):
            return decision
        return self._unit(variants[0], *decision)

    def _decide(self, facts: _Facts) -> BoundPiece | tuple[str, str | None, str | None, str | None]:
        """What the binding makes of a piece, before a unit is named: a
        :class:`BoundPiece`, or a unit's (type, side, formation,
        name_from)."""
        b = self.binding
        for terrain in b.terrain:
            if facts.matches(terrain.match):
                return BoundPiece(terrain=terrain.terrain, hexside=terrain.hexside)
        override = b.overrides.get(facts.basic_name()) if b.overrides else None
        if override is not None and override.type is not None:
            return self._unit_of(facts, override.type, override.side, override.formation)
        for marker in b.markers:
            if marker.before_units and facts.matches(marker.match):
                found = self._marker(facts, marker)
                if found is not None:
                    return found
        for entry in b.units:
            if not facts.matches(entry.match):
                continue
            if entry.counter_from is not None:
                value = facts.prop(entry.counter_from)
                if value and value in self.counters:
                    return BoundPiece(unit=value)
                continue
            if entry.type is not None:
                side = override.side if override is not None and override.side else entry.side
                formation = override.formation if override is not None and override.formation else entry.formation
                return self._unit_of(facts, entry.type, side, formation, entry.name_from)
        for marker in b.markers:
            if not marker.before_units and facts.matches(marker.match):
                found = self._marker(facts, marker)
                if found is not None:
                    return found
        for sel in b.ignore:
            if facts.matches(sel):
                return _IGNORED
        if facts.untold():
            self.untold.add(facts.ref.name)
        return _NOTHING

    def _claims(self, uid: str, unit_type: str, side: str) -> bool:
        """Whether the piece the binding names ``uid`` is the scenario's own
        counter of that id (one of the same type and side declared in
        ``counters``, not yet taken by another piece): the counters ``vmodtool
        import`` declares for the units a module's predefined setups place,
        named as the binding names them."""
        declared = self.counters[uid]
        if declared.entry == "binding" or uid in self._claimed:
            return False
        if declared.type != unit_type or declared.side != side:
            return False
        self._claimed.add(uid)
        return True

    def _unit_of(self, facts: _Facts, unit_type: str, side: str | None, formation: str | None,
                 name_from: str | None = None) -> tuple[str, str | None, str | None, str | None]:
        """A unit's (type, side, formation, name_from), its side from
        ``binding.sides`` when the entry gives none."""
        if side is None:
            for entry in self.binding.sides:
                if facts.matches(entry.match):
                    side = entry.side
                    break
        return unit_type, side, formation, name_from

    @staticmethod
    def _marker(facts: _Facts, marker: MarkerBinding) -> BoundPiece | None:
        """The marker a matching ``markers`` entry makes of a piece (None:
        its ``kind_from`` property is not set)."""
        if marker.kind_from is not None:
            value = facts.prop(marker.kind_from)
            return BoundPiece(marker=value) if value else None
        return BoundPiece(marker=marker.kind)

    def _unit(self, facts: _Facts, unit_type: str, side: str | None, formation: str | None,
              name_from: str | None = None) -> BoundPiece:
        # the BasicPiece's name, or the name a label gives it in the game (a
        # generic "British Leader" named "British Leader (Fergusson)"): what
        # the piece is called whatever its layers show
        named = (facts.prop(name_from) or "").strip() if name_from is not None else ""
        name = named or facts.own_name() or f"piece {facts.ref.id}"
        if side is None:
            if name not in self._no_side:
                self._no_side.add(name)
                self.problems.append(name)
            return _NOTHING
        n = self._names.get(name, 0) + 1
        self._names[name] = n
        uid = name if n == 1 else f"{name} #{n}"
        while uid in self.counters:           # a scenario counter of that id, or "A #2" given as a name
            if self._claims(uid, unit_type, side):
                return BoundPiece(unit=uid)
            n += 1
            uid = f"{name} #{n}"
        counter = Counter(uid, unit_type, side, formation, label=name, entry="binding")
        self.counters[uid] = counter
        self.new_counters.append(counter)
        return BoundPiece(unit=uid)

    # -- what a unit shows -------------------------------------------------------------
    def _layer(self, ref: PieceRef, layer: str) -> tuple[str, bool] | None:
        """(property prefix, always on) of the unit's layer called ``layer``:
        the Embellishment of that layer name, else an unnamed one whose
        command is ``layer`` (VASSAL 2.x modules leave layers unnamed: their
        properties are then ``_Level``, ``_Active``, and players know the
        layer by its command, "Flip").  None when the unit has no such layer."""
        key = (ref.type_text, layer)
        if key in self._layer_cache:
            return self._layer_cache[key]
        found: tuple[str, bool] | None = None
        views: list[TraitView] = []
        # a layer name of letters, digits and "_" is written as it is in the
        # type that names it: a type without it has no such layer
        if not _plain(layer) or layer in ref.type_text:
            try:
                views = self._layer_views(ref)
            except VmodError:
                views = []
        for view in views:
            if getattr(view, "layer_name", None) == layer:
                found = (layer, bool(getattr(view, "always_active", True)))
                break
        else:
            for view in views:
                if not getattr(view, "layer_name", "") and getattr(view, "activate_command", None) == layer:
                    found = ("", bool(getattr(view, "always_active", True)))
                    break
        if len(self._layer_cache) > 100000:
            self._layer_cache.clear()
        self._layer_cache[key] = found
        return found

    def _layer_views(self, ref: PieceRef) -> list[TraitView]:
        """The piece's layers, ``emb2;`` ones first (``find("emb2;") +
        find("emb;")``: no Java class is one of those prefixes), kept for
        the last type asked (a unit's layers are asked one after another)."""
        last = self._last_layers
        if last is not None and last[0] == ref.type_text:
            return last[1]
        views = ref.definition().views()
        found = [v for v in views if v.trait.prefix == "emb2;"] + [v for v in views if v.trait.prefix == "emb;"]
        self._last_layers = (ref.type_text, found)
        return found

    def shown(self, ref: PieceRef, faces: int, current: int) -> tuple[int, frozenset[str]]:
        """(:meth:`face`, :meth:`layers`) of a unit's piece, read once per
        distinct state of the traits that decide them."""
        key = self._shown_key(ref)
        hit = self._shown.get(key)
        if hit is None:
            if len(self._shown) >= 100000:
                self._shown.clear()
            hit = self._shown[key] = (self._face_index(ref), self.layers(ref))
        index, layers = hit
        return (current if index is None else max(0, min(index, faces - 1))), layers

    def _shown_key(self, ref: PieceRef) -> tuple[object, ...]:
        """What :meth:`shown` reads of a piece, as a cache key: its type and
        the states of the traits answering the properties the face and
        status bindings read, when each of those answers from its own state
        alone (:func:`~vmodtool.vassal.traits.property_sources`: a layer that
        does not follow a property, a marker, …); else the whole piece (id,
        type, every state).  Pieces of one type that differ only in where
        they are or in layers no binding reads share one read.

        Which traits decide is found when a type comes the second time (most
        units have a type of their own, their id and images in it: not worth
        it for them); the first piece's read is then filed under its key."""
        type_text = ref.type_text
        if type_text in self._deciders:
            deciders = self._deciders[type_text]
        else:
            first = self._seen_once.pop(type_text, None)
            if first is None:
                if len(self._seen_once) >= 10000:
                    self._seen_once.clear()
                self._seen_once[type_text] = (ref.id, ref.states)
                return (ref.id, type_text, ref.states)
            # the second piece of this type: the first one's read is filed again
            if len(self._deciders) >= 10000:
                self._deciders.clear()
            deciders = self._deciders[type_text] = self._deciding_traits(ref)
            if deciders is not None:
                earlier = self._shown.get((first[0], type_text, first[1]))
                if earlier is not None:
                    self._shown.setdefault(_decided(type_text, first[1], deciders), earlier)
        if deciders is None:
            return (ref.id, type_text, ref.states)
        return _decided(type_text, ref.states, deciders)

    def _deciding_traits(self, ref: PieceRef) -> tuple[int, ...] | None:
        """The places of the traits whose states decide what :meth:`shown`
        reads of pieces of ``ref``'s type (None: not theirs alone)."""
        from vmodtool.vassal.traits import property_sources
        keys: list[str] = []
        faces_of = self.binding.faces
        if faces_of is not None:
            layer = self._layer(ref, faces_of.layer)
            if layer is not None:
                keys += [f"{layer[0]}_Level", f"{layer[0]}_Active"]
        for s in self.binding.status:
            if s.layer is not None:
                keys += [f"{s.layer}_Active", f"{s.layer}_Name"]
                found = self._layer(ref, s.layer)
                if found is not None:
                    keys += [f"{found[0]}_Active", f"{found[0]}_Name"]
            elif s.property is not None:
                keys.append(s.property)
        places: set[int] = set()
        try:
            for source in property_sources(ref.definition(), keys):
                if source is None:
                    continue                  # (no trait answers: None for every such piece)
                place, alone = source
                if not alone:
                    return None
                places.add(place)
        except VmodError:
            return None
        return tuple(sorted(places))

    def face(self, ref: PieceRef, faces: int, current: int) -> int:
        """The face (index) a unit shows; ``current`` when the binding reads
        no face (or the unit lacks the layer)."""
        index = self._face_index(ref)
        return current if index is None else max(0, min(index, faces - 1))

    def _face_index(self, ref: PieceRef) -> int | None:
        """The face the piece's layer shows, unclamped (None: no face read)."""
        faces_of = self.binding.faces
        if faces_of is None:
            return None
        layer = self._layer(ref, faces_of.layer)
        if layer is None:
            return None
        prefix, always_on = layer
        level = ref.get_property(f"{prefix}_Level")
        if not level or not level.lstrip("-").isdigit():
            return None
        value = abs(int(level))
        if always_on:
            return value - 1
        return value if ref.get_property(f"{prefix}_Active") == "true" else 0

    def layers(self, ref: PieceRef) -> frozenset[str]:
        """The status layers (marker kinds) a unit shows."""
        status = self.binding.status
        if not status:
            return frozenset()
        return frozenset(s.marker for s in status if self._shows(ref, s))

    def _shows(self, ref: PieceRef, s: StatusBinding) -> bool:
        if s.layer is not None:
            prefix = s.layer
            active = ref.get_property(f"{prefix}_Active")
            if active is None:            # no layer of that name: an unnamed one with that command?
                found = self._layer(ref, s.layer)
                if found is None:
                    return False
                prefix = found[0]
                active = ref.get_property(f"{prefix}_Active")
            if active != "true":
                return False
            return not s.level or any_match(s.level, _present(ref.get_property(f"{prefix}_Name")))
        if s.property is not None:
            return any_match(s.value, _present(ref.get_property(s.property)))
        return False


class _ShownMemo:
    """The reads :meth:`PieceBinder.shown` keeps for one binding (see there)."""

    __slots__ = ("binding", "layers", "shown", "deciders", "seen_once")

    def __init__(self, binding: Binding) -> None:
        self.binding = binding                  # (held: the memo is found by its identity)
        self.layers: dict[tuple[str, str], tuple[str, bool] | None] = {}
        self.shown: dict[tuple[object, ...], tuple[int | None, frozenset[str]]] = {}
        self.deciders: dict[str, tuple[int, ...] | None] = {}
        self.seen_once: dict[str, tuple[str | None, tuple[str, ...]]] = {}


#: id of a scenario's binding -> its memo; a few scenarios' worth (an audit
#: session meets one or two; a scenario loaded again has a binding of its own)
_SHOWN_MEMOS: dict[int, _ShownMemo] = {}
_SHOWN_MEMOS_MAX = 8


def _shown_memo(binding: Binding) -> _ShownMemo:
    memo = _SHOWN_MEMOS.get(id(binding))
    if memo is None or memo.binding is not binding:
        if len(_SHOWN_MEMOS) >= _SHOWN_MEMOS_MAX:
            _SHOWN_MEMOS.clear()
        memo = _SHOWN_MEMOS[id(binding)] = _ShownMemo(binding)
    return memo


def _decided(type_text: str, states: tuple[str, ...], deciders: tuple[int, ...]) -> tuple[object, ...]:
    """The :meth:`PieceBinder.shown` key of a piece: its type and the states
    of the traits that decide (a trait past the states has ``""``)."""
    n = len(states)
    return (type_text, *[states[j] if j < n else "" for j in deciders])


def _present(value: str | None) -> Iterable[str]:
    return () if value is None else (value,)
