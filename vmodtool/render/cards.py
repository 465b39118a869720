"""Card faces from the scenario's decks: a front per card and a back per
deck, at the VASSAL size and at print resolutions, each drawn as its deck's
card template says (:mod:`vmodtool.scenario.card_templates`; bundled:
``standard``, ``text``, ``fate``, ``event``; or a template file of the
scenario's).

Front: a border; a title band (top or bottom) in the deck's colour (the
owner's fill unless the deck gives ``colour``, or what the template says)
with the card's name; an optional event line beside the band (card fields
such as ``{event}``); the card's picture fitted into the picture box when
the template has one and the card an image; the card text wrapped into the
rest; the corner values (the card's ``values`` in the template's corners,
in order, and the card's number in its deck when the template shows it) in
the band and in a row at the opposite edge, where an optional footer (a
type line) lies between them.  Back: the deck's back image fitted to the
card, else the template's frame in the deck's colour with the back text
(default: the deck's name).

Text is fitted the way counter texts are (:data:`~vmodtool.render.counters.
MIN_TEXT_SCALE`): shrunk down to that fraction of its size, decided at one
reference size so that every resolution breaks the lines alike; a text of
any region that still does not fit raises :class:`CardTextError` located at
the card's line in the scenario (the back text at the deck's).  The bundled
DejaVu fonts cover Latin and Cyrillic.

**File names** (ASCII, stable): ``card.<card id>.png`` (copies of a card
share it) and ``card-back.<deck id>.png``; characters outside
``A-Z a-z 0-9 . _ -`` as :func:`~vmodtool.render.counters.safe_name` writes
them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageOps

from vmodtool.errors import VmodError
from vmodtool.fileio import atomic_write, output_folder
from vmodtool.images import ImageError, load_image
from vmodtool.render import fonts
from vmodtool.render.counter_pdf import png_bytes
from vmodtool.render.counters import MIN_TEXT_SCALE, safe_name, shrink_wrap
from vmodtool.scenario.card_templates import CardTemplate, LineRegion, resolve_card_template
from vmodtool.scenario.cards import CARD_SIZES, VASSAL_CARD_DPI, CardSpec, DeckSpec, card_pixels
from vmodtool.scenario.colours import hex_rgb, readable_ink
from vmodtool.scenario.model import Position, Scenario
from vmodtool.scenario.problems import Problem
from vmodtool.scenario.templates import TemplateError

__all__ = ["CardError", "CardTextError", "VASSAL_CARD_DPI", "card_px", "deck_colour", "render_card_front",
           "render_card_back", "card_filename", "back_filename", "card_text_problems", "check_card_texts",
           "render_card_files", "CardFiles", "CardSetting", "card_template", "card_text_box", "placeholder_picture",
           "back_title", "TEXT_GROWTH"]

#: the width at which line breaks and sizes are decided
_REFERENCE_W = 600
RGB = tuple[int, int, int]
#: the colour of a deck of no side that gives none: a slate, with white ink at 5.3:1
_GREY: RGB = (0x5d, 0x6d, 0x7e)
_LINE = 1.22               # line height / font size


class CardError(VmodError):
    """A card that cannot be drawn (a picture that cannot be read, a
    template that cannot be used)."""


class CardTextError(CardError):
    """A card's name, text, line or corner value does not fit its region
    even at the smallest size: ``where`` the card or deck, ``detail`` what
    does not fit."""

    def __init__(self, where: Position, detail: str) -> None:
        super().__init__(f"{where}: {detail}")
        self.where = where
        self.detail = detail


def card_px(size: str, dpi: int) -> tuple[int, int]:
    """A card's pixel size at ``dpi`` (``size`` a key of CARD_SIZES)."""
    return card_pixels(size, dpi)


def _rgb(text: str | None, default: RGB) -> RGB:
    """``#rrggbb`` or ``#rgb`` as a colour (:func:`~vmodtool.scenario.colours.hex_rgb`), else ``default``."""
    return hex_rgb(text) or default


def _contrast(colour: RGB) -> RGB:
    """Black or white ink on ``colour``, whichever reads better (WCAG contrast)."""
    return readable_ink(colour)


@dataclass(frozen=True)
class CardSetting:
    """What a card's look needs of its scenario: the folder its pictures
    and template files are in, and the sides' fills (``vmodtool templates
    show`` draws sample cards without a scenario)."""

    folder: Path
    fills: tuple[tuple[str, str], ...] = ()
    title: str = ""                     # the game's title, on the backs

    @classmethod
    def of(cls, scenario: Scenario | CardSetting) -> CardSetting:
        if isinstance(scenario, CardSetting):
            return scenario
        return cls(scenario.folder, tuple((s.id, s.fill) for s in scenario.game.sides), scenario.game.title)

    def fill(self, side: str | None) -> str | None:
        return next((f for s, f in self.fills if s == side), None)


def card_template(scenario: Scenario | CardSetting, deck: DeckSpec) -> CardTemplate:
    """The card template of ``deck`` (a :class:`CardError` at the deck's
    line when it cannot be used; the loader reports it first)."""
    try:
        return resolve_card_template(deck.template, CardSetting.of(scenario).folder)
    except TemplateError as exc:
        raise CardError(f"{deck.position}: deck {deck.id!r}: {exc}") from None


@dataclass(frozen=True)
class _Colours:
    """The colours a deck's cards are drawn in, worked out from the template,
    its side colours, the deck and its owner's fill (:func:`_colours`)."""

    band: RGB
    ink: RGB
    background: RGB
    text: RGB
    border: RGB
    back: RGB
    back_ink: RGB


def _colours(setting: CardSetting, deck: DeckSpec, t: CardTemplate) -> _Colours:
    own = t.side_colours(deck.owner)
    fill = setting.fill(deck.owner)
    source = t.band.colour
    if source == "deck":
        band = _rgb(deck.colour, _rgb(fill, _GREY))
    elif source == "side":
        band = _rgb(fill, _rgb(deck.colour, _GREY))
    else:
        band = _rgb(source, _GREY)
    band = _rgb(own.get("band"), band)
    ink = _rgb(own.get("ink"), _contrast(band) if t.band.ink == "auto" else _rgb(t.band.ink, (0, 0, 0)))
    border = {"band": band, "ink": ink}.get(t.border_colour) or _rgb(t.border_colour, band)
    back = _rgb(own.get("back"), band if t.back.colour == "band" else _rgb(t.back.colour, band))
    return _Colours(band=band, ink=ink, background=_rgb(own.get("background"), _rgb(t.background, (250, 248, 240))),
                    text=_rgb(own.get("text"), _rgb(t.text.ink, (20, 20, 20))),
                    border=_rgb(own.get("border"), border), back=back,
                    back_ink=_contrast(back) if t.back.ink == "auto" else _rgb(t.back.ink, (0, 0, 0)))


def deck_colour(scenario: Scenario | CardSetting, deck: DeckSpec) -> tuple[RGB, RGB]:
    """(band, ink) of a deck's cards: by its template, by default its
    ``colour``, else its owner's fill and black or white ink, else a
    neutral slate (#5d6d7e, white ink)."""
    c = _colours(CardSetting.of(scenario), deck, card_template(scenario, deck))
    return c.band, c.ink


def card_filename(card_id: str) -> str:
    return f"card.{safe_name(card_id)}.png"


def back_filename(deck_id: str) -> str:
    return f"card-back.{safe_name(deck_id)}.png"


# -- text fitting -------------------------------------------------------------------------
Fitted = tuple[tuple[str, ...], float]


@lru_cache(maxsize=4096)
def _wrap(text: str, font: str, frac: float, max_w: float, max_h: float, one_line: bool = False) -> Fitted | None:
    """Greedy word wrap (paragraphs kept) into a box of ``max_w`` × ``max_h``
    (fractions of the card's width) at the largest size from ``frac`` down to
    ``MIN_TEXT_SCALE * frac``; None if it does not fit."""
    return shrink_wrap([p.split() for p in text.split("\n")], font, frac, max_w, _REFERENCE_W,
                       lambda n, f: (n == 1 or not one_line) and (n * _LINE - (_LINE - 1)) * f <= max_h)


#: the card text is drawn up to this much larger than its template's size when the body has room
TEXT_GROWTH = 1.4


def _fit(card_or_deck: CardSpec | DeckSpec, what: str, text: str, font: str, frac: float, max_w: float,
         max_h: float, size: str, *, one_line: bool = False, hint: str = "", grow: float = 1.0) -> Fitted:
    """``text`` wrapped into ``max_w`` × ``max_h`` at the largest size from
    ``grow`` × ``frac`` down to ``MIN_TEXT_SCALE`` × ``frac``, else a
    located :class:`CardTextError`."""
    # grown, a text keeps room for its last line's descenders and the body's rounding
    fitted = _wrap(text, font, frac * grow, max_w, max_h - 0.012 - 0.25 * frac * grow, one_line) if grow > 1 \
        else None
    if fitted is not None and fitted[1] < frac:         # grown only: smaller is the template's own range
        fitted = None
    fitted = fitted or _wrap(text, font, frac, max_w, max_h, one_line)
    if fitted is None:
        kind = "card" if isinstance(card_or_deck, CardSpec) else "deck"
        raise CardTextError(
            card_or_deck.position,
            f"{kind} {card_or_deck.id!r}: its {what} ({len(text)} characters) does not fit "
            f"{'in one line ' if one_line else ''}on a {size} card even at {round(MIN_TEXT_SCALE * 100)}% of its "
            f"size; shorten it" + hint + (" or use the poker size" if size != "poker" else ""))
    return fitted


@dataclass(frozen=True)
class _Corner:
    """A corner value of a card, fitted: the corner it goes in, its key (None
    when the template shows no keys) and the value."""

    corner: str
    key: Fitted | None
    value: Fitted


@dataclass(frozen=True)
class _Layout:
    """A card's front laid out (:func:`_layout`): every text fitted to its
    region, and which regions the card has (picture, the row opposite the
    band, corner values in the band)."""

    template: CardTemplate
    name: Fitted
    event: Fitted | None
    text: Fitted | None
    corners: tuple[_Corner, ...]
    footer: Fitted | None
    picture: bool                      # the picture box is drawn: the card's image, else a placeholder
    row: bool                          # the row opposite the band is laid out
    band_corners: bool
    body: float = 0.0                  # the text's box: its height in card widths


def _card_fields(deck: DeckSpec, card: CardSpec) -> dict[str, str]:
    number = next((i for i, c in enumerate(deck.cards, 1) if c.id == card.id), 0)
    return {"event": card.event or "", "trigger": card.trigger, "tags": " · ".join(sorted(card.tags)),
            "number": str(number), "deck": deck.name, "name": card.name, "id": card.id, "count": str(card.count)}


def _line(card: CardSpec, what: str, region: LineRegion | None, fields: dict[str, str], max_w: float,
          max_h: float, size: str) -> Fitted | None:
    if region is None:
        return None
    text = region.render(fields)
    return _fit(card, what, text, region.font, region.size, max_w, max_h, size) if text else None


def _layout(t: CardTemplate, deck: DeckSpec, card: CardSpec, plan: tuple[bool, float] | None = None) -> _Layout:
    """A card's front laid out by its deck's template; ``plan``: the deck's
    (placeholder picture, text growth), else :func:`_deck_plan`."""
    w_mm, h_mm = CARD_SIZES[deck.size]
    aspect = h_mm / w_mm                               # card height in widths
    v = t.values
    values = [(str(k), str(val)) for k, val in card.values.items()]
    if len(values) > len(v.corners):
        raise CardTextError(card.position, f"card {card.id!r}: it has {len(values)} corner values and its "
                            f"deck's card template {t.name!r} shows {len(v.corners)}"
                            + (f" ({', '.join(v.corners)})" if v.corners else "") + "; give fewer values "
                            "or choose another template")
    fields = _card_fields(deck, card)
    slots = [(corner, key, val) for corner, (key, val) in zip(v.corners, values, strict=False)]
    if v.number is not None:
        slots.append((v.number, v.number_label, fields["number"]))
    corners = []
    for corner, key, val in slots:
        fitted_key = None
        if v.keys and key:
            fitted_key = _fit(card, f"corner value key {key!r}", key, "condensed", v.key_size, v.width - 0.01, 1.0,
                              deck.size, one_line=True)
        corners.append(_Corner(corner, fitted_key, _fit(card, f"corner value {key!r}", val, v.font, v.size,
                                                        v.width - 0.01, 1.0, deck.size, one_line=True)))
    edge = t.band.position
    band_corners = any(c.corner.startswith(edge) for c in corners)
    opposite = any(not c.corner.startswith(edge) for c in corners)
    bw = t.border_width
    name_w = 1 - 2 * bw - (2 * v.width if band_corners else 0) - 0.04
    band_h = t.band.height * aspect
    name = _fit(card, "name", card.name, t.band.font, t.band.size, name_w, band_h * 0.9, deck.size)
    line_h = t.event_line.height * aspect if t.event_line else 0.0
    event = _line(card, "event line", t.event_line, fields, 1 - 2 * bw - 0.04, line_h * 0.9, deck.size)
    row = opposite or t.footer is not None
    row_h = v.row * aspect
    footer = _line(card, "footer", t.footer, fields, 1 - 2 * bw - (2 * v.width if opposite else 0) - 0.04,
                   row_h * 0.9, deck.size)
    body = aspect - band_h - 2 * bw - line_h - (row_h if row else 0.02)
    placeholder, grow = _deck_plan(t, deck) if plan is None else plan
    picture = t.picture is not None and (card.image is not None or placeholder)
    if picture and t.picture is not None:
        body -= (t.picture + 0.02) * aspect
    text = None
    if card.text:
        text = _fit(card, "text", card.text, t.text.font, t.text.size, 1 - 2 * bw - 2 * t.text.margin, body - 0.04,
                    deck.size, hint=", choose a template without a picture box (text)" if picture else "",
                    grow=grow)
    return _Layout(t, name, event, text, tuple(corners), footer, picture, row, band_corners, body)


#: plans by the deck's id, with the deck and template they are of (a deck holds dicts: it is no key)
_PLANS: dict[int, tuple[DeckSpec, CardTemplate, tuple[bool, float]]] = {}


def _deck_plan(t: CardTemplate, deck: DeckSpec) -> tuple[bool, float]:
    """:func:`_plan_deck`, kept while the same deck object is drawn with
    the same template (the entry holds the deck, so its id is not reused)."""
    found = _PLANS.get(id(deck))
    if found is not None and found[0] is deck and found[1] == t:
        return found[2]
    if len(_PLANS) >= 64:
        _PLANS.clear()
    plan = _plan_deck(t, deck)
    _PLANS[id(deck)] = (deck, t, plan)
    return plan


def _plan_deck(t: CardTemplate, deck: DeckSpec) -> tuple[bool, float]:
    """How a deck's cards use their bodies, alike on every card of the
    deck: whether the cards without a picture show the placeholder picture
    box (when every card's text keeps at least its template's size beside
    it), and how much larger than the template's size the texts are drawn
    (the largest, up to :data:`TEXT_GROWTH`, at which every card's text
    fits)."""
    texts = [c for c in deck.cards if c.text]
    placeholder = t.picture is not None
    try:
        if placeholder and any(c.image is None for c in deck.cards):
            sized = [_layout(t, deck, c, (True, 1.0)).text for c in texts if c.image is None]
            placeholder = all(f is not None and f[1] >= t.text.size for f in sized)
        grown = [_layout(t, deck, c, (placeholder, TEXT_GROWTH)).text for c in texts]
    except CardTextError:
        return False, 1.0          # a text that does not fit is reported where it is laid out
    scale = min((f[1] / t.text.size for f in grown if f is not None), default=1.0)
    return placeholder, max(1.0, scale)


def _back_text(t: CardTemplate, deck: DeckSpec) -> Fitted:
    w_mm, h_mm = CARD_SIZES[deck.size]
    return _fit(deck, "back text", deck.back or deck.name, t.back.font, t.back.size, t.back.width,
                t.back.height * h_mm / w_mm, deck.size)


def check_card_texts(scenario: Scenario) -> None:
    """Raise :class:`CardTextError` for the first card whose name, text,
    line or corner value does not fit its region of its deck's template
    (what ``vmodtool build`` checks before it draws)."""
    for _path, exc in _text_errors(scenario, skip_unusable=False):
        raise exc


def card_text_problems(scenario: Scenario) -> list[Problem]:
    """Every card and deck back whose text does not fit its deck's template,
    located at its line (what ``check-scenario`` lists; a deck whose
    template cannot be used is the loader's problem already)."""
    return [Problem(exc.detail, exc.where.file, exc.where.line, path=path)
            for path, exc in _text_errors(scenario, skip_unusable=True)]


def _text_errors(scenario: Scenario, *, skip_unusable: bool) -> Iterator[tuple[tuple[str | int, ...], CardTextError]]:
    """Each card's and deck back's text that does not fit, with its key
    path; a deck whose template cannot be used raises its
    :class:`CardError`, or is passed over with ``skip_unusable``."""
    for d, deck in enumerate(scenario.decks):
        try:
            t = card_template(scenario, deck)
        except CardError:
            if skip_unusable:
                continue
            raise
        for c, card in enumerate(deck.cards):
            try:
                _layout(t, deck, card)
            except CardTextError as exc:
                yield ("decks", d, "cards", c), exc
        try:
            _back_text(t, deck)
        except CardTextError as exc:
            yield ("decks", d, "back"), exc


# -- drawing ----------------------------------------------------------------------------
def _picture(folder: Path, name: str, box: tuple[int, int], where: CardSpec | DeckSpec) -> Image.Image:
    path = folder / name
    try:
        img = load_image(path, "the card image", mode="RGB")
    except ImageError as exc:
        raise CardError(f"{where.position}: the image {name!r} of {where.id!r} cannot be read: {exc.reason}"
                        ) from None
    return ImageOps.contain(img, box, Image.Resampling.LANCZOS)


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


def _centred(draw: ImageDraw.ImageDraw, fitted: Fitted, font: str, w: int, cx: float, cy: float, ink: RGB) -> None:
    """A fitted text centred on (cx, cy)."""
    lines, f = fitted
    size = max(4, round(f * w))
    block = (len(lines) * _LINE - (_LINE - 1)) * size
    _text_block(draw, lines, f, font, w, cx, cy - block / 2, ink, align="centre")


def _strip_colours(region: LineRegion, c: _Colours) -> tuple[RGB | None, RGB]:
    fill = None if region.fill == "none" else c.band if region.fill == "band" else _rgb(region.fill, c.band)
    if region.ink == "auto":
        ink = _contrast(fill) if fill is not None else c.text
    else:
        ink = c.text if region.ink == "text" else _rgb(region.ink, c.text)
    return fill, ink


@dataclass(frozen=True)
class _Front:
    """The frame of one card front being drawn: its template, layout,
    colours, size in pixels, border width and where the name band is."""

    t: CardTemplate
    layout: _Layout
    c: _Colours
    w: int
    h: int
    b: int
    band_y: int
    band_h: int

    @property
    def top(self) -> bool:
        return self.t.band.position == "top"


def render_card_front(scenario: Scenario | CardSetting, deck: DeckSpec, card: CardSpec, dpi: int) -> Image.Image:
    """The card's front at ``dpi``."""
    setting = CardSetting.of(scenario)
    t = card_template(setting, deck)
    layout = _layout(t, deck, card)
    w, h = card_px(deck.size, dpi)
    c = _colours(setting, deck, t)
    img = Image.new("RGB", (w, h), c.background)
    draw = ImageDraw.Draw(img)
    b = max(1, round(t.border_width * w)) if t.border_width > 0 else 0
    if b:
        draw.rectangle((0, 0, w - 1, h - 1), outline=c.border, width=b)
    top = t.band.position == "top"
    band_h = round(t.band.height * h)
    band_y = b if top else h - 1 - b - band_h
    f = _Front(t, layout, c, w, h, b, band_y, band_h)
    draw.rectangle((b, band_y, w - 1 - b, band_y + band_h), fill=c.band)
    lines, frac = layout.name
    size = max(4, round(frac * w))
    block = (len(lines) * _LINE - (_LINE - 1)) * size
    _text_block(draw, lines, frac, t.band.font, w, w / 2, band_y + (band_h - block) / 2, c.ink, align="centre")
    line_h = _draw_event_line(draw, f)
    # the corner values: in the band, and in the row at the opposite edge
    row_h = t.values.row * h
    row_cy = h - b - row_h / 2 if top else b + row_h / 2
    _draw_corner_values(draw, f, row_h, row_cy)
    if t.footer is not None and layout.footer is not None:
        fill, ink = _strip_colours(t.footer, c)
        vw = round(t.values.width * w)
        if fill is not None:
            ry = round(row_cy - row_h / 2)
            draw.rectangle((b + (vw if layout.row else 0), ry, w - 1 - b - vw, ry + round(row_h) - 1), fill=fill)
        _centred(draw, layout.footer, t.footer.font, w, w / 2, row_cy, ink)
    # the body: picture box, then the text
    box_top, y, text_y, box_bottom = _body(f, row_h, line_h)
    if layout.picture and t.picture is not None:
        box = (w - 2 * b - round(0.06 * w), round(t.picture * h))
        if card.image is not None:
            pic = _picture(setting.folder, card.image, box, card)
        else:
            pic = placeholder_picture(box, c.band, c.background)
        img.paste(pic, ((w - pic.width) // 2, box_top + (box[1] - pic.height) // 2))
    if layout.text is not None:
        tlines, tf = layout.text
        _text_block(draw, tlines, tf, t.text.font, w, w / 2, text_y, c.text, left=b + t.text.margin * w)
    return img


def _body(f: _Front, row_h: float, line_h: int) -> tuple[int, int, float, int]:
    """Where a card's body lies in pixels: the picture box's top, the text
    box's top and bottom, and the top of the text in it (a third of the
    room its lines leave stands above them)."""
    t, layout, w, h, b = f.t, f.layout, f.w, f.h, f.b
    if f.top:
        y = b + f.band_h + line_h + round(0.02 * h)
        bottom = h - b - (round(row_h) if layout.row else 0)
    else:
        y = b + (round(row_h) if layout.row else 0) + round(0.02 * h)
        bottom = f.band_y - line_h
    picture_top = y
    if layout.picture and t.picture is not None:
        y += round(t.picture * h) + round(0.02 * h)
    text_y = float(y + round(0.01 * h))
    if layout.text is not None:
        lines, frac = layout.text
        size = max(4, round(frac * w))
        block = (len(lines) * _LINE - (_LINE - 1)) * size + 0.25 * size      # the last line's descenders
        text_y += max(0.0, bottom - text_y - block) / 3
    return picture_top, y, text_y, bottom


def card_text_box(scenario: Scenario | CardSetting, deck: DeckSpec, card: CardSpec, dpi: int
                  ) -> tuple[tuple[int, int, int, int], tuple[int, int, int, int]] | None:
    """(the ink of the card's text, the box it must stay in: between the
    body's sides and from the picture, event line or band to the corner row
    or band) in pixels at ``dpi``; None for a card without text."""
    setting = CardSetting.of(scenario)
    t = card_template(setting, deck)
    layout = _layout(t, deck, card)
    if layout.text is None:
        return None
    w, h = card_px(deck.size, dpi)
    b = max(1, round(t.border_width * w)) if t.border_width > 0 else 0
    band_h = round(t.band.height * h)
    top = t.band.position == "top"
    f = _Front(t, layout, _colours(setting, deck, t), w, h, b, b if top else h - 1 - b - band_h, band_h)
    line_h = round(t.event_line.height * h) if t.event_line else 0
    _picture_top, y, text_y, bottom = _body(f, t.values.row * h, line_h)
    lines, frac = layout.text
    size = max(4, round(frac * w))
    fnt = fonts.load_font(t.text.font, size)
    left = b + t.text.margin * w
    ink = [fnt.getbbox(line, anchor="la") for line in lines]
    x0 = round(left + min(box[0] for box in ink))
    x1 = round(left + max(box[2] for box in ink))
    y0 = round(text_y + ink[0][1])
    y1 = round(text_y + (len(lines) - 1) * size * _LINE + ink[-1][3])
    return (x0, y0, x1, y1), (b, y, w - b, bottom)


def _mix(a: RGB, b: RGB, t: float) -> RGB:
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), round(a[2] + (b[2] - a[2]) * t))


def placeholder_picture(box: tuple[int, int], band: RGB, background: RGB) -> Image.Image:
    """The picture box of a card without a picture: the deck's colour
    faded into the card, crossed by fine diagonal lines, inside a thin
    frame (a place for the art to come, quiet beside the text)."""
    w, h = box
    ss = 2
    tint = _mix(band, background, 0.72)
    img = Image.new("RGB", (w * ss, h * ss), tint)
    draw = ImageDraw.Draw(img)
    line = _mix(band, background, 0.45)
    step = max(6, round(w * ss / 14))
    width = max(1, round(w * ss / 220))
    for x in range(-h * ss, w * ss, step):
        draw.line((x, h * ss, x + h * ss, 0), fill=line, width=width)
    draw.rectangle((0, 0, w * ss - 1, h * ss - 1), outline=_mix(band, background, 0.2), width=max(1, width * 2))
    return img.reduce(ss)


def _draw_event_line(draw: ImageDraw.ImageDraw, f: _Front) -> int:
    """The event line, beside the band on the body's side; its height."""
    t, h = f.t, f.h
    line_h = round(t.event_line.height * h) if t.event_line else 0
    if t.event_line is not None:
        y0 = f.band_y + f.band_h + 1 if f.top else f.band_y - line_h
        fill, ink = _strip_colours(t.event_line, f.c)
        if fill is not None and f.layout.event is not None:    # a card without the line's text: no empty strip
            draw.rectangle((f.b, y0, f.w - 1 - f.b, y0 + line_h - 1), fill=fill)
        if f.layout.event is not None:
            _centred(draw, f.layout.event, t.event_line.font, f.w, f.w / 2, y0 + line_h / 2, ink)
    return line_h


def _draw_corner_values(draw: ImageDraw.ImageDraw, f: _Front, row_h: float, row_cy: float) -> None:
    """The corner values: in the band, and in the row at the opposite edge."""
    t, c, w, b = f.t, f.c, f.w, f.b
    v = t.values
    vw = round(v.width * w)
    band_cy = f.band_y + f.band_h / 2
    box_h = round(min(f.band_h, row_h) * 0.8)
    small = fonts.load_font("condensed", max(4, round(v.key_size * w)))
    for corner in f.layout.corners:
        cx = b + vw / 2 if corner.corner.endswith("left") else w - b - vw / 2
        in_band = corner.corner.startswith(t.band.position)
        cy = band_cy if in_band else row_cy
        vlines, vf = corner.value
        value_font = fonts.load_font(v.font, max(4, round(vf * w)))
        if v.style == "boxed":
            draw.rounded_rectangle((cx - vw / 2 + 2, cy - box_h / 2, cx + vw / 2 - 2, cy + box_h / 2),
                                   radius=max(1, box_h // 5), fill=_rgb(v.box, (255, 255, 255)),
                                   outline=_rgb(v.outline, (40, 40, 40)), width=max(1, w // 200))
            ink = (0, 0, 0) if v.ink == "auto" else _rgb(v.ink, (0, 0, 0))
        else:
            ink = _contrast(c.band if in_band else c.background) if v.ink == "auto" else _rgb(v.ink, c.text)
        if corner.key is not None:
            key_font = small if corner.key[1] == v.key_size else \
                fonts.load_font("condensed", max(4, round(corner.key[1] * w)))
            key_ink = _rgb(v.key_ink, (90, 90, 90)) if v.style == "boxed" or not in_band else ink
            draw.text((cx, cy - box_h / 2 + 1), corner.key[0][0], font=key_font, fill=key_ink, anchor="ma")
            draw.text((cx, cy + box_h / 2 - 1), vlines[0], font=value_font, fill=ink, anchor="md")
        else:
            draw.text((cx, cy), vlines[0], font=value_font, fill=ink, anchor="mm")


def render_card_back(scenario: Scenario | CardSetting, deck: DeckSpec, dpi: int) -> Image.Image:
    """The back of the deck's cards at ``dpi``: the back image fitted, else
    a designed back: a lattice in the deck's colour, the template's frame,
    and a plain panel with the game's title over the back text (the
    deck's name unless it gives ``back``)."""
    setting = CardSetting.of(scenario)
    t = card_template(setting, deck)
    w, h = card_px(deck.size, dpi)
    c = _colours(setting, deck, t)
    img = Image.new("RGB", (w, h), c.back)
    if deck.back_image is not None:
        if t.back.image == "contain":
            pic = _picture(setting.folder, deck.back_image, (w, h), deck)
            img.paste(pic, ((w - pic.width) // 2, (h - pic.height) // 2))
        else:
            pic = ImageOps.fit(_picture(setting.folder, deck.back_image, (w * 4, h * 4), deck), (w, h),
                               Image.Resampling.LANCZOS)
            img.paste(pic, (0, 0))
        return img
    frame = {"ink": c.back_ink, "band": c.band}.get(t.back.frame_colour) or _rgb(t.back.frame_colour, c.back_ink)
    img = _back_pattern(w, h, c.back, frame)
    draw = ImageDraw.Draw(img)
    if t.back.frame:
        fb = max(2, round(t.back.frame_inset * w))
        draw.rounded_rectangle((fb, fb, w - 1 - fb, h - 1 - fb), radius=max(2, fb), outline=frame,
                               width=max(1, int(t.back.frame_width * w + 1e-9)))
    lines, f = _back_text(t, deck)
    size = max(4, round(f * w))
    block = (len(lines) * _LINE - (_LINE - 1)) * size
    title = back_title(setting, t, deck)
    title_size = max(4, round(title[1] * w)) if title is not None else 0
    title_h = title_size * (1 + _TITLE_GAP) if title is not None else 0
    width = max(fonts.load_font(t.back.font, size).getlength(ln) for ln in lines)
    if title is not None:
        width = max(width, fonts.load_font(_TITLE_FONT, title_size).getlength(title[0][0]))
    # the panel: the deck's colour, plain, behind the texts, framed like the card
    pad = max(3, round(0.05 * w))
    half_w = min(w / 2 - 2 * pad, width / 2 + pad)
    top = (h - block - title_h) / 2
    panel = (round(w / 2 - half_w), round(top - pad), round(w / 2 + half_w), round(top + title_h + block + pad))
    draw.rounded_rectangle(panel, radius=pad, fill=c.back, outline=frame,
                           width=max(1, int(t.back.frame_width * w + 1e-9)))
    if title is not None:
        _text_block(draw, title[0], title[1], _TITLE_FONT, w, w / 2, top, c.back_ink, align="centre")
    _text_block(draw, lines, f, t.back.font, w, w / 2, top + title_h, c.back_ink, align="centre")
    return img


_TITLE_FONT = "condensed"
_TITLE_GAP = 0.6           # below the game's title on a back, a fraction of its size


def back_title(setting: CardSetting, t: CardTemplate, deck: DeckSpec) -> Fitted | None:
    """The game's title above the back text, in one line at 45% of the back
    text's size (None: no title, the same text as the back's, or too long
    for the back's text box, which it leaves to the deck's name)."""
    title = setting.title.strip()
    if not title or title.casefold() == (deck.back or deck.name).strip().casefold():
        return None
    return _wrap(title, _TITLE_FONT, t.back.size * 0.45, t.back.width, 1.0, True)


def _back_pattern(w: int, h: int, back: RGB, ink: RGB) -> Image.Image:
    """:func:`_lattice`, a copy to draw on."""
    return _lattice(w, h, back, ink).copy()


@lru_cache(maxsize=16)
def _lattice(w: int, h: int, back: RGB, ink: RGB) -> Image.Image:
    """A back's ground: the deck's colour under a fine lattice of its ink
    (diagonals both ways, 12 % of the way to the ink), drawn at twice the
    size and reduced."""
    ss = 2
    img = Image.new("RGB", (w * ss, h * ss), back)
    draw = ImageDraw.Draw(img)
    line = _mix(back, ink, 0.12)
    step = max(6, round(w * ss / 11))
    width = max(1, round(w * ss / 180))
    for x in range(-h * ss, w * ss + step, step):
        draw.line((x, 0, x + h * ss, h * ss), fill=line, width=width)
        draw.line((x, h * ss, x + h * ss, 0), fill=line, width=width)
    return img.reduce(ss)


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
        output_folder(out_dir, sub.relative_to(out_dir).as_posix())
        for deck in scenario.decks:
            back = sub / back_filename(deck.id)
            atomic_write(back, png_bytes(render_card_back(scenario, deck, dpi), dpi=dpi))
            written.append(back)
            for card in deck.cards:
                path = sub / card_filename(card.id)
                atomic_write(path, png_bytes(render_card_front(scenario, deck, card, dpi), dpi=dpi))
                written.append(path)
    return CardFiles(folder, written)
