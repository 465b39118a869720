"""The Click commands of ``vmodtool``, one module per family; each command
only parses options and calls the library (imported inside the command, so
that ``vmodtool --help`` stays fast).  :mod:`vmodtool.cli` collects them."""

from __future__ import annotations

from collections.abc import Iterable

import click

EXIT_BAD_INPUT = 2
EXIT_FINDINGS = 1


def echo_lines(lines: Iterable[str]) -> None:
    for line in lines:
        click.echo(line)
