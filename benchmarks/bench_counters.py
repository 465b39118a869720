"""Counter and sheet throughput.

* ``png``: 1,000 distinct two-sided counters to PNG (VASSAL size and
  300 dpi), all cores, cold cache, then the re-run with a warm cache.
* ``pdf``: 500 distinct two-sided counters (5/8") to a duplex A4 PDF sheet
  set at 300 dpi (target: under 2 s), against protograf laying out the same
  500 counters (their labels, factors and side colours, two-sided, 5/8", A4)
  with its own API in the same run (``protograf_counters.py``).  protograf
  is installed with pip into its own virtual environment under
  ``~/.cache/vmodtool-bench/`` (``$VMODTOOL_BENCH_CACHE``); when it cannot be
  installed or run it is reported as "not run" with the reason, never with a
  number.  ``--no-peers`` skips it.

Counters are the modern-tactical example's, repeated with distinct labels so
that no two counters are alike.  Each case runs in its own process so that
peak memory (this process + worker processes) is its own.

Run from the repository root: ``python benchmarks/bench_counters.py [--no-peers]``.
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
            "target_s": 2.0}


def protograf_spec(path: Path) -> None:
    """The counters of the ``pdf`` case as protograf_counters.py reads them."""
    sc = scenario_with(500)
    fills = {side.id: side.fill for side in sc.game.sides}
    counters = []
    for c in sc.counters:
        factors = sc.unit_types[c.type].faces[0].factors
        counters.append({"label": c.label or c.id, "fill": fills.get(c.side, "#dddddd"),
                         "factors": "-".join(str(factors[k]) for k in ("attack", "defense", "move") if k in factors)})
    path.write_text(json.dumps({"counters": counters}), encoding="utf-8")


def protograf_run() -> tuple[float, int] | str:
    """(seconds, pages) of protograf laying out the ``pdf`` case's counters,
    or why it was not run."""
    from bench_peers import _python_312, peer_python

    # the newest protograf needs a newer Python than ours may be
    python, why = peer_python("protograf", "protograf", _python_312() or sys.executable)
    if python is None:
        return why
    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "spec.json"
        protograf_spec(spec)
        try:
            done = subprocess.run([python, str(ROOT / "benchmarks" / "protograf_counters.py"), str(spec),
                                   str(Path(tmp) / "protograf.pdf")], capture_output=True, text=True,
                                  timeout=1800, cwd=tmp)
        except (OSError, subprocess.SubprocessError) as exc:
            return f"failed ({type(exc).__name__})"
        if done.returncode != 0:
            return f"failed: {(done.stderr.strip().splitlines() or ['?'])[-1][:120]}"
        seconds, pages = done.stdout.split()[-2:]
        return float(seconds), int(pages)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] in ("png", "pdf"):
        result = case_png() if sys.argv[1] == "png" else case_pdf()
        peak, own, kids = peak_mb()
        result.update(peak_mb=peak, peak_main_mb=own, peak_worker_mb=kids)
        print(json.dumps(result))
        return
    print(f"cores: {os.cpu_count()}; load average at start: {os.getloadavg()[0]:.2f}")
    results = {}
    for case in ("png", "pdf"):
        out = subprocess.run([sys.executable, __file__, case], capture_output=True, text=True,
                             check=True).stdout
        r = json.loads(out.strip().splitlines()[-1])
        results[case] = r
        print(r.pop("case"))
        for k, v in r.items():
            print(f"  {k:22s} {v:.3f}" if isinstance(v, float) else f"  {k:22s} {v}")
    peer = "--no-peers" if "--no-peers" in sys.argv else protograf_run()
    if isinstance(peer, str):
        print(f"  protograf: not run ({peer})")
    else:
        seconds, pages = peer
        ours = results["pdf"]["pdf_s"]
        print(f"  protograf (same counters, same run): {seconds:.2f} s, {pages} pages = "
              f"{seconds / ours:.1f}x our {ours:.2f} s")
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
