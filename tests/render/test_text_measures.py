"""The counter renderer's measuring shortcuts give what measuring the
whole text gives: a descent taken per character, and a label font kept
without laying the line out again when it is well inside its width."""

from __future__ import annotations

import random
import unicodedata

import pytest

from vmodtool.render import counters as rc
from vmodtool.render import fonts
from vmodtool.render.fonts import FONT_STYLES

SIMPLE = [chr(c) for c in range(0x20, 0x530)
          if unicodedata.category(chr(c))[0] in "LNPSZ" and not unicodedata.combining(chr(c))]
TEXTS = ["12-3", "3-1", "Тель-Авив", "gjpqy,;()", "Ёжик", "fi fl ffi", "AVATAR", "ДЩЦдщцу", "2/7 Pz.Gren", " ",
         "Å͏q", "e\u0301", "\u05d0\u05d1", "x\u0327y"]      # the last three are laid out whole


@pytest.mark.parametrize("style", FONT_STYLES)
def test_descent_per_character_is_the_whole_texts(style: str) -> None:
    rng = random.Random(18)
    texts = TEXTS + ["".join(rng.choice(SIMPLE) for _ in range(rng.randint(1, 10))) for _ in range(300)]
    for text in texts:
        assert rc._descent.__wrapped__(text, style) == rc._text_descent(text, style), text


def _measured(lines: tuple[str, ...], font: str, frac: float, max_w: float, px: int) -> int:
    size = max(4, round(frac * px))
    f = fonts.load_font(font, size)
    while f.size > 4 and max(f.getlength(ln) for ln in lines) > max_w * px:
        f = fonts.load_font(font, f.size - 1)
    return f.size


@pytest.mark.parametrize("px", [40, 75, 150, 300])
def test_label_font_is_the_one_measuring_would_choose(px: int) -> None:
    rng = random.Random(px)
    for _ in range(200):
        text = "".join(rng.choice(SIMPLE) for _ in range(rng.randint(1, 14)))
        frac = rng.choice([0.12, 0.16, 0.2, 0.26])
        for style in ("condensed-bold", "bold"):
            got = rc._lines_font.__wrapped__((text,), style, frac, 0.9, px).size
            assert got == _measured((text,), style, frac, 0.9, px), (text, style, frac)
