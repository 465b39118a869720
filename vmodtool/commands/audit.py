"""``vmodtool audit``: check played logs against a scenario's rules."""

from __future__ import annotations

import json
from pathlib import Path

import click

from vmodtool.commands import (
    Command,
    board_size_options,
    board_sizes,
    check_report_output,
    extensions_option,
    format_option,
    module_option,
    report_output_option,
    warn_lines,
    with_extensions,
    write_report,
)

__all__ = ["audit"]


@click.command(cls=Command)
@click.argument("logs", nargs=-1, required=True,
                type=click.Path(exists=True, dir_okay=False, path_type=str))
@click.option("--scenario", "scenario_path", required=True,
              type=click.Path(exists=True, dir_okay=False, path_type=str),
              help="The scenario file whose rules: section is checked.")
@click.option("--scenario-name", "scenario_name", metavar="NAME",
              help="A game with several scenarios: judge the logs as this one (its id or name); by default "
                   "the scenario whose set-up the first log starts from.")
@module_option("The module the game was played with (default: the scenario's module.file, else the "
               "module 'vmodtool build' makes from the scenario).")
@extensions_option()
@report_output_option()
@format_option("text", "json", help="One line per violation, or one JSON report.")
@board_size_options
@click.option("--plugins", "plugin_dirs", multiple=True, metavar="DIR",
              type=click.Path(exists=True, file_okay=False, path_type=str),
              help="Import and run the Python rule plug-ins in this folder (repeatable); they are code "
                   "with your user's rights.")
@click.option("--trust-scenario-plugins", is_flag=True,
              help="Import and run the Python plug-in files in the scenario's own plugins.paths folders; "
                   "they are code with your user's rights — use only for scenarios you trust.")
@click.option("--rule", "rules", multiple=True, metavar="ID",
              help="Check only these rule ids (repeatable).")
@click.option("--integrity/--no-integrity", default=True, show_default=True,
              help="Also check the game's PBEM integrity (the checks of 'vmodtool check-game').")
@click.option("--warnings", "keep_warnings", is_flag=True,
              help="Keep the replay's warnings in the text report (by default they go to stderr, "
                   "counted in the summary line; the JSON report always holds them).")
@click.pass_context
def audit(ctx: click.Context, logs: tuple[str, ...], scenario_path: str, module: str | None,
          extensions: tuple[str, ...],
          output: str | None, fmt: str, board_sizes_file: str | None, board_size: tuple[str, ...],
          plugin_dirs: tuple[str, ...], trust_scenario_plugins: bool, rules: tuple[str, ...],
          integrity: bool, keep_warnings: bool, scenario_name: str | None) -> None:
    """Check played logs against a scenario's rules.

    LOGS are the logs of one game (a chain of .vlog files, in order).
    Lists every violation in step order with the rule, step, turn, phase,
    player, units and hexes.  Plug-in rules (kind: plugin) are Python code:
    none is imported without --plugins DIR or --trust-scenario-plugins, and
    each is then listed as NOT CHECKED.  The game's PBEM integrity (what
    'vmodtool check-game' checks: logs, undos, dice, off-turn moves) is
    reported after the rules (--no-integrity leaves it out).  Exit code 1
    when there are errors (violations withdrawn by an undo do not count) or
    suspicious integrity findings, 3 when there are none
    but some rule was not checked (also a rule whose subject matched no
    unit of the game), 0 only when every rule was checked and none found an
    error.  Exit code 2 when the log was saved with another module than the
    one given (-m, else the scenario's) or no piece of it is a unit of the
    scenario: the audit could not have judged the game.

    \b
    Examples:
      vmodtool audit examples/modern-tactical/logs/game-1.vlog --scenario examples/modern-tactical/scenario.yaml
      vmodtool audit turn1.vlog turn2.vlog --scenario scenario.yaml -m game.vmod -x extra.vmdx -o a.txt
    """
    from vmodtool.audit.game import audit_logs
    from vmodtool.scenario import load_scenario
    check_report_output(output, *logs, scenario_path, module, *extensions, board_sizes_file)
    sizes = board_sizes(board_sizes_file, board_size)
    # read once, for the scenario's map (map.from_module) and for the audit
    opened = with_extensions(module, extensions)
    scenario = load_scenario(scenario_path, module=opened, board_sizes=sizes or None)
    report = audit_logs([Path(p) for p in logs], scenario, module=opened,
                        board_sizes=sizes or None, plugin_folders=[Path(d) for d in plugin_dirs],
                        trust_scenario_plugins=trust_scenario_plugins, only=list(rules) or None,
                        integrity=integrity, scenario_name=scenario_name)
    if not keep_warnings and fmt != "json":        # (the JSON report holds them)
        warn_lines(f"replay: {w}" for w in report.replay_warnings)
    if fmt == "json":
        write_report([json.dumps(report.as_json(), ensure_ascii=False, indent=2)], output)
    else:
        write_report(report.lines(warnings=keep_warnings), output, one_line_items=True)
    if report.exit_code:
        ctx.exit(report.exit_code)


COMMANDS = [audit]
