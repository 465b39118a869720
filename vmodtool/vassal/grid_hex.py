"""VASSAL's ``HexGrid`` with its ``HexGridNumbering`` (``docs/vassal-format.md``
§2.4.5, §2.4.6, §5.2–§5.6), exact to VASSAL 3.7.26 including its quirks.

Frames: every method takes and returns board-local integer points (x, y).
Internally the grid works in the rotated frame (u, v) = (x, y), or (y, x)
for sideways grids (§5.2); the origin (x0, y0) is *not* swapped.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping

from vmodtool.errors import FormatError
from vmodtool.vassal.grid_common import (
    LatticeGrid,
    LocationError,
    Point,
    check_cell_size,
    color_to_string,
    float32,
    java_round,
    parse_bool_attribute,
    parse_double_attribute,
    parse_int_attribute,
)
from vmodtool.vassal.grid_numbering import HexGridNumbering
from vmodtool.vassal.sequence import java_double

__all__ = ["HexGrid", "DEFAULT_HEX_HEIGHT", "DEFAULT_HEX_WIDTH"]

_SQRT3_2 = math.sqrt(3) / 2.0
#: default ``dy`` (hex height)
DEFAULT_HEX_HEIGHT = 64.0
#: default ``dx`` (hex width) = √3/2·64 = 55.42562584220407
DEFAULT_HEX_WIDTH = _SQRT3_2 * DEFAULT_HEX_HEIGHT

#: The most hex positions :meth:`HexGrid.hex_centres` walks for one board (a
#: real board has thousands; see docs/vassal-format.md §5.8).
MAX_HEX_POSITIONS = 1_000_000

_floor = math.floor

# neighbour offsets (d_col, d_row) in raw offset coordinates; odd raw
# columns sit half a hex further along v (§5.2)
_NEIGHBOURS_EVEN = ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 0), (-1, -1))
_NEIGHBOURS_ODD = ((0, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0))
# hexPoint fallback candidates, in VASSAL's order (§5.4)
_SNAP_OFFSETS_EVEN = ((-1, -1), (-1, 0), (1, -1), (1, 0))
_SNAP_OFFSETS_ODD = ((-1, 0), (-1, 1), (1, 0), (1, 1))

# one hexagon edge of java.awt.geom.Area: (y_top, y_bottom, x_top, x_bottom,
# x_min, x_max); a hexagon: (min_x, max_x, min_y, max_y, edges)
_Edge = tuple[int, int, int, int, int, int]
_Hexagon = tuple[int, int, int, int, tuple[_Edge, ...]]


class HexGrid(LatticeGrid):
    """A hex grid.

    Build from XML with :meth:`from_attributes` (VASSAL's ``setAttribute``
    semantics) or directly with keyword arguments.  ``container_size`` is the
    (width, height) of the board — or, for a grid inside a Zone, of the zone
    polygon's bounding box — which descending numbering needs (§5.3).

    Public read-only fields: ``dx``, ``dy``, ``x0``, ``y0``, ``sideways``,
    ``snap_enabled`` (the ``snapTo`` attribute), ``edges_legal``,
    ``corners_legal``, ``snap_scale``, ``visible``, ``dots_visible``,
    ``color``, ``numbering`` (a :class:`HexGridNumbering` or ``None``),
    ``container_size``, ``max_rows``, ``max_columns``.
    """

    COMPONENT = "HexGrid"
    #: getAttributeNames() order, plus snapscale (accepted, never written)
    ATTRIBUTE_NAMES = ("sideways", "x0", "y0", "dy", "dx", "snapTo", "edgesLegal",
                       "cornersLegal", "visible", "dotsVisible", "color")

    def __init__(self, *, dx: float = DEFAULT_HEX_WIDTH, dy: float = DEFAULT_HEX_HEIGHT,
                 x0: int = 0, y0: int = 32, sideways: bool = False,
                 snap_to: bool = True, edges_legal: bool = False,
                 corners_legal: bool = False, snap_scale: int = 0,
                 visible: bool = False, dots_visible: bool = False,
                 color: tuple[int, int, int, int] | None = (0, 0, 0, 255),
                 numbering: HexGridNumbering | None = None,
                 container_size: tuple[int, int] = (0, 0)) -> None:
        self.dx = float(dx)
        self.dy = float(dy)
        self.x0 = int(x0)
        self.y0 = int(y0)
        self.sideways = bool(sideways)
        self.snap_enabled = bool(snap_to)
        self.edges_legal = bool(edges_legal)
        self.corners_legal = bool(corners_legal)
        self.snap_scale = int(snap_scale)
        self.visible = bool(visible)
        self.dots_visible = bool(dots_visible)
        self.color = color
        self.numbering = numbering
        self.container_size = (int(container_size[0]), int(container_size[1]))
        self._prepare()

    # -- building --------------------------------------------------------

    @classmethod
    def from_attributes(cls, grid_attributes: Mapping[str, str] | None,
                        numbering_attributes: Mapping[str, str] | None = None,
                        container_size: tuple[int, int] = (0, 0)) -> HexGrid:
        """Build as VASSAL's builder does: ``setAttribute`` for every XML
        attribute in name order (so ``dx`` comes before ``dy`` and the
        default-width quirk of §2.4.5 applies), then the numbering child.

        ``numbering_attributes`` is ``None`` for a grid without a
        ``HexGridNumbering`` (every point is then named ``None``).
        Malformed numbers raise :class:`FormatError`.
        """
        grid = cls.__new__(cls)
        grid.dx = DEFAULT_HEX_WIDTH
        grid.dy = DEFAULT_HEX_HEIGHT
        grid.x0, grid.y0 = 0, 32
        grid.sideways = False
        grid.snap_enabled = True
        grid.edges_legal = grid.corners_legal = False
        grid.snap_scale = 0
        grid.visible = grid.dots_visible = False
        grid.color = (0, 0, 0, 255)
        grid.numbering = None
        grid.container_size = (int(container_size[0]), int(container_size[1]))
        attrs = grid_attributes or {}
        for key in sorted(attrs):
            grid._apply_attribute(key, attrs[key])
        if numbering_attributes is not None:
            grid.numbering = HexGridNumbering.from_attributes(numbering_attributes)
        grid._prepare()
        return grid

    def _apply_attribute(self, key: str, value: str) -> None:
        if self._apply_shared_attribute(key, value):
            return
        if key == "dy":
            self.dy = parse_double_attribute(self.COMPONENT, key, value)
            # §2.4.5 quirk: a dx still equal to the default width follows dy
            if self.dx == DEFAULT_HEX_WIDTH:
                self.dx = _SQRT3_2 * self.dy
        elif key == "sideways":
            self.sideways = parse_bool_attribute(value)
        elif key == "snapscale":
            self.snap_scale = parse_int_attribute(self.COMPONENT, key, value)

    def set_numbering(self, numbering: HexGridNumbering | None) -> None:
        """Attach (or with ``None`` remove) the numbering.  Change numbering
        options only through this: the grid precomputes from them."""
        self.numbering = numbering
        self._prepare()

    def attribute_strings(self) -> dict[str, str]:
        """``getAttributeValueString`` of every attribute, plus ``snapscale``
        (e.g. ``dy="64"`` reads back ``"64.0"``)."""
        return {
            "sideways": _jbool(self.sideways),
            "x0": str(self.x0),
            "y0": str(self.y0),
            "dy": java_double(self.dy),
            "dx": java_double(self.dx),
            "snapTo": _jbool(self.snap_enabled),
            "edgesLegal": _jbool(self.edges_legal),
            "cornersLegal": _jbool(self.corners_legal),
            "visible": _jbool(self.visible),
            "dotsVisible": _jbool(self.dots_visible),
            "color": color_to_string(self.color),
            "snapscale": str(self.snap_scale),
        }

    def _prepare(self) -> None:
        """Check the geometry and precompute per-grid constants."""
        check_cell_size(self.COMPONENT, self.dx, self.dy)
        dx, dy = self.dx, self.dy
        width, height = self.container_size
        # §5.6 quirk 1: maxRows uses dx, maxColumns uses dy
        self.max_rows = _floor(height / dx + 0.5)
        self.max_columns = _floor(width / dy + 0.5)
        self._half_dy = dy / 2
        self._half_dy_int = int(dy / 2)
        self._hexagons: dict[Point, _Hexagon] = {}
        f_dx = float32(dx)
        f_dy = float32(dy)
        self._hex_r = float32(float32(2.0 * f_dx) / 3.0)
        self._hex_half_r = float32(0.5 * self._hex_r)
        self._hex_half_dy = float32(0.5 * f_dy)
        self._col_flip: int | None = None
        self._row_flip: int | None = None
        self._stagger_delta = 0
        numbering = self.numbering
        if numbering is None:
            return
        sideways = self.sideways
        h_desc, v_desc = numbering.h_descend, numbering.v_descend
        # column flip (§5.3 / quirk 4)
        if sideways:
            self._col_flip = self.max_rows if v_desc else None
            self._row_flip = self.max_columns if h_desc else None
            descending = h_desc
        else:
            self._col_flip = self.max_columns if h_desc else None
            self._row_flip = self.max_rows if v_desc else None
            descending = v_desc
        # odd raw column shift of the printed row (name side) and of the
        # logical row (getCenterPoint side)
        self._stagger_delta = (-1 if descending else 1) if numbering.stagger else 0

    # -- raw indices -----------------------------------------------------

    def _uv(self, x: int, y: int) -> Point:
        return (y, x) if self.sideways else (x, y)

    def raw_column_row(self, x: int, y: int) -> tuple[int, int]:
        """``(getRawColumn(p), getRawRow(p))`` of a board-local point."""
        u, v = (y, x) if self.sideways else (x, y)
        q = (u - self.x0) / self.dx
        column = _floor(q + 0.5)
        return column, self._raw_row(q, v)

    def _raw_row(self, q: float, v: int) -> int:
        # getRawRow takes the column parity from Math.round, not floor(+0.5)
        nx = _floor(q)
        if q - nx >= 0.5:
            nx += 1
        if nx % 2 == 0:
            t = (v - self.y0) / self.dy
        else:
            t = (v - self.y0 - self._half_dy) / self.dy
        ny = _floor(t)
        return ny + 1 if t - ny >= 0.5 else ny

    # -- point → name ----------------------------------------------------

    def location_name(self, x: int, y: int) -> str | None:
        """VASSAL's ``HexGrid.locationName``: the name of a board-local point,
        ``None`` when the grid has no numbering (§5.3)."""
        numbering = self.numbering
        if numbering is None:
            return None
        column, row = self.logical_column_row(x, y)
        return numbering.name_of(column, row)

    def logical_column_row(self, x: int, y: int) -> tuple[int, int]:
        """The numbering's ``(getColumn(p), getRow(p))``: raw indices after
        descending flips and stagger (labels are these plus hOff/vOff)."""
        u, v = (y, x) if self.sideways else (x, y)
        q = (u - self.x0) / self.dx
        raw_col = _floor(q + 0.5)
        return self._logical_of_raw(raw_col, self._raw_row(q, v))

    def _logical_of_raw(self, raw_col: int, raw_row: int) -> tuple[int, int]:
        if self.numbering is None:
            raise LocationError("the grid has no numbering")
        column = raw_col if self._col_flip is None else self._col_flip - raw_col
        row = raw_row if self._row_flip is None else self._row_flip - raw_row
        if raw_col % 2 != 0:
            row += self._stagger_delta
        return column, row

    def name_of_raw(self, raw_col: int, raw_row: int) -> str:
        """The name VASSAL gives to the hex with raw indices (col, row)."""
        numbering = self.numbering
        if numbering is None:
            raise LocationError("the grid has no numbering")
        column, row = self._logical_of_raw(raw_col, raw_row)
        return numbering.name_of(column, row)

    # -- name → point ----------------------------------------------------

    def get_location(self, name: str) -> Point:
        """VASSAL's ``HexGrid.getLocation(name)``: the centre point of a named
        hex, computed by ``getCenterPoint`` (§5.4) including its quirks:
        greedy parsing of ambiguous names and the stagger+descend
        non-round-trip (§5.6 quirk 2).  Raises :class:`LocationError` where
        VASSAL throws ``BadCoords``."""
        if self.numbering is None:
            raise LocationError(f"cannot locate {name!r}: the hex grid has no numbering")
        column, row = self.numbering.parse_name(name)
        return self.center_point(column, row)

    def center_point(self, column: int, row: int) -> Point:
        """``HexGridNumbering.getCenterPoint(col, row)`` for logical indices
        (label value minus offset)."""
        if column % 2 != 0:
            # stagger is applied by the parity of the *logical* column
            row -= self._stagger_delta
        if self._col_flip is not None:
            column = self._col_flip - column
        if self._row_flip is not None:
            row = self._row_flip - row
        u = int(column * self.dx) + self.x0
        if column % 2 == 0:
            v = int(row * self.dy) + self.y0
        else:
            v = int(row * self.dy + self._half_dy) + self.y0
        return (v, u) if self.sideways else (u, v)

    # -- snapping (§5.4) -------------------------------------------------

    def snap_to(self, x: int, y: int, force: bool = False,
                center_only: bool = False) -> Point:
        """VASSAL's ``HexGrid.snapTo(p, force, centerOnly)``."""
        if not self.snap_enabled and not force:
            return (x, y)
        sideways = self.sideways
        u, v = (y, x) if sideways else (x, y)
        cu, cv = self._hex_point(u, v)
        center = (cv, cu) if sideways else (cu, cv)
        if center_only:
            return center
        if self.edges_legal:
            su, sv = self._side_uv(u, v)
            edge = (sv, su) if sideways else (su, sv)
            if self.corners_legal:
                ku, kv = self._vertex_uv(u, v)
                corner = (kv, ku) if sideways else (ku, kv)
                if (x - edge[0]) ** 2 + (y - edge[1]) ** 2 < \
                        (x - corner[0]) ** 2 + (y - corner[1]) ** 2:
                    return _check_center(center, edge)
                return _check_center(center, corner)
            return _check_center(center, edge)
        if self.corners_legal:
            ku, kv = self._vertex_uv(u, v)
            return _check_center(center, (kv, ku) if sideways else (ku, kv))
        return center

    def _raw_center(self, nx: int, ny: int) -> Point:
        """``hexPointCenterFromRawIndex`` in the rotated frame (this is the
        snapped centre, which can differ by 1 px from :meth:`center_point`)."""
        u = int(self.dx * nx + self.x0)
        if nx % 2 == 0:
            v = int(self.dy * ny + self.y0)
        else:
            v = int(self.dy * ny + self._half_dy_int + self.y0)
        return u, v

    def _hexagon(self, cu: int, cv: int) -> _Hexagon:
        """VASSAL's integer hexagon around a centre (``getSingleHexShape``,
        computed in 32-bit floats as VASSAL does), as the edges of a
        ``java.awt.geom.Area``."""
        key = (cu, cv)
        hexagon = self._hexagons.get(key)
        if hexagon is not None:
            return hexagon
        fx, fy = float(cu), float(cv)
        r, half_r, half_dy = self._hex_r, self._hex_half_r, self._hex_half_dy
        x_left = _round_f(float32(fx - r))
        x_ul = _round_f(float32(fx - half_r))
        x_ur = _round_f(float32(fx + half_r)) + 1
        x_right = _round_f(float32(fx + r)) + 1
        y_top = _round_f(float32(fy - half_dy))
        y_bottom = _round_f(float32(fy + half_dy)) + 1
        y_mid = cv
        vertices = ((x_left, y_mid), (x_ul, y_top), (x_ur, y_top), (x_right, y_mid),
                    (x_ur, y_bottom), (x_ul, y_bottom))
        edges: list[_Edge] = []
        for i in range(6):
            xa, ya = vertices[i - 1]
            xb, yb = vertices[i]
            if ya == yb:
                continue
            if ya > yb:
                xa, ya, xb, yb = xb, yb, xa, ya
            edges.append((ya, yb, xa, xb, min(xa, xb), max(xa, xb)))
        xs = [p[0] for p in vertices]
        ys = [p[1] for p in vertices]
        hexagon = (min(xs), max(xs), min(ys), max(ys), tuple(edges))
        if len(self._hexagons) > 65536:
            self._hexagons.clear()
        self._hexagons[key] = hexagon
        return hexagon

    def _hex_point(self, u: int, v: int) -> Point:
        """``hexPoint(u, v)``: the snapped hex centre in the rotated frame."""
        dx, dy = self.dx, self.dy
        nx = _floor((u - self.x0 + dx / 2) / dx)
        even = nx % 2 == 0
        if even:
            ny = _floor((v - self.y0 + dy / 2) / dy)
        else:
            ny = _floor((v - self.y0) / dy)
        cu, cv = self._raw_center(nx, ny)
        if not _area_contains(self._hexagon(cu, cv), u, v):
            for a, b in (_SNAP_OFFSETS_EVEN if even else _SNAP_OFFSETS_ODD):
                ou, ov = self._raw_center(nx + a, ny + b)
                if _area_contains(self._hexagon(ou, ov), u, v):
                    cu, cv = ou, ov
                    break
        scale = self.snap_scale
        if scale > 0:
            cu += _scaled_delta(u - cu, dx, scale)
            cv += _scaled_delta(v - cv, dy, scale)
        return cu, cv

    def _side_uv(self, u: int, v: int) -> Point:
        """``snapToHexSide`` in the rotated frame: nearest side midpoint."""
        dx, dy, x0, y0 = self.dx, self.dy, self.x0, self.y0
        n = _floor((u - x0 + dx / 4) * 2 / dx)
        su = int(dx / 2 * n + x0)
        if n % 2 == 0:
            sv = int(dy / 2 * _floor((v - y0 + dy / 4) * 2 / dy) + y0)
        else:
            sv = int((dy / 2) * _floor((v - y0) * 2 / dy) + int(dy / 4) + y0)
        if self.snap_scale > 0:
            hu, hv = self._hex_point(u, v)
            if abs(u - hu) + abs(v - hv) <= abs(u - su) + abs(v - sv):
                return hu, hv
        return su, sv

    def _vertex_uv(self, u: int, v: int) -> Point:
        """``snapToHexVertex`` in the rotated frame: nearest corner.  The
        inner ``(int)`` truncates toward zero (§5.6 quirk 8)."""
        dx, dy, x0, y0 = self.dx, self.dy, self.x0, self.y0
        m = _floor((v - y0 + dy / 4) * 2 / dy)
        if m % 2 == 0:
            ku = int(2 * dx / 3 * int(_floor(u - x0 + dx / 3) * 3 / (2 * dx)) + x0)
        else:
            ku = int(2 * dx / 3 * int(_floor(u - x0 + dx / 3 + dx / 3) * 3 / (2 * dx))
                     - int(dx / 3) + x0)
        kv = int(dy / 2 * m + y0)
        if self.snap_scale > 0:
            hu, hv = self._hex_point(u, v)
            if abs(u - hu) + abs(v - hv) <= abs(u - ku) + abs(v - kv):
                return hu, hv
        return ku, kv

    # -- rules-engine helpers --------------------------------------------

    def raw_index_of(self, label: str) -> tuple[int, int]:
        """The raw (column, row) of the hex VASSAL names ``label`` — the exact
        inverse of :meth:`location_name` (not of ``getLocation``, which does
        not round-trip for some grids, §5.6 quirk 2).  The label is split
        into column and row greedily as VASSAL does (§5.6 quirk 7); raises
        :class:`LocationError` if it does not parse or if the greedy split
        names a different hex."""
        if self.numbering is None:
            raise LocationError(f"cannot locate {label!r}: the hex grid has no numbering")
        column, row = self.numbering.parse_name(label)
        raw_col = column if self._col_flip is None else self._col_flip - column
        if raw_col % 2 != 0:
            row -= self._stagger_delta
        raw_row = row if self._row_flip is None else self._row_flip - row
        if self.name_of_raw(raw_col, raw_row) != label:
            raise LocationError(
                f"{label!r} does not split uniquely into column and row "
                "(greedy parse, docs/vassal-format.md §5.6 quirk 7)")
        return raw_col, raw_row

    def raw_center(self, raw_col: int, raw_row: int) -> Point:
        """Board-local centre of a raw hex, as snapping computes it."""
        u, v = self._raw_center(raw_col, raw_row)
        return (v, u) if self.sideways else (u, v)

    def neighbours(self, label: str, within: tuple[int, int] | None = None
                   ) -> list[str]:
        """The labels of the 6 hexes adjacent to ``label`` by the naming
        (raw offset neighbours, odd raw columns shifted half a hex along v),
        clockwise from the one at lower raw row in the same column.  With
        ``within=(width, height)`` only neighbours whose centre lies on such
        a board are returned."""
        col, row = self.raw_index_of(label)
        offsets = _NEIGHBOURS_ODD if col % 2 != 0 else _NEIGHBOURS_EVEN
        out = []
        for a, b in offsets:
            if within is not None:
                x, y = self.raw_center(col + a, row + b)
                if not (0 <= x < within[0] and 0 <= y < within[1]):
                    continue
            out.append(self.name_of_raw(col + a, row + b))
        return out

    def distance(self, label_a: str, label_b: str) -> int:
        """Distance in hexes between two named hexes (raw offset indices →
        cube coordinates, odd columns shifted, as VASSAL's ``range``)."""
        ca, ra = self.raw_index_of(label_a)
        cb, rb = self.raw_index_of(label_b)
        return self.raw_distance(ca, ra, cb, rb)

    @staticmethod
    def raw_distance(ca: int, ra: int, cb: int, rb: int) -> int:
        """Distance in hexes between two raw (column, row) indices."""
        za = ra - (ca - (ca & 1)) // 2
        zb = rb - (cb - (cb & 1)) // 2
        dq, dz = ca - cb, za - zb
        return max(abs(dq), abs(dz), abs(dq + dz))

    def hex_centres(self, width: int | None = None, height: int | None = None
                    ) -> Iterator[tuple[str, Point]]:
        """Yield (label, centre) for every hex whose snapped centre lies on a
        board of the given size (default: the container size), column by
        column.  Nothing is yielded for a grid without numbering.  A board
        with more than :data:`MAX_HEX_POSITIONS` hex positions raises
        :class:`FormatError` before anything is yielded."""
        if self.numbering is None:
            return
        if width is None or height is None:
            width, height = self.container_size
        u_size, v_size = (height, width) if self.sideways else (width, height)
        dx, dy = abs(self.dx), abs(self.dy)
        c_lo = _floor((0 - self.x0) / dx) - 2
        c_hi = math.ceil((u_size - self.x0) / dx) + 2
        r_lo = _floor((0 - self.y0) / dy) - 2
        r_hi = math.ceil((v_size - self.y0) / dy) + 2
        if self.dx < 0:
            c_lo, c_hi = -c_hi, -c_lo
        if self.dy < 0:
            r_lo, r_hi = -r_hi, -r_lo
        positions = (c_hi - c_lo + 1) * (r_hi - r_lo + 1)
        if positions > MAX_HEX_POSITIONS:
            # (a board's hexes are listed whole or not at all: a hostile grid
            # of 0.001 px hexes would otherwise take hours and gigabytes)
            raise FormatError(
                f"HexGrid dx={java_double(self.dx)} dy={java_double(self.dy)} on a {width}x{height} board "
                f"has {positions:,} hex positions; vmodtool lists at most {MAX_HEX_POSITIONS:,} "
                "(a board of 1,000 x 1,000 hexes)")
        for col in range(c_lo, c_hi + 1):
            for row in range(r_lo, r_hi + 1):
                u, v = self._raw_center(col, row)
                if 0 <= u < u_size and 0 <= v < v_size:
                    x, y = (v, u) if self.sideways else (u, v)
                    name = self.location_name(x, y)
                    if name is not None:
                        yield name, (x, y)


def _jbool(value: bool) -> str:
    return "true" if value else "false"


def _round_f(value: float) -> int:
    """``Math.round(float)``; exact because a float plus 0.5 fits a double."""
    return _floor(value + 0.5)


def _area_contains(hexagon: _Hexagon, x: int, y: int) -> bool:
    """``Area.contains(x, y)`` for a hexagon built by :meth:`HexGrid._hexagon`."""
    min_x, max_x, min_y, max_y, edges = hexagon
    if not (min_x <= x < max_x and min_y <= y < max_y):
        return False
    crossings = 0
    for y_top, y_bottom, x_top, x_bottom, x_min, x_max in edges:
        if y_top <= y < y_bottom and x < x_max:
            if x < x_min:
                crossings += 1
            else:
                edge_x: float
                if x_top == x_bottom or y <= y_top:
                    edge_x = x_top
                else:
                    edge_x = x_top + (y - y_top) * (x_bottom - x_top) / (y_bottom - y_top)
                if x < edge_x:
                    crossings += 1
    return (crossings & 1) == 1


def _scaled_delta(delta: int, spacing: float, scale: int) -> int:
    """The snapscale step of ``hexPoint`` for one axis."""
    step = java_round(delta / (0.5 * spacing / scale))
    step = max(step, 1 - scale)
    step = min(step, scale - 1)
    return java_round(step * 0.5 * spacing / scale)


def _check_center(center: Point, target: Point) -> Point:
    """``checkCenter``: keep the centre when the target is within √2 px."""
    if (center[0] - target[0]) ** 2 + (center[1] - target[1]) ** 2 <= 2:
        return center
    return target
