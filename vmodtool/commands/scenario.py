"""``vmodtool check-scenario``, ``init`` and ``schema``: scenario files."""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Iterator

import click

from vmodtool.commands import (
    EXIT_BAD_INPUT,
    Command,
    board_size_options,
    board_sizes,
    check_output,
    check_report_output,
    format_option,
    module_option,
    output_option,
    report_output_option,
    write_report,
)

__all__ = ["check_scenario_command", "init", "schema"]


@click.command("check-scenario", cls=Command)
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=str))
@report_output_option()
@format_option("text", "json", help="One line per problem, or a JSON report.")
@module_option("The module the game is played with, for a scenario whose map is taken from the module "
               "(map.from_module; default: the scenario's module.file).")
@board_size_options
@click.pass_context
def check_scenario_command(ctx: click.Context, file: str, output: str | None, fmt: str, module: str | None,
                           board_sizes_file: str | None, board_size: tuple[str, ...]) -> None:
    """Validate a scenario file and list every problem.

    Each problem has its file, line, column and key path.  Exit code 0 when
    the scenario is valid (warnings are listed but allowed), 2 when it has
    errors.  A scenario whose map is taken from a module (map.from_module)
    reads that module: its module.file, or -m MODULE.

    \b
    Examples:
      vmodtool check-scenario examples/modern-tactical/scenario.yaml
      vmodtool check-scenario --format json tld.yaml -m TheLongestDay.vmod -o problems.json
    """
    from vmodtool.scenario import check_scenario
    from vmodtool.scenario.summary import scenario_summary

    check_report_output(output, file, module, board_sizes_file)
    scenario, problems = check_scenario(file, module=module,
                                        board_sizes=board_sizes(board_sizes_file, board_size) or None)
    if scenario is not None and scenario.decks:
        # what build and the sheets would refuse: a card text too long for its template
        from vmodtool.render.cards import card_text_problems
        problems = sorted(problems + card_text_problems(scenario), key=lambda p: (p.file or "", p.line or 0,
                                                                                 p.column or 0))
    errors = [p for p in problems if p.severity == "error"]

    def text() -> Iterator[str]:
        for problem in problems:
            yield str(problem)
        if errors:
            warnings = len(problems) - len(errors)
            yield (f"{file}: {len(errors)} error{'s' if len(errors) != 1 else ''}"
                   + (f", {warnings} warning(s)" if warnings else ""))
        elif scenario is not None:
            yield f"{file}: ok — {scenario_summary(scenario)['text']}"

    if fmt == "json":
        write_report([json.dumps({"file": file, "valid": not errors,
                                  "summary": scenario_summary(scenario) if scenario and not errors
                                  else None,
                                  "problems": [p.as_dict() for p in problems]},
                                 ensure_ascii=False, indent=2)], output)
    else:
        # one line per problem: a newline in a name from the file (an imported
        # module's title) is escaped, not a forged report line
        write_report(text(), output, one_line_items=True)
    if errors:
        ctx.exit(EXIT_BAD_INPUT)


@click.command(cls=Command)
@click.argument("name")
@click.option("--dir", "parent", type=click.Path(file_okay=False, path_type=str), default=".",
              show_default=True, help="Folder in which to create the folder NAME.")
def init(name: str, parent: str) -> None:
    """Create a folder NAME with a starter scenario.

    The scenario.yaml in it is small, valid and commented.  init creates a
    new project: it refuses a NAME that already exists.

    \b
    Examples:
      vmodtool init "River Crossing"
      vmodtool init river-crossing --dir ~/games
    """
    from vmodtool.scenario.starter import write_starter

    path = write_starter(name, parent)
    # quoted for the shell, so the hint can be pasted as it is (a folder
    # name with a space: "Marne Salient 1918")
    click.echo(f"wrote {path}; edit it, then run: vmodtool check-scenario {_shell_word(str(path))}")


def _shell_word(text: str, *, windows: bool | None = None) -> str:
    """``text`` as one word of the user's shell: as it is when it is
    letters (any script: "мой-сценарий/scenario.yaml"), digits and
    ``@%+=:,./-``, else quoted by ``shlex.quote`` for a POSIX shell.  On
    Windows (``windows``; default: this system) a word of letters, digits
    and ``.:\\/-`` stays as it is, anything else goes in double quotes,
    which cmd.exe and PowerShell both read as one word (a Windows file name
    cannot hold a double quote; ``$``, a backtick or ``%NAME%`` in it would
    still be expanded there, as in any double-quoted word)."""
    if windows is None:
        windows = os.name == "nt"
    if windows:
        return text if re.fullmatch(r"[\w.:\\/-]+", text) else f'"{text}"'
    return text if re.fullmatch(r"[\w@%+=:,./-]+", text) else shlex.quote(text)


@click.command(cls=Command)
@output_option("Write the schema to FILE.json instead of stdout (an existing file is replaced).")
def schema(output: str | None) -> None:
    """Print the JSON Schema of scenario files.

    Editors use it to complete and check scenario files as you type.

    \b
    Examples:
      vmodtool schema -o scenario.schema.json
    """
    from vmodtool.scenario import scenario_schema

    if output is not None:
        check_output(output, suffixes=(".json",), what="a JSON Schema")
    write_report([json.dumps(scenario_schema(), ensure_ascii=False, indent=2)], output)


COMMANDS = [check_scenario_command, init, schema]
