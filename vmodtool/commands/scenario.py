"""``vmodtool check-scenario``, ``init`` and ``schema``: scenario files."""

from __future__ import annotations

import json
import sys

import click

from vmodtool.commands import EXIT_BAD_INPUT

__all__ = ["check_scenario_command", "init", "schema"]


@click.command("check-scenario")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=str))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="One line per problem, or a JSON report.")
def check_scenario_command(file: str, fmt: str) -> None:
    """Validate a scenario file and list every problem with its line.

    Exit code 0 when the scenario is valid (warnings are shown but allowed),
    2 when it has errors.
    """
    from vmodtool.scenario import check_scenario
    from vmodtool.scenario.report import scenario_summary

    scenario, problems = check_scenario(file)
    errors = [p for p in problems if p.severity == "error"]
    if fmt == "json":
        click.echo(json.dumps({"file": file, "valid": not errors,
                               "summary": scenario_summary(scenario) if scenario and not errors else None,
                               "problems": [p.as_dict() for p in problems]},
                              ensure_ascii=False, indent=2))
    else:
        for problem in problems:
            click.echo(str(problem), err=True)
        if errors:
            click.echo(f"{file}: {len(errors)} error{'s' if len(errors) != 1 else ''}"
                       + (f", {len(problems) - len(errors)} warning(s)" if len(problems) > len(errors) else ""),
                       err=True)
        elif scenario is not None:
            click.echo(f"{file}: ok — {scenario_summary(scenario)['text']}")
    if errors:
        sys.exit(EXIT_BAD_INPUT)


@click.command()
@click.argument("name")
@click.option("--dir", "parent", type=click.Path(file_okay=False, path_type=str), default=".",
              show_default=True, help="Folder in which to create the scenario folder.")
def init(name: str, parent: str) -> None:
    """Write a small commented starter scenario in a new folder NAME."""
    from vmodtool.scenario.starter import write_starter

    path = write_starter(name, parent)
    click.echo(f"wrote {path}; edit it, then run: vmodtool check-scenario {path}")


@click.command()
def schema() -> None:
    """Print the JSON Schema of scenario files (for editors)."""
    from vmodtool.scenario import scenario_schema

    click.echo(json.dumps(scenario_schema(), ensure_ascii=False, indent=2))


COMMANDS = [check_scenario_command, init, schema]
