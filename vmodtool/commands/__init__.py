"""The Click commands of ``vmodtool``, one module per family; each command
only parses options and calls the library (imported inside the command, so
that ``vmodtool --help`` stays fast).  :mod:`vmodtool.cli` collects them.

One convention for every command lives here: the shared options
(``-o/--output``, ``-m/--module``, ``-j/--jobs``, ``--format``, ``--dpi``,
``--board-size(s)``, ``-q/--quiet``), the output checks (never an input,
the right extension, only a regular file replaced) and reports written to
stdout (no ``-o``, or ``-o -``) or atomically to a file.  Whatever reaches
the terminal or a report from an input (chat lines, names, library
messages) is escaped: :mod:`vmodtool.textsafe`.
Errors are left to Click: a :class:`~vmodtool.errors.VmodError` becomes a
:class:`BadInput` (exit 2) in :meth:`Command.invoke`, the one place that
maps it; commands never call ``sys.exit``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:
    from click._termui_impl import ProgressBar

    from vmodtool.vassal.module import Module

from vmodtool.errors import VmodError

# the exit codes live in vmodtool.exit_codes; re-exported for the command modules
from vmodtool.exit_codes import EXIT_BAD_INPUT as EXIT_BAD_INPUT
from vmodtool.exit_codes import EXIT_FINDINGS as EXIT_FINDINGS
from vmodtool.exit_codes import EXIT_INTERRUPTED as EXIT_INTERRUPTED
from vmodtool.exit_codes import EXIT_NOT_CHECKED as EXIT_NOT_CHECKED
from vmodtool.terminal import help_width

F = TypeVar("F", bound=Callable[..., Any])


# --------------------------------------------------------------------------
# errors

class BadInput(click.ClickException):
    """Bad input (a file, an option value): ``vmodtool: error: …`` on stderr,
    after the ``details`` lines (every problem of a scenario), and exit 2."""

    exit_code = EXIT_BAD_INPUT

    def __init__(self, message: str, details: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.details = list(details)

    @classmethod
    def from_error(cls, error: VmodError) -> BadInput:
        from vmodtool.scenario.problems import ScenarioProblems

        if isinstance(error, ScenarioProblems):     # every problem, then how many
            count = sum(1 for p in error.problems if p.severity == "error")
            where = f"{error.file}: " if error.file else ""
            return cls(f"{where}{count} error{'s' if count != 1 else ''} in the scenario (listed above)",
                       error.lines())
        return cls(str(error))

    def show(self, file: IO[Any] | None = None) -> None:
        from vmodtool.textsafe import escape_controls

        for line in self.details:           # one line each, whatever a problem quotes
            click.echo(escape_controls(line), file=file, err=file is None)
        click.echo(f"vmodtool: error: {escape_controls(self.format_message())}", file=file,
                   err=file is None)


class Interrupted(click.ClickException):
    """Ctrl+C: ``vmodtool: interrupted`` and exit 130, as a shell expects."""

    exit_code = EXIT_INTERRUPTED

    def __init__(self) -> None:
        super().__init__("interrupted")

    def show(self, file: IO[Any] | None = None) -> None:
        click.echo("vmodtool: interrupted", file=file, err=file is None)


class _MapsErrors:
    """Turns the library's errors into Click's: the one place that does."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)  # type: ignore[misc]
        except VmodError as exc:
            raise BadInput.from_error(exc) from exc
        except KeyboardInterrupt:
            raise Interrupted() from None


class HelpContext(click.Context):
    """Click's context with the help laid out as Click lays it out (the
    terminal's width less 2, between 50 and ``max_content_width``), the width
    found by :func:`vmodtool.terminal.terminal_columns`: ``vmodtool --help``
    starts faster."""

    def make_formatter(self) -> click.HelpFormatter:
        width = self.terminal_width
        if width is None and click.formatting.FORCED_WIDTH is None:
            width = help_width(self.max_content_width)
        return self.formatter_class(width=width, max_width=self.max_content_width)


#: ``-h`` as well as ``--help``, for the group and every command
CONTEXT_SETTINGS: dict[str, Any] = {"help_option_names": ["-h", "--help"]}


class Command(_MapsErrors, click.Command):
    """A vmodtool command: bad input (a :class:`VmodError`) exits 2 with one
    line and ``-h`` shows the help, whether it runs under ``vmodtool`` or on
    its own (Click keeps the help option of the first run)."""

    context_class = HelpContext

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["context_settings"] = {**CONTEXT_SETTINGS, **(kwargs.get("context_settings") or {})}
        super().__init__(*args, **kwargs)


class Group(_MapsErrors, click.Group):
    """The ``vmodtool`` group; its commands are :class:`Command` s."""

    command_class = Command
    context_class = HelpContext


# --------------------------------------------------------------------------
# shared options: one spelling, type and help for every command

REPLACED = "an existing file is replaced"
#: ``-o -``: a report on stdout, as if ``-o`` were not given
STDOUT = "-"


def output_option(what: str, *, required: bool = False, folder: bool = False,
                  metavar: str | None = None) -> Callable[[F], F]:
    """``-o/--output``: ``what`` is written there (a file, or a folder)."""
    kind = click.Path(file_okay=not folder, dir_okay=folder, path_type=str)
    return click.option("-o", "--output", "output", required=required, type=kind,
                        metavar=metavar or ("DIR" if folder else "FILE"), help=what)


def report_output_option() -> Callable[[F], F]:
    """``-o/--output FILE`` of a report (otherwise printed on stdout)."""
    return output_option(f"Write the report to FILE instead of stdout ({REPLACED}; "
                         "'-' is stdout).")


def module_option(help: str) -> Callable[[F], F]:
    return click.option("-m", "--module", "module", default=None,
                        type=click.Path(exists=True, path_type=str), help=help)


def extensions_option() -> Callable[[F], F]:
    """``-x/--extension FILE.vmdx`` (repeatable): extensions loaded into the ``-m`` module."""
    return click.option("-x", "--extension", "extensions", multiple=True, metavar="FILE.vmdx",
                        type=click.Path(exists=True, dir_okay=False, path_type=str),
                        help="An extension of the module (-m) the game was played with, loaded into it as "
                             "VASSAL does (repeatable, in load order).")


def with_extensions(module: str | None, extensions: tuple[str, ...]) -> Module | None:
    """The ``-m`` module opened with its ``-x`` extensions loaded (None: no module)."""
    if module is None:
        if extensions:
            raise click.UsageError("-x/--extension needs the module it extends (-m)")
        return None
    from vmodtool.vassal.extension import open_extended

    return open_extended(module, extensions)


def jobs_option() -> Callable[[F], F]:
    return click.option("-j", "--jobs", "jobs", type=click.IntRange(0, 256), default=0,
                        show_default=True, metavar="N",
                        help="Worker processes (0 = all cores, 1 = no workers: all in this process).")


def format_option(*choices: str, help: str) -> Callable[[F], F]:
    return click.option("--format", "fmt", type=click.Choice(list(choices)), default=choices[0],
                        show_default=True, help=help)


def quiet_option(help: str = "No progress bar.") -> Callable[[F], F]:
    return click.option("-q", "--quiet", "quiet", is_flag=True, help=help)


#: print resolutions vmodtool draws (dots per inch)
DPI = click.IntRange(50, 1200)


def dpi_option(help: str, *, choices: Sequence[int] = (), multiple: bool = False,
               default: Any = None) -> Callable[[F], F]:
    """``--dpi N``: always a whole number; ``choices`` when only some work."""
    allowed = tuple(choices)

    def check(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        values = value if multiple else (value,)
        for v in values:
            if allowed and v is not None and v not in allowed:
                raise click.BadParameter(f"{v} is not one of {', '.join(map(str, allowed))}")
        return value

    metavar = "[" + "|".join(map(str, allowed)) + "]" if allowed else "N"
    return click.option("--dpi", type=click.INT if allowed else DPI, multiple=multiple, default=default,
                        show_default=default is not None, metavar=metavar, callback=check,
                        help=help)


def board_size_options(f: F) -> F:
    """``--board-sizes FILE.json`` and ``--board-size NAME=WxH`` (repeatable)."""
    f = click.option("--board-size", "board_size", multiple=True, metavar="NAME=WxH",
                     help="Pixel size of a board whose image is absent (repeatable).")(f)
    return click.option("--board-sizes", "board_sizes_file", default=None, metavar="FILE.json",
                        type=click.Path(exists=True, dir_okay=False, path_type=str),
                        help="JSON file of board pixel sizes (as board-sizes.json).")(f)


def board_sizes(file: str | None, values: Sequence[str]) -> dict[str, tuple[int, int]]:
    """What :func:`board_size_options` gave: the file's sizes, then each
    ``NAME=WxH`` over them."""
    from vmodtool.inspection import parse_board_sizes

    sizes: dict[str, tuple[int, int]] = {}
    if file:                        # the replay layer only when a file is given
        from vmodtool.replay import load_board_sizes
        sizes = load_board_sizes(file)
    sizes.update(parse_board_sizes(values))
    return sizes


# --------------------------------------------------------------------------
# outputs

#: extensions a text or JSON report must not get: they name the binary
#: files vmodtool reads and writes
_BINARY_SUFFIXES = {".vmod": "a VASSAL module", ".vext": "a VASSAL extension",
                    ".vmdx": "a VASSAL module", ".vsav": "a VASSAL save", ".vlog": "a VASSAL log",
                    ".png": "a PNG image", ".jpg": "a JPEG image", ".jpeg": "a JPEG image",
                    ".gif": "a GIF image", ".pdf": "a PDF document", ".zip": "a ZIP archive"}


def check_output(output: str, *inputs: str | None, suffixes: Sequence[str] = (),
                 what: str = "", hint: str = "") -> None:
    """Refuse an output that is one of ``inputs`` or whose extension is not
    one of ``suffixes`` (``what`` names what is written: "a PDF")."""
    from vmodtool.fileio import refuse_overwrite

    suffix = Path(output).suffix.lower()
    if suffixes and suffix not in suffixes:
        raise BadInput(f"{output}: this command writes {what}, so the name must end in "
                       f"{' or '.join(suffixes)}" + (f" ({hint})" if hint else ""))
    refuse_overwrite(output, *[i for i in inputs if i])


def check_report_output(output: str | None, *inputs: str | None) -> None:
    """A report file: never an input, never named like a binary file, never
    something other than a regular file (``-o /dev/stdout`` is a device:
    ``-o -`` is the way to say stdout)."""
    if output is None or output == STDOUT:
        return
    from vmodtool.fileio import output_kind

    kind = output_kind(output, follow=True)       # /dev/stdout is a link to the terminal or a pipe
    if kind in ("a character device", "a named pipe (FIFO)", "a socket"):
        raise BadInput(f"{output}: this is {kind}, and a report only replaces a regular file; "
                       "to print the report on stdout, leave out -o or give -o -")
    suffix = Path(output).suffix.lower()
    if suffix in _BINARY_SUFFIXES:
        raise BadInput(f"{output}: the report is text, but {suffix} names {_BINARY_SUFFIXES[suffix]}; "
                       "choose a .txt or .json name")
    check_output(output, *inputs)


def check_folder_output(folder: str, option: str = "-o") -> None:
    """A folder output whose name is that of a file (``-o out.png``) is
    refused: the files go inside it."""
    from vmodtool.fileio import output_kind

    kind = output_kind(folder)
    if kind is not None and kind != "a folder":
        raise BadInput(f"{folder}: {option} names the folder the images are written into, but this "
                       f"is {kind}")
    suffix = Path(folder).suffix.lower()
    if suffix in _BINARY_SUFFIXES:
        raise BadInput(f"{folder}: {option} names the folder the images are written into, but "
                       f"{suffix} names {_BINARY_SUFFIXES[suffix]}; give a folder name")


def write_report(lines: Iterable[str], output: str | None, *, one_line_items: bool = False) -> None:
    """The lines of a report on stdout (``output`` ``None`` or ``-``), or
    written atomically to ``output`` (an error while they are made leaves an
    existing file as it was).  Each item passes
    :func:`~vmodtool.textsafe.escape_report`: no control character, C1
    control or bidi override from an input reaches the terminal or the file
    (the report's own tabs and newlines stay; JSON stays valid JSON).  With
    ``one_line_items`` (text reports) every item is one line: a newline in
    it, which can only come from a name or text in a file, is escaped too."""
    from vmodtool.textsafe import escape_controls, escape_report

    def escape(item: str) -> str:
        return escape_controls(item) if one_line_items else escape_report(item)

    if output is None or output == STDOUT:
        for line in lines:
            click.echo(escape(line))
        return
    from vmodtool.fileio import atomic_write

    atomic_write(output, (f"{escape(line)}\n".encode() for line in lines))


def warn_lines(lines: Iterable[str]) -> None:
    """Warnings on stderr, one line each, escaped as a report's items
    (the report on stdout stays the report)."""
    from vmodtool.textsafe import escape_controls

    for line in lines:
        click.echo(escape_controls(line), err=True)


class ProgressBars:
    """Click progress bars on stderr, one per label, for the library's
    ``progress(done, total)`` callbacks; only runs of at least ``minimum``
    items get one."""

    def __init__(self, show: bool, minimum: int) -> None:
        self.show = show
        self.minimum = minimum
        self.bars: dict[str, ProgressBar[int]] = {}

    def update(self, label: str, done: int, total: int) -> None:
        if not self.show or total < self.minimum:
            return
        bar = self.bars.get(label)
        if bar is None:
            bar = self.bars[label] = click.progressbar(length=total, label=label, file=sys.stderr)
            bar.__enter__()
        bar.update(done - bar.pos)
        if done >= total:
            bar.__exit__(None, None, None)


def warn(message: str) -> None:
    """A warning: always on stderr, never in a report; one line, whatever
    it quotes from an input."""
    from vmodtool.textsafe import escape_controls

    click.echo(f"warning: {escape_controls(message)}", err=True)


def echo_lines(lines: Iterable[str]) -> None:
    for line in lines:
        click.echo(line)
