"""Loading the ``log`` section: how the game's logs report dice and turns
(its regular expressions compiled here, so that a bad one is a problem of
the file, with its line)."""

from __future__ import annotations

import re
import warnings
from typing import Any

from vmodtool.scenario import limits as L
from vmodtool.scenario.collector import ProblemCollector
from vmodtool.scenario.problems import Path

__all__ = ["build_log", "check_regex"]


def build_log(c: ProblemCollector) -> dict[str, Any]:
    p = ("log",)
    log: dict[str, Any] = c.get(p, dict, {})
    for path in (p + ("dice_regex",), p + ("typed_chat_regex",), p + ("turn_tracker", "report_regex")):
        pattern = c.text(path)
        if pattern:
            check_regex(c, path, pattern)
    return log


def _group_depth(pattern: str) -> int:
    """How deep the groups of ``pattern`` nest (escapes and classes skipped)."""
    depth = deepest = 0
    escaped = in_class = False
    for char in pattern:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif char == ")":
            depth = max(0, depth - 1)
    return deepest


def check_regex(c: ProblemCollector, path: Path, pattern: str) -> None:
    """Compile a regex of the scenario: Python's regex parser recurses per
    group (so the nesting is bounded first) and refuses repetition counts
    past 2³²−1 with OverflowError; its warnings become the scenario's."""
    deepest = _group_depth(pattern)
    if deepest > L.MAX_DEPTH:
        c.err(path, f"the regular expression nests {deepest} groups; at most {L.MAX_DEPTH}")
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            re.compile(pattern)
        except (re.error, OverflowError) as exc:
            c.err(path, f"not a valid regular expression: {exc}")
        except RecursionError:   # pragma: no cover - the nesting is bounded above
            c.err(path, "not a valid regular expression: nested too deeply")
    for warning in caught:
        c.err(path, f"regular expression: {warning.message}", severity="warning")
