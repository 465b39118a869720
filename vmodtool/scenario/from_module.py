"""A scenario skeleton from any VASSAL module: what ``vmodtool import``
writes (``docs/scenario-format.md``, "Games played with any module").

Pure: a :class:`~vmodtool.vassal.module.Module` in, commented YAML text out.
The module is read, never judged; every choice is a *proposal* the file
explains in a comment next to it:

* ``module``: the file (as the caller writes it) and the name the logs
  carry; ``board_sizes`` the caller gave for boards whose images the module
  lacks, else a commented placeholder naming them.
* ``map.from_module``: the first ``Map`` window whose board has a hex grid
  the scenario can use (a ``HexGrid``, or a ``ZonedGrid`` over one); other
  windows become ``boxes`` (``module: {map}``), with a role their name
  suggests.  A module without such a map gets a small placeholder grid and
  says why (the scenario's map is a hex map).
* sides: the palette's top-level folders that hold units (``*/American/*``),
  else a side-like piece property (``Side: AP``), else two placeholders.
* pieces are sorted into units, markers, cards and helpers by the names of
  their prototypes, palette folders and their own; units are grouped into
  unit types by the prototype that covers most of them and no other kind of
  piece, else by palette folder.  The faces of a type come from the common
  flip layer (an Embellishment with two levels, or one that can be switched
  off).
* ``log.turn_tracker`` from the module's turn tracker, ``game.dice`` from
  its dice buttons, an empty ``rules`` list with a commented example.

The same module gives the same text, byte for byte (no time, no set order).
Every text from the module is written as a YAML double-quoted scalar with
its control characters, bidi overrides and line separators escaped, so any
name (Cyrillic, ``:``, ``#``, quotes, ``&``) survives and no comment or line
can be forged by one.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from lxml import etree

from vmodtool.errors import VmodError
from vmodtool.scenario.adjacency import propose_connections
from vmodtool.scenario.binding import UNIT_ID, Pattern
from vmodtool.scenario.colours import hex_rgb, readable_ink
from vmodtool.scenario.locations import Space, spaces_of_board
from vmodtool.scenario.model import SIDE_PALETTE
from vmodtool.scenario.module_map import ModuleMapError, board_hex_grids, module_map_grid
from vmodtool.vassal.buildfile import BoardEntry, MapEntry, PieceSlotEntry
from vmodtool.vassal.grid import HexGrid, ZonedGrid, board_from_element
from vmodtool.vassal.metadata import ModuleMetadata
from vmodtool.vassal.module import Module
from vmodtool.vassal.pieces import PieceDef, Trait
from vmodtool.vassal.traits import DynamicProperty, Embellishment, Labeler, Marker, UsePrototype, piece_name
from vmodtool.vassal.turntracker import TurnLevelDef, TurnTrackerDef, turn_trackers

__all__ = ["ImportedScenario", "scenario_from_module", "yaml_text"]

_P = "VASSAL.build."
_MAP_CLASS = _P + "module.Map"
_WINDOW = "PieceWindow"
_FOLDERS = ("TabWidget", "ListWidget", "PanelWidget", "BoxWidget")
_SLOTS = ("PieceSlot", "CardSlot")
_DECKS = ("DrawPile", "Deck")
_MAP_KINDS = ("Map", "PrivateMap", "PlayerHand", "WidgetMap")

#: names that make a piece a marker (its own, a prototype's, a folder's)
_MARKER_WORDS = re.compile(
    r"\b(markers?|control(?:led)?|disrupt(?:ed|ion)?|status|out[ _-]of[ _-]supply|oos|isolated|"
    r"fatigue[ds]?|spent|moved|fired|used|activat(?:ed|ion)|pinned|broken|suppress(?:ed)?|"
    r"demorali[sz]ed|entrench(?:ed|ment)?|hits?|damage[ds]?|vps?|victory)\b", re.I)
#: names of cards and decks
_CARD_WORDS = re.compile(r"\b(cards?|decks?|hands?|events?)\b", re.I)
#: names of pieces that are neither units nor markers (map furniture, tools)
_HELPER_WORDS = re.compile(
    r"\b(spaces?|labels?|masks?|shadows?|debug|buttons?|locations?|mats?|boxes|tracks?|charts?|"
    r"tables?|displays?|legends?|help|ploppers?|highlights?|overlays?|dummy|spacers?|blank|"
    r"templates?|tiles?|references?)\b", re.I)
#: palette folders that are not a side
_NOT_A_SIDE = re.compile(r"^(others?|misc(?:ellaneous)?|common|neutral|general|game|utilit(?:y|ies)|extras?|"
                         r"optional|all|pieces|units|counters|markers?|tools?|various|both|shared)$", re.I)
#: property names that say which side a piece is on, best first
_SIDE_PROPERTIES = ("side", "faction", "player", "owner", "nationality", "nation", "country", "army",
                    "team", "power", "allegiance", "belligerent", "camp", "force")
#: words a side's folder name may end with that are not part of the side's name
_SIDE_SUFFIX = re.compile(r"\s+(units?|pieces?|counters?)$", re.I)
#: prototype names too general to name a marker kind
_GENERIC_MARKER = re.compile(r"(?i)(simple |complex |basic |generic |common )?(markers?|counters?|pieces?)")
#: names of layers that flip a counter, best first
_FLIP_WORDS = re.compile(r"\b(flip|face|side|step|reduced?|back|front|strength)\b", re.I)

#: box roles by the name of a map window, first match wins
_BOX_ROLES = (
    (re.compile(r"permanent|eliminat|\belim\b|removed|выбыв|снят", re.I), "eliminated"),
    (re.compile(r"dead|remnant|graveyard|killed|destroyed|lost|потер|убит|уничтож", re.I), "dead"),
    (re.compile(r"casualt", re.I), "casualty"),
    (re.compile(r"\bcup\b|\bpool\b(?!.*force)", re.I), "cup"),
    (re.compile(r"\bdrawn\b", re.I), "drawn"),
    (re.compile(r"reinforc|entry|arriv|подкрепл|резерв", re.I), "reinforcements"),
    (re.compile(r"force pool|counter mix|\bmix\b", re.I), "counter_mix"),
)


#: at most this many marker kinds one per marker piece; more are grouped
_MAX_MARKER_KINDS = 40
#: names listed in one comment before "…"
_LISTED = 12
_PLACEHOLDER_FACTORS = ("attack", "defense", "move")

_CYRILLIC = dict(zip(
    "абвгдеёжзийклмнопрстуфхцчшщъыьэюяєіїґў",
    ["a", "b", "v", "g", "d", "e", "e", "zh", "z", "i", "i", "k", "l", "m", "n", "o", "p", "r", "s",
     "t", "u", "f", "kh", "ts", "ch", "sh", "shch", "", "y", "", "e", "yu", "ya", "ye", "i", "yi", "g",
     "u"], strict=True))


# ----------------------------------------------------------------------------
# YAML text

#: characters a double-quoted scalar escapes (YAML cannot carry them raw, or
#: they would break a line or a reader's view of it)
_ESCAPE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufeff\ufffe\uffff\"\\\\]")


def _escape_char(match: re.Match[str]) -> str:
    char = match.group()
    if char in "\"\\":
        return "\\" + char
    code = ord(char)
    return {9: "\\t", 10: "\\n", 13: "\\r"}.get(code) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def yaml_text(value: str) -> str:
    """``value`` as a YAML double-quoted scalar on one line: right in any
    context (flow or block, key or value, or a comment)."""
    return '"' + _ESCAPE.sub(_escape_char, value) + '"'


_PLAIN_ID = re.compile(r"^[a-z][a-z0-9_]*$")
_YAML_WORDS = {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}


def _key(text: str) -> str:
    """An id as a mapping key or value: plain when YAML reads it back as
    the same text, else quoted."""
    return text if _PLAIN_ID.match(text) and text not in _YAML_WORDS else yaml_text(text)


def _slug(text: str, fallback: str) -> str:
    """A plain ASCII id from a name (Cyrillic transliterated)."""
    out = []
    for char in text.lower():
        out.append(_CYRILLIC.get(char, char))
    ascii_text = unicodedata.normalize("NFKD", "".join(out)).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "_", ascii_text).strip("_")[:40].strip("_")
    if not slug:
        return fallback
    return slug if slug[0].isalpha() else f"{fallback}_{slug}"


class _Ids:
    """Unique ids from names: ``unit``, ``unit_2`` …"""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def make(self, name: str, fallback: str) -> str:
        base = _slug(name, fallback)
        candidate, n = base, 1
        while candidate in self.used or candidate in _YAML_WORDS:
            n += 1
            candidate = f"{base}_{n}"
        self.used.add(candidate)
        return candidate


def _listing(names: Sequence[str], limit: int = _LISTED) -> str:
    """Names for a comment: quoted, long ones cut, at most ``limit``."""
    shown = ", ".join(yaml_text(n if len(n) <= 60 else n[:57] + "...") for n in names[:limit])
    return shown + (f" … ({len(names)} in all)" if len(names) > limit else "")


def _pattern_list(values: Sequence[str]) -> str:
    """A selector value: one pattern, or a flow list of them."""
    if len(values) == 1:
        return yaml_text(values[0])
    return "[" + ", ".join(yaml_text(v) for v in values) + "]"


def _glob_literal(text: str) -> str:
    """A pattern matching exactly ``text``: itself, unless it would be read
    as a glob or a regular expression."""
    if "*" in text or "?" in text or text.startswith("re:"):
        return "re:" + re.escape(text)
    return text


def _folder_patterns(name: str, direct: bool, nested: bool, top: bool = False) -> list[str]:
    """Palette patterns for the pieces of folder ``name`` (``direct``: some
    sit in it, ``nested``: some in folders below it; ``top``: no named
    widget holds it, so the path starts with it).  A palette path is the
    names of the widgets holding a slot, unnamed ones left out."""
    if "*" in name or "?" in name or name.startswith("re:"):
        escaped = re.escape(name)
        return [f"re:(?:.*/)?{escaped}" + ("(?:/.*)?" if nested else "")]
    lead = "" if top else "*/"
    out = []
    if direct:
        out.append(f"{lead}{name}")
    if nested:
        out.append(f"{lead}{name}/*")
    return out


def _palette_path(piece: _Piece) -> str:
    """The palette path of a piece's slot, as the audit reads it."""
    return "/".join(f for f in piece.folders if f)


# ----------------------------------------------------------------------------
# the module's pieces

@dataclass
class _Layer:
    """A layer (Embellishment) of a module's piece: its name as a binding names
    it, its levels and their names, and whether it can be switched off."""

    name: str
    levels: int
    switchable: bool
    level_names: tuple[str, ...]

    @property
    def faces(self) -> int:
        return self.levels + (1 if self.switchable else 0)

    @property
    def flips(self) -> bool:
        return self.faces >= 2


@dataclass
class _Piece:
    """A piece slot of the module as the import reads it: where it lies, its
    palette folders, the prototypes it uses, its name, properties and
    layers, and the kind :func:`_classify` sorts it into."""

    slot: PieceSlotEntry
    where: str                          # palette | deck | setup | other
    chain: tuple[etree._Element, ...]   # palette containers, window first
    folders: tuple[str, ...]            # their names
    window: etree._Element | None
    direct: tuple[str, ...]
    prototypes: tuple[str, ...]         # every prototype used, in order of first use
    name: str
    name_varies: bool
    properties: dict[str, str]
    layers: list[_Layer]
    kind: str = "unit"                  # unit | marker | formation_marker | card | helper

    @property
    def label(self) -> str:
        return self.name or self.slot.entry_name


def _short(tag: object) -> str:
    return tag.rsplit(".", 1)[-1] if isinstance(tag, str) else ""


def _layer_name(view: Embellishment) -> str:
    """A layer as a binding names it: its name, else its description, else
    the command that switches it (VASSAL 2.x layers have no name: TLD's
    flip layer is the one whose command is 'Flip')."""
    for value in (view.layer_name, view.description, view.activate_command):
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


class _Reader:
    """Every slot of the module as a :class:`_Piece`; prototypes expanded
    as VASSAL does (an undefined or looping prototype is left out)."""

    def __init__(self, module: Module) -> None:
        self.buildfile = module.buildfile
        self.definitions = self.buildfile.prototypes()
        self._parsed: dict[str, PieceDef | None] = {}
        self.unreadable: list[str] = []
        self.missing_prototypes: set[str] = set()
        self.pieces: list[_Piece] = []
        self._by_element = {id(s.element): s for s in self.buildfile.piece_slots()}
        self._walk(self.buildfile.root, "other", (), None)

    def prototype(self, name: str) -> PieceDef | None:
        if name not in self._parsed:
            text = self.definitions.get(name)
            piece: PieceDef | None = None
            if text is None:
                self.missing_prototypes.add(name)
            else:
                try:
                    piece = PieceDef.parse(text)
                except VmodError:
                    self.missing_prototypes.add(name)
            self._parsed[name] = piece
        return self._parsed[name]

    def expand(self, traits: Sequence[Trait], used: list[str], active: tuple[str, ...] = ()) -> list[Trait]:
        out: list[Trait] = []
        for trait in traits:
            if trait.prefix == "prototype;":
                view = trait.view()
                name = str(view.prototype_name) if isinstance(view, UsePrototype) else ""
                if name not in used:
                    used.append(name)
                proto = self.prototype(name)
                if proto is None or name in active or len(active) > 20:
                    continue
                out.extend(self.expand(proto.traits[:-1], used, active + (name,)))
            elif trait.prefix != "cmt;":
                out.append(trait)
        return out

    def _walk(self, element: etree._Element, where: str, chain: tuple[etree._Element, ...],
              window: etree._Element | None) -> None:
        for child in element:
            if not isinstance(child.tag, str):
                continue
            kind = _short(child.tag)
            if kind in _SLOTS:
                slot = self._by_element.get(id(child))
                if slot is not None:
                    self._add(slot, where, chain, window)
                continue
            if kind == _WINDOW:
                self._walk(child, "palette", (child,), child)
            elif kind in _FOLDERS and where == "palette":
                self._walk(child, where, chain + (child,), window)
            elif kind in _DECKS:
                self._walk(child, "deck", (), None)
            elif kind == "SetupStack":
                self._walk(child, "setup", (), None)
            else:
                self._walk(child, where, chain, window)

    def _add(self, slot: PieceSlotEntry, where: str, chain: tuple[etree._Element, ...],
             window: etree._Element | None) -> None:
        try:
            piece = PieceDef.parse(slot.definition)
        except VmodError:
            self.unreadable.append(slot.entry_name)
            return
        direct = tuple(dict.fromkeys(str(v.prototype_name) for v in piece.views() if isinstance(v, UsePrototype)))
        used: list[str] = []
        traits = self.expand(piece.traits[:-1], used) + [piece.basic]
        expanded = PieceDef.from_traits(traits, piece.id)
        try:
            name = piece_name(expanded)
            views = expanded.views()
        except VmodError:
            self.unreadable.append(slot.entry_name)
            return
        properties: dict[str, str] = {}
        layers: list[_Layer] = []
        varies = False
        for view in reversed(views):         # the outermost definition wins
            if isinstance(view, Marker):
                properties.update(view.items())
            elif isinstance(view, DynamicProperty):
                properties[str(view.key)] = view.value
            elif isinstance(view, Embellishment):
                names = tuple(str(n) for n in view.level_names)
                layers.append(_Layer(_layer_name(view), len(view.image_names), view.can_be_activated, names))
                varies = varies or any(n for n in names)
            elif isinstance(view, Labeler):
                varies = True
        layers.reverse()
        folders = tuple(_folder_name(e) for e in chain)
        self.pieces.append(_Piece(slot, where, chain, folders, window, direct, tuple(used), name, varies,
                                  properties, layers))


def _folder_name(element: etree._Element) -> str:
    if _short(element.tag) == _WINDOW:
        return (element.get("name") or "").strip()
    return (element.get("entryName") or "").strip()


def _words(name: str) -> str:
    """A name with its CamelCase, ``_`` and ``-`` parts apart (``ShadowSmall``
    → ``Shadow Small``), for the word patterns."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])|[_-]+", " ", name)


def _classify(piece: _Piece) -> str:
    names = [_words(n) for n in (*piece.direct, *(f for f in piece.folders[1:] if f), piece.label)]
    if piece.slot.kind == "CardSlot" or piece.where == "deck" or any(_CARD_WORDS.search(n) for n in names):
        return "card"
    if any(_MARKER_WORDS.search(n) for n in names):
        return "marker"
    if any(_HELPER_WORDS.search(n) for n in names):
        return "helper"
    return "unit"


# ----------------------------------------------------------------------------
# proposals

@dataclass
class _Side:
    """A proposed side: its id and name, how its pieces are recognised (palette
    folder patterns or a property ``(key, value)``) and how many there are."""

    id: str
    name: str
    patterns: list[str] = field(default_factory=list)   # palette patterns
    property: tuple[str, str] | None = None              # (key, value)
    pieces: int = 0


@dataclass
class _Group:
    """Pieces bound by one selector: a unit type or a marker kind."""

    id: str
    name: str
    selector: str                     # YAML flow mapping text
    pieces: list[_Piece]
    how: str                          # for the comment
    scope: str = "unit"


@dataclass(frozen=True)
class ImportedScenario:
    """What :func:`scenario_from_module` made: the YAML text and counts."""

    text: str
    sides: int
    unit_types: int
    unit_bindings: int
    markers: int
    boxes: int
    #: boards whose pixel size the scenario map needs but nobody gave
    missing_board_sizes: tuple[str, ...] = ()
    #: what the user must know (printed as warnings by the command)
    notes: tuple[str, ...] = ()


#: a prototype names a group of pieces of one kind when at least this share
#: of the pieces using it are of that kind
_DOMINANCE = 0.9
#: a prototype only one piece uses names that piece, not a group
_MIN_GROUP = 2


def _rank_prototypes(pieces: Sequence[_Piece], others: Iterable[_Piece], order: Mapping[str, int],
                     skip: Callable[[str], bool] | None = None) -> dict[str, int]:
    """The prototypes that name groups of ``pieces``, best first, with how
    many of them use each: one some of them use directly that pieces of
    other kinds hardly use, or one they use through other prototypes that no
    other kind uses at all (a helper mixed into units and markers alike
    names no group)."""
    direct = {name for p in pieces for name in p.direct}
    counts: Counter[str] = Counter(name for p in pieces for name in p.prototypes if skip is None or not skip(name))
    foreign: Counter[str] = Counter(name for p in others for name in p.prototypes if name in counts)
    kept = {name: n for name, n in counts.items()
            if n >= _MIN_GROUP and (n >= _DOMINANCE * (n + foreign[name]) if name in direct else not foreign[name])}
    return dict(sorted(kept.items(), key=lambda kv: (-kv[1], order.get(kv[0], len(order)), kv[0])))


def _group_by_prototype(pieces: Sequence[_Piece], others: Sequence[_Piece], order: Mapping[str, int],
                        skip: Callable[[str], bool] | None = None) -> tuple[dict[str, list[_Piece]], list[_Piece]]:
    """Each piece under the best-ranked prototype only its kind uses
    (listed in rank order: the first ``prototype`` selector a piece matches
    is its group's), and the pieces with none."""
    ranked = _rank_prototypes(pieces, others, order, skip)
    rank = {name: i for i, name in enumerate(ranked)}
    groups: dict[str, list[_Piece]] = {name: [] for name in ranked}
    rest: list[_Piece] = []
    for piece in pieces:
        candidates = [n for n in piece.prototypes if n in rank]
        if candidates:
            groups[min(candidates, key=rank.__getitem__)].append(piece)
        else:
            rest.append(piece)
    return {k: v for k, v in groups.items() if v}, rest


def _deepest_folder(piece: _Piece) -> str:
    return next((f for f in reversed(piece.folders[1:]) if f), "")


class _Proposal:
    def __init__(self, module: Module, module_file: str, board_sizes: Mapping[str, tuple[int, int]]) -> None:
        self.module = module
        self.module_file = module_file
        self.given_sizes = dict(board_sizes)
        self.reader = _Reader(module)
        self.pieces = self.reader.pieces
        self.order = {name: i for i, name in enumerate(self.reader.definitions)}
        self.notes: list[str] = []
        self.sideless: list[_Group] = []
        for piece in self.pieces:
            piece.kind = _classify(piece)
        self.sides_from = "placeholder"
        self.sides: list[_Side] = self._palette_sides() or self._property_sides() or []
        if not self.sides:
            self.sides = [_Side("side_a", "Side A"), _Side("side_b", "Side B")]
        #: a formation's markers among its units (bound before the units)
        self.formation_markers = self._formation_markers()
        self.unit_types, self.unbound_units = self._unit_types()
        self.markers = self._markers()
        self.ignored = [p for p in self.pieces if p.kind in ("card", "helper")]

    # -- sides ------------------------------------------------------------------
    def _top_folders(self, window: etree._Element) -> list[etree._Element]:
        node = window
        while True:
            containers = [c for c in node if isinstance(c.tag, str) and _short(c.tag) in _FOLDERS]
            slots = [c for c in node if isinstance(c.tag, str) and _short(c.tag) in _SLOTS]
            if len(containers) == 1 and not slots:
                node = containers[0]
                continue
            return containers

    def _palette_sides(self) -> list[_Side]:
        best: list[_Side] = []
        best_count = 0
        windows = list(dict.fromkeys(p.window for p in self.pieces if p.window is not None))
        for window in windows:
            sides: list[_Side] = []
            ids = _Ids()
            for folder in self._top_folders(window):
                name = _folder_name(folder)
                inside = [p for p in self.pieces if folder in p.chain]
                units = [p for p in inside if p.kind == "unit"]
                if not name or not units or _NOT_A_SIDE.match(name):
                    continue
                direct = any(p.chain[-1] is folder for p in inside)
                nested = any(p.chain[-1] is not folder for p in inside)
                top = not any(_folder_name(e) for e in inside[0].chain[:inside[0].chain.index(folder)])
                shown = _SIDE_SUFFIX.sub("", name) or name
                sides.append(_Side(ids.make(shown, "side"), shown, _folder_patterns(name, direct, nested, top),
                                   pieces=len(units)))
            count = sum(s.pieces for s in sides)
            if len(sides) >= 2 and count > best_count:
                best, best_count = sides, count
        if best:
            self.sides_from = "palette"
        return best

    def _property_sides(self) -> list[_Side]:
        units = [p for p in self.pieces if p.kind == "unit"]
        if not units:
            return []
        keys = sorted({k for p in units for k in p.properties})
        best: tuple[tuple[int, int, str], list[_Side]] | None = None
        for key in keys:
            lowered = key.lower()
            priority = next((i for i, word in enumerate(_SIDE_PROPERTIES)
                             if lowered == word or lowered.rstrip("s") == word), None)
            if priority is None:
                continue
            values = Counter(p.properties[key] for p in units if p.properties.get(key, "").strip())
            if not 2 <= len(values) <= 8 or sum(values.values()) * 2 < len(units):
                continue
            rank = (priority, -sum(values.values()), key)
            if best is None or rank < best[0]:
                ids = _Ids()
                sides = [_Side(ids.make(value, "side"), value, property=(key, value), pieces=n)
                         for value, n in sorted(values.items(), key=lambda kv: (-kv[1], kv[0]))]
                best = (rank, sides)
        if best is None:
            return []
        self.sides_from = "property"
        return best[1]

    def side_of(self, piece: _Piece) -> _Side | None:
        for side in self.sides:
            if side.property is not None:
                if piece.properties.get(side.property[0]) == side.property[1]:
                    return side
            elif any(self._in_folder(piece, pattern) for pattern in side.patterns):
                return side
        return None

    @staticmethod
    def _in_folder(piece: _Piece, pattern: str) -> bool:
        return Pattern.parse(pattern).matches(_palette_path(piece)) if piece.where == "palette" else False

    # -- unit types ---------------------------------------------------------------
    def _unit_types(self) -> tuple[list[_Group], list[_Piece]]:
        units = [p for p in self.pieces if p.kind == "unit"]
        # (a formation's markers share the units' prototype: not a reason to
        # group the units otherwise)
        others = [p for p in self.pieces if p.kind not in ("unit", "formation_marker")]
        by_proto, rest = _group_by_prototype(units, others, self.order)
        ids = _Ids()
        groups: list[_Group] = []
        for name, members in by_proto.items():
            groups.append(_Group(ids.make(name, "unit"), name, f"{{prototype: {yaml_text(name)}}}", members,
                                 f"prototype {yaml_text(name)}"))
        by_folder: dict[str, list[_Piece]] = {}
        unbound: list[_Piece] = []
        for piece in rest:
            folder = _deepest_folder(piece) if piece.where == "palette" else ""
            if folder:
                by_folder.setdefault(folder, []).append(piece)
            else:
                unbound.append(piece)
        for folder, members in by_folder.items():
            nested = any(p.folders[-1] != folder for p in members)
            direct = any(p.folders[-1] == folder for p in members)
            top = all(_palette_path(p).split("/")[0] == folder for p in members)
            patterns = _folder_patterns(folder, direct, nested, top)
            groups.append(_Group(ids.make(folder, "unit"), folder, f"{{palette: {_pattern_list(patterns)}}}",
                                 members, f"palette folder {yaml_text(folder)}"))
        if self.sides_from != "placeholder":
            kept = []
            for group in groups:
                if any(self.side_of(p) is not None for p in group.pieces):
                    kept.append(group)
                else:                         # on no side: map furniture, a hex marker
                    for piece in group.pieces:
                        piece.kind = "marker"
                    group.scope = "hex"
                    self.sideless.append(group)
            groups = kept
        return groups, unbound

    # -- markers -------------------------------------------------------------------
    def _formation_markers(self) -> _Group | None:
        """Pieces that look like units (the units' prototype) but are a
        formation's markers: in a palette folder of units, two or more
        pieces of one name that is the folder's first word (``90`` ×3 in
        "90 Inf Div"), none of which flips, beside units of other names.
        Bound as one marker kind before the units (``before_units``): as
        units they were counted in stacks."""
        by_folder: dict[str, list[_Piece]] = {}
        for piece in self.pieces:
            if piece.kind == "unit" and piece.where == "palette":
                by_folder.setdefault(_palette_path(piece), []).append(piece)
        found: list[_Piece] = []
        names: list[str] = []
        folders: list[str] = []
        for path, members in by_folder.items():
            word = path.rsplit("/", 1)[-1].split(" ")[0]
            same = [p for p in members if p.name == word]
            if (len(same) < 2 or len(same) == len(members)
                    or any(layer.flips for p in same for layer in p.layers)):
                continue
            found += same
            names.append(word)
            folders.append(path)
        if not found:
            return None
        for piece in found:
            piece.kind = "formation_marker"
        selector = (f"{{name: {_pattern_list([_glob_literal(n) for n in dict.fromkeys(names)])}, "
                    f"palette: {_pattern_list([_glob_literal(f) for f in folders])}}}")
        return _Group("formation", "Formation marker", selector, found,
                      "name: its palette folder's number, repeated")

    def _markers(self) -> list[_Group]:
        """Marker kinds: one per prototype that only marker pieces share
        (``Activation Marker``; a generic ``Marker`` prototype names no
        kind), then one per remaining marker piece's name (by palette folder
        when there are too many), then the groups on no side."""
        markers = [p for p in self.pieces if p.kind == "marker"]
        grouped = {id(p) for g in self.sideless for p in g.pieces}
        loose = [p for p in markers if id(p) not in grouped]
        others = [p for p in self.pieces if p.kind != "marker"]
        ids = _Ids()
        out: list[_Group] = []
        # a prototype every marker piece uses is their base, not a kind
        base: set[str] = {name for name in {n for p in loose for n in p.prototypes}
                          if len(loose) > 1 and all(name in p.prototypes for p in loose)}

        def skip(name: str) -> bool:
            return name in base or _GENERIC_MARKER.fullmatch(_words(name).strip()) is not None
        by_proto, loose = _group_by_prototype(loose, others, self.order, skip=skip)
        for name, members in by_proto.items():
            out.append(_Group(ids.make(name, "marker"), name, f"{{prototype: {yaml_text(name)}}}", members,
                              f"prototype {yaml_text(name)}"))
        names = list(dict.fromkeys(p.label for p in loose))
        if len(names) <= _MAX_MARKER_KINDS:
            out.extend(_markers_by_name(loose, names, ids))
        else:
            out.extend(_markers_by_folder(loose, ids))
        for group in self.sideless:
            group.id = ids.make(group.name, "marker")
            out.append(group)
        if self.formation_markers is not None:
            group = self.formation_markers
            group.id = ids.make(group.name, "marker")
            out.append(group)
        return out

    # -- faces ----------------------------------------------------------------------
    def face_layer(self) -> str | None:
        counts: Counter[str] = Counter()
        for group in self.unit_types:
            for piece in group.pieces:
                flips = [layer for layer in piece.layers if layer.flips and layer.name]
                if not flips:
                    continue
                named = [layer for layer in flips if _FLIP_WORDS.search(layer.name)]
                counts[(named or flips)[0].name] += 1
        if not counts:
            return None
        return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]

    @staticmethod
    def faces(group: _Group, layer_name: str | None) -> list[str]:
        layers = [layer for p in group.pieces for layer in p.layers if layer.name == layer_name]
        if not layers:
            return ["front"]
        widest = max(layers, key=lambda layer: (layer.faces, layer.level_names))
        count = min(widest.faces, 100)
        if count == 2:
            names = ["front", "back"]
            if not widest.switchable and all(widest.level_names):
                candidate = [_slug(n.strip("+ "), "") for n in widest.level_names]
                if all(candidate) and len(set(candidate)) == 2:
                    names = candidate
            return names
        levels = [_slug(n.strip("+ "), "") for n in widest.level_names]
        names = (["off"] if widest.switchable else []) + levels
        if all(names) and len(set(names)) == len(names) == count:
            return names
        return ["front"] + [f"face{i}" for i in range(2, count + 1)]


# ----------------------------------------------------------------------------
# maps

def _usable_hex_board(board: BoardEntry, sizes: Mapping[str, tuple[int, int]]) -> tuple[bool, str]:
    """Whether the board's grid is a hex grid the scenario map can use (and
    why not)."""
    try:
        built = board_from_element(board.element)
    except VmodError as exc:
        return False, f"its grid cannot be read ({exc.message})"
    # (the board's HexGrid, a ZonedGrid's background one, else a zone's own:
    # the grids map.from_module takes, in the order it takes them)
    if not board_hex_grids(built):
        what = board.grid_kind or "no grid"
        if isinstance(built.grid, ZonedGrid):
            what += " without a hex grid in it or any of its zones"
        return False, f"board {yaml_text(board.name)} has {what}, not a hex grid"
    return True, ""


def _grid_kind(board: BoardEntry) -> str:
    """What hex grid of a usable board the scenario takes, for the comment:
    ``ZonedGrid, the hex grid of zone "map"`` when it is a zone's own."""
    kind = board.grid_kind or "no grid"
    try:
        grid = board_from_element(board.element).grid
    except VmodError:
        return kind
    if isinstance(grid, ZonedGrid) and not isinstance(grid.background, HexGrid):
        zones = [z.name for z in grid.zones if not z.use_parent_grid and isinstance(z.own_grid, HexGrid)]
        if zones:
            return f"{kind}, the hex grid of zone{'s' if len(zones) > 1 else ''} {_listing(zones)}"
    return kind


@dataclass
class _MapChoice:
    """The map window and hex board proposed for ``map.from_module``
    (:func:`_choose_map`); without a usable board, the window the comment
    names and why none could be used (``why_not``)."""

    entry: MapEntry | None
    board: BoardEntry | None
    why_not: str = ""
    checked: str = ""                 # what module_map_grid said, when it could run
    #: an area map (issue 42): a board of regions and zones, its spaces by name
    areas: dict[str, Space] | None = None


def _choose_map(maps: Sequence[MapEntry], sizes: Mapping[str, tuple[int, int]]) -> _MapChoice:
    reasons: list[str] = []
    ordered = [m for m in maps if m.class_name == _MAP_CLASS] + [m for m in maps if m.class_name != _MAP_CLASS]
    for entry in ordered:
        for board in entry.boards:
            usable, why = _usable_hex_board(board, sizes)
            if not usable:
                if board.grid is not None:
                    reasons.append(f"map {yaml_text(entry.name)}: {why}")
                continue
            if board.name in sizes:
                try:
                    module_map_grid(entry, board.name, dict(sizes))
                except ModuleMapError as exc:
                    reasons.append(f"map {yaml_text(entry.name)}: {exc}")
                    continue
            return _MapChoice(entry, board)
    area = _area_choice(ordered, sizes)
    if area is not None:
        return area
    hint = next((m for m in ordered if any(b.grid is not None for b in m.boards)), ordered[0] if ordered else None)
    return _MapChoice(hint, None, "; ".join(reasons[:3]) or "no map window has a board with a grid")


def _area_choice(ordered: Sequence[MapEntry], sizes: Mapping[str, tuple[int, int]]) -> _MapChoice | None:
    """The first map window (main maps first) whose board has no hex grid
    but regions: an area map, with its spaces (issue 42)."""
    for entry in ordered:
        for board in entry.boards:
            if board.grid_kind not in ("RegionGrid", "ZonedGrid"):
                continue
            size = sizes.get(board.name, (None, None))
            try:
                spaces = spaces_of_board(board_from_element(board.element, size[0], size[1]))
            except VmodError:
                continue
            if sum(1 for sp in spaces.values() if sp.source == "region") >= 2:
                return _MapChoice(entry, board, areas=spaces)
    return None


def _box_role(name: str) -> str:
    for pattern, role in _BOX_ROLES:
        if pattern.search(name):
            return role
    return "holding"


# ----------------------------------------------------------------------------
# turn tracker and dice

_TURN_WORDS = re.compile(r"\b(turns?|rounds?|years?|months?|seasons?|days?|dates?|game turn)\b", re.I)
_SIDE_WORDS = re.compile(r"\b(sides?|players?|phasing|nations?|factions?|initiative)\b", re.I)
_PHASE_WORDS = re.compile(r"\b(phases?|segments?|steps?|impulses?|stages?|actions?)\b", re.I)


def _levels(tracker: TurnTrackerDef) -> list[tuple[int, TurnLevelDef]]:
    """Every level with its position among the active levels ($levelN$)."""
    out: list[tuple[int, TurnLevelDef]] = []

    def walk(levels: Sequence[TurnLevelDef], depth: int) -> None:
        for level in levels:
            out.append((depth, level))
            walk(level.children, depth + 1)
    walk(tracker.levels, 1)
    return out


def _tracker_levels(tracker: TurnTrackerDef) -> dict[str, str]:
    """``turn``/``side``/``phase`` → a level (its name, else its position)."""
    levels = _levels(tracker)
    names = Counter(level.name for _, level in levels)
    chosen: dict[str, str] = {}
    taken: set[int] = set()
    for role, words in (("turn", _TURN_WORDS), ("side", _SIDE_WORDS), ("phase", _PHASE_WORDS)):
        for i, (depth, level) in enumerate(levels):
            text = level.name or level.property
            if i in taken or not words.search(text):
                continue
            taken.add(i)
            chosen[role] = yaml_text(level.name) if level.name and names[level.name] == 1 else str(depth)
            break
    if "turn" not in chosen and levels:       # a tracker's first level counts turns
        first = next((i for i, (_, level) in enumerate(levels) if level.kind == "counter"), 0)
        if first not in taken:
            depth, level = levels[first]
            chosen["turn"] = yaml_text(level.name) if level.name and names[level.name] == 1 else str(depth)
    return chosen


def _dice(buildfile_root: etree._Element) -> tuple[list[str], list[str]]:
    """Dice expressions (``2d6``) of the module's dice buttons, and the
    buttons' names."""
    dice: list[str] = []
    buttons: list[str] = []

    def number(element: etree._Element, key: str, default: int) -> int:
        try:
            return int((element.get(key) or str(default)).strip())
        except ValueError:
            return default
    for element in buildfile_root.iter():
        kind = _short(element.tag)
        if kind == "DiceButton":
            n, sides = number(element, "nDice", 2), number(element, "nSides", 6)
        elif kind == "SpecialDiceButton":
            faces = [sum(1 for f in die if _short(f.tag) == "SpecialDieFace")
                     for die in element if _short(die.tag) == "SpecialDie"]
            if not faces or len(set(faces)) != 1:
                continue
            n, sides = len(faces), faces[0]
        else:
            continue
        buttons.append(element.get("name") or kind)
        if 1 <= n <= 1000 and 1 <= sides <= 100000:
            expression = f"{n}d{sides}"
            if expression not in dice:
                dice.append(expression)
    return dice, buttons


# ----------------------------------------------------------------------------
# the text

def _module_name(module: Module) -> tuple[str, str]:
    """The name the logs carry and where it came from."""
    if module.moduledata:
        try:
            name = ModuleMetadata.parse(module.moduledata).name
        except VmodError:
            name = ""
        if name:
            return name, "its moduledata"
    return module.buildfile.name, "its buildFile"


def scenario_from_module(module: Module, *, module_file: str,
                         board_sizes: Mapping[str, tuple[int, int]] | None = None,
                         command: str = "vmodtool import", scenario_file: str | None = None) -> ImportedScenario:
    """A commented scenario skeleton binding ``module``'s pieces.

    ``module_file`` is written as ``module.file`` (the module's path
    relative to the scenario's folder); ``board_sizes`` are the pixel sizes
    of boards whose images the module lacks; ``scenario_file`` (the
    output's name) is quoted in the header's check-scenario line."""
    proposal = _Proposal(module, module_file, dict(board_sizes or {}))
    return _Writer(proposal, command, scenario_file).result()


class _Writer:
    def __init__(self, proposal: _Proposal, command: str, scenario_file: str | None) -> None:
        self.scenario_file = scenario_file
        self.p = proposal
        self.module = proposal.module
        self.command = command
        self.lines: list[str] = []
        self.notes = list(proposal.notes)
        sizes, missing = self.module.board_sizes(proposal.given_sizes)
        self.sizes = sizes
        self.missing = missing
        self.maps = self.module.buildfile.maps()
        self.choice = _choose_map(self.maps, sizes)
        self.layer = proposal.face_layer()
        self.boxes = 0
        self.missing_needed: list[str] = []

    def add(self, *lines: str) -> None:
        self.lines.extend(lines)

    def result(self) -> ImportedScenario:
        self.header()
        self.module_section()
        self.game_section()
        self.map_section()
        self.boxes_section()
        self.markers_section()
        self.unit_types_section()
        self.binding_section()
        self.log_section()
        self.rules_section()
        text = "\n".join(self.lines).rstrip("\n") + "\n"
        unit_bindings = len(self.p.unit_types)
        return ImportedScenario(text, len(self.p.sides), len(self.p.unit_types), unit_bindings,
                                len(self.p.markers), self.boxes, tuple(self.missing_needed), tuple(self.notes))

    # -- sections ---------------------------------------------------------------
    def header(self) -> None:
        name, _ = _module_name(self.module)
        counts = Counter(p.kind for p in self.p.pieces)
        self.add("# yaml-language-server: $schema=https://vmodtool.invalid/schema/scenario-1.json",
                 f"# A scenario skeleton written by `{self.command}` from the module {yaml_text(name)}.",
                 "# Everything below is a PROPOSAL read from the module: check each part, add",
                 "# terrain and rules, then run",
                 f"#     vmodtool check-scenario {_shell_word(self.scenario_file or 'THIS_FILE')}",
                 f"# The module has {len(self.p.pieces)} piece slots: {counts['unit']} units, "
                 f"{counts['marker']} markers, {counts['card']} cards, {counts['helper']} other pieces "
                 "(map furniture, tools)"
                 + (f", {len(self.p.reader.unreadable)} unreadable" if self.p.reader.unreadable else "") + ".")
        if any(UNIT_ID in p.properties for p in self.p.pieces):
            self.add(f"# Its pieces carry {UNIT_ID} properties: vmodtool built it, and the scenario it was built",
                     "# from binds them without a binding section.  This skeleton binds them like any module's.")
        if self.p.reader.unreadable:
            self.add(f"# Unreadable slots (left out): {_listing(self.p.reader.unreadable)}")
        if self.p.reader.missing_prototypes:
            self.add("# Prototypes the pieces use but the module does not define (or cannot be read): "
                     + _listing(sorted(self.p.reader.missing_prototypes)))
        self.add("schema: vmodtool/1", "")

    def module_section(self) -> None:
        name, source = _module_name(self.module)
        self.add("module:",
                 f"  file: {yaml_text(self.p.module_file)}   # relative to this file",
                 f"  name: {yaml_text(name)}   # from {source}: the name the logs carry")
        needed = self.choice.board
        given = {k: v for k, v in self.p.given_sizes.items()
                 if any(b.name == k for b in self.module.buildfile.boards())}
        lacking = [b for b in self.missing]
        if given:
            self.add("  board_sizes:   # boards whose images the module lacks, as given")
            for board, (w, h) in sorted(given.items()):
                self.add(f"    {yaml_text(board)}: [{w}, {h}]")
        if lacking:
            self.add("  # board_sizes: the module has no image for these boards; give their pixel sizes",
                     "  # here (or with --board-sizes FILE.json / --board-size NAME=WxH):")
            for board in lacking[:_LISTED]:
                self.add(f"  #   {yaml_text(board)}: [WIDTH, HEIGHT]")
            if len(lacking) > _LISTED:
                self.add(f"  #   … {len(lacking) - _LISTED} more")
        if needed is not None and needed.name not in self.sizes:
            self.missing_needed.append(needed.name)
            why = self.module.board_size_unknown(needed.name) or "the module has no image for it"
            self.notes.append(f"the size of board {needed.name!r} (the scenario map) is unknown: {why}; give "
                              "--board-size NAME=WxH or --board-sizes FILE.json, or fill in module.board_sizes")
        self.add("")

    def game_section(self) -> None:
        name, _ = _module_name(self.module)
        version = self.module.buildfile.root.get("version") or ""
        dice, buttons = _dice(self.module.buildfile.root)
        self.add("game:",
                 f"  id: {_key(_slug(name, 'game'))}",
                 f"  title: {yaml_text(name)}")
        if version:
            self.add(f"  version: {yaml_text(version)}   # the module's version")
        how = {"palette": "the palette's top-level folders that hold units",
               "property": f"the pieces' property {yaml_text(self.p.sides[0].property[0])}"
               if self.p.sides and self.p.sides[0].property else "",
               "placeholder": "PLACEHOLDERS: the module's palette and properties name no sides; rename them "
                              "and bind them in binding.sides"}[self.p.sides_from]
        self.add(f"  sides:   # from {how}")
        for i, side in enumerate(self.p.sides):
            fill = SIDE_PALETTE[i % len(SIDE_PALETTE)]       # the colours sides without a fill get
            r, g, b = readable_ink(hex_rgb(fill) or (255, 255, 255))
            ink = f"#{r:02x}{g:02x}{b:02x}"
            self.add(f"    - {{id: {_key(side.id)}, name: {yaml_text(side.name)}, fill: \"{fill}\", ink: \"{ink}\"}}"
                     + (f"   # {side.pieces} unit pieces" if side.pieces else ""))
        if dice:
            self.add(f"  dice: [{', '.join(dice)}]   # the dice buttons: {_listing(buttons, 6)}")
        else:
            self.add("  # dice: [2d6]   # the module has no dice button with a fixed number of dice")
        self.add("")

    def map_section(self) -> None:
        maps = self.maps
        choice = self.choice
        self.add("map:")
        if choice.areas is not None and choice.entry is not None and choice.board is not None:
            self._area_map(choice.entry, choice.board, choice.areas)
        elif choice.board is not None and choice.entry is not None:
            entry, board = choice.entry, choice.board
            kind = _grid_kind(board)
            if len(entry.boards) > 1:
                self.add(f"  from_module: {{map: {yaml_text(entry.name)}, board: {yaml_text(board.name)}}}"
                         f"   # its board with the hex grid ({kind})")
            else:
                self.add(f"  from_module: {yaml_text(entry.name)}   # the first map window with a hex grid "
                         f"(board {yaml_text(board.name)}, {kind})")
            self.add("  # Hexes are the labels VASSAL shows.  Every hex is clear until you say otherwise:",
                     "  terrain_types:",
                     '    clear: {code: ".", name: "Clear", fill: "#e6e2c3"}',
                     '    # woods: {code: w, name: "Woods", fill: "#7da35a"}',
                     "  terrain:",
                     "    default: clear",
                     '    # hexes: {"0101": woods}   # by hex label')
        else:
            hint = f" (e.g. {yaml_text(choice.entry.name)})" if choice.entry is not None else ""
            self.notes.append("the module has no map window with a hex grid the scenario can take "
                              f"({_plain(choice.why_not)}): the scenario's map is a placeholder grid")
            self.add("  # PLACEHOLDER: a scenario map is a hex map, and no map window of the module has a",
                     f"  # board with a hex grid{hint} ({choice.why_not}).",
                     "  # This small grid only lets the file load: the module's locations are not its",
                     "  # hexes.  With a hex-grid module, write  from_module: MAP WINDOW  instead.",
                     "  grid:",
                     "    kind: hex",
                     "    orientation: flat_top",
                     "    hex_height: 64",
                     "    columns: 4",
                     "    rows: 4",
                     "    numbering:",
                     "      first: column",
                     '      separator: ""',
                     "      column: {type: numeric, start: 1, leading_zeros: 1}",
                     "      row: {type: numeric, start: 1, leading_zeros: 1}",
                     "  terrain_types:",
                     '    clear: {code: ".", name: "Clear", fill: "#e6e2c3"}',
                     "  terrain: {default: clear}")
        others = [m for m in maps if choice.board is None or m is not choice.entry]
        if others and choice.board is not None:
            self.add(f"  # The module's other map windows are boxes below: {_listing([m.name for m in others])}")
        self.add("")

    def _area_map(self, entry: MapEntry, board: BoardEntry, spaces: dict[str, Space]) -> None:
        """An area map: the board's spaces, and a *proposed* adjacency from
        their positions (:mod:`vmodtool.scenario.adjacency`), marked as such."""
        proposed = propose_connections(spaces.values())
        zones = Counter(sp.zone for sp in spaces.values() if sp.zone)
        where = f"{{map: {yaml_text(entry.name)}, board: {yaml_text(board.name)}}}" if len(entry.boards) > 1 \
            else yaml_text(entry.name)
        self.notes.append(f"map {entry.name!r} is an area map of {len(spaces)} spaces; its {len(proposed)} "
                          "connections are a PROPOSAL from the spaces' positions: check them against the "
                          "printed map (vmodtool board --spaces draws them)")
        self.add(f"  from_module: {where}   # an area map ({board.grid_kind}): {len(spaces)} spaces, named as "
                 "VASSAL names them",
                 f"  # its zones: {_listing([f'{z} ({n})' for z, n in zones.most_common()], 8)}",
                 "  # a zone that is a box (a reserve, an eliminated pile) goes in boxes with module: {map, zone}",
                 "  terrain_types:",
                 '    clear: {code: ".", name: "Clear", fill: "#e6e2c3"}',
                 "  terrain: {default: clear}",
                 "  # spaces: {NAME: {terrain: clear, fort: true, owner: SIDE, capacity: 3}}   # by space name",
                 "  connections_proposed: true   # PROPOSAL: remove once every line below is checked",
                 "  connections:   # PROPOSED from the spaces' positions (nearest neighbours, no crossing lines,",
                 "                 # never between zones): check each against the printed map, add kinds",
                 "                 # ([A, B, rail]) and connection_types")
        self.add(*(f"    - [{yaml_text(a)}, {yaml_text(b)}]" for a, b in proposed))
        if not proposed:
            self.add("    []")

    def boxes_section(self) -> None:
        maps = self.maps
        chosen = self.choice.entry if self.choice.board is not None else None
        ids = _Ids()
        seen: set[str] = set()
        lines = []
        for entry in maps:
            if entry is chosen or entry.name in seen or not entry.name:
                continue
            seen.add(entry.name)
            role = _box_role(entry.name)
            side = next((s for s in self.p.sides
                         if re.search(rf"\b{re.escape(s.name)}\b", entry.name, re.I)), None)
            kind = _short(entry.class_name)
            parts = [f"id: {_key(ids.make(entry.name, 'box'))}", f"name: {yaml_text(entry.name)}", f"role: {role}"]
            if side is not None:
                parts.append(f"side: {_key(side.id)}")
            parts.append(f"module: {{map: {yaml_text(entry.name)}}}")
            comment = f"   # {kind}" if kind != "Map" else ""
            lines.append(f"  - {{{', '.join(parts)}}}{comment}")
        if not lines:
            return
        self.boxes = len(lines)
        self.add("boxes:   # the module's other map windows; role holding unless the name says more")
        self.add(*lines)
        self.add("")

    def markers_section(self) -> None:
        if not self.p.markers:
            return
        self.add("markers:   # marker pieces of the module (representation: counter)")
        for group in self.p.markers:
            scope = "" if group.scope == "unit" else f", scope: {group.scope}"
            comment = f"{len(group.pieces)} piece{'s' if len(group.pieces) != 1 else ''}"
            if group.scope == "hex":
                comment += f"; by {group.how}, on no side: map features?"
            self.add(f"  {_key(group.id)}: {{name: {yaml_text(group.name)}, representation: counter{scope}}}"
                     f"   # {comment}")
        self.add("")

    def unit_types_section(self) -> None:
        self.add("unit_types:   # one per prototype (or palette folder) the unit pieces share")
        if not self.p.unit_types:
            self.notes.append("no piece of the module looks like a unit: the scenario has one placeholder unit type")
            self.add("  unit:   # PLACEHOLDER: no piece of the module looks like a unit",
                     '    name: "Unit"',
                     "    faces:",
                     "      - {name: front, factors: {attack: 0, defense: 0, move: 0}}")
            self.add("")
            return
        for group in self.p.unit_types:
            faces = self.p.faces(group, self.layer)
            numeric = _numeric_properties(group.pieces)
            self.add(f"  {_key(group.id)}:   # {len(group.pieces)} pieces, by {group.how}"
                     + (f"; e.g. {_listing([p.label for p in group.pieces], 3)}" if group.pieces else ""),
                     f"    name: {yaml_text(group.name)}")
            if numeric:
                self.add(f"    # the pieces carry numeric properties {_listing(numeric, 6)} (per piece)")
            self.add("    faces:   # placeholder factors: give what the counters print")
            factors = ", ".join(f"{f}: 0" for f in _PLACEHOLDER_FACTORS)
            for face in faces:
                self.add(f"      - {{name: {_key(face)}, factors: {{{factors}}}}}")
        self.add("")

    def binding_section(self) -> None:
        self.add("binding:")
        # sides
        if self.p.sides_from == "placeholder":
            self.add("  sides: []   # PLACEHOLDER: say which pieces are on which side, e.g.",
                     '  #  - {side: side_a, match: {palette: "*/Side A/*"}}',
                     "  #  - {side: side_b, match: {property: {Side: B}}}")
        else:
            self.add("  sides:   # the first entry that matches gives a piece's side")
            for side in self.p.sides:
                if side.property is not None:
                    key, value = yaml_text(side.property[0]), yaml_text(_glob_literal(side.property[1]))
                    match = f"{{property: {{{key}: {value}}}}}"
                else:
                    match = f"{{palette: {_pattern_list(side.patterns)}}}"
                self.add(f"    - {{side: {_key(side.id)}, match: {match}}}")
        # units
        if self.p.unit_types:
            self.add("  units:   # the first entry that matches makes a piece a unit of that type")
            for group in self.p.unit_types:
                self.add(f"    - {{match: {group.selector}, type: {_key(group.id)}}}   # {len(group.pieces)} pieces")
        else:
            self.add("  units: []   # PLACEHOLDER: no piece looks like a unit; e.g.",
                     '  #  - {match: {prototype: "Unit"}, type: unit}')
        if self.p.unbound_units:
            labels = list(dict.fromkeys(p.label for p in self.p.unbound_units if p.label.strip()))
            self.add(f"  # {len(self.p.unbound_units)} unit-like pieces have no prototype of their own and no palette "
                     f"folder: {_listing(labels)}",
                     "  # bind them one by one in overrides: - {piece: NAME, type: TYPE, side: SIDE}")
        # markers
        if self.p.markers:
            self.add("  markers:")
            for group in self.p.markers:
                before = (", before_units: true}   # pieces with the units' prototype, tried first"
                          if group is self.p.formation_markers else "}")
                self.add(f"    - {{match: {group.selector}, kind: {_key(group.id)}{before}")
        # terrain
        if self.p.sideless:
            example = self.p.sideless[0]
            self.add("  # terrain:   # pieces on no side may be terrain (woods, towns, rivers the module's scenarios",
                     "  #            # place): bound here, they type the hex (or hexside) they stand on at every step",
                     f"  #  - {{match: {example.selector}, terrain: TYPE}}   # a type of map.terrain_types "
                     "(or hexside: TYPE)")
        # faces
        if self.layer is not None:
            self.add(f"  faces: {{layer: {yaml_text(self.layer)}}}   # the layer that flips the unit pieces: "
                     "its level is the unit's face")
        else:
            self.add("  # faces: {layer: NAME}   # no unit piece has a layer that flips it")
        self.status_comment()
        # ignore
        self.ignore_entries()
        self.add("")

    def status_comment(self) -> None:
        """The unit pieces' other layers, as a commented status binding to
        take or leave (a layer may be a status or mere decoration)."""
        layers: Counter[str] = Counter()
        for group in self.p.unit_types:
            for piece in group.pieces:
                for layer in piece.layers:
                    if layer.name and layer.name != self.layer:
                        layers[layer.name] += 1
        if not layers:
            return
        names = [n for n, _ in sorted(layers.items(), key=lambda kv: (-kv[1], kv[0]))]
        self.add(f"  # the unit pieces' other layers: {_listing(names, 8)}",
                 "  # a layer that shows a status becomes a marker kind with representation: layer",
                 "  # (add it to markers) and a status entry, e.g.:",
                 "  # status:")
        for name in names[:3]:
            self.add(f"  #   - {{marker: {_key(_slug(name, 'status'))}, layer: {yaml_text(name)}}}"
                     f"   # on {_pieces(layers[name])}")

    def ignore_entries(self) -> None:
        ignored = self.p.ignored
        if not ignored:
            return
        others = [p for p in self.p.pieces if p.kind not in ("card", "helper")]
        by_proto, rest = _group_by_prototype(ignored, others, self.p.order)
        self.add("  ignore:   # pieces that are neither units nor markers: cards, decks, map furniture")
        if by_proto:
            names = list(by_proto)
            count = sum(len(v) for v in by_proto.values())
            if len(names) <= 4:
                self.add(f"    - {{prototype: {_pattern_list(names)}}}   # {count} pieces")
            else:
                self.add(f"    - prototype:   # {count} pieces")
                for name in names:
                    self.add(f"        - {yaml_text(name)}")
        rest_names = list(dict.fromkeys(p.label for p in rest if p.label))
        if rest_names:
            literal = [_glob_literal(n) for n in rest_names]
            if len(literal) <= 4:
                self.add(f"    - {{name: {_pattern_list(literal)}}}   # {_pieces(len(rest))} by name")
            else:
                self.add(f"    - name:   # {_pieces(len(rest))} by name")
                for name in literal:
                    self.add(f"        - {yaml_text(name)}")

    def log_section(self) -> None:
        trackers = list(turn_trackers(self.module.buildfile).values())
        if not trackers:
            self.add("# log: the module has no turn tracker; the audit counts game time from the log alone", "")
            return
        tracker = trackers[0]
        levels = _tracker_levels(tracker)
        self.add("log:",
                 "  turn_tracker:   # the module's turn tracker: its levels give the game time",
                 f"    component: {yaml_text(tracker.name)}",
                 "    levels:   # a level name, or its position ($level1$ = 1); null for none")
        for role in ("turn", "side", "phase"):
            self.add(f"      {role}: {levels.get(role, 'null')}")
        described = [f"{level.name or '(unnamed)'} ({level.kind}, ${'level'}{depth}$)"
                     for depth, level in _levels(tracker)]
        self.add(f"    # its levels: {_listing(described, 8)}")
        if len(trackers) > 1:
            self.add(f"    # other turn trackers: {_listing([t.name for t in trackers[1:]])}")
        self.add("")

    def rules_section(self) -> None:
        self.add("rules: []   # the checks an audit runs; e.g. at most 3 units a hex:",
                 "#  - id: stack.limit",
                 '#    ref: ["rulebook 1.1"]',
                 "#    kind: stacking",
                 "#    params: {limit: 3, count: units, per_side: true}",
                 "#    check_at: phase_end")


def _shell_word(text: str) -> str:
    """A file name for a comment's command line: as is when plain, else
    single-quoted; never a line break or control character."""
    from vmodtool.textsafe import escape_controls
    shown = escape_controls(text)
    return shown if re.fullmatch(r"[\w./-]+", shown) else "'" + shown.replace("'", "'\\''") + "'"


def _pieces(n: int) -> str:
    return f"{n} piece" if n == 1 else f"{n} pieces"


def _plain(text: str) -> str:
    return text.replace('"', "'")


def _numeric_properties(pieces: Sequence[_Piece]) -> list[str]:
    """Properties every piece has with a whole-number value."""
    if not pieces:
        return []
    common = set(pieces[0].properties)
    for piece in pieces[1:]:
        common &= set(piece.properties)
    return sorted(k for k in common if all(re.fullmatch(r"-?\d{1,6}", p.properties[k] or "x") for p in pieces))


def _markers_by_name(loose: list[_Piece], names: list[str], ids: _Ids) -> list[_Group]:
    """One marker kind per name of the marker pieces (by their slots' names
    when a piece's name varies)."""
    out = []
    for name in names:
        members = [p for p in loose if p.label == name]
        if any(p.name_varies for p in members) or not members[0].name:
            slots = list(dict.fromkeys(p.slot.entry_name for p in members if p.slot.entry_name))
            selector = f"{{slot: {_pattern_list([_glob_literal(s) for s in slots])}}}" if slots else ""
        else:
            selector = f"{{name: {yaml_text(_glob_literal(name))}}}"
        if selector:
            out.append(_Group(ids.make(name, "marker"), name, selector, members, "its name"))
    return out


def _markers_by_folder(loose: list[_Piece], ids: _Ids) -> list[_Group]:
    """One marker kind per palette folder of the marker pieces (when they
    have too many names for one kind each)."""
    out = []
    by_folder: dict[str, list[_Piece]] = {}
    for piece in loose:
        folder = _deepest_folder(piece)
        if folder:
            by_folder.setdefault(folder, []).append(piece)
    for folder, members in by_folder.items():
        top = all(_palette_path(p).split("/")[0] == folder for p in members)
        patterns = _folder_patterns(folder, True, any(p.folders[-1] != folder for p in members), top)
        out.append(_Group(ids.make(folder, "marker"), folder, f"{{palette: {_pattern_list(patterns)}}}",
                          members, f"palette folder {yaml_text(folder)}"))
    return out
