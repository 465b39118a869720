"""``vmodtool build``: a complete VASSAL module from a scenario file."""

from __future__ import annotations

import click

__all__ = ["build"]


@click.command()
@click.argument("scenario", type=click.Path(exists=True, dir_okay=False, path_type=str))
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False, path_type=str),
              help="The .vmod file to write (replaced atomically if it exists).")
@click.option("-j", "--jobs", type=click.IntRange(1, 64), default=None,
              help="Processes for rendering counters (default: all cores).")
@click.option("--cache", "cache_dir", type=click.Path(file_okay=False, path_type=str),
              default=None, help="Keep rendered counters here and reuse them on the next build.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar.")
def build(scenario: str, output: str, jobs, cache_dir, quiet: bool) -> None:
    """Build a VASSAL module (.vmod) from SCENARIO: board, counters, pieces
    with prototypes, at-start stacks, palettes, off-map boxes and tracks,
    turn tracker, dice, charts and a help page.  Nothing is written when the
    scenario has errors."""
    from vmodtool.build.builder import build_module_file

    bars: dict = {}

    def progress(stage: str, done: int, total: int) -> None:
        if quiet or total < 50:
            return
        bar = bars.get(stage)
        if bar is None:
            bar = bars[stage] = click.progressbar(length=total, label=f"rendering {stage}",
                                                  file=click.get_text_stream("stderr"))
            bar.__enter__()
        bar.update(done - bar.pos)
        if done >= total:
            bar.__exit__(None, None, None)

    summary = build_module_file(scenario, output, jobs=jobs, cache_dir=cache_dir, progress=progress)
    w, h = summary.board_size
    click.echo(f"wrote {summary.output}: {summary.title} — {summary.pieces} piece slots, "
               f"{summary.prototypes} prototypes, {summary.images} images, board {w}x{h} px, "
               f"{summary.bytes // 1024} KiB")


COMMANDS = [build]
