"""Boards placed on a map, and grids built from buildFile elements
(``docs/vassal-format.md`` §2.4.4, §5.1).

Map frame → board frame: a board sits at its (column, row) slot; its
top-left is ``edge + Σ widths of the boards left of it in its row`` and
``edge + Σ heights of the boards above it in its column``; a reversed board
is turned 180° (local = size − offset).  ``Map.locationName`` reports
:data:`OFFBOARD` where no board, no grid or no numbering names a point.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from vmodtool.vassal.grid_common import LocationError, MapGrid, Point, parse_int_attribute
from vmodtool.vassal.grid_hex import HexGrid
from vmodtool.vassal.grid_square import Region, RegionGrid, SquareGrid
from vmodtool.vassal.grid_zoned import Zone, ZonedGrid

if TYPE_CHECKING:
    from lxml import etree

__all__ = ["OFFBOARD", "Board", "BoardPlacement", "MapGeometry",
           "grid_from_element", "board_from_element", "GRID_TAGS"]

#: What VASSAL's ``Map.locationName`` reports for a point no board names
#: (the English ``Map.offboard`` resource string).
OFFBOARD = "offboard"

_PKG = "VASSAL.build.module.map.boardPicker.board."
HEX_GRID_TAG = _PKG + "HexGrid"
SQUARE_GRID_TAG = _PKG + "SquareGrid"
REGION_GRID_TAG = _PKG + "RegionGrid"
ZONED_GRID_TAG = _PKG + "ZonedGrid"
REGION_TAG = _PKG + "Region"
ZONE_TAG = _PKG + "mapgrid.Zone"
HEX_NUMBERING_TAG = _PKG + "mapgrid.HexGridNumbering"
SQUARE_NUMBERING_TAG = _PKG + "mapgrid.SquareGridNumbering"
#: element tags that are grids
GRID_TAGS = frozenset({HEX_GRID_TAG, SQUARE_GRID_TAG, REGION_GRID_TAG, ZONED_GRID_TAG})


class Board:
    """A board: name, pixel size, grid (or ``None``) and whether it is shown
    reversed (rotated 180°)."""

    def __init__(self, name: str, width: int, height: int,
                 grid: MapGrid | None = None, *, reversed: bool = False,
                 reversible: bool = False) -> None:
        self.name = name
        self.width = int(width)
        self.height = int(height)
        self.grid = grid
        self.reversed = bool(reversed)
        self.reversible = bool(reversible)

    def local_point(self, x: int, y: int) -> Point:
        """``Board.localCoordinates``: un-reverse a board-relative point."""
        if self.reversed:
            return (self.width - x, self.height - y)
        return (x, y)

    def global_point(self, x: int, y: int) -> Point:
        """``Board.globalCoordinates``: the inverse of :meth:`local_point`."""
        if self.reversed:
            return (self.width - x, self.height - y)
        return (x, y)

    def location_name(self, x: int, y: int) -> str | None:
        """``Board.locationName`` of a board-relative point (``None`` without
        a grid, or where the grid names nothing)."""
        if self.grid is None:
            return None
        return self.grid.location_name(*self.local_point(x, y))

    def snap_to(self, x: int, y: int, force: bool = False,
                center_only: bool = False) -> Point:
        """``Board.snapTo`` of a board-relative point."""
        if self.grid is None:
            return (x, y)
        return self.global_point(*self.grid.snap_to(*self.local_point(x, y), force,
                                                    center_only))

    def get_location(self, name: str) -> Point:
        """The grid's ``getLocation(name)`` (board-local, un-reversed);
        raises :class:`LocationError`."""
        if self.grid is None:
            raise LocationError(f"board {self.name!r} has no grid to locate {name!r}")
        return self.grid.get_location(name)

    def __repr__(self) -> str:
        return f"Board({self.name!r}, {self.width}x{self.height})"


class BoardPlacement:
    """A board in use on a map: its slot (column, row) and its top-left map
    point (``origin``), filled in by :class:`MapGeometry`."""

    __slots__ = ("board", "column", "row", "origin")

    def __init__(self, board: Board, column: int = 0, row: int = 0) -> None:
        self.board = board
        self.column = int(column)
        self.row = int(row)
        self.origin: Point = (0, 0)

    def contains(self, x: int, y: int) -> bool:
        """Whether a map point lies on the board (right/bottom edges excluded)."""
        ox, oy = self.origin
        return ox <= x < ox + self.board.width and oy <= y < oy + self.board.height

    def __repr__(self) -> str:
        return f"BoardPlacement({self.board.name!r}, {self.column}, {self.row}, origin={self.origin})"


class MapGeometry:
    """The boards of one map and the edge around them (§5.1).

    ``placements`` are in the map's board order (the order of the SetBoards
    command / ``<setup>``); the first board containing a point wins.
    """

    def __init__(self, placements: Iterable[BoardPlacement], edge_width: int = 0,
                 edge_height: int = 0) -> None:
        self.placements: list[BoardPlacement] = list(placements)
        self.edge_width = int(edge_width)
        self.edge_height = int(edge_height)
        self._layout()

    @classmethod
    def single(cls, board: Board, edge_width: int = 0, edge_height: int = 0) -> MapGeometry:
        """A map with one board at slot (0, 0)."""
        return cls([BoardPlacement(board)], edge_width, edge_height)

    def _layout(self) -> None:
        widths: dict[tuple[int, int], int] = {}
        heights: dict[tuple[int, int], int] = {}
        for placement in self.placements:
            key = (placement.column, placement.row)
            widths[key] = placement.board.width
            heights[key] = placement.board.height
        for placement in self.placements:
            col, row = placement.column, placement.row
            # (over the placements, not the slots before this one: a slot comes
            # from a save's board setup, as large as a damaged one holds)
            ox = sum(w for (c, r), w in widths.items() if r == row and 0 <= c < col)
            oy = sum(h for (c, r), h in heights.items() if c == col and 0 <= r < row)
            placement.origin = (ox + self.edge_width, oy + self.edge_height)

    def placement_of(self, board_name: str) -> BoardPlacement:
        """The first placement of the board with this name (KeyError if none)."""
        for placement in self.placements:
            if placement.board.name == board_name:
                return placement
        raise KeyError(board_name)

    def board_at(self, x: int, y: int) -> BoardPlacement | None:
        """``Map.findBoard``: the first board whose rectangle holds the map point."""
        for placement in self.placements:
            if placement.contains(x, y):
                return placement
        return None

    def to_board(self, x: int, y: int) -> tuple[BoardPlacement, Point] | None:
        """Map point → (placement, board-local point), un-reversed; ``None``
        off all boards."""
        placement = self.board_at(x, y)
        if placement is None:
            return None
        ox, oy = placement.origin
        return placement, placement.board.local_point(x - ox, y - oy)

    def to_map(self, board_name: str, x: int, y: int) -> Point:
        """Board-local (un-reversed) point → map point."""
        placement = self.placement_of(board_name)
        gx, gy = placement.board.global_point(x, y)
        return (gx + placement.origin[0], gy + placement.origin[1])

    def location_name(self, x: int, y: int) -> str:
        """``Map.locationName`` of a map point: the board grid's name, or
        :data:`OFFBOARD` off all boards, on a board without a grid, on a
        grid without numbering, or where the grid names nothing.  Deck names
        (which VASSAL checks first) are not modelled here."""
        placement = self.board_at(x, y)
        if placement is None:
            return OFFBOARD
        ox, oy = placement.origin
        name = placement.board.location_name(x - ox, y - oy)
        return OFFBOARD if name is None else name

    def snap_to(self, x: int, y: int, force: bool = False,
                center_only: bool = False) -> Point:
        """``Map.snapTo(p, force, onlyCenter)``: snap on the board under the
        point; if that lands on another board snap again there; a result one
        pixel off the board's right/bottom/left/top edge is moved back.
        (VASSAL's two-argument ``Map.snapTo(p, force)`` passes
        ``onlyCenter=true``.)"""
        placement = self.board_at(x, y)
        if placement is None:
            return (x, y)
        ox, oy = placement.origin
        sx, sy = placement.board.snap_to(x - ox, y - oy, force, center_only)
        sx, sy = sx + ox, sy + oy
        landed = self.board_at(sx, sy)
        if landed is not None and landed is not placement:
            lx, ly = landed.origin
            sx, sy = landed.board.snap_to(sx - lx, sy - ly, force, center_only)
            sx, sy = sx + lx, sy + ly
        if self.board_at(sx, sy) is None:
            width, height = placement.board.width, placement.board.height
            rx, ry = sx - ox, sy - oy
            if rx == width:
                rx = width - 1
            elif rx == -1:
                rx = 0
            if ry == height:
                ry = height - 1
            elif ry == -1:
                ry = 0
            sx, sy = rx + ox, ry + oy
        return (sx, sy)

    def point_of(self, board_name: str, location: str) -> Point:
        """Map point of a location name on a board, as a SetupStack with
        ``useGridLocation`` computes it: the grid's ``getLocation`` plus the
        board's top-left (no snapping, no reversal).  Raises
        :class:`LocationError`."""
        placement = self.placement_of(board_name)
        x, y = placement.board.get_location(location)
        return (x + placement.origin[0], y + placement.origin[1])


# --------------------------------------------------------------------------
# building from lxml elements

def _children(element: etree._Element) -> list[etree._Element]:
    return [child for child in element if isinstance(child.tag, str)]


def _numbering_attributes(element: etree._Element, tag: str) -> dict[str, str] | None:
    found = None
    for child in _children(element):
        if child.tag == tag:
            found = dict(child.attrib)  # each addTo replaces the previous one
    return found


def grid_from_element(element: etree._Element, container_size: tuple[int, int]) -> MapGrid | None:
    """Build a grid from a buildFile element whose tag is one of VASSAL's grid
    classes (:data:`GRID_TAGS`); ``None`` for any other tag.

    ``container_size`` is the size of what holds the grid: the board for a
    board's grid, the zone's bounding box for a zone's grid (handled here
    for zones inside a ZonedGrid).  Malformed numbers raise
    :class:`~vmodtool.errors.FormatError`.
    """
    tag = element.tag
    if tag == HEX_GRID_TAG:
        return HexGrid.from_attributes(dict(element.attrib),
                                       _numbering_attributes(element, HEX_NUMBERING_TAG),
                                       container_size)
    if tag == SQUARE_GRID_TAG:
        return SquareGrid.from_attributes(dict(element.attrib),
                                          _numbering_attributes(element, SQUARE_NUMBERING_TAG),
                                          container_size)
    if tag == REGION_GRID_TAG:
        regions = [Region.from_attributes(dict(child.attrib))
                   for child in _children(element) if child.tag == REGION_TAG]
        return RegionGrid.from_attributes(dict(element.attrib), regions)
    if tag == ZONED_GRID_TAG:
        zoned = ZonedGrid()
        for child in _children(element):
            if child.tag == ZONE_TAG:
                zone = Zone.from_attributes(dict(child.attrib))
                for grandchild in _children(child):
                    if grandchild.tag in GRID_TAGS and grandchild.tag != ZONED_GRID_TAG:
                        zone.own_grid = grid_from_element(grandchild, zone.container_size)
                zoned.add_zone(zone)
            elif child.tag in GRID_TAGS and child.tag != ZONED_GRID_TAG:
                zoned.background = grid_from_element(child, container_size)
        return zoned
    return None


def board_from_element(board_element: etree._Element, width: int | None = None,
                       height: int | None = None) -> Board:
    """Build a :class:`Board` from a ``…boardPicker.Board`` element.

    Pass the board image's pixel size as ``width``/``height`` when the board
    has an image (VASSAL then ignores the attributes); without them the
    ``width``/``height`` attributes (default 500) are used.
    """
    attrs = dict(board_element.attrib)
    if width is None:
        width = parse_int_attribute("Board", "width", attrs["width"]) if "width" in attrs else 500
    if height is None:
        height = parse_int_attribute("Board", "height", attrs["height"]) if "height" in attrs else 500
    grid = None
    for child in _children(board_element):
        if child.tag in GRID_TAGS:
            grid = grid_from_element(child, (width, height))
    reversible = attrs.get("reversible", "false").lower() == "true"
    return Board(attrs.get("name", ""), width, height, grid, reversible=reversible)

