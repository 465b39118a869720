"""The validated scenario model: immutable dataclasses that every other
layer (counters, boards, module build, audit) reads.

Objects are created only by :mod:`vmodtool.scenario.loader` after the file
has been checked, so every reference in them resolves: a counter's type and
side exist, every setup hex is on the map, every hexside joins two adjacent
hexes.  Display texts may be in any language (Cyrillic included); ids are the
stable keys that modules and audits use.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vmodtool.scenario.binding import Binding, ModuleSource
from vmodtool.scenario.locations import AreaMap, Locations
from vmodtool.scenario.mapgrid import GridSpec, MapGrid
from vmodtool.scenario.position import Position

if TYPE_CHECKING:
    from vmodtool.scenario.cards import DeckSpec, HandSpec

__all__ = [
    "Side", "Game", "TerrainType", "HexsideType", "Hexside", "MapLabel", "Objective", "HexMap", "DerivedTerrain",
    "Box", "Track", "NatoSpec", "Face", "UnitType", "MarkerKind", "Formation", "Counter",
    "SetupStack", "SetupBox", "Phase", "Activation", "TurnStructure", "Chart", "RuleSpec",
    "Scenario", "Position", "ExtensionSpec", "NamedScenario",
]


#: the fills of sides that give none, in side order: the Okabe–Ito colours
#: (distinct under every common colour-vision deficiency), lightened 40 % toward
#: white so black ink reads on them; sky blue and orange first, the pair most
#: readers tell apart
SIDE_PALETTE = ("#9ad2f2", "#f0c566", "#66c5ab", "#e0afca", "#f6ef8e", "#e59e66", "#66aad1", "#dddddd")


@dataclass(frozen=True)
class Side:
    """A side of the game: its id and name, and the colours its counters are
    printed in (``fill``, ``ink``, an optional ``stripe``)."""

    id: str
    name: str
    fill: str = "#dddddd"
    ink: str = "#000000"
    stripe: str | None = None


@dataclass(frozen=True)
class Game:
    """The ``game`` section: id, title, the sides (at least two), the dice the
    module gets buttons for (``1d6`` …), the language (of the board key) and
    free descriptions (system, note, scale, designer, version)."""

    id: str
    title: str
    sides: tuple[Side, ...]
    system: str | None = None
    note: str | None = None
    scale: Mapping[str, Any] = field(default_factory=dict)
    dice: tuple[str, ...] = ()
    designer: str | None = None
    version: str | None = None
    language: str | None = None

    def side(self, side_id: str) -> Side:
        for side in self.sides:
            if side.id == side_id:
                return side
        raise KeyError(side_id)


@dataclass(frozen=True)
class TerrainType:
    """A terrain type: ``code`` is its one character in ``terrain.rows``; the
    board draws it with its ``fill``, ``elevation`` and ``symbol``."""

    id: str
    code: str
    name: str
    fill: str | None = None
    elevation: int | None = None
    symbol: str | None = None


@dataclass(frozen=True)
class HexsideType:
    """A kind of hexside feature (river, road …) and how the board draws it:
    line colour and width, along the side or from centre to centre
    (``drawn_as``), and an optional symbol (a bridge)."""

    id: str
    name: str
    stroke: str | None = None
    width: float | None = None
    drawn_as: str = "hexside"      # hexside | centre_line
    symbol: str | None = None
    #: each entry of this type is one line (a river, a road): one in pieces is reported
    continuous: bool = True


@dataclass(frozen=True)
class Hexside:
    """A feature on the side between two adjacent hexes (``a`` < ``b``)."""

    type: str
    a: str
    b: str

    @property
    def pair(self) -> frozenset[str]:
        return frozenset((self.a, self.b))


@dataclass(frozen=True)
class MapLabel:
    """A text printed on the map in a hex (``map.labels``)."""

    hex: str
    text: str


@dataclass(frozen=True)
class Objective:
    """An objective hex (``map.objectives``): its name and the victory points
    it is worth."""

    hex: str
    name: str
    vp: float | None = None


@dataclass(frozen=True)
class AltBoard:
    """One of a map's alternative boards (``map.boards``): a board of the
    same size and hex grid as the map's own, in its window's
    ``BoardPicker``, that a scenario may be played on (``board``).  Its
    ``image`` is the designer's, or None: drawn as the map's own board."""

    id: str
    name: str
    image: Path | None = None


@dataclass(frozen=True)
class DerivedTerrain:
    """``map.terrain.derived``: the map's terrain was read from its image
    (``vmodtool terrain``), not typed by hand: what it says may be wrong
    (a missed road, a hex read as the wrong type), so a rule accuses on it
    only what no such error could excuse.  ``unsure``: the hexes read with
    low confidence."""

    source: str = ""
    unsure: frozenset[str] = frozenset()


@dataclass(frozen=True)
class HexMap:
    """The map: grid, terrain per hex, hexside features, labels.  A map
    taken from a module (``map.from_module``) has no ``grid_spec``: its grid
    is the module's, ``module_map``/``module_board`` name where it is, and
    ``zones`` are the other location names its board gives."""

    id: str
    name: str
    grid_spec: GridSpec | None
    grid: MapGrid
    terrain_types: Mapping[str, TerrainType]
    terrain: Mapping[str, str]                  # hex id -> terrain type id
    hexside_types: Mapping[str, HexsideType]
    hexsides: tuple[Hexside, ...] = ()
    labels: tuple[MapLabel, ...] = ()
    objectives: tuple[Objective, ...] = ()
    edges: Mapping[str, str] = field(default_factory=dict)
    edge_buffer: tuple[int, int] = (0, 0)
    board_image: Path | None = None
    size: tuple[int, int] = (0, 0)
    module_map: str | None = None
    module_board: str | None = None
    zones: tuple[str, ...] = ()
    #: an area map (issue 42): its spaces and connections; its locations
    #: are the spaces (a map of regions and zones has no hexes)
    areas: AreaMap | None = None
    #: the map's alternative boards (``map.boards``), after its own in its ``BoardPicker``
    boards: tuple[AltBoard, ...] = ()
    #: the terrain was derived from the board image (None: typed by hand)
    derived: DerivedTerrain | None = None

    @property
    def hex_ids(self) -> list[str]:
        return list(self.grid.hexes)

    @property
    def locations(self) -> Locations:
        """The map's locations as rules ask of them (neighbours, distance):
        the spaces and connections of an area map, else the hexes."""
        return self.areas if self.areas is not None else self.grid

    @property
    def location_ids(self) -> list[str]:
        """The map's locations: its spaces on an area map, else its hexes."""
        return list(self.areas.spaces) if self.areas is not None else list(self.grid.hexes)

    def __contains__(self, hex_id: object) -> bool:
        return hex_id in self.grid.hexes

    def terrain_of(self, hex_id: str) -> TerrainType:
        return self.terrain_types[self.terrain[hex_id]]

    def neighbours(self, hex_id: str) -> list[str]:
        """The adjacent locations: hexes, or on an area map the spaces a
        connection joins to this one."""
        if self.areas is not None:
            return self.areas.neighbours(hex_id)
        return self.grid.neighbours(hex_id)

    def distance(self, a: str, b: str) -> int | None:
        """Hexes between two hexes; on an area map, connections crossed on
        the shortest way (None: the typed connections join them by no way)."""
        if self.areas is not None:
            return self.areas.distance(a, b)
        return self.grid.distance(a, b)

    def hexside_features(self, a: str, b: str) -> frozenset[str]:
        """Types of the features on the side between ``a`` and ``b``."""
        pair = frozenset((a, b))
        return frozenset(h.type for h in self.hexsides if h.pair == pair)


@dataclass(frozen=True)
class Box:
    """An off-map holding area (dead pile, cup, air boxes …); in a module
    not built by vmodtool, a whole map window (``module_map``) or one zone
    of it (``module_zone``)."""

    id: str
    name: str
    role: str
    side: str | None = None
    module_map: str | None = None
    module_zone: str | None = None


@dataclass(frozen=True)
class Track:
    """A track of ordered spaces (turn record, casualty, replacement points,
    victory, generic: ``kind``), laid out as zones of the off-map board;
    ``shows`` lists what else it records (e.g. replacement points)."""

    id: str
    name: str
    kind: str
    spaces: tuple[str, ...]
    shows: tuple[str, ...] = ()


@dataclass(frozen=True)
class NatoSpec:
    """A unit type's NATO symbol: the branch symbol, the unit size, the
    symbols combined with it (``modifiers``) and whether the HQ staff is
    drawn."""

    symbol: str
    size: str | None = None
    modifiers: tuple[str, ...] = ()
    hq: bool = False


@dataclass(frozen=True)
class FaceImage:
    """A designer's own image for a face (``faces[].image``): the file (in
    the scenario's folder, checked to exist and to be a readable image), how
    it fills its box (``fit``: contain, cover or stretch), the part of the
    file used (``crop``: x, y, width, height in the file's pixels), where it
    sits when it does not fill the box (``position``: fractions, 0.5 0.5 =
    centred) and which box it fills (``box``: face, or art = the template's
    symbol/art box)."""

    path: Path
    fit: str = "contain"
    crop: tuple[int, int, int, int] | None = None
    position: tuple[float, float] = (0.5, 0.5)
    box: str = "art"


@dataclass(frozen=True)
class Face:
    """One printed side (or layer level) of a counter: its state values and
    factors."""

    name: str
    state: Mapping[str, Any] = field(default_factory=dict)
    factors: Mapping[str, Any] = field(default_factory=dict)
    image: str | None = None
    #: the image resolved and checked (None without one)
    image_spec: FaceImage | None = None


@dataclass(frozen=True)
class UnitType:
    """A unit type: its faces (the first is the front), the tags rules select
    on, movement class, NATO symbol, factor layout, steps and, for an HQ,
    the tags of the units it serves."""

    id: str
    name: str
    faces: tuple[Face, ...]
    tags: frozenset[str] = frozenset()
    movement_class: str | None = None
    nato: NatoSpec | None = None
    layout: str | None = None
    steps: int = 1
    serves: tuple[str, ...] = ()
    #: where the unit type is defined (renderers' messages name its line)
    position: Position | None = None

    def face(self, name: str) -> Face:
        for face in self.faces:
            if face.name == name:
                return face
        raise KeyError(name)


@dataclass(frozen=True)
class MarkerKind:
    """A status marker kind: a layer on the unit pieces or a counter of its own
    (``representation``), what a counter applies to (``scope``), and the text
    and colours printed on it."""

    id: str
    name: str
    representation: str = "counter"     # layer | counter
    scope: str = "unit"                 # unit | hex | box
    text: str | None = None
    fill: str | None = None
    ink: str | None = None


@dataclass(frozen=True)
class Formation:
    """A formation, activated and commanded as one: its side and name, the
    counter that is its HQ, its number of activation chits, and ``command``
    (``exempt``: no command control)."""

    id: str
    side: str
    name: str
    hq: str | None = None
    chits: int = 0
    command: str = "normal"             # normal | exempt


@dataclass(frozen=True)
class Counter:
    """One physical counter of the counter mix (``count`` already expanded:
    ``syr.t72`` with count 3 gives ``syr.t72.1`` … ``syr.t72.3``)."""

    id: str
    type: str
    side: str
    formation: str | None = None
    label: str | None = None
    face: str | None = None          # initial face (default: the first)
    entry: str = ""                     # the counter-mix entry it came from
    position: Position = Position()


@dataclass(frozen=True)
class SetupStack:
    """At-start stack in a hex, bottom → top; ``faces`` overrides faces."""

    hex: str
    units: tuple[str, ...]
    faces: Mapping[str, str] = field(default_factory=dict)
    position: Position = Position()
    #: the id of the ``maps`` window the hex is on (None: the scenario's ``map``)
    map: str | None = None


@dataclass(frozen=True)
class SetupBox:
    """Units (or activation chits) that start in a box; with ``arrive_turn``
    they are reinforcements entering at ``arrive_hex``/``arrive_edge``."""

    box: str
    units: tuple[str, ...] = ()
    chits: tuple[str, ...] = ()
    faces: Mapping[str, str] = field(default_factory=dict)
    arrive_turn: int | None = None
    arrive_hex: str | None = None
    arrive_edge: str | None = None
    position: Position = Position()


@dataclass(frozen=True)
class Activation:
    """How a phase's activations run: chit pull (chits drawn from the ``cup``
    box to the ``drawn`` box, the last of ``end_turn_chits`` End Turn chits
    ending the phase), I-go-you-go or none, and the steps of one activation."""

    kind: str = "none"                  # chit_pull | igougo | none
    cup: str | None = None
    drawn: str | None = None
    end_turn_chits: int = 0
    steps: tuple[str, ...] = ()


@dataclass(frozen=True)
class Phase:
    """A phase of the turn (a ``turns.structure`` entry), with how its
    activations run, if it has any."""

    id: str
    name: str
    activation: Activation | None = None


@dataclass(frozen=True)
class TurnStructure:
    """The ``turns`` section: the first and last turn, the phases of a turn in
    order and, for I-go-you-go, the sides in player-turn order (the phases
    repeat per side)."""

    first: int
    last: int
    phases: tuple[Phase, ...]
    player_turns: tuple[str, ...] = ()

    def phase(self, phase_id: str) -> Phase:
        for phase in self.phases:
            if phase.id == phase_id:
                return phase
        raise KeyError(phase_id)


@dataclass(frozen=True)
class Chart:
    """A chart or table (``charts``): its image (resolved against the
    scenario's folder), shown by name in the module's Charts window."""

    id: str
    name: str
    image: Path


@dataclass(frozen=True)
class ExtensionSpec:
    """An optional part of the game shipped as a module extension
    (``extensions``; ``vmodtool build --extension NAME``): the counters it
    holds (in its palette, not the module's), the decks it holds (their
    DrawPiles in the off-map window, not the module's), its version and
    description."""

    name: str
    counters: tuple[str, ...]
    version: str = "1.0"
    description: str = ""
    position: Position | None = None
    decks: tuple[str, ...] = ()


@dataclass(frozen=True)
class RuleSpec:
    """A declarative rule entry; the audit (a later layer) enforces it."""

    id: str
    kind: str
    params: Mapping[str, Any] = field(default_factory=dict)
    ref: tuple[str, ...] = ()
    check_at: str = "event"
    severity: str = "error"
    enabled: bool = True
    plugin: str | None = None
    needs_annotations: tuple[str, ...] = ()
    position: Position = Position()
    #: the phases in which a settle-point check (``check_at``) runs; empty: all
    check_in: tuple[str, ...] = ()
    #: whose findings a state rule judges at a check: ``phasing``, ``moved``
    #: (the sides whose units moved since its last check) or ``all``
    applies_to: str = "all"


@dataclass(frozen=True)
class NamedScenario:
    """One scenario of a game with several (the ``scenarios`` section): what
    differs from the game's other scenarios — the set-up with its
    reinforcements, the turns it lasts, its objectives and victory
    conditions, the rules it adds or leaves out.  Units, maps and the other
    rules are the game's.  ``menu`` is the New Game sub-menu VASSAL lists it
    under; its predefined setup is ``<id>.vsav`` in the module."""

    id: str
    name: str
    setup: tuple[Any, ...] = ()          # SetupStack | SetupBox
    menu: str | None = None
    description: str | None = None
    victory: str | None = None
    turns: TurnStructure | None = None
    #: this scenario's objectives (None: the map's)
    objectives: tuple[Objective, ...] | None = None
    #: the game's rules this scenario applies, and its own
    rules: tuple[RuleSpec, ...] = ()
    position: Position = Position()
    #: this scenario's resources (None: the game's), e.g. its replacement schedule
    resources: Mapping[str, Any] | None = None
    #: the id of the main map's alternative board it is played on (``board``; None: the map's own)
    board: str | None = None

    @property
    def setup_file(self) -> str:
        """The predefined setup's entry in the module."""
        return f"{self.id}.vsav"


@dataclass(frozen=True)
class Scenario:
    """A validated scenario.  ``path`` is the scenario file; relative paths
    (images, CSV, plug-ins) are resolved against its folder."""

    path: Path | None
    schema: str
    game: Game
    map: HexMap
    unit_types: Mapping[str, UnitType]
    counters: tuple[Counter, ...]
    boxes: tuple[Box, ...] = ()
    tracks: tuple[Track, ...] = ()
    factor_layouts: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    markers: Mapping[str, MarkerKind] = field(default_factory=dict)
    formations: tuple[Formation, ...] = ()
    setup: tuple[Any, ...] = ()         # SetupStack | SetupBox
    resources: Mapping[str, Any] = field(default_factory=dict)
    turns: TurnStructure | None = None
    log: Mapping[str, Any] = field(default_factory=dict)
    charts: tuple[Chart, ...] = ()
    styles: Mapping[str, Any] = field(default_factory=dict)
    vassal: Mapping[str, Any] = field(default_factory=dict)
    rules: tuple[RuleSpec, ...] = ()
    plugin_paths: tuple[Path, ...] = ()
    #: the module the game is played with (the ``module`` section)
    module: ModuleSource | None = None
    #: which pieces are which units and markers (the ``binding`` section,
    #: else the binding of the module ``vmodtool build`` makes)
    binding: Binding = Binding(implied=True)
    #: card decks (the ``decks`` section; ``scenario/cards.py``)
    decks: tuple[DeckSpec, ...] = ()
    #: one hand per side that holds cards (the ``hands`` section)
    hands: tuple[HandSpec, ...] = ()
    #: optional counters shipped as module extensions (the ``extensions`` section)
    extensions: tuple[ExtensionSpec, ...] = ()
    #: the map windows beside ``map`` (the ``maps`` section), each with its own board and grid
    maps: tuple[HexMap, ...] = ()
    #: the game's scenarios (the ``scenarios`` section), each a predefined setup
    scenarios: tuple[NamedScenario, ...] = ()
    #: the id of the scenario this model is (:meth:`named`), None for the game as a whole
    chosen: str | None = None

    # -- look-ups -------------------------------------------------------------
    @property
    def folder(self) -> Path:
        return self.path.parent if self.path else Path(".")

    @cached_property
    def _counter_index(self) -> dict[str, Counter]:
        return {c.id: c for c in self.counters}

    def counter(self, counter_id: str) -> Counter:
        return self._counter_index[counter_id]

    @cached_property
    def extension_counters(self) -> frozenset[str]:
        """The ids of the counters an extension holds (not the module)."""
        return frozenset(cid for extension in self.extensions for cid in extension.counters)

    @cached_property
    def extension_decks(self) -> frozenset[str]:
        """The ids of the decks an extension holds (not the module)."""
        return frozenset(did for extension in self.extensions for did in extension.decks)

    def map_window(self, key: str) -> HexMap:
        """The map (``map`` or one of ``maps``) whose id or name is ``key``
        (KeyError when there is none)."""
        for hex_map in (self.map, *self.maps):
            if key in (hex_map.id, hex_map.name):
                return hex_map
        raise KeyError(key)

    def unit_type_of(self, counter: Counter) -> UnitType:
        return self.unit_types[counter.type]

    def formation(self, formation_id: str) -> Formation:
        for formation in self.formations:
            if formation.id == formation_id:
                return formation
        raise KeyError(formation_id)

    def box(self, box_id: str) -> Box:
        for box in self.boxes:
            if box.id == box_id:
                return box
        raise KeyError(box_id)

    def tags(self) -> frozenset[str]:
        """Every tag used by a unit type."""
        out: set[str] = set()
        for unit_type in self.unit_types.values():
            out |= unit_type.tags
        return frozenset(out)

    def stacks(self) -> Iterator[SetupStack]:
        return (s for s in self.setup if isinstance(s, SetupStack))

    # -- several scenarios --------------------------------------------------------
    def find_named(self, key: str) -> NamedScenario | None:
        """The scenario whose id or name is ``key`` (names compared without
        regard to case), None when there is none."""
        for named in self.scenarios:
            if named.id == key:
                return named
        folded = key.casefold()
        for named in self.scenarios:
            if named.name.casefold() == folded:
                return named
        return None

    def named(self, key: str) -> Scenario:
        """This game as scenario ``key`` (an id or a name) is played: its
        set-up, turns, objectives, resources and rules in place of the game's; raises
        ``KeyError`` when the game has no such scenario."""
        found = self.find_named(key)
        if found is None:
            raise KeyError(key)
        hex_map = self.map if found.objectives is None else replace(self.map, objectives=found.objectives)
        resources = self.resources if found.resources is None else found.resources
        return replace(self, setup=found.setup, turns=found.turns or self.turns, map=hex_map,
                       rules=found.rules, resources=resources, chosen=found.id)
