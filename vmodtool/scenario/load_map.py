"""Loading the ``map`` section: the hex grid of this file (``map.grid``)
or the module's map (``map.from_module``), then what lies on it — terrain
(:mod:`.load_terrain`), hexsides (:mod:`.load_hexsides`), labels,
objectives, the board image, size and edges, and the areas
(:mod:`.load_areas`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from vmodtool.errors import VmodError
from vmodtool.scenario import limits as L
from vmodtool.scenario import load_binding as LB
from vmodtool.scenario import model as M
from vmodtool.scenario.collector import ProblemCollector
from vmodtool.scenario.load_areas import build_areas
from vmodtool.scenario.load_hexsides import build_hexside_types, build_hexsides
from vmodtool.scenario.load_terrain import build_derived, build_terrain, build_terrain_types
from vmodtool.scenario.mapgrid import (
    SQRT3_2,
    AxisNumbering,
    GridSpec,
    MapGrid,
    alpha_index,
    board_size,
    build_map_grid,
)
from vmodtool.scenario.problems import Path
from vmodtool.scenario.schema_check import too_long

if TYPE_CHECKING:
    from collections.abc import Mapping

    from vmodtool.scenario.binding import ModuleSource
    from vmodtool.scenario.module_map import ModuleMap
    from vmodtool.vassal.module import Module

__all__ = ["build_map", "build_grid_spec", "GRID_NOT_BUILT"]

GRID_NOT_BUILT = "the grid cannot be built; fix the grid keys above"


def build_map(c: ProblemCollector, module: Module | None, module_source: ModuleSource | None,
              board_sizes: Mapping[str, tuple[int, int]] | None, p: Path = ("map",)) -> M.HexMap | None:
    """The map (the one at ``p``: ``map``, or an entry of ``maps``), or None
    when it cannot be built (the problems say why)."""
    module_map = None
    spec: GridSpec | None = None
    if c.get(p + ("from_module",)) is not None:
        for key in ("grid", "size", "board"):
            if c.get(p + (key,)) is not None:
                c.err(p + (key,), f"map.{key} cannot be given with map.from_module: the map, its board "
                                  "and its grid are the module's")
        if c.get(p + ("terrain", "rows")) is not None:
            c.err(p + ("terrain", "rows"), "terrain rows need a grid of this file; with map.from_module "
                                           "give terrain per hex label (terrain.hexes)")
        if module is None:
            return None
        module_map = LB.build_module_map(c, module, module_source, board_sizes)
        if module_map is None:
            return None
        grid = module_map.grid
    elif c.get(p + ("grid",)) is None:
        return None           # the schema reports it missing
    else:
        spec = build_grid_spec(c, p + ("grid",))
        if spec is None:
            if isinstance(c.get(p + ("grid",)), dict):
                c.err(p + ("grid",), GRID_NOT_BUILT)
            return None
        built = _grid_of(c, p, spec)
        if built is None:
            return None
        grid = built
    return _map_content(c, p, spec, grid, module_map)


# -- the grid -------------------------------------------------------------------------

def _axis(c: ProblemCollector, path: Path, default_start: int = 1) -> AxisNumbering:
    kind = c.text(path + ("type",), "numeric") or "numeric"
    start = _axis_start(c, path, kind, default_start)
    leading = c.get(path + ("leading_zeros",), int, 1 if kind == "numeric" else 0)
    if not c.within(path + ("leading_zeros",), leading, L.MAX_LEADING_ZEROS):
        leading = 1 if kind == "numeric" else 0
    return AxisNumbering(kind, start, max(0, leading),
                         bool(c.get(path + ("descending",), bool, False)))


def _axis_start(c: ProblemCollector, path: Path, kind: str, default_start: int) -> int:
    start_value = c.get(path + ("start",), default=default_start)
    start = default_start
    if isinstance(start_value, bool):
        start = default_start
    elif isinstance(start_value, int):
        start = start_value
    elif isinstance(start_value, str):
        try:
            start = alpha_index(start_value) if kind == "alpha" else int(start_value)
        except ValueError as exc:
            c.err(path + ("start",), f"{exc}" if kind == "alpha" else
                  f"start {start_value!r} is not a whole number")
    if kind == "alpha" and isinstance(start_value, int) and start_value < 0:
        c.err(path + ("start",), "an alphabetic axis starts at a letter (A = 0) or 0 or more")
    if kind == "alpha" and start > L.MAX_ALPHA_START:
        c.err(path + ("start",), f"an alphabetic axis starts at most at index {L.MAX_ALPHA_START} "
                                 f"(A = 0, a label of {L.MAX_ALPHA_START // 26 + 1} letters), found {start}")
        start = default_start
    elif kind != "alpha" and not c.within(path + ("start",), start, L.MAX_AXIS_START, -L.MAX_AXIS_START):
        start = default_start
    return start


def _grid_size(c: ProblemCollector, p: Path, orientation: str
               ) -> tuple[int, int, float, float | None, int] | None:
    """Columns, rows, hex height and width and margin of ``map.grid``, when
    they give a grid within the limits."""
    hex_height = c.get(p + ("hex_height",), (int, float))
    hex_width = c.get(p + ("hex_width",), (int, float))
    columns = c.get(p + ("columns",), int)
    rows = c.get(p + ("rows",), int)
    if hex_height is None and hex_width is None:
        c.err(p, "the grid needs hex_height (and optionally hex_width) in pixels")
        return None
    if not columns or not rows or columns < 1 or rows < 1:
        return None  # the schema says what is missing
    if not (c.within(p + ("columns",), columns, L.MAX_GRID_LINES)
            and c.within(p + ("rows",), rows, L.MAX_GRID_LINES)):
        return None
    if columns * rows > L.MAX_HEXES:
        c.err(p, f"a grid of {columns} columns × {rows} rows has {columns * rows:,} hexes; "
                 f"a map has at most {L.MAX_HEXES:,}")
        return None
    for key, value in (("hex_height", hex_height), ("hex_width", hex_width)):
        if value is not None and value <= 0:
            c.err(p + (key,), f"{key} must be more than 0 pixels")
            return None
        if value is not None and not c.within(p + (key,), value, L.MAX_MAP_PIXELS):
            return None
    margin = c.get(p + ("margin",), int, 24)
    if not c.within(p + ("margin",), margin, L.MAX_MAP_PIXELS, 0):
        return None
    if hex_height is None:
        # regular hexes: row spacing = column spacing / (√3/2) on flat-top maps,
        # × √3/2 on pointy-top ones
        hex_height = hex_width / SQRT3_2 if orientation == "flat_top" else hex_width * SQRT3_2
    return columns, rows, hex_height, hex_width, margin


def build_grid_spec(c: ProblemCollector, p: Path = ("map", "grid")) -> GridSpec | None:
    """``map.grid`` (or the grid at ``p``) as a
    :class:`~vmodtool.scenario.mapgrid.GridSpec`, when it is one within the
    limits."""
    if not isinstance(c.get(p), dict):
        return None
    orientation = c.text(p + ("orientation",), "flat_top") or "flat_top"
    size = _grid_size(c, p, orientation)
    if size is None:
        return None
    columns, rows, hex_height, hex_width, margin = size
    sep_path = p + ("numbering", "separator")
    separator = c.text(sep_path, "") or ""
    if len(separator) > L.MAX_SEPARATOR:
        c.err(sep_path, too_long(f"a text of {len(separator)} characters", L.MAX_SEPARATOR))
        return None
    pointy_shifted = orientation == "pointy_top" and "shifted_rows" in c.get(p, dict, {})
    parity_key = "shifted_rows" if pointy_shifted else "low_columns"
    parity = c.text(p + (parity_key,), "even") or "even"
    origin = c.get(p + ("origin",), list)
    origin_t = None
    if (origin is not None and len(origin) == 2
            and all(isinstance(v, int) and abs(v) <= L.MAX_MAP_PIXELS for v in origin)):
        origin_t = (origin[0], origin[1])
    n = p + ("numbering",)
    first = c.text(n + ("first",), "column") or "column"
    return GridSpec(orientation=orientation, hex_height=float(hex_height),
                    hex_width=float(hex_width) if hex_width is not None else None,
                    columns=columns, rows=rows, offset_parity=parity,
                    margin=margin, origin=origin_t,
                    snap=c.text(p + ("snap",), "centres") or "centres",
                    first=first, separator=separator,
                    column=_axis(c, n + ("column",)), row=_axis(c, n + ("row",)),
                    stagger=bool(c.get(n + ("stagger",), bool, False)),
                    location_format=c.text(n + ("location_format",), "$gridLocation$")
                    or "$gridLocation$")


def _grid_of(c: ProblemCollector, p: Path, spec: GridSpec) -> MapGrid | None:
    try:
        width, height = board_size(spec)
        if max(width, height) > L.MAX_MAP_PIXELS:
            c.err(p + ("grid",), f"the board would be {width:,}×{height:,} pixels; a board is at most "
                                 f"{L.MAX_MAP_PIXELS:,} pixels wide and high (fewer or smaller hexes)")
            return None
        grid = build_map_grid(spec)
    # a grid VASSAL itself would refuse (FormatError), or sizes that are not
    # finite numbers (.inf / .nan in YAML)
    except (VmodError, ValueError, ArithmeticError) as exc:
        c.err(p + ("grid",), f"the grid cannot be built: {exc}")
        return None
    for message in grid.problems[:5]:
        c.err(p + ("grid", "numbering"), message)
    return grid


# -- what lies on the map ---------------------------------------------------------------

def _map_content(c: ProblemCollector, p: Path, spec: GridSpec | None, grid: MapGrid,
                 module_map: ModuleMap | None) -> M.HexMap:
    hexes = grid.hexes
    ttypes, codes = build_terrain_types(c, p)
    terrain = build_terrain(c, p, spec, grid, hexes, ttypes, codes)
    derived = build_derived(c, p, hexes)
    htypes = build_hexside_types(c, p)
    hexsides = build_hexsides(c, p, grid, hexes, htypes)
    labels = []
    for lp, _ in c.list_of(p + ("labels",)):
        h = c.hex_id(lp + ("hex",), hexes)
        if h:
            labels.append(M.MapLabel(h, c.text(lp + ("text",), "") or ""))
    objectives = []
    for op, _ in c.list_of(p + ("objectives",)):
        h = c.hex_id(op + ("hex",), hexes)
        if h:
            objectives.append(M.Objective(h, c.text(op + ("name",), h) or h,
                                          c.get(op + ("vp",), (int, float))))
    board_image = None
    image = c.text(p + ("board", "image"))
    if image:
        board_image = c.local_file(p + ("board", "image"), image, "board image")
    size, edge_buffer = _size(c, p, grid)
    if module_map is not None:
        name = module_map.map_name
        if c.text(p + ("name",)) not in (None, name):
            c.err(p + ("name",), f"the map's name is the module's map window, {name!r}")
    else:
        name = c.text(p + ("name",), "Main Map") or "Main Map"
    areas = build_areas(c, module_map.areas if module_map is not None else None, ttypes, terrain)
    boards = _alternative_boards(c, p, name, module_map is not None)
    return M.HexMap(id=c.text(p + ("id",), "main") or "main", name=name,
                    grid_spec=spec, grid=grid, terrain_types=ttypes, terrain=terrain,
                    hexside_types=htypes, hexsides=tuple(hexsides), labels=tuple(labels),
                    objectives=tuple(objectives), edges=c.get(p + ("edges",), dict, {}),
                    edge_buffer=edge_buffer, board_image=board_image, size=size,
                    module_map=module_map.map_name if module_map else None,
                    module_board=module_map.board_name if module_map else None,
                    zones=tuple(module_map.zones) if module_map else (), areas=areas, boards=boards,
                    derived=derived)


def _alternative_boards(c: ProblemCollector, p: Path, map_name: str, from_module: bool
                        ) -> tuple[M.AltBoard, ...]:
    """``map.boards``: the boards a scenario may be played on instead of
    the map's own, each with the map's size and grid (its name unique in
    the map's ``BoardPicker``, which also holds the map's own board, named
    as the map)."""
    if not c.list_of(p + ("boards",)):
        return ()
    if from_module:
        c.err(p + ("boards",), "a map taken from a module has the module's boards: alternative boards "
                               "are for a map vmodtool builds")
        return ()
    c.unique_ids(p + ("boards",), "id", "board id")
    names = {map_name.casefold(): "the map's own board (named as the map)"}
    out = []
    for bp, _ in c.list_of(p + ("boards",)):
        bid = c.text(bp + ("id",))
        if not bid:
            continue
        name = c.text(bp + ("name",), bid) or bid
        if name.casefold() in names:
            c.err(bp + ("name",), f"the board name {name!r} is already {names[name.casefold()]}: a save "
                                  "names the boards of a map by their names")
            continue
        names[name.casefold()] = f"board {bid!r}"
        image = c.text(bp + ("image",))
        out.append(M.AltBoard(bid, name, c.local_file(bp + ("image",), image, "board image") if image else None))
    return tuple(out)


def _size(c: ProblemCollector, p: Path, grid: MapGrid) -> tuple[tuple[int, int], tuple[int, int]]:
    """The board's size (``map.size``, else the grid's) and edge buffer."""
    size = grid.size
    given = c.get(p + ("size",), list)
    if given and len(given) == 2 and all(isinstance(v, int) and v > 0 for v in given):
        if all(c.within(p + ("size", i), v, L.MAX_MAP_PIXELS) for i, v in enumerate(given)):
            size = (given[0], given[1])
    buffer = c.get(p + ("edge_buffer",), list, [0, 0])
    edge_buffer = ((buffer[0], buffer[1]) if len(buffer) == 2 and all(
        isinstance(v, int) and c.within(p + ("edge_buffer", i), v, L.MAX_MAP_PIXELS)
        for i, v in enumerate(buffer)) else (0, 0))
    return size, edge_buffer
