"""The exit codes of every command, and the one policy that turns a check's
result into one (a result carries its own ``exit_code``, as click's
exceptions do): the commands and ``vmodtool batch`` read it from there.

- 0: done, nothing found;
- 1: findings (an audit's errors, check-game's suspicious findings, lint errors);
- 2: bad input (a file that cannot be read or is not what it should be);
- 3: nothing found, but some check could not look at the game (NOT CHECKED:
  never an all-clear);
- 70: a bug in vmodtool;
- 130: interrupted.
"""

from __future__ import annotations

__all__ = ["EXIT_OK", "EXIT_FINDINGS", "EXIT_BAD_INPUT", "EXIT_NOT_CHECKED", "EXIT_BUG", "EXIT_INTERRUPTED",
           "check_exit_code"]

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_BAD_INPUT = 2
EXIT_NOT_CHECKED = 3
EXIT_BUG = 70
EXIT_INTERRUPTED = 130


def check_exit_code(*, found: bool, complete: bool) -> int:
    """A check's exit code: findings win over what could not be looked at,
    which is never reported as clean."""
    if found:
        return EXIT_FINDINGS
    return EXIT_OK if complete else EXIT_NOT_CHECKED
