"""``vmodtool counters`` and ``vmodtool sheets``: counter images and
print-ready counter sheets from a scenario."""

from __future__ import annotations

import click

__all__ = ["counters_command", "sheets_command"]


def _progress(label: str, show: bool):
    """A callback for the library's progress(done, total) that drives a
    click progress bar (only for runs long enough to need one)."""
    state = {"bar": None, "done": 0}

    def update(done: int, total: int) -> None:
        if not show or total < 20:
            return
        if state["bar"] is None:
            state["bar"] = click.progressbar(length=total, label=label, file=None)
            state["bar"].__enter__()
        state["bar"].update(done - state["done"])
        state["done"] = done
        if done >= total:
            state["bar"].__exit__(None, None, None)

    return update


def _dpi_list(values: tuple[int, ...]) -> tuple:
    return ("vassal",) + tuple(sorted(set(values)))


@click.command("counters")
@click.argument("scenario", type=click.Path(exists=True, dir_okay=False, path_type=str))
@click.option("-o", "--out", "out", required=True, type=click.Path(file_okay=False, path_type=str),
              help="Output folder (created); images go to vassal/ and <dpi>dpi/ inside it.")
@click.option("--dpi", "dpis", type=click.IntRange(50, 1200), multiple=True, default=(300,),
              show_default=True, help="Print resolution(s) besides the VASSAL size; repeatable.")
@click.option("--no-print", is_flag=True, help="Only the VASSAL-size images.")
@click.option("-j", "--jobs", type=click.IntRange(0, 256), default=0,
              help="Worker processes (0 = all cores, 1 = no workers).")
@click.option("--no-cache", is_flag=True, help="Redraw every counter even if it is unchanged.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar or summary.")
def counters_command(scenario: str, out: str, dpis: tuple[int, ...], no_print: bool, jobs: int,
                     no_cache: bool, quiet: bool) -> None:
    """Render every face of every counter of SCENARIO as PNG.

    Writes OUT/vassal/<id>__<face>.png at the VASSAL size and
    OUT/300dpi/<id>__<face>.png for print, and OUT/counters.json (the
    manifest).  Counters whose content is unchanged since the last run are
    not drawn again.
    """
    from vmodtool.render.counters import render_all
    from vmodtool.scenario import load_scenario

    sc = load_scenario(scenario)
    resolutions = ("vassal",) if no_print else _dpi_list(dpis)
    manifest = render_all(sc, out, resolutions=resolutions, jobs=jobs or None,
                          cache=not no_cache, progress=_progress("counters", not quiet))
    if not quiet:
        faces = len(manifest.entries)
        click.echo(f"{out}: {faces} images ({manifest.rendered} drawn, {manifest.cached} unchanged) "
                   f"at {', '.join(str(r) for r in resolutions)}")


def _offset(value: str | None) -> tuple[float, float]:
    if not value:
        return (0.0, 0.0)
    try:
        parts = [float(v) for v in value.replace(";", ",").split(",")]
    except ValueError:
        parts = []
    if len(parts) != 2:
        raise click.BadParameter("write the printer offset as DX,DY in mm, e.g. 0.5,-1")
    return (parts[0], parts[1])


def _blocks(value: str | None) -> tuple[int, int] | None:
    if not value:
        return None
    try:
        c, r = (int(v) for v in value.lower().split("x"))
    except ValueError:
        raise click.BadParameter("write die-cut blocks as COLSxROWS, e.g. 10x10") from None
    return (c, r)


@click.command("sheets")
@click.argument("scenario", type=click.Path(exists=True, dir_okay=False, path_type=str))
@click.option("-o", "--out", "out", type=click.Path(dir_okay=False, path_type=str),
              help="The PDF to write (e.g. sheets.pdf).")
@click.option("--png", "png_dir", type=click.Path(file_okay=False, path_type=str),
              help="Also write each page as PNG into this folder.")
@click.option("--paper", type=click.Choice(["a4", "letter"]), default="a4", show_default=True)
@click.option("--dpi", type=click.Choice(["300", "600"]), default="300", show_default=True)
@click.option("--gutter", type=float, default=3.0, show_default=True,
              help="Space between counters, mm.")
@click.option("--bleed", type=float, default=1.0, show_default=True,
              help="Edge colour printed around each counter, mm (at most half the gutter).")
@click.option("--blocks", help="Die-cut blocks COLSxROWS: counters abut inside a block.")
@click.option("--block-gap", type=float, default=6.0, show_default=True,
              help="Space between die-cut blocks, mm.")
@click.option("--margin", type=float, default=10.0, show_default=True, help="Page margin, mm.")
@click.option("--offset", help="Printer offset of the back page DX,DY in mm (see --calibration).")
@click.option("--flip", type=click.Choice(["long", "short"]), default="long", show_default=True,
              help="Duplex flip edge of your printer.")
@click.option("--no-backs", is_flag=True, help="Fronts only.")
@click.option("--no-cut-marks", is_flag=True)
@click.option("--calibration", is_flag=True,
              help="Put a duplex calibration page pair first (measures --offset).")
@click.option("-j", "--jobs", type=click.IntRange(0, 256), default=0,
              help="Worker processes (0 = all cores, 1 = no workers).")
@click.option("-q", "--quiet", is_flag=True)
def sheets_command(scenario: str, out: str | None, png_dir: str | None, paper: str, dpi: str,
                   gutter: float, bleed: float, blocks: str | None, block_gap: float,
                   margin: float, offset: str | None, flip: str, no_backs: bool,
                   no_cut_marks: bool, calibration: bool, jobs: int, quiet: bool) -> None:
    """Print-ready counter sheets of SCENARIO: a PDF (and PNGs) with a front
    page and a mirrored back page per sheet, for duplex printing."""
    from vmodtool.render.sheets import SheetOptions, write_sheets
    from vmodtool.scenario import load_scenario

    if not out and not png_dir:
        raise click.UsageError("give -o sheets.pdf and/or --png FOLDER")
    options = SheetOptions(paper=paper, dpi=int(dpi), margin_mm=margin, gutter_mm=gutter,
                           bleed_mm=bleed, blocks=_blocks(blocks), block_gap_mm=block_gap,
                           cut_marks=not no_cut_marks, offset_mm=_offset(offset), flip=flip,
                           backs=not no_backs, calibration=calibration)
    sc = load_scenario(scenario)
    result = write_sheets(sc, out, options, png_dir=png_dir, jobs=jobs or None,
                          progress=_progress("sheets", not quiet))
    if not quiet:
        where = ", ".join(str(p) for p in ([result.pdf] if result.pdf else []) +
                          ([png_dir] if png_dir else []))
        click.echo(f"{where}: {result.counters} counters on {result.sheets} sheet(s) "
                   f"({result.per_sheet} per sheet), {result.pages} pages at {dpi} dpi")


COMMANDS = [counters_command, sheets_command]
