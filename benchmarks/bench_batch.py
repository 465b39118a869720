"""``vmodtool batch`` throughput: games per minute of the synthetic archive
(``synthetic_archive.py``: the example systems' games, clean and seeded,
plus the two bad ones) audited by ``vmodtool batch`` as users run it (a
fresh process each time) with 1 and 2 local processes and on a Dask
``LocalCluster`` of 2 worker processes on the loopback; the ratio of 2
processes to 1 measured in the same run (rounds interleaved, best of each),
the peak memory of a worker (from the summary line) and that every setup
gives the same records; and, measured in the same rounds, the machine's
own scaling (two CPU-bound processes against one: a shared host's two
"idle" cores do not always give 2x).

    python benchmarks/bench_batch.py [--games 200] [--runs 3] [--command audit]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic_archive import write_archive  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


#: the machine's own scaling: a CPU-bound Python loop (no I/O, nothing
#: shared) run alone and as two processes at once; on a shared host two
#: "idle" cores have been seen to give anything from 1.6x to 2.1x one
SPIN = """
import time
start = time.perf_counter()
table = {}
for i in range(2_000_000):
    table[i & 1023] = str(i)
print(time.perf_counter() - start)
"""


def spin_scaling() -> float:
    """Two CPU-bound processes at once against one alone, as throughput:
    2 x (one alone's time) / (the slower of the pair's)."""
    def start() -> subprocess.Popen[str]:
        return subprocess.Popen([sys.executable, "-c", SPIN], stdout=subprocess.PIPE, text=True)
    alone = start()
    one = float(alone.communicate()[0])
    pair = [start(), start()]
    slowest = max(float(p.communicate()[0]) for p in pair)
    return 2 * one / slowest


def records(path: Path) -> list[dict]:
    return [{k: v for k, v in json.loads(line).items() if k != "seconds"}
            for line in path.read_text("utf-8").splitlines()]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--command", default="audit")
    ap.add_argument("--no-dask", action="store_true")
    args = ap.parse_args()
    load = os.getloadavg()
    print(f"load average at start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} ({os.cpu_count()} cores)")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory() as tmp:
        manifest = write_archive(Path(tmp) / "archive", args.games, corpus=False)
        base = [sys.executable, "-m", "vmodtool", "batch", args.command, str(manifest), "--rerun", "-q"]
        setups: dict[str, list[str]] = {"1 process": ["-j", "1"], "2 processes": ["-j", "2"]}
        cluster = None
        if not args.no_dask:
            try:
                import distributed
                cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                                   host="127.0.0.1", dashboard_address=None, silence_logs=50)
                setups["Dask LocalCluster, 2 workers"] = ["--dask", cluster.scheduler_address]
            except ImportError:
                print("Dask: not run (pip install 'vmodtool[dask]')")
        best: dict[str, float] = {}
        peaks: dict[str, str] = {}
        first: list[dict] | None = None
        games = 0
        scaling: list[float] = []
        try:
            subprocess.run([*base, "-j", "1", "-o", str(Path(tmp) / "warm.jsonl")], env=env,
                           capture_output=True, check=False)                      # bytecode
            for _ in range(args.runs):
                scaling.append(spin_scaling())
                for name, extra in setups.items():
                    out = Path(tmp) / f"{name.split()[0]}.jsonl"
                    start = time.perf_counter()
                    done = subprocess.run([*base, *extra, "-o", str(out)], env=env, capture_output=True,
                                          text=True, check=False)
                    seconds = time.perf_counter() - start
                    if done.returncode not in (0, 1, 2, 3):
                        raise SystemExit(f"{name}: exit {done.returncode}\n{done.stderr}")
                    best[name] = min(best.get(name, seconds), seconds)
                    found = re.search(r"peak memory of a worker (\d+) MB", done.stdout)
                    peaks[name] = f"{found.group(1)} MB" if found else "n/a"
                    got = records(out)
                    games = len(got)
                    if first is None:
                        first = got
                    elif got != first:
                        raise SystemExit(f"{name}: other records than the first run")
        finally:
            if cluster is not None:
                cluster.close()
    print(f"{games} games ({args.command}), best of {args.runs} fresh `vmodtool batch` runs each; "
          "every setup gave the same records")
    for name, seconds in best.items():
        print(f"  {name:30s} {seconds:6.2f} s = {games / seconds * 60:6.0f} games per minute "
              f"(peak memory of a worker {peaks[name]})")
    ratio = best["1 process"] / best["2 processes"]
    machine = max(scaling)
    print(f"2 processes / 1 process: {ratio:.2f}x the games per minute (target >= 1.8x on 2 idle cores); "
          f"the machine's own in this run: two CPU-bound processes {machine:.2f}x one (best of "
          f"{', '.join(f'{x:.2f}' for x in scaling)}), so the batch scales {ratio / machine:.0%} as well as the "
          "machine does")
    load = os.getloadavg()
    print(f"load average at end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


if __name__ == "__main__":
    main()
