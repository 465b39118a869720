"""``vmodtool build``: a complete VASSAL module from a scenario file."""

from __future__ import annotations

import click

from vmodtool.commands import REPLACED, Command, ProgressBars, jobs_option, output_option, quiet_option, warn

__all__ = ["build"]


@click.command(cls=Command)
@click.argument("scenario", type=click.Path(exists=True, dir_okay=False, path_type=str))
@output_option(f"The module to write (.vmod; {REPLACED}).", required=True, metavar="FILE.vmod")
@jobs_option()
@click.option("--cache", "cache_dir", type=click.Path(file_okay=False, path_type=str),
              default=None, metavar="DIR",
              help="Keep rendered counters here and reuse them on the next build.")
@click.option("--extension", "extension", default=None, metavar="NAME",
              help="Build the extension NAME of the scenario's 'extensions' section (-o FILE.vmdx) "
                   "instead of the module.")
@quiet_option()
def build(scenario: str, output: str, jobs: int, cache_dir: str | None, extension: str | None,
          quiet: bool) -> None:
    """Build a VASSAL module (.vmod) from a scenario.

    The module has the board, counters, pieces with prototypes, at-start
    stacks, palettes, off-map boxes and tracks, turn tracker, dice, charts
    and a help page.  Nothing is written when the scenario has errors; an
    existing module of that name is replaced (atomically).

    \b
    Examples:
      vmodtool build examples/modern-tactical/scenario.yaml -o modern-tactical.vmod
      vmodtool build scenario.yaml --extension Guards -o Guards.vmdx -j 4 --cache .counters
    """
    if extension is not None:
        _build_extension(scenario, extension, output, jobs, cache_dir, quiet)
        return
    from vmodtool.assemble.builder import build_module_file

    bars = ProgressBars(not quiet, 50)
    summary = build_module_file(scenario, output, jobs=jobs or None, cache_dir=cache_dir,
                                progress=lambda stage, done, total: bars.update(f"rendering {stage}", done, total))
    for message in summary.warnings:          # the board's, as 'vmodtool board' shows them
        warn(message)
    w, h = summary.board_size
    click.echo(f"wrote {summary.output}: {summary.title} — {summary.pieces} piece slots, "
               f"{summary.prototypes} prototypes, {summary.images} images, board {w}x{h} px, "
               f"{summary.bytes // 1024} KiB")


def _build_extension(scenario: str, name: str, output: str, jobs: int, cache_dir: str | None,
                     quiet: bool) -> None:
    from vmodtool.assemble.builder import build_extension_file

    bars = ProgressBars(not quiet, 50)
    summary = build_extension_file(scenario, name, output, jobs=jobs or None, cache_dir=cache_dir,
                                   progress=lambda stage, done, total: bars.update(f"rendering {stage}", done,
                                                                                   total))
    click.echo(f"wrote {summary.output}: extension {summary.name!r} of {summary.module} "
               f"{summary.module_version} — {summary.pieces} piece slots, {summary.images} images, "
               f"{summary.bytes // 1024} KiB")


COMMANDS = [build]
