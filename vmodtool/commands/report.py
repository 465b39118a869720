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
@click.option("--scenario-name", "scenario_name", metavar="NAME",
              help="With --scenario, a game with several scenarios: audit the logs as this one (its id or name); "
                   "by default the one whose set-up the first log starts from.")
@click.option("-o", "--output", "output", required=True, type=click.Path(dir_okay=False, path_type=str),
              metavar="FILE.html",
              help=f"The page to write (its images go to FILE_files/ beside it); {REPLACED}.")
@click.option("--notes", "notes_file", metavar="FILE", type=click.Path(exists=True, dir_okay=False, path_type=str),
              help="A notes file (lines 'STEP: text' or 'LOG:STEP: text', as merge --notes reads): each note "
                   "shown in a narrative column beside its step.")
@click.option("--terrain-layer", "terrain_layer", default=None, metavar="LAYER.json",
              type=click.Path(exists=True, dir_okay=False, path_type=str),
              help="Also draw a derived terrain over its map (vmodtool terrain --report-layer): hexes tinted "
                   "by type, hexside features, doubtful hexes outlined; a checkbox hides it.")
@board_size_options
def report_command(logs: tuple[str, ...], module: str | None, extensions: tuple[str, ...], scenario: str | None,
                   output: str, notes_file: str | None, terrain_layer: str | None, board_sizes_file: str | None,
                   board_size: tuple[str, ...], scenario_name: str | None) -> None:
    """Write a game as one HTML page to open in a browser.

    The maps with their boards, every piece drawn as the module draws it
    after each step, the move list with chat and dice (click a line to go
    there), the step's moves as arrows, check-game findings (and, with
    --scenario, audit violations) listed and marked on the map, dice charts;
    with --notes, or for a log merge wrote with notes, a narrative column
    with each note beside its step.  Step with the slider, the buttons or
    the arrow keys.  The page needs no network and no server; player
    passwords are never written.

    \b
    Examples:
      vmodtool report examples/formats/demo.vlog -m examples/formats/demo.vmod -o demo.html
      vmodtool report turn*.vlog -m game.vmod --scenario scenario.yaml --notes notes.txt -o game.html
    """
    from vmodtool.report.game import write_game_report
    from vmodtool.step_notes import read_notes

    check_output(output, *logs, module, *extensions, scenario, board_sizes_file, notes_file, terrain_layer,
                 suffixes=(".html", ".htm"),
                 what="an HTML page")
    notes = read_notes(notes_file) if notes_file else []
    result = write_game_report([Path(p) for p in logs], Path(output), module=with_extensions(module, extensions),
                               scenario=scenario,
                               board_sizes=board_sizes(board_sizes_file, board_size) or None, notes=notes,
                               scenario_name=scenario_name,
                               terrain_layer=Path(terrain_layer) if terrain_layer else None)
    if result.missing_images:
        warn(f"{len(result.missing_images)} image(s) the module does not hold, drawn as boxes: "
             + ", ".join(result.missing_images[:5]))
    noted = f", {result.notes} note(s)" if result.notes else ""
    click.echo(f"{output}: {result.steps} steps, {result.pieces} pieces, {result.findings} finding(s){noted}")


COMMANDS = [report_command]
