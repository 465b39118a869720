"""``python -m vmodtool`` = the ``vmodtool`` command."""

from vmodtool.cli import main

main()
