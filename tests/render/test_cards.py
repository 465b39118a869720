"""Card faces and card sheets: Cyrillic text drawn, too-long text a located
error, backs mirrored on the following page."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from PIL import Image

from vmodtool.render.card_sheets import layout_card_sheets, render_card_sheet_pages
from vmodtool.render.cards import (
    CardTextError,
    card_px,
    check_card_texts,
    deck_colour,
    render_card_back,
    render_card_files,
    render_card_front,
)
from vmodtool.render.sheets import SheetOptions, write_sheets
from vmodtool.scenario import load_scenario

CC = Path(__file__).parents[2] / "examples" / "combat-commander" / "scenario.yaml"


@pytest.fixture(scope="module")
def cc():
    return load_scenario(CC)


def _ink_pixels(img: Image.Image, box: tuple[int, int, int, int]) -> int:
    return sum(img.crop(box).convert("L").histogram()[:100])


def test_front_has_band_name_and_cyrillic_text(cc):
    # the standard template's regions (the example's decks use fate: tests/render/test_card_templates.py)
    deck = replace(next(d for d in cc.decks if d.id == "fr_fate"), template="standard")
    card = next(c for c in deck.cards if c.id == "fr.deploy")
    img = render_card_front(cc, deck, card, 300)
    w, h = card_px("poker", 300)
    assert img.size == (w, h) == (750, 1050)
    band, _ = deck_colour(cc, deck)
    assert band == (0x8f, 0xa9, 0xd8)               # France's fill
    assert img.getpixel((w // 2, int(h * 0.03))) == band
    # the Cyrillic card text is drawn (dark glyph pixels) in the body
    assert _ink_pixels(img, (40, int(h * 0.2), w - 40, int(h * 0.5))) > 2000
    # a card without text leaves the body empty
    blank = render_card_front(cc, deck, replace(card, text=""), 300)
    assert _ink_pixels(blank, (40, int(h * 0.2), w - 40, int(h * 0.5))) == 0


def test_back_shows_the_deck_back_text(cc):
    deck = next(d for d in cc.decks if d.id == "it_fate")
    img = render_card_back(cc, deck, 150)
    assert img.size == card_px("poker", 150)
    assert img.getpixel((3, 3)) == deck_colour(cc, deck)[0]
    empty = render_card_back(cc, replace(deck, back=" "), 150)
    assert img.tobytes() != empty.tobytes()


def test_text_too_long_is_a_located_error(cc):
    deck = next(d for d in cc.decks if d.id == "fr_fate")
    card = deck.cards[0]
    long_card = replace(card, text="Очень длинный текст карты. " * 60)
    bad = replace(cc, decks=(replace(deck, cards=(long_card,) + deck.cards[1:]),) + cc.decks[1:])
    with pytest.raises(CardTextError) as err:
        check_card_texts(bad)
    message = err.value.message
    assert f"scenario.yaml:{card.position.line}" in message and "'fr.deploy'" in message
    assert "does not fit on a poker card" in message and "\n" not in message


def test_mini_euro_cards_are_smaller(cc):
    deck = replace(cc.decks[0], size="mini-euro")
    img = render_card_front(cc, deck, deck.cards[1], 300)
    assert img.size == (520, 803)


def test_card_files(cc, tmp_path):
    result = render_card_files(cc, tmp_path, ("vassal", 300))
    names = {p.name for p in result.files if p.parent.name == "vassal"}
    assert "card.fr.deploy.png" in names and "card-back.fr_fate.png" in names
    assert len(names) == sum(len(d.cards) for d in cc.decks) + len(cc.decks)
    with Image.open(tmp_path / "cards" / "vassal" / "card.fr.deploy.png") as img:
        assert img.size == (225, 315)


def test_card_sheets_mirror_the_backs(cc):
    options = SheetOptions(dpi=150)
    sheets = layout_card_sheets(cc, options)
    assert sum(len(s.placements) for s in sheets) == sum(len(d.copies()) for d in cc.decks) == 30
    pw, _ = options.page_px
    w, h = card_px("poker", 150)
    for sheet in sheets:
        assert len(sheet.placements) <= 9
        for p in sheet.placements:
            assert (p.back_x, p.back_y) == (pw - p.x - w, p.y)
    short = layout_card_sheets(cc, replace(options, flip="short", offset_mm=(1.0, 0.0)))
    _, ph = options.page_px
    p = short[0].placements[0]
    assert (p.back_x, p.back_y) == (p.x + round(150 / 25.4), ph - p.y - h)


def test_card_sheet_pages_front_then_back(cc):
    options = SheetOptions(dpi=150)
    sheets, pages = render_card_sheet_pages(cc, options)
    assert len(pages) == 2 * len(sheets)
    from io import BytesIO
    front = Image.open(BytesIO(pages[0]))
    back = Image.open(BytesIO(pages[1]))
    p = sheets[0].placements[0]
    band, _ = deck_colour(cc, p.deck)
    # the front's band at the card's place; the back's colour at the mirrored place
    assert front.getpixel((p.x + 10, p.y + 10)) == band
    assert back.getpixel((p.back_x + 3, p.back_y + 3)) == band
    # the back page holds backs only: no front's white text body at the mirrored place
    assert back.getpixel((p.back_x + 40, p.back_y + 200)) == band


def test_sheets_include_the_cards(cc, tmp_path):
    result = write_sheets(cc, tmp_path / "s.pdf", SheetOptions(dpi=150), png_dir=tmp_path / "png")
    assert result.cards == 30 and result.card_sheets == 4
    assert (tmp_path / "png" / "cards-01-back.png").is_file()
    assert result.pages == 2 * (result.sheets + result.card_sheets)
    without = write_sheets(cc, tmp_path / "n.pdf", SheetOptions(dpi=150, cards=False))
    assert without.cards == 0 and without.pages == 2 * without.sheets


def test_counters_and_sheets_commands_write_the_cards(tmp_path):
    from click.testing import CliRunner

    from vmodtool.cli import cli
    out = tmp_path / "faces"
    result = CliRunner().invoke(cli, ["counters", str(CC), "-o", str(out), "--no-print", "-j", "1"])
    assert result.exit_code == 0, result.output
    assert "card images of 6 decks" in result.output
    assert (out / "cards" / "vassal" / "card.it.hero.png").is_file()
    pdf = tmp_path / "s.pdf"
    result = CliRunner().invoke(cli, ["sheets", str(CC), "-o", str(pdf), "-j", "1"])
    assert result.exit_code == 0, result.output
    assert "30 cards on 4 card sheet(s)" in result.output and pdf.read_bytes().startswith(b"%PDF")
    result = CliRunner().invoke(cli, ["sheets", str(CC), "-o", str(tmp_path / "n.pdf"), "--no-cards", "-j", "1"])
    assert result.exit_code == 0 and "card sheet" not in result.output


def test_too_long_text_is_exit_2_with_one_line(tmp_path):
    from click.testing import CliRunner

    from vmodtool.cli import cli
    text = CC.read_text(encoding="utf-8").replace(
        'text: "Приказ: одно подразделение или огневая группа стреляет."}',
        'text: "' + "Приказ: одно подразделение или огневая группа стреляет. " * 30 + '"}', 1)
    (tmp_path / "rules").mkdir()
    for plugin in (CC.parent / "rules").glob("*.py"):   # not a __pycache__ another test's import wrote
        (tmp_path / "rules" / plugin.name).write_bytes(plugin.read_bytes())
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(cli, ["counters", str(scenario), "-o", str(tmp_path / "o"), "--no-print", "-j", "1"])
    assert result.exit_code == 2, result.output
    lines = [ln for ln in result.output.splitlines() if "does not fit" in ln]
    assert len(lines) == 1 and "'fr.fire'" in lines[0] and "scenario.yaml:" in lines[0]
