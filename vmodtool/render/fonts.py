"""The fonts that ship with vmodtool: DejaVu Sans (Latin, Cyrillic, Greek and
more; Bitstream Vera licence, see ``data/fonts/LICENSE-DejaVu.txt``), so that
counters and boards render identically on every machine."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path

from PIL import ImageFont

from vmodtool.errors import VmodError

__all__ = ["font_path", "load_font", "FONT_STYLES"]

FONT_STYLES = {
    "regular": "DejaVuSans.ttf",
    "bold": "DejaVuSans-Bold.ttf",
    "condensed": "DejaVuSansCondensed.ttf",
    "condensed-bold": "DejaVuSansCondensed-Bold.ttf",
}


def font_path(style: str = "regular") -> Path:
    """Path of a bundled font file (``regular``, ``bold``, ``condensed``,
    ``condensed-bold``)."""
    try:
        name = FONT_STYLES[style]
    except KeyError:
        raise VmodError(f"unknown font style {style!r}; expected one of "
                        f"{', '.join(FONT_STYLES)}") from None
    path = Path(str(resources.files("vmodtool").joinpath("data/fonts").joinpath(name)))
    if not path.is_file():
        raise VmodError(f"the bundled font {name} is missing from the installation; "
                        "reinstall vmodtool", file=path)
    return path


@lru_cache(maxsize=256)
def load_font(style: str = "regular", size: int = 12) -> ImageFont.FreeTypeFont:
    """A bundled font at ``size`` pixels (cached)."""
    if size < 1:
        raise ValueError("font size must be at least 1 pixel")
    return ImageFont.truetype(str(font_path(style)), size)
