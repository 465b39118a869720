"""Interleaved measurements, each in a fresh process: a benchmark script
measures one thing when run with ``--one NAME`` (printing ``seconds count``)
and compares several with :func:`interleaved` (a replay's caches and
garbage would slow the next measurement in the same process; interleaving
makes a busy machine slow all of them alike)."""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Callable, Sequence


def interleaved(script: str, names: Sequence[str], runs: int) -> tuple[dict[str, list[float]], dict[str, int]]:
    """(name -> seconds of each run, name -> the count it printed) of
    ``script --one NAME`` for every name, ``runs`` rounds."""
    timings: dict[str, list[float]] = {name: [] for name in names}
    counts: dict[str, int] = {}
    for _ in range(runs):
        for name in names:
            out = subprocess.run([sys.executable, script, "--one", name], capture_output=True, text=True,
                                 check=True).stdout.split()
            timings[name].append(float(out[0]))
            counts[name] = int(out[1])
    return timings, counts


def run(script: str, names: Sequence[str], measure: Callable[[str], tuple[float, int]]
        ) -> tuple[dict[str, list[float]], dict[str, int], int] | None:
    """A benchmark's command line: with ``--one NAME`` measure that in this
    process and print it (None is returned: the caller is done); else the
    interleaved runs of every name and ``--runs``."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--one", choices=list(names), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        seconds, count = measure(args.one)
        print(f"{seconds} {count}")
        return None
    timings, counts = interleaved(script, names, args.runs)
    return timings, counts, args.runs
