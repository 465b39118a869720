"""The printed page of a sheet: paper sizes, the print options
(:class:`SheetOptions`) and the cut and registration marks drawn around a
grid of counters or cards.

Shared by the counter sheets (:mod:`vmodtool.render.sheets`), the card
sheets (:mod:`vmodtool.render.card_sheets`) and the slicer that finds the
marks again on a scan (:mod:`vmodtool.render.slicing`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PIL import ImageDraw

from vmodtool.errors import VmodError

__all__ = ["PAPER_MM", "TARGET_MM", "MARK_GAP_MM", "MARK_LENGTH_MM", "SheetError", "SheetOptions", "mm_to_px",
           "mark_width", "registration_points", "draw_cut_marks"]

PAPER_MM = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
#: the cut marks: their distance from the grid and their length, mm
MARK_GAP_MM = 1.0
MARK_LENGTH_MM = 5.0
#: the diameter of the registration disks outside the grid's corners, mm
TARGET_MM = 4.0


class SheetError(VmodError):
    """Sheet options that cannot work (counters larger than the page, bleed
    larger than the gutter …)."""


def mm_to_px(mm: float, dpi: int) -> int:
    """Millimetres in whole pixels at ``dpi``."""
    return round(mm * dpi / 25.4)


@dataclass(frozen=True)
class SheetOptions:
    """How counter sheets are printed: paper, resolution, margins, gutter and
    bleed (mm), die-cut blocks, duplex flip and printer offset, and what else
    goes in (backs, calibration pages, card sheets); :meth:`check` refuses
    options that cannot work."""

    paper: str = "a4"                          # a4 | letter
    dpi: int = 300
    margin_mm: float = 10.0
    gutter_mm: float = 3.0
    bleed_mm: float = 1.0
    blocks: tuple[int, int] | None = None   # die-cut blocks (cols, rows)
    block_gap_mm: float = 6.0
    cut_marks: bool = True
    offset_mm: tuple[float, float] = (0.0, 0.0)
    flip: str = "long"                         # long | short
    backs: bool = True
    calibration: bool = False                  # put the calibration pages first
    title: str = ""
    cards: bool = True                         # the decks' card sheets after the counter sheets

    def check(self) -> None:
        if self.paper not in PAPER_MM:
            raise SheetError(f"unknown paper {self.paper!r}; expected a4 or letter")
        if self.dpi not in (150, 300, 600):
            raise SheetError(f"sheet resolution {self.dpi} dpi: choose 300 or 600 (150 for drafts)")
        if self.flip not in ("long", "short"):
            raise SheetError(f"flip must be long or short, not {self.flip!r}")
        if min(self.margin_mm, self.gutter_mm, self.bleed_mm, self.block_gap_mm) < 0:
            raise SheetError("margins, gutters, gaps and bleed cannot be negative")
        if self.blocks is None and self.bleed_mm > self.gutter_mm / 2 + 1e-9:
            raise SheetError(f"bleed {self.bleed_mm} mm is more than half the gutter "
                             f"({self.gutter_mm} mm): neighbouring counters would overlap")
        if self.blocks is not None:
            if min(self.blocks) < 1:
                raise SheetError("die-cut blocks need at least 1 column and 1 row")
            if self.bleed_mm > self.block_gap_mm / 2 + 1e-9:
                raise SheetError(f"bleed {self.bleed_mm} mm is more than half the block gap")
        if max(abs(self.offset_mm[0]), abs(self.offset_mm[1])) > 20:
            raise SheetError("printer offset larger than 20 mm; measure it with the calibration page")

    @property
    def page_px(self) -> tuple[int, int]:
        w, h = PAPER_MM[self.paper]
        return mm_to_px(w, self.dpi), mm_to_px(h, self.dpi)


def mark_width(dpi: int) -> int:
    """The width of a cut mark in pixels: about 0.15 mm, and even, so that the
    line is centred on the edge it marks (columns ``x - w/2 … x + w/2 - 1``)."""
    return max(2, 2 * round(0.075 * dpi / 25.4))


def registration_points(xs: Sequence[int], ys: Sequence[int], page: tuple[int, int], dpi: int,
                        mirrored: str | None = None, dx: int = 0,
                        dy: int = 0) -> list[tuple[int, int]]:
    """The centres of the four registration disks (top left, top right,
    bottom left, bottom right as printed) of a grid whose counter edges are
    ``xs`` and ``ys``: diagonally outside each corner, on the middle line of
    the cut marks' bands (to the pixel)."""
    xs, ys = _mirrored(xs, ys, page, mirrored)
    d = mm_to_px(MARK_GAP_MM, dpi) + mm_to_px(MARK_LENGTH_MM, dpi) // 2
    x0, x1 = min(xs) + dx - d, max(xs) + dx + d
    y0, y1 = min(ys) + dy - d, max(ys) + dy + d
    return [(x0, y0), (x1, y0), (x0, y1), (x1, y1)]


def _mirrored(xs: Sequence[int], ys: Sequence[int], page: tuple[int, int],
              mirrored: str | None) -> tuple[list[int], list[int]]:
    pw, ph = page
    if mirrored == "long":
        return [pw - x for x in xs], list(ys)
    if mirrored == "short":
        return list(xs), [ph - y for y in ys]
    return list(xs), list(ys)


def draw_cut_marks(draw: ImageDraw.ImageDraw, xs: Sequence[int], ys: Sequence[int],
                   page: tuple[int, int], dpi: int, mirrored: str | None = None, dx: int = 0,
                   dy: int = 0) -> None:
    """Cut marks in the margins at every counter (or card) edge ``xs``/``ys``
    and the four registration disks (mirrored for a back page, then moved by
    the printer offset)."""
    if not xs or not ys:
        return
    targets = registration_points(xs, ys, page, dpi, mirrored, dx, dy)
    xs, ys = _mirrored(xs, ys, page, mirrored)
    gap, length, w = mm_to_px(MARK_GAP_MM, dpi), mm_to_px(MARK_LENGTH_MM, dpi), mark_width(dpi)
    half = w // 2
    x0, x1 = min(xs) + dx, max(xs) + dx
    y0, y1 = min(ys) + dy, max(ys) + dy
    black = (0, 0, 0)
    for x in xs:
        x += dx
        draw.rectangle((x - half, y0 - gap - length, x + half - 1, y0 - gap - 1), fill=black)
        draw.rectangle((x - half, y1 + gap, x + half - 1, y1 + gap + length - 1), fill=black)
    for y in ys:
        y += dy
        draw.rectangle((x0 - gap - length, y - half, x0 - gap - 1, y + half - 1), fill=black)
        draw.rectangle((x1 + gap, y - half, x1 + gap + length - 1, y + half - 1), fill=black)
    r = mm_to_px(TARGET_MM / 2, dpi)
    for cx, cy in targets:
        # pixels cx - r … cx + r - 1: a disk centred on the point between them
        draw.ellipse((cx - r, cy - r, cx + r - 1, cy + r - 1), fill=black)
