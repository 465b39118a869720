"""``vmodtool audit``: check played logs against a scenario's rules."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from vmodtool.commands import EXIT_FINDINGS, echo_lines

__all__ = ["audit"]


@click.command()
@click.argument("logs", nargs=-1, required=True,
                type=click.Path(exists=True, dir_okay=False, path_type=str))
@click.option("--scenario", "scenario_path", required=True,
              type=click.Path(exists=True, dir_okay=False, path_type=str),
              help="The scenario file whose rules: section is checked.")
@click.option("--module", "module_path", type=click.Path(exists=True, path_type=str),
              default=None,
              help="The module the game was played with (default: the module "
                   "'vmodtool build' makes from the scenario).")
@click.option("--board-sizes", type=click.Path(exists=True, dir_okay=False, path_type=str),
              default=None, help="JSON file of board sizes (boards whose image is absent).")
@click.option("--board-size", "board_size", multiple=True, metavar="NAME=WxH",
              help="Pixel size of a board whose image is not in the module (repeatable).")
@click.option("--plugins", "plugin_dirs", multiple=True,
              type=click.Path(exists=True, file_okay=False, path_type=str),
              help="Extra folder with rule plug-ins (code: only folders you name are loaded).")
@click.option("--rule", "rules", multiple=True, help="Check only these rule ids (repeatable).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
def audit(logs, scenario_path, module_path, board_sizes, board_size, plugin_dirs, rules, fmt) -> None:
    """Check the LOGS of one game (a chain of .vlog files, in order) against
    the rules of a scenario.  Lists every violation in step order with the
    rule, step, turn, phase, player, units and hexes; exit code 1 when there
    are errors (violations withdrawn by an undo do not count)."""
    from vmodtool.audit.game import audit_logs
    from vmodtool.inspection import parse_board_sizes
    from vmodtool.replay import load_board_sizes
    from vmodtool.scenario import load_scenario

    scenario = load_scenario(scenario_path)
    sizes = load_board_sizes(board_sizes) if board_sizes else {}
    sizes.update(parse_board_sizes(board_size))
    report = audit_logs([Path(p) for p in logs], scenario, module=module_path,
                        board_sizes=sizes or None, plugin_folders=[Path(d) for d in plugin_dirs],
                        only=list(rules) or None)
    if fmt == "json":
        click.echo(json.dumps(report.as_json(), ensure_ascii=False, indent=2))
    else:
        echo_lines(report.lines())
    if report.errors:
        sys.exit(EXIT_FINDINGS)


COMMANDS = [audit]
