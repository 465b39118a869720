"""``vmodtool check-game``: PBEM integrity of a played game, any module."""

from __future__ import annotations

import json
from pathlib import Path

import click

from vmodtool.commands import (
    EXIT_FINDINGS,
    Command,
    board_size_options,
    board_sizes,
    check_report_output,
    format_option,
    module_option,
    report_output_option,
    write_report,
)

__all__ = ["check_game_command"]

#: nothing suspicious, but some check could not look at the game
EXIT_NOT_CHECKED = 3


@click.command("check-game", cls=Command)
@click.argument("logs", nargs=-1, required=True,
                type=click.Path(exists=True, dir_okay=False, path_type=str))
@module_option("The module the game was played with: hex labels, layer names, dice buttons "
               "(without it, positions stay pixels and dice are read from the chat only).")
@report_output_option()
@format_option("text", "json", help="Summary then details, or one JSON report.")
@board_size_options
@click.option("--check", "checks", multiple=True, metavar="NAME",
              type=click.Choice(["chain", "undo", "dice", "actions"]),
              help="Run only these checks (repeatable): chain, undo, dice, actions.")
@click.pass_context
def check_game_command(ctx: click.Context, logs: tuple[str, ...], module: str | None, output: str | None,
                       fmt: str, board_sizes_file: str | None, board_size: tuple[str, ...],
                       checks: tuple[str, ...]) -> None:
    """Check a PBEM game's integrity: logs, undos, dice.

    LOGS are the logs of one game (any module, any VASSAL version), in the
    order they were played.  Reports who saved each log and what changed
    between logs (module updates in one line), logs out of order or
    missing, undos and re-rolls, dice statistics per player, and moves out
    of turn or of hidden pieces.  Exit code 1 when something is
    suspicious, 3 when nothing is but some check could not look at the
    game, 0 otherwise.

    \b
    Examples:
      vmodtool check-game turn1.vlog turn2.vlog turn3.vlog -m game.vmod
      vmodtool check-game logs/*.vlog -m game.vmod --format json -o check.json
    """
    from vmodtool.audit.integrity import CHECKS, check_game, record_game

    check_report_output(output, *logs, module, board_sizes_file)
    record = record_game([Path(p) for p in logs], module=module,
                         board_sizes=board_sizes(board_sizes_file, board_size) or None)
    result = check_game(record, list(checks) or list(CHECKS))
    if fmt == "json":
        write_report([json.dumps(result.as_json(), ensure_ascii=False, indent=2)], output)
    else:
        write_report(result.lines(), output, one_line_items=True)
    if result.suspicious:
        ctx.exit(EXIT_FINDINGS)
    if not result.complete:
        ctx.exit(EXIT_NOT_CHECKED)


COMMANDS = [check_game_command]
