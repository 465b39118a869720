"""A scenario map taken from a module (``map.from_module``): the module's own
board and hex grid, so the scenario's hexes are the labels VASSAL shows
(``docs/scenario-format.md``, "Games played with any module";
``docs/vassal-format.md`` §5.1).

The board's location names are asked of the board as VASSAL builds it
(zones first, then the background grid), at the centre of every hex of its
hex grid: a hex is a scenario hex when the board names it by that hex
grid's own label.  A hex inside a zone that names it otherwise (a zone
called "Beach" over five hexes) is a location but not a hex; such names are
kept in :attr:`ModuleMap.zones`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from vmodtool.errors import VmodError
from vmodtool.scenario.mapgrid import MapGrid
from vmodtool.vassal.buildfile import BoardEntry, MapEntry
from vmodtool.vassal.grid import Board, HexGrid, ZonedGrid, board_from_element

__all__ = ["ModuleMap", "ModuleMapError", "module_map_grid", "find_map"]


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


def find_map(maps: list[MapEntry], name: str) -> MapEntry:
    for entry in maps:
        if entry.name == name:
            return entry
    listed = ", ".join(repr(m.name) for m in maps[:12]) or "none"
    raise ModuleMapError(f"the module has no map {name!r} (its maps: {listed})")


def _hex_grid_of(board: Board) -> HexGrid | None:
    grid = board.grid
    if isinstance(grid, HexGrid):
        return grid
    if isinstance(grid, ZonedGrid) and isinstance(grid.background, HexGrid):
        return grid.background
    return None


def module_map_grid(entry: MapEntry, board_name: str | None, sizes: dict[str, tuple[int, int]]) -> ModuleMap:
    """The scenario map of module map ``entry`` (its board ``board_name``,
    default its only or first board); ``sizes`` are the boards' pixel sizes
    (:meth:`~vmodtool.vassal.module.Module.board_sizes`)."""
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
    if size is None:
        raise ModuleMapError(
            f"the size of board {chosen.name!r} is unknown (the module has no image for it): give it as "
            f"module.board_sizes: {{{chosen.name!r}: [WIDTH, HEIGHT]}} or with --board-size")
    try:
        board = board_from_element(chosen.element, size[0], size[1])
    except VmodError as exc:
        raise ModuleMapError(f"board {chosen.name!r} of map {entry.name!r}: {exc.message}") from None
    hex_grid = _hex_grid_of(board)
    if hex_grid is None:
        kind = chosen.grid_kind or "no grid"
        raise ModuleMapError(f"board {chosen.name!r} of map {entry.name!r} has {kind}, not a hex grid "
                             "(a scenario map is a hex map; name a map with a hex grid)")
    if hex_grid.numbering is None:
        raise ModuleMapError(f"the hex grid of board {chosen.name!r} has no numbering: its hexes have no labels")
    result = MapGrid(None, dict(hex_grid.attribute_strings()), {}, size, hex_grid)
    zones: set[str] = set()
    for label, (x, y) in hex_grid.hex_centres(size[0], size[1]):
        shown = board.location_name(x, y)
        if shown != label:
            if shown:
                zones.add(shown)
            continue
        if label in result.hexes:
            continue
        result.hexes[label] = hex_grid.raw_column_row(x, y)
        result.centres[label] = (x, y)
    if not result.hexes:
        raise ModuleMapError(f"the hex grid of board {chosen.name!r} names no hex on a {size[0]}×{size[1]} board")
    return ModuleMap(entry.name, chosen.name, size, result, sorted(zones))
