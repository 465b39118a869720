"""``python -m vmodtool`` = the ``vmodtool`` command."""

from vmodtool.launcher import main

main()
