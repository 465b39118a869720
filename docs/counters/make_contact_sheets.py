"""Write docs/counters/<example>.<template>.png: every example's counters
drawn with every bundled template (kept small: 64 px counters), and
docs/counters/<example>.png: the example as it is built (its own template,
120 px counters).

Run from the repository root: ``python docs/counters/make_contact_sheets.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from vmodtool.fileio import atomic_write  # noqa: E402
from vmodtool.render.counters import render_contact_sheet  # noqa: E402
from vmodtool.render.png import encode_png  # noqa: E402
from vmodtool.render.templates_preview import preview_template  # noqa: E402
from vmodtool.scenario import load_scenario  # noqa: E402
from vmodtool.scenario.templates import bundled_templates  # noqa: E402

EXAMPLES = ("modern-tactical", "ww1-operational", "combat-commander")


def main() -> None:
    out = ROOT / "docs" / "counters"
    for example in EXAMPLES:
        sc = load_scenario(ROOT / "examples" / example / "scenario.yaml")
        atomic_write(out / f"{example}.png", encode_png(render_contact_sheet(sc, px=120, cols=10)))
        for name in bundled_templates():
            target = out / f"{example}.{name}.png"
            print(preview_template(name, str(ROOT / "examples" / example / "scenario.yaml"), target,
                                   px=64, cols=14), "->", target.relative_to(ROOT))


if __name__ == "__main__":
    main()
