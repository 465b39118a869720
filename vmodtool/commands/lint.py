"""``vmodtool lint``: check any VASSAL module for what VASSAL would reject."""

from __future__ import annotations

import json
from collections.abc import Iterator

import click

from vmodtool.commands import (
    EXIT_FINDINGS,
    Command,
    check_report_output,
    format_option,
    report_output_option,
    write_report,
)

__all__ = ["lint"]


@click.command(cls=Command)
@click.argument("module", type=click.Path(exists=True, dir_okay=True, path_type=str))
@report_output_option()
@format_option("text", "json", help="One line per finding, or one JSON object.")
@click.option("--min-severity", type=click.Choice(["info", "warning", "error"]),
              default="info", show_default=True, help="Hide findings below this severity.")
@click.pass_context
def lint(ctx: click.Context, module: str, output: str | None, fmt: str, min_severity: str) -> None:
    """Check a module for what VASSAL would reject.

    MODULE is a .vmod/.vext, an unpacked folder or a bare buildFile.
    Reports duplicate gpids, missing and unused images, broken prototype
    references, grids without numbering, attribute values VASSAL rejects,
    pieces whose actions are silent in logs, and more; each finding has a
    stable code.  Exit code 1 when there are errors (whatever is shown).

    \b
    Examples:
      vmodtool lint examples/formats/demo.vmod
      vmodtool lint game.vmod --min-severity warning --format json -o lint.json
    """
    from vmodtool.lint import at_least, findings_to_json, format_finding, lint_path, summarize

    check_report_output(output, module)
    findings = lint_path(module)
    shown = at_least(findings, min_severity)
    counts = summarize(findings)

    def text() -> Iterator[str]:
        yield from (format_finding(f) for f in shown)
        hidden = len(findings) - len(shown)
        yield (f"{module}: {counts['error']} error(s), {counts['warning']} warning(s), "
               f"{counts['info']} info" + (f" ({hidden} below --min-severity not shown)"
                                           if hidden else ""))

    if fmt == "json":
        report = findings_to_json(shown, module)
        report["summary"] = counts
        write_report([json.dumps(report, ensure_ascii=False, indent=2)], output)
    else:
        write_report(text(), output, one_line_items=True)
    if counts["error"]:
        ctx.exit(EXIT_FINDINGS)


COMMANDS = [lint]
