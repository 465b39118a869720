"""Time point → name and point → snap on a 60×40-hex grid.

Run from the repository root: ``python benchmarks/bench_grid.py``.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vmodtool.vassal.grid import HexGrid  # noqa: E402

COLUMNS, ROWS = 60, 40
DX, DY = 55.42562584220407, 64.0


def make_grid(**extra: str) -> HexGrid:
    """A 60×40-hex SPI-style grid on a board that just holds it."""
    width = int(COLUMNS * DX + DX / 3)
    height = int(ROWS * DY + DY / 2)
    attrs = dict(dx=repr(DX), dy="64", x0="37", y0="32", **extra)
    return HexGrid.from_attributes(attrs, dict(stagger="false"), (width, height))


def bench(label: str, func, points) -> None:
    start = time.perf_counter()
    for x, y in points:
        func(x, y)
    elapsed = time.perf_counter() - start
    print(f"{label:32s} {len(points) / elapsed:>12,.0f} points/s  ({elapsed * 1e6 / len(points):.2f} µs/point)")


def main() -> None:
    rng = random.Random(1)
    grid = make_grid()
    width, height = grid.container_size
    points = [(rng.randrange(width), rng.randrange(height)) for _ in range(200_000)]
    print(f"grid {COLUMNS}x{ROWS} hexes, board {width}x{height}, {len(points):,} random points")
    bench("location_name", grid.location_name, points)
    bench("snap_to", grid.snap_to, points)
    bench("raw_column_row", grid.raw_column_row, points)
    edges = make_grid(edgesLegal="true", cornersLegal="true")
    bench("snap_to (edges+corners legal)", edges.snap_to, points)
    names = [grid.location_name(x, y) for x, y in points[:50_000]]
    start = time.perf_counter()
    for name in names:
        grid.get_location(name)
    elapsed = time.perf_counter() - start
    print(f"{'get_location':32s} {len(names) / elapsed:>12,.0f} names/s")


if __name__ == "__main__":
    main()
