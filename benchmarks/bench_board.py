"""Draw a 60×40-hex board at 300 dpi (5/8-inch hexes) and report the time
and the peak memory of the process.

Run from the repository root: ``python benchmarks/bench_board.py``
(``--dpi``, ``--columns``, ``--rows``, ``--sheet`` to vary it).
``--examples`` times instead the boards of the examples that draw one (the
board a build puts in each module, and its 300-dpi print sheet): the best of
``--repeat`` runs each, recording and rasterising, and the board of
``bench_build.py``'s scenario by stage.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vmodtool.render.board import BoardOptions, board_drawing, print_scale  # noqa: E402
from vmodtool.scenario import load_scenario  # noqa: E402
from vmodtool.scenario.mapgrid import GridSpec, build_map_grid  # noqa: E402

TERRAIN = {
    "clear": {"code": ".", "name": "Clear", "fill": "#e3dfc0"},
    "woods": {"code": "w", "name": "Woods", "fill": "#6f9a4c", "symbol": "trees"},
    "town": {"code": "t", "name": "Town", "fill": "#b8ada0", "symbol": "buildings"},
    "hill": {"code": "h", "name": "Hill", "fill": "#d6c08a", "elevation": 1},
    "rough": {"code": "r", "name": "Rough", "fill": "#b0a184", "symbol": "rocks"},
    "marsh": {"code": "m", "name": "Marsh", "fill": "#a8c8b4", "symbol": "marsh"},
    "water": {"code": "~", "name": "Lake", "fill": "#8fbbe3"},
}


def make_scenario(folder: Path, columns: int, rows: int) -> Path:
    spec = GridSpec(hex_height=64, columns=columns, rows=rows)
    grid = build_map_grid(spec)
    rng = random.Random(5)
    labels = list(grid.hexes)
    weights = [("clear", 50), ("woods", 15), ("town", 4), ("hill", 12), ("rough", 7),
               ("marsh", 5), ("water", 3)]
    kinds = [k for k, w in weights for _ in range(w)]
    terrain = {label: rng.choice(kinds) for label in labels}
    river, road = [], []
    here = labels[columns // 2]
    for _ in range(rows * 2):                       # a river wandering south
        near = sorted(grid.neighbours(here))
        river.append([here, near[0]])
        here = max(near, key=lambda n: (grid.hexes[n][1], rng.random()))
    walk = [labels[columns * (rows // 2)]]
    for _ in range(columns * 2):
        near = [n for n in grid.neighbours(walk[-1]) if n not in walk]
        if not near:
            break
        walk.append(max(near, key=lambda n: (grid.hexes[n][0], rng.random())))
    road = walk
    doc = {
        "schema": "vmodtool/1",
        "game": {"id": "bench", "title": "Benchmark Board",
                 "sides": [{"id": "a", "name": "A"}, {"id": "b", "name": "B"}]},
        "map": {"id": "main", "name": f"{columns}x{rows} hexes",
                "grid": {"kind": "hex", "orientation": "flat_top", "hex_height": 64,
                         "columns": columns, "rows": rows, "low_columns": "even", "margin": 24},
                "terrain_types": TERRAIN, "terrain": {"default": "clear", "hexes": terrain},
                "hexside_types": {"river": {"name": "River", "width": 5},
                                  "road": {"name": "Road", "width": 4, "drawn_as": "centre_line"}},
                "hexsides": [{"type": "river", "between": river}, {"type": "road", "path": road}],
                "labels": [{"hex": labels[rows * columns // 2 + 3], "text": "Benchmark City"}]},
        "unit_types": {"inf": {"name": "Infantry", "faces": [{"name": "full", "factors": {"a": 1}}]}},
        "counters": [{"id": "a.inf", "type": "inf", "side": "a"}],
    }
    path = folder / "scenario.yaml"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def peak_mb() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 1024 / (1024 if sys.platform == "darwin" else 1)


EXAMPLES = ("modern-tactical", "ww1-operational", "combat-commander")


def bench_examples(repeat: int) -> None:
    root = Path(__file__).resolve().parent.parent / "examples"
    total_vassal = total_print = 0.0
    for name in EXAMPLES:
        scenario = load_scenario(root / name / "scenario.yaml")
        times = []
        for options in (BoardOptions(), BoardOptions(scale=print_scale(scenario.map.grid, 300), dpi=300,
                                                     sheet=True)):
            best = float("inf")
            for _ in range(repeat):
                # CPU time of this process: the figure other processes on a busy machine disturb least
                start = time.process_time()
                board_drawing(scenario, options).image()
                best = min(best, time.process_time() - start)
            times.append(best)
        total_vassal += times[0]
        total_print += times[1]
        print(f"{name}: VASSAL board {times[0] * 1000:.0f} ms, 300-dpi sheet {times[1] * 1000:.0f} ms")
    print(f"all examples: VASSAL boards {total_vassal * 1000:.0f} ms, 300-dpi sheets {total_print * 1000:.0f} ms "
          f"(CPU time, best of {repeat})")
    bench_build_board(repeat)


def bench_build_board(repeat: int) -> None:
    """The board of ``bench_build.py``'s scenario (30x20 hexes, 600 hex
    numbers) as a cold build draws it, by stage: recording, rasterising and
    the PNG the module gets."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_build import scenario_text

    from vmodtool.render.png import BOARD_LEVEL, encode_png

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "scenario.yaml"
        path.write_text(scenario_text(1000), encoding="utf-8")
        scenario = load_scenario(path)
    best = [float("inf")] * 3
    for _ in range(repeat):
        start = time.process_time()
        drawing = board_drawing(scenario)
        recorded = time.process_time()
        image = drawing.image()
        drawn = time.process_time()
        encode_png(image, BOARD_LEVEL)
        done = time.process_time()
        best = [min(b, t) for b, t in zip(best, (recorded - start, drawn - recorded, done - drawn), strict=True)]
    print(f"bench_build's board ({image.size[0]}x{image.size[1]} px): record {best[0] * 1000:.0f} ms, "
          f"rasterise {best[1] * 1000:.0f} ms, PNG {best[2] * 1000:.0f} ms (CPU time, best of {repeat} each)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--columns", type=int, default=60)
    parser.add_argument("--rows", type=int, default=40)
    parser.add_argument("--dpi", type=float, default=300)
    parser.add_argument("--hex-size", type=float, default=0.625)
    parser.add_argument("--sheet", action="store_true")
    parser.add_argument("--examples", action="store_true", help="time the examples' boards instead")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if args.examples:
        bench_examples(args.repeat)
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        scenario = load_scenario(make_scenario(folder, args.columns, args.rows))
        base = peak_mb()
        scale = print_scale(scenario.map.grid, args.dpi, args.hex_size)
        start = time.perf_counter()
        drawing = board_drawing(scenario, BoardOptions(scale=scale, dpi=args.dpi, sheet=args.sheet))
        recorded = time.perf_counter()
        out = folder / "board.png"
        drawing.write(out)
        done = time.perf_counter()
        w, h = drawing.pixel_size
        print(f"board {args.columns}x{args.rows} hexes at {args.dpi:g} dpi "
              f"({args.hex_size:g} in hexes, scale {scale:.3f}): {w}x{h} px "
              f"({w * h / 1e6:.1f} Mpx), supersample {drawing.canvas.supersample}, "
              f"band {drawing.canvas.band_height()} rows, {len(drawing.canvas.ops):,} drawing ops")
        print(f"record {recorded - start:.2f} s, rasterise + PNG {done - recorded:.2f} s, "
              f"total {done - start:.2f} s; PNG {out.stat().st_size / 1e6:.1f} MB")
        print(f"peak RSS {peak_mb():.0f} MB (after loading the scenario: {base:.0f} MB); "
              f"a whole RGB image would be {w * h * 3 / 1e6:.0f} MB")


if __name__ == "__main__":
    main()
