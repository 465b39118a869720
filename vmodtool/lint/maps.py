"""Lint of maps, boards, grids and setup stacks (``docs/vassal-format.md``
§2.4.2-§2.4.8): names saves refer to, the components a map needs, grids
without numbering or geometry, and setup stacks placed where no board or
location is."""

from __future__ import annotations

from typing import Any

from lxml import etree

from vmodtool.errors import VmodError
from vmodtool.lint.codes import registrar
from vmodtool.lint.context import LintRun, short_tag
from vmodtool.vassal.buildfile import BoardEntry
from vmodtool.vassal.extension import EXTENSION_ELEMENT, TargetError, resolve_target
from vmodtool.vassal.grid import LocationError, grid_from_element

__all__ = ["check_maps", "check_setup_stacks"]


register = registrar(__name__)

register("duplicate-map-name", "error",
         "two maps share a mapName; saves refer to maps by name")
register("duplicate-board-name", "warning",
         "two boards of one map share a name; the board picker and setup stacks "
         "find only the first")
register("map-missing-component", "warning",
         "a map lacks PieceMover, KeyBufferer or MenuDisplayer: its pieces cannot be "
         "moved, selected or right-clicked")
register("multi-board-without-setup", "info",
         "a map with several boards and no <setup>: players pick boards at game start")
register("board-without-grid", "info",
         "a board without a grid reports every location as offboard")
register("grid-without-numbering", "warning",
         "a hex or square grid without numbering: every location is reported as "
         "offboard")
register("grid-unusable", "error",
         "a grid whose numbers cannot give a geometry (a cell under 0.001 px or over "
         "10^9 px, Infinity or NaN): VASSAL's pixel arithmetic overflows; replays and audits "
         "read the board's locations as pixels")
register("setup-stack-unknown-board", "error",
         "a SetupStack's owningBoard names no board of its map: the stack is placed "
         "on another board or not at all")
register("setup-stack-bad-location", "error",
         "a SetupStack's grid location does not parse with the board's numbering: "
         "VASSAL shows a data warning and the stack lands elsewhere")
register("setup-stack-no-grid", "warning",
         "a SetupStack uses a grid location on a board without a grid: VASSAL "
         "places it at x/y instead")
register("setup-stack-not-checked", "info",
         "a SetupStack location could not be checked (board size unknown for a "
         "descending numbering)")

_P = "VASSAL.build."
_MAP_TAGS = (_P + "module.Map", _P + "module.PrivateMap", _P + "module.PlayerHand",
             _P + "widget.WidgetMap")
_GRID_TAGS = {_P + "module.map.boardPicker.board." + n: n
              for n in ("HexGrid", "SquareGrid", "RegionGrid", "ZonedGrid")}
_NUMBERING = {"HexGrid": _P + "module.map.boardPicker.board.mapgrid.HexGridNumbering",
              "SquareGrid": _P + "module.map.boardPicker.board.mapgrid.SquareGridNumbering"}
_BOARD_TAG = _P + "module.map.boardPicker.Board"
_SETUP_STACK_TAGS = (_P + "module.map.SetupStack", _P + "module.map.DrawPile")
_MAP_ESSENTIALS = ("PieceMover", "KeyBufferer", "MenuDisplayer")


def check_maps(run: LintRun) -> None:
    """Map names, the components a map needs, its boards, and their grids."""
    bf = run.bf
    seen: dict[str, etree._Element] = {}
    for entry in bf.maps():
        element = entry.element
        if entry.name in seen and element.tag != _MAP_TAGS[3]:
            run.add("duplicate-map-name", f"mapName {entry.name!r} is also used at line "
                    f"{bf.line_of(seen[entry.name])}", element)
        elif element.tag != _MAP_TAGS[3]:
            seen[entry.name] = element
        children = {short_tag(child.tag) for child in element if isinstance(child.tag, str)}
        lacking = [name for name in _MAP_ESSENTIALS if name not in children]
        if lacking:
            run.add("map-missing-component", f"map {entry.name!r} has no "
                    + ", ".join(lacking) + ": its pieces cannot be "
                    + "/".join({"PieceMover": "moved", "KeyBufferer": "selected",
                                "MenuDisplayer": "right-clicked"}[n] for n in lacking),
                    element)
        for picker in element:
            if short_tag(picker.tag) == "BoardPicker":
                _check_board_picker(run, picker, entry.name)
    _check_grids(run)


def _check_board_picker(run: LintRun, picker: etree._Element, map_name: str) -> None:
    boards = [c for c in picker if c.tag == _BOARD_TAG]
    names: dict[str, etree._Element] = {}
    for board in boards:
        name = board.get("name", "")
        if name in names:
            run.add("duplicate-board-name", f"board name {name!r} is used twice "
                    f"in map {map_name!r}", board)
        names.setdefault(name, board)
    if len(boards) > 1 and not any(c.tag == "setup" for c in picker):
        run.add("multi-board-without-setup", f"map {map_name!r} has "
                f"{len(boards)} boards and no <setup>: players choose the boards "
                "when a game starts", picker)


def _check_grids(run: LintRun) -> None:
    """Boards without a grid, grids without a geometry or a numbering."""
    bf = run.bf
    for board_entry in bf.boards():
        if board_entry.grid is None:
            run.add("board-without-grid", f"board {board_entry.name!r} has no grid: every "
                    "location on it is 'offboard'", board_entry.element)
            continue
        _check_grid_geometry(run, board_entry, run.board_sizes().get(board_entry.name))
    for element in bf.root.iter(*[t for t, n in _GRID_TAGS.items() if n in _NUMBERING]):
        kind = _GRID_TAGS[str(element.tag)]  # iter() yields only the named tags
        if not any(child.tag == _NUMBERING[kind] for child in element):
            board_el = next((a for a in element.iterancestors(_BOARD_TAG)), None)
            where = f" of board {board_el.get('name', '')!r}" if board_el is not None else ""
            run.add("grid-without-numbering", f"{kind}{where} has no {kind}Numbering: "
                    "every location is reported as 'offboard' (in move reports too)",
                    element)


def _check_grid_geometry(run: LintRun, board: BoardEntry, size: tuple[int, int] | None) -> None:
    """The board's grid built as a replay builds it: a number that parses
    but gives no geometry (``dx="1e-320"``) is an error, not a clean lint
    (a malformed number is the attribute check's)."""
    assert board.grid is not None
    grid_path = run.path(board.grid)
    if any(f.component_path is not None and (f.component_path == grid_path
                                             or f.component_path.startswith(grid_path + "/"))
           and f.code in ("bad-int-attribute", "bad-double-attribute") for f in run.findings):
        return
    if size is None:
        size = (board.width or 500, board.height or 500)     # (Board's defaults)
    try:
        grid_from_element(board.grid, size)
    except VmodError as exc:
        run.add("grid-unusable", f"the grid of board {board.name!r} cannot be used: "
                f"{exc.message}", board.grid)


def _extension_boards(run: LintRun, stack: etree._Element) -> list[BoardEntry] | None:
    """The boards of the module's map an extension's stack or deck is added
    to (its ExtensionElement's target, or the map above it); None without
    the module, or when the target is not in it (``missing-target``)."""
    element = next((a for a in stack.iterancestors(EXTENSION_ELEMENT)), None)
    if run.base is None or element is None:
        return None
    try:
        target = resolve_target(run.base.buildfile.root, element.get("target", ""))
    except TargetError:
        return None
    window = target if target.tag in _MAP_TAGS else next((a for a in target.iterancestors(*_MAP_TAGS)), None)
    return [b for b in run.base.buildfile.boards() if window is not None and b.map_element is window]


def _stack_boards(run: LintRun, stack: etree._Element,
                  boards_by_map: dict[etree._Element | None, list[BoardEntry]]) -> list[BoardEntry] | None:
    """The boards of the map a stack or deck is on: its own map's, or in an
    extension the module's map it is added to (None: not known)."""
    map_element = next((a for a in stack.iterancestors(*_MAP_TAGS)), None)
    if map_element is None and run.bf.is_extension:
        return _extension_boards(run, stack)
    return boards_by_map.get(map_element, [])


def check_setup_stacks(run: LintRun) -> None:
    """Setup stacks and decks: their owning board and grid location."""
    bf = run.bf
    boards_by_map: dict[etree._Element | None, list[BoardEntry]] = {}  # None: outside any map
    for entry in bf.boards():
        boards_by_map.setdefault(entry.map_element, []).append(entry)
    for stack in bf.root.iter(*_SETUP_STACK_TAGS):
        boards = _stack_boards(run, stack, boards_by_map)
        if boards is None:
            continue                 # its map is the module's: not checked without it (extension-not-checked)
        owning = stack.get("owningBoard", "")
        board: BoardEntry | None = None
        if owning and owning != "<any>":
            board = next((b for b in boards if b.name == owning), None)
            if board is None:
                names = ", ".join(repr(b.name) for b in boards) or "none"
                run.add("setup-stack-unknown-board",
                        f"owningBoard {owning!r} is not a board of this map (boards: "
                        f"{names})", stack, detail={"owningBoard": owning})
        if stack.get("useGridLocation", "false").lower() != "true":
            continue
        board = board or (boards[0] if boards else None)
        location = stack.get("location", "")
        if board is None or not location:
            continue
        if board.grid is None:
            run.add("setup-stack-no-grid", f"location {location!r} on board "
                    f"{board.name!r}, which has no grid: VASSAL uses x/y", stack)
            continue
        size = run.board_sizes().get(board.name)
        if size is None and not board.image:
            size = (board.width or 500, board.height or 500)  # Board defaults
        if size is None:
            descending = any(el.get(a, "").lower() == "true" for el in board.grid.iter()
                             for a in ("hDescend", "vDescend"))
            if descending:
                run.add("setup-stack-not-checked", f"location {location!r}: the size of "
                        f"board {board.name!r} is unknown and its numbering descends",
                        stack)
                continue
            size = (1000, 1000)
        try:
            grid = grid_from_element(board.grid, size)
        except VmodError:
            continue  # the attribute check reports the malformed number
        if grid is None or _locates(grid, location):
            continue
        run.add("setup-stack-bad-location", f"location {location!r} is not a location of "
                f"board {board.name!r}'s grid: VASSAL reports 'Bad location name' and "
                "places the stack at its old x/y", stack,
                detail={"location": location, "board": board.name})


def _locates(grid: Any, location: str) -> bool:
    """``SetupStack.updatePosition``: the grid's name → point, and for a
    ZonedGrid also a region of a zone's RegionGrid inside that zone."""
    try:
        grid.get_location(location)
        return True
    except (LocationError, VmodError, ValueError, ZeroDivisionError):
        pass
    for zone in getattr(grid, "zones", ()):
        own = zone.grid
        for region in getattr(own, "regions", ()):
            if region.name == location and zone.contains(region.x, region.y):
                return True
    return False
