"""``vmodtool check-game``: PBEM integrity of a played game, any module."""

from __future__ import annotations

import json
from pathlib import Path

import click

from vmodtool.commands import (
    Command,
    board_size_options,
    board_sizes,
    check_output,
    check_report_output,
    extensions_option,
    format_option,
    module_option,
    report_output_option,
    warn_lines,
    with_extensions,
    write_report,
)

__all__ = ["check_game_command"]

#: nothing suspicious, but some check could not look at the game


@click.command("check-game", cls=Command)
@click.argument("logs", nargs=-1, required=True,
                type=click.Path(exists=True, dir_okay=False, path_type=str))
@module_option("The module the game was played with: hex labels, layer names, dice buttons "
               "(without it, positions stay pixels and dice are read from the chat only).")
@extensions_option()
@report_output_option()
@format_option("text", "json", help="Summary then details, or one JSON report.")
@board_size_options
@click.option("--check", "checks", multiple=True, metavar="NAME",
              type=click.Choice(["chain", "undo", "dice", "actions", "decks"]),
              help="Run only these checks (repeatable): chain, undo, dice, actions, decks.")
@click.option("--dice-csv", "dice_csv", metavar="FILE.csv", type=click.Path(dir_okay=False, path_type=str),
              help="Also write every roll to FILE.csv (log, step, player, button, dice, sides, values).")
@click.option("--dice-chart", "dice_chart", metavar="FILE.png", type=click.Path(dir_okay=False, path_type=str),
              help="Also draw the dice histograms per player and die type into FILE.png.")
@click.option("--dice-pattern", "dice_patterns", multiple=True, metavar="REGEX",
              help="A chat line that reports dice, as a regular expression searched in each line (repeatable; "
                   "groups 'player' and 'values' optional), besides the module's own dice and dice reports.")
@click.option("--warnings", "keep_warnings", is_flag=True,
              help="Keep the replay's warnings in the text report (by default they go to stderr, "
                   "counted in the summary line; the JSON report always holds them).")
@click.option("-v", "--verbose", is_flag=True,
              help="List every finding a grouped one stands for (a restarted log's differences …).")
@click.pass_context
def check_game_command(ctx: click.Context, logs: tuple[str, ...], module: str | None, extensions: tuple[str, ...],
                       output: str | None,
                       fmt: str, board_sizes_file: str | None, board_size: tuple[str, ...],
                       checks: tuple[str, ...], dice_csv: str | None, dice_chart: str | None,
                       dice_patterns: tuple[str, ...], keep_warnings: bool, verbose: bool) -> None:
    """Check a PBEM game's integrity: logs, undos, dice.

    LOGS are the logs of one game (any module, any VASSAL version), in the
    order they were played.  Reports who saved each log and what changed
    between logs (module updates in one line), logs out of order or
    missing, undos and re-rolls, dice statistics per player, moves out
    of turn or of hidden pieces, and decks searched or reordered by hand.
    Exit code 1 when something is suspicious, 3 when nothing is but some
    check could not look at the game, 0 otherwise.

    \b
    Examples:
      vmodtool check-game turn1.vlog turn2.vlog turn3.vlog -m game.vmod
      vmodtool check-game logs/*.vlog -m game.vmod --format json -o check.json
    """
    from vmodtool.checkgame import CHECKS, check_game, record_game

    check_report_output(output, *logs, module, *extensions, board_sizes_file)
    inputs = (*logs, module, *extensions, board_sizes_file, output if output != "-" else None)
    if dice_csv:
        check_output(dice_csv, *inputs, suffixes=(".csv",), what="a CSV table")
    if dice_chart:
        check_output(dice_chart, *inputs, dice_csv, suffixes=(".png",), what="a PNG image")
    record = record_game([Path(p) for p in logs], module=with_extensions(module, extensions),
                         board_sizes=board_sizes(board_sizes_file, board_size) or None, dice_patterns=dice_patterns)
    result = check_game(record, list(checks) or list(CHECKS))
    if dice_csv or dice_chart:
        _dice_exports(record, dice_csv, dice_chart)
    if not keep_warnings and fmt != "json":        # (the JSON report holds them)
        warn_lines(result.warning_lines())
    if fmt == "json":
        write_report([json.dumps(result.as_json(), ensure_ascii=False, indent=2)], output)
    else:
        write_report(result.lines(verbose=verbose, warnings=keep_warnings), output, one_line_items=True)
    if result.exit_code:
        ctx.exit(result.exit_code)


def _dice_exports(record: object, csv_file: str | None, chart_file: str | None) -> None:
    from vmodtool.checkgame import GameRecord, dice
    from vmodtool.fileio import atomic_write

    assert isinstance(record, GameRecord)
    rolls = dice.read_rolls(record)
    if csv_file:
        atomic_write(csv_file, dice.csv_text(rolls).encode("utf-8"))
    if chart_file:
        from vmodtool.render.dice_chart import dice_chart_png
        atomic_write(chart_file, dice_chart_png(dice.dice_groups(rolls)))


COMMANDS = [check_game_command]
