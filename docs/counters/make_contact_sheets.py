"""Write docs/counters/<example>.<template>.png: every example's counters
drawn with every bundled template (kept small: 64 px counters).

Run from the repository root: ``python docs/counters/make_contact_sheets.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from vmodtool.render.templates_preview import preview_template  # noqa: E402
from vmodtool.scenario.templates import bundled_templates  # noqa: E402

EXAMPLES = ("modern-tactical", "ww1-operational", "combat-commander")


def main() -> None:
    out = ROOT / "docs" / "counters"
    for example in EXAMPLES:
        for name in bundled_templates():
            target = out / f"{example}.{name}.png"
            print(preview_template(name, str(ROOT / "examples" / example / "scenario.yaml"), target,
                                   px=64, cols=14), "->", target.relative_to(ROOT))


if __name__ == "__main__":
    main()
