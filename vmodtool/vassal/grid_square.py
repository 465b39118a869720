"""VASSAL's ``SquareGrid`` (+ ``SquareGridNumbering``) and ``RegionGrid``
(``docs/vassal-format.md`` §2.4.7), exact to VASSAL 3.7.26.

All points are board-local integer pixels.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Mapping, Sequence

from vmodtool.vassal.grid_common import (
    LatticeGrid,
    LocationError,
    MapGrid,
    Point,
    check_cell_size,
    color_to_string,
    java_round,
    parse_double_attribute,
    parse_int_attribute,
)
from vmodtool.vassal.grid_numbering import SquareGridNumbering
from vmodtool.vassal.sequence import java_double

__all__ = ["SquareGrid", "RegionGrid", "Region"]

_floor = math.floor


def _jbool(value: bool) -> str:
    return "true" if value else "false"


class SquareGrid(LatticeGrid):
    """A rectangular grid.

    Defaults as VASSAL: ``dx = dy = 48.0``, origin (24, 24), range
    ``Metric``, ``snapTo`` on.  ``container_size`` is the board (or zone
    bounding box) size used by descending numbering.

    Quirks copied on purpose: the row of a point is truncated toward zero
    (``(int)(… + 0.5)``) while the column is floored, and
    maxRows/maxColumns truncate as well.
    """

    COMPONENT = "SquareGrid"
    ATTRIBUTE_NAMES = ("x0", "y0", "dx", "dy", "range", "snapTo", "edgesLegal",
                       "cornersLegal", "visible", "dotsVisible", "color")

    def __init__(self, *, dx: float = 48.0, dy: float = 48.0, x0: int = 24, y0: int = 24,
                 range_option: str = "Metric", snap_to: bool = True,
                 edges_legal: bool = False, corners_legal: bool = False,
                 visible: bool = False, dots_visible: bool = False,
                 color: tuple[int, int, int, int] | None = (0, 0, 0, 255),
                 numbering: SquareGridNumbering | None = None,
                 container_size: tuple[int, int] = (0, 0)) -> None:
        self.dx = float(dx)
        self.dy = float(dy)
        self.x0 = int(x0)
        self.y0 = int(y0)
        self.range_option = range_option
        self.snap_enabled = bool(snap_to)
        self.edges_legal = bool(edges_legal)
        self.corners_legal = bool(corners_legal)
        self.visible = bool(visible)
        self.dots_visible = bool(dots_visible)
        self.color = color
        #: not settable from XML in 3.7 (no attribute), kept for completeness
        self.snap_scale = 0
        self.numbering = numbering
        self.container_size = (int(container_size[0]), int(container_size[1]))
        self._prepare()

    @classmethod
    def from_attributes(cls, grid_attributes: Mapping[str, str] | None,
                        numbering_attributes: Mapping[str, str] | None = None,
                        container_size: tuple[int, int] = (0, 0)) -> SquareGrid:
        """Build from XML attributes (name order, VASSAL's ``setAttribute``);
        ``numbering_attributes`` ``None`` = no ``SquareGridNumbering``."""
        grid = cls(container_size=container_size)
        attrs = grid_attributes or {}
        for key in sorted(attrs):
            grid._apply_attribute(key, attrs[key])
        if numbering_attributes is not None:
            grid.numbering = SquareGridNumbering.from_attributes(numbering_attributes)
        grid._prepare()
        return grid

    def _apply_attribute(self, key: str, value: str) -> None:
        if self._apply_shared_attribute(key, value):
            return
        if key == "dy":
            self.dy = parse_double_attribute(self.COMPONENT, key, value)
        elif key == "range":
            self.range_option = value

    def _prepare(self) -> None:
        check_cell_size(self.COMPONENT, self.dx, self.dy)
        width, height = self.container_size
        self.max_rows = int(height / self.dy + 0.5)
        self.max_columns = int(width / self.dx + 0.5)

    def attribute_strings(self) -> dict[str, str]:
        """``getAttributeValueString`` of every attribute."""
        return {
            "x0": str(self.x0),
            "y0": str(self.y0),
            "dx": java_double(self.dx),
            "dy": java_double(self.dy),
            "range": self.range_option,
            "snapTo": _jbool(self.snap_enabled),
            "edgesLegal": _jbool(self.edges_legal),
            "cornersLegal": _jbool(self.corners_legal),
            "visible": _jbool(self.visible),
            "dotsVisible": _jbool(self.dots_visible),
            "color": color_to_string(self.color),
        }

    # -- naming ----------------------------------------------------------

    def logical_column_row(self, x: int, y: int) -> tuple[int, int]:
        """``SquareGridNumbering.getColumn/getRow`` of a point."""
        column = _floor((x - self.x0) / self.dx + 0.5)
        row = int((y - self.y0) / self.dy + 0.5)
        numbering = self.numbering
        if numbering is not None:
            if numbering.h_descend:
                column = self.max_columns - column
            if numbering.v_descend:
                row = self.max_rows - row
        return column, row

    def location_name(self, x: int, y: int) -> str | None:
        """The name of a point; ``None`` without numbering."""
        numbering = self.numbering
        if numbering is None:
            return None
        column, row = self.logical_column_row(x, y)
        return numbering.name_of(column, row)

    def center_point(self, column: int, row: int) -> Point:
        """``SquareGridNumbering.getCenterPoint`` of logical indices."""
        numbering = self.numbering
        if numbering is not None:
            if numbering.v_descend:
                row = self.max_rows - row
            if numbering.h_descend:
                column = self.max_columns - column
        return (int(column * self.dx + self.x0), int(row * self.dy + self.y0))

    def get_location(self, name: str) -> Point:
        """``SquareGrid.getLocation(name)``; raises :class:`LocationError`."""
        if self.numbering is None:
            raise LocationError(f"cannot locate {name!r}: the square grid has no numbering")
        column, row = self.numbering.parse_name(name)
        return self.center_point(column, row)

    # -- snapping --------------------------------------------------------

    def snap_to(self, x: int, y: int, force: bool = False,
                center_only: bool = False) -> Point:
        """``SquareGrid.snapTo(p, force, onlyCenter)``."""
        if not self.snap_enabled and not force:
            return (x, y)
        dx, dy = self.dx, self.dy
        offset_x = x - self.x0
        offset_y = y - self.y0
        nx = java_round(offset_x / (0.5 * dx))
        ny = java_round(offset_y / (0.5 * dy))
        if not self.corners_legal or not self.edges_legal:
            if self.corners_legal and not center_only:
                if ny % 2 == 0:
                    nx = 2 * java_round(offset_x / dx)
                else:
                    nx = 1 + 2 * java_round(offset_x / dx - 0.5)
            elif self.edges_legal and not center_only:
                if ny % 2 == 0:
                    if nx % 2 == 0:
                        nx = 2 * java_round(offset_x / dx)
                else:
                    nx = 2 * java_round(offset_x / dx)
            else:
                nx = 2 * java_round(offset_x / dx)
                ny = 2 * java_round(offset_y / dy)
                scale = self.snap_scale
                if scale > 0:
                    delta_x = offset_x - java_round(nx * dx / 2)
                    delta_x = java_round(delta_x / (0.5 * dx / scale))
                    delta_x = min(max(delta_x, 1 - scale), scale - 1)
                    delta_x = java_round(delta_x * 0.5 * dx / scale)
                    delta_y = offset_y - java_round(ny * dy / 2)
                    delta_y = java_round(delta_y / (0.5 * dy / scale))
                    delta_y = min(max(delta_y, 1 - scale), scale - 1)
                    delta_y = java_round(delta_y * 0.5 * dy / scale)
                    return (java_round(nx * dx / 2 + delta_x) + self.x0,
                            java_round(ny * dy / 2 + delta_y) + self.y0)
        return (self.x0 + java_round(nx * dx / 2), self.y0 + java_round(ny * dy / 2))

    def distance(self, x1: int, y1: int, x2: int, y2: int) -> int:
        """``SquareGrid.range(p1, p2)`` in cells (Metric: max of the axes,
        otherwise Manhattan)."""
        cols = abs(_floor((x2 - x1) / self.dx + 0.5))
        rows = abs(_floor((y2 - y1) / self.dy + 0.5))
        return max(cols, rows) if self.range_option == "Metric" else cols + rows


class Region:
    """A named point of a :class:`RegionGrid` (``name``, ``originx``, ``originy``)."""

    __slots__ = ("name", "x", "y")

    def __init__(self, name: str | None, x: int, y: int) -> None:
        self.name = name
        self.x = int(x)
        self.y = int(y)

    @classmethod
    def from_attributes(cls, attributes: Mapping[str, str]) -> Region:
        """Build from XML attributes; a malformed origin raises FormatError."""
        region = cls(None, 0, 0)
        for key in sorted(attributes):
            value = attributes[key]
            if key == "name":
                region.name = value
            elif key == "originx":
                region.x = parse_int_attribute("Region", key, value)
            elif key == "originy":
                region.y = parse_int_attribute("Region", key, value)
        return region

    def __repr__(self) -> str:
        return f"Region({self.name!r}, {self.x}, {self.y})"


_MASK32 = 0xFFFFFFFF
_MASK64 = 0xFFFFFFFFFFFFFFFF
_DOUBLE = struct.Struct("<d")
_LONG = struct.Struct("<Q")


def _java_point_hash(x: int, y: int) -> int:
    """``java.awt.Point.hashCode()`` (Point2D's) as an unsigned 32-bit int."""
    bx: int = _LONG.unpack(_DOUBLE.pack(float(x)))[0]
    by: int = _LONG.unpack(_DOUBLE.pack(float(y)))[0]
    bits = (bx ^ (by * 31)) & _MASK64
    return ((bits & _MASK32) ^ (bits >> 32)) & _MASK32


def _hashmap_order(keys: Sequence[Point]) -> list[Point]:
    """Iteration order of a ``java.util.HashMap`` filled with these distinct
    keys in this order (bucket by spread hash, insertion order within a
    bucket; treeified buckets are not modelled)."""
    capacity = 16
    while len(keys) > capacity * 3 // 4:
        capacity *= 2
    decorated = []
    for index, key in enumerate(keys):
        h = _java_point_hash(*key)
        h ^= h >> 16
        decorated.append((h & (capacity - 1), index, key))
    decorated.sort()
    return [key for _, _, key in decorated]


def _int32(value: int) -> int:
    value &= _MASK32
    return value - (1 << 32) if value >= 1 << 31 else value


class RegionGrid(MapGrid):
    """An irregular grid of named points.

    A point is named after the nearest region origin (ties go to the first
    in Java ``HashMap`` order, which is reproduced); regions sharing an
    origin keep the later region under the earlier key, as ``HashMap.put``
    does.  ``snapto`` (lower case, compared with ``"true"`` exactly) enables
    snapping to the nearest origin.
    """

    COMPONENT = "RegionGrid"

    def __init__(self, regions: Sequence[Region] = (), *, snap_to: bool = True,
                 visible: bool = False, font_size: int = 9) -> None:
        self.snap_enabled = bool(snap_to)
        self.visible = bool(visible)
        self.font_size = int(font_size)
        self.regions: list[Region] = list(regions)
        by_origin: dict[Point, Region] = {}
        for region in self.regions:
            by_origin[(region.x, region.y)] = region
        self._by_origin = by_origin
        self._origins = _hashmap_order(list(by_origin))
        self._values = [by_origin[p] for p in self._origins]
        xs = [p[0] for p in self._origins] or [0]
        ys = [p[1] for p in self._origins] or [0]
        #: the origins' bounding box: a point whose squared distance to its
        #: far corner fits in an int no distance wraps (see :meth:`_nearest`)
        self._box = (min(xs), min(ys), max(xs), max(ys))

    @classmethod
    def from_attributes(cls, attributes: Mapping[str, str] | None,
                        regions: Sequence[Region] = ()) -> RegionGrid:
        """Build from the RegionGrid XML attributes and its regions."""
        snap_to, visible, font_size = True, False, 9
        attrs = attributes or {}
        for key in sorted(attrs):
            value = attrs[key]
            if key == "visible":
                visible = value == "true"
            elif key == "snapto":
                snap_to = value == "true"
            elif key == "fontsize":
                font_size = parse_int_attribute(cls.COMPONENT, key, value)
        return cls(regions, snap_to=snap_to, visible=visible, font_size=font_size)

    def attribute_strings(self) -> dict[str, str]:
        """``getAttributeValueString`` of every attribute."""
        return {"snapto": _jbool(self.snap_enabled), "visible": _jbool(self.visible),
                "fontsize": str(self.font_size)}

    def _nearest(self, x: int, y: int) -> Point:
        x0, y0, x1, y1 = self._box
        dx, dy = max(abs(x - x0), abs(x - x1)), max(abs(y - y0), abs(y - y1))
        if self._origins and dx * dx + dy * dy < 1 << 31:
            # no distance wraps in 32 bits: an origin at the point is the
            # nearest (distance 0, origins are distinct), else the first of
            # the least distance in HashMap order, as the loop below finds
            if (x, y) in self._by_origin:
                return (x, y)
            return min(self._origins, key=lambda o: (x - o[0]) * (x - o[0]) + (y - o[1]) * (y - o[1]))
        best = None
        best_dist = math.inf
        for ox, oy in self._origins:
            dist = _int32((x - ox) * (x - ox) + (y - oy) * (y - oy))
            if dist < best_dist:
                best_dist = dist
                best = (ox, oy)
        return best if best is not None else (x, y)

    def location_name(self, x: int, y: int) -> str | None:
        """Name of the nearest region, ``None`` with no regions."""
        if not self._origins:
            return None
        region = self._by_origin.get(self._nearest(x, y))
        return region.name if region is not None else None

    def snap_to(self, x: int, y: int, force: bool = False,
                center_only: bool = False) -> Point:
        """The nearest region origin (unchanged when snapping is off)."""
        if (not self.snap_enabled and not force) or not self._origins:
            return (x, y)
        return self._nearest(x, y)

    def get_location(self, name: str) -> Point:
        """Origin of the first region (HashMap order) with this name."""
        for region in self._values:
            if region.name is not None and region.name == name:
                return (region.x, region.y)
        raise LocationError(f"no region named {name!r}")
