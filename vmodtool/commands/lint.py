"""``vmodtool lint``: check any VASSAL module for what VASSAL would reject."""

from __future__ import annotations

import json

import click

from vmodtool.commands import (
    Command,
    check_report_output,
    format_option,
    report_output_option,
    write_report,
)

__all__ = ["lint"]


@click.command(cls=Command)
@click.argument("file", metavar="MODULE", type=click.Path(exists=True, dir_okay=True, path_type=str))
@click.option("-m", "--module", "module", default=None, type=click.Path(exists=True, path_type=str),
              help="With an extension (.vmdx): the module it extends, to check its targets, prototypes "
                   "and images.")
@report_output_option()
@format_option("text", "json", help="One line per finding, or one JSON object.")
@click.option("--min-severity", type=click.Choice(["info", "warning", "error"]),
              default="info", show_default=True, help="Hide findings below this severity.")
@click.pass_context
def lint(ctx: click.Context, file: str, module: str | None, output: str | None, fmt: str,
         min_severity: str) -> None:
    """Check a module for what VASSAL would reject.

    MODULE is a .vmod/.vext, an unpacked folder or a bare buildFile.
    Reports duplicate gpids, missing and unused images, broken prototype
    references, grids without numbering, attribute values VASSAL rejects,
    pieces whose actions are silent in logs, and more; each finding has a
    stable code.  Exit code 1 when there are errors (whatever is shown).
    An extension (.vmdx) is linted against its module (-m): every target
    must name a component of it; without it, exit code 3 (not checked).

    \b
    Examples:
      vmodtool lint examples/formats/demo.vmod
      vmodtool lint extra.vmdx -m game.vmod --min-severity warning --format json -o lint.json
    """
    from vmodtool.lint import lint_result

    check_report_output(output, file, module)
    result = lint_result(file, min_severity, module)
    if fmt == "json":
        write_report([json.dumps(result.as_json(), ensure_ascii=False, indent=2)], output)
    else:
        write_report(result.lines(), output, one_line_items=True)
    if result.exit_code:
        ctx.exit(result.exit_code)


COMMANDS = [lint]
