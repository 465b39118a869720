"""A PNG writer for rendered images: every row unfiltered (filter type 0),
one zlib stream.  Counters, cards and boards are mostly flat colour, which
zlib packs well without PNG's row filters (``counter_pdf.png_bytes``, the Up filter, suits
sheet pages, whose rows repeat the row above); Pillow's encoder spends most of a
small image's time in Python around the codec and tries filters that make
such images larger.  For a 75-pixel counter this writes the file in 40% of
Pillow's time (``compress_level=1``) at 70% of its size; the bytes depend
only on the pixels and the level (nothing of the machine), so builds stay
reproducible."""

from __future__ import annotations

import struct
import zlib

from PIL import Image

__all__ = ["encode_png", "scanlines", "COUNTER_LEVEL", "BOARD_LEVEL"]

#: zlib level of small images (counters, overlays, cards): 3 is as fast as 1
#: on them and 10% smaller; 4 and up cost twice the time
COUNTER_LEVEL = 3
#: zlib level of a board (one large image: the size matters more than the time)
BOARD_LEVEL = 6

_COLOUR_TYPE = {"L": (0, 1), "LA": (4, 2), "RGB": (2, 3), "RGBA": (6, 4)}


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(data, zlib.crc32(kind)))


def scanlines(image: Image.Image, row_bytes: int) -> bytes:
    """The pixels of ``image`` (a mode of ``_COLOUR_TYPE``) as PNG scanlines
    with filter type 0: a zero byte before each row of ``row_bytes``.  Pillow's
    raw encoder writes them itself when asked for rows one byte longer than
    the pixels (it pads each row with zeros after its pixels): a zero in
    front and the last row's pad dropped make the scanlines, with no Python
    loop over the rows.  Checked (each pad must be a zero), else built row
    by row."""
    width, height = image.size
    stride = row_bytes + 1
    padded = image.tobytes("raw", (image.mode, stride))
    if len(padded) == stride * height and not padded[row_bytes::stride].strip(b"\x00"):
        return b"\x00" + padded[:-1]
    raw = image.tobytes()
    return b"".join(b"\x00" + raw[i:i + row_bytes] for i in range(0, len(raw), row_bytes))


def encode_png(image: Image.Image, level: int = COUNTER_LEVEL) -> bytes:
    """``image`` as a PNG file (8 bits per channel; other modes are
    converted to RGB, or RGBA when they carry transparency)."""
    if image.mode not in _COLOUR_TYPE:
        alpha = "A" in image.getbands() or "transparency" in image.info
        image = image.convert("RGBA" if alpha else "RGB")
    colour_type, channels = _COLOUR_TYPE[image.mode]
    width, height = image.size
    rows = scanlines(image, width * channels)
    header = struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(rows, level))
            + _chunk(b"IEND", b""))
