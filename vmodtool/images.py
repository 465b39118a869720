"""Opening a user's image under a memory budget: the one way vmodtool reads
an image file (a face image, a card picture, a scanned sheet, a board scan,
a module's board or piece image).

A few hundred bytes of PNG can claim 50000×50000 pixels, and Pillow
allocates the whole image before it decodes a single row (a PNG with ten
rows of data costs as much as a full one).  So the header is read first
(size and mode, nothing decoded) and an image whose decoded pixels would
take more than :data:`DECODE_BUDGET` bytes is refused *before decoding*,
with one located :class:`ImageError` (exit 2).  The cost counted is what
Pillow really allocates: its bytes per pixel of the image's mode (1 for
``1``/``L``/``P`` — Pillow keeps a 1-bit pixel in a byte —, 4 for ``RGB``,
which it pads, and ``RGBA``), plus those of the mode the caller converts
to.

A large legitimate image read only to be shown smaller (a board in
``replay --png``) may be asked for with ``max_size``: a JPEG is then
decoded at 1/2, 1/4 or 1/8 of its size (Pillow's ``draft``), so it fits
the budget; a PNG cannot be decoded smaller, and is refused when even its
full decode would not fit.

Pillow's ``DecompressionBombWarning`` and ``DecompressionBombError`` never
reach the user: the budget is the bound vmodtool checks itself.  Pillow's
other warnings (a malformed APNG chunk, a truncated TIFF tag …) go to the
caller's ``warn`` with the file named, or refuse the image without it.
"""

from __future__ import annotations

import io
import os
import re
import struct
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from vmodtool.errors import PathLike, VmodError

if TYPE_CHECKING:
    from PIL import Image as PILImage

__all__ = ["DECODE_BUDGET", "ImageError", "bytes_per_pixel", "decoded_cost", "image_size", "load_image"]

#: the most bytes of decoded pixels vmodtool lets one image take: 75 million
#: RGB or RGBA pixels (a 34×22-inch map scanned at 300 dpi is 67 million, a
#: published module's 5000×5000 board 25 million), 300 million grey or 1-bit
#: ones.  An image past it is refused from its header.
DECODE_BUDGET = 300_000_000

#: an image: its path, or its bytes (a module's entry, a PDF's stream)
Source = PathLike | bytes

#: Pillow's storage of one pixel, by mode (``Image.new`` allocates these)
_ONE_BYTE = frozenset({"1", "L", "P"})
_TWO_BYTES = frozenset({"I;16", "I;16L", "I;16B", "I;16N", "BGR;15", "BGR;16"})


class ImageError(VmodError):
    """An image vmodtool cannot read: damaged, not an image, or larger
    than :data:`DECODE_BUDGET` allows.  ``reason`` is the why alone (the
    message says "cannot read <what>: <reason>"), for a caller that names
    the image its own way."""

    def __init__(self, what: str, reason: str, *, file: PathLike | None = None,
                 place: str | None = None) -> None:
        self.reason = reason
        super().__init__(f"cannot read {what}: {reason}", file=file, place=place)


def bytes_per_pixel(mode: str) -> int:
    """The bytes Pillow allocates for one pixel of ``mode``."""
    if mode in _ONE_BYTE:
        return 1
    if mode in _TWO_BYTES:
        return 2
    return 4


def decoded_cost(size: tuple[int, int], mode: str, convert_to: str | None = None) -> int:
    """The bytes an image of ``size`` and ``mode`` takes decoded, and
    converted to ``convert_to`` as well (both alive at once)."""
    per_pixel = bytes_per_pixel(mode)
    if convert_to is not None and convert_to != mode:
        per_pixel += bytes_per_pixel(convert_to)
    return size[0] * size[1] * per_pixel


#: what Pillow raises for a damaged or hostile file, on open or on decoding
#: (its plug-ins use ``SyntaxError``, ``struct.error``, ``IndexError`` … as
#: well as ``OSError``)
def _pil_errors() -> tuple[type[Exception], ...]:
    from PIL import Image

    return (OSError, ValueError, SyntaxError, EOFError, IndexError, KeyError, TypeError, ZeroDivisionError,
            OverflowError, MemoryError, struct.error, Image.DecompressionBombError)


def _name(source: Source, file: PathLike | None) -> str | None:
    if file is not None:
        return os.fspath(file)
    return None if isinstance(source, bytes) else os.fspath(source)


@contextmanager
def _warnings_to(file: str | None, what: str, warn: Callable[[str], None] | None) -> Iterator[None]:
    """Pillow's warnings while the block runs: its decompression-bomb
    warning dropped (the budget is checked here), any other one a located
    warning for ``warn`` or, without ``warn``, an :class:`ImageError`."""
    from PIL import Image

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    seen: set[str] = set()
    for w in caught:
        if issubclass(w.category, Image.DecompressionBombWarning):
            continue
        message = str(w.message)
        if warn is None:
            raise ImageError(what, f"it looks damaged: {message}", file=file)
        if message not in seen:
            seen.add(message)
            warn(f"{file}: {what}: {message}" if file else f"{what}: {message}")


def _too_large(detail: str, budget: int) -> str:
    return (f"{detail}, more than the {budget:,} bytes vmodtool decodes one image into "
            "(a decompression bomb, or a scan at too high a resolution: scale it down)")


def _open(source: Source, what: str, file: str | None, place: str | None, budget: int,
          convert_to: str | None, max_size: tuple[int, int] | None) -> PILImage.Image:
    """The image opened (header read, nothing decoded), its decoded cost
    checked against ``budget``; the caller closes it."""
    from PIL import Image

    header_place = ", ".join(p for p in (place, "image header") if p)
    try:
        img = Image.open(io.BytesIO(source) if isinstance(source, bytes) else source)
    except Image.DecompressionBombError as exc:
        # Pillow refuses past twice its own limit; its message gives the count
        claimed = re.search(r"\((\d+) pixels\)", str(exc))
        detail = (f"it claims {int(claimed.group(1)):,} pixels" if claimed
                  else f"it claims more than {2 * (Image.MAX_IMAGE_PIXELS or 0):,} pixels")
        raise ImageError(what, _too_large(detail, budget), file=file, place=header_place) from None
    except _pil_errors() as exc:
        raise ImageError(what, str(exc), file=file, place=place) from None
    width, height = img.size
    problem = None
    if width <= 0 or height <= 0:
        problem = f"its header gives a size of {width}x{height} pixels"
    else:
        if max_size is not None and img.format == "JPEG":
            # decoded at 1/2, 1/4 or 1/8 of its size, no smaller than asked
            img.draft(img.mode, max_size)
        cost = decoded_cost(img.size, img.mode, convert_to)
        if cost > budget:
            problem = _too_large(f"it is {width}x{height} pixels of mode {img.mode}, {cost:,} bytes decoded"
                                 + (f" as {convert_to}" if convert_to and convert_to != img.mode else ""), budget)
    if problem:
        img.close()
        raise ImageError(what, problem, file=file, place=header_place)
    return img


def image_size(source: Source, what: str = "the image", *, file: PathLike | None = None,
               place: str | None = None, budget: int = DECODE_BUDGET, convert_to: str | None = None,
               verify: bool = False, warn: Callable[[str], None] | None = None) -> tuple[int, int]:
    """The pixel size of an image from its header alone (nothing decoded),
    refused as :func:`load_image` would refuse it: what a command checks
    before it spends memory and time on the pixels.  ``file`` names an
    image given as bytes (with ``place``: the entry it came from).
    ``verify``: the file's structure is checked too (Pillow's ``verify``: a
    PNG's chunks and checksums, no pixel decoded)."""
    name = _name(source, file)
    with _warnings_to(name, what, warn):
        img = _open(source, what, name, place, budget, convert_to, None)
        size: tuple[int, int] = img.size
        try:
            if verify:
                img.verify()
        except _pil_errors() as exc:
            raise ImageError(what, str(exc), file=name, place=place) from None
        finally:
            img.close()
    return size


def load_image(source: Source, what: str = "the image", *, file: PathLike | None = None,
               place: str | None = None, mode: str | None = None, convert_to: str | None = None,
               budget: int = DECODE_BUDGET, max_size: tuple[int, int] | None = None,
               warn: Callable[[str], None] | None = None) -> PILImage.Image:
    """An image decoded (and converted to ``mode`` when given) once its
    header showed it fits ``budget``; a one-line :class:`ImageError` naming
    the file for anything Pillow cannot read or the budget refuses.

    ``max_size``: the caller shows the image no larger than this, so a JPEG
    may be decoded reduced (its size is then smaller than its header's).
    ``convert_to``: the mode the caller converts the image to later (counted
    in the budget, not converted here)."""
    name = _name(source, file)
    errors = _pil_errors()
    with _warnings_to(name, what, warn):
        img = _open(source, what, name, place, budget, mode or convert_to, max_size)
        try:
            img.load()
            info = dict(img.info)
            if mode is not None and img.mode != mode:
                out = img.convert(mode)
                img.close()
            elif getattr(img, "fp", None) is None:
                out = img              # loaded and its file closed: no copy of the pixels
            else:                      # a multi-frame file keeps its file open: the frame is copied
                out = img.copy()
                img.close()
        except errors as exc:
            img.close()
            raise ImageError(what, str(exc), file=name,
                             place=", ".join(p for p in (place, "image data") if p)) from None
    out.info = info
    return out
