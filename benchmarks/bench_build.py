"""Module build speed against pywargame, side by side in one run (issue 18).

Run: ``python benchmarks/bench_build.py [--counters 1000 4000] [--runs 3]``.

Writes a scenario (20 unit types with full/reduced faces, N counters, all
set up on a 30x20 map) to a temporary folder and builds its module, each
build a fresh process, interleaved with pywargame building the same module
with its own API (``pywargame_build.py``, run in pywargame's virtual
environment under ``~/.cache/vmodtool-bench/``; pywargame needs Python >=
3.12, found with ``bench_peers``):

* **cold**: ``vmodtool build`` with no cache (counters and board rendered on
  all cores, as the CLI does) against pywargame plus a plain Pillow renderer
  (a box, a symbol rectangle, three text lines, PNG at Pillow's defaults; the
  board a hex grid drawn with ``ImageDraw.polygon``), one process;
* **warm**: the second ``vmodtool build --cache DIR`` against pywargame with
  the same images pre-rendered on disk, so that it only assembles the module.

Times are the whole process as a user runs it (interpreter start, imports,
build, module written).  Each round runs ours and then pywargame's build
back to back; a figure's ratio is the median over the rounds of
pywargame's time over ours in the same round (the machine's load changes
less within a round than across the run), printed with the best times and
the load average when it was measured.  Both modules are checked (a zip with a buildFile, 2N face images
and a board, 2N piece slots) so that the comparison is of like with like.
A peer that cannot run is reported as not run, never with a number.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from bench_peers import CACHE, _python_312, peer_python  # noqa: E402


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


def peer_spec(scenario_path: Path) -> dict[str, object]:
    """What ``pywargame_build.py`` needs to build the same module: the same
    counters (names, faces, texts, image names, hexes), board size and grid."""
    from vmodtool.assemble.pieces import unit_name
    from vmodtool.render.counters import face_filename
    from vmodtool.render.fonts import font_path
    from vmodtool.scenario import load_scenario

    scenario = load_scenario(scenario_path)
    grid = scenario.map.grid
    hex_of = {uid: entry.hex for entry in scenario.setup for uid in getattr(entry, "units", ())}
    counters = []
    for counter in scenario.counters:
        utype = scenario.unit_type_of(counter)
        fill = scenario.game.side(counter.side).fill
        rgb = [int(fill[i:i + 2], 16) for i in (1, 3, 5)]
        faces = []
        for i, face in enumerate(utype.faces):
            shade = rgb if i == 0 else [round(c + (255 - c) * 0.45) for c in rgb]
            factors = "-".join(str(v) for v in face.factors.values())
            faces.append({"name": face.name, "file": face_filename(counter.id, face.name), "fill": shade,
                          "lines": [utype.name, counter.label or "", factors]})
        counters.append({"id": counter.id, "name": unit_name(counter, utype), "type": counter.type,
                         "side": counter.side, "hex": hex_of[counter.id], "faces": faces})
    return {"title": scenario.game.title, "map": scenario.map.name, "px": 75,
            "board": list(scenario.map.size), "grid": grid.grid_attributes, "numbering": grid.numbering_attributes,
            "font": str(font_path("bold")), "label_font": str(font_path("condensed-bold")),
            "sides": [{"id": s.id, "name": s.name} for s in scenario.game.sides],
            "types": [{"id": t.id, "name": t.name} for t in scenario.unit_types.values()],
            "counters": counters}


def check_module(path: Path, n: int) -> str:
    """'' when ``path`` is a zip with a buildFile, 2N face images plus a
    board and 2N piece slots (each counter at start and in the palette)."""
    with zipfile.ZipFile(path) as zf:
        names = zf.namelist()
        build = next((nm for nm in names if nm in ("buildFile.xml", "buildFile")), None)
        if build is None:
            return f"{path.name}: no buildFile"
        xml = zf.read(build).decode("utf-8")
    faces = sum(1 for nm in names if nm.startswith("images/") and "__" in nm)
    board = "images/board.png" in names
    slots = len(re.findall(r"<VASSAL\.build\.widget\.PieceSlot[ >]", xml))
    if faces != 2 * n or not board or slots != 2 * n:
        return f"{path.name}: {faces} face images, board {board}, {slots} piece slots (expected {2 * n} each)"
    return ""


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.2f}/{five:.2f}"


def timed(cmd: list[str], env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:4])}… failed: {(done.stderr.strip().splitlines() or ['?'])[-1]}")
    return seconds


def bench(n: int, runs: int, pwg_python: str | None, why: str) -> dict[str, float | None]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONPYCACHEPREFIX=str(CACHE / "pycache"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    ours = [sys.executable, "-m", "vmodtool", "build"]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        scenario = folder / "scenario.yaml"
        scenario.write_text(scenario_text(n), encoding="utf-8")
        spec = folder / "spec.json"
        spec.write_text(json.dumps(peer_spec(scenario)), encoding="utf-8")
        cache, images = folder / "cache", folder / "pwg-images"
        timed([*ours, str(scenario), "-o", str(folder / "prime.vmod"), "-q", "--cache", str(cache)], env)
        if pwg_python:
            pwg = [pwg_python, str(HERE / "pywargame_build.py"), str(spec)]
            timed([*pwg, "render", str(images), str(folder / "unused.vmod")], env)
        times: dict[str, list[float]] = {k: [] for k in ("cold", "warm", "pwg cold", "pwg warm")}
        loads: dict[str, str] = {}
        for _ in range(runs):
            loads["cold"] = load()
            times["cold"].append(timed([*ours, str(scenario), "-o", str(folder / "cold.vmod"), "-q"], env))
            if pwg_python:
                times["pwg cold"].append(timed([*pwg, "cold", str(images), str(folder / "pwg-cold.vmod")], env))
            loads["warm"] = load()
            times["warm"].append(timed([*ours, str(scenario), "-o", str(folder / "warm.vmod"), "-q",
                                        "--cache", str(cache)], env))
            if pwg_python:
                times["pwg warm"].append(timed([*pwg, "warm", str(images), str(folder / "pwg-warm.vmod")], env))
        problems = [check_module(folder / name, n) for name in ("cold.vmod", "warm.vmod")]
        if pwg_python:
            problems += [check_module(folder / name, n) for name in ("pwg-cold.vmod", "pwg-warm.vmod")]
        size = (folder / "cold.vmod").stat().st_size
        pwg_size = (folder / "pwg-cold.vmod").stat().st_size if pwg_python else 0
    for problem in filter(None, problems):
        print(f"  MODULE CHECK FAILED: {problem}")
    out: dict[str, float | None] = {}
    for kind in ("cold", "warm"):
        ours_s = min(times[kind])
        line = f"  {kind}: vmodtool {ours_s:.2f} s"
        if times[f"pwg {kind}"]:
            peer_s = min(times[f"pwg {kind}"])
            rounds = [p / o for p, o in zip(times[f"pwg {kind}"], times[kind], strict=True)]
            out[kind] = statistics.median(rounds)
            each = ", ".join(f"{r:.2f}" for r in rounds)
            line += (f", pywargame {peer_s:.2f} s (best of each: {peer_s / ours_s:.2f}x); ratio {out[kind]:.2f}x "
                     f"= median of the rounds' ratios ({each}; {loads[kind]})")
        else:
            out[kind] = None
            line += f"; pywargame not run ({why}) ({loads[kind]})"
        print(line)
    peer = f"pywargame {pwg_size / 1e6:.1f} MB" if pwg_python else "pywargame not run"
    print(f"  modules: vmodtool {size / 1e6:.1f} MB, {peer}; checked: {'ok' if not any(problems) else 'FAILED'}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--counters", type=int, nargs="+", default=[1000, 4000])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-peers", action="store_true")
    args = ap.parse_args()
    pwg_python, why = (None, "--no-peers") if args.no_peers else \
        peer_python("pywargame", "pywargame", _python_312())
    print(f"{load()} at start ({os.cpu_count()} cores); best of {args.runs} fresh processes, interleaved; "
          "ratio = pywargame time / vmodtool time")
    ratios: dict[str, float | None] = {}
    for n in args.counters:
        print(f"{n} two-sided counters:")
        for kind, ratio in bench(n, args.runs, pwg_python, why).items():
            ratios[f"{n} {kind}"] = None if ratio is None else round(ratio, 2)
    print(f"{load()} at end")
    print(json.dumps({"ratios": ratios}))


if __name__ == "__main__":
    main()
