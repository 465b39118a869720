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
from typing import NoReturn

import click

from vmodtool import __version__
from vmodtool.commands import CONTEXT_SETTINGS, Group
from vmodtool.exit_codes import EXIT_BUG as EXIT_BUG

#: command families, in the order ``vmodtool --help`` lists them
COMMAND_MODULES = ("formats", "scenario", "import_module", "build", "counters", "slice", "board", "terrain", "lint",
                   "replay", "audit", "report", "check_game", "merge", "batch", "templates")

#: the commands of the families above, each with its family and the first
#: paragraph of its help (what ``vmodtool --help`` shows): a family whose
#: commands are all listed here is imported only when one of them runs, so
#: that ``vmodtool --help`` and ``vmodtool inspect`` start fast; a family not
#: listed is imported at start-up.  tests/test_cli_startup.py checks the
#: table against the commands themselves.
LAZY_COMMANDS: dict[str, tuple[str, str]] = {
    "inspect": ("formats", "Summarise a module, save, log or buildFile."),
    "dump": ("formats", "Print the decoded contents of a save, log or module."),
    "check-scenario": ("scenario", "Validate a scenario file and list every problem."),
    "init": ("scenario", "Create a folder NAME with a starter scenario."),
    "schema": ("scenario", "Print the JSON Schema of scenario files."),
    "import": ("import_module", "Write a scenario skeleton that binds a module's pieces."),
    "build": ("build", "Build a VASSAL module (.vmod) from a scenario."),
    "counters": ("counters", "Render every counter face of a scenario as PNG."),
    "sheets": ("counters", "Lay out print-ready counter (and card) sheets (PDF)."),
    "slice": ("slice", "Cut a counter sheet (scan or export) into face images."),
    "board": ("board", "Draw a scenario's map board from its terrain data."),
    "grid-check": ("board", "Draw a hex grid over your own map image."),
    "terrain": ("terrain", "Read a scenario's terrain from its board image."),
    "lint": ("lint", "Check a module for what VASSAL would reject."),
    "replay": ("replay", "Replay VASSAL logs as moves between hexes."),
    "audit": ("audit", "Check played logs against a scenario's rules."),
    "check-game": ("check_game", "Check a PBEM game's integrity: logs, undos, dice."),
    "report": ("report", "Write a game as one HTML page to open in a browser."),
    "anonymize": ("merge", "Replace the player passwords in saves and logs."),
    "merge": ("merge", "Merge the logs of a PBEM game into one log."),
    "batch": ("batch", "Run a command on every game of an archive."),
    "templates": ("templates", "List the counter and card templates and preview one."),
}


class _LazyGroup(Group):
    """The group of :data:`COMMAND_MODULES`: a command's family is imported
    when the command is looked up; the command list is written from
    :data:`LAZY_COMMANDS` without importing anything."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(self.commands) | set(LAZY_COMMANDS))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in LAZY_COMMANDS:
            _load(LAZY_COMMANDS[cmd_name][0])
        return self.commands.get(cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = []
        for name in names:
            command = self.commands.get(name)
            if command is None:     # shortened as Click shortens the command's own help
                command = click.Command(name, help=LAZY_COMMANDS[name][1])
            if not command.hidden:
                rows.append((name, command.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=_LazyGroup, context_settings=CONTEXT_SETTINGS)
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


def _load(family: str) -> None:
    """Add the commands of one family module of :mod:`vmodtool.commands`
    (it lists its Click commands in ``COMMANDS``)."""
    import importlib

    for command in importlib.import_module(f"vmodtool.commands.{family}").COMMANDS:
        cli.add_command(command)


def _register() -> None:
    """Add the families that :data:`LAZY_COMMANDS` does not list."""
    lazy = {family for family, _ in LAZY_COMMANDS.values()}
    for family in COMMAND_MODULES:
        if family not in lazy:
            _load(family)


def all_commands() -> dict[str, click.Command]:
    """Every command of ``vmodtool`` by name (imports every family)."""
    for family in COMMAND_MODULES:
        _load(family)
    return dict(cli.commands)


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
            import traceback

            traceback.print_exc()
        hint = "" if "--debug" in args else "; rerun with 'vmodtool --debug ...' for the traceback"
        click.echo(f"vmodtool: internal error (a bug in vmodtool, please report it{hint}): "
                   f"{type(exc).__name__}: {next(iter(str(exc).splitlines()), '')}", err=True)
        sys.exit(EXIT_BUG)
    sys.exit(0)  # pragma: no cover - cli.main always exits in standalone mode


if __name__ == "__main__":  # pragma: no cover
    main()
