"""Colour contrast as WCAG 2.x measures it: the relative luminance of an
sRGB colour, the contrast ratio of two colours, and the ink (black or
white) that reads best on a fill.

A side's counters print their factors in its ``ink`` on its ``fill``; a
side that gives no ink takes :func:`readable_ink` of its fill, so a dark
fill gets white text and a light one black, each at least
:data:`MIN_TEXT_CONTRAST` (WCAG 2.1, success criterion 1.4.3: 4.5:1 for
text) wherever the fill allows it (every fill does for one of black and
white: the lesser of the two ratios' maximum is 4.58:1).
"""

from __future__ import annotations

__all__ = ["RGB", "MIN_TEXT_CONTRAST", "hex_rgb", "relative_luminance", "contrast_ratio", "readable_ink",
           "BLACK", "WHITE"]

RGB = tuple[int, int, int]
#: WCAG 2.1 SC 1.4.3 (level AA): the least contrast of body text on its background
MIN_TEXT_CONTRAST = 4.5
BLACK: RGB = (0, 0, 0)
WHITE: RGB = (255, 255, 255)


def hex_rgb(text: str | None) -> RGB | None:
    """``#rrggbb`` or ``#rgb`` as a colour; None for anything else."""
    s = (text or "").strip()
    if len(s) == 4 and s.startswith("#"):
        s = "#" + "".join(c * 2 for c in s[1:])
    if len(s) != 7 or not s.startswith("#"):
        return None
    try:
        return (int(s[1:3], 16), int(s[3:5], 16), int(s[5:7], 16))
    except ValueError:
        return None


def _linear(channel: int) -> float:
    c = channel / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def relative_luminance(colour: RGB) -> float:
    """WCAG 2.x relative luminance (0 black … 1 white) of an sRGB colour."""
    r, g, b = (_linear(v) for v in colour[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a: RGB, b: RGB) -> float:
    """The WCAG contrast ratio of two colours, 1 (none) … 21 (black on white)."""
    la, lb = relative_luminance(a), relative_luminance(b)
    hi, lo = max(la, lb), min(la, lb)
    return (hi + 0.05) / (lo + 0.05)


def readable_ink(fill: RGB) -> RGB:
    """Black or white, whichever contrasts more with ``fill`` (black when equal)."""
    return BLACK if contrast_ratio(fill, BLACK) >= contrast_ratio(fill, WHITE) else WHITE
