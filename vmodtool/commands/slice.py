"""``vmodtool slice``: cut a scanned or exported counter sheet into face
images (the work is :mod:`vmodtool.render.slicing`)."""

from __future__ import annotations

from collections.abc import Callable

import click

from vmodtool.commands import Command, ProgressBars, check_folder_output, output_option, quiet_option

__all__ = ["slice_command"]


def _pair(value: str | None, what: str) -> tuple[str, str] | None:
    if value is None:
        return None
    parts = [p.strip() for p in value.replace(";", ",").split(",")]
    if len(parts) == 1:
        return parts[0], parts[0]
    if len(parts) != 2 or not all(parts):
        raise click.BadParameter(f"write {what} as one value or two separated by a comma, e.g. 188 or 188,188")
    return parts[0], parts[1]


def _count(value: str) -> tuple[int, int] | None:
    if value.lower() == "auto":
        return None
    try:
        cols, rows = (int(v) for v in value.lower().split("x"))
    except ValueError:
        raise click.BadParameter("write the grid as COLSxROWS (e.g. 10x14) or auto") from None
    return cols, rows


@click.command("slice", cls=Command)
@click.argument("sheet", type=click.Path(exists=True, dir_okay=False, path_type=str))
@output_option("Folder for the face images, slice.json and faces.yaml (created; files there are replaced).",
               required=True, folder=True)
@click.option("--back", type=click.Path(exists=True, dir_okay=False, path_type=str), metavar="FILE",
              help="The back page (image or PDF) printed behind SHEET.")
@click.option("--page", type=click.IntRange(1), default=1, show_default=True, metavar="N",
              help="The page of a PDF SHEET to cut.")
@click.option("--back-page", type=click.IntRange(1), default=None, metavar="N",
              help="The page of the back in a PDF (of --back, else of SHEET).")
@click.option("--grid", "grid", default="auto", show_default=True, metavar="auto|COLSxROWS",
              help="auto: from the sheet's registration and cut marks; COLSxROWS: check their count, "
                   "or with --origin and --cell the grid itself.")
@click.option("--origin", metavar="X,Y", help="Top left corner of the first counter (px, or mm: 12mm).")
@click.option("--cell", metavar="W[,H]", help="Counter size (px or mm).")
@click.option("--gutter", metavar="G[,G]", help="Space between counters (px or mm; default 0).")
@click.option("--flip", type=click.Choice(["long", "short"]), default="long", show_default=True,
              help="The duplex flip edge the sheet was printed with.")
@click.option("--scan-dpi", "scan_dpi", type=click.FloatRange(50, 2400), default=None, metavar="N",
              help="The scan's resolution when the image does not record it (for the marks and mm).")
@click.option("--names", "names_csv", type=click.Path(exists=True, dir_okay=False, path_type=str),
              metavar="FILE.csv", help="Image names by row and col (columns row, col, name[, back]).")
@click.option("--scenario", type=click.Path(exists=True, dir_okay=False, path_type=str), metavar="FILE",
              help="Name the images by the counters `vmodtool sheets` put there (writes faces.yaml).")
@click.option("--sheet", "sheet_no", type=click.IntRange(1), default=1, show_default=True, metavar="N",
              help="Which sheet of the scenario SHEET is (with --scenario).")
@click.option("--size", metavar="W[,H]", help="Resize every image to this many pixels (e.g. 75 for VASSAL).")
@quiet_option("No progress bar or summary.")
def slice_command(sheet: str, output: str, back: str | None, page: int, back_page: int | None, grid: str,
                  origin: str | None, cell: str | None, gutter: str | None, flip: str, scan_dpi: float | None,
                  names_csv: str | None, scenario: str | None, sheet_no: int, size: str | None,
                  quiet: bool) -> None:
    """Cut a counter sheet (scan or export) into face images.

    The grid comes from the registration disks and cut marks that
    `vmodtool sheets` prints (a scan turned by a degree or so is
    straightened), or from --grid COLSxROWS --origin X,Y --cell W[,H] and
    optionally --gutter G (then the scan must be straight).  With --back the back
    page's faces are cut from behind each front (mirrored positions, as
    printed for duplex).  Images are named rNNcNN.png and rNNcNN-back.png,
    by --names CSV, or by the counters of --scenario; slice.json lists them.
    SHEET is a PNG or JPEG, or a PDF of page images (like the one
    `vmodtool sheets` writes).

    \b
    Examples:
      vmodtool slice sheets.pdf --back-page 2 --scenario scenario.yaml -o art/faces
      vmodtool slice scan.jpg --grid 10x14 --origin 142,210 --cell 188 --gutter 35 -o faces
    """
    from pathlib import Path

    from vmodtool.render import slicing

    check_folder_output(output)
    if names_csv and scenario:
        raise click.UsageError("give --names or --scenario, not both")
    expect = _count(grid)
    given = [origin, cell]
    by_hand = None
    if any(given) or gutter:
        if expect is None or not all(given):
            raise click.UsageError("a grid by hand needs --grid COLSxROWS, --origin X,Y and --cell W[,H]")
        uses_mm = "mm" in f"{origin}{cell}{gutter}".lower()
        scale = scan_dpi or (slicing.image_dpi(slicing.read_sheet_image(sheet, page)) if uses_mm else 0.0)

        def lengths(value: str | None, what: str) -> tuple[float, float]:
            pair = _pair(value, what) or ("0", "0")
            return (slicing.parse_length(pair[0], scale, what), slicing.parse_length(pair[1], scale, what))

        by_hand = slicing.GridOptions(expect[0], expect[1], lengths(origin, "--origin"), lengths(cell, "--cell"),
                                      lengths(gutter, "--gutter"))
    out_size = None
    if size:
        pair = _pair(size, "--size")
        try:
            out_size = (int(pair[0]), int(pair[1])) if pair else None
        except ValueError:
            raise click.BadParameter("--size is whole pixels, e.g. 75 or 75,75") from None
        if out_size and min(out_size) < 8:
            raise click.BadParameter("--size must be at least 8 pixels")
    back_file = back
    if back_page is not None and back_file is None:
        back_file = sheet
    names: slicing.Names | Callable[[int, int], slicing.Names] | None = None
    scenario_dir = None
    if names_csv:
        names = slicing.names_from_csv(names_csv)
    bars = ProgressBars(not quiet, 20)
    if scenario:
        from vmodtool.scenario import load_scenario

        sc = load_scenario(scenario)

        def names(cols: int, rows: int) -> slicing.Names:        # once the grid is known
            return slicing.names_from_scenario(sc, sheet_no, cols, rows)
        scenario_dir = Path(scenario).parent
    result = slicing.slice_sheet(sheet, output, back=back_file, page=page, back_page=back_page or 1,
                                 grid=by_hand, expect=expect, flip=flip, dpi=scan_dpi, names=names, size=out_size,
                                 scenario_dir=scenario_dir,
                                 progress=lambda done, total: bars.update("slice", done, total))
    if not quiet:
        turned = f", straightened by {result.angle_deg:+.2f}°" if result.angle_deg else ""
        snippet = f", {result.snippet.name}" if result.snippet else ""
        click.echo(f"{output}: {result.fronts} front and {result.backs} back images from a {result.cols} × "
                   f"{result.rows} grid (from the {'marks' if result.source == 'marks' else 'options'}{turned}; "
                   f"{result.empty} empty cells), {result.manifest.name}{snippet}")


COMMANDS = [slice_command]
