"""Cards a publisher would ship (issue 46 item 4): a picture box even
without the designer's art (a placeholder pattern in the deck's colour,
only where the text keeps its size beside it), a card text sized to use the
body (one size for the whole deck), no text drawn outside its box on any
card of any template, and a designed back (a lattice in the deck's colour,
the game's title over the deck's name)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from vmodtool.render import cards as K
from vmodtool.render.templates_preview import SAMPLE_SIDES, _sample_picture, sample_decks
from vmodtool.scenario import load_scenario
from vmodtool.scenario.card_templates import bundled_card_templates, resolve_card_template
from vmodtool.scenario.cards import VASSAL_CARD_DPI, CardSpec, DeckSpec

ROOT = Path(__file__).resolve().parents[2]
CC = ROOT / "examples" / "combat-commander" / "scenario.yaml"
SHORT = "Rain: roads cost 1 more."
LONG = ("Гроза над рекой: переправа через реку стоит на 1 очко больше, дороги размыты, "
        "а подкрепления прибывают на ход позже. ") * 3


def deck(*texts: str, image: str | None = None, template: str = "standard") -> DeckSpec:
    cards = tuple(CardSpec(id=f"d.{i}", name=f"Card {i}", deck="d", text=text, image=image,
                           values={"turn": str(i)}) for i, text in enumerate(texts))
    return DeckSpec(id="d", name="Events", cards=cards, template=template)


def setting(tmp_path: Path, title: str = "Marne 1918") -> K.CardSetting:
    _sample_picture(tmp_path / "sample.png")
    return K.CardSetting(tmp_path, SAMPLE_SIDES, title)


def _decks(tmp_path: Path) -> list[tuple[K.CardSetting, DeckSpec]]:
    out = []
    for name in bundled_card_templates():
        out += [(setting(tmp_path), d) for d in sample_decks(name)]
        out += [(setting(tmp_path), deck(SHORT, LONG[:200], template=name))]
    sc = load_scenario(CC)
    out += [(K.CardSetting.of(sc), d) for d in sc.decks]
    return out


@pytest.mark.parametrize("dpi", [VASSAL_CARD_DPI, 300])
def test_no_card_text_is_drawn_outside_its_box(tmp_path: Path, dpi: int) -> None:
    """Every card of the sample decks of every bundled template, of a short
    and a long Cyrillic text, and of the Combat Commander example: the ink
    of its text inside the body (sides, picture or event line, corner row
    or band)."""
    checked, outside = 0, []
    for s, d in _decks(tmp_path):
        for card in d.cards:
            found = K.card_text_box(s, d, card, dpi)
            if found is None:
                continue
            (x0, y0, x1, y1), (bx0, by0, bx1, by1) = found
            checked += 1
            if x0 < bx0 or y0 < by0 or x1 > bx1 or y1 > by1:
                outside.append(f"{d.template} {card.id}: ink {found[0]} outside {found[1]}")
    assert not outside, "\n".join(outside)
    assert checked > 40


def test_the_box_check_sees_a_text_outside_its_box(tmp_path: Path, monkeypatch) -> None:
    """The check above can fail: text placed without the room its last
    line's descenders need leaves the box."""
    s, d = setting(tmp_path), deck(LONG[:240])
    (_x0, _y0, _x1, y1), (_a, _b, _c, bottom) = K.card_text_box(s, d, d.cards[0], 300)
    assert y1 <= bottom
    real = K._body

    def low(*args):
        top, y, text_y, end = real(*args)
        return top, y, text_y + (end - y1) + 5, end
    monkeypatch.setattr(K, "_body", low)
    (_x0, _y0, _x1, y1), (_a, _b, _c, bottom) = K.card_text_box(s, d, d.cards[0], 300)
    assert y1 > bottom


def test_a_card_without_art_shows_a_placeholder_in_the_deck_colour(tmp_path: Path) -> None:
    s = setting(tmp_path)
    d = replace(deck(SHORT), owner="blue")
    t = resolve_card_template("standard", None)
    img = K.render_card_front(s, d, d.cards[0], 150)
    w, h = img.size
    band = K.deck_colour(s, d)[0]
    tint = K._mix(band, K._rgb(t.background, (0, 0, 0)), 0.72)
    top = round((t.border_width + t.band.height + 0.04) * h)
    box = np.asarray(img.crop((w // 4, top, 3 * w // 4, top + round(0.25 * h))), dtype=np.int16)
    near = (np.abs(box - np.array(tint)).max(axis=2) <= 6).mean()
    assert near > 0.5, "the picture box is mostly the deck's colour faded"
    assert K._layout(t, d, d.cards[0]).picture


def test_a_long_text_takes_the_picture_box_instead_of_shrinking(tmp_path: Path) -> None:
    """Where the placeholder would make a card's text smaller than its
    template's size, the deck's cards without art have no picture box."""
    t = resolve_card_template("standard", None)
    long_deck = deck(SHORT, LONG[:330])
    assert not any(K._layout(t, long_deck, c).picture for c in long_deck.cards)
    text = K._layout(t, long_deck, long_deck.cards[1]).text
    assert text is not None and text[1] >= t.text.size
    assert K._layout(t, deck(SHORT), deck(SHORT).cards[0]).picture


def test_the_text_grows_to_use_the_card_at_one_size_per_deck() -> None:
    t = resolve_card_template("text", None)
    short = deck(SHORT, "Two short lines of text for the second card of the deck.", template="text")
    sizes = {K._layout(t, short, c).text[1] for c in short.cards}          # type: ignore[index]
    assert len(sizes) == 1 and sizes.pop() > t.text.size * 1.2
    mixed = deck(SHORT, LONG[:400], template="text")
    sizes = {K._layout(t, mixed, c).text[1] for c in mixed.cards}          # type: ignore[index]
    assert len(sizes) == 1, "the short card is drawn at the long card's size"


def _lines(img: Image.Image) -> int:
    """How many distinct colours a corner of a back shows (a plain back: one)."""
    w, h = img.size
    a = np.asarray(img.crop((w // 40, h // 3, w // 8, h // 2))).reshape(-1, 3)
    return len(np.unique(a, axis=0))


def test_the_back_is_designed(tmp_path: Path) -> None:
    d = deck(SHORT)
    back = K.render_card_back(setting(tmp_path), d, 150)
    untitled = K.render_card_back(setting(tmp_path, title=""), d, 150)
    assert _lines(back) > 3, "a lattice in the deck's colour"
    w, h = back.size
    diff = np.abs(np.asarray(back, dtype=np.int16) - np.asarray(untitled, dtype=np.int16)).max(axis=2)
    ys = np.nonzero(diff.max(axis=1) > 64)[0]
    assert len(ys) and ys.min() > h / 4 and ys.max() < 3 * h / 4, "the title is in the panel, in the middle"
    t = resolve_card_template("standard", None)
    assert K.back_title(setting(tmp_path), t, d) is not None
    assert K.back_title(setting(tmp_path, title="Events"), t, d) is None, "not twice the same text"
    assert K.back_title(setting(tmp_path, title="Marne " * 40), t, d) is None, "too long: left out"


def test_cards_of_the_example_keep_their_pictures(tmp_path: Path) -> None:
    """A card with the designer's picture shows it, not the placeholder."""
    s = setting(tmp_path)
    d = sample_decks("standard")[0]
    t = resolve_card_template("standard", None)
    card = next(c for c in d.cards if c.image)
    assert K._layout(t, d, card).picture
    img = K.render_card_front(s, d, card, 150)
    tint = K._mix(K.deck_colour(s, d)[0], K._rgb(t.background, (0, 0, 0)), 0.72)
    w, h = img.size
    top = round((t.border_width + t.band.height + 0.04) * h)
    box = np.asarray(img.crop((w // 4, top, 3 * w // 4, top + round(0.25 * h))), dtype=np.int16)
    assert (np.abs(box - np.array(tint)).max(axis=2) <= 6).mean() < 0.2


def test_a_deck_of_no_side_and_no_colour_is_slate_with_white_ink(tmp_path: Path) -> None:
    band, ink = K.deck_colour(setting(tmp_path), deck(SHORT))
    assert band == (0x5d, 0x6d, 0x7e) and ink == (255, 255, 255)
