"""Wargame-style NATO unit symbols (simplified APP-6), drawn with Pillow.

:func:`render_symbol` draws the symbol of a scenario ``nato`` entry — the
frame, the branch icon (``symbol``) combined with its ``modifiers``, the size
marks above the frame and the HQ staff below it — as an RGBA image in one
ink colour on a transparent ground, anti-aliased by drawing at
:data:`SUPERSAMPLE` times the size and box-reducing.  Results are cached, so
a counter set with many units of one type draws each symbol once.

Symbol kinds (``NATO_SYMBOLS``): infantry (X), armour (track oval),
mech_infantry (X + oval), motorised (X + vertical bar), cavalry (slash +
horseshoe), recce (slash), artillery (dot), sp_artillery (dot + oval),
mortar (ring + arrow), anti_tank (inverted V), recoilless (fletched arrow),
anti_aircraft (dome), engineer (bridge), hq ("HQ"), supply (bar across the
lower third), attack_helicopter (filled bow-tie), transport_helicopter (open
bow-tie), air (propeller), airborne (wings), mountain (peak), militia ("M"),
machine_gun (arrow with cross bar), leader (star), none (nothing).

As a modifier a kind adds its mark: armour/mech_infantry/sp_artillery add
the track oval, motorised the vertical bar, engineer/militia a small mark in
the top of the frame, airborne/mountain a small mark at the bottom; other
kinds add their full icon.  Sizes (``NATO_SIZES``): team (ring with slash),
squad (•), section (••), platoon (•••), company (I), battalion (II),
regiment (III), brigade (X), division (XX), corps (XXX), army (XXXX), none.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw

from vmodtool.errors import VmodError
from vmodtool.render.fonts import load_font

__all__ = ["NATO_SYMBOLS", "NATO_SIZES", "SUPERSAMPLE", "NatoError", "SymbolImage",
           "render_symbol", "check_nato", "symbol_geometry"]

#: drawing scale for anti-aliasing (draw at N×, then box-reduce)
SUPERSAMPLE = 4

NATO_SIZES = ("team", "squad", "section", "platoon", "company", "battalion", "regiment",
              "brigade", "division", "corps", "army", "none")

RGB = tuple[int, int, int]
Box = tuple[float, float, float, float]


class NatoError(VmodError):
    """A ``nato`` entry names a symbol, modifier or size that does not exist."""


@dataclass(frozen=True)
class SymbolImage:
    """A rendered symbol: ``image`` (RGBA) and where the frame lies in it
    (``frame`` = left, top, right, bottom in pixels)."""

    image: Image.Image
    frame: tuple[int, int, int, int]


# -- geometry --------------------------------------------------------------------
def symbol_geometry(frame_w: int) -> dict[str, int]:
    """Pixel geometry of a symbol whose frame is ``frame_w`` wide: frame
    height (2:3), height of the size-mark band above, length of the HQ staff
    below, and the padding on each side."""
    frame_h = max(2, round(frame_w * 0.62))
    return {"frame_w": frame_w, "frame_h": frame_h, "size_h": max(2, round(frame_w * 0.27)),
            "staff_h": max(2, round(frame_w * 0.30)), "pad": max(1, round(frame_w * 0.05))}


class _Pen:
    """Drawing helpers on a supersampled ``L`` mask, in frame coordinates."""

    def __init__(self, draw: ImageDraw.ImageDraw, box: Box, lw: float) -> None:
        self.d = draw
        self.x0, self.y0, self.x1, self.y1 = box
        self.w = self.x1 - self.x0
        self.h = self.y1 - self.y0
        self.lw = lw

    def p(self, fx: float, fy: float) -> tuple[float, float]:
        """Point at fractions of the frame."""
        return (self.x0 + fx * self.w, self.y0 + fy * self.h)

    def line(self, *pts: tuple[float, float], width: float = 1.0) -> None:
        xy = [self.p(*q) for q in pts]
        w = max(1, round(self.lw * width))
        self.d.line(xy, fill=255, width=w, joint="curve")
        r = w / 2                                   # round caps
        for x, y in (xy[0], xy[-1]):
            self.d.ellipse((x - r, y - r, x + r, y + r), fill=255)

    def ellipse(self, fx0: float, fy0: float, fx1: float, fy1: float, *,
                fill: bool = False, width: float = 1.0) -> None:
        a, b = self.p(fx0, fy0), self.p(fx1, fy1)
        if fill:
            self.d.ellipse((a[0], a[1], b[0], b[1]), fill=255)
        else:
            self.d.ellipse((a[0], a[1], b[0], b[1]), outline=255, width=max(1, round(self.lw * width)))

    def stadium(self, fx0: float, fy0: float, fx1: float, fy1: float) -> None:
        a, b = self.p(fx0, fy0), self.p(fx1, fy1)
        r = (b[1] - a[1]) / 2
        self.d.rounded_rectangle((a[0], a[1], b[0], b[1]), radius=r, outline=255,
                                 width=max(1, round(self.lw)))

    def polygon(self, pts: Sequence[tuple[float, float]], *, fill: bool = True) -> None:
        xy = [self.p(*q) for q in pts]
        if fill:
            self.d.polygon(xy, fill=255)
        else:
            self.d.polygon(xy, outline=255, width=max(1, round(self.lw)))

    def text(self, fx: float, fy: float, text: str, height_frac: float) -> None:
        size = max(4, round(self.h * height_frac))
        font = load_font("bold", size)
        self.d.text(self.p(fx, fy), text, font=font, fill=255, anchor="mm")


# -- icons -------------------------------------------------------------------------
def _x(pen: _Pen) -> None:
    pen.line((0, 0), (1, 1))
    pen.line((0, 1), (1, 0))


def _oval(pen: _Pen) -> None:
    pen.stadium(0.2, 0.27, 0.8, 0.73)


def _slash(pen: _Pen) -> None:
    pen.line((0, 1), (1, 0))


def _horseshoe(pen: _Pen) -> None:
    pen.d.arc((*pen.p(0.62, 0.55), *pen.p(0.86, 0.95)), start=180, end=360, fill=255,
              width=max(1, round(pen.lw)))
    pen.line((0.62, 0.75), (0.62, 0.9))
    pen.line((0.86, 0.75), (0.86, 0.9))


def _dot(pen: _Pen) -> None:
    r = 0.13
    rx = r * pen.h / pen.w
    pen.ellipse(0.5 - rx, 0.5 - r, 0.5 + rx, 0.5 + r, fill=True)


def _vbar(pen: _Pen) -> None:
    pen.line((0.5, 0), (0.5, 1))


def _mortar(pen: _Pen) -> None:
    r = 0.12
    rx = r * pen.h / pen.w
    pen.ellipse(0.5 - rx, 0.86 - 2 * r, 0.5 + rx, 0.86, width=1.0)
    pen.line((0.5, 0.86 - 2 * r), (0.5, 0.12))
    pen.line((0.42, 0.3), (0.5, 0.12), (0.58, 0.3))


def _anti_tank(pen: _Pen) -> None:
    pen.line((0, 1), (0.5, 0), (1, 1))


def _recoilless(pen: _Pen) -> None:
    pen.line((0.5, 0.9), (0.5, 0.12))
    pen.line((0.42, 0.3), (0.5, 0.12), (0.58, 0.3))
    pen.line((0.40, 0.92), (0.5, 0.72), (0.60, 0.92))


def _machine_gun(pen: _Pen) -> None:
    pen.line((0.5, 0.9), (0.5, 0.12))
    pen.line((0.42, 0.3), (0.5, 0.12), (0.58, 0.3))
    pen.line((0.36, 0.6), (0.64, 0.6))


def _anti_aircraft(pen: _Pen) -> None:
    pen.d.arc((*pen.p(0.08, 0.45), *pen.p(0.92, 1.55)), start=180, end=360, fill=255,
              width=max(1, round(pen.lw)))


def _engineer(pen: _Pen, top: float = 0.3, bottom: float = 0.7, x0: float = 0.2,
              x1: float = 0.8) -> None:
    pen.line((x0, bottom), (x0, top), (x1, top), (x1, bottom))
    pen.line(((x0 + x1) / 2, top), ((x0 + x1) / 2, bottom))


def _engineer_small(pen: _Pen) -> None:
    _engineer(pen, 0.08, 0.26, 0.38, 0.62)


def _hq_text(pen: _Pen) -> None:
    pen.text(0.5, 0.53, "HQ", 0.62)


def _supply(pen: _Pen) -> None:
    pen.line((0, 0.7), (1, 0.7))


def _bowtie(pen: _Pen, fill: bool) -> None:
    pen.polygon([(0.22, 0.3), (0.5, 0.5), (0.22, 0.7)], fill=fill)
    pen.polygon([(0.78, 0.3), (0.5, 0.5), (0.78, 0.7)], fill=fill)
    pen.line((0.5, 0.5), (0.5, 0.22))
    pen.line((0.36, 0.22), (0.64, 0.22))


def _air(pen: _Pen) -> None:
    pen.ellipse(0.2, 0.36, 0.5, 0.64, width=1.0)
    pen.ellipse(0.5, 0.36, 0.8, 0.64, width=1.0)


def _airborne(pen: _Pen) -> None:
    w = max(1, round(pen.lw))
    pen.d.arc((*pen.p(0.26, 0.62), *pen.p(0.5, 1.1)), start=190, end=350, fill=255, width=w)
    pen.d.arc((*pen.p(0.5, 0.62), *pen.p(0.74, 1.1)), start=190, end=350, fill=255, width=w)


def _mountain(pen: _Pen) -> None:
    pen.polygon([(0.38, 1.0), (0.5, 0.72), (0.62, 1.0)])


def _militia(pen: _Pen) -> None:
    pen.text(0.5, 0.2, "M", 0.34)


def _militia_main(pen: _Pen) -> None:
    pen.text(0.5, 0.52, "M", 0.7)


def _star(pen: _Pen) -> None:
    cx, cy, r_out = 0.5, 0.52, 0.38
    pts = []
    for i in range(10):
        ang = -math.pi / 2 + i * math.pi / 5
        r = r_out if i % 2 == 0 else r_out * 0.42
        pts.append((cx + r * math.cos(ang) * pen.h / pen.w, cy + r * math.sin(ang)))
    pen.polygon(pts)


Icon = Callable[[_Pen], None]

#: the icons of each symbol kind (as the main symbol)
_MAIN: dict[str, tuple[Icon, ...]] = {
    "infantry": (_x,),
    "armour": (_oval,),
    "mech_infantry": (_x, _oval),
    "motorised": (_x, _vbar),
    "cavalry": (_slash, _horseshoe),
    "recce": (_slash,),
    "artillery": (_dot,),
    "sp_artillery": (_dot, _oval),
    "mortar": (_mortar,),
    "anti_tank": (_anti_tank,),
    "recoilless": (_recoilless,),
    "anti_aircraft": (_anti_aircraft,),
    "engineer": (_engineer,),
    "hq": (_hq_text,),
    "supply": (_supply,),
    "attack_helicopter": (lambda pen: _bowtie(pen, True),),
    "transport_helicopter": (lambda pen: _bowtie(pen, False),),
    "air": (_air,),
    "airborne": (_airborne,),
    "mountain": (_mountain,),
    "militia": (_militia_main,),
    "machine_gun": (_machine_gun,),
    "leader": (_star,),
    "none": (),
}

#: what a kind adds when it is a modifier (default: its main icons)
_AS_MODIFIER: dict[str, tuple[Icon, ...]] = {
    "armour": (_oval,),
    "mech_infantry": (_oval,),
    "sp_artillery": (_oval,),
    "motorised": (_vbar,),
    "engineer": (_engineer_small,),
    "militia": (_militia,),
    "hq": (),            # the staff is drawn for hq modifiers
    "none": (),
}

NATO_SYMBOLS: tuple[str, ...] = tuple(_MAIN)

_PIPS = {"squad": 1, "section": 2, "platoon": 3}
_BARS = {"company": 1, "battalion": 2, "regiment": 3}
_XS = {"brigade": 1, "division": 2, "corps": 3, "army": 4}


def check_nato(symbol: str, size: str | None = None, modifiers: Iterable[str] = (),
               *, where: str = "") -> None:
    """Raise :class:`NatoError` for an unknown symbol, modifier or size."""
    prefix = f"{where}: " if where else ""
    if symbol not in _MAIN:
        raise NatoError(f"{prefix}unknown NATO symbol {symbol!r}; expected one of "
                        f"{', '.join(NATO_SYMBOLS)}")
    for mod in modifiers:
        if mod not in _MAIN:
            raise NatoError(f"{prefix}unknown NATO modifier {mod!r}; expected one of "
                            f"{', '.join(NATO_SYMBOLS)}")
    if size is not None and size not in NATO_SIZES:
        raise NatoError(f"{prefix}unknown NATO size {size!r}; expected one of {', '.join(NATO_SIZES)}")


def _size_marks(draw: ImageDraw.ImageDraw, size: str, cx: float, y0: float, y1: float,
                unit: float, lw: float) -> None:
    """Draw the echelon mark centred on ``cx`` in the band ``y0``–``y1``."""
    h = y1 - y0
    w = max(1, round(lw))
    if size == "team":
        r = h * 0.34
        cy = (y0 + y1) / 2
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), outline=255, width=w)
        draw.line((cx - r * 1.3, cy + r * 1.3, cx + r * 1.3, cy - r * 1.3), fill=255, width=w)
    elif size in _PIPS:
        n = _PIPS[size]
        r = h * 0.25
        gap = r * 2.9
        cy = (y0 + y1) / 2
        for i in range(n):
            x = cx + (i - (n - 1) / 2) * gap
            draw.ellipse((x - r, cy - r, x + r, cy + r), fill=255)
    elif size in _BARS:
        n = _BARS[size]
        gap = h * 0.5
        for i in range(n):
            x = cx + (i - (n - 1) / 2) * gap
            draw.line((x, y0 + h * 0.08, x, y1 - h * 0.04), fill=255, width=w)
    elif size in _XS:
        n = _XS[size]
        xw = h * 0.75
        step = xw * 1.1
        for i in range(n):
            x = cx + (i - (n - 1) / 2) * step
            a, b = y0 + h * 0.08, y1 - h * 0.04
            draw.line((x - xw / 2, a, x + xw / 2, b), fill=255, width=w)
            draw.line((x - xw / 2, b, x + xw / 2, a), fill=255, width=w)


@lru_cache(maxsize=512)
def _render_cached(symbol: str, size: str | None, modifiers: tuple[str, ...], hq: bool,
                   frame_w: int, ink: RGB, line: float, frame: bool) -> SymbolImage:
    g = symbol_geometry(frame_w)
    ss = SUPERSAMPLE
    fw, fh, sh, st, pad = g["frame_w"], g["frame_h"], g["size_h"], g["staff_h"], g["pad"]
    W, H = fw + 2 * pad, sh + fh + st + 2 * pad
    mask = Image.new("L", (W * ss, H * ss), 0)
    draw = ImageDraw.Draw(mask)
    lw = max(1.0, line * ss)
    fx0, fy0 = pad * ss, (pad + sh) * ss
    fx1, fy1 = (pad + fw) * ss, (pad + sh + fh) * ss
    half = lw / 2
    inner: Box = (fx0 + half, fy0 + half, fx1 - half, fy1 - half)
    pen = _Pen(draw, inner, lw)
    for icon in _MAIN[symbol]:
        icon(pen)
    for mod in modifiers:
        if mod == symbol:
            continue
        for icon in _AS_MODIFIER.get(mod, _MAIN[mod]):
            icon(pen)
    if frame and symbol != "none" or frame and modifiers:
        draw.rectangle((fx0, fy0, fx1 - 1, fy1 - 1), outline=255, width=round(lw))
    if size and size != "none":
        _size_marks(draw, size, (fx0 + fx1) / 2, pad * ss, fy0 - lw * 0.9, fw * ss, lw)
    if hq or "hq" in modifiers:
        x = fx0 + half
        draw.line((x, fy1 - half, x, fy1 + st * ss), fill=255, width=round(lw))
    small = mask.reduce(ss)
    out = Image.new("RGBA", small.size, ink + (0,))
    out.putalpha(small)
    return SymbolImage(out, (pad, pad + sh, pad + fw, pad + sh + fh))


def render_symbol(symbol: str, *, size: str | None = None, modifiers: Sequence[str] = (),
                  hq: bool = False, frame_w: int = 40, ink: RGB = (0, 0, 0),
                  line: float | None = None, frame: bool = True,
                  where: str = "") -> SymbolImage:
    """Render a NATO symbol whose frame is ``frame_w`` pixels wide in colour
    ``ink``.  ``line`` is the stroke width in pixels (default about 1/18 of
    the frame width).  Unknown kinds raise :class:`NatoError` (``where``
    names the unit type in the message)."""
    check_nato(symbol, size, modifiers, where=where)
    if frame_w < 6:
        raise NatoError(f"{where + ': ' if where else ''}a NATO symbol needs a frame at least "
                        f"6 pixels wide (got {frame_w}); use a larger counter size")
    if line is None:
        line = max(1.0, frame_w / 18)
    return _render_cached(symbol, size, tuple(modifiers), bool(hq), int(frame_w), tuple(ink),
                          float(line), frame)


def symbol_kinds() -> list[str]:
    return list(NATO_SYMBOLS)
