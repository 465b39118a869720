"""Cutting a scanned or exported counter sheet back into face images
(``vmodtool slice``).

**The grid from the sheet's own marks** (a sheet printed by
:mod:`vmodtool.render.sheets`): the four registration disks outside the
grid's corners are found (dark round blobs of about
:data:`~vmodtool.render.sheets.TARGET_MM` at the image's resolution, the
outermost four, which must form a rectangle), the scan is turned straight
by the angle of that rectangle, and the cut marks are read on the middle
line of the disks: the marks above and below the grid give every counter's
left and right edge, those left and right of it every top and bottom edge
(each to a fraction of a pixel, as the darkness-weighted centre of its
line).  A cell is a pair of neighbouring edges as far apart as the most
common distance (the counter size), so gutters and die-cut blocks both
work.

**The grid from options** (a sheet without marks): columns × rows, the
top left corner of the first counter, the counter size and the gutter, in
the image's pixels; the scan must then be straight.

**Backs**: the back page is the front mirrored (flip on the long edge: the
back of column ``c`` is column ``cols - 1 - c`` of the back page; short
edge: row ``rows - 1 - r``), each face itself not mirrored — as
``vmodtool sheets`` prints it for duplex printing and as a designer glues
it.  A back page is read with its own marks (they carry the printer's
offset) or, from options, with the front's grid mirrored across the image.

**Inputs**: PNG or JPEG (anything Pillow reads), and a page of a PDF whose
pages are one image each (as ``vmodtool sheets`` and most scanners write
them: Flate with or without the PNG predictor, or JPEG), read without any
PDF library; a PDF of vector pages must be exported as an image first.

Only Pillow is used (no numpy at run time).
"""

from __future__ import annotations

import csv
import json
import math
import os
import re
import zlib
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image

from vmodtool.errors import PathLike, VmodError
from vmodtool.fileio import atomic_write, output_folder, refuse_overwrite
from vmodtool.images import DECODE_BUDGET, ImageError, decoded_cost, load_image
from vmodtool.render.counter_pdf import png_bytes
from vmodtool.render.sheets import MARK_GAP_MM, MARK_LENGTH_MM, TARGET_MM

__all__ = ["SliceError", "GridOptions", "SheetGrid", "Cell", "SliceResult", "read_sheet_image", "find_grid",
           "grid_from_options", "mirrored_grid", "cut_cell", "names_from_csv", "names_from_scenario",
           "slice_sheet", "parse_length", "image_dpi", "back_cell", "Names"]

#: the resolution assumed when the image does not say (PNG pHYs, JPEG JFIF)
DEFAULT_DPI = 300
#: a cell whose darkest pixel is lighter than this is empty paper
BLANK_LEVEL = 236
#: below this angle (degrees) a scan is taken as straight and not resampled
STRAIGHT_DEG = 0.005
#: a pixel counts as ink below this grey level
_INK = 128


class SliceError(VmodError):
    """A sheet image that cannot be cut: unreadable, no grid found, a grid
    outside the image, a bad names file."""


@dataclass(frozen=True)
class GridOptions:
    """A grid given by hand, in pixels of the image."""

    cols: int
    rows: int
    origin: tuple[float, float]          # top left corner of the first counter
    cell: tuple[float, float]            # counter width, height
    gutter: tuple[float, float] = (0.0, 0.0)


@dataclass(frozen=True)
class Cell:
    """One counter's place on a page: its row and column and its box in the
    straightened image (what :func:`cut_cell` cuts)."""

    row: int                              # 0-based, as printed on the page
    col: int
    box: tuple[float, float, float, float]   # left, top, right, bottom in the straightened image


@dataclass
class SheetGrid:
    """The counters of one page: their boxes in ``image`` (the page turned
    straight), how it was found and by how much the page was turned."""

    image: Image.Image
    cols: int
    rows: int
    cells: list[Cell]
    source: str                           # "marks" | "options"
    angle_deg: float = 0.0                # the page was turned by this much to straighten it
    targets: list[tuple[float, float]] = field(default_factory=list)   # in the original image

    def cell(self, row: int, col: int) -> Cell:
        return self.cells[row * self.cols + col]


# -- reading --------------------------------------------------------------------------------
def parse_length(text: str, dpi: float, what: str) -> float:
    """``12``/``12px`` pixels or ``3.5mm`` millimetres at ``dpi``, as pixels."""
    found = re.fullmatch(r"\s*(-?[0-9]+(?:\.[0-9]*)?)\s*(px|mm)?\s*", text)
    if found is None:
        raise SliceError(f"{what}: {text!r} is not a length; write pixels (188, 188px) or millimetres (15.9mm)")
    value = float(found.group(1))
    return value * dpi / 25.4 if found.group(2) == "mm" else value


def image_dpi(image: Image.Image) -> float:
    dpi = image.info.get("dpi")
    try:
        value = float(dpi[0]) if dpi else 0.0
    except (TypeError, ValueError, IndexError):
        value = 0.0
    return value if value >= 50 else float(DEFAULT_DPI)


def read_sheet_image(path: PathLike, page: int = 1) -> Image.Image:
    """The sheet image at ``path`` as RGB: a PNG, JPEG or other image Pillow
    reads, or page ``page`` (1-based) of a PDF made of one image per page."""
    where = os.fspath(path)
    try:
        with open(path, "rb") as fh:
            head = fh.read(5)
    except OSError as exc:
        raise SliceError(f"cannot read the sheet image ({exc.strerror or exc})", file=where) from None
    if head == b"%PDF-":
        image = _pdf_page_image(Path(path).read_bytes(), page, where)
    else:
        if page != 1:
            raise SliceError(f"page {page} asked of an image file; --page is for a PDF", file=where)
        try:
            # counted as converted to RGB: what the sheet is read as
            image = load_image(path, "the sheet image", convert_to="RGB")
        except ImageError as exc:
            raise SliceError(exc.message, file=where, place=exc.place) from None
    info = dict(image.info)
    if image.mode != "RGB":
        if image.mode in ("RGBA", "LA", "P", "PA") :
            image = image.convert("RGBA")
            flat = Image.new("RGB", image.size, (255, 255, 255))
            flat.paste(image, mask=image.getchannel("A"))
            image = flat
        else:
            image = image.convert("RGB")
        image.info = info
    return image


_OBJ = re.compile(rb"(\d+)\s+(\d+)\s+obj\s*<<")
#: the longest image dictionary looked at (bytes)
_MAX_DICTIONARY = 1 << 16


def _pdf_page_image(data: bytes, page: int, where: str) -> Image.Image:
    """The ``page``-th image XObject of a PDF (in file order), decoded."""
    images: list[tuple[int, bytes, bytes]] = []        # offset, dictionary, stream
    masks = {int(n) for n in re.findall(rb"/SMask\s+(\d+)\s+\d+\s+R", data)}   # soft masks are no pages
    for found in _OBJ.finditer(data):
        if int(found.group(1)) in masks:
            continue
        start = found.end() - 2
        # an image's dictionary is short: look no further (a hostile file
        # of many stream-less objects must not make this quadratic)
        end = data.find(b"stream", start, start + _MAX_DICTIONARY)
        if end < 0:
            continue
        header = data[start:end]
        if b">>" not in header or b"/Subtype" not in header or not re.search(rb"/Subtype\s*/Image", header):
            continue
        if b"endobj" in header:           # a dictionary object without a stream
            continue
        body = end + len(b"stream")
        body += 2 if data[body:body + 2] == b"\r\n" else 1
        length = re.search(rb"/Length\s+(\d+)(\s+\d+\s+R)?", header)
        if length and not length.group(2):
            stream = data[body:body + int(length.group(1))]
        else:
            stop = data.find(b"endstream", body)
            stream = data[body:stop].rstrip(b"\r\n")
        images.append((found.start(), header, stream))
    if not images:
        raise SliceError("this PDF holds no page image (a PDF of vector pages: export the page as PNG first)",
                         file=where)
    if not 1 <= page <= len(images):
        raise SliceError(f"page {page} asked, but the PDF has {len(images)} page image(s)", file=where)
    offset, header, stream = images[page - 1]
    place = f"page {page} (object at byte {offset})"

    def number(key: bytes) -> int:
        found = re.search(rb"/" + key + rb"\s+(\d+)", header)
        if found is None:
            raise SliceError(f"the image has no /{key.decode()}", file=where, place=place)
        return int(found.group(1))

    filters = re.findall(rb"/(FlateDecode|DCTDecode|JPXDecode|CCITTFaxDecode|JBIG2Decode|LZWDecode|"
                         rb"RunLengthDecode|ASCII85Decode|ASCIIHexDecode)", header)
    if filters == [b"DCTDecode"] or filters == [b"JPXDecode"]:
        return _decoded(stream, "RGB", where, place)
    if filters != [b"FlateDecode"]:
        names = ", ".join(f.decode() for f in filters) or "no filter"
        raise SliceError(f"the page image is stored with {names}; export the page as PNG first",
                         file=where, place=place)
    width, height, bits = number(b"Width"), number(b"Height"), number(b"BitsPerComponent")
    colours = {b"DeviceRGB": 3, b"DeviceGray": 1}
    space = re.search(rb"/ColorSpace\s*/(\w+)", header)
    channels = colours.get(space.group(1) if space else b"", 0)
    if bits != 8 or not channels:
        raise SliceError("the page image is not 8-bit RGB or grey; export the page as PNG first",
                         file=where, place=place)
    mode = "RGB" if channels == 3 else "L"
    predictor = re.search(rb"/Predictor\s+(\d+)", header)
    if predictor and int(predictor.group(1)) >= 10:
        # PNG predictors: the stream is a PNG's IDAT data
        def chunk(kind: bytes, body: bytes) -> bytes:
            return (len(body).to_bytes(4, "big") + kind + body
                    + zlib.crc32(kind + body).to_bytes(4, "big"))
        ihdr = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, 2 if channels == 3 else 0, 0, 0, 0])
        png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", stream) + chunk(b"IEND", b"")
        return _decoded(png, mode, where, place)
    expected = width * height * channels
    cost = decoded_cost((width, height), mode, "RGB")
    if width <= 0 or height <= 0 or cost > DECODE_BUDGET:
        # refused from the dictionary, before a byte is inflated
        raise SliceError(f"the page image claims {width}x{height} pixels ({cost:,} bytes decoded), more than "
                         f"the {DECODE_BUDGET:,} bytes vmodtool decodes one image into", file=where, place=place)
    try:
        # never more than the declared size is inflated (bounded memory)
        raw = zlib.decompressobj().decompress(stream, expected)
        return Image.frombytes(mode, (width, height), raw)
    except (zlib.error, ValueError) as exc:
        raise SliceError(f"the page image cannot be decoded: {exc}", file=where, place=place) from None


def _decoded(data: bytes, mode: str, where: str, place: str) -> Image.Image:
    """A PDF page's image stream (JPEG, or PNG made of its Flate data)."""
    try:
        return load_image(data, "the page image", file=where, place=place, mode=mode, convert_to="RGB")
    except ImageError as exc:
        raise SliceError(exc.message, file=where, place=exc.place) from None


# -- the registration disks --------------------------------------------------------------------
def _components(data: bytes, width: int, height: int) -> list[tuple[int, int, int, int, int]]:
    """Ink blobs of a small binary image (``data``: 1 for ink): count and
    bounding box (x0, y0, x1, y1 inclusive) of each 4-connected one."""
    seen = bytearray(data)           # 1 = ink not yet visited
    out = []
    for start in range(len(seen)):
        if not seen[start]:
            continue
        seen[start] = 0
        queue = deque([start])
        count, x0, y0, x1, y1 = 0, width, height, -1, -1
        while queue:
            i = queue.popleft()
            y, x = divmod(i, width)
            count += 1
            x0, x1 = min(x0, x), max(x1, x)
            y0, y1 = min(y0, y), max(y1, y)
            for j in (i - 1 if x else -1, i + 1 if x + 1 < width else -1, i - width, i + width):
                if 0 <= j < len(seen) and seen[j]:
                    seen[j] = 0
                    queue.append(j)
        out.append((count, x0, y0, x1, y1))
    return out


def _centre(grey: Image.Image, cx: float, cy: float, half: float) -> tuple[float, float, float]:
    """The darkness-weighted centre of the ink in a square around (cx, cy),
    and the ink's area in pixels."""
    left, top = max(0, math.floor(cx - half)), max(0, math.floor(cy - half))
    right, bottom = min(grey.width, math.ceil(cx + half)), min(grey.height, math.ceil(cy + half))
    if right <= left or bottom <= top:
        return cx, cy, 0.0
    box = grey.crop((left, top, right, bottom)).point(lambda v: max(0, 200 - v))
    w = right - left
    data = box.tobytes()
    total = sx = sy = 0.0
    for r in range(bottom - top):
        row = data[r * w:(r + 1) * w]
        s = sum(row)
        if s:
            total += s
            sy += s * (r + 0.5)
            sx += sum(v * (c + 0.5) for c, v in enumerate(row) if v)
    if not total:
        return cx, cy, 0.0
    return left + sx / total, top + sy / total, total / 200.0


def _find_targets(grey: Image.Image, dpi: float, where: str) -> list[tuple[float, float]]:
    """The four registration disks (top left, top right, bottom left, bottom
    right), to a fraction of a pixel."""
    disk = TARGET_MM * dpi / 25.4
    factor = max(1, int(disk / 8))
    small = grey.reduce(factor) if factor > 1 else grey
    ink = small.point(lambda v: 1 if v < _INK else 0).tobytes()
    expect = disk / factor
    candidates = []
    for count, x0, y0, x1, y1 in _components(ink, small.width, small.height):
        w, h = x1 - x0 + 1, y1 - y0 + 1
        if not (0.6 * expect <= w <= 1.5 * expect + 1 and 0.6 * expect <= h <= 1.5 * expect + 1):
            continue
        if abs(w - h) > max(2, 0.25 * max(w, h)) or not 0.5 <= count / (w * h) <= 0.97:
            continue
        candidates.append(((x0 + x1 + 1) / 2 * factor, (y0 + y1 + 1) / 2 * factor))
    hint = (f"no registration marks found (the four round disks outside the grid's corners that "
            f"`vmodtool sheets` prints, about {TARGET_MM:g} mm across at {dpi:g} dpi); give the grid with "
            "--grid COLSxROWS --origin X,Y --cell W[,H] [--gutter G], or --scan-dpi if the image's resolution is wrong")
    if len(candidates) < 4:
        raise SliceError(hint, file=where)
    corners = [min(candidates, key=lambda p: p[0] + p[1]), max(candidates, key=lambda p: p[0] - p[1]),
               min(candidates, key=lambda p: p[0] - p[1]), max(candidates, key=lambda p: p[0] + p[1])]
    refined = []
    for x, y in corners:
        rx, ry, area = _centre(grey, x, y, 0.75 * disk)
        rx, ry, area = _centre(grey, rx, ry, 0.75 * disk)
        refined.append((rx, ry, area))
    tl, tr, bl, br = ((x, y) for x, y, _ in refined)
    areas = [a for *_, a in refined]
    top, bottom = math.dist(tl, tr), math.dist(bl, br)
    left, right = math.dist(tl, bl), math.dist(tr, br)
    diagonal = (math.dist(tl, br), math.dist(tr, bl))
    if len(set(corners)) < 4 or min(top, left) < 2 * disk \
            or abs(top - bottom) > 0.01 * top or abs(left - right) > 0.01 * left \
            or abs(diagonal[0] - diagonal[1]) > 0.01 * max(diagonal) \
            or max(areas) > 1.5 * min(areas):
        raise SliceError(f"{hint} (the round marks found do not form a rectangle)", file=where)
    return [tl, tr, bl, br]


def _rotate_point(p: tuple[float, float], c: tuple[float, float], angle: float) -> tuple[float, float]:
    """Where ``p`` goes when the image turns by ``angle`` radians
    anticlockwise (as seen, y down) about ``c`` (Pillow's ``rotate``)."""
    dx, dy = p[0] - c[0], p[1] - c[1]
    cos, sin = math.cos(angle), math.sin(angle)
    return c[0] + dx * cos + dy * sin, c[1] - dx * sin + dy * cos


# -- the cut marks ----------------------------------------------------------------------------
def _lines(grey: Image.Image, box: tuple[float, float, float, float], vertical: bool) -> list[float]:
    """The centres of the ink lines crossing ``box`` (vertical lines: their
    x; horizontal ones: their y), to a fraction of a pixel."""
    left, top = max(0, round(box[0])), max(0, round(box[1]))
    right, bottom = min(grey.width, round(box[2])), min(grey.height, round(box[3]))
    if right - left < 2 or bottom - top < 2:
        return []
    band = grey.crop((left, top, right, bottom)).point(lambda v: max(0, 200 - v))
    if not vertical:
        band = band.transpose(Image.Transpose.TRANSPOSE)
    w, h = band.size
    data = band.tobytes()
    profile = [0] * w
    for r in range(h):
        profile = [a + b for a, b in zip(profile, data[r * w:(r + 1) * w], strict=True)]
    peak = max(profile)
    if peak < 200 * h * 0.25:          # no line darker than a quarter of the band's height
        return []
    high, low = 0.5 * peak, 0.05 * peak
    out: list[float] = []
    c = 0
    while c < w:
        if profile[c] < high:
            c += 1
            continue
        a = c
        while a > 0 and profile[a - 1] > low:
            a -= 1
        b = c
        while b + 1 < w and profile[b + 1] > low:
            b += 1
        total = sum(profile[a:b + 1])
        out.append((left if vertical else top) + sum((i + 0.5) * profile[i] for i in range(a, b + 1)) / total)
        c = b + 1
    return out


def _cells_of(edges: Sequence[float], what: str, where: str) -> list[tuple[float, float]]:
    """Counters between edges: neighbouring edges as far apart as the most
    common distance between neighbours."""
    if len(edges) < 2:
        raise SliceError(f"no cut marks found {what} the grid (between the registration marks)", file=where)
    diffs = [b - a for a, b in zip(edges, edges[1:], strict=False)]

    def near(d: float, e: float) -> bool:
        return abs(d - e) <= max(2.0, 0.02 * e)

    best = max(diffs, key=lambda d: (sum(near(e, d) for e in diffs), d))
    size = sum(e for e in diffs if near(e, best)) / sum(near(e, best) for e in diffs)
    return [(a, b) for a, b, d in zip(edges, edges[1:], diffs, strict=False) if near(d, size)]


def _pair(first: list[float], second: list[float], what: str, where: str) -> list[float]:
    if len(first) != len(second):
        raise SliceError(f"the cut marks {what} disagree ({len(first)} and {len(second)} marks): "
                         "a mark is hidden or smudged", file=where)
    if any(abs(a - b) > 3 for a, b in zip(first, second, strict=True)):
        raise SliceError(f"the cut marks {what} do not line up (the scan is bent or skewed)", file=where)
    return [(a + b) / 2 for a, b in zip(first, second, strict=True)]


def find_grid(image: Image.Image, *, dpi: float | None = None, expect: tuple[int, int] | None = None,
              where: str = "") -> SheetGrid:
    """The counters of a sheet page from its registration disks and cut
    marks (see the module's doc); ``expect`` = (cols, rows) checks the count."""
    dpi = dpi or image_dpi(image)
    grey = image.convert("L")
    targets = _find_targets(grey, dpi, where)
    tl, tr, bl, br = targets
    angle = (math.atan2(tr[1] - tl[1], tr[0] - tl[0]) + math.atan2(br[1] - bl[1], br[0] - bl[0])
             - math.atan2(bl[0] - tl[0], bl[1] - tl[1]) - math.atan2(br[0] - tr[0], br[1] - tr[1])) / 4
    straight = image
    points = list(targets)
    if abs(math.degrees(angle)) >= STRAIGHT_DEG:
        # turning by +angle (anticlockwise) undoes a page turned clockwise by it
        straight = image.rotate(math.degrees(angle), resample=Image.Resampling.BICUBIC, center=tl,
                                fillcolor=(255, 255, 255))
        grey = straight.convert("L")
        disk = TARGET_MM * dpi / 25.4
        points = [_centre(grey, *_rotate_point(p, tl, angle), 0.75 * disk)[:2] for p in targets]
    else:
        angle = 0.0
    tl, tr, bl, br = points
    mm = dpi / 25.4
    clear, half = (TARGET_MM / 2 + 0.6) * mm, (MARK_LENGTH_MM / 2 - 0.8) * mm
    xs = _pair(_lines(grey, (tl[0] + clear, tl[1] - half, tr[0] - clear, tr[1] + half), True),
               _lines(grey, (bl[0] + clear, bl[1] - half, br[0] - clear, br[1] + half), True),
               "above and below the grid", where)
    ys = _pair(_lines(grey, (tl[0] - half, tl[1] + clear, bl[0] + half, bl[1] - clear), False),
               _lines(grey, (tr[0] - half, tr[1] + clear, br[0] + half, br[1] - clear), False),
               "left and right of the grid", where)
    cols, rows = _cells_of(xs, "above", where), _cells_of(ys, "left of", where)
    # the marks lie MARK_GAP_MM + MARK_LENGTH_MM / 2 outside the grid: a check that these are our marks
    inset = (MARK_GAP_MM + MARK_LENGTH_MM / 2) * mm
    if abs(cols[0][0] - tl[0] - inset) > 0.5 * mm or abs(rows[0][0] - tl[1] - inset) > 0.5 * mm:
        raise SliceError("the round marks are not where `vmodtool sheets` puts them beside the cut marks; "
                         "give the grid with --grid COLSxROWS --origin X,Y --cell W[,H]", file=where)
    grid = SheetGrid(straight, len(cols), len(rows),
                     [Cell(r, c, (x0, y0, x1, y1)) for r, (y0, y1) in enumerate(rows)
                      for c, (x0, x1) in enumerate(cols)],
                     "marks", math.degrees(angle), list(targets))
    _check_expected(grid, expect, where)
    return grid


def _check_expected(grid: SheetGrid, expect: tuple[int, int] | None, where: str) -> None:
    if expect is not None and (grid.cols, grid.rows) != expect:
        raise SliceError(f"the sheet's marks show {grid.cols} × {grid.rows} counters, not the "
                         f"{expect[0]} × {expect[1]} of --grid", file=where)


def grid_from_options(image: Image.Image, options: GridOptions, *, where: str = "") -> SheetGrid:
    """The grid given by hand; every counter must lie inside the image."""
    if options.cols < 1 or options.rows < 1:
        raise SliceError(f"--grid needs at least 1 column and 1 row, not {options.cols}x{options.rows}",
                         file=where)
    (x, y), (w, h), (gx, gy) = options.origin, options.cell, options.gutter
    if w < 2 or h < 2 or gx < 0 or gy < 0:
        raise SliceError(f"a counter of {w:g} × {h:g} px with a gutter of {gx:g}, {gy:g} px cannot be cut",
                         file=where)
    right = x + options.cols * w + (options.cols - 1) * gx
    bottom = y + options.rows * h + (options.rows - 1) * gy
    if x < 0 or y < 0 or right > image.width + 0.5 or bottom > image.height + 0.5:
        raise SliceError(f"the grid ({options.cols} × {options.rows} counters of {w:g} × {h:g} px from "
                         f"{x:g},{y:g}) spans {x:g}…{right:g} × {y:g}…{bottom:g}, outside the "
                         f"{image.width} × {image.height} image", file=where)
    cells = [Cell(r, c, (x + c * (w + gx), y + r * (h + gy), x + c * (w + gx) + w, y + r * (h + gy) + h))
             for r in range(options.rows) for c in range(options.cols)]
    return SheetGrid(image, options.cols, options.rows, cells, "options")


def mirrored_grid(image: Image.Image, front: SheetGrid, flip: str, *, where: str = "") -> SheetGrid:
    """The back page's grid: the front's hand-given grid mirrored across the
    back image (cells by their row and column on the back page as printed)."""
    cells = []
    for cell in front.cells:
        x0, y0, x1, y1 = cell.box
        row, col = cell.row, cell.col
        if flip == "long":
            x0, x1, col = image.width - x1, image.width - x0, front.cols - 1 - col
        else:
            y0, y1, row = image.height - y1, image.height - y0, front.rows - 1 - row
        cells.append(Cell(row, col, (x0, y0, x1, y1)))
    if min(min(c.box[0], c.box[1]) for c in cells) < -0.5:
        raise SliceError(f"the front's grid mirrored lies outside the {image.width} × {image.height} back "
                         "image", file=where)
    return SheetGrid(image, front.cols, front.rows, sorted(cells, key=lambda c: (c.row, c.col)), "options")


def back_cell(grid: SheetGrid, row: int, col: int, flip: str) -> Cell:
    """The back page's cell behind the front's (row, col)."""
    if flip == "long":
        return grid.cell(row, grid.cols - 1 - col)
    return grid.cell(grid.rows - 1 - row, col)


def cut_cell(grid: SheetGrid, cell: Cell, size: tuple[int, int] | None = None) -> Image.Image:
    """The counter in ``cell``, resampled from the straightened page at its
    exact (fractional) position; at ``size`` if given, else its own."""
    x0, y0, x1, y1 = cell.box
    w, h = max(1, round(x1 - x0)), max(1, round(y1 - y0))
    out = grid.image.transform((w, h), Image.Transform.AFFINE, ((x1 - x0) / w, 0, x0, 0, (y1 - y0) / h, y0),
                               resample=Image.Resampling.BICUBIC, fillcolor=(255, 255, 255))
    if size is not None and size != (w, h):
        out = out.resize(size, Image.Resampling.LANCZOS)
    return out


def _blank(image: Image.Image) -> bool:
    return image.convert("L").getextrema()[0] >= BLANK_LEVEL   # type: ignore[operator]


# -- names ----------------------------------------------------------------------------------
Names = dict[tuple[int, int], tuple[str | None, str | None, dict[str, Any]]]
_BAD_NAME = re.compile(r"[/\\\x00-\x1f\x7f:*?\"<>|]")


def _file_name(text: str, where: str, place: str) -> str:
    name = text.strip()
    if not name or name in (".", "..") or _BAD_NAME.search(name):
        raise SliceError(f"image name {text!r} cannot be a file name (no folders, controls or :*?\"<>|)",
                         file=where, place=place)
    return name if name.lower().endswith(".png") else name + ".png"


def names_from_csv(path: PathLike) -> Names:
    """Names of the images by row and column (1-based, as printed on the
    front page) from a CSV with the columns ``row``, ``col``, ``name`` and,
    optionally, ``back``."""
    where = os.fspath(path)
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise SliceError(f"cannot read the names ({exc})", file=where) from None
    reader = csv.DictReader(text.splitlines())
    fields = [f.strip().lower() for f in reader.fieldnames or []]
    if not {"row", "col", "name"} <= set(fields):
        raise SliceError("the names CSV needs the columns row, col, name (and optionally back); it has "
                         f"{', '.join(fields) or 'none'}", file=where, place="line 1")
    out: Names = {}
    used: set[str] = set()
    for number, raw in enumerate(reader, start=2):
        record = {(k or "").strip().lower(): (v or "").strip() for k, v in raw.items() if k is not None}
        if not any(record.values()):
            continue
        place = f"line {number}"
        try:
            key = (int(record["row"]) - 1, int(record["col"]) - 1)
        except ValueError:
            raise SliceError(f"row and col must be numbers from 1, not {record['row']!r}, {record['col']!r}",
                             file=where, place=place) from None
        if min(key) < 0:
            raise SliceError("row and col count from 1", file=where, place=place)
        if key in out:
            raise SliceError(f"row {key[0] + 1}, col {key[1] + 1} is named twice", file=where, place=place)
        back = record.get("back") or None
        files = (_file_name(record["name"], where, place), _file_name(back, where, place) if back else None)
        for file in files:
            if file is not None and file.lower() in used:
                raise SliceError(f"image name {file!r} is used twice", file=where, place=place)
            if file is not None:
                used.add(file.lower())
        out[key] = (files[0], files[1], {"csv_line": number})
    return out


def names_from_scenario(scenario: Any, sheet: int, cols: int, rows: int) -> Names:
    """Which counter face each cell of sheet ``sheet`` (1-based) of
    ``vmodtool sheets`` holds: names as ``vmodtool counters`` writes them
    (``<counter>__<face>.png``); a plain back is not named."""
    from vmodtool.render.counters import counter_specs, face_filename
    from vmodtool.render.sheets import sheet_order

    specs = counter_specs(scenario)
    order = sheet_order(specs)
    per_sheet = cols * rows
    first = (sheet - 1) * per_sheet
    if sheet < 1 or first >= len(order):
        total = -(-len(order) // per_sheet)
        raise SliceError(f"--sheet {sheet}: the scenario's counters fill {total} sheet(s) of "
                         f"{cols} × {rows}", file=scenario.path)
    types = {c.id: c.type for c in scenario.counters}
    out: Names = {}
    for k, (index, front, back) in enumerate(order[first:first + per_sheet]):
        spec = specs[index]
        info = {"counter": spec.id, "kind": spec.kind, "unit_type": types.get(spec.id),
                "faces": [spec.faces[front][0]] + ([spec.faces[back][0]] if back is not None else [])}
        out[divmod(k, cols)] = (face_filename(spec.id, spec.faces[front][0]),
                                face_filename(spec.id, spec.faces[back][0]) if back is not None else None, info)
    return out


# -- the whole job ----------------------------------------------------------------------------
@dataclass
class SliceResult:
    """What :func:`slice_sheet` wrote (the face images, ``slice.json`` and the
    ``faces.yaml`` snippet) and the grid it cut: its size, the fronts, backs
    and empty cells, how far the scan was turned and how the grid was found."""

    folder: Path
    files: list[Path]
    manifest: Path
    snippet: Path | None
    cols: int
    rows: int
    fronts: int
    backs: int
    empty: int
    angle_deg: float
    source: str


def _default_names(row: int, col: int) -> tuple[str, str]:
    stem = f"r{row + 1:02d}c{col + 1:02d}"
    return f"{stem}.png", f"{stem}-back.png"


def slice_sheet(front: PathLike, out_dir: PathLike, *, back: PathLike | None = None, page: int = 1,
                back_page: int = 1, grid: GridOptions | None = None, expect: tuple[int, int] | None = None,
                flip: str = "long", dpi: float | None = None,
                names: Names | Callable[[int, int], Names] | None = None,
                size: tuple[int, int] | None = None, scenario_dir: PathLike | None = None,
                progress: Callable[[int, int], None] | None = None) -> SliceResult:
    """Cut the front page (and the back page) of a sheet into face images in
    ``out_dir`` with a manifest ``slice.json`` (and, with names from a
    scenario, ``faces.yaml``: the unit types' faces with these images,
    paths relative to ``scenario_dir``).  ``names`` may be a function of the
    grid's columns and rows (:func:`names_from_scenario` needs them)."""
    if flip not in ("long", "short"):
        raise SliceError(f"flip must be long or short, not {flip!r}")
    front_where = os.fspath(front)
    image = read_sheet_image(front, page)
    scale_dpi = dpi or image_dpi(image)
    if grid is None:
        sheet = find_grid(image, dpi=scale_dpi, expect=expect, where=front_where)
    else:
        sheet = grid_from_options(image, grid, where=front_where)
    back_where = os.fspath(back) if back is not None else None
    back_sheet = None
    if back is not None:
        back_where = f"{back_where} (page {back_page})" if back_page != 1 else back_where
        back_sheet = _back_grid(back, back_page, back_where or "", sheet, grid, flip, dpi)
    if callable(names):
        names = names(sheet.cols, sheet.rows)
    if names is not None:
        _check_names_fit(names, sheet, front_where)
    folder = Path(out_dir)
    output_folder(folder)
    inputs = [p for p in (front, back) if p is not None]
    cutter = _CellCutter(folder, inputs, sheet, back_sheet, flip, size, names)
    total = len(sheet.cells)
    for n, cell in enumerate(sheet.cells):
        if progress:
            progress(n, total)
        cutter.cut(cell)
    if progress:
        progress(total, total)
    manifest = {
        "tool": "vmodtool slice", "front": front_where, "front_page": page, "back": back_where,
        "flip": flip, "grid": {"cols": sheet.cols, "rows": sheet.rows, "from": sheet.source,
                               "straightened_by_deg": round(sheet.angle_deg, 4),
                               "registration": [[round(x, 2), round(y, 2)] for x, y in sheet.targets]},
        "images": cutter.records,
    }
    manifest_path = folder / "slice.json"
    refuse_overwrite(manifest_path, *inputs)
    atomic_write(manifest_path, (json.dumps(manifest, ensure_ascii=False, indent=1) + "\n").encode("utf-8"))
    snippet = None
    if names is not None and any("unit_type" in r for r in cutter.records):
        snippet = folder / "faces.yaml"
        refuse_overwrite(snippet, *inputs)
        atomic_write(snippet, _faces_yaml(cutter.records, folder,
                                          Path(scenario_dir) if scenario_dir else folder,
                                          front_where).encode("utf-8"))
    return SliceResult(folder, list(cutter.written.values()), manifest_path, snippet, sheet.cols, sheet.rows,
                       cutter.fronts, cutter.backs, cutter.empty, sheet.angle_deg, sheet.source)


def _back_grid(back: PathLike, back_page: int, back_where: str, sheet: SheetGrid,
               grid: GridOptions | None, flip: str, dpi: float | None) -> SheetGrid:
    """The grid of the back page: found on its own (and then of the front's
    size), or the front's given grid mirrored about the flip edge."""
    back_image = read_sheet_image(back, back_page)
    if grid is not None:
        return mirrored_grid(back_image, sheet, flip, where=back_where)
    back_sheet = find_grid(back_image, dpi=dpi or image_dpi(back_image), where=back_where)
    if (back_sheet.cols, back_sheet.rows) != (sheet.cols, sheet.rows):
        raise SliceError(f"the back page shows {back_sheet.cols} × {back_sheet.rows} counters, the "
                         f"front {sheet.cols} × {sheet.rows}", file=back_where)
    return back_sheet


def _check_names_fit(names: Names, sheet: SheetGrid, front_where: str) -> None:
    """Refuse a name given for a cell the sheet does not have."""
    outside = sorted(k for k in names if k[0] >= sheet.rows or k[1] >= sheet.cols)
    if outside:
        r, c = outside[0]
        raise SliceError(f"a name is given for row {r + 1}, col {c + 1}, but the sheet has "
                         f"{sheet.rows} rows and {sheet.cols} columns", file=front_where)


class _CellCutter:
    """Writes the images of one cell after another (front, and back from
    the back page's grid) and keeps the manifest's records and counts."""

    def __init__(self, folder: Path, inputs: Sequence[PathLike], sheet: SheetGrid,
                 back_sheet: SheetGrid | None, flip: str, size: tuple[int, int] | None,
                 names: Names | None) -> None:
        self.folder, self.inputs = folder, inputs
        self.sheet, self.back_sheet, self.flip, self.size, self.names = sheet, back_sheet, flip, size, names
        self.written: dict[str, Path] = {}
        self.records: list[dict[str, Any]] = []
        self.fronts = self.backs = self.empty = 0

    def _write(self, name: str, image: Image.Image) -> None:
        path = self.folder / name
        refuse_overwrite(path, *self.inputs)          # never an input, whatever the names say
        atomic_write(path, png_bytes(image))
        self.written[name] = path

    def cut(self, cell: Cell) -> None:
        img = cut_cell(self.sheet, cell, self.size)
        named = self.names.get((cell.row, cell.col)) if self.names is not None else None
        if _blank(img) and named is None:
            self.empty += 1
            return
        default_front, default_back = _default_names(cell.row, cell.col)
        front_name, back_name, info = named if named is not None else (default_front, default_back, {})
        record: dict[str, Any] = {"row": cell.row + 1, "col": cell.col + 1, **info,
                                  "box": [round(v, 2) for v in cell.box]}
        if front_name is not None:
            if front_name not in self.written:
                self._write(front_name, img)
                self.fronts += 1
            record["front"] = front_name
        if self.back_sheet is not None and back_name is not None:
            bcell = back_cell(self.back_sheet, cell.row, cell.col, self.flip)
            if back_name not in self.written:
                self._write(back_name, cut_cell(self.back_sheet, bcell, self.size))
                self.backs += 1
            record["back"] = back_name
            record["back_box"] = [round(v, 2) for v in bcell.box]
        self.records.append(record)


def _faces_yaml(records: Sequence[Mapping[str, Any]], folder: Path, base: Path, source: str) -> str:
    """The unit types' ``faces`` with the cut images (the first counter of
    each type), as a YAML snippet to paste into the scenario."""
    def rel(name: str) -> str:
        return Path(os.path.relpath(folder / name, base)).as_posix()

    by_type: dict[str, list[Mapping[str, Any]]] = {}
    for r in records:
        if r.get("unit_type"):
            by_type.setdefault(str(r["unit_type"]), []).append(r)
    lines = [f"# vmodtool slice: face images cut from {json.dumps(source, ensure_ascii=False)}.",
             "# For the scenario's unit_types: add each image to the face of that name (paths are",
             "# relative to the scenario's folder); a type takes the images of its first counter here.",
             "unit_types:"]
    for utype, rs in by_type.items():
        first = rs[0]
        counters = sorted({str(r["counter"]) for r in rs})
        lines.append(f"  {json.dumps(utype, ensure_ascii=False)}:   # counters "
                     + ", ".join(counters))
        lines.append("    faces:")
        faces: dict[str, str] = {}
        for r in rs:
            if r["counter"] != first["counter"]:
                continue
            names = list(r.get("faces", []))
            files = [r.get("front"), r.get("back")]
            for face, file in zip(names, files, strict=False):
                if face not in faces and file:
                    faces[face] = rel(str(file))
        for face, file in faces.items():
            lines.append(f"      - {{name: {json.dumps(face, ensure_ascii=False)}, "
                         f"image: {json.dumps(file, ensure_ascii=False)}}}")
    return "\n".join(lines) + "\n"
