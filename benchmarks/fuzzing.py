"""What the time-bounded fuzz runs of ``benchmarks/`` share: their command
line and the address-space limit under which a memory bomb is a
``MemoryError`` finding instead of a stalled machine."""

from __future__ import annotations

import argparse
import resource
from pathlib import Path


def fuzz_arguments(doc: str, slow: float, what: str) -> argparse.ArgumentParser:
    """The options of a fuzz run: ``--minutes``, ``--seed``, ``--slow``
    (seconds above which one ``what`` is a finding) and ``--out``."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=3.0, help="how long to run (default 3)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--slow", type=float, default=slow, help=f"seconds above which one {what} is a finding")
    parser.add_argument("--out", type=Path, help="folder for the inputs of the findings")
    return parser


def limit_address_space(limit: int) -> None:
    """At most ``limit`` bytes of address space for this process (a lower
    limit already set stays)."""
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard == resource.RLIM_INFINITY or hard > limit:
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
