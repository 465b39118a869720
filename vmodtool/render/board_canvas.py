"""A display list drawn in horizontal bands with supersampling.

Boards are drawn in *board pixels* (the VASSAL board's own pixels); the
canvas multiplies every coordinate, width and font size by ``scale`` (1 for
the VASSAL board, more for print).  Drawing operations are recorded first,
then rasterised band by band at ``supersample`` times the output resolution
and reduced with a box filter, so that lines and text are anti-aliased while
memory stays bounded by one band: a 60×40-hex board at 300 dpi never holds
more than a band in supersampled form, and :meth:`Canvas.png_chunks` streams
the PNG without ever holding the whole image.

Bands start on whole output pixels and every operation is translated by a
whole number of supersampled pixels, so bands join without seams.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from PIL import Image, ImageDraw

from vmodtool.render.fonts import load_font
from vmodtool.render.png import scanlines

__all__ = ["Canvas", "Colour"]

Colour = tuple[int, ...]
Point = tuple[float, float]

#: supersampled pixels held by one band (4 bytes each: Pillow keeps RGB in
#: 32 bits).  12 MB bands are reused by the allocator from one band to the
#: next; bands above its mmap threshold (32 MB) were mapped afresh and
#: faulted in page by page each time, which cost the VASSAL board of the
#: build benchmark a quarter of its rasterising time
BAND_PIXELS = 3_000_000


@dataclass
class _Op:
    """One recorded drawing call of the display list (polygon, line, circle,
    text): its box tells a band whether it has anything to draw."""

    kind: str
    bbox: tuple[float, float, float, float]   # output pixels
    args: tuple[Any, ...]          # the drawing call's arguments, by kind


class Canvas:
    """Record drawing operations in board pixels; rasterise later.

    ``size`` is the board size in board pixels; the output image is
    ``ceil(size × scale)``.  ``mode`` is ``RGB`` (boards) or ``RGBA``
    (transparent overlays).
    """

    def __init__(self, size: tuple[float, float], *, scale: float = 1.0,
                 background: Colour = (255, 255, 255), mode: str = "RGB",
                 supersample: int | None = None) -> None:
        if scale <= 0:
            raise ValueError("scale must be more than 0")
        self.scale = float(scale)
        self.mode = mode
        self.background = background
        self.width = max(1, int(round(size[0] * self.scale)))
        self.height = max(1, int(round(size[1] * self.scale)))
        if supersample is None:
            # 3×3 samples a pixel below print scale: their edges look as 4×4's
            # do at the VASSAL board's size (one level of coverage in 9, not
            # 16) for 56 % of the rasterising; print resolutions need fewer
            supersample = 3 if self.scale < 3 else 2
        self.supersample = max(1, int(supersample))
        self.ops: list[_Op] = []
        self._measured: dict[tuple[str, int, str, str, int], tuple[float, float, float, float]] = {}

    def grow(self, height: float) -> None:
        """Make the canvas ``height`` board pixels high (never lower): a
        print map's strip under the map is sized once the map is laid out."""
        self.height = max(self.height, int(round(height * self.scale)))

    # -- recording (board pixels) ----------------------------------------

    def _pts(self, points: Sequence[Point]) -> list[Point]:
        s = self.scale
        return [(x * s, y * s) for x, y in points]

    @staticmethod
    def _bbox(points: Sequence[Point], pad: float) -> tuple[float, float, float, float]:
        xs = [p[0] for p in points]
        ys = [p[1] for p in points]
        return min(xs) - pad, min(ys) - pad, max(xs) + pad, max(ys) + pad

    def polygon(self, points: Sequence[Point], fill: Colour | None = None,
                outline: Colour | None = None, width: float = 0.0) -> None:
        pts = self._pts(points)
        w = width * self.scale
        self.ops.append(_Op("polygon", self._bbox(pts, w + 1), (pts, fill, outline, w)))

    def line(self, points: Sequence[Point], fill: Colour, width: float = 1.0,
             round_caps: bool = False) -> None:
        """A polyline (joints rounded); ``round_caps`` rounds its ends."""
        pts = self._pts(points)
        w = width * self.scale
        self.ops.append(_Op("line", self._bbox(pts, w + 1), (pts, fill, w, round_caps)))

    def circle(self, centre: Point, radius: float, fill: Colour | None = None,
               outline: Colour | None = None, width: float = 0.0) -> None:
        (cx, cy), = self._pts([centre])
        r = radius * self.scale
        w = width * self.scale
        self.ops.append(_Op("circle", (cx - r - w - 1, cy - r - w - 1, cx + r + w + 1, cy + r + w + 1),
                            (cx, cy, r, fill, outline, w)))

    def rectangle(self, box: tuple[float, float, float, float], fill: Colour | None = None,
                  outline: Colour | None = None, width: float = 0.0) -> None:
        x0, y0, x1, y1 = box
        self.polygon([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], fill, outline, width)

    def text(self, xy: Point, text: str, *, size: float, fill: Colour,
             style: str = "regular", anchor: str = "mm", halo: Colour | None = None,
             halo_width: float = 0.0) -> tuple[float, float, float, float]:
        """Text at ``xy`` (PIL anchor); returns its box in board pixels
        (:meth:`text_box`)."""
        (x, y), = self._pts([xy])
        px = size * self.scale
        hw = halo_width * self.scale if halo else 0.0
        box = self._text_box(x, y, text, px, style, anchor, hw)
        self.ops.append(_Op("text", box, (x, y, text, px, fill, style, anchor, halo, hw)))
        s = self.scale
        return box[0] / s, box[1] / s, box[2] / s, box[3] / s

    def text_box(self, xy: Point, text: str, *, size: float, style: str = "regular", anchor: str = "mm",
                 halo_width: float = 0.0) -> tuple[float, float, float, float]:
        """The box (board pixels) that :meth:`text` with these arguments
        would cover, halo included, measured with the font at this
        canvas's scale (so a label is placed for the size it is printed
        at); nothing is drawn."""
        (x, y), = self._pts([xy])
        box = self._text_box(x, y, text, size * self.scale, style, anchor, halo_width * self.scale)
        s = self.scale
        return box[0] / s, box[1] / s, box[2] / s, box[3] / s

    def _text_box(self, x: float, y: float, text: str, px: float, style: str, anchor: str,
                  hw: float) -> tuple[float, float, float, float]:
        # a text is measured once (a hex number is measured for its place, then drawn)
        key = (text, max(1, int(round(px))), style, anchor, int(round(hw)))
        rel = self._measured.get(key)
        if rel is None:
            font = load_font(style, key[1])
            rel = self._measured[key] = font.getbbox(text, anchor=anchor, stroke_width=key[4])
        left, top, right, bottom = rel
        return x + left - 1, y + top - 1, x + right + 1, y + bottom + 1

    def text_size(self, text: str, *, size: float, style: str = "regular") -> tuple[float, float]:
        """Width and height of ``text`` in board pixels."""
        font = load_font(style, max(1, int(round(size * self.scale))))
        left, top, right, bottom = font.getbbox(text)
        return (right - left) / self.scale, (bottom - top) / self.scale

    # -- rasterising -----------------------------------------------------

    def band_height(self) -> int:
        ss = self.supersample
        rows = BAND_PIXELS // max(1, self.width * ss * ss)
        return max(8, min(self.height, rows))

    def render_band(self, top: int, bottom: int, left: int = 0, right: int | None = None) -> Image.Image:
        """Output rows ``top`` … ``bottom - 1`` (and columns ``left`` …
        ``right - 1``, the whole width by default) as an image: the very
        pixels the whole image has there, so pieces rendered apart (bands,
        the pages of a tiled print) join and overlap exactly."""
        ss = self.supersample
        right = self.width if right is None else right
        width = right - left
        work_mode = "RGBA" if self.mode == "RGBA" else "RGB"
        img = Image.new(work_mode, (width * ss, (bottom - top) * ss), self.background)
        draw = ImageDraw.Draw(img)

        # coordinates are rounded to whole supersampled pixels *before* the
        # band's offset is taken off, so every band rasterises an operation
        # exactly as the others do (Pillow truncates toward zero)
        dy = top * ss
        dx = left * ss

        def tr(points: Sequence[Point]) -> list[tuple[int, int]]:
            return [(round(x * ss) - dx, round(y * ss) - dy) for x, y in points]

        # Pillow's own drawing calls, each colour turned into ink once (what
        # ImageDraw.polygon, .line and .ellipse call, without their Python
        # round each time: a board draws thousands of segments)
        core = draw.draw
        inks: dict[Colour, int] = {}

        def ink(colour: Colour) -> int:
            found = inks.get(colour)
            if found is None:
                found = inks[colour] = draw._getink(colour)[0] or 0
            return found

        for op in self.ops:
            bx0, by0, bx1, by1 = op.bbox
            if by1 < top or by0 > bottom or bx1 < left or bx0 > right:
                continue
            kind, a = op.kind, op.args
            if kind == "polygon":
                pts, fill, outline, w = a
                pts = tr(pts)
                if fill is not None:
                    core.draw_polygon(pts, ink(fill), 1)
                if outline is not None and w > 0:
                    wi = max(1, int(round(w * ss)))
                    stroke = ink(outline)
                    for i in range(len(pts)):
                        core.draw_lines([pts[i - 1], pts[i]], stroke, wi)
                    if wi > 2:
                        r = wi // 2
                        for x, y in pts:
                            core.draw_ellipse((x - r, y - r, x + r, y + r), stroke, 1)
            elif kind == "line":
                pts, fill, w, caps = a
                pts = tr(pts)
                wi = max(1, int(round(w * ss)))
                stroke = ink(fill)
                # segment by segment with round joints of our own: Pillow's
                # joint="curve" depends on clipping, which would show band seams
                for i in range(len(pts) - 1):
                    core.draw_lines(pts[i:i + 2], stroke, wi)
                if wi > 2:
                    r = wi // 2
                    ends = pts if caps else pts[1:-1]
                    for x, y in ends:
                        core.draw_ellipse((x - r, y - r, x + r, y + r), stroke, 1)
            elif kind == "circle":
                cx, cy, r, fill, outline, w = a
                box = (round((cx - r) * ss) - dx, round((cy - r) * ss) - dy,
                       round((cx + r) * ss) - dx, round((cy + r) * ss) - dy)
                wi = int(round(w * ss)) if outline is not None else 0
                draw.ellipse(box, fill=fill, outline=outline if wi else None, width=wi)
            elif kind == "text":
                x, y, text, px, fill, style, anchor, halo, hw = a
                size = max(1, int(round(px * ss)))
                at = (round(x * ss) - dx, round(y * ss) - dy)
                stroke = int(round(hw * ss)) if halo else 0
                if not _glyph_text(draw, at, text, style, size, anchor, fill, halo, stroke):
                    draw.text(at, text, font=load_font(style, size), fill=fill, anchor=anchor,
                              stroke_width=stroke, stroke_fill=halo if halo else None)
        if ss > 1:
            if work_mode == "RGBA":
                img = img.convert("RGBa").reduce(ss).convert("RGBA")
            else:
                img = img.reduce(ss)
        return img

    def bands(self) -> Iterator[tuple[int, Image.Image]]:
        step = self.band_height()
        for top in range(0, self.height, step):
            yield top, self.render_band(top, min(self.height, top + step))

    def render(self) -> Image.Image:
        """The whole image (for boards that fit in memory)."""
        out = Image.new("RGBA" if self.mode == "RGBA" else "RGB", (self.width, self.height))
        for top, band in self.bands():
            out.paste(band, (0, top))
        return out

    def png_chunks(self, dpi: float | None = None, level: int = 6) -> Iterator[bytes]:
        """The PNG file, band by band (filter type 0, one zlib stream)."""
        channels = 4 if self.mode == "RGBA" else 3
        yield b"\x89PNG\r\n\x1a\n"
        yield _chunk(b"IHDR", struct.pack(">IIBBBBB", self.width, self.height, 8,
                                          6 if channels == 4 else 2, 0, 0, 0))
        if dpi:
            ppm = int(round(dpi / 0.0254))
            yield _chunk(b"pHYs", struct.pack(">IIB", ppm, ppm, 1))
        compressor = zlib.compressobj(level)
        stride = self.width * channels
        for _top, band in self.bands():
            data = compressor.compress(scanlines(band, stride))
            if data:
                yield _chunk(b"IDAT", data)
        yield _chunk(b"IDAT", compressor.flush())
        yield _chunk(b"IEND", b"")


#: characters whose glyphs are laid side by side by their advances alone in
#: the bundled fonts (no ligature, no mark; a kerning pair is caught by
#: :func:`_glyph_text`'s check of the total advance)
_GLYPH_TEXT = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ.-/ ")
#: (style, pixel size, stroke, character) -> (mask, left, top, advance): a
#: glyph as Pillow rasterises it alone, anchored at its origin on the baseline
_glyphs: dict[tuple[str, int, int, str], tuple[Any, int, int, float]] = {}
#: (style, pixel size, anchor, total advance in 1/64 pixel, the text if the
#: anchor depends on its ink) -> where the anchor puts the text's origin
#: (left, baseline), relative to the anchor
_origins: dict[tuple[str, int, str, int, str], tuple[int, int]] = {}


def _glyph(style: str, size: int, stroke: int, ch: str) -> tuple[Any, int, int, float]:
    key = (style, size, stroke, ch)
    found = _glyphs.get(key)
    if found is None:
        font = load_font(style, size)
        mask, (left, top) = font.getmask2(ch, "L", None, None, None, stroke, "ls", 0, (0.0, 0.0),
                                          stroke_filled=bool(stroke))
        found = _glyphs[key] = (mask, left, top, font.getlength(ch))
    return found


#: (style, pixel size, stroke, anchor, image mode) -> whether glyph drawing
#: gave ImageDraw.text's pixels when first tried (it relies on how this
#: Pillow rasterises and places glyphs: another version may differ, and
#: then every text is left to ImageDraw.text)
_exact: dict[tuple[str, int, int, str, str], bool] = {}


def _glyph_text(draw: ImageDraw.ImageDraw, at: tuple[int, int], text: str, style: str, size: int, anchor: str,
                fill: Colour, halo: Colour | None, stroke: int) -> bool:
    """:func:`_glyph_text_unchecked` where it was found to draw what
    ``ImageDraw.text`` draws (checked on the first text of each style,
    size, halo width, anchor and image mode, by drawing it both ways)."""
    if not text or len(text) > 12 or not _GLYPH_TEXT.issuperset(text):
        return False
    mode = str(getattr(draw, "mode", "RGB"))
    key = (style, size, stroke, anchor, mode)
    exact = _exact.get(key)
    if exact is None:
        exact = _exact[key] = _same_as_pillow(text, style, size, anchor, stroke, mode, fill, halo)
    return exact and _glyph_text_unchecked(draw, at, text, style, size, anchor, fill, halo, stroke)


def _same_as_pillow(text: str, style: str, size: int, anchor: str, stroke: int, mode: str,
                    fill: Colour, halo: Colour | None) -> bool:
    # the text's own box (its ink and halo), with a margin
    try:
        left, top, right, bottom = load_font(style, size).getbbox(text, anchor=anchor, stroke_width=stroke)
    except (TypeError, ValueError):
        return False
    margin = 4 + stroke
    box = (int(right - left) + 2 * margin, int(bottom - top) + 2 * margin)
    at = (margin - int(left), margin - int(top))
    # a ground unlike the text's ink and halo, so that every pixel of both shows
    inks = {tuple(fill[:3]), tuple(halo[:3]) if halo else None}
    ground = next(c for c in ((255, 255, 255), (0, 0, 0), (128, 64, 192)) if c not in inks)
    images = []
    for glyphs in (False, True):
        img = Image.new(mode, box, ground + ((255,) if mode == "RGBA" else ()))
        draw = ImageDraw.Draw(img)
        try:
            if glyphs:
                if not _glyph_text_unchecked(draw, at, text, style, size, anchor, fill, halo, stroke):
                    return False
            else:
                draw.text(at, text, font=load_font(style, size), fill=fill, anchor=anchor, stroke_width=stroke,
                          stroke_fill=halo if halo else None)
        except (TypeError, AttributeError, ValueError):      # Pillow's internals as another version has them
            return False
        images.append(img.tobytes())
    return images[0] == images[1]


def _glyph_text_unchecked(draw: ImageDraw.ImageDraw, at: tuple[int, int], text: str, style: str, size: int,
                          anchor: str, fill: Colour, halo: Colour | None, stroke: int) -> bool:
    """Draw a short text such as a hex number from glyph masks rasterised
    once (a board has hundreds of numbers made of a dozen glyphs, and
    FreeType's stroker is the costly part): the pixels ``ImageDraw.text``
    draws, glyph for glyph — each glyph's mask at its pen position rounded
    as Pillow rounds it (to the nearest pixel), the masks combined as Pillow
    combines them ("over", in order), the halo first.  False (nothing
    drawn) for a text this cannot draw exactly: another character, or a
    total advance that is not the sum of the glyphs' own (kerning)."""
    advances = [_glyph(style, size, 0, ch)[3] for ch in text]
    total = int(round(sum(advances) * 64))
    font = load_font(style, size)
    if int(round(font.getlength(text) * 64)) != total:
        return False
    # the horizontal anchor and an ascender, middle, baseline or descender
    # anchor depend on the advances and the font alone; a top or bottom
    # anchor on the glyphs' ink
    okey = (style, size, anchor, total, text if anchor[1:] in ("t", "b") else "")
    origin = _origins.get(okey)
    if origin is None:
        placed, base = font.getbbox(text, anchor=anchor), font.getbbox(text, anchor="ls")
        if len(_origins) > 4096:          # texts anchored by their ink: keep the memory bounded
            _origins.clear()
        origin = _origins[okey] = (int(placed[0] - base[0]), int(placed[1] - base[1]))
    ox, oy = at[0] + origin[0], at[1] + origin[1]
    pens = []
    pen = 0
    for advance in advances:
        pens.append((pen + 32) >> 6)
        pen += int(round(advance * 64))
    passes: list[tuple[Colour, int]] = ([(halo, stroke)] if halo is not None and stroke else []) + [(fill, 0)]
    for ink, width in passes:
        glyphs = [(_glyph(style, size, width, ch), p) for ch, p in zip(text, pens, strict=True)]
        boxes = [(p + g[1], g[2], p + g[1] + g[0].size[0], g[2] + g[0].size[1]) for g, p in glyphs]
        left, top = min(b[0] for b in boxes), min(b[1] for b in boxes)
        right, bottom = max(b[2] for b in boxes), max(b[3] for b in boxes)
        if right <= left or bottom <= top:
            continue
        mask = Image.new("L", (right - left, bottom - top)).im
        for (g, _p), (x0, y0, x1, y1) in zip(glyphs, boxes, strict=True):
            if x1 > x0 and y1 > y0:
                mask.paste(255, (x0 - left, y0 - top, x1 - left, y1 - top), g[0])
        draw.draw.draw_bitmap((ox + left, oy + top), mask, draw._getink(ink)[0])
    return True


def _chunk(kind: bytes, data: bytes) -> bytes:
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
