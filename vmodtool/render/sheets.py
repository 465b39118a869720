"""Print-ready counter sheets: counters at 300 (or 600) dpi on A4 or Letter,
a front page and a back page per sheet, as PDF and PNG.

Geometry (all in pixels at the sheet's dpi, origin top-left of the page):

* **Gutter mode** (default): counters in a grid with ``gutter_mm`` between
  them; each is printed with ``bleed_mm`` of its edge colour around it
  (at most half the gutter), so a slightly-off cut shows no white.
* **Die-cut blocks** (``blocks=(cols, rows)``): counters abut inside blocks
  of cols × rows (as on a die-cut counter sheet), blocks are
  ``block_gap_mm`` apart and bleed only runs around a block.
* **Cut marks** in the margins line up with every counter edge.
* **Duplex**: the back page is the front mirrored — with ``flip="long"``
  (portrait, flip on the long edge) the back of the counter at x lies at
  ``page_w - x - size``; with ``flip="short"`` at ``page_h - y - size``.
  The printer offset ``offset_mm=(dx, dy)`` moves everything on the back
  page by that much (right/down as seen on the back).  The calibration page
  (:func:`calibration_pages`) measures it: print it duplex, hold it against
  the light and read, on the back page's rulers, the numbers under the front
  page's crosshair — they are ``dx`` and ``dy``.
* Counters with one face get a plain back in their fill colour.
* **Every face is printed.**  A counter with more than two faces (the WW1
  HQ's "replenished" side) is printed as several two-sided pieces: faces 1
  and 2 on the counter itself, faces 3 and 4 on an extra chit right after it
  (a lone last face gets a plain back in its own colour), and so on — what a
  designer who glues a front to a back can make.  :func:`sheet_order` is
  that order; :meth:`SheetLayout.printed_faces` lists what is drawn.
* **Registration marks**: with the cut marks, a solid disk
  (:data:`TARGET_MM` across) sits diagonally outside each corner of the
  grid, centred on the cut marks' bands, so a scan can be straightened and
  cut again (:mod:`vmodtool.render.slicing`).  Every cut mark is
  :func:`mark_width` pixels wide (even), centred on the counter edge.

Card sheets (:mod:`vmodtool.render.card_sheets`) follow the counter sheets
in the same PDF when the scenario has decks (``SheetOptions.cards``).

Counts: every counter of the mix appears once (``count: n`` is already
expanded by the loader); marker counters and activation chits as often as
``CounterSpec.count``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

from vmodtool.fileio import atomic_write, output_folder, refuse_overwrite
from vmodtool.pools import process_pool
from vmodtool.render import fonts
from vmodtool.render.counter_pdf import pdf_from_pngs, png_bytes
from vmodtool.render.counters import CounterSpec, counter_specs, counter_style, render_face
from vmodtool.render.sheet_page import (
    MARK_GAP_MM,
    MARK_LENGTH_MM,
    PAPER_MM,
    TARGET_MM,
    SheetError,
    SheetOptions,
    draw_cut_marks,
    mark_width,
    mm_to_px,
    registration_points,
)

__all__ = ["PAPER_MM", "TARGET_MM", "MARK_GAP_MM", "MARK_LENGTH_MM", "SheetError", "SheetOptions", "Placement",
           "SheetLayout", "sheet_order", "layout_sheets", "mirror_x", "mark_width", "draw_cut_marks",
           "registration_points", "render_sheet_pages", "calibration_pages", "write_sheets", "SheetResult"]

@dataclass(frozen=True)
class Placement:
    """One printed piece on one sheet: where its front and its back go, and
    which faces of the counter they show (``back_face`` None: a plain back in
    the front face's colour)."""

    spec_index: int
    x: int
    y: int
    back_x: int
    back_y: int
    bleed: tuple[int, int, int, int]     # left, top, right, bottom bleed in px
    front_face: int = 0
    back_face: int | None = 1


@dataclass
class SheetLayout:
    """Every printed piece placed, sheet by sheet, for one counter size
    (:func:`layout_sheets`), and the x and y of every counter edge (where
    the cut marks go)."""

    options: SheetOptions
    size_px: int                                  # counter edge
    page_px: tuple[int, int]
    sheets: list[list[Placement]] = field(default_factory=list)
    col_edges: list[int] = field(default_factory=list)   # x of every counter edge (front)
    row_edges: list[int] = field(default_factory=list)
    per_sheet: int = 0

    def printed_faces(self, *, backs: bool | None = None) -> list[tuple[int, int, int, str]]:
        """Every face drawn: (sheet, spec index, face index, ``front``/``back``)
        — a plain back is no face; without backs only the fronts."""
        with_backs = self.options.backs if backs is None else backs
        out = []
        for n, sheet in enumerate(self.sheets):
            for p in sheet:
                out.append((n, p.spec_index, p.front_face, "front"))
                if with_backs and p.back_face is not None:
                    out.append((n, p.spec_index, p.back_face, "back"))
        return out


def sheet_order(specs: Sequence[CounterSpec]) -> list[tuple[int, int, int | None]]:
    """The pieces to print, in order: (spec index, front face, back face or
    None) — each counter ``count`` times, and a counter with more than two
    faces as a piece per pair of faces, one after the other."""
    out: list[tuple[int, int, int | None]] = []
    for i, spec in enumerate(specs):
        n = len(spec.faces)
        pairs = [(f, f + 1 if f + 1 < n else None) for f in range(0, max(n, 1), 2)]
        for _ in range(max(0, spec.count)):
            out.extend((i, front, back) for front, back in pairs)
    return out


def mirror_x(x: int, size: int, page_w: int) -> int:
    """Where a counter at ``x`` lies on the back page after a long-edge flip."""
    return page_w - x - size


def _grid(options: SheetOptions, size: int) -> tuple[list[int], list[int], dict[str, Any]]:
    """x positions of columns and y positions of rows (left/top edges)."""
    dpi = options.dpi
    pw, ph = options.page_px
    margin = mm_to_px(options.margin_mm, dpi)
    avail_w, avail_h = pw - 2 * margin, ph - 2 * margin

    def axis(avail: int, block: int | None) -> list[int]:
        if block is None:
            gap = mm_to_px(options.gutter_mm, dpi)
            n = (avail + gap) // (size + gap)
            pos = [i * (size + gap) for i in range(n)]
        else:
            bgap = mm_to_px(options.block_gap_mm, dpi)
            bsize = block * size
            nb = (avail + bgap) // (bsize + bgap)
            pos = [b * (bsize + bgap) + i * size for b in range(nb) for i in range(block)]
            if nb == 0:   # a block larger than the page: as many as fit, abutting
                pos = [i * size for i in range(avail // size)]
        if not pos:
            return []
        used = pos[-1] + size
        start = margin + (avail - used) // 2
        return [start + p for p in pos]

    cols = axis(avail_w, options.blocks[0] if options.blocks else None)
    rows = axis(avail_h, options.blocks[1] if options.blocks else None)
    return cols, rows, {"margin": margin}


def layout_sheets(specs: Sequence[CounterSpec], size_px: int, options: SheetOptions) -> SheetLayout:
    """Place every counter (each ``count`` times) on sheets, and compute the
    mirrored back positions."""
    options.check()
    pw, ph = options.page_px
    cols, rows, _ = _grid(options, size_px)
    if not cols or not rows:
        raise SheetError(f"a {size_px}-pixel counter does not fit on {options.paper} with "
                         f"{options.margin_mm} mm margins")
    dpi = options.dpi
    bleed = mm_to_px(options.bleed_mm, dpi)
    dx, dy = mm_to_px(options.offset_mm[0], dpi), mm_to_px(options.offset_mm[1], dpi)
    cells = [(x, y, ci, ri) for ri, y in enumerate(rows) for ci, x in enumerate(cols)]
    col_set, row_set = set(cols), set(rows)

    def edge_bleed(ci: int, ri: int) -> tuple[int, int, int, int]:
        if options.blocks is None:
            return (bleed,) * 4
        # inside a block counters abut: bleed only where there is no neighbour
        x, y = cols[ci], rows[ri]
        left = 0 if (x - size_px) in col_set else bleed
        right = 0 if (x + size_px) in col_set else bleed
        top = 0 if (y - size_px) in row_set else bleed
        bottom = 0 if (y + size_px) in row_set else bleed
        return (left, top, right, bottom)

    order = sheet_order(specs)
    layout = SheetLayout(options, size_px, (pw, ph), per_sheet=len(cells))
    for start in range(0, len(order), len(cells)):
        sheet = []
        for (idx, front, back), (x, y, ci, ri) in zip(order[start:start + len(cells)], cells,
                                                      strict=False):  # last sheet: part
            if options.flip == "long":
                bx, by = mirror_x(x, size_px, pw), y
            else:
                bx, by = x, ph - y - size_px
            sheet.append(Placement(idx, x, y, bx + dx, by + dy, edge_bleed(ci, ri), front, back))
        layout.sheets.append(sheet)
    edges_x = sorted(set(cols) | {c + size_px for c in cols})
    edges_y = sorted(set(rows) | {r + size_px for r in rows})
    layout.col_edges, layout.row_edges = edges_x, edges_y
    return layout


# -- drawing ----------------------------------------------------------------------------
def _bled(img: Image.Image, bleed: tuple[int, int, int, int]) -> Image.Image:
    """``img`` with its edge pixels stretched outwards by the bleed."""
    left, top, right, bottom = bleed
    if not any(bleed):
        return img
    w, h = img.size
    out = Image.new("RGB", (w + left + right, h + top + bottom))
    if left:
        out.paste(img.crop((0, 0, 1, h)).resize((left, h)), (0, top))
    if right:
        out.paste(img.crop((w - 1, 0, w, h)).resize((right, h)), (left + w, top))
    if top:
        out.paste(img.crop((0, 0, w, 1)).resize((w, top)), (left, 0))
    if bottom:
        out.paste(img.crop((0, h - 1, w, h)).resize((w, bottom)), (left, top + h))
    for (cx, cy), (px, py, pw, ph) in (((0, 0), (0, 0, left, top)),
                                       ((w - 1, 0), (left + w, 0, right, top)),
                                       ((0, h - 1), (0, top + h, left, bottom)),
                                       ((w - 1, h - 1), (left + w, top + h, right, bottom))):
        if pw and ph:
            pixel = img.getpixel((cx, cy))
            if pixel is not None:  # None only for an image without bands
                out.paste(pixel, (px, py, px + pw, py + ph))
    out.paste(img, (left, top))
    return out


def _footer(draw: ImageDraw.ImageDraw, text: str, page: tuple[int, int], dpi: int) -> None:
    font = fonts.load_font("regular", max(8, mm_to_px(2.6, dpi)))
    draw.text((page[0] // 2, page[1] - mm_to_px(3.5, dpi)), text, font=font, fill=(90, 90, 90),
              anchor="ms")


def _compose(layout: SheetLayout, specs: Sequence[CounterSpec], sheet_no: int, back: bool,
             cache: dict[tuple[int, int], Image.Image]) -> Image.Image:
    opts = layout.options
    size = layout.size_px
    page = Image.new("RGB", layout.page_px, (255, 255, 255))
    placements = layout.sheets[sheet_no]

    def face_img(p: Placement) -> Image.Image:
        which = p.back_face if back else p.front_face
        key = (p.spec_index, -1 - p.front_face if which is None else which)
        if key not in cache:
            faces = specs[p.spec_index].faces
            if which is not None:
                cache[key] = render_face(faces[which][1], size, border=False)
            else:           # a plain back in the colour of the front it backs
                cache[key] = Image.new("RGB", (size, size), faces[p.front_face][1].fill)
        return cache[key]

    # bleed first, then the counters themselves (abutting die-cut counters overwrite bleed)
    for p in placements:
        img = face_img(p)
        left, top, right, bottom = p.bleed
        if back and opts.flip == "long":
            left, right = right, left
        elif back:
            top, bottom = bottom, top
        x, y = (p.back_x, p.back_y) if back else (p.x, p.y)
        page.paste(_bled(img, (left, top, right, bottom)), (x - left, y - top))
    for p in placements:
        img = face_img(p)
        page.paste(img, (p.back_x, p.back_y) if back else (p.x, p.y))
    draw = ImageDraw.Draw(page)
    if opts.cut_marks:
        dx, dy = (mm_to_px(opts.offset_mm[0], opts.dpi), mm_to_px(opts.offset_mm[1], opts.dpi)) if back \
            else (0, 0)
        draw_cut_marks(draw, layout.col_edges, layout.row_edges, layout.page_px, opts.dpi,
                       opts.flip if back else None, dx, dy)
    label = f"{opts.title} — sheet {sheet_no + 1} of {len(layout.sheets)}, " \
            f"{'back (print duplex, flip on the ' + opts.flip + ' edge)' if back else 'front'}"
    _footer(draw, label.strip(" —"), layout.page_px, opts.dpi)
    return page


def _page_job(args: tuple[SheetLayout, Sequence[CounterSpec], int, bool]) -> bytes:
    layout, specs, sheet_no, backs = args
    cache: dict[tuple[int, int], Image.Image] = {}
    pages = [_compose(layout, specs, sheet_no, False, cache)]
    if backs:
        pages.append(_compose(layout, specs, sheet_no, True, cache))
    return b"".join(len(b).to_bytes(8, "big") + b
                    for b in (png_bytes(p, dpi=layout.options.dpi) for p in pages))


def _split(blob: bytes) -> list[bytes]:
    out, pos = [], 0
    while pos < len(blob):
        n = int.from_bytes(blob[pos:pos + 8], "big")
        out.append(blob[pos + 8:pos + 8 + n])
        pos += 8 + n
    return out


def render_sheet_pages(specs: Sequence[CounterSpec], size_px: int, options: SheetOptions, *,
                       jobs: int | None = None,
                       progress: Callable[[int, int], None] | None = None
                       ) -> tuple[SheetLayout, list[bytes]]:
    """Lay out and draw every sheet; returns the layout and the pages as PNG
    bytes (front, back, front, back … ; fronts only without backs)."""
    layout = layout_sheets(specs, size_px, options)
    n = len(layout.sheets)
    work = [(layout, specs, i, options.backs) for i in range(n)]
    n_jobs = jobs if jobs and jobs > 0 else (os.cpu_count() or 1)
    pages: list[bytes] = []
    if progress:
        progress(0, n)
    if n_jobs == 1 or n < 2:
        for i, w in enumerate(work):
            pages.extend(_split(_page_job(w)))
            if progress:
                progress(i + 1, n)
    else:
        with process_pool(min(n_jobs, n)) as pool:
            for i, blob in enumerate(pool.map(_page_job, work)):
                pages.extend(_split(blob))
                if progress:
                    progress(i + 1, n)
    return layout, pages


def calibration_pages(options: SheetOptions) -> list[Image.Image]:
    """A front page with crosshairs and a back page with millimetre rulers
    behind them (mirrored like the counter backs, offset applied).  Print
    duplex, hold against the light, and read the rulers under each front
    crosshair: those numbers are the printer offset ``dx, dy`` in mm."""
    options.check()
    dpi = options.dpi
    pw, ph = options.page_px
    mm = dpi / 25.4
    points = [(pw // 2, ph // 2), (pw // 4, ph // 4), (3 * pw // 4, ph // 4),
              (pw // 4, 3 * ph // 4), (3 * pw // 4, 3 * ph // 4)]
    w = max(1, mm_to_px(0.2, dpi))
    font = fonts.load_font("regular", max(8, mm_to_px(2.2, dpi)))
    big = fonts.load_font("bold", max(10, mm_to_px(4.5, dpi)))
    front = Image.new("RGB", (pw, ph), "white")
    d = ImageDraw.Draw(front)
    for x, y in points:
        r = round(12 * mm)
        d.line((x - r, y, x + r, y), fill="black", width=w)
        d.line((x, y - r, x, y + r), fill="black", width=w)
        d.ellipse((x - 2 * mm, y - 2 * mm, x + 2 * mm, y + 2 * mm), outline="black", width=w)
    d.text((pw // 2, round(15 * mm)), "vmodtool duplex calibration — front", font=big,
           fill="black", anchor="mm")
    lines = ["Print this page and the next one duplex (flip on the "
             f"{options.flip} edge), at 100% scale.",
             "Hold the sheet against the light. Under each cross of the front, read the",
             "numbers on the back page's rulers: horizontal ruler = dx, vertical ruler = dy (mm).",
             "Pass them as  vmodtool sheets ... --offset dx,dy  (add to any offset already used)."]
    for i, text in enumerate(lines):
        d.text((pw // 2, round((24 + i * 5) * mm)), text, font=font, fill="black", anchor="mm")
    back = Image.new("RGB", (pw, ph), "white")
    d = ImageDraw.Draw(back)
    dx, dy = mm_to_px(options.offset_mm[0], dpi), mm_to_px(options.offset_mm[1], dpi)
    for x, y in points:
        if options.flip == "long":
            bx, by = pw - x, y
        else:
            bx, by = x, ph - y
        bx, by = bx + dx, by + dy
        for k in range(-10, 11):
            t = (4 if k % 5 == 0 else 2) * mm
            xx, yy = bx + k * mm, by + k * mm
            d.line((xx, by - t, xx, by + t), fill=(200, 0, 0), width=w)
            d.line((bx - t, yy, bx + t, yy), fill=(0, 0, 200), width=w)
            if k % 5 == 0:
                d.text((xx, by - 5.5 * mm), f"{k:+d}" if k else "0", font=font, fill=(200, 0, 0),
                       anchor="mm")
                d.text((bx + 6.5 * mm, yy), f"{k:+d}" if k else "0", font=font, fill=(0, 0, 200),
                       anchor="lm")
        d.line((bx - 10 * mm, by, bx + 10 * mm, by), fill=(200, 0, 0), width=w)
        d.line((bx, by - 10 * mm, bx, by + 10 * mm), fill=(0, 0, 200), width=w)
    d.text((pw // 2, round(15 * mm)), "vmodtool duplex calibration — back "
           f"(offset now {options.offset_mm[0]:+g}, {options.offset_mm[1]:+g} mm)", font=big,
           fill="black", anchor="mm")
    return [front, back]


@dataclass
class SheetResult:
    """What :func:`write_sheets` wrote: the PDF and/or the page PNGs, and how
    many sheets, pages, counters, faces and cards they hold."""

    pdf: Path | None
    pngs: list[Path]
    sheets: int
    pages: int
    counters: int
    per_sheet: int
    cards: int = 0                 # card copies on the card sheets
    card_sheets: int = 0
    faces: int = 0                 # counter faces printed (plain backs not counted)
    extra_chits: int = 0           # pieces for the faces beyond a counter's second
    unprinted_backs: int = 0       # faces left off by ``backs=False``


def write_sheets(scenario: Any, pdf_path: str | os.PathLike[str] | None, options: SheetOptions,
                 *, png_dir: str | os.PathLike[str] | None = None, jobs: int | None = None,
                 progress: Callable[[int, int], None] | None = None,
                 specs: Sequence[CounterSpec] | None = None) -> SheetResult:
    """Render the print sheets of a scenario into a PDF and/or sheet PNGs
    (``sheet-01-front.png``, ``sheet-01-back.png`` …, ``calibration-front.png``,
    and the card sheets ``cards-01-front.png``, ``cards-01-back.png`` …)."""
    if pdf_path is None and png_dir is None:
        raise SheetError("give a PDF path, a PNG folder or both")
    inputs = [scenario.path] if scenario.path else []
    if pdf_path is not None:
        refuse_overwrite(pdf_path, *inputs)
    style = counter_style(scenario)
    if not options.title:
        options = _with_title(options, scenario.game.title)
    specs = list(specs) if specs is not None else counter_specs(scenario, style)
    size = round(style.size_in * options.dpi)
    try:
        layout, pages = render_sheet_pages(specs, size, options, jobs=jobs, progress=progress)
    except SheetError as exc:
        raise exc.located(file=scenario.path) from None
    names: list[str] = []
    for i in range(len(layout.sheets)):
        names.append(f"sheet-{i + 1:02d}-front.png")
        if options.backs:
            names.append(f"sheet-{i + 1:02d}-back.png")
    card_sheets: list[Any] = []
    if options.cards and scenario.decks:
        from vmodtool.render.card_sheets import render_card_sheet_pages
        try:
            card_sheets, card_pages = render_card_sheet_pages(scenario, options)
        except SheetError as exc:
            raise exc.located(file=scenario.path) from None
        pages = list(pages) + card_pages
        for i in range(len(card_sheets)):
            names.append(f"cards-{i + 1:02d}-front.png")
            if options.backs:
                names.append(f"cards-{i + 1:02d}-back.png")
    if options.calibration:
        cal = [png_bytes(p, dpi=options.dpi) for p in calibration_pages(options)]
        pages = cal + pages
        names = ["calibration-front.png", "calibration-back.png"] + names
    pngs: list[Path] = []
    if png_dir is not None:
        folder = Path(png_dir)
        output_folder(folder)
        for name, data in zip(names, pages, strict=True):  # a name for every page
            atomic_write(folder / name, data)
            pngs.append(folder / name)
    pdf = None
    if pdf_path is not None:
        pw_mm, ph_mm = PAPER_MM[options.paper]
        atomic_write(pdf_path, pdf_from_pngs(pages, options.dpi, title=options.title,
                                             page_size_pt=(pw_mm / 25.4 * 72, ph_mm / 25.4 * 72)))
        pdf = Path(pdf_path)
    printed = len(layout.printed_faces())
    pieces = sum(len(sheet) for sheet in layout.sheets)
    counters = sum(max(0, s.count) for s in specs)
    return SheetResult(pdf, pngs, len(layout.sheets), len(pages), counters, layout.per_sheet,
                       cards=sum(len(s.placements) for s in card_sheets), card_sheets=len(card_sheets),
                       faces=printed, extra_chits=pieces - counters,
                       unprinted_backs=len(layout.printed_faces(backs=True)) - printed)


def _with_title(options: SheetOptions, title: str) -> SheetOptions:
    from dataclasses import replace
    return replace(options, title=title)
