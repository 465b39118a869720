"""``vmodtool board`` and ``vmodtool grid-check``: map boards drawn from the
scenario's terrain data, and a scanned map checked against a hex grid."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from vmodtool.commands import (
    EXIT_FINDINGS,
    REPLACED,
    Command,
    check_output,
    dpi_option,
    module_option,
    output_option,
    warn,
)

if TYPE_CHECKING:
    from vmodtool.scenario.mapgrid import AxisNumbering, MapGrid
    from vmodtool.scenario.model import Scenario
    from vmodtool.vassal.grid import HexGrid

__all__ = ["board", "grid_check"]

_PNG_HINT = "the board is always written as PNG"


def _load(file: str, module: str | None = None) -> Scenario:
    """The scenario (its map from ``module`` when it takes it from a module
    and names none itself); its warnings on stderr, its errors raised (all
    of them)."""
    from vmodtool.scenario import check_scenario
    from vmodtool.scenario.problems import ScenarioProblems

    scenario, problems = check_scenario(file, module=module)
    if scenario is None or any(p.severity == "error" for p in problems):
        raise ScenarioProblems(problems, file=file)
    for problem in problems:
        warn(str(problem))
    return scenario


@click.command("board", cls=Command)
@click.argument("scenario_file", metavar="SCENARIO",
                type=click.Path(exists=True, dir_okay=False, path_type=str))
@output_option(f"The board to write: a PNG image, or a PDF of --paper pages ({REPLACED}).", required=True,
               metavar="FILE.png|FILE.pdf")
@click.option("--scale", type=float, default=None,
              help="Multiply the board's pixels (1 = the VASSAL board, the default).")
@dpi_option("Print resolution: hexes --hex-size inches across at N dots per inch "
            "(implies --sheet unless --no-sheet).")
@click.option("--hex-size", type=float, default=None, metavar="INCHES",
              help="Hex size across the flats in print, with --dpi  [default: 0.625]")
@click.option("--sheet/--no-sheet", default=None,
              help="Add the title cartouche and terrain key under the map (print layout; "
                   "not for a VASSAL board).")
@click.option("--key", "key_file", type=click.Path(dir_okay=False, path_type=str), default=None,
              metavar="FILE.png",
              help=f"Also write the title and terrain key as a separate PNG ({REPLACED}).")
@click.option("--paper", type=click.Choice(["a4", "letter", "a3"]), default="a4", show_default=True,
              help="Paper of a PDF; a board larger than a page is tiled over several.")
@click.option("--orientation", type=click.Choice(["auto", "portrait", "landscape"]), default="auto",
              show_default=True, help="Page orientation of a PDF (auto: the one with fewer pages).")
@click.option("--overlap", type=click.FloatRange(0, 50), default=10.0, show_default=True, metavar="MM",
              help="Millimetres neighbouring PDF pages share, to trim and glue.")
@click.option("--numbers/--no-numbers", default=True, show_default=True, help="Hex numbers.")
@click.option("--dots/--no-dots", default=True, show_default=True, help="Hex centre dots.")
@click.option("--spaces", is_flag=True,
              help="An area map: draw its spaces and connections (proposed ones dashed) to check them.")
@click.option("--image", "image_file", type=click.Path(exists=True, dir_okay=False, path_type=str), default=None,
              metavar="BOARD.png", help="With --spaces: the module's board image to draw over.")
@module_option("The module the game is played with, for a scenario whose map is taken from the module "
               "(map.from_module; default: the scenario's module.file).")
@click.option("--map", "map_key", default=None, metavar="ID",
              help="Draw this map window of the scenario's 'maps' (by id or name) instead of 'map'.")
def board(scenario_file: str, output: str, scale: float | None, dpi: int | None,
          hex_size: float | None, sheet: bool | None, key_file: str | None, paper: str, orientation: str,
          overlap: float, numbers: bool, dots: bool, spaces: bool = False, image_file: str | None = None,
          module: str | None = None, map_key: str | None = None) -> None:
    """Draw a scenario's map board from its terrain data.

    Without options the PNG is the VASSAL board: the grid's board size in
    pixels, every hex exactly where the module's HexGrid puts it (this is
    the image 'vmodtool build' puts in the module).  --scale N or --dpi D
    draw the same board larger for print.  -o FILE.pdf prints it (at
    --dpi, 300 by default) on --paper pages: a board larger than the paper
    is tiled over pages A1, A2 … B1 … that share --overlap millimetres,
    with crop marks and alignment ticks; a board that fits is one page.

    \b
    Examples:
      vmodtool board examples/modern-tactical/scenario.yaml -o board.png
      vmodtool board scenario.yaml --map strategic -o map.pdf --paper a4 --overlap 10
    """
    if spaces:
        _draw_spaces(scenario_file, output, image_file, module)
        return
    if image_file:
        raise click.UsageError("--image goes with --spaces")
    from vmodtool.errors import VmodError
    from vmodtool.render.board import DEFAULT_HEX_SIZE_IN, print_scale

    pdf = output.lower().endswith(".pdf")
    dpi = _check_board_options(scenario_file, output, scale, dpi, hex_size, key_file, module, pdf)
    scenario = _load(scenario_file, module)
    if map_key is not None:
        scenario = _map_window(scenario, map_key)
    if scenario.map.areas is not None:
        raise VmodError("the scenario's map is an area map (spaces, no hexes): draw its spaces and connections "
                        "with --spaces", file=scenario_file)
    if dpi is not None:
        scale = print_scale(scenario.map.grid, dpi, hex_size or DEFAULT_HEX_SIZE_IN)
    scale = scale or 1.0
    if sheet is None:
        sheet = dpi is not None
    if pdf:
        assert dpi is not None
        _write_board_pdf(scenario, output, key_file, scale, dpi, sheet, numbers, dots, paper, orientation,
                         overlap)
    else:
        _write_board_png(scenario, output, key_file, scale, dpi, sheet, numbers, dots)


def _map_window(scenario: Scenario, key: str) -> Scenario:
    """The scenario seen through one of its map windows (drawn as its ``map``)."""
    from dataclasses import replace

    from vmodtool.errors import VmodError

    try:
        return replace(scenario, map=scenario.map_window(key))
    except KeyError:
        known = ", ".join(repr(m.id) for m in (scenario.map, *scenario.maps))
        raise VmodError(f"the scenario has no map {key!r}; its maps: {known}", file=scenario.path) from None


def _check_board_options(scenario_file: str, output: str, scale: float | None, dpi: int | None,
                         hex_size: float | None, key_file: str | None, module: str | None,
                         pdf: bool) -> int | None:
    """Refuse options that do not go together and outputs that may not be
    written, before the scenario is read; the print resolution (a PDF's
    default 300 dpi)."""
    if scale is not None and dpi is not None:
        raise click.UsageError("give --scale or --dpi, not both")
    if hex_size is not None and dpi is None:
        raise click.UsageError("--hex-size needs --dpi")
    if scale is not None and scale <= 0:
        raise click.BadParameter("must be more than 0", param_hint="--scale")
    inputs = [scenario_file, *([module] if module else [])]
    check_output(output, *inputs, suffixes=(".png", ".pdf"), what="a PNG image or a PDF", hint=_PNG_HINT)
    if pdf and scale is not None:
        raise click.UsageError("a PDF is printed at --dpi, not --scale")
    if pdf and dpi is None:
        dpi = 300
    if key_file:
        check_output(key_file, *inputs, output, suffixes=(".png",), what="a PNG image",
                     hint="the key is written as PNG")
    return dpi


def _write_board_pdf(scenario: Scenario, output: str, key_file: str | None, scale: float, dpi: int,
                     sheet: bool, numbers: bool, dots: bool, paper: str, orientation: str,
                     overlap: float) -> None:
    """``board -o FILE.pdf``: the board on --paper pages (and the key)."""
    from vmodtool.fileio import refuse_overwrite
    from vmodtool.render.board import BoardOptions, board_drawing, write_key
    from vmodtool.render.board_pages import layout_pages, write_pages_pdf

    refuse_overwrite(output, *[str(p) for p in (scenario.path, scenario.map.board_image) if p])
    drawing = board_drawing(scenario, BoardOptions(scale=scale, dpi=dpi, sheet=sheet, hex_numbers=numbers,
                                                   centre_dots=dots))
    for message in drawing.warnings:
        warn(message)
    layout = layout_pages(drawing.pixel_size, dpi, paper=paper, orientation=orientation, overlap_mm=overlap)
    count = write_pages_pdf(drawing.canvas, layout, output, scenario.game.title)
    w, h = drawing.pixel_size
    click.echo(f"wrote {output}: {count} {paper.upper()} {'landscape' if layout.landscape else 'portrait'} "
               f"page{'s' if count != 1 else ''} ({layout.rows} row{'s' if layout.rows != 1 else ''} x "
               f"{layout.columns} column{'s' if layout.columns != 1 else ''}, {overlap:g} mm overlap) of a "
               f"{w}x{h} px board at {dpi:g} dpi")
    if key_file:
        write_key(scenario, key_file, scale=scale, dpi=dpi)
        click.echo(f"wrote {key_file}: title and terrain key")


def _write_board_png(scenario: Scenario, output: str, key_file: str | None, scale: float, dpi: int | None,
                     sheet: bool, numbers: bool, dots: bool) -> None:
    """``board -o FILE.png``: the board as one image (and the key)."""
    from vmodtool.render.board import write_board, write_key

    drawing = write_board(scenario, output, scale=scale, dpi=dpi, sheet=sheet,
                          hex_numbers=numbers, centre_dots=dots)
    for message in drawing.warnings:
        warn(message)
    if key_file:
        write_key(scenario, key_file, scale=scale, dpi=dpi)
    w, h = drawing.pixel_size
    bw, bh = drawing.board_size
    what = "print sheet" if sheet else ("VASSAL board" if scale == 1.0 else "board")
    click.echo(f"wrote {output}: {what} {w}x{h} px, {len(drawing.centres)} hexes, "
               f"{len(drawing.hexsides)} hexside features (board {bw}x{bh}, scale {scale:g}"
               + (f", {dpi:g} dpi" if dpi else "") + ")")
    if key_file:
        click.echo(f"wrote {key_file}: title and terrain key")


def _draw_spaces(scenario_file: str, output: str, image_file: str | None, module_file: str | None) -> None:
    """``board --spaces``: an area map's spaces and connections as a PNG."""
    from PIL import Image

    from vmodtool.errors import VmodError
    from vmodtool.fileio import atomic_write, refuse_overwrite
    from vmodtool.render.png import BOARD_LEVEL, encode_png
    from vmodtool.render.spaces import draw_spaces
    from vmodtool.scenario.loader import load_scenario

    check_output(output, scenario_file, suffixes=(".png",), what="a PNG image", hint=_PNG_HINT)
    refuse_overwrite(output, *[p for p in (scenario_file, image_file, module_file) if p])
    scenario = load_scenario(scenario_file, module=module_file)
    areas = scenario.map.areas
    if areas is None:
        raise VmodError("the scenario's map is a hex map, not an area map: --spaces draws spaces and connections "
                        "(draw a hex map without it)", file=scenario_file)
    background = None
    if image_file:
        try:
            background = Image.open(image_file)
            background.load()
        except (OSError, Image.DecompressionBombError) as exc:
            raise VmodError(f"cannot read the board image: {exc}", file=image_file) from None
    picture, counts = draw_spaces(areas, background, scenario.map.size)
    atomic_write(output, encode_png(picture, BOARD_LEVEL))
    click.echo(f"wrote {output}: {counts['spaces']} spaces, {counts['connections']} connections"
               + (" (proposed: check each against the printed map)" if areas.proposed else "")
               + (f", {counts['without_point']} spaces without a point" if counts["without_point"] else ""))


#: the most hexes grid-check draws over one image (a 60×40-hex map has 2400)
MAX_OVERLAY_HEXES = 250_000
#: the hex spacing grid-check draws, in pixels
HEX_PIXELS = (1.0, 10_000.0)


def _hex_size(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    """``--hex-height``/``--hex-width``: a finite number of pixels in
    :data:`HEX_PIXELS` (Click's FloatRange lets NaN through)."""
    if value is not None and not (HEX_PIXELS[0] <= value <= HEX_PIXELS[1]):   # False for NaN too
        raise click.BadParameter(f"{value:g} is not a hex size of {HEX_PIXELS[0]:g} to {HEX_PIXELS[1]:g} pixels")
    return value


def _check_overlay(grid: HexGrid | MapGrid, size: tuple[int, int], source: str,
                   file: str | None) -> None:
    """Refuse a grid whose hexes are smaller than a pixel or larger than
    :data:`HEX_PIXELS`, or that would draw more than
    :data:`MAX_OVERLAY_HEXES` hexes over an image of ``size``: one drawing
    operation per hex, so a tiny ``dx`` would run for ever."""
    from vmodtool.errors import VmodError
    from vmodtool.vassal.grid import HexGrid

    hexgrid = grid if isinstance(grid, HexGrid) else grid.grid
    dx, dy = abs(hexgrid.dx), abs(hexgrid.dy)
    low, high = HEX_PIXELS
    if not (low <= dx <= high and low <= dy <= high):
        raise VmodError(f"{source}: a hex spacing of dx={hexgrid.dx:g}, dy={hexgrid.dy:g} pixels; grid-check "
                        f"draws hexes of {low:g} to {high:g} pixels", file=file)
    count = len(grid.hexes) if not isinstance(grid, HexGrid) else size[0] * size[1] / (dx * dy)
    if count > MAX_OVERLAY_HEXES:
        raise VmodError(f"{source}: about {count:,.0f} hexes over a {size[0]}x{size[1]} image, more than the "
                        f"{MAX_OVERLAY_HEXES:,} grid-check draws; check the hex spacing", file=file)


def _pair(text: str | None, what: str) -> tuple[int, int] | None:
    if text is None:
        return None
    try:
        a, b = text.replace(" ", "").split(",")
        return int(a), int(b)
    except ValueError:
        raise click.BadParameter(f"expected X,Y in whole pixels, got {text!r}", param_hint=what) from None


def _axis(kind: str, start: str | None, leading: int | None, descending: bool) -> AxisNumbering:
    from vmodtool.scenario.mapgrid import AxisNumbering, alpha_index

    value = 1
    if start is not None:
        try:
            value = alpha_index(start) if kind == "alpha" and not start.isdigit() else int(start)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--column-start/--row-start") from None
    return AxisNumbering(kind, value, leading if leading is not None else (1 if kind == "numeric" else 0),
                         descending)


@click.command("grid-check", cls=Command)
@click.argument("image_file", metavar="IMAGE",
                type=click.Path(exists=True, dir_okay=False, path_type=str))
@output_option(f"The overlay image to write (.png; default IMAGE-grid.png; {REPLACED}).",
               metavar="FILE.png")
@click.option("--scenario", "scenario_file", type=click.Path(exists=True, dir_okay=False, path_type=str),
              help="Use this scenario's map grid.")
@click.option("--orientation", type=click.Choice(["flat_top", "pointy_top"]), default="flat_top",
              show_default=True, help="Hexes with a flat top edge, or a pointed one.")
@click.option("--hex-height", type=float, callback=_hex_size,
              help="Row spacing in pixels (flat_top: VASSAL dy).")
@click.option("--hex-width", type=float, callback=_hex_size,
              help="Column spacing in pixels (default: regular hexes).")
@click.option("--columns", type=click.IntRange(1, 500), default=10, show_default=True,
              help="Number of hex columns.")
@click.option("--rows", type=click.IntRange(1, 500), default=8, show_default=True, help="Number of hex rows.")
@click.option("--origin", metavar="X,Y", help="Pixel centre of the first (top-left) hex.")
@click.option("--margin", type=click.IntRange(0, 100_000), default=24, show_default=True,
              help="Pixels around the hexes (when no --origin).")
@click.option("--offset", "offset_parity", type=click.Choice(["even", "odd"]), default="even",
              show_default=True,
              help="Which numbered columns (pointy_top: rows) sit half a hex off.")
@click.option("--first", type=click.Choice(["column", "row"]), default="column", show_default=True,
              help="Which part of a hex number comes first.")
@click.option("--separator", default="", help="Text between column and row numbers.")
@click.option("--column-type", type=click.Choice(["numeric", "alpha"]), default="numeric",
              show_default=True, help="Columns numbered 1, 2 … or lettered A, B ….")
@click.option("--column-start", help="Label of the first column (1, 0, A …).")
@click.option("--column-leading-zeros", type=int, metavar="N",
              help="Pad column numbers with zeros to N+1 digits (default: 1 for numbers).")
@click.option("--column-descending", is_flag=True, help="Columns numbered right to left.")
@click.option("--row-type", type=click.Choice(["numeric", "alpha"]), default="numeric",
              show_default=True, help="Rows numbered 1, 2 … or lettered A, B ….")
@click.option("--row-start", help="Label of the first row.")
@click.option("--row-leading-zeros", type=int, metavar="N",
              help="Pad row numbers with zeros to N+1 digits (default: 1 for numbers).")
@click.option("--row-descending", is_flag=True, help="Rows numbered bottom to top.")
@click.option("--stagger", is_flag=True, help="Staggered row numbering.")
@click.option("--vassal", "vassal_attrs", multiple=True, metavar="KEY=VALUE",
              help="Raw VASSAL HexGrid/HexGridNumbering attributes instead (repeatable: "
                   "--vassal dx=64.95 --vassal x0=40 …).")
@click.option("--no-numbers", is_flag=True, help="Draw no hex numbers.")
@click.pass_context
def grid_check(ctx: click.Context, image_file: str, output: str | None, scenario_file: str | None,
               orientation: str, hex_height: float | None, hex_width: float | None,
               columns: int, rows: int, origin: str | None, margin: int, offset_parity: str,
               first: str, separator: str, column_type: str, column_start: str | None,
               column_leading_zeros: int | None, column_descending: bool, row_type: str,
               row_start: str | None, row_leading_zeros: int | None, row_descending: bool,
               stagger: bool, vassal_attrs: tuple[str, ...], no_numbers: bool) -> None:
    """Draw a hex grid over your own map image.

    Check that a grid fits a scanned map before building a module around
    it.  The grid comes from --scenario, from the grid options (as the
    scenario format describes the printed map), or from raw VASSAL
    attributes (--vassal).  Exit code 1 when the image size differs from the
    grid's board size.

    \b
    Examples:
      vmodtool grid-check scan.png --scenario scenario.yaml -o scan-grid.png
      vmodtool grid-check scan.png --hex-height 64 --columns 12 --rows 10
    """
    from vmodtool.render.board import (
        check_image_size,
        grid_from_options,
        grid_from_vassal_attributes,
        image_header,
        read_image,
        write_grid_overlay,
    )

    out = output or str(Path(image_file).with_name(Path(image_file).stem + "-grid.png"))
    check_output(out, image_file, scenario_file, suffixes=(".png",), what="a PNG image",
                 hint="the overlay is written as PNG")
    # every option is checked before the image is touched, and the image's
    # header (its size, refused past the pixel limit) before its pixels
    board_size: tuple[int, int] | None = None
    grid: HexGrid | MapGrid | None = None
    attributes: dict[str, str] = {}
    if vassal_attrs:
        for item in vassal_attrs:
            if "=" not in item:
                raise click.BadParameter(f"expected KEY=VALUE, got {item!r}", param_hint="--vassal")
            key, value = item.split("=", 1)
            attributes[key.strip()] = value.strip()
        source = "VASSAL attributes"
    else:
        if scenario_file:
            scenario = _load(scenario_file)
            map_grid = scenario.map.grid
            width, height = scenario.map.size
            source = f"the grid of {scenario_file}"
        else:
            numbering = {"first": first, "separator": separator, "stagger": stagger,
                         "column": _axis(column_type, column_start, column_leading_zeros,
                                         column_descending),
                         "row": _axis(row_type, row_start, row_leading_zeros, row_descending)}
            map_grid = grid_from_options(orientation=orientation, hex_height=hex_height,
                                         hex_width=hex_width, origin=_pair(origin, "--origin"),
                                         columns=columns, rows=rows, offset_parity=offset_parity,
                                         margin=margin, numbering=numbering)
            width, height = map_grid.size
            source = "the grid options"
        grid, board_size = map_grid, (width, height)
    size = image_header(image_file, warn=warn)
    if grid is None:
        from vmodtool.errors import FormatError, VmodError
        try:
            grid = grid_from_vassal_attributes(attributes, size)
        except FormatError as exc:        # (e.g. a spacing VASSAL's arithmetic overflows on)
            raise VmodError(f"--vassal: {exc.message}") from None
    _check_overlay(grid, size, source, scenario_file if scenario_file and not vassal_attrs else None)
    if not vassal_attrs:
        attrs = " ".join(f"{k}={v}" for k, v in map_grid.grid_attributes.items())
        click.echo(f"VASSAL HexGrid: {attrs}")
    image = read_image(image_file, warn=warn)
    count = write_grid_overlay(image, grid, out, numbers=not no_numbers)
    click.echo(f"wrote {out}: {count} hexes of {source} over {image_file} "
               f"({image.size[0]}x{image.size[1]})")
    if board_size is not None:
        warning = check_image_size(image.size, board_size)
        if warning:
            warn(warning)
            ctx.exit(EXIT_FINDINGS)


COMMANDS = [board, grid_check]
