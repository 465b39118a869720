"""Draw the face images of the own-art example: four small PNG pictures
(rifle section, light tank, field gun, supply lorry), drawn with Pillow
alone, at 4x and reduced, on a transparent ground, in a few colours (kept
as palette PNGs of a few kilobytes).

Run from the repository root: ``python examples/own-art/make_art.py``;
it writes ``examples/own-art/art/*.png`` (committed, so that the example
builds without running this).
"""

from __future__ import annotations

import math
from pathlib import Path

from PIL import Image, ImageDraw

HERE = Path(__file__).resolve().parent
OUT = HERE / "art"
#: the pictures' size (width, height) and the supersampling they are drawn at
SIZE = (96, 72)
SS = 4
INK = (34, 34, 30, 255)
STEEL = (92, 104, 86, 255)
KHAKI = (150, 128, 82, 255)
WOOD = (120, 82, 46, 255)
CANVAS = (186, 170, 120, 255)

Point = tuple[float, float]


def _canvas() -> tuple[Image.Image, ImageDraw.ImageDraw]:
    img = Image.new("RGBA", (SIZE[0] * SS, SIZE[1] * SS), (0, 0, 0, 0))
    return img, ImageDraw.Draw(img)


def _pts(points: list[Point]) -> list[Point]:
    return [(x * SS, y * SS) for x, y in points]


def _disc(draw: ImageDraw.ImageDraw, centre: Point, r: float, fill: tuple[int, ...] | None,
          outline: tuple[int, ...] | None = INK, width: float = 1.5) -> None:
    x, y = centre
    draw.ellipse(((x - r) * SS, (y - r) * SS, (x + r) * SS, (y + r) * SS), fill=fill, outline=outline,
                 width=round(width * SS))


def _line(draw: ImageDraw.ImageDraw, points: list[Point], fill: tuple[int, ...], width: float) -> None:
    draw.line(_pts(points), fill=fill, width=round(width * SS), joint="curve")


def _finish(img: Image.Image, name: str) -> None:
    small = img.resize(SIZE, Image.Resampling.LANCZOS)
    # a palette of 32 colours with transparency: a few kilobytes
    alpha = small.getchannel("A")
    quantised = small.convert("RGB").quantize(colors=31, method=Image.Quantize.MEDIANCUT)
    palette = quantised.getpalette() or []
    quantised.putpalette(palette[:31 * 3] + [255, 255, 255])
    clear = Image.eval(alpha, lambda a: 255 if a < 96 else 0)
    quantised.paste(31, mask=clear)
    OUT.mkdir(exist_ok=True)
    quantised.save(OUT / name, optimize=True, transparency=31)


def rifles() -> None:
    """Three riflemen advancing, rifles at the port."""
    img, draw = _canvas()
    for k, x in enumerate((26.0, 48.0, 70.0)):
        y = 14.0 + 4 * (k % 2)
        _disc(draw, (x, y), 5.2, KHAKI)                                   # helmet and head
        draw.polygon(_pts([(x - 7, y + 6), (x + 7, y + 6), (x + 6, y + 27), (x - 6, y + 27)]), fill=KHAKI,
                     outline=INK, width=round(1.5 * SS))                  # body
        _line(draw, [(x - 4, y + 27), (x - 8, y + 46)], KHAKI, 5)          # legs, striding
        _line(draw, [(x + 4, y + 27), (x + 9, y + 46)], KHAKI, 5)
        _line(draw, [(x - 12, y + 24), (x + 13, y + 4)], WOOD, 2.6)       # the rifle
        _line(draw, [(x + 13, y + 4), (x + 17, y + 0.5)], INK, 1.4)       # its bayonet
    _finish(img, "rifles.png")


def tank() -> None:
    """A light tank side on: hull, turret and gun, tracks on road wheels."""
    img, draw = _canvas()
    draw.rounded_rectangle(_pts([(8, 44), (88, 62)]), radius=9 * SS, fill=(60, 62, 56, 255), outline=INK,
                           width=round(1.5 * SS))                         # the track
    for x in (18, 31, 44, 57, 70, 80):
        _disc(draw, (x, 53), 5.0, (140, 140, 128, 255), width=1.2)          # road wheels
    draw.polygon(_pts([(10, 44), (16, 32), (80, 32), (88, 42), (86, 46), (12, 46)]), fill=STEEL, outline=INK,
                 width=round(1.5 * SS))                                   # the hull
    draw.polygon(_pts([(30, 32), (35, 20), (60, 20), (66, 32)]), fill=STEEL, outline=INK,
                 width=round(1.5 * SS))                                   # the turret
    _line(draw, [(62, 25), (92, 23)], INK, 3.2)                           # the gun
    _disc(draw, (44, 18), 2.6, INK, None)                                 # the hatch
    _finish(img, "tank.png")


def gun() -> None:
    """A field gun: barrel, shield, spoked wheel and trail."""
    img, draw = _canvas()
    _line(draw, [(14, 58), (46, 42)], WOOD, 5)                            # the trail
    draw.polygon(_pts([(44, 22), (60, 20), (62, 46), (46, 48)]), fill=STEEL, outline=INK,
                 width=round(1.5 * SS))                                   # the shield
    _line(draw, [(50, 34), (90, 20)], INK, 5.5)                           # the barrel
    _line(draw, [(86, 21.4), (92, 19.2)], INK, 7.5)                       # its muzzle
    centre, r = (54.0, 52.0), 15.0
    _disc(draw, centre, r, None, INK, 3.0)                                # the wheel
    for k in range(10):
        a = math.pi * k / 5
        _line(draw, [centre, (centre[0] + r * math.cos(a), centre[1] + r * math.sin(a))], WOOD, 1.6)
    _disc(draw, centre, 3.2, INK, None)
    _finish(img, "gun.png")


def lorry() -> None:
    """A supply lorry: cab, canvas tilt, two axles."""
    img, draw = _canvas()
    draw.rectangle(_pts([(6, 22), (58, 50)]), fill=CANVAS, outline=INK, width=round(1.5 * SS))   # the tilt
    for x in (20, 34, 48):
        _line(draw, [(x, 23), (x, 49)], (150, 134, 90, 255), 1.2)          # its hoops
    draw.polygon(_pts([(60, 50), (60, 28), (76, 28), (86, 40), (90, 42), (90, 52), (60, 52)]), fill=KHAKI,
                 outline=INK, width=round(1.5 * SS))                      # the cab
    draw.polygon(_pts([(64, 31), (74, 31), (81, 40), (64, 40)]), fill=(190, 214, 226, 255), outline=INK,
                 width=round(1.0 * SS))                                   # its window
    draw.rectangle(_pts([(4, 50), (90, 54)]), fill=INK)                  # the chassis
    for x in (20, 74):
        _disc(draw, (x, 57), 8.0, (52, 52, 48, 255), width=1.2)
        _disc(draw, (x, 57), 3.0, (160, 160, 150, 255), None)
    _finish(img, "lorry.png")


def main() -> None:
    for draw in (rifles, tank, gun, lorry):
        draw()
    for path in sorted(OUT.glob("*.png")):
        print(f"{path.relative_to(HERE.parent.parent)}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
