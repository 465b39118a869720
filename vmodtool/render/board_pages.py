"""A printed board larger than the paper, tiled over several pages.

The board (its print drawing, :class:`~vmodtool.render.board.BoardDrawing`)
is cut into tiles of the paper's printable area; neighbouring tiles share
an ``overlap`` strip (10 mm by default) so the pages can be trimmed and
glued.  Along one axis a board of ``L`` pixels on an area of ``A`` pixels
with an overlap of ``O`` needs ``1`` page when ``L <= A``, else
``ceil((L - A) / (A - O)) + 1`` (:func:`pages_along`).  Each page is
rendered straight from the drawing (:meth:`Canvas.render_band` with a
column range), so the strips two pages share are the same pixels.  In the
margin of each page: its name (row letter, column number: ``A1`` is the
top left), crop marks at the corners of the map area and alignment ticks
where the neighbouring page's edge falls.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw

from vmodtool.errors import VmodError
from vmodtool.fileio import atomic_write
from vmodtool.render.board_canvas import BAND_PIXELS, Canvas
from vmodtool.render.fonts import load_font

__all__ = ["PAPER_SIZES_MM", "Tile", "PageLayout", "pages_along", "layout_pages", "render_page", "page_images",
           "write_pages_pdf"]

#: paper sizes (portrait, millimetres)
PAPER_SIZES_MM = {"a4": (210.0, 297.0), "letter": (215.9, 279.4), "a3": (297.0, 420.0)}


def _px(mm: float, dpi: float) -> int:
    return int(round(mm / 25.4 * dpi))


def pages_along(length: int, area: int, overlap: int) -> int:
    """Pages needed along one axis (see the module docstring)."""
    if length <= area:
        return 1
    return math.ceil((length - area) / (area - overlap)) + 1


@dataclass(frozen=True)
class Tile:
    """One page: ``name`` (``A1``: row letter, column number), its row and
    column, and the part of the board image it shows (pixels, right and
    bottom exclusive)."""

    name: str
    row: int
    column: int
    box: tuple[int, int, int, int]


@dataclass(frozen=True)
class PageLayout:
    """How a board image is tiled over pages (:func:`layout_pages`): the paper
    and its orientation, the page geometry in pixels at ``dpi``, and the
    ``columns`` × ``rows`` tiles, row by row."""

    paper: str
    landscape: bool
    dpi: float
    page: tuple[int, int]            # page size, pixels
    margin: int                      # pixels round the map area
    overlap: int                     # pixels two neighbouring tiles share
    area: tuple[int, int]            # map area of a page, pixels
    columns: int
    rows: int
    tiles: tuple[Tile, ...]

    @property
    def page_mm(self) -> tuple[float, float]:
        w, h = PAPER_SIZES_MM[self.paper]
        return (h, w) if self.landscape else (w, h)


def _row_name(row: int) -> str:
    name = ""
    row += 1
    while row:
        row, rest = divmod(row - 1, 26)
        name = chr(ord("A") + rest) + name
    return name


def layout_pages(image: tuple[int, int], dpi: float, *, paper: str = "a4", orientation: str = "auto",
                 overlap_mm: float = 10.0, margin_mm: float = 10.0) -> PageLayout:
    """The pages a board image of ``image`` pixels at ``dpi`` needs on
    ``paper`` (``a4``, ``letter``, ``a3``) in ``orientation`` (``portrait``,
    ``landscape``, or ``auto``: the one with fewer pages, portrait on a
    tie); a board that fits is one page."""
    if paper not in PAPER_SIZES_MM:
        raise VmodError(f"unknown paper {paper!r}; expected one of {', '.join(PAPER_SIZES_MM)}")
    if orientation not in ("auto", "portrait", "landscape"):
        raise VmodError(f"unknown orientation {orientation!r}; expected auto, portrait or landscape")
    w_mm, h_mm = PAPER_SIZES_MM[paper]
    if not 0 <= overlap_mm < min(w_mm, h_mm) / 2 - margin_mm:
        raise VmodError(f"an overlap of {overlap_mm:g} mm does not fit {paper} paper with {margin_mm:g} mm margins")
    choices = [False, True] if orientation == "auto" else [orientation == "landscape"]
    best: PageLayout | None = None
    for landscape in choices:
        pw, ph = (_px(h_mm, dpi), _px(w_mm, dpi)) if landscape else (_px(w_mm, dpi), _px(h_mm, dpi))
        margin, overlap = _px(margin_mm, dpi), _px(overlap_mm, dpi)
        aw, ah = pw - 2 * margin, ph - 2 * margin
        cols, rows = pages_along(image[0], aw, overlap), pages_along(image[1], ah, overlap)
        tiles = []
        for r in range(rows):
            for c in range(cols):
                x0, y0 = c * (aw - overlap), r * (ah - overlap)
                tiles.append(Tile(f"{_row_name(r)}{c + 1}", r, c,
                                  (x0, y0, min(image[0], x0 + aw), min(image[1], y0 + ah))))
        layout = PageLayout(paper, landscape, dpi, (pw, ph), margin, overlap, (aw, ah), cols, rows, tuple(tiles))
        if best is None or cols * rows < best.columns * best.rows:
            best = layout
    assert best is not None
    return best


def _region(canvas: Canvas, box: tuple[int, int, int, int]) -> Image.Image:
    """The board's pixels in ``box``, rendered in bands of bounded memory."""
    x0, y0, x1, y1 = box
    out = Image.new("RGB", (x1 - x0, y1 - y0))
    ss = canvas.supersample
    step = max(8, BAND_PIXELS // max(1, (x1 - x0) * ss * ss))
    for top in range(y0, y1, step):
        band = canvas.render_band(top, min(y1, top + step), x0, x1)
        out.paste(band.convert("RGB"), (0, top - y0))
    return out


def render_page(canvas: Canvas, layout: PageLayout, tile: Tile, title: str = "") -> Image.Image:
    """One page: white paper, the tile's part of the board in the map area,
    crop marks, alignment ticks and the page's name in the margin."""
    page = Image.new("RGB", layout.page, (255, 255, 255))
    m = layout.margin
    x0, y0, x1, y1 = tile.box
    page.paste(_region(canvas, tile.box), (m, m))
    draw = ImageDraw.Draw(page)
    ink = (40, 40, 40)
    tick = max(4, m * 2 // 3)
    line = max(1, int(round(layout.dpi / 150)))
    right, bottom = m + (x1 - x0), m + (y1 - y0)
    for x in (m, right):                                   # crop marks at the map area's corners
        for y, dy in ((m, -1), (bottom, 1)):
            draw.line([(x, y + dy * 2), (x, y + dy * tick)], fill=ink, width=line)
    for y in (m, bottom):
        for x, dx in ((m, -1), (right, 1)):
            draw.line([(x + dx * 2, y), (x + dx * tick, y)], fill=ink, width=line)
    blue = (30, 90, 200)
    if tile.column > 0:          # where the page on the left ends: glue up to this line
        x = m + layout.overlap
        for y, dy in ((m, -1), (bottom, 1)):
            draw.line([(x, y + dy * 2), (x, y + dy * tick)], fill=blue, width=line)
    if tile.column < layout.columns - 1:
        x = right - layout.overlap
        for y, dy in ((m, -1), (bottom, 1)):
            draw.line([(x, y + dy * 2), (x, y + dy * tick)], fill=blue, width=line)
    if tile.row > 0:
        y = m + layout.overlap
        for x, dx in ((m, -1), (right, 1)):
            draw.line([(x + dx * 2, y), (x + dx * tick, y)], fill=blue, width=line)
    if tile.row < layout.rows - 1:
        y = bottom - layout.overlap
        for x, dx in ((m, -1), (right, 1)):
            draw.line([(x + dx * 2, y), (x + dx * tick, y)], fill=blue, width=line)
    font = load_font("condensed-bold", max(8, int(layout.dpi * 0.11)))
    small = load_font("condensed", max(7, int(layout.dpi * 0.08)))
    draw.text((m, m // 2), tile.name, font=font, fill=ink, anchor="lm")
    note = (f"page {tile.name}: row {_row_name(tile.row)} of {layout.rows}, column {tile.column + 1} of "
            f"{layout.columns}; {layout.overlap * 25.4 / layout.dpi:.0f} mm overlap, glue at the blue ticks")
    draw.text((m, layout.page[1] - m // 2), (title + " · " if title else "") + note, font=small, fill=ink,
              anchor="lm")
    return page


def page_images(canvas: Canvas, layout: PageLayout, title: str = "") -> Iterator[tuple[Tile, Image.Image]]:
    for tile in layout.tiles:
        yield tile, render_page(canvas, layout, tile, title)


def write_pages_pdf(canvas: Canvas, layout: PageLayout, path: str | Path, title: str = "") -> int:
    """Write every page into a lossless PDF (atomically); returns the page count."""
    from vmodtool.render.counter_pdf import pdf_from_pngs, png_bytes

    dpi = int(round(layout.dpi))
    pages = [png_bytes(image, dpi=dpi) for _tile, image in page_images(canvas, layout, title)]
    w_mm, h_mm = layout.page_mm
    atomic_write(path, pdf_from_pngs(pages, dpi, title=title, page_size_pt=(w_mm / 25.4 * 72, h_mm / 25.4 * 72)))
    return len(pages)
