"""Write the before/after contact sheets of issue 46's counter and card
design pass: ``docs/counters/nato.<tag>.png`` (the first counters of the
modern tactical and WW1 examples at 96 px, NATO template) and
``docs/cards/cards.<tag>.png`` (the sample cards of the standard and event
templates, and a shared deck with neither colour nor pictures, as
``vmodtool init``'s designers first write one).

Run from the repository root: ``python docs/counters/make_before_after.py after``
(the ``before`` files were written by the same script on the code before
the change).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from PIL import Image  # noqa: E402

from vmodtool.fileio import atomic_write  # noqa: E402
from vmodtool.render.cards import CardSetting, render_card_back, render_card_front  # noqa: E402
from vmodtool.render.counters import counter_specs, render_spec  # noqa: E402
from vmodtool.render.png import encode_png  # noqa: E402
from vmodtool.render.templates_preview import card_preview  # noqa: E402
from vmodtool.scenario import load_scenario  # noqa: E402
from vmodtool.scenario.cards import CardSpec, DeckSpec  # noqa: E402

#: the counters shown: (example, how many of its first unit counters)
COUNTERS = (("modern-tactical", 7), ("ww1-operational", 7))
PX = 96


def _sheet(rows: list[list[Image.Image]], gap: int = 6) -> Image.Image:
    w = max(sum(im.width + gap for im in row) for row in rows) + gap
    h = sum(max(im.height for im in row) + gap for row in rows) + gap
    sheet = Image.new("RGB", (w, h), (255, 255, 255))
    y = gap
    for row in rows:
        x = gap
        for im in row:
            sheet.paste(im, (x, y))
            x += im.width + gap
        y += max(im.height for im in row) + gap
    return sheet


def counters_sheet() -> Image.Image:
    rows = []
    for example, n in COUNTERS:
        sc = load_scenario(ROOT / "examples" / example / "scenario.yaml")
        specs = [s for s in counter_specs(sc) if s.kind == "unit"][:n]
        rows.append([face for s in specs for face in render_spec(s, PX)][:14])
    return _sheet(rows)


def plain_deck() -> DeckSpec:
    """Six event cards of no side, without colour or pictures."""
    texts = ("Rain turns the roads to mud: every road move costs 1 more this turn.",
             "Reserves arrive: one unit of the reinforcement track enters now.",
             "Гроза над рекой: переправа через реку стоит на 1 очко больше.")
    cards = tuple(CardSpec(id=f"events.{i}", name=name, deck="events", text=texts[i % 3],
                           values={"turn": str(i + 2)})
                  for i, name in enumerate(("Mud", "Reserves", "Гроза")))
    return DeckSpec(id="events", name="Events", cards=cards)


def cards_sheet() -> Image.Image:
    rows = [[card_preview(t, dpi=80, cols=5)] for t in ("standard", "event")]
    deck = plain_deck()
    setting = CardSetting(ROOT, (), "Marne 1918")        # the before sheet had no title on its backs
    rows.append([render_card_front(setting, deck, c, 80) for c in deck.cards] + [render_card_back(setting, deck, 80)])
    return _sheet(rows)


def _small(img: Image.Image) -> bytes:
    return encode_png(img.quantize(128).convert("RGB"))


def main(tag: str) -> None:
    atomic_write(ROOT / "docs" / "counters" / f"nato.{tag}.png", _small(counters_sheet()))
    atomic_write(ROOT / "docs" / "cards" / f"cards.{tag}.png", _small(cards_sheet()))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "after")
