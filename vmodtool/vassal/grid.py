"""Grid geometry and numbering of VASSAL boards, exact to VASSAL 3.7.26.

This is the public face of ``grid_common``, ``grid_numbering``, ``grid_hex``,
``grid_square``, ``grid_zoned`` and ``grid_board`` (``docs/vassal-format.md``
§2.4.4–§2.4.7 and §5).  Pure Python, no game knowledge.

Frames:

* **map point** — pixels on a map window at 100 % zoom, edges included;
  :class:`MapGeometry` turns it into a board and a board-local point;
* **board-local point** — pixels from the board's top-left (un-reversed);
  every grid method (:meth:`MapGrid.location_name`, ``snap_to``,
  ``get_location``) works in this frame.

Typical use::

    grid = HexGrid.from_attributes(grid_attrs, numbering_attrs, (1000, 800))
    grid.location_name(280, 180)        # '0503'
    grid.get_location('0503')           # (261, 178)
    grid.snap_to(270, 170)              # nearest legal point
    grid.distance('0503', '0706')       # hexes

    board = board_from_element(board_el, image_width, image_height)
    geometry = MapGeometry([BoardPlacement(board, 0, 0)], edge_width=20)
    geometry.location_name(300, 200)    # name, or OFFBOARD

Errors: malformed numeric attributes raise :class:`~vmodtool.errors.FormatError`
(VASSAL's Builder reports "failed to load class" and leaves the component
out, or aborts loading for an empty numbering character); names VASSAL cannot locate raise
:class:`LocationError` (VASSAL's ``BadCoords``).
"""

from __future__ import annotations

from vmodtool.vassal.grid_board import (
    OFFBOARD,
    Board,
    BoardPlacement,
    MapGeometry,
    board_from_element,
    grid_from_element,
)
from vmodtool.vassal.grid_common import JavaPolygon, LocationError, MapGrid, Point
from vmodtool.vassal.grid_hex import DEFAULT_HEX_HEIGHT, DEFAULT_HEX_WIDTH, HexGrid
from vmodtool.vassal.grid_numbering import (
    HexGridNumbering,
    RegularGridNumbering,
    SquareGridNumbering,
    format_index,
)
from vmodtool.vassal.grid_square import Region, RegionGrid, SquareGrid
from vmodtool.vassal.grid_zoned import Zone, ZonedGrid

__all__ = [
    "OFFBOARD",
    "Board",
    "BoardPlacement",
    "MapGeometry",
    "board_from_element",
    "grid_from_element",
    "JavaPolygon",
    "LocationError",
    "MapGrid",
    "Point",
    "DEFAULT_HEX_HEIGHT",
    "DEFAULT_HEX_WIDTH",
    "HexGrid",
    "HexGridNumbering",
    "RegularGridNumbering",
    "SquareGridNumbering",
    "format_index",
    "Region",
    "RegionGrid",
    "SquareGrid",
    "Zone",
    "ZonedGrid",
]
