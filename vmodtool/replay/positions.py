"""Map pixels → location names through a module's own maps, boards and grids
(``docs/vassal-format.md`` §5.1), as VASSAL's ``Map.locationName`` does.

A :class:`Positions` knows each map of the module (its boards, edge margins
and whether it stacks), the board pixel sizes (from the images, or given by
the user) and the boards each map shows (the game's ``SetBoards``).  Without a
module it knows nothing: every location is ``None`` and positions stay pixels.
:meth:`Positions.from_maps` makes one from map geometries instead of a
module (the maps of the module ``vmodtool build`` makes of a scenario,
:mod:`vmodtool.scenario.geometry`): it answers as the module would.
"""

from __future__ import annotations

import os
from collections.abc import Hashable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Union

from vmodtool.errors import FormatError, VmodError
from vmodtool.fileio import parse_json
from vmodtool.replay.events import Place
from vmodtool.vassal.buildfile import BoardEntry
from vmodtool.vassal.grid import (
    OFFBOARD,
    Board,
    BoardPlacement,
    HexGrid,
    MapGeometry,
    ZonedGrid,
    board_from_element,
)

if TYPE_CHECKING:
    from vmodtool.vassal.module import Module

__all__ = ["Positions", "load_board_sizes", "OFFBOARD"]

PathLike = Union[str, "os.PathLike[str]"]
_STACK_METRICS = "VASSAL.build.module.map.StackMetrics"


def load_board_sizes(path: PathLike) -> dict[str, tuple[int, int]]:
    """Board sizes from a JSON file: the shape of the corpus
    ``board-sizes.json`` (``{"boards": {NAME: {"width": W, "height": H}}}``)
    or a plain ``{NAME: [W, H]}`` / ``{NAME: {"width": W, "height": H}}``."""
    try:
        data = parse_json(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise VmodError(f"cannot read board sizes: {exc}", file=path) from None
    boards = data.get("boards", data) if isinstance(data, dict) else None
    if not isinstance(boards, dict):
        raise VmodError("board sizes: expected a JSON object of board name → size", file=path)
    sizes: dict[str, tuple[int, int]] = {}
    for name, value in boards.items():
        try:
            if isinstance(value, dict):
                sizes[name] = (int(value["width"]), int(value["height"]))
            elif isinstance(value, (list, tuple)) and len(value) == 2:
                sizes[name] = (int(value[0]), int(value[1]))
            elif name == "note":
                continue
            else:
                raise ValueError(value)
        except (KeyError, TypeError, ValueError):
            raise VmodError(f"board sizes: size of board {name!r} is not width/height numbers",
                            file=path) from None
    return sizes


class _MapInfo:
    __slots__ = ("name", "boards", "edge", "stacking", "geometry", "board_names", "error")

    def __init__(self, name: str, boards: Mapping[str, BoardEntry | Board], edge: tuple[int, int],
                 stacking: bool) -> None:
        self.name = name
        #: board name -> BoardEntry (first of that name), or a sized Board
        #: (from map geometries)
        self.boards = boards
        self.edge = edge
        self.stacking = stacking
        self.geometry: MapGeometry | None = None
        self.board_names: list[tuple[str, bool, int, int]] | None = None
        self.error: str | None = None


class Positions:
    """Location names of map points for one module (or none)."""

    def __init__(self, module: Module | None = None,
                 board_sizes: dict[str, tuple[int, int]] | None = None
                 ) -> None:
        self.module = module
        self.sizes: dict[str, tuple[int, int]] = {}
        self.missing_sizes: list[str] = []
        #: problems already reported (a chain reports each one once)
        self.reported: set[Hashable] = set()
        self._maps: dict[str, _MapInfo] = {}
        self._cache: dict[tuple[str, int, int], tuple[str | None, tuple[int, int] | None]] = {}
        self._places: dict[tuple[str, int, int], Place] = {}
        self._has_maps = module is not None
        if module is None:
            return
        self.sizes, self.missing_sizes = module.board_sizes(board_sizes or {})
        for entry in module.buildfile.maps():
            if entry.name in self._maps:
                continue
            el = entry.element
            edge = (_int(el.get("edgeWidth")), _int(el.get("edgeHeight")))
            stacking = True
            for child in el:
                if isinstance(child.tag, str) and child.tag == _STACK_METRICS:
                    stacking = child.get("disabled", "false").lower() != "true"
            boards: dict[str, BoardEntry] = {}
            for board in entry.boards:
                boards.setdefault(board.name, board)
            self._maps[entry.name] = _MapInfo(entry.name, boards, edge, stacking)

    @classmethod
    def from_maps(cls, maps: Iterable[tuple[str, MapGeometry]],
                  stacking: Mapping[str, bool] | None = None,
                  alternatives: Mapping[str, Iterable[Board]] | None = None) -> Positions:
        """Positions read from map geometries instead of a module's
        buildFile: (map name, geometry) in the module's map order (the first
        of a name counts, as with a module), ``stacking`` map name → whether
        its pieces stack (default yes).  Each geometry is what its map shows
        until a ``SetBoards`` chooses among its boards (by name, reversed,
        slot) — its own or one of ``alternatives`` (map name → the other
        boards of its picker); every board has its size, so none is missing."""
        positions = cls()
        positions._has_maps = True
        for name, geometry in maps:
            if name in positions._maps:
                continue
            boards: dict[str, BoardEntry | Board] = {}
            for placement in geometry.placements:
                boards.setdefault(placement.board.name, placement.board)
            for board in (alternatives or {}).get(name, ()):
                boards.setdefault(board.name, board)
            info = _MapInfo(name, boards, (geometry.edge_width, geometry.edge_height),
                            (stacking or {}).get(name, True))
            info.geometry = geometry
            positions._maps[name] = info
        return positions

    # -- what the module has ---------------------------------------------
    @property
    def has_module(self) -> bool:
        """Whether the module's maps are known (from a module or from map
        geometries): a map outside them is then reported."""
        return self._has_maps

    def map_names(self) -> list[str]:
        return list(self._maps)

    def knows_map(self, name: str) -> bool:
        return name in self._maps

    def stacking(self, name: str) -> bool:
        info = self._maps.get(name)
        return info.stacking if info is not None else True

    # -- boards in use ---------------------------------------------------
    def set_boards(self, map_name: str, boards: list[tuple[str, bool, int, int]]) -> str | None:
        """Use these boards (name, reversed, column, row) on a map (the
        ``SetBoards`` command).  Returns a problem to report, or None."""
        info = self._maps.get(map_name)
        if info is None:
            return None
        if info.board_names == boards and info.geometry is not None:
            return None
        info.board_names = list(boards)
        info.geometry = None
        info.error = None
        self._cache.clear()
        self._places.clear()
        return self._build(info)

    def _build(self, info: _MapInfo) -> str | None:
        names = info.board_names
        if names is None:
            if len(info.boards) == 1:
                names = [(next(iter(info.boards)), False, 0, 0)]
            else:
                info.error = "no boards chosen for this map"
                return info.error
        placements = []
        lacking = []
        for board_name, reverse, col, row in names:
            entry = info.boards.get(board_name)
            if entry is None:
                info.error = f"board {board_name!r} is not a board of map {info.name!r}"
                return info.error
            if isinstance(entry, Board):
                board = Board(entry.name, entry.width, entry.height, entry.grid,
                              reversible=entry.reversible)
            else:
                size = self.sizes.get(board_name)
                if size is None:
                    lacking.append(board_name)
                    continue
                try:
                    board = board_from_element(entry.element, size[0], size[1])
                except FormatError as exc:
                    # (a grid VASSAL's arithmetic overflows on: the map names
                    # no location, as one of unknown size)
                    info.error = f"board {board_name!r} of map {info.name!r}: {exc.message}"
                    return info.error
            board.reversed = bool(reverse)
            placements.append(BoardPlacement(board, col, row))
        if lacking:
            whys = [self.module.board_size_unknown(b) if self.module is not None else None for b in lacking]
            info.error = ("board size unknown for " + "; ".join(repr(b) + (f": {why}" if why else "")
                                                                for b, why in zip(lacking, whys, strict=True))
                          + " (give --board-size NAME=WxH or --board-sizes FILE.json)")
            return info.error
        info.geometry = MapGeometry(placements, info.edge[0], info.edge[1])
        return None

    def geometry(self, map_name: str) -> MapGeometry | None:
        info = self._maps.get(map_name)
        if info is None:
            return None
        if info.geometry is None and info.error is None:
            self._build(info)
        return info.geometry

    def problem(self, map_name: str) -> str | None:
        """Why a map of the module cannot name locations (or None)."""
        info = self._maps.get(map_name)
        if info is None:
            return None
        if info.geometry is None and info.error is None:
            self._build(info)
        return info.error

    # -- naming ----------------------------------------------------------
    def locate(self, map_name: str | None, x: int, y: int
               ) -> tuple[str | None, tuple[int, int] | None]:
        """(VASSAL's location name, raw hex [column, row]) of a map point;
        ``(None, None)`` without a module, on an unknown map or a map whose
        board sizes are unknown."""
        if map_name is None:
            return None, None
        key = (map_name, x, y)
        found = self._cache.get(key)
        if found is not None:
            return found
        geometry = self.geometry(map_name)
        if geometry is None:
            result: tuple[str | None, tuple[int, int] | None] = (None, None)
        else:
            result = (geometry.location_name(x, y), _grid_cell(geometry, x, y))
        if len(self._cache) > 200000:
            self._cache.clear()
        self._cache[key] = result
        return result

    def place(self, map_name: str, x: int, y: int) -> Place:
        """The :class:`Place` of a map point (one object per point: places
        are immutable)."""
        key = (map_name, x, y)
        found = self._places.get(key)
        if found is None:
            loc, cell = self.locate(map_name, x, y)
            if len(self._places) > 200000:
                self._places.clear()
            found = self._places[key] = Place(map_name, x, y, loc, cell)
        return found

    def location(self, map_name: str | None, x: int, y: int) -> str | None:
        return self.locate(map_name, x, y)[0]


def _grid_cell(geometry: MapGeometry, x: int, y: int) -> tuple[int, int] | None:
    found = geometry.to_board(x, y)
    if found is None:
        return None
    placement, (lx, ly) = found
    grid = placement.board.grid
    if isinstance(grid, ZonedGrid):
        zone = grid.find_zone(lx, ly)
        grid = zone.grid if zone is not None else grid.background
    if isinstance(grid, HexGrid):
        return grid.raw_column_row(lx, ly)
    return None


def _int(value: str | None) -> int:
    try:
        return int(value) if value else 0
    except ValueError:
        return 0
