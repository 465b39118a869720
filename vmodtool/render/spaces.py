"""An area map's spaces and connections drawn for checking (issue 42,
``vmodtool board --spaces``): each space a ring with its name at the point
VASSAL names it by, each connection a line (a *proposed* one dashed in
orange, a typed one solid by kind, with a key of the kinds when there are
two or more), over the module's board image when the user gives it, else
over a plain canvas the spaces' size.  What a user compares with the
printed map to fix the graph."""

from __future__ import annotations

from collections.abc import Mapping

from PIL import Image, ImageDraw, ImageFont

from vmodtool.render.fonts import load_font
from vmodtool.scenario.locations import AreaMap

__all__ = ["draw_spaces"]

_KIND_COLOURS = ((200, 0, 200), (0, 120, 220), (220, 30, 30), (0, 150, 60), (120, 80, 0), (90, 90, 90),
                 (0, 200, 230), (240, 120, 0), (110, 40, 160), (150, 150, 0))
_PROPOSED = (255, 140, 0)
_RING = (20, 20, 200)


def _dashed(draw: ImageDraw.ImageDraw, a: tuple[float, float], b: tuple[float, float], colour: tuple[int, ...],
            width: int, dash: float = 14.0) -> None:
    (ax, ay), (bx, by) = a, b
    length = max(((bx - ax) ** 2 + (by - ay) ** 2) ** 0.5, 1e-9)
    steps = int(length // dash)
    for i in range(0, steps + 1, 2):
        t0, t1 = i * dash / length, min((i + 1) * dash / length, 1.0)
        draw.line([(ax + (bx - ax) * t0, ay + (by - ay) * t0), (ax + (bx - ax) * t1, ay + (by - ay) * t1)],
                  fill=colour, width=width)


def _key(draw: ImageDraw.ImageDraw, rows: list[tuple[str, tuple[int, ...], float]],
         font: ImageFont.FreeTypeFont) -> None:
    """The kinds of connection and their colours, in a box at the top left."""
    size = int(font.size)
    line = size + 8
    width = 100 + int(max(font.getlength(f"{kind} (cost {cost:g})") for kind, _, cost in rows))
    draw.rectangle([8, 8, 8 + width, 16 + line * len(rows)], fill=(255, 255, 255), outline=(0, 0, 0), width=2)
    for i, (kind, colour, cost) in enumerate(rows):
        y = 12 + line * i + line // 2
        draw.line([(18, y), (78, y)], fill=colour, width=max(5, size // 4))
        draw.text((88, y - size // 2 - 2), f"{kind} (cost {cost:g})", fill=(0, 0, 0), font=font)


def draw_spaces(areas: AreaMap, background: Image.Image | None = None,
                size: tuple[int, int] | None = None) -> tuple[Image.Image, Mapping[str, int]]:
    """The picture, and counts of what it shows (spaces, connections,
    proposed ones, spaces without a point)."""
    points = {name: s.point for name, s in areas.spaces.items() if s.point is not None}
    if background is not None:
        image = background.convert("RGB")
    else:
        w = max((p[0] for p in points.values()), default=0) + 120
        h = max((p[1] for p in points.values()), default=0) + 60
        if size is not None:
            w, h = max(w, size[0]), max(h, size[1])
        image = Image.new("RGB", (max(w, 1), max(h, 1)), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    kinds = sorted({c.kind for c in areas.connections})
    colour_of = {k: _KIND_COLOURS[i % len(_KIND_COLOURS)] for i, k in enumerate(kinds)}
    cost_of = {c.kind: c.cost for c in areas.connections}
    drawn = 0
    for c in areas.connections:
        a, b = points.get(c.a), points.get(c.b)
        if a is None or b is None:
            continue
        drawn += 1
        if areas.proposed:
            _dashed(draw, a, b, _PROPOSED, 4)
        else:
            draw.line([a, b], fill=colour_of[c.kind], width=5)
    label = load_font("regular", 18)
    for name, (x, y) in sorted(points.items()):
        draw.ellipse([x - 9, y - 9, x + 9, y + 9], outline=_RING, width=3)
        draw.text((x + 11, y - 11), name, fill=(0, 0, 0), font=label, stroke_width=2, stroke_fill=(255, 255, 255))
    if len(kinds) > 1 and not areas.proposed:
        # legible on a whole board's picture too (a 5,000-pixel board: 27 px)
        _key(draw, [(k, colour_of[k], cost_of[k]) for k in kinds], load_font("regular", max(18, image.width // 190)))
    return image, {"spaces": len(points), "connections": drawn, "proposed": drawn if areas.proposed else 0,
                   "without_point": len(areas.spaces) - len(points)}
