"""Module build speed: a generated scenario with N two-sided counters.

Run: ``python benchmarks/bench_build.py [--counters 1000 4000] [--jobs 2]``.

Writes a scenario (20 unit types with full/reduced faces, N counters, all
set up on a 30x20 map) to a temporary folder, builds its module the way
``vmodtool build`` does (counters rendered with all cores, board, module
assembled and zipped), and reports seconds and peak memory (this process and
its render workers).  pywargame, the only other tool that builds modules from
data, needs Python 3.12+ and cannot be installed beside us here; its numbers
on a 2-core machine (2.1 s for 1,000 and 9.0 s for 4,000 counters) come from
the project's survey of peer tools and are quoted, not measured in this run.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vmodtool.build.builder import build_module_file  # noqa: E402

PYWARGAME = {1000: 2.1, 4000: 9.0}


def scenario_text(n: int) -> str:
    types = []
    symbols = ["infantry", "armour", "mech_infantry", "artillery", "recce"]
    for t in range(20):
        types.append(f"""  t{t}:
    name: "Type {t}"
    tags: [combat]
    movement_class: foot
    nato: {{symbol: {symbols[t % len(symbols)]}, size: battalion}}
    layout: std
    faces:
      - {{name: full, state: {{step: full}}, factors: {{attack: {t % 9 + 1}, defense: {t % 7 + 1}, move: 4}}}}
      - {{name: reduced, state: {{step: reduced}}, factors: {{attack: {t % 4 + 1}, defense: {t % 3 + 1}, move: 4}}}}
""")
    counters, setup = [], []
    per_type = n // 20
    for t in range(20):
        side = "a" if t % 2 == 0 else "b"
        labels = ", ".join(f'"{t}-{i}"' for i in range(1, per_type + 1))
        counters.append(f"  - {{id: u{t}, type: t{t}, side: {side}, count: {per_type}, labels: [{labels}]}}")
    hexes = [f"{c:02d}{r:02d}" for r in range(1, 21) for c in range(1, 31)]
    ids = [f"u{t}.{i}" for t in range(20) for i in range(1, per_type + 1)]
    for i, hex_id in enumerate(hexes):
        chunk = ids[i::len(hexes)]
        if chunk:
            setup.append(f'  - {{hex: "{hex_id}", stack: [{", ".join(chunk)}]}}')
    return f"""schema: vmodtool/1
game:
  id: bench
  title: "Benchmark {n}"
  sides: [{{id: a, name: "A", fill: "#9fc5e8"}}, {{id: b, name: "B", fill: "#ea9999"}}]
  dice: [2d6]
map:
  grid: {{hex_height: 64, columns: 30, rows: 20, low_columns: even,
         numbering: {{column: {{start: 1, leading_zeros: 1}}, row: {{start: 1, leading_zeros: 1}}}}}}
  terrain_types: {{clear: {{code: ".", fill: "#e6e2c3"}}}}
factor_layouts:
  std: {{bottom: "{{attack}}-{{defense}}-{{move}}"}}
unit_types:
{''.join(types)}
counters:
{chr(10).join(counters)}
setup:
{chr(10).join(setup)}
turns: {{first: 1, last: 5, structure: [{{phase: move, name: "Movement"}}]}}
"""


def peak_mb() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, kids) / 1024


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--counters", type=int, nargs="+", default=[1000, 4000])
    ap.add_argument("--jobs", type=int, default=None)
    args = ap.parse_args()
    for n in args.counters:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            (folder / "scenario.yaml").write_text(scenario_text(n), encoding="utf-8")
            t0 = time.perf_counter()
            summary = build_module_file(folder / "scenario.yaml", folder / "out.vmod", jobs=args.jobs)
            seconds = time.perf_counter() - t0
        ref = PYWARGAME.get(n)
        ratio = f"; pywargame (quoted) {ref:.1f} s -> {ref / seconds:.1f}x" if ref else ""
        print(f"{n} two-sided counters: {seconds:.2f} s ({seconds / n * 1000:.2f} ms/counter), "
              f"{summary.bytes / 1e6:.1f} MB module, peak RSS {peak_mb():.0f} MB{ratio}")


if __name__ == "__main__":
    main()
