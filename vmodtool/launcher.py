"""The ``vmodtool`` console entry point: the Click command line
(:func:`vmodtool.cli.main`), and what a command leaves when it returns frozen
for the collector (``gc.freeze``) before the interpreter shuts down: the
process is ending, and the full collections of the shutdown would only walk
it again (a tenth of a cold module build's wall time after its output was
written).  ``vmodtool --help`` goes through Click like every other command
line; it imports only :mod:`vmodtool.cli` and the command table, not the
commands (``tests/test_cli_startup.py``).
"""

from __future__ import annotations

import gc
import sys
from typing import NoReturn

__all__ = ["main"]


def main() -> NoReturn:
    """Console entry point."""
    from vmodtool.cli import main as cli_main

    try:
        cli_main(sys.argv[1:])
    finally:
        # the collections Python runs while it shuts down would walk every
        # object the command left; frozen, they are freed by reference count
        # as the modules are cleared and the rest goes with the process.
        # atexit handlers still run, and vmodtool closes its own files before
        # it returns.
        gc.freeze()
