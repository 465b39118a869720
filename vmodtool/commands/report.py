"""``vmodtool report``: a game in a browser, step by step."""

from __future__ import annotations

from pathlib import Path

import click

from vmodtool.commands import (
    REPLACED,
    Command,
    board_size_options,
    board_sizes,
    check_output,
    extensions_option,
    module_option,
    warn,
    with_extensions,
)

__all__ = ["report_command"]


@click.command("report", cls=Command)
@click.argument("logs", nargs=-1, required=True,
                type=click.Path(exists=True, dir_okay=False, path_type=str))
@module_option("The module the game was played with: its boards, piece images, grid labels.")
@extensions_option()
@click.option("--scenario", "scenario", default=None, type=click.Path(exists=True, dir_okay=False, path_type=str),
              help="Also audit the game against this scenario's rules and show the violations.")
@click.option("-o", "--output", "output", required=True, type=click.Path(dir_okay=False, path_type=str),
              metavar="FILE.html",
              help=f"The page to write (its images go to FILE_files/ beside it); {REPLACED}.")
@board_size_options
def report_command(logs: tuple[str, ...], module: str | None, extensions: tuple[str, ...], scenario: str | None,
                   output: str,
                   board_sizes_file: str | None, board_size: tuple[str, ...]) -> None:
    """Write a game as one HTML page to open in a browser.

    The maps with their boards, every piece drawn as the module draws it
    after each step, the move list with chat and dice (click a line to go
    there), the step's moves as arrows, check-game findings (and, with
    --scenario, audit violations) listed and marked on the map, dice charts.
    Step with the slider, the buttons or the arrow keys.  The page needs no
    network and no server; player passwords are never written.

    \b
    Examples:
      vmodtool report examples/formats/demo.vlog -m examples/formats/demo.vmod -o demo.html
      vmodtool report turn*.vlog -m game.vmod --scenario scenario.yaml -o game.html
    """
    from vmodtool.report.game import write_game_report

    check_output(output, *logs, module, *extensions, scenario, board_sizes_file, suffixes=(".html", ".htm"),
                 what="an HTML page")
    result = write_game_report([Path(p) for p in logs], Path(output), module=with_extensions(module, extensions),
                               scenario=scenario,
                               board_sizes=board_sizes(board_sizes_file, board_size) or None)
    if result.missing_images:
        warn(f"{len(result.missing_images)} image(s) the module does not hold, drawn as boxes: "
             + ", ".join(result.missing_images[:5]))
    click.echo(f"{output}: {result.steps} steps, {result.pieces} pieces, {result.findings} finding(s)")


COMMANDS = [report_command]
