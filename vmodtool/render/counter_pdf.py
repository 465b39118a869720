"""A minimal PDF writer for print sheets: one full-page raster image per page,
stored losslessly.

Pillow's own PDF writer stores RGB images as JPEG (``DCTDecode``), which
smears text and thin lines, and palette images as uncompressed hex.  Here a
page is encoded once as PNG and the PNG's ``IDAT`` data is put into the PDF
unchanged as a ``FlateDecode`` stream with the PNG predictor — lossless, and
the same bytes serve the sheet PNGs and the PDF.  No dependency beyond
Pillow.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence
from io import BytesIO

from PIL import Image, ImageChops

from vmodtool.errors import VmodError

__all__ = ["png_bytes", "png_idat", "pdf_from_pngs"]

_PNG_SIG = b"\x89PNG\r\n\x1a\n"


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def png_bytes(image: Image.Image, *, dpi: int | None = None, compress_level: int = 3) -> bytes:
    """Encode an RGB image as PNG (with the physical resolution when given).

    Every row uses the PNG "Up" filter (computed by Pillow) and one zlib
    pass: for sheet pages — large flat areas, rows repeating the row above —
    this is about twice as fast as Pillow's per-row adaptive filtering at the
    same size."""
    if image.mode != "RGB":
        image = image.convert("RGB")
    w, h = image.size
    # the Up filter is each byte minus the byte above, modulo 256: Pillow's
    # subtract_modulo against the image shifted down one row computes it in C
    above = Image.new("RGB", (w, h))
    if h > 1:
        above.paste(image.crop((0, 0, w, h - 1)), (0, 1))
    diff = ImageChops.subtract_modulo(image, above).tobytes()
    stride = w * 3
    first = image.crop((0, 0, w, 1)).tobytes() if h else b""
    rows = bytearray()
    rows += b"\x00" + first             # the first row has nothing above it
    for y in range(1, h):
        rows += b"\x02"                 # Up
        rows += diff[y * stride:(y + 1) * stride]
    parts = [_PNG_SIG, _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))]
    if dpi:
        ppm = round(dpi / 0.0254)
        parts.append(_chunk(b"pHYs", struct.pack(">IIB", ppm, ppm, 1)))
    parts.append(_chunk(b"IDAT", zlib.compress(bytes(rows), compress_level)))
    parts.append(_chunk(b"IEND", b""))
    return b"".join(parts)


def png_idat(data: bytes) -> tuple[int, int, bytes]:
    """Width, height and concatenated IDAT data of an 8-bit RGB,
    non-interlaced PNG."""
    if not data.startswith(_PNG_SIG):
        raise VmodError("internal: not a PNG")
    pos = 8
    width = height = 0
    idat: list[bytes] = []
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        ctype = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if ctype == b"IHDR":
            width, height, depth, colour, _comp, _filt, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour != 2 or interlace != 0:
                raise VmodError("internal: sheet PNG must be 8-bit RGB, not interlaced")
        elif ctype == b"IDAT":
            idat.append(body)
        elif ctype == b"IEND":
            break
        pos += 12 + length
    return width, height, b"".join(idat)


def pdf_from_pngs(pages: Sequence[bytes], dpi: int, *, title: str = "",
                  page_size_pt: tuple[float, float] | None = None) -> bytes:
    """A PDF with one page per PNG, each image filling its page at ``dpi``."""
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    catalog = add(b"")            # filled below
    pages_obj = add(b"")
    kids = []
    for data in pages:
        w, h, idat = png_idat(data)
        wpt, hpt = page_size_pt or (w * 72.0 / dpi, h * 72.0 / dpi)
        img = add(b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB "
                  b"/BitsPerComponent 8 /Filter /FlateDecode /DecodeParms << /Predictor 15 "
                  b"/Colors 3 /BitsPerComponent 8 /Columns %d >> /Length %d >>\nstream\n"
                  % (w, h, w, len(idat)) + idat + b"\nendstream")
        content = b"q %.4f 0 0 %.4f 0 0 cm /Im0 Do Q" % (wpt, hpt)
        cobj = add(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
        page = add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %.4f %.4f] "
                   b"/Resources << /XObject << /Im0 %d 0 R >> >> /Contents %d 0 R >>"
                   % (pages_obj, wpt, hpt, img, cobj))
        kids.append(page)
    objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % pages_obj
    objects[pages_obj - 1] = (b"<< /Type /Pages /Kids [" + b" ".join(b"%d 0 R" % k for k in kids)
                              + b"] /Count %d >>" % len(kids))
    safe_title = "".join(c if 32 <= ord(c) < 127 and c not in "()\\" else "?" for c in title)
    info = add(b"<< /Producer (vmodtool) /Title (%s) >>" % safe_title.encode("ascii"))
    out = BytesIO()
    out.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % i + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for off in offsets:
        out.write(b"%010d 00000 n \n" % off)
    out.write(b"trailer\n<< /Size %d /Root %d 0 R /Info %d 0 R >>\nstartxref\n%d\n%%%%EOF\n"
              % (len(objects) + 1, catalog, info, xref))
    return out.getvalue()
