"""The ``vmodtool`` command line: thin Click commands over the library.

Every user error is a :class:`~vmodtool.errors.VmodError`; :func:`main` prints
it as one line and exits with code 2.  Any other exception is a bug: it is
reported as such (with the traceback only under ``--debug``) and exits 70.
"""

from __future__ import annotations

import json
import sys
import traceback
from typing import Iterable, Optional

import click

from vmodtool import __version__
from vmodtool.errors import VmodError
from vmodtool.scenario.problems import ScenarioProblems

EXIT_BAD_INPUT = 2
EXIT_BUG = 70


def _echo_lines(lines: Iterable[str]) -> None:
    for line in lines:
        click.echo(line)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="vmodtool")
@click.option("--debug", is_flag=True, hidden=True, help="Show tracebacks of internal errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """Build VASSAL modules, render counters and boards, audit VASSAL logs."""
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug


@cli.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=True, path_type=str))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="Readable text, or one JSON object.")
@click.option("--board-size", "board_sizes", multiple=True, metavar="NAME=WxH",
              help="Pixel size of a board whose image is not in the file (repeatable).")
def inspect(file: str, fmt: str, board_sizes: tuple) -> None:
    """Show what a module, extension, save, log, buildFile or metadata file holds.

    Modules: version, maps, boards, grids, pieces and prototypes.  Saves and
    logs: encoding, module, players (never their passwords), pieces, steps.
    """
    from vmodtool.inspection import format_inspection, inspect_file, parse_board_sizes

    report = inspect_file(file, board_sizes=parse_board_sizes(board_sizes))
    if fmt == "json":
        click.echo(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        _echo_lines(format_inspection(report))


@cli.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=True, path_type=str))
@click.option("--format", "fmt", type=click.Choice(["text", "jsonl"]), default="text",
              show_default=True,
              help="Indented readable tree, or JSON Lines (one record per command).")
def dump(file: str, fmt: str) -> None:
    """Print the decoded contents of a save, log or module.

    Saves and logs: the command tree, one line per command with its path in
    the tree (``3.1.0``).  Modules and buildFiles: every piece slot and
    prototype with its trait chain.  Player ids (VASSAL passwords) are
    replaced by the player's name.
    """
    from vmodtool.inspection import dump_records, format_dump_record

    records = dump_records(file)
    if fmt == "jsonl":
        _echo_lines(json.dumps(rec, ensure_ascii=False) for rec in records)
    else:
        _echo_lines(format_dump_record(rec) for rec in records)


@cli.command("check-scenario")
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


@cli.command()
@click.argument("name")
@click.option("--dir", "parent", type=click.Path(file_okay=False, path_type=str), default=".",
              show_default=True, help="Folder in which to create the scenario folder.")
def init(name: str, parent: str) -> None:
    """Write a small commented starter scenario in a new folder NAME."""
    from vmodtool.scenario.starter import write_starter

    path = write_starter(name, parent)
    click.echo(f"wrote {path}; edit it, then run: vmodtool check-scenario {path}")


@cli.command()
def schema() -> None:
    """Print the JSON Schema of scenario files (for editors)."""
    from vmodtool.scenario import scenario_schema

    click.echo(json.dumps(scenario_schema(), ensure_ascii=False, indent=2))


def main(argv: Optional[list] = None) -> None:
    """Console entry point: map errors to exit codes."""
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream.encoding and stream.encoding.lower().replace("-", "") != "utf8":
                stream.reconfigure(encoding="utf-8", errors="replace")  # type: ignore[attr-defined]
        except (AttributeError, ValueError):
            pass
    debug = "--debug" in (argv if argv is not None else sys.argv[1:])
    try:
        cli.main(args=argv, prog_name="vmodtool", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("vmodtool: aborted", err=True)
        sys.exit(1)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except ScenarioProblems as exc:
        for line in exc.lines():
            click.echo(line, err=True)
        click.echo(f"vmodtool: error: {exc.message}", err=True)
        sys.exit(EXIT_BAD_INPUT)
    except VmodError as exc:
        click.echo(f"vmodtool: error: {exc}", err=True)
        sys.exit(EXIT_BAD_INPUT)
    except BrokenPipeError:
        try:
            sys.stdout = None  # type: ignore[assignment]
        finally:
            sys.exit(0)
    except KeyboardInterrupt:
        click.echo("vmodtool: interrupted", err=True)
        sys.exit(130)
    except Exception as exc:  # a bug: say so, and how to report it
        if debug:
            traceback.print_exc()
        click.echo(f"vmodtool: internal error (a bug in vmodtool, please report it): "
                   f"{type(exc).__name__}: {exc}"
                   + ("" if debug else "\n  rerun with 'vmodtool --debug ...' for the traceback"),
                   err=True)
        sys.exit(EXIT_BUG)
    sys.exit(0)


if __name__ == "__main__":  # pragma: no cover
    main()
