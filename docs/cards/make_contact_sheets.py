"""Write docs/cards/<template>.png: the sample cards (a Latin card with a
picture, a Cyrillic card and the back of a side's deck; a shared deck's
card and back) drawn with every bundled card template, and
docs/cards/combat-commander.png: the first cards of the Combat Commander
example's French fate deck as they are built (template fate).

Run from the repository root: ``python docs/cards/make_contact_sheets.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from PIL import Image  # noqa: E402

from vmodtool.fileio import atomic_write  # noqa: E402
from vmodtool.render.cards import render_card_back, render_card_front  # noqa: E402
from vmodtool.render.png import encode_png  # noqa: E402
from vmodtool.render.templates_preview import card_preview  # noqa: E402
from vmodtool.scenario import load_scenario  # noqa: E402
from vmodtool.scenario.card_templates import bundled_card_templates  # noqa: E402

#: the resolution of the contact sheets (small files)
DPI = 100


def _small(img: Image.Image) -> bytes:
    """PNG of ``img`` in 128 colours (each file well under 150 KB)."""
    return encode_png(img.quantize(128).convert("RGB"))


def main() -> None:
    out = ROOT / "docs" / "cards"
    for name in bundled_card_templates():
        target = out / f"{name}.png"
        atomic_write(target, _small(card_preview(name, dpi=DPI, cols=5)))
        print(target.relative_to(ROOT))
    sc = load_scenario(ROOT / "examples" / "combat-commander" / "scenario.yaml")
    deck = next(d for d in sc.decks if d.id == "fr_fate")
    faces = [render_card_front(sc, deck, card, DPI) for card in deck.cards[:5]]
    faces.append(render_card_back(sc, deck, DPI))
    gap = 6
    w, h = faces[0].size
    sheet = Image.new("RGB", (gap + len(faces) * (w + gap), h + 2 * gap), (255, 255, 255))
    for i, face in enumerate(faces):
        sheet.paste(face, (gap + i * (w + gap), gap))
    target = out / "combat-commander.png"
    atomic_write(target, _small(sheet))
    print(target.relative_to(ROOT))


if __name__ == "__main__":
    main()
