"""Card faces from the scenario's decks: a front per card and a back per
deck, at the VASSAL size and at print resolutions.

Front (``standard`` template): a band in the deck's colour (the owner's
fill unless the deck gives ``colour``) with the card's name, the corner
values (up to four, top-left, top-right, bottom-left, bottom-right), the
card's picture fitted into the picture area when it has one, and the card
text wrapped into the rest.  The ``text`` template has no picture area.
Back: the deck's back image fitted to the card, else a frame in the deck's
colour with the back text (default: the deck's name).

Text is fitted the way counter texts are (:data:`~vmodtool.render.counters.
MIN_TEXT_SCALE`): shrunk down to that fraction of its size, decided at one
reference size so that every resolution breaks the lines alike; a text that
still does not fit raises :class:`CardTextError` located at the card's line
in the scenario.  The bundled DejaVu fonts cover Latin and Cyrillic.

**File names** (ASCII, stable): ``card.<card id>.png`` (copies of a card
share it) and ``card-back.<deck id>.png``; characters outside
``A-Z a-z 0-9 . _ -`` as :func:`~vmodtool.render.counters.safe_name` writes
them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageOps

from vmodtool.errors import VmodError
from vmodtool.fileio import atomic_write
from vmodtool.render import fonts
from vmodtool.render.counter_pdf import png_bytes
from vmodtool.render.counters import MIN_TEXT_SCALE, safe_name, shrink_wrap
from vmodtool.scenario.cards import CARD_SIZES, VASSAL_CARD_DPI, CardSpec, DeckSpec, card_pixels
from vmodtool.scenario.model import Scenario

__all__ = ["CardError", "CardTextError", "VASSAL_CARD_DPI", "card_px", "deck_colour", "render_card_front",
           "render_card_back", "card_filename", "back_filename", "check_card_texts", "render_card_files",
           "CardFiles"]

#: the width at which line breaks and sizes are decided
_REFERENCE_W = 600
RGB = tuple[int, int, int]

# layout, in fractions of the card's width (w) or height (h)
_BORDER = 0.025            # w
_BAND_H = 0.15             # h
_PICTURE_H = 0.34          # h
_VALUE_W = 0.17            # w, a corner value's box
_FOOTER_H = 0.09           # h, the row of the bottom corner values
_NAME_FRAC = 0.075         # w, nominal name size
_TEXT_FRAC = 0.058         # w, nominal card text size
_LINE = 1.22               # line height / font size


class CardError(VmodError):
    """A card that cannot be drawn (a picture that cannot be read)."""


class CardTextError(CardError):
    """A card's name or text does not fit on it even at the smallest size."""


def card_px(size: str, dpi: int) -> tuple[int, int]:
    """A card's pixel size at ``dpi`` (``size`` a key of CARD_SIZES)."""
    return card_pixels(size, dpi)


def _rgb(text: str | None, default: RGB) -> RGB:
    if text is None or len(text) != 7 or text[0] != "#":
        return default
    try:
        return (int(text[1:3], 16), int(text[3:5], 16), int(text[5:7], 16))
    except ValueError:
        return default


def deck_colour(scenario: Scenario, deck: DeckSpec) -> tuple[RGB, RGB]:
    """(band, ink) of a deck: its ``colour``, else its owner's fill and ink,
    else a neutral grey."""
    sides = {s.id: s for s in scenario.game.sides}
    side = sides.get(deck.owner or "")
    band = _rgb(deck.colour, _rgb(side.fill, (150, 150, 150)) if side else (150, 150, 150))
    lum = 0.299 * band[0] + 0.587 * band[1] + 0.114 * band[2]
    ink = (0, 0, 0) if lum > 140 else (255, 255, 255)
    return band, ink


def card_filename(card_id: str) -> str:
    return f"card.{safe_name(card_id)}.png"


def back_filename(deck_id: str) -> str:
    return f"card-back.{safe_name(deck_id)}.png"


# -- text fitting -------------------------------------------------------------------------
@lru_cache(maxsize=4096)
def _wrap(text: str, font: str, frac: float, max_w: float, max_h: float) -> tuple[tuple[str, ...], float] | None:
    """Greedy word wrap (paragraphs kept) into a box of ``max_w`` × ``max_h``
    (fractions of the card's width) at the largest size from ``frac`` down to
    ``MIN_TEXT_SCALE * frac``; None if it does not fit."""
    return shrink_wrap([p.split() for p in text.split("\n")], font, frac, max_w, _REFERENCE_W,
                       lambda n, f: (n * _LINE - (_LINE - 1)) * f <= max_h)


def _fit(card_or_deck: CardSpec | DeckSpec, what: str, text: str, font: str, frac: float, max_w: float,
         max_h: float, size: str) -> tuple[tuple[str, ...], float]:
    fitted = _wrap(text, font, frac, max_w, max_h)
    if fitted is None:
        kind = "card" if isinstance(card_or_deck, CardSpec) else "deck"
        raise CardTextError(
            f"{card_or_deck.position}: {kind} {card_or_deck.id!r}: its {what} ({len(text)} characters) does not fit "
            f"on a {size} card even at {round(MIN_TEXT_SCALE * 100)}% of its size; shorten it"
            + (", use the text template (no picture area)" if what == "text" else "")
            + (" or use the poker size" if size != "poker" else ""))
    return fitted


@dataclass(frozen=True)
class _Layout:
    name: tuple[tuple[str, ...], float]
    text: tuple[tuple[str, ...], float] | None
    values: tuple[tuple[str, str], ...]
    picture: bool


def _layout(deck: DeckSpec, card: CardSpec) -> _Layout:
    w_mm, h_mm = CARD_SIZES[deck.size]
    aspect = h_mm / w_mm                               # card height in widths
    values = tuple((str(k), str(v)) for k, v in card.values.items())
    top_values = values[:2]
    name_w = 1 - 2 * _BORDER - (2 * _VALUE_W if top_values else 0) - 0.04
    band_h = _BAND_H * aspect
    name = _fit(card, "name", card.name, "bold", _NAME_FRAC, name_w, band_h * 0.9, deck.size)
    picture = card.image is not None and deck.template == "standard"
    body = aspect - band_h - 2 * _BORDER - (_PICTURE_H * aspect if picture else 0)
    body -= _FOOTER_H * aspect if len(values) > 2 else 0.02
    text = None
    if card.text:
        text = _fit(card, "text", card.text, "condensed", _TEXT_FRAC, 1 - 2 * _BORDER - 0.08, body - 0.04,
                    deck.size)
    for key, value in values:
        _fit(card, f"corner value {key!r}", value, "condensed-bold", 0.05, _VALUE_W - 0.01, 1.0, deck.size)
    return _Layout(name, text, values, picture)


def check_card_texts(scenario: Scenario) -> None:
    """Raise :class:`CardTextError` for the first card whose name, text or
    corner value does not fit (what ``vmodtool build`` checks before it
    draws)."""
    for deck in scenario.decks:
        for card in deck.cards:
            _layout(deck, card)
        _fit(deck, "back text", deck.back or deck.name, "bold", 0.09, 0.8, 0.9, deck.size)


# -- drawing ----------------------------------------------------------------------------
def _picture(scenario: Scenario, name: str, box: tuple[int, int], where: CardSpec | DeckSpec) -> Image.Image:
    path = scenario.folder / name
    try:
        with Image.open(path) as img:
            img.load()
            return ImageOps.contain(img.convert("RGB"), box, Image.Resampling.LANCZOS)
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        raise CardError(f"{where.position}: the image {name!r} of {where.id!r} cannot be read: {exc}") from None


def _text_block(draw: ImageDraw.ImageDraw, lines: tuple[str, ...], frac: float, font: str, w: int,
                centre_x: float, top: float, ink: RGB, *, align: str = "left", left: float = 0) -> None:
    size = max(4, round(frac * w))
    fnt = fonts.load_font(font, size)
    step = size * _LINE
    for i, line in enumerate(lines):
        y = top + i * step
        if align == "centre":
            draw.text((centre_x, y), line, font=fnt, fill=ink, anchor="ma")
        else:
            draw.text((left, y), line, font=fnt, fill=ink, anchor="la")


def render_card_front(scenario: Scenario, deck: DeckSpec, card: CardSpec, dpi: int) -> Image.Image:
    """The card's front at ``dpi``."""
    layout = _layout(deck, card)
    w, h = card_px(deck.size, dpi)
    band, ink = deck_colour(scenario, deck)
    img = Image.new("RGB", (w, h), (250, 248, 240))
    draw = ImageDraw.Draw(img)
    b = max(1, round(_BORDER * w))
    draw.rectangle((0, 0, w - 1, h - 1), outline=band, width=b)
    band_h = round(_BAND_H * h)
    draw.rectangle((b, b, w - 1 - b, b + band_h), fill=band)
    lines, f = layout.name
    size = max(4, round(f * w))
    block = (len(lines) * _LINE - (_LINE - 1)) * size
    _text_block(draw, lines, f, "bold", w, w / 2, b + (band_h - block) / 2, ink, align="centre")
    value_font = fonts.load_font("condensed-bold", max(4, round(0.05 * w)))
    vw = round(_VALUE_W * w)
    corners = [(b + vw / 2, b + band_h / 2), (w - b - vw / 2, b + band_h / 2),
               (b + vw / 2, h - b - _FOOTER_H * h / 2), (w - b - vw / 2, h - b - _FOOTER_H * h / 2)]
    for (key, value), (cx, cy) in zip(layout.values, corners, strict=False):
        box_h = round(min(band_h, _FOOTER_H * h) * 0.8)
        draw.rounded_rectangle((cx - vw / 2 + 2, cy - box_h / 2, cx + vw / 2 - 2, cy + box_h / 2),
                               radius=max(1, box_h // 5), fill=(255, 255, 255), outline=(40, 40, 40),
                               width=max(1, w // 200))
        small = fonts.load_font("condensed", max(4, round(0.03 * w)))
        draw.text((cx, cy - box_h / 2 + 1), key, font=small, fill=(90, 90, 90), anchor="ma")
        draw.text((cx, cy + box_h / 2 - 1), value, font=value_font, fill=(0, 0, 0), anchor="md")
    y = b + band_h + round(0.02 * h)
    if layout.picture and card.image is not None:
        box = (w - 2 * b - round(0.06 * w), round(_PICTURE_H * h))
        pic = _picture(scenario, card.image, box, card)
        img.paste(pic, ((w - pic.width) // 2, y + (box[1] - pic.height) // 2))
        y += box[1] + round(0.02 * h)
    if layout.text is not None:
        tlines, tf = layout.text
        _text_block(draw, tlines, tf, "condensed", w, w / 2, y + round(0.01 * h), (20, 20, 20),
                    left=b + 0.04 * w)
    return img


def render_card_back(scenario: Scenario, deck: DeckSpec, dpi: int) -> Image.Image:
    """The back of the deck's cards at ``dpi``: the back image fitted, else
    a frame in the deck's colour with the back text."""
    w, h = card_px(deck.size, dpi)
    band, ink = deck_colour(scenario, deck)
    if deck.back_image is not None:
        img = Image.new("RGB", (w, h), band)
        pic = ImageOps.fit(_picture(scenario, deck.back_image, (w * 4, h * 4), deck), (w, h),
                           Image.Resampling.LANCZOS)
        img.paste(pic, (0, 0))
        return img
    img = Image.new("RGB", (w, h), band)
    draw = ImageDraw.Draw(img)
    b = max(2, round(0.06 * w))
    draw.rounded_rectangle((b, b, w - 1 - b, h - 1 - b), radius=max(2, b), outline=ink, width=max(1, w // 80))
    lines, f = _fit(deck, "back text", deck.back or deck.name, "bold", 0.09, 0.8, 0.9, deck.size)
    size = max(4, round(f * w))
    block = (len(lines) * _LINE - (_LINE - 1)) * size
    _text_block(draw, lines, f, "bold", w, w / 2, (h - block) / 2, ink, align="centre")
    return img


@dataclass
class CardFiles:
    """What :func:`render_card_files` wrote."""

    folder: Path
    files: list[Path]


def render_card_files(scenario: Scenario, out_dir: str | os.PathLike[str],
                      resolutions: tuple[str | int, ...] = ("vassal", 300)) -> CardFiles:
    """Write every card front and deck back as PNG: ``<out>/cards/vassal/``
    at the module's size, ``<out>/cards/<dpi>dpi/`` for print."""
    check_card_texts(scenario)
    folder = Path(out_dir) / "cards"
    written: list[Path] = []
    for res in resolutions:
        dpi = VASSAL_CARD_DPI if res == "vassal" else int(res)
        sub = folder / ("vassal" if res == "vassal" else f"{dpi}dpi")
        sub.mkdir(parents=True, exist_ok=True)
        for deck in scenario.decks:
            back = sub / back_filename(deck.id)
            atomic_write(back, png_bytes(render_card_back(scenario, deck, dpi), dpi=dpi))
            written.append(back)
            for card in deck.cards:
                path = sub / card_filename(card.id)
                atomic_write(path, png_bytes(render_card_front(scenario, deck, card, dpi), dpi=dpi))
                written.append(path)
    return CardFiles(folder, written)
