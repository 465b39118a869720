"""The ``vmodtool`` console entry point: ``vmodtool --help`` from a cache,
everything else through the Click command line (:mod:`vmodtool.cli`).

Importing Click costs about as much as starting Python, so ``vmodtool
--help`` (or ``-h``) alone prints the page Click wrote the last time, for the
same help width, kept in ``$XDG_CACHE_HOME/vmodtool/help/`` (``~/.cache``
without it), and imports nothing else.  A cached page is used only when its
first line names the same vmodtool version and the same files that write the
page (``cli.py``, ``commands/__init__.py`` and Click's own, by size and
modification time), and when it is plain printable text; otherwise Click
writes the page, which is printed and cached (written atomically; a cache
that cannot be written is no error).  The page printed is byte for byte
Click's (``tests/test_cli_startup.py``).

Whatever a command leaves when it returns is frozen for the collector
(``gc.freeze``) before the interpreter shuts down: the process is ending,
and the full collections of the shutdown would only walk it again.
"""

from __future__ import annotations

import gc
import os
import sys
from typing import NoReturn

from vmodtool import __version__
from vmodtool.terminal import help_width

__all__ = ["main", "help_cache_file", "help_key"]

_HELP_ARGS = (["--help"], ["-h"])
_MAX_PAGE = 64 * 1024          # bytes: a cached page larger than this is not ours
_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def _stamp(path: str) -> str:
    st = os.stat(path)
    return f"{st.st_size}:{st.st_mtime_ns}"


def _click_init() -> str | None:
    """Click's ``__init__.py`` as an import would find it on ``sys.path``
    (without importing it), or None."""
    for entry in sys.path:
        candidate = os.path.join(entry or ".", "click", "__init__.py")
        if os.path.isfile(candidate):
            return candidate
    return None


def help_key() -> str | None:
    """What a cached page must have been written by: the version and the
    stamps of the files that write it; None when one cannot be found."""
    click_init = _click_init()
    if click_init is None:
        return None
    try:
        stamps = [_stamp(os.path.join(_PACKAGE, "cli.py")),
                  _stamp(os.path.join(_PACKAGE, "commands", "__init__.py")), _stamp(click_init)]
    except OSError:
        return None
    return f"vmodtool-help {__version__} {' '.join(stamps)}"


def help_cache_file(width: int) -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "vmodtool", "help", f"help-{width}.txt")


def _printable(page: str) -> bool:
    return all(ch == "\n" or ch.isprintable() for ch in page)


def _cached_page(path: str, key: str) -> str | None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        data = os.read(fd, _MAX_PAGE + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(data) > _MAX_PAGE:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    first, sep, page = text.partition("\n")
    if not sep or first != key or not page or not _printable(page):
        return None
    return page


def _store(path: str, key: str, page: str) -> None:
    """Write the cache entry atomically (a temporary file beside it, then
    renamed); any failure leaves no entry and is not an error."""
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, f"{key}\n{page}".encode())
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def _print(page: str) -> NoReturn:
    try:
        sys.stdout.buffer.write(page.encode("utf-8"))
        sys.stdout.flush()
    except BrokenPipeError:       # `vmodtool --help | head`: quiet, as Click is
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    sys.exit(0)


def _clicks_page() -> str:
    """The top-level help exactly as ``vmodtool --help`` prints it through
    Click (its text and the newline ``click.echo`` adds)."""
    from vmodtool.cli import cli

    ctx = cli.context_class(cli, info_name="vmodtool", **cli.context_settings)
    return ctx.get_help() + "\n"


def main() -> NoReturn:
    """Console entry point."""
    args = sys.argv[1:]
    if args in _HELP_ARGS and "_VMODTOOL_COMPLETE" not in os.environ:     # not shell completion
        key = help_key()
        if key is not None:
            path = help_cache_file(help_width())
            page = _cached_page(path, key)
            if page is None:
                page = _clicks_page()
                if _printable(page) and len(page.encode("utf-8")) <= _MAX_PAGE:
                    _store(path, key, page)
            _print(page)
    from vmodtool.cli import main as cli_main

    try:
        cli_main(args)
    finally:
        # the process ends here: the collections Python runs while it shuts
        # down would walk every object the command left (a tenth of a cold
        # module build's wall time after its output was written); frozen,
        # they are freed by reference count as the modules are cleared and
        # the rest goes with the process.  atexit handlers still run, and
        # vmodtool closes its own files before it returns.
        gc.freeze()
