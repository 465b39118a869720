"""``vmodtool lint``: check any VASSAL module for what VASSAL would reject."""

from __future__ import annotations

import json
import sys

import click

from vmodtool.commands import EXIT_FINDINGS, echo_lines

__all__ = ["lint"]


@click.command()
@click.argument("module", type=click.Path(exists=True, dir_okay=True, path_type=str))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="One line per finding, or one JSON object.")
@click.option("--min-severity", type=click.Choice(["info", "warning", "error"]),
              default="info", show_default=True, help="Hide findings below this severity.")
def lint(module: str, fmt: str, min_severity: str) -> None:
    """Check a module (.vmod/.vext, unpacked folder or bare buildFile).

    Reports duplicate gpids, missing and unused images, broken prototype
    references, grids without numbering, attribute values VASSAL rejects,
    pieces whose actions are silent in logs, and more; each finding has a
    stable code.  Exit code 1 when there are errors (whatever is shown).
    """
    from vmodtool.build.lint import at_least, findings_to_json, format_finding, lint_path, summarize

    findings = lint_path(module)
    shown = at_least(findings, min_severity)
    counts = summarize(findings)
    if fmt == "json":
        report = findings_to_json(shown, module)
        report["summary"] = counts
        click.echo(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        echo_lines(format_finding(f) for f in shown)
        hidden = len(findings) - len(shown)
        click.echo(f"{module}: {counts['error']} error(s), {counts['warning']} warning(s), "
                   f"{counts['info']} info" + (f" ({hidden} below --min-severity not shown)"
                                               if hidden else ""))
    if counts["error"]:
        sys.exit(EXIT_FINDINGS)


COMMANDS = [lint]
