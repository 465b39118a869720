"""The scenario's hex map geometry as VASSAL sees it.

A designer describes the grid the way the map is printed — hex size, number
of columns and rows, which columns (or rows) sit half a hex off, how labels
are numbered — and :func:`build_map_grid` turns that into the VASSAL
``HexGrid`` + ``HexGridNumbering`` attributes, builds the
:class:`~vmodtool.vassal.grid.HexGrid` from them and asks it for the label
of every hex.  That grid object is the single source of truth: the module's
grid, the rendered board and the audit's hex positions all use it, so they
cannot disagree (``docs/vassal-format.md`` §5.7).

Orientation ``flat_top`` is VASSAL's ``sideways=false`` (vertical columns,
every other column half a hex lower); ``pointy_top`` is ``sideways=true``
(horizontal rows, every other row half a hex to the right).  For pointy-top
maps VASSAL's "column" index runs down the map, so the user's row numbering
becomes VASSAL's H axis and the column numbering its V axis (§5.5 (c)).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from vmodtool.scenario.locations import HEX
from vmodtool.vassal.grid import HexGrid, LocationError

__all__ = ["AxisNumbering", "GridSpec", "MapGrid", "build_map_grid", "board_size", "alpha_index"]

SQRT3_2 = math.sqrt(3.0) / 2.0


def alpha_index(text: str) -> int:
    """VASSAL's alphabetic label value: A=0 … Z=25, AA=26, BB=27 (§5.3)."""
    text = text.strip().upper()
    if not text or any(c != text[0] for c in text) or not ("A" <= text[0] <= "Z"):
        raise ValueError(f"{text!r} is not a VASSAL alphabetic label (A…Z, AA, BB, …)")
    return 26 * (len(text) - 1) + (ord(text[0]) - ord("A"))


@dataclass(frozen=True)
class AxisNumbering:
    """Numbering of one axis: ``start`` is the value printed on the first
    (left-most / top-most) line of hexes."""

    type: str = "numeric"          # numeric | alpha
    start: int = 1
    leading_zeros: int = 1
    descending: bool = False


@dataclass(frozen=True)
class GridSpec:
    """A hex grid as the map is printed (see the scenario format)."""

    orientation: str = "flat_top"  # flat_top | pointy_top
    hex_height: float = 64.0       # flat_top: row spacing; pointy_top: row spacing
    hex_width: float | None = None  # flat_top: column spacing; pointy_top: column spacing
    columns: int = 10
    rows: int = 8
    offset_parity: str = "even"    # which numbered columns (rows) sit half a hex off
    margin: int = 24
    origin: tuple[int, int] | None = None  # map point of the first hex's centre
    snap: str = "centres"
    first: str = "column"
    separator: str = ""
    column: AxisNumbering = AxisNumbering()
    row: AxisNumbering = AxisNumbering()
    stagger: bool = False
    location_format: str = "$gridLocation$"

    @property
    def sideways(self) -> bool:
        return self.orientation == "pointy_top"


@dataclass
class MapGrid:
    """The VASSAL grid of a scenario map and its hexes.

    ``grid_attributes``/``numbering_attributes`` are the XML attributes of
    ``HexGrid``/``HexGridNumbering`` (strings, as a module writes them);
    ``size`` the board's pixel size; ``hexes`` label → (raw column, raw row)
    in reading order; ``centres`` label → board pixel centre."""

    spec: GridSpec | None                 # None: a module's own grid (``module_map``)
    grid_attributes: dict[str, str]
    numbering_attributes: dict[str, str]
    size: tuple[int, int]
    grid: HexGrid
    hexes: dict[str, tuple[int, int]] = field(default_factory=dict)
    centres: dict[str, tuple[int, int]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def __contains__(self, label: object) -> bool:
        return label in self.hexes

    def centre(self, label: str) -> tuple[int, int]:
        return self.centres[label]

    def location_kind(self, label: str) -> str | None:
        """``"hex"`` for a hex of the map (a map's hexes are its locations,
        :class:`~vmodtool.scenario.locations.Locations`), else None."""
        return HEX if label in self.hexes else None

    def neighbours(self, label: str) -> list[str]:
        """Adjacent hexes that are on this map."""
        return [n for n in self.grid.neighbours(label) if n in self.hexes]

    def adjacent(self, a: str, b: str) -> bool:
        return a in self.hexes and b in self.hexes and b in self.grid.neighbours(a)

    def distance(self, a: str, b: str) -> int:
        # the raw indices of the map's hexes are known: no label parsing
        ia, ib = self.hexes.get(a), self.hexes.get(b)
        if ia is None or ib is None:
            return self.grid.distance(a, b)
        return self.grid.raw_distance(ia[0], ia[1], ib[0], ib[1])

    def label_at(self, x: int, y: int) -> str | None:
        """VASSAL's name for a board point (None off the numbering)."""
        return self.grid.location_name(x, y)


def _fmt(value: float) -> str:
    text = repr(float(value))
    return text


def _axis_attrs(prefix: str, axis: AxisNumbering, offset: int) -> dict[str, str]:
    return {f"{prefix}Type": "A" if axis.type == "alpha" else "N",
            f"{prefix}Leading": str(axis.leading_zeros),
            f"{prefix}Descend": "true" if axis.descending else "false",
            f"{prefix}Off": str(offset)}


@dataclass(frozen=True)
class _Layout:
    """Where the hexes of a spec lie: VASSAL spacing (dx along u, dy along v),
    the raw index of the first printed line, the first centre and the board size."""

    sideways: bool
    dx: float
    dy: float
    h_axis: AxisNumbering
    v_axis: AxisNumbering
    h_count: int
    v_count: int
    first_shifted: bool
    raw_first: int
    x0: int
    y0: int
    size: tuple[int, int]


def _layout(spec: GridSpec) -> _Layout:
    sideways = spec.sideways
    if sideways:
        # pointy-top: VASSAL spacing along map x is dy, along map y is dx
        dy = float(spec.hex_width) if spec.hex_width else float(spec.hex_height) / SQRT3_2
        dx = float(spec.hex_height)
        h_axis, v_axis = spec.row, spec.column           # H runs down the map
        h_count, v_count = spec.rows, spec.columns
    else:
        dy = float(spec.hex_height)
        dx = float(spec.hex_width) if spec.hex_width else SQRT3_2 * dy
        h_axis, v_axis = spec.column, spec.row
        h_count, v_count = spec.columns, spec.rows
    # raw H lines with an odd index sit half a hex further along v; the first
    # printed line must be shifted when its number has the shifted parity
    # (alphabetic lines count from A = 1st, so "even" means B, D, …)
    position = h_axis.start + (1 if h_axis.type == "alpha" else 0)
    first_shifted = (position % 2 == 0) == (spec.offset_parity == "even")
    raw_first = 1 if first_shifted else 0
    radius = 2.0 * dx / 3.0
    if spec.origin is not None:
        ox, oy = spec.origin
        along_u, along_v = (oy, ox) if sideways else (ox, oy)
        x0 = int(round(along_u - raw_first * dx))
        y0 = int(round(along_v - (dy / 2.0 if first_shifted else 0.0)))
    else:
        x0 = int(round(spec.margin + radius - raw_first * dx))
        y0 = int(round(spec.margin + dy / 2.0))
    # board size: extent along u (hex corners at ±2dx/3) and v (+dy/2 shift)
    extent_u = x0 + (raw_first + h_count - 1) * dx + radius + spec.margin
    any_shifted = h_count > 1 or first_shifted
    extent_v = y0 + (v_count - 1) * dy + dy / 2.0 + (dy / 2.0 if any_shifted else 0.0) + spec.margin
    size_u, size_v = int(math.ceil(extent_u)), int(math.ceil(extent_v))
    size = (size_v, size_u) if sideways else (size_u, size_v)
    return _Layout(sideways, dx, dy, h_axis, v_axis, h_count, v_count, first_shifted, raw_first, x0, y0, size)


def board_size(spec: GridSpec) -> tuple[int, int]:
    """The board's pixel size (width, height) for ``spec``, computed without
    building the grid (so that a caller can bound it first)."""
    return _layout(spec).size


def build_map_grid(spec: GridSpec) -> MapGrid:
    """Derive the VASSAL grid of ``spec`` and label every hex (§5.7: describe
    the printed map, solve for the attributes, then verify every label)."""
    lay = _layout(spec)
    sideways, dx, dy, size = lay.sideways, lay.dx, lay.dy, lay.size
    h_axis, v_axis, h_count, v_count = lay.h_axis, lay.v_axis, lay.h_count, lay.v_count
    raw_first, x0, y0 = lay.raw_first, lay.x0, lay.y0

    grid_attrs = {"dx": _fmt(dx), "dy": _fmt(dy), "x0": str(x0), "y0": str(y0),
                  "sideways": "true" if sideways else "false",
                  "snapTo": "true",
                  "edgesLegal": "true" if spec.snap in ("edges", "edges_and_corners") else "false",
                  "cornersLegal": "true" if spec.snap in ("corners", "edges_and_corners") else "false"}
    if sideways:
        first = "V" if spec.first == "column" else "H"
    else:
        first = "H" if spec.first == "column" else "V"

    def numbering(h_off: int, v_off: int) -> dict[str, str]:
        attrs = {"first": first, "sep": spec.separator,
                 "stagger": "true" if spec.stagger else "false",
                 "locationFormat": spec.location_format}
        attrs.update(_axis_attrs("h", h_axis, h_off))
        attrs.update(_axis_attrs("v", v_axis, v_off))
        return attrs

    # solve the offsets: the first printed hex must carry the start values
    probe = HexGrid.from_attributes(grid_attrs, numbering(0, 0), container_size=size)
    first_centre = probe.raw_center(raw_first, 0)
    logical_h, logical_v = probe.logical_column_row(*first_centre)
    h_off, v_off = h_axis.start - logical_h, v_axis.start - logical_v
    num_attrs = numbering(h_off, v_off)
    grid = HexGrid.from_attributes(grid_attrs, num_attrs, container_size=size)
    result = MapGrid(spec, grid_attrs, num_attrs, size, grid)

    cells: list[tuple[int, int]] = []
    if sideways:   # reading order: rows (H) top to bottom, then columns (V)
        cells = [(raw_first + i, j) for i in range(h_count) for j in range(v_count)]
    else:          # rows top to bottom, columns left to right
        cells = [(raw_first + i, j) for j in range(v_count) for i in range(h_count)]
    for raw_c, raw_r in cells:
        centre = grid.raw_center(raw_c, raw_r)
        label = grid.location_name(*centre)
        if label is None:
            result.problems.append(f"the hex at raw ({raw_c}, {raw_r}) gets no label")
            continue
        if label in result.hexes:
            result.problems.append(
                f"two hexes get the label {label!r}: the numbering is ambiguous (with "
                "separator \"\" and these leading zeros VASSAL cannot tell column from row; "
                "add a separator or leading zeros)")
            continue
        try:
            back = grid.raw_index_of(label)
        except LocationError:
            back = None
        if back != (raw_c, raw_r):
            result.problems.append(
                f"VASSAL cannot read the label {label!r} back to its hex (ambiguous "
                "numbering, docs/vassal-format.md §5.6 quirk 7); add a separator or leading zeros")
        result.hexes[label] = (raw_c, raw_r)
        result.centres[label] = centre
    return result
