"""Print-ready card sheets: every physical card of the scenario's decks at
its print size (poker 63.5 × 88.9 mm, mini-euro 44 × 68 mm, by the deck's
``size``), a front page and, on the following page, the backs mirrored for
duplex printing — the same geometry as the counter sheets
(:mod:`vmodtool.render.sheets`): with ``flip="long"`` the back of the card
at x lies at ``page_w - x - w``, with ``flip="short"`` at
``page_h - y - h``, and the printer offset moves the back page.  Cut marks
and registration disks are the counter sheets' own (``draw_cut_marks``).

Cards of one size share a sheet; each size starts a new sheet.  The page
margin is at most :data:`CARD_MARGIN_MM` (5 mm), so that 3 × 3 poker cards
fit on A4 and Letter (4 × 3 mini-euro cards).  Copies
(``count``) are printed as often as the deck holds them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PIL import Image, ImageDraw

from vmodtool.render import fonts
from vmodtool.render.cards import check_card_texts, render_card_back, render_card_front
from vmodtool.render.counter_pdf import png_bytes
from vmodtool.render.sheet_page import SheetError, SheetOptions, draw_cut_marks, mm_to_px
from vmodtool.scenario.cards import CARD_SIZES, CardSpec, DeckSpec
from vmodtool.scenario.model import Scenario

__all__ = ["CARD_MARGIN_MM", "CardPlacement", "CardSheet", "layout_card_sheets", "render_card_sheet_pages"]


#: the largest page margin of a card sheet, mm
CARD_MARGIN_MM = 5.0


@dataclass(frozen=True)
class CardPlacement:
    """One card on a sheet: its deck and card, where its front and its back go."""

    deck: DeckSpec
    card: CardSpec
    x: int
    y: int
    back_x: int
    back_y: int


@dataclass
class CardSheet:
    """One card sheet (a front page and its back page): cards of one size,
    each card's place, and the x and y of every card edge (where the cut
    marks go)."""

    size: str                                   # a key of CARD_SIZES
    card_px: tuple[int, int]
    placements: list[CardPlacement] = field(default_factory=list)
    col_edges: list[int] = field(default_factory=list)
    row_edges: list[int] = field(default_factory=list)


def _axis(avail: int, margin: int, size: int, gap: int) -> list[int]:
    n = (avail + gap) // (size + gap)
    if n <= 0:
        return []
    used = n * size + (n - 1) * gap
    start = margin + (avail - used) // 2
    return [start + i * (size + gap) for i in range(n)]


def layout_card_sheets(scenario: Scenario, options: SheetOptions) -> list[CardSheet]:
    """Place every card copy on sheets, one run of sheets per card size."""
    options.check()
    dpi = options.dpi
    pw, ph = options.page_px
    margin = mm_to_px(min(options.margin_mm, CARD_MARGIN_MM), dpi)
    gap = mm_to_px(options.gutter_mm, dpi)
    dx, dy = mm_to_px(options.offset_mm[0], dpi), mm_to_px(options.offset_mm[1], dpi)
    sheets: list[CardSheet] = []
    for size in CARD_SIZES:
        cards = [(deck, card) for deck in scenario.decks if deck.size == size for _, card in deck.copies()]
        if not cards:
            continue
        w_mm, h_mm = CARD_SIZES[size]
        w, h = mm_to_px(w_mm, dpi), mm_to_px(h_mm, dpi)
        cols = _axis(pw - 2 * margin, margin, w, gap)
        rows = _axis(ph - 2 * margin, margin, h, gap)
        if not cols or not rows:
            raise SheetError(f"a {size} card ({w_mm} × {h_mm} mm) does not fit on {options.paper} with "
                             f"{options.margin_mm} mm margins")
        cells = [(x, y) for y in rows for x in cols]
        for start in range(0, len(cards), len(cells)):
            sheet = CardSheet(size, (w, h), col_edges=sorted(set(cols) | {c + w for c in cols}),
                              row_edges=sorted(set(rows) | {r + h for r in rows}))
            for (deck, card), (x, y) in zip(cards[start:start + len(cells)], cells, strict=False):
                bx, by = (pw - x - w, y) if options.flip == "long" else (x, ph - y - h)
                sheet.placements.append(CardPlacement(deck, card, x, y, bx + dx, by + dy))
            sheets.append(sheet)
    return sheets


def _cut_marks(draw: ImageDraw.ImageDraw, sheet: CardSheet, options: SheetOptions, back: bool) -> None:
    dx = dy = 0
    if back:
        dx, dy = mm_to_px(options.offset_mm[0], options.dpi), mm_to_px(options.offset_mm[1], options.dpi)
    draw_cut_marks(draw, sheet.col_edges, sheet.row_edges, options.page_px, options.dpi,
                   options.flip if back else None, dx, dy)


def _page(scenario: Scenario, sheet: CardSheet, number: int, total: int, options: SheetOptions, back: bool,
          cache: dict[tuple[str, str | None], Image.Image]) -> Image.Image:
    page = Image.new("RGB", options.page_px, (255, 255, 255))
    for p in sheet.placements:
        key = (p.deck.id, None if back else p.card.id)
        img = cache.get(key)
        if img is None:
            img = (render_card_back(scenario, p.deck, options.dpi) if back
                   else render_card_front(scenario, p.deck, p.card, options.dpi))
            if img.size != sheet.card_px:
                img = img.resize(sheet.card_px, Image.Resampling.LANCZOS)
            cache[key] = img
        page.paste(img, (p.back_x, p.back_y) if back else (p.x, p.y))
    draw = ImageDraw.Draw(page)
    if options.cut_marks:
        _cut_marks(draw, sheet, options, back)
    side = f"back (print duplex, flip on the {options.flip} edge)" if back else "front"
    label = f"{options.title} — cards ({sheet.size}), sheet {number} of {total}, {side}".strip(" —")
    font = fonts.load_font("regular", max(8, mm_to_px(2.6, options.dpi)))
    draw.text((page.width // 2, page.height - mm_to_px(3.5, options.dpi)), label, font=font, fill=(90, 90, 90),
              anchor="ms")
    return page


def render_card_sheet_pages(scenario: Scenario, options: SheetOptions) -> tuple[list[CardSheet], list[bytes]]:
    """Lay out and draw the card sheets: the pages as PNG bytes (front, back,
    front, back …; fronts only without backs)."""
    if not scenario.decks:
        return [], []
    check_card_texts(scenario)
    sheets = layout_card_sheets(scenario, options)
    cache: dict[tuple[str, str | None], Image.Image] = {}
    pages: list[bytes] = []
    for i, sheet in enumerate(sheets):
        pages.append(png_bytes(_page(scenario, sheet, i + 1, len(sheets), options, False, cache), dpi=options.dpi))
        if options.backs:
            pages.append(png_bytes(_page(scenario, sheet, i + 1, len(sheets), options, True, cache),
                                   dpi=options.dpi))
    return sheets, pages
