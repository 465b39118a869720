"""The ``vmodtool`` command line: thin Click commands over the library.

Click does the work: every command is a :class:`vmodtool.commands.Command`,
which turns a :class:`~vmodtool.errors.VmodError` (bad input) into a
:class:`~vmodtool.commands.BadInput` — one line on stderr and exit code 2 —
and Ctrl+C into exit 130; Click prints usage errors (exit 2) and stays quiet
on a closed pipe.  :func:`main` adds only what Click cannot know: any other
exception is a bug in vmodtool, reported on one line (with the traceback
under ``--debug``) with exit code 70.
"""

from __future__ import annotations

import sys
import traceback
from typing import NoReturn

import click

from vmodtool import __version__
from vmodtool.commands import CONTEXT_SETTINGS, Group

EXIT_BUG = 70

#: command families, in the order ``vmodtool --help`` lists them
COMMAND_MODULES = ("formats", "scenario", "import_module", "build", "counters", "board", "lint", "replay", "audit",
                   "report", "check_game")


@click.group(cls=Group, context_settings=CONTEXT_SETTINGS)
@click.version_option(__version__, prog_name="vmodtool", help="Show the version and exit.")
@click.option("--debug", is_flag=True, hidden=True, help="Show tracebacks of internal errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """Build VASSAL modules, render counters and boards, audit VASSAL logs.

    Outputs (-o/--output) are written atomically and replace an existing
    regular file; an output that is one of the inputs is refused.  Bad input
    exits with code 2, findings (audit, lint) with code 1, an audit that
    could not check every rule with code 3.  Run 'vmodtool COMMAND -h' for
    the options and examples of a command.
    """
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


_register()


def _utf8_streams() -> None:
    """Print Cyrillic names even where the locale is not UTF-8."""
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream.encoding and stream.encoding.lower().replace("-", "") != "utf8":
                stream.reconfigure(encoding="utf-8", errors="replace")  # type: ignore[union-attr]
        except (AttributeError, ValueError):
            pass


def main(argv: list[str] | None = None) -> NoReturn:
    """Console entry point."""
    _utf8_streams()
    args = sys.argv[1:] if argv is None else argv
    try:
        cli.main(args=args, prog_name="vmodtool")          # exits: Click's standalone mode
    except Exception as exc:  # noqa: BLE001 -- whatever Click and BadInput did not handle is a bug
        if "--debug" in args:
            traceback.print_exc()
        hint = "" if "--debug" in args else "; rerun with 'vmodtool --debug ...' for the traceback"
        click.echo(f"vmodtool: internal error (a bug in vmodtool, please report it{hint}): "
                   f"{type(exc).__name__}: {next(iter(str(exc).splitlines()), '')}", err=True)
        sys.exit(EXIT_BUG)
    sys.exit(0)  # pragma: no cover - cli.main always exits in standalone mode


if __name__ == "__main__":  # pragma: no cover
    main()
