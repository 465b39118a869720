"""Terrain textures and hexside feature styles of printed wargame maps.

Each terrain type gets a *texture kind* — from its ``symbol`` or, when that
is missing or unknown, from words in its id/name (woods, town, marsh …) —
and each texture is a few simple vector symbols laid inside the hex: tree
crowns, building blocks, rocks, tufts, waves.  Positions are jittered by a
seed taken from the hex label, so a board looks the same every time it is
drawn.  Every size is a fraction of the hex (``Hex.size`` = across flats),
so the print drawing is the screen drawing scaled.
"""

from __future__ import annotations

import math
import random
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise

from vmodtool.render.board_canvas import Canvas, Colour

__all__ = ["Hex", "parse_colour", "mix", "darken", "lighten", "texture_kind", "draw_texture",
           "hexside_kind", "TEXTURES", "DEFAULT_FILLS", "seeded", "KeepOut", "WATER"]

Point = tuple[float, float]

#: the texture of water hexes: a road through one needs a bridge
WATER = "waves"

TEXTURES = ("trees", "orchard", "buildings", "rocks", "brush", "marsh", "waves", "trench",
            "sand", "crops")

# words → texture (checked on symbol, then id, then name; first match wins)
_WORDS = (
    ("trees", ("tree", "wood", "forest", "jungle", "лес")),
    ("orchard", ("orchard", "olive", "vineyard", "grove", "сад", "роща")),
    ("buildings", ("building", "town", "city", "village", "urban", "house", "здани", "город",
                   "деревн", "село")),
    ("rocks", ("rock", "rough", "boulder", "rubble", "broken", "камен")),
    ("brush", ("brush", "scrub", "bush", "кустар")),
    ("marsh", ("marsh", "swamp", "bog", "fen", "болот")),
    ("waves", ("water", "lake", "sea", "ocean", "pond", "вод", "озер", "мор")),
    ("trench", ("trench", "fortif", "транше", "окоп")),
    ("sand", ("sand", "desert", "dune", "песок")),
    ("crops", ("crop", "field", "grain", "wheat", "поле")),
)

DEFAULT_FILLS = {
    None: "#e6e0c0", "trees": "#7f9f5a", "orchard": "#a9c47e", "buildings": "#bcae9e",
    "rocks": "#a8977c", "brush": "#c5c98e", "marsh": "#a8c8b4", "waves": "#8fbbe3",
    "trench": "#a89478", "sand": "#ecd9a0", "crops": "#dcd68c",
}


def parse_colour(text: str | None, default: str = "#e6e0c0") -> Colour:
    value = (text or default).strip().lstrip("#")
    if len(value) == 3:
        value = "".join(c * 2 for c in value)
    try:
        return tuple(int(value[i:i + 2], 16) for i in (0, 2, 4))
    except ValueError:
        return parse_colour(default)


def mix(a: Colour, b: Colour, t: float) -> Colour:
    """``a`` moved a fraction ``t`` towards ``b``."""
    return tuple(int(round(x + (y - x) * t)) for x, y in zip(a[:3], b[:3], strict=True))


def darken(c: Colour, t: float) -> Colour:
    return mix(c, (20, 20, 15), t)


def lighten(c: Colour, t: float) -> Colour:
    return mix(c, (255, 255, 250), t)


def seeded(label: str, salt: str = "") -> random.Random:
    return random.Random(zlib.crc32(f"{salt}:{label}".encode()))


def texture_kind(terrain_id: str, name: str = "", symbol: str | None = None) -> str | None:
    """The texture of a terrain type (None for plain terrain)."""
    if symbol in TEXTURES:
        return symbol
    for text in (symbol or "", terrain_id, name):
        low = text.lower()
        if not low:
            continue
        for kind, words in _WORDS:
            if any(w and w in low for w in words):
                return kind
    return None


def hexside_kind(type_id: str, name: str = "", symbol: str | None = None,
                 drawn_as: str = "hexside") -> str:
    """How a hexside feature is drawn: river, stream, road, track, railway,
    bridge, wall, cliff, or line."""
    text = " ".join((symbol or "", type_id, name)).lower()
    for kind, words in (("bridge", ("bridge", "мост")), ("railway", ("rail", "желез")),
                        ("track", ("track", "trail", "path", "тропа")),
                        ("stream", ("stream", "creek", "brook", "ручей")),
                        ("river", ("river", "wadi", "canal", "река")),
                        ("road", ("road", "highway", "pike", "дорог", "шоссе")),
                        ("wall", ("wall", "hedge", "bocage", "стена", "изгород")),
                        ("cliff", ("cliff", "escarp", "ridge", "обрыв"))):
        if any(w in text for w in words):
            return kind
    return "road" if drawn_as == "centre_line" else "line"


@dataclass(frozen=True)
class Hex:
    """Where to draw inside one hexagon: centre, ``size`` (across flats,
    board pixels) and the corners."""

    cx: float
    cy: float
    size: float
    corners: tuple[Point, ...]
    sideways: bool = False

    def at(self, a: float, b: float) -> Point:
        """The point at (a, b) × size from the centre (x right, y down)."""
        return self.cx + a * self.size, self.cy + b * self.size

    def inside(self, p: Point, margin: float = 0.0) -> bool:
        """Whether ``p`` lies inside the hexagon shrunk by ``margin`` × size."""
        pts = self.corners
        sign = 0.0
        for i in range(len(pts)):
            (x1, y1), (x2, y2) = pts[i - 1], pts[i]
            cross = (x2 - x1) * (p[1] - y1) - (y2 - y1) * (p[0] - x1)
            length = math.hypot(x2 - x1, y2 - y1) or 1.0
            d = cross / length
            if sign == 0.0:
                sign = 1.0 if d > 0 else -1.0
            if d * sign < margin * self.size:
                return False
        return True


Box = tuple[float, float, float, float]
#: whether a box (board pixels) is taken by a text, a marker or a bridge
KeepOut = Callable[[Box], bool]


class _Guard:
    """Draws a texture's symbols one at a time and takes back any whose
    drawn box (the canvas's own box of its operations) meets the
    ``keep_out`` boxes; the boxes of the symbols kept go to ``record``."""

    def __init__(self, canvas: Canvas, keep_out: KeepOut | None, record: list[Box] | None) -> None:
        self.canvas = canvas
        self.keep_out = keep_out
        self.record = record
        self.start = 0

    def begin(self) -> None:
        self.start = len(self.canvas.ops)

    def commit(self) -> bool:
        ops = self.canvas.ops
        if len(ops) == self.start or (self.keep_out is None and self.record is None):
            return True
        s = self.canvas.scale
        x0, y0, x1, y1 = ops[self.start].bbox
        for op in ops[self.start + 1:]:
            b = op.bbox
            if b[0] < x0:
                x0 = b[0]
            if b[1] < y0:
                y0 = b[1]
            if b[2] > x1:
                x1 = b[2]
            if b[3] > y1:
                y1 = b[3]
        box = (x0 / s, y0 / s, x1 / s, y1 / s)
        if self.keep_out is not None and self.keep_out(box):
            del ops[self.start:]
            return False
        if self.record is not None:
            self.record.append(box)
        return True

    def clear(self, p: Point, radius: float) -> bool:
        """Whether a symbol of ``radius`` at ``p`` would be clear (a first
        guess that saves drawing symbols only to take them back)."""
        if self.keep_out is None:
            return True
        return not self.keep_out((p[0] - radius, p[1] - radius, p[0] + radius, p[1] + radius))

    def polyline(self, points: Sequence[Point], fill: Colour, width: float, round_caps: bool = False,
                 piece: int = 4) -> None:
        """A texture line, whole when it is clear, else in pieces of
        ``piece`` segments, each kept or taken back on its own (a line runs
        on around a label)."""
        self.begin()
        self.canvas.line(points, fill, width, round_caps=round_caps)
        if self.commit():
            return
        for i in range(0, len(points) - 1, piece):
            part = points[i:i + piece + 1]
            if len(part) > 1:
                self.begin()
                self.canvas.line(part, fill, width, round_caps=round_caps)
                self.commit()


def _scatter(h: Hex, rng: random.Random, count: int, spacing: float, margin: float,
             avoid_label: bool = True, guard: _Guard | None = None, radius: float = 0.0) -> list[Point]:
    """Up to ``count`` points inside the hex, ``spacing`` × size apart,
    clear of the hex number at the top, of the centre dot and (with a
    ``guard``) of the boxes kept out by ``radius`` × size."""
    points: list[Point] = []
    tries = 0
    while len(points) < count and tries < count * 40:
        tries += 1
        a, b = rng.uniform(-0.5, 0.5), rng.uniform(-0.5, 0.5)
        if avoid_label and b < -0.2 and abs(a) < 0.3:
            continue
        if math.hypot(a, b) < 0.09:
            continue
        p = h.at(a, b)
        if guard is not None and not guard.clear(p, radius * h.size):
            continue
        if not h.inside(p, margin):
            continue
        if any(math.hypot(p[0] - q[0], p[1] - q[1]) < spacing * h.size for q in points):
            continue
        points.append(p)
    return points


def draw_texture(canvas: Canvas, kind: str | None, h: Hex, fill: Colour,
                 rng: random.Random, dense: float = 1.0, *, keep_out: KeepOut | None = None,
                 record: list[Box] | None = None) -> None:
    """Draw the symbols of texture ``kind`` inside hex ``h``; none meets a
    box ``keep_out`` says is taken (a text, a marker, a bridge), and the box
    of each symbol drawn goes to ``record``."""
    if kind is None:
        return
    draw = _TEXTURE_DRAWERS.get(kind)
    if draw is not None:
        draw(_Guard(canvas, keep_out, record), h, fill, rng, dense)


def _draw_trees(g: _Guard, h: Hex, fill: Colour, rng: random.Random, dense: float) -> None:
    canvas, s = g.canvas, h.size
    dark, edge, light = darken(fill, 0.25), darken(fill, 0.55), lighten(fill, 0.18)
    crowns = _scatter(h, rng, int(7 * dense), 0.15, 0.09, guard=g, radius=0.1)
    for x, y in sorted(crowns, key=lambda p: p[1]):
        r = s * rng.uniform(0.075, 0.095)
        g.begin()
        canvas.circle((x, y + r * 0.25), r * 1.02, fill=darken(fill, 0.45))   # shadow
        canvas.circle((x, y), r, fill=dark, outline=edge, width=s * 0.011)
        canvas.circle((x - r * 0.3, y - r * 0.3), r * 0.38, fill=mix(dark, light, 0.55))
        g.commit()


def _draw_orchard(g: _Guard, h: Hex, fill: Colour, rng: random.Random, dense: float) -> None:
    canvas, s = g.canvas, h.size
    dark, edge = darken(fill, 0.3), darken(fill, 0.6)
    step = 0.16
    for i in range(-2, 3):
        for j in range(-2, 3):
            a = i * step + (step / 2 if j % 2 else 0.0)
            b = j * step * 0.9 + 0.04
            if b < -0.2 and abs(a) < 0.3 or math.hypot(a, b) < 0.09:
                continue
            p = h.at(a, b)
            if h.inside(p, 0.08):
                g.begin()
                canvas.circle(p, s * 0.04, fill=dark, outline=edge, width=s * 0.008)
                g.commit()


def _draw_buildings(g: _Guard, h: Hex, fill: Colour, rng: random.Random, dense: float) -> None:
    canvas, s = g.canvas, h.size
    roof, edge = darken(fill, 0.45), darken(fill, 0.75)
    blocks = _scatter(h, rng, int(6 * dense), 0.17, 0.12, guard=g, radius=0.12)
    for x, y in blocks:
        w, d = s * rng.uniform(0.07, 0.12), s * rng.uniform(0.05, 0.08)
        angle = rng.choice((0.0, 0.0, math.pi / 2)) + rng.uniform(-0.25, 0.25)
        pts = _rect((x, y), w, d, angle)
        g.begin()
        canvas.polygon([(px + s * 0.012, py + s * 0.012) for px, py in pts],
                       fill=darken(fill, 0.3))                                   # shadow
        canvas.polygon(pts, fill=roof, outline=edge, width=s * 0.008)
        g.commit()


def _draw_rocks(g: _Guard, h: Hex, fill: Colour, rng: random.Random, dense: float) -> None:
    canvas, s = g.canvas, h.size
    body, edge = lighten(fill, 0.22), darken(fill, 0.62)
    for x, y in _scatter(h, rng, int(7 * dense), 0.15, 0.1, guard=g, radius=0.08):
        r = s * rng.uniform(0.04, 0.065)
        n = rng.randint(5, 7)
        pts = [(x + math.cos(2 * math.pi * k / n) * r * rng.uniform(0.7, 1.2),
                y + math.sin(2 * math.pi * k / n) * r * rng.uniform(0.6, 1.0)) for k in range(n)]
        g.begin()
        canvas.polygon([(px + s * 0.01, py + s * 0.012) for px, py in pts], fill=darken(fill, 0.4))
        canvas.polygon(pts, fill=body, outline=edge, width=s * 0.01)
        g.commit()


def _draw_tufts(g: _Guard, h: Hex, fill: Colour, rng: random.Random, dense: float,
                marsh: bool) -> None:
    """Brush: tufts of grass; marsh: fewer, taller tufts over a line of water."""
    canvas, s = g.canvas, h.size
    ink = darken(fill, 0.5)
    water = darken(mix(fill, (60, 110, 190), 0.5), 0.1)
    for x, y in _scatter(h, rng, int((7 if marsh else 8) * dense), 0.13, 0.08, guard=g,
                         radius=0.07):
        g.begin()
        _tuft(canvas, (x, y), s * (0.06 if marsh else 0.05), ink, s * 0.01)
        if marsh:
            canvas.line([(x - s * 0.06, y + s * 0.015), (x + s * 0.06, y + s * 0.015)],
                        water, s * 0.012, round_caps=True)
        g.commit()


def _draw_brush(g: _Guard, h: Hex, fill: Colour, rng: random.Random, dense: float) -> None:
    _draw_tufts(g, h, fill, rng, dense, marsh=False)


def _draw_marsh(g: _Guard, h: Hex, fill: Colour, rng: random.Random, dense: float) -> None:
    _draw_tufts(g, h, fill, rng, dense, marsh=True)


def _draw_waves(g: _Guard, h: Hex, fill: Colour, rng: random.Random, dense: float) -> None:
    canvas, s = g.canvas, h.size
    ink = darken(fill, 0.22)
    lite = lighten(fill, 0.35)
    for b in (-0.22, -0.02, 0.18, 0.36):
        a0 = rng.uniform(-0.34, -0.12)
        pts = [h.at(a0 + k * 0.02, b + 0.018 * math.sin((a0 + k * 0.02) * 40.0))
               for k in range(13)]
        pts = [p for p in pts if h.inside(p, 0.06)]
        if len(pts) <= 2:
            continue
        g.begin()                      # the whole wave, or in pieces round what it must not cover
        canvas.line(pts, ink, s * 0.014, round_caps=True)
        canvas.line([(x, y - s * 0.012) for x, y in pts[1:-1]], lite, s * 0.006)
        if g.commit():
            continue
        for i in range(0, len(pts) - 1, 4):
            part = pts[i:i + 5]
            if len(part) < 2:
                continue
            g.begin()
            canvas.line(part, ink, s * 0.014, round_caps=True)
            if len(part) > 2:
                canvas.line([(x, y - s * 0.012) for x, y in part[1:-1]], lite, s * 0.006)
            g.commit()


def _draw_trench(g: _Guard, h: Hex, fill: Colour, rng: random.Random, dense: float) -> None:
    canvas, s = g.canvas, h.size
    ink = darken(fill, 0.7)
    wire = darken(fill, 0.5)
    b0 = rng.uniform(-0.02, 0.1)
    pts = []
    for k in range(-5, 6):
        a = k * 0.07
        up = b0 + (0.03 if k % 2 else -0.03)
        pts += [h.at(a, up), h.at(a + 0.07, up)]
    pts = [p for p in pts if h.inside(p, 0.05)]
    if len(pts) > 1:
        g.polyline(pts, ink, s * 0.022)
    for k in range(-4, 5):       # barbed wire: a row of small crosses
        x, y = h.at(k * 0.08, b0 + 0.17)
        if h.inside((x, y), 0.08):
            d = s * 0.018
            g.begin()
            canvas.line([(x - d, y - d), (x + d, y + d)], wire, s * 0.007)
            canvas.line([(x - d, y + d), (x + d, y - d)], wire, s * 0.007)
            g.commit()


def _draw_sand(g: _Guard, h: Hex, fill: Colour, rng: random.Random, dense: float) -> None:
    ink = darken(fill, 0.3)
    for x, y in _scatter(h, rng, int(14 * dense), 0.08, 0.06, guard=g, radius=0.012):
        g.begin()
        g.canvas.circle((x, y), h.size * 0.01, fill=ink)
        g.commit()


def _draw_crops(g: _Guard, h: Hex, fill: Colour, rng: random.Random, dense: float) -> None:
    ink = darken(fill, 0.3)
    for b in (-0.15, -0.05, 0.05, 0.15, 0.25, 0.35):
        pts = [h.at(a, b + a * 0.25) for a in (-0.45, 0.45)]
        seg = _clip_segment(h, pts[0], pts[1], 0.07)
        if seg:
            (px, py), (qx, qy) = seg
            g.polyline([(px + (qx - px) * t / 6, py + (qy - py) * t / 6) for t in range(7)], ink,
                       h.size * 0.008, piece=1)


#: texture kind → the function drawing its symbols in one hex
_TEXTURE_DRAWERS: dict[str, Callable[[_Guard, Hex, Colour, random.Random, float], None]] = {
    "trees": _draw_trees, "orchard": _draw_orchard, "buildings": _draw_buildings,
    "rocks": _draw_rocks, "brush": _draw_brush, "marsh": _draw_marsh, "waves": _draw_waves,
    "trench": _draw_trench, "sand": _draw_sand, "crops": _draw_crops,
}


def _clip_segment(h: Hex, p: Point, q: Point, margin: float) -> list[Point] | None:
    inside = [t / 40.0 for t in range(41)
              if h.inside((p[0] + (q[0] - p[0]) * t / 40.0, p[1] + (q[1] - p[1]) * t / 40.0), margin)]
    if len(inside) < 2:
        return None
    t0, t1 = inside[0], inside[-1]
    return [(p[0] + (q[0] - p[0]) * t0, p[1] + (q[1] - p[1]) * t0),
            (p[0] + (q[0] - p[0]) * t1, p[1] + (q[1] - p[1]) * t1)]


def _rect(c: Point, w: float, d: float, angle: float) -> list[Point]:
    ca, sa = math.cos(angle), math.sin(angle)
    out = []
    for a, b in ((-w, -d), (w, -d), (w, d), (-w, d)):
        out.append((c[0] + a * ca - b * sa, c[1] + a * sa + b * ca))
    return out


def _tuft(canvas: Canvas, base: Point, height: float, ink: Colour, width: float) -> None:
    x, y = base
    for dx in (-0.55, 0.0, 0.55):
        canvas.line([(x + dx * height * 0.25, y), (x + dx * height, y - height * (1.0 - abs(dx) * 0.3))],
                    ink, width, round_caps=True)


def star(centre: Point, outer: float, inner_ratio: float = 0.42) -> list[Point]:
    """A five-pointed star (objective marker)."""
    pts = []
    for k in range(10):
        r = outer if k % 2 == 0 else outer * inner_ratio
        angle = -math.pi / 2 + k * math.pi / 5
        pts.append((centre[0] + r * math.cos(angle), centre[1] + r * math.sin(angle)))
    return pts


def dashes(points: Sequence[Point], on: float, off: float) -> Iterable[list[Point]]:
    """Split a polyline into dashes ``on`` long with gaps ``off``."""
    pattern = [on, off]
    state, left = 0, on
    current: list[Point] = [points[0]]
    for (x1, y1), (x2, y2) in pairwise(points):
        seg = math.hypot(x2 - x1, y2 - y1)
        pos = 0.0
        while seg - pos > left:
            pos += left
            t = pos / seg
            p = (x1 + (x2 - x1) * t, y1 + (y2 - y1) * t)
            if state == 0:
                current.append(p)
                yield current
            current = [p]
            state = 1 - state
            left = pattern[state]
        left -= seg - pos
        current.append((x2, y2))
    if state == 0 and len(current) > 1:
        yield current
