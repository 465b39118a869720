"""The map windows of a built module: the components every window has
(:func:`map_window`, :func:`board_picker`, :func:`map_children`) and the
windows of the scenario's ``maps`` section (:func:`add_map_windows`), each
a VASSAL ``Map`` with one board named as the map, its hex grid and
numbering as VASSAL writes them (``docs/vassal-format.md`` §2.4.2–2.4.6),
after the main map in the buildFile.  Their boards are drawn as the main
map's is (terrain, hexsides, labels, objectives), or are the designer's
image (``board.image``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from lxml import etree

from vmodtool.assemble import components as C
from vmodtool.assemble.module_images import ModuleImages
from vmodtool.scenario.model import AltBoard, HexMap, Scenario

__all__ = ["map_window", "board_picker", "map_children", "add_map_windows", "map_image_name",
           "add_alternative_boards", "alt_board_image_name"]


def map_window(root: etree._Element, name: str, **extra: object) -> etree._Element:
    """A ``Map`` component named ``name`` (``extra``: attributes other than the defaults)."""
    overrides: dict[str, object] = {"mapName": name}
    overrides.update(extra)
    return C.add(root, "module.Map", overrides)


def board_picker(map_el: etree._Element, board_name: str, image: str) -> etree._Element:
    """The map's ``BoardPicker`` with its one ``Board``; the board."""
    picker = C.add(map_el, "module.map.BoardPicker")
    return C.add(picker, "module.map.boardPicker.Board", {"image": image, "name": board_name})


def alt_board_image_name(hex_map: HexMap, board: AltBoard) -> str:
    """An alternative board's image in the module's ``images/`` (None
    when it is drawn as the map's own board, whose image it shares)."""
    suffix = board.image.suffix.lower() if board.image is not None else ".png"
    return f"board-{hex_map.id}-{board.id}{suffix}"


def add_alternative_boards(board: etree._Element, hex_map: HexMap, images: ModuleImages) -> None:
    """The map's alternative boards (``map.boards``) after its own
    ``board`` in its ``BoardPicker``: each with the same hex grid and
    numbering, its image the designer's (copied when ``images.draw``) or
    the map's own board's."""
    picker = board.getparent()
    assert picker is not None
    for alt in hex_map.boards:
        image = board.get("image", "")
        if alt.image is not None:
            image = alt_board_image_name(hex_map, alt)
            if images.draw:
                images.files[image] = alt.image.read_bytes()
        el = C.add(picker, "module.map.boardPicker.Board", {"image": image, "name": alt.name})
        grid = C.add(el, "module.map.boardPicker.board.HexGrid", hex_map.grid.grid_attributes)
        C.add(grid, "module.map.boardPicker.board.mapgrid.HexGridNumbering", hex_map.grid.numbering_attributes)


def map_children(map_el: etree._Element) -> None:
    """The components without which a map is inert (§2.4.3)."""
    for cls in ("module.map.StackMetrics", "module.map.ForwardToKeyBuffer", "module.map.Scroller",
                "module.map.ForwardToChatter", "module.map.MenuDisplayer",
                "module.map.MapCenterer", "module.map.StackExpander", "module.map.PieceMover",
                "module.map.KeyBufferer", "module.map.CounterDetailViewer", "module.map.Zoomer",
                "module.properties.GlobalProperties", "module.map.SelectionHighlighters",
                "module.map.HighlightLastMoved"):
        C.add(map_el, cls)


def map_image_name(hex_map: HexMap) -> str:
    """The board image of a ``maps`` window in the module's ``images/``."""
    return f"board-{hex_map.id}.png"


def _board_png(scenario: Scenario, hex_map: HexMap) -> bytes:
    """The window's board image: the designer's file, else drawn as the main map's board is."""
    if hex_map.board_image is not None:
        return hex_map.board_image.read_bytes()
    from vmodtool.render.board import module_board
    from vmodtool.render.png import BOARD_LEVEL, encode_png

    image, _ = module_board(replace(scenario, map=hex_map))
    return encode_png(image.convert("RGB"), BOARD_LEVEL)


def add_map_windows(root: etree._Element, scenario: Scenario, images: ModuleImages,
                    place: Callable[[etree._Element, HexMap], None]) -> None:
    """One ``Map`` window per entry of the scenario's ``maps`` (its board
    image drawn when ``images.draw``), its toolbar button named as the map
    (as the off-map window's); ``place`` adds the window's at-start stacks."""
    for hex_map in scenario.maps:
        image = map_image_name(hex_map)
        if images.draw:
            images.files[image] = _board_png(scenario, hex_map)
        window = map_window(root, hex_map.name, markMoved="Always", buttonName=hex_map.name)
        board = board_picker(window, hex_map.name, image)
        grid = C.add(board, "module.map.boardPicker.board.HexGrid", hex_map.grid.grid_attributes)
        C.add(grid, "module.map.boardPicker.board.mapgrid.HexGridNumbering", hex_map.grid.numbering_attributes)
        map_children(window)
        place(window, hex_map)
        C.add(window, "module.map.Flare")
