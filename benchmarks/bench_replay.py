"""Replay speed: the TLD chain (19 logs, VASSAL 2.9) with its module's grid,
and the largest corpus save; plus linearity (time per command for the first
k logs of the chain).

Run from the repository root: ``python benchmarks/bench_replay.py``
(needs ``../shared`` or ``$VMODTOOL_SHARED``).  Reading and decoding the files is timed apart from
the replay itself.
"""

from __future__ import annotations

import gc
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vmodtool.replay import Replay, load_board_sizes  # noqa: E402
from vmodtool.replay.game import relaxed_gc  # noqa: E402
from vmodtool.vassal.commands import leaves  # noqa: E402

SHARED = Path(os.environ.get("VMODTOOL_SHARED", Path(__file__).resolve().parent.parent.parent / "shared"))


def count(replay: Replay) -> tuple:
    restore = sum(1 for g in replay.games for node in g.restore_part() for _ in leaves(node))
    logged = sum(1 for g in replay.games for _, node in g.log_steps() for _ in leaves(node))
    return restore, logged


#: the last timed() call's first replay and the gc.collect() after it (s)
FIRST = [0.0, 0.0]


def timed(files, **kwargs):
    start = time.perf_counter()
    replay = Replay.open(files, **kwargs)
    for g in replay.games:
        _ = g.commands                             # decodes and parses the log
    read = time.perf_counter() - start
    restore, logged = count(replay)
    best = None
    first = collect = 0.0
    for i in range(3):
        start = time.perf_counter()
        steps = list(replay.steps())
        elapsed = time.perf_counter() - start
        if i == 0:
            first = elapsed
            # the collection of the cyclic garbage the replay left (the
            # chain's earlier states), which the next allocations would do
            start = time.perf_counter()
            gc.collect()
            collect = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    FIRST[:] = [first, collect]
    return replay, steps, read, best, restore, logged


def report(label, read, elapsed, restore, logged, steps):
    total = restore + logged
    print(f"{label}: {len(steps)} steps, {logged:,} logged + {restore:,} saved-state commands")
    print(f"  read+decode {read:.2f} s; replay {elapsed:.2f} s (best of 3) = {total / elapsed:,.0f} commands/s, "
          f"{elapsed * 1e6 / total:.2f} µs/command (all), "
          f"{elapsed * 1e6 / max(logged, 1):.2f} µs per logged command incl. the saved states")
    first, collect = FIRST
    print(f"  first replay {first:.2f} s = {first * 1e6 / max(logged, 1):.2f} µs per logged command (the "
          f"process's caches cold, as bench_peers measures), then gc.collect() {collect:.2f} s")


def main() -> None:
    tld = SHARED / "corpus" / "tld"
    if not tld.exists():
        print("../shared is not available")
        return
    files = sorted((tld / "game").glob("*.log"))
    kwargs = dict(module=tld / "buildFile", board_sizes=load_board_sizes(tld / "board-sizes.json"))
    replay, steps, read, elapsed, restore, logged = timed(files, **kwargs)
    report("TLD chain (19 logs)", read, elapsed, restore, logged, steps)
    with relaxed_gc():                      # as Replay.steps() does
        start = time.perf_counter()
        for k in range(len(files)):
            replay._restore(k)
        saved = time.perf_counter() - start
    print(f"  of which saved states {saved:.2f} s ({saved * 1e6 / restore:.2f} µs/command); "
          f"logged steps {elapsed - saved:.2f} s = "
          f"{(elapsed - saved) * 1e6 / logged:.2f} µs per logged command")
    print(f"  chain differences: {len(replay.chain_differences)}")
    # the logged commands alone (applying each step and building its events;
    # without the saved states and the comparison between chained logs)
    run_step = replay._run_step
    spent = [0.0]

    def timed_step(*args, **kwargs):
        t0 = time.perf_counter()
        result = run_step(*args, **kwargs)
        spent[0] += time.perf_counter() - t0
        return result
    replay._run_step = timed_step
    list(replay.steps())
    del replay._run_step
    print(f"  logged commands alone: {spent[0]:.2f} s = {spent[0] * 1e6 / logged:.2f} µs per logged "
          f"command (target 12)")

    print("linearity (first k logs):")
    for k in (2, 5, 10, 19):
        _, st, _, el, r, lg = timed(files[:k], **kwargs)
        print(f"  k={k:2d}: {r + lg:>7,} commands  {el:.3f} s  {el * 1e6 / (r + lg):.2f} µs/command")

    saves = sorted(SHARED.glob("corpus/*/*.vsav"), key=lambda p: p.stat().st_size)
    big = saves[-1]
    replay, steps, read, elapsed, restore, logged = timed([big])
    report(f"largest save {big.relative_to(SHARED)}", read, elapsed, restore, logged, steps)


if __name__ == "__main__":
    main()
