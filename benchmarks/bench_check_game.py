"""``vmodtool check-game`` on The Longest Day's 19-log chain (10,148 steps)
against the replay alone, measured in the same run.

* **replay**: the chain replayed (read, decode, every step kept, as the
  check keeps them): the baseline;
* **check-game**: ``record_game`` (the same replay, each log's start and end
  captured) and all four checks (chain, undo, dice, actions).

Each is the best of ``--runs`` (default 5), interleaved, each measurement in
a fresh process.  The target (issue 15): the check in at most 1.2× the
replay alone.  Needs ``../shared`` (or ``VMODTOOL_SHARED``).  Run from the
repository root: ``python benchmarks/bench_check_game.py``.
"""

from __future__ import annotations

import gc
import importlib
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.fresh import run  # noqa: E402
from vmodtool.checkgame import CHECKS, check_game, record_game  # noqa: E402
from vmodtool.replay import Replay  # noqa: E402
from vmodtool.vassal.module import Module  # noqa: E402

SHARED = Path(os.environ.get("VMODTOOL_SHARED", ROOT.parent / "shared"))
SIZES = {"Normandy": (5340, 5024)}


def measure(what: str) -> tuple[float, int]:
    module = Module.open(SHARED / "corpus" / "tld" / "buildFile")
    logs = sorted((SHARED / "corpus" / "tld" / "game").glob("*.log"))
    # the code of both sides imported before the clock starts (as the
    # replay's is by the imports above)
    for name in CHECKS:
        importlib.import_module(f"vmodtool.checkgame.{name}")
    gc.collect()
    start = time.perf_counter()
    if what == "replay":
        count = len(list(Replay.open(logs, module=module, board_sizes=SIZES).steps()))
    else:
        result = check_game(record_game(logs, module=module, board_sizes=SIZES))
        count = len(result.suspicious)
    return time.perf_counter() - start, count


def main() -> int:
    if not (SHARED / "corpus" / "tld" / "buildFile").exists():
        print(f"needs the TLD corpus under {SHARED}/corpus/tld")
        return 2
    done = run(__file__, ["replay", "check"], measure)
    if done is None:
        return 0
    timings, counts, runs = done
    base = min(timings["replay"])
    check = min(timings["check"])
    print(f"The Longest Day chain: 19 logs, {counts['replay']:,} steps (best of {runs}, interleaved, "
          "a fresh process each)")
    print(f"  replay alone  {base:7.3f} s")
    print(f"  check-game    {check:7.3f} s  {check / base:5.2f}× the replay  ({counts['check']} suspicious)")
    print(f"  target ≤ 1.2× the replay: {'met' if check / base <= 1.2 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
