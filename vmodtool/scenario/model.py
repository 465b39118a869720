"""The validated scenario model: immutable dataclasses that every other
layer (counters, boards, module build, audit) reads.

Objects are created only by :mod:`vmodtool.scenario.loader` after the file
has been checked, so every reference in them resolves: a counter's type and
side exist, every setup hex is on the map, every hexside joins two adjacent
hexes.  Display texts may be in any language (Cyrillic included); ids are the
stable keys that modules and audits use.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, FrozenSet, Iterator, List, Mapping, Optional, Tuple

from vmodtool.scenario.mapgrid import GridSpec, MapGrid

__all__ = [
    "Side", "Game", "TerrainType", "HexsideType", "Hexside", "MapLabel", "Objective", "HexMap",
    "Box", "Track", "NatoSpec", "Face", "UnitType", "MarkerKind", "Formation", "Counter",
    "SetupStack", "SetupBox", "Phase", "Activation", "TurnStructure", "Chart", "RuleSpec",
    "Scenario", "Position",
]


@dataclass(frozen=True)
class Position:
    """Where an object was defined (for messages of later layers)."""

    file: Optional[str] = None
    line: Optional[int] = None

    def __str__(self) -> str:
        return f"{self.file or '<scenario>'}" + (f":{self.line}" if self.line else "")


@dataclass(frozen=True)
class Side:
    id: str
    name: str
    fill: str = "#dddddd"
    ink: str = "#000000"
    stripe: Optional[str] = None


@dataclass(frozen=True)
class Game:
    id: str
    title: str
    sides: Tuple[Side, ...]
    system: Optional[str] = None
    note: Optional[str] = None
    scale: Mapping[str, Any] = field(default_factory=dict)
    dice: Tuple[str, ...] = ()
    designer: Optional[str] = None
    version: Optional[str] = None
    language: Optional[str] = None

    def side(self, side_id: str) -> Side:
        for side in self.sides:
            if side.id == side_id:
                return side
        raise KeyError(side_id)


@dataclass(frozen=True)
class TerrainType:
    id: str
    code: str
    name: str
    fill: Optional[str] = None
    elevation: Optional[int] = None
    symbol: Optional[str] = None


@dataclass(frozen=True)
class HexsideType:
    id: str
    name: str
    stroke: Optional[str] = None
    width: Optional[float] = None
    drawn_as: str = "hexside"      # hexside | centre_line
    symbol: Optional[str] = None


@dataclass(frozen=True)
class Hexside:
    """A feature on the side between two adjacent hexes (``a`` < ``b``)."""

    type: str
    a: str
    b: str

    @property
    def pair(self) -> FrozenSet[str]:
        return frozenset((self.a, self.b))


@dataclass(frozen=True)
class MapLabel:
    hex: str
    text: str


@dataclass(frozen=True)
class Objective:
    hex: str
    name: str
    vp: Optional[float] = None


@dataclass(frozen=True)
class HexMap:
    """The map: grid, terrain per hex, hexside features, labels."""

    id: str
    name: str
    grid_spec: GridSpec
    grid: MapGrid
    terrain_types: Mapping[str, TerrainType]
    terrain: Mapping[str, str]                  # hex id -> terrain type id
    hexside_types: Mapping[str, HexsideType]
    hexsides: Tuple[Hexside, ...] = ()
    labels: Tuple[MapLabel, ...] = ()
    objectives: Tuple[Objective, ...] = ()
    edges: Mapping[str, str] = field(default_factory=dict)
    edge_buffer: Tuple[int, int] = (0, 0)
    board_image: Optional[Path] = None
    size: Tuple[int, int] = (0, 0)

    @property
    def hex_ids(self) -> List[str]:
        return list(self.grid.hexes)

    def __contains__(self, hex_id: object) -> bool:
        return hex_id in self.grid.hexes

    def terrain_of(self, hex_id: str) -> TerrainType:
        return self.terrain_types[self.terrain[hex_id]]

    def neighbours(self, hex_id: str) -> List[str]:
        return self.grid.neighbours(hex_id)

    def distance(self, a: str, b: str) -> int:
        return self.grid.distance(a, b)

    def hexside_features(self, a: str, b: str) -> FrozenSet[str]:
        """Types of the features on the side between ``a`` and ``b``."""
        pair = frozenset((a, b))
        return frozenset(h.type for h in self.hexsides if h.pair == pair)


@dataclass(frozen=True)
class Box:
    """An off-map holding area (dead pile, cup, air boxes …)."""

    id: str
    name: str
    role: str
    side: Optional[str] = None


@dataclass(frozen=True)
class Track:
    id: str
    name: str
    kind: str
    spaces: Tuple[str, ...]
    shows: Tuple[str, ...] = ()


@dataclass(frozen=True)
class NatoSpec:
    symbol: str
    size: Optional[str] = None
    modifiers: Tuple[str, ...] = ()
    hq: bool = False


@dataclass(frozen=True)
class Face:
    """One printed side (or layer level) of a counter: its state values and
    factors."""

    name: str
    state: Mapping[str, Any] = field(default_factory=dict)
    factors: Mapping[str, Any] = field(default_factory=dict)
    image: Optional[str] = None


@dataclass(frozen=True)
class UnitType:
    id: str
    name: str
    faces: Tuple[Face, ...]
    tags: FrozenSet[str] = frozenset()
    movement_class: Optional[str] = None
    nato: Optional[NatoSpec] = None
    layout: Optional[str] = None
    steps: int = 1
    serves: Tuple[str, ...] = ()

    def face(self, name: str) -> Face:
        for face in self.faces:
            if face.name == name:
                return face
        raise KeyError(name)


@dataclass(frozen=True)
class MarkerKind:
    id: str
    name: str
    representation: str = "counter"     # layer | counter
    scope: str = "unit"                 # unit | hex | box
    text: Optional[str] = None
    fill: Optional[str] = None
    ink: Optional[str] = None


@dataclass(frozen=True)
class Formation:
    id: str
    side: str
    name: str
    hq: Optional[str] = None
    chits: int = 0
    command: str = "normal"             # normal | exempt


@dataclass(frozen=True)
class Counter:
    """One physical counter of the counter mix (``count`` already expanded:
    ``syr.t72`` with count 3 gives ``syr.t72.1`` … ``syr.t72.3``)."""

    id: str
    type: str
    side: str
    formation: Optional[str] = None
    label: Optional[str] = None
    face: Optional[str] = None          # initial face (default: the first)
    entry: str = ""                     # the counter-mix entry it came from
    position: Position = Position()


@dataclass(frozen=True)
class SetupStack:
    """At-start stack in a hex, bottom → top; ``faces`` overrides faces."""

    hex: str
    units: Tuple[str, ...]
    faces: Mapping[str, str] = field(default_factory=dict)
    position: Position = Position()


@dataclass(frozen=True)
class SetupBox:
    """Units (or activation chits) that start in a box; with ``arrive_turn``
    they are reinforcements entering at ``arrive_hex``/``arrive_edge``."""

    box: str
    units: Tuple[str, ...] = ()
    chits: Tuple[str, ...] = ()
    faces: Mapping[str, str] = field(default_factory=dict)
    arrive_turn: Optional[int] = None
    arrive_hex: Optional[str] = None
    arrive_edge: Optional[str] = None
    position: Position = Position()


@dataclass(frozen=True)
class Activation:
    kind: str = "none"                  # chit_pull | igougo | none
    cup: Optional[str] = None
    drawn: Optional[str] = None
    end_turn_chits: int = 0
    steps: Tuple[str, ...] = ()


@dataclass(frozen=True)
class Phase:
    id: str
    name: str
    activation: Optional[Activation] = None


@dataclass(frozen=True)
class TurnStructure:
    first: int
    last: int
    phases: Tuple[Phase, ...]
    player_turns: Tuple[str, ...] = ()

    def phase(self, phase_id: str) -> Phase:
        for phase in self.phases:
            if phase.id == phase_id:
                return phase
        raise KeyError(phase_id)


@dataclass(frozen=True)
class Chart:
    id: str
    name: str
    image: Path


@dataclass(frozen=True)
class RuleSpec:
    """A declarative rule entry; the audit (a later layer) enforces it."""

    id: str
    kind: str
    params: Mapping[str, Any] = field(default_factory=dict)
    ref: Tuple[str, ...] = ()
    check_at: str = "event"
    severity: str = "error"
    enabled: bool = True
    plugin: Optional[str] = None
    needs_annotations: Tuple[str, ...] = ()
    position: Position = Position()


@dataclass(frozen=True)
class Scenario:
    """A validated scenario.  ``path`` is the scenario file; relative paths
    (images, CSV, plug-ins) are resolved against its folder."""

    path: Optional[Path]
    schema: str
    game: Game
    map: HexMap
    unit_types: Mapping[str, UnitType]
    counters: Tuple[Counter, ...]
    boxes: Tuple[Box, ...] = ()
    tracks: Tuple[Track, ...] = ()
    factor_layouts: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    markers: Mapping[str, MarkerKind] = field(default_factory=dict)
    formations: Tuple[Formation, ...] = ()
    setup: Tuple[Any, ...] = ()         # SetupStack | SetupBox
    resources: Mapping[str, Any] = field(default_factory=dict)
    turns: Optional[TurnStructure] = None
    log: Mapping[str, Any] = field(default_factory=dict)
    charts: Tuple[Chart, ...] = ()
    styles: Mapping[str, Any] = field(default_factory=dict)
    vassal: Mapping[str, Any] = field(default_factory=dict)
    rules: Tuple[RuleSpec, ...] = ()
    plugin_paths: Tuple[Path, ...] = ()

    # -- look-ups -------------------------------------------------------------
    @property
    def folder(self) -> Path:
        return self.path.parent if self.path else Path(".")

    def counter(self, counter_id: str) -> Counter:
        for counter in self.counters:
            if counter.id == counter_id:
                return counter
        raise KeyError(counter_id)

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

    def tags(self) -> FrozenSet[str]:
        """Every tag used by a unit type."""
        out: set = set()
        for unit_type in self.unit_types.values():
            out |= unit_type.tags
        return frozenset(out)

    def stacks(self) -> Iterator[SetupStack]:
        return (s for s in self.setup if isinstance(s, SetupStack))
