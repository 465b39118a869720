"""A scenario map taken from a module (``map.from_module``): the module's own
board and hex grid, so the scenario's hexes are the labels VASSAL shows —
or, on a board of ``RegionGrid`` regions and gridless zones without a hex
grid, an area map whose spaces are the names VASSAL gives
(:func:`~vmodtool.scenario.locations.spaces_of_board`)
(``docs/scenario-format.md``, "Games played with any module";
``docs/vassal-format.md`` §5.1).

The board's location names are asked of the board as VASSAL builds it
(zones first, then the background grid), at the centre of every hex of its
hex grid: a hex is a scenario hex when the board names it by that hex
grid's own label.  A hex inside a zone that names it otherwise (a zone
called "Beach" over five hexes) is a location but not a hex; such names are
kept in :attr:`ModuleMap.zones`.

Which hex grid is the map's: the board's own ``HexGrid``; else the
background ``HexGrid`` of its ``ZonedGrid``; else the own ``HexGrid`` (with
numbering) of a zone — Ragnarok's board has no background grid, its hexes
are the grid of a zone "map".  A zone's grid uses board coordinates (its
zone polygon's bounding box is only its container size for descending
numbering, ``docs/vassal-format.md`` §5.1), so its centres are board points
as they are.  With several zones with hex grids, the zone whose grid names
the most hexes (the first in document order on a tie) gives the map grid,
from which neighbours and distances come; a hex of another zone's grid is a
map hex too when the map grid gives its centre the same label and raw hex
(a module that repeats one grid in several zones), else its name is one of
the :attr:`ModuleMap.zones`.  The first hex of a label wins.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from vmodtool.errors import FormatError, VmodError
from vmodtool.scenario.locations import AreaMap, Space, area_map, spaces_of_board
from vmodtool.scenario.mapgrid import MapGrid
from vmodtool.vassal.grid import Board, HexGrid, ZonedGrid, board_from_element
from vmodtool.vassal.grid_common import Point

if TYPE_CHECKING:   # the buildFile's entries come from the caller: loading a scenario imports no XML parser
    from vmodtool.vassal.buildfile import BoardEntry, MapEntry

__all__ = ["ModuleMap", "ModuleMapError", "module_map_grid", "find_map", "board_hex_grids"]


class ModuleMapError(ValueError):
    """Why a module map cannot be the scenario's map (one line)."""


@dataclass
class ModuleMap:
    """The scenario map read from a module: which map and board, its size,
    the grid (``MapGrid`` with the module's HexGrid) and the other location
    names the board gives (zones)."""

    map_name: str
    board_name: str
    size: tuple[int, int]
    grid: MapGrid
    zones: list[str] = field(default_factory=list)
    #: an area map (a board of regions and zones, no hex grid): its spaces
    areas: AreaMap | None = None


def find_map(maps: list[MapEntry], name: str) -> MapEntry:
    for entry in maps:
        if entry.name == name:
            return entry
    listed = ", ".join(repr(m.name) for m in maps[:12]) or "none"
    raise ModuleMapError(f"the module has no map {name!r} (its maps: {listed})")


def board_hex_grids(board: Board) -> list[HexGrid]:
    """The board's candidate map grids, in document order (see the module
    docstring): its HexGrid, a ZonedGrid's background HexGrid, else the
    zones' own HexGrids."""
    grid = board.grid
    if isinstance(grid, HexGrid):
        return [grid]
    if not isinstance(grid, ZonedGrid):
        return []
    if isinstance(grid.background, HexGrid):
        return [grid.background]
    return [zone.own_grid for zone in grid.zones
            if not zone.use_parent_grid and isinstance(zone.own_grid, HexGrid)]


def _named_hexes(board: Board, grid: HexGrid, zones: set[str]) -> dict[str, Point]:
    """label → centre of every hex of ``grid`` that the board names by its
    label (the first centre of a label wins); other names met go to ``zones``."""
    found: dict[str, Point] = {}
    for label, (x, y) in grid.hex_centres(board.width, board.height):
        shown = board.location_name(x, y)
        if shown != label:
            if shown:
                zones.add(shown)
            continue
        found.setdefault(label, (x, y))
    return found


def _area_spaces(entry: MapEntry, chosen: BoardEntry, board: Board) -> dict[str, Space]:
    """The spaces of an area map: the chosen board's, then the names only
    the window's other boards give (a save may show any of its boards: the
    Classic and the Deluxe map of Paths of Glory name a few boxes apart)."""
    spaces = spaces_of_board(board)
    if not spaces:
        return spaces
    for other in entry.boards:
        if other is chosen or other.grid_kind not in ("RegionGrid", "ZonedGrid"):
            continue
        try:
            extra = spaces_of_board(board_from_element(other.element))
        except VmodError:
            continue
        for name, space in extra.items():
            spaces.setdefault(name, space)
    return spaces


def _unknown_size(name: str, size_unknown: Callable[[str], str | None] | None) -> ModuleMapError:
    why = (size_unknown(name) if size_unknown is not None else None) or "the module has no image for it"
    return ModuleMapError(f"the size of board {name!r} is unknown ({why}): give it as "
                          f"module.board_sizes: {{{name!r}: [WIDTH, HEIGHT]}} or with --board-size")


def module_map_grid(entry: MapEntry, board_name: str | None, sizes: dict[str, tuple[int, int]],
                    size_unknown: Callable[[str], str | None] | None = None) -> ModuleMap:
    """The scenario map of module map ``entry`` (its board ``board_name``,
    default its only or first board); ``sizes`` are the boards' pixel sizes
    (:meth:`~vmodtool.vassal.module.Module.board_sizes`), ``size_unknown``
    why a board's is not (:meth:`~vmodtool.vassal.module.Module.board_size_unknown`)."""
    if not entry.boards:
        raise ModuleMapError(f"map {entry.name!r} of the module has no board")
    chosen: BoardEntry | None = None
    if board_name is None:
        chosen = entry.boards[0]
    else:
        chosen = next((b for b in entry.boards if b.name == board_name), None)
        if chosen is None:
            listed = ", ".join(repr(b.name) for b in entry.boards[:12])
            raise ModuleMapError(f"map {entry.name!r} of the module has no board {board_name!r} (its boards: {listed})")
    size = sizes.get(chosen.name)
    if size is None and chosen.grid_kind in ("RegionGrid", "ZonedGrid"):
        # an area map's spaces need no board size (a region or zone names
        # its own points); where pieces are does, and the replay says so
        areas = _area_spaces(entry, chosen, board_from_element(chosen.element))
        if areas and not board_hex_grids(board_from_element(chosen.element)):
            return ModuleMap(entry.name, chosen.name, (0, 0), MapGrid(None, {}, {}, (0, 0), HexGrid()), [],
                             area_map(areas.values()))
    if size is None:
        raise _unknown_size(chosen.name, size_unknown)
    try:
        board = board_from_element(chosen.element, size[0], size[1])
    except VmodError as exc:
        raise ModuleMapError(f"board {chosen.name!r} of map {entry.name!r}: {exc.message}") from None
    candidates = board_hex_grids(board)
    if not candidates:
        spaces = _area_spaces(entry, chosen, board)
        if spaces:
            # an area map: its locations are the spaces VASSAL names (issue 42)
            return ModuleMap(entry.name, chosen.name, size, MapGrid(None, {}, {}, size, HexGrid()), [],
                             area_map(spaces.values()))
        kind = chosen.grid_kind or "no grid"
        raise ModuleMapError(f"board {chosen.name!r} of map {entry.name!r} has {kind}, not a hex grid "
                             "(a scenario map is a hex map; name a map with a hex grid)")
    if all(g.numbering is None for g in candidates):
        raise ModuleMapError(f"the hex grid of board {chosen.name!r} has no numbering: its hexes have no labels")
    zones: set[str] = set()
    try:
        named = [_named_hexes(board, g, zones) for g in candidates]
    except FormatError as exc:            # (a grid of more hexes than vmodtool lists)
        raise ModuleMapError(f"board {chosen.name!r} of map {entry.name!r}: {exc.message}") from None
    best = max(range(len(candidates)), key=lambda i: (len(named[i]), -i))
    hex_grid = candidates[best]
    result = MapGrid(None, dict(hex_grid.attribute_strings()), {}, size, hex_grid)
    for index in [best] + [i for i in range(len(candidates)) if i != best]:
        for label, (x, y) in named[index].items():
            if label in result.hexes:
                continue
            cell = hex_grid.raw_column_row(x, y)
            if index != best and (hex_grid.location_name(x, y) != label
                                  or candidates[index].raw_column_row(x, y) != cell):
                zones.add(label)  # another grid's hex: a location, not a hex of the map grid
                continue
            result.hexes[label] = cell
            result.centres[label] = (x, y)
    zones.difference_update(result.hexes)
    if not result.hexes:
        raise ModuleMapError(f"the hex grid of board {chosen.name!r} names no hex on a {size[0]}×{size[1]} board")
    return ModuleMap(entry.name, chosen.name, size, result, sorted(zones))
