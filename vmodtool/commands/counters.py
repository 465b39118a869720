"""``vmodtool counters`` and ``vmodtool sheets``: counter images and
print-ready counter sheets from a scenario."""

from __future__ import annotations

import click

from vmodtool.commands import (
    REPLACED,
    Command,
    ProgressBars,
    check_folder_output,
    check_output,
    dpi_option,
    jobs_option,
    output_option,
    quiet_option,
)

__all__ = ["counters_command", "sheets_command"]


def _dpi_list(values: tuple[int, ...]) -> tuple[str | int, ...]:
    return ("vassal",) + tuple(sorted(set(values)))


@click.command("counters", cls=Command)
@click.argument("scenario", type=click.Path(exists=True, dir_okay=False, path_type=str))
@output_option("Folder to write into (created; images there are replaced).", required=True,
               folder=True)
@dpi_option("Print resolution besides the VASSAL size (repeatable).", multiple=True,
            default=(300,))
@click.option("--no-print", is_flag=True, help="Only the VASSAL-size images.")
@jobs_option()
@click.option("--no-cache", is_flag=True, help="Redraw every counter even if it is unchanged.")
@quiet_option("No progress bar or summary.")
def counters_command(scenario: str, output: str, dpi: tuple[int, ...], no_print: bool, jobs: int,
                     no_cache: bool, quiet: bool) -> None:
    """Render every counter face of a scenario as PNG.

    Writes DIR/vassal/<id>__<face>.png at the VASSAL size,
    DIR/300dpi/<id>__<face>.png for print, and DIR/counters.json (the
    manifest).  Counters whose content is unchanged since the last run are
    not drawn again.  A scenario with decks also gets its card faces:
    DIR/cards/vassal/card.<id>.png and card-back.<deck>.png, and the same
    at each print resolution (DIR/cards/300dpi/…).

    \b
    Examples:
      vmodtool counters examples/modern-tactical/scenario.yaml -o counters
      vmodtool counters scenario.yaml -o counters --dpi 300 --dpi 600 -j 4
    """
    from vmodtool.render.cards import render_card_files
    from vmodtool.render.counters import render_all
    from vmodtool.scenario import load_scenario

    check_folder_output(output)
    bars = ProgressBars(not quiet, 20)
    sc = load_scenario(scenario)
    resolutions = ("vassal",) if no_print else _dpi_list(dpi)
    manifest = render_all(sc, output, resolutions=resolutions, jobs=jobs or None,
                          cache=not no_cache, progress=lambda done, total: bars.update("counters", done, total))
    cards = render_card_files(sc, output, resolutions) if sc.decks else None
    if not quiet:
        faces = len(manifest.entries)
        click.echo(f"{output}: {faces} images ({manifest.rendered} drawn, {manifest.cached} unchanged) "
                   f"at {', '.join(str(r) for r in resolutions)}")
        if cards is not None:
            click.echo(f"{cards.folder}: {len(cards.files)} card images of {len(sc.decks)} decks")


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


@click.command("sheets", cls=Command)
@click.argument("scenario", type=click.Path(exists=True, dir_okay=False, path_type=str))
@output_option(f"The PDF to write (.pdf; {REPLACED}).", metavar="FILE.pdf")
@click.option("--png", "png_dir", type=click.Path(file_okay=False, path_type=str), metavar="DIR",
              help="Also write each page as PNG into this folder (created).")
@click.option("--paper", type=click.Choice(["a4", "letter"]), default="a4", show_default=True,
              help="Paper size.")
@dpi_option("Print resolution of the pages.", choices=(300, 600), default=300)
@click.option("--gutter", type=float, default=3.0, show_default=True, metavar="MM",
              help="Space between counters, mm.")
@click.option("--bleed", type=float, default=1.0, show_default=True, metavar="MM",
              help="Edge colour printed around each counter, mm (at most half the gutter).")
@click.option("--blocks", metavar="COLSxROWS",
              help="Die-cut blocks: counters abut inside a block.")
@click.option("--block-gap", type=float, default=6.0, show_default=True, metavar="MM",
              help="Space between die-cut blocks, mm.")
@click.option("--margin", type=float, default=10.0, show_default=True, metavar="MM",
              help="Page margin, mm.")
@click.option("--offset", metavar="DX,DY",
              help="Printer offset of the back page in mm (see --calibration).")
@click.option("--flip", type=click.Choice(["long", "short"]), default="long", show_default=True,
              help="Duplex flip edge of your printer.")
@click.option("--no-backs", is_flag=True, help="Fronts only.")
@click.option("--no-cut-marks", is_flag=True, help="No cut marks around the counters.")
@click.option("--calibration", is_flag=True,
              help="Put a duplex calibration page pair first (measures --offset).")
@click.option("--no-cards", is_flag=True, help="Leave out the card sheets of the scenario's decks.")
@jobs_option()
@quiet_option("No progress bar or summary.")
def sheets_command(scenario: str, output: str | None, png_dir: str | None, paper: str, dpi: int,
                   gutter: float, bleed: float, blocks: str | None, block_gap: float,
                   margin: float, offset: str | None, flip: str, no_backs: bool,
                   no_cut_marks: bool, calibration: bool, no_cards: bool, jobs: int, quiet: bool) -> None:
    """Lay out print-ready counter (and card) sheets (PDF).

    Each sheet is a front page and a mirrored back page, for duplex
    printing; -o writes the PDF, --png the pages as PNG images.  A
    counter with more than two faces gets an extra two-sided chit for
    faces 3 and 4 (and so on) next to it.  Cut marks and registration
    disks let `vmodtool slice` cut a scan of the sheet again.  A
    scenario with decks gets card sheets after the counter sheets (poker
    or mini-euro cards, by the deck's size; --no-cards leaves them out).

    \b
    Examples:
      vmodtool sheets examples/ww1-operational/scenario.yaml -o sheets.pdf
      vmodtool sheets scenario.yaml -o sheets.pdf --paper letter --dpi 600 --blocks 10x10
    """
    from vmodtool.render.sheets import SheetOptions, write_sheets
    from vmodtool.scenario import load_scenario

    if not output and not png_dir:
        raise click.UsageError("give -o sheets.pdf and/or --png DIR")
    if output:
        check_output(output, scenario, suffixes=(".pdf",), what="a PDF",
                     hint="for the pages as PNG images give --png DIR")
    if png_dir:
        check_folder_output(png_dir, "--png")
    options = SheetOptions(paper=paper, dpi=dpi, margin_mm=margin, gutter_mm=gutter,
                           bleed_mm=bleed, blocks=_blocks(blocks), block_gap_mm=block_gap,
                           cut_marks=not no_cut_marks, offset_mm=_offset(offset), flip=flip,
                           backs=not no_backs, calibration=calibration, cards=not no_cards)
    bars = ProgressBars(not quiet, 20)
    sc = load_scenario(scenario)
    result = write_sheets(sc, output, options, png_dir=png_dir, jobs=jobs or None,
                          progress=lambda done, total: bars.update("sheets", done, total))
    if not quiet:
        where = ", ".join(str(p) for p in ([result.pdf] if result.pdf else []) +
                          ([png_dir] if png_dir else []))
        cards = (f", {result.cards} cards on {result.card_sheets} card sheet(s)"
                 if result.card_sheets else "")
        extra = (f", {result.extra_chits} extra chit(s) for third and later faces"
                 if result.extra_chits else "")
        click.echo(f"{where}: {result.counters} counters ({result.faces} faces{extra}) on {result.sheets} "
                   f"sheet(s) ({result.per_sheet} per sheet){cards}, {result.pages} pages at {dpi} dpi")
        if result.unprinted_backs:
            click.echo(f"{result.unprinted_backs} back face(s) not printed (--no-backs)")


COMMANDS = [counters_command, sheets_command]
