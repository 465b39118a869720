"""Write the example boards of docs/boards: each bundled example's VASSAL
board (``<example>.png``, what ``vmodtool board S -o X.png`` writes) and its
title and terrain key (``<example>-key.png``, ``--key``), the WW1
print sheet at 100 dpi with 3/4-inch hexes (``--dpi 100 --hex-size 0.75``)
and the river typed by its banks (``river-banks.png`` of ``river-banks.yaml``).

Run from the repository root: ``python docs/boards/make_boards.py``.
(``pointy-top-test.png`` and ``grid-check-example.png`` are made by hand.)
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from vmodtool.render.board import print_scale, write_board, write_key  # noqa: E402
from vmodtool.scenario import load_scenario  # noqa: E402

EXAMPLES = ("modern-tactical", "ww1-operational", "combat-commander")


def main() -> None:
    out = ROOT / "docs" / "boards"
    for example in EXAMPLES:
        scenario = load_scenario(ROOT / "examples" / example / "scenario.yaml")
        for line in write_board(scenario, out / f"{example}.png").warnings:
            print(f"warning: {line}", file=sys.stderr)
        write_key(scenario, out / f"{example}-key.png")
        print(f"docs/boards/{example}.png, docs/boards/{example}-key.png")
    ww1 = load_scenario(ROOT / "examples" / "ww1-operational" / "scenario.yaml")
    write_board(ww1, out / "ww1-operational-sheet-100dpi.png", scale=print_scale(ww1.map.grid, 100, 0.75), dpi=100,
                sheet=True)
    print("docs/boards/ww1-operational-sheet-100dpi.png")
    write_board(load_scenario(out / "river-banks.yaml"), out / "river-banks.png")
    print("docs/boards/river-banks.png")


if __name__ == "__main__":
    main()
