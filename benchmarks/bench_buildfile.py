"""Time BuildFile.parse + untouched to_bytes on the largest corpus buildFile.

Plain script: ``python benchmarks/bench_buildfile.py [path]``.  Without a
path it picks the largest ``buildFile*`` below ``../shared/corpus`` (or
``$VMODTOOL_SHARED/corpus``) and says so when that folder is absent.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from vmodtool.vassal.buildfile import BuildFile  # noqa: E402


def _largest_buildfile() -> Path | None:
    shared = Path(os.environ.get("VMODTOOL_SHARED", REPO.parent / "shared"))
    candidates = [p for p in (shared / "corpus").glob("*/buildFile*") if p.is_file()]
    return max(candidates, key=lambda p: p.stat().st_size) if candidates else None


def _best_of(repeats: int, action: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> int:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else _largest_buildfile()
    if path is None:
        print("skipped: shared corpus not available (set VMODTOOL_SHARED or pass a path)")
        return 0
    data = path.read_bytes()
    megabytes = len(data) / 1e6
    buildfile = BuildFile.parse(data)
    assert buildfile.to_bytes() == data, "untouched round trip differs"
    parse = _best_of(10, lambda: BuildFile.parse(data))
    write = _best_of(10, buildfile.to_bytes)
    slot = buildfile.piece_slots()[0].element if buildfile.piece_slots() else buildfile.root
    slot.set("benchmark", "1")
    edited = _best_of(10, buildfile.to_bytes)
    print(f"{path} ({megabytes:.2f} MB)")
    print(f"parse              {parse * 1e3:8.1f} ms  {megabytes / parse:8.1f} MB/s")
    print(f"to_bytes untouched {write * 1e3:8.1f} ms  {megabytes / write:8.1f} MB/s")
    print(f"to_bytes 1 edit    {edited * 1e3:8.1f} ms  {megabytes / edited:8.1f} MB/s")
    print(f"parse + write      {(parse + write) * 1e3:8.1f} ms  "
          f"{megabytes / (parse + write):8.1f} MB/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
