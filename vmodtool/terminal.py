"""The terminal's width, found without :mod:`shutil` (which brings three
compression modules into every start): the one place the command line reads
it."""

from __future__ import annotations

import os
import sys

__all__ = ["terminal_columns", "help_width"]


def terminal_columns() -> int:
    """The terminal's width as :func:`shutil.get_terminal_size` finds it
    (``$COLUMNS``, then stdout's terminal, else 80)."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


def help_width(max_content_width: int | None = None) -> int:
    """The width Click lays a help page out in for this terminal: its width
    less 2, between 50 and ``max_content_width`` (80 by default)."""
    return max(min(terminal_columns(), max_content_width or 80) - 2, 50)
