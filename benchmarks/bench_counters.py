"""Counter and sheet throughput.

* ``png``: 1,000 distinct two-sided counters to PNG (VASSAL size and
  300 dpi), all cores, cold cache, then the re-run with a warm cache.
* ``pdf``: 500 distinct two-sided counters (5/8") to a duplex A4 PDF sheet
  set at 300 dpi.  Target: under 2 s (protograf: 16.7 s for 500 counters on
  a 2-core machine).

Counters are the modern-tactical example's, repeated with distinct labels so
that no two counters are alike.  Each case runs in its own process so that
peak memory (this process + worker processes) is its own.

Run from the repository root: ``python benchmarks/bench_counters.py``.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def scenario_with(n: int):
    from vmodtool.scenario import load_scenario

    sc = load_scenario(ROOT / "examples" / "modern-tactical" / "scenario.yaml")
    two_sided = [c for c in sc.counters if len(sc.unit_types[c.type].faces) == 2]
    counters = tuple(replace(two_sided[i % len(two_sided)], id=f"bench.{i}", label=f"{i % 9 + 1}/{i}")
                     for i in range(n))
    return replace(sc, counters=counters, markers={})


def peak_mb() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, kids) / 1024.0, own / 1024.0, kids / 1024.0


def case_png() -> dict:
    from vmodtool.render.counters import counter_specs, render_all

    sc = scenario_with(1000)
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        specs = counter_specs(sc)
        t1 = time.perf_counter()
        m = render_all(sc, tmp, resolutions=("vassal", 300), specs=specs)
        t2 = time.perf_counter()
        m2 = render_all(sc, tmp, resolutions=("vassal", 300), specs=specs)
        t3 = time.perf_counter()
    faces = m.rendered
    return {"case": "1000 two-sided counters -> PNG (vassal 75 px + 300 dpi 188 px)",
            "counters": len(specs), "images": faces, "resolve_s": t1 - t0, "render_s": t2 - t1,
            "ms_per_counter": (t2 - t0) * 1000 / len(specs), "ms_per_image": (t2 - t1) * 1000 / faces,
            "rerun_cached_s": t3 - t2, "rerun_drawn": m2.rendered}


def case_pdf() -> dict:
    from vmodtool.render.sheets import SheetOptions, write_sheets

    sc = scenario_with(500)
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        res = write_sheets(sc, Path(tmp) / "sheets.pdf", SheetOptions())
        t1 = time.perf_counter()
        size = (Path(tmp) / "sheets.pdf").stat().st_size
    return {"case": "500 two-sided counters -> A4 duplex PDF at 300 dpi",
            "counters": res.counters, "pages": res.pages, "pdf_s": t1 - t0,
            "ms_per_counter": (t1 - t0) * 1000 / res.counters, "pdf_mb": size / 1e6,
            "target_s": 2.0, "protograf_s": 16.7, "speedup_vs_protograf": 16.7 / (t1 - t0)}


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] in ("png", "pdf"):
        result = case_png() if sys.argv[1] == "png" else case_pdf()
        peak, own, kids = peak_mb()
        result.update(peak_mb=peak, peak_main_mb=own, peak_worker_mb=kids)
        print(json.dumps(result))
        return
    print(f"cores: {os.cpu_count()}")
    for case in ("png", "pdf"):
        out = subprocess.run([sys.executable, __file__, case], capture_output=True, text=True,
                             check=True).stdout
        r = json.loads(out.strip().splitlines()[-1])
        print(r.pop("case"))
        for k, v in r.items():
            print(f"  {k:22s} {v:.3f}" if isinstance(v, float) else f"  {k:22s} {v}")


if __name__ == "__main__":
    main()
