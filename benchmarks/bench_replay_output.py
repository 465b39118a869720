"""What ``vmodtool replay``'s output costs on the TLD chain (19 logs): the
command as users run it (a fresh process each time, the output written to a
file) with the readable move list (``text``) and with JSON Lines
(``jsonl``), against the same chain read and replayed with no output
(``replay``: ``Replay.open`` and every step, in a fresh process too), run in
turn, ``--runs`` rounds (median wall and CPU seconds).  Prints the sha256 of
each output, so that a change to how the lines are made can be shown to
leave them byte for byte the same.

Run from the repository root: ``python benchmarks/bench_replay_output.py
[--runs 5]`` (needs ``../shared`` or ``$VMODTOOL_SHARED``).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("VMODTOOL_SHARED", ROOT.parent / "shared"))
TLD = SHARED / "corpus" / "tld"

REPLAY_ONLY = """
import sys
from vmodtool.replay import Replay, load_board_sizes
files = sys.argv[1:-2]
replay = Replay.open(files, module=sys.argv[-2], board_sizes=load_board_sizes(sys.argv[-1]))
for step in replay.steps():
    pass
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    if not TLD.exists():
        print("../shared is not available")
        return
    logs = [str(p) for p in sorted((TLD / "game").glob("*.log"))]
    module, sizes = str(TLD / "buildFile"), str(TLD / "board-sizes.json")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    with tempfile.TemporaryDirectory(prefix="bench-replay-output-") as tmp:
        out = {"text": Path(tmp) / "moves.txt", "jsonl": Path(tmp) / "moves.jsonl"}
        commands = {
            "replay": [sys.executable, "-c", REPLAY_ONLY, *logs, module, sizes],
            "text": [sys.executable, "-m", "vmodtool", "replay", *logs, "-m", module, "--board-sizes", sizes,
                     "-o", str(out["text"])],
            "jsonl": [sys.executable, "-m", "vmodtool", "replay", *logs, "-m", module, "--board-sizes", sizes,
                      "--format", "jsonl", "-o", str(out["jsonl"])],
        }
        wall: dict[str, list[float]] = {name: [] for name in commands}
        cpu: dict[str, list[float]] = {name: [] for name in commands}
        print(f"load average at start: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)")
        for cmd in commands.values():                     # the bytecode cache written
            subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(args.runs):
            for name, cmd in commands.items():
                start = time.perf_counter()
                child = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                _, status, usage = os.wait4(child.pid, 0)
                wall[name].append(time.perf_counter() - start)
                cpu[name].append(usage.ru_utime + usage.ru_stime)
                if status != 0:
                    raise SystemExit(f"{name} failed: {' '.join(cmd)}")
        base_wall, base_cpu = statistics.median(wall["replay"]), statistics.median(cpu["replay"])
        for name in commands:
            w, c = statistics.median(wall[name]), statistics.median(cpu[name])
            line = f"  {name:7s} wall {w:.2f} s, CPU {c:.2f} s"
            if name != "replay":
                digest = hashlib.sha256(out[name].read_bytes()).hexdigest()[:16]
                line += (f" = the replay alone + {c - base_cpu:.2f} s of CPU for the output "
                         f"({w / base_wall:.2f}x its wall time); sha256 {digest}")
            print(line)
        print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
