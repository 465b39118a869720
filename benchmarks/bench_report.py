"""``vmodtool report`` on the TLD chain (19 logs, 10,148 steps, 2,600+
pieces, the 5340×5024 Normandy board): time to build the report, its size,
against replaying the chain alone (the baseline, in the same run), and the
time Chromium takes to open it (the page parsed, the script run, step 0
drawn) and to step through it — each measurement in a fresh process
(``fresh.py``).

Run from the repository root: ``python benchmarks/bench_report.py [--runs N]``
(needs ``../shared`` or ``$VMODTOOL_SHARED``; the browser part needs
``chromium`` and Python ``playwright``).
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.fresh import run  # noqa: E402

SHARED = Path(os.environ.get("VMODTOOL_SHARED", Path(__file__).resolve().parent.parent.parent / "shared"))
OUT = Path(tempfile.gettempdir()) / "vmodtool-bench-report" / "tld.html"


def build() -> tuple[float, int]:
    from vmodtool.report.game import write_game_report

    logs = sorted((SHARED / "corpus" / "tld" / "game").glob("*.log"))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    result = write_game_report(logs, OUT, module=SHARED / "corpus" / "tld" / "buildFile",
                               board_sizes={"Normandy": (5340, 5024)})
    return time.perf_counter() - start, result.steps


def replay_alone() -> tuple[float, int]:
    """The baseline: reading and replaying the same chain, nothing else."""
    from vmodtool.replay import Replay

    logs = sorted((SHARED / "corpus" / "tld" / "game").glob("*.log"))
    start = time.perf_counter()
    replay = Replay.open(logs, module=SHARED / "corpus" / "tld" / "buildFile",
                         board_sizes={"Normandy": (5340, 5024)})
    steps = len(list(replay.steps()))
    return time.perf_counter() - start, steps


def _browser():  # type: ignore[no-untyped-def]
    from playwright.sync_api import sync_playwright

    p = sync_playwright().start()
    b = p.chromium.launch(executable_path=shutil.which("chromium"),
                          args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
    return p, b


def open_page() -> tuple[float, int]:
    """From navigation to the first board drawn (the browser already started)."""
    p, b = _browser()
    page = b.new_page()
    start = time.perf_counter()
    page.goto(OUT.as_uri(), wait_until="load")
    page.wait_for_function("window.vmodReport && vmodReport.step() === 0")
    seconds = time.perf_counter() - start
    count = page.evaluate("document.querySelectorAll('.counter').length")
    b.close()
    p.stop()
    return seconds, count


def step_through() -> tuple[float, int]:
    """The slowest single step of 200 consecutive ones and of 20 random jumps
    (what the page itself takes, measured in the page)."""
    p, b = _browser()
    page = b.new_page()
    page.goto(OUT.as_uri(), wait_until="load")
    worst = page.evaluate("""() => { let worst = 0;
        const time = (n) => { const t = performance.now(); vmodReport.go(n);
                              worst = Math.max(worst, performance.now() - t); };
        for (let n = 1; n <= 200; n++) time(n);
        for (let i = 0; i < 20; i++) time(Math.floor(Math.random() * vmodReport.last));
        return worst; }""")
    b.close()
    p.stop()
    return worst / 1000.0, 220


def measure(name: str) -> tuple[float, int]:
    return {"build": build, "replay": replay_alone, "open": open_page, "step": step_through}[name]()


def main() -> None:
    if not OUT.exists():
        build()
    got = run(__file__, ["build", "replay", "open", "step"], measure)
    if got is None:
        return
    timings, counts, runs = got
    size = OUT.stat().st_size
    folder = OUT.with_name(OUT.stem + "_files")
    images = sum(f.stat().st_size for f in folder.iterdir()) if folder.is_dir() else 0
    print(f"TLD report: {counts['build']} steps, {size / 1e6:.2f} MB page + {images / 1e6:.2f} MB images")
    load = os.getloadavg()
    print(f"(load average at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {runs} interleaved fresh-process runs)")
    for name, label in (("build", "build (replay, checks, page)"), ("replay", "the replay alone (baseline)"),
                        ("open", "open in Chromium to step 0 drawn"), ("step", "slowest step or jump in the page")):
        t = timings[name]
        print(f"  {label}: median {statistics.median(t):.3f} s, best {min(t):.3f} s over {runs} runs")
    ratios = [b / r for b, r in zip(timings["build"], timings["replay"], strict=True)]
    print(f"  build / replay alone, run by run: median {statistics.median(ratios):.2f}x")


if __name__ == "__main__":
    main()
