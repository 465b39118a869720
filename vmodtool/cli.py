"""The ``vmodtool`` command line: thin Click commands over the library.

Every user error is a :class:`~vmodtool.errors.VmodError`; :func:`main` prints
it as one line and exits with code 2.  Any other exception is a bug: it is
reported as such (with the traceback only under ``--debug``) and exits 70.
"""

from __future__ import annotations

import sys
import traceback

import click

from vmodtool import __version__
from vmodtool.commands import EXIT_BAD_INPUT
from vmodtool.errors import VmodError
from vmodtool.scenario.problems import ScenarioProblems

EXIT_BUG = 70


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="vmodtool")
@click.option("--debug", is_flag=True, hidden=True, help="Show tracebacks of internal errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """Build VASSAL modules, render counters and boards, audit VASSAL logs."""
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug


def _register() -> None:
    """Add the commands of every family module in :mod:`vmodtool.commands`
    (each lists its Click commands in ``COMMANDS``)."""
    import importlib

    for name in COMMAND_MODULES:
        module = importlib.import_module(f"vmodtool.commands.{name}")
        for command in module.COMMANDS:
            cli.add_command(command)


#: command families, in the order ``vmodtool --help`` lists them
COMMAND_MODULES = ("formats", "scenario", "build", "counters", "board", "lint", "replay", "audit")
_register()


def main(argv: list | None = None) -> None:
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
