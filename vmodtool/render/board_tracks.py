"""The turn track and record tracks of a print map.

A printed game needs its tracks on paper: every ``tracks`` entry, and a
turn track of ``turns.first`` … ``turns.last`` when no track is a
``turn_record`` one.  Each is a framed row of spaces a counter fits in,
with its name above.  Like a place name, a track takes the first free place
on the map — here a place clear of every hex (a board made larger than its
grid, ``map.size``, leaves such room), its boxes tested against everything
the board recorded — and what finds none goes into a band under the map,
above the title and key, wrapped to the sheet's width.  Nothing a track
covers is a hex, a hex number, a place name or a feature (the boxes are
recorded as ``track``, so a test can check).  The VASSAL board draws no
tracks: the module has them in its off-map window.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from vmodtool.render.board_canvas import Canvas, Colour
from vmodtool.render.board_geometry import HexGeometry
from vmodtool.render.board_layout import Box, BoxIndex, Point
from vmodtool.scenario import model as M

__all__ = ["PrintTrack", "PlacedTrack", "TrackBand", "print_tracks", "place_on_map", "draw_track"]

_TURN_WORD = {"ru": "Ход", "fr": "Tour", "de": "Runde"}
_INK: Colour = (38, 36, 32)
_FRAME_FILL: Colour = (252, 249, 240)
_SPACE_FILL: Colour = (244, 238, 222)

#: sizes in hex sizes (across flats): a space a counter fits in, the gap
#: between spaces, the padding inside the frame and the title's type
SPACE = 0.8
GAP = 0.06
PAD = 0.12
TITLE = 0.2
TITLE_H = 0.34


@dataclass(frozen=True)
class PrintTrack:
    """A track to print: its name, its spaces and where in the scenario it
    comes from (``("tracks", i)`` or ``("turns",)``)."""

    id: str
    name: str
    spaces: tuple[str, ...]
    entry: tuple[str | int, ...]


@dataclass(frozen=True)
class PlacedTrack:
    """A track laid out: ``where`` ``map`` or ``sheet`` (the band under the
    map), its frame ``box`` and each space's box (board pixels)."""

    track: PrintTrack
    where: str
    box: Box
    spaces: tuple[Box, ...]


def print_tracks(scenario: M.Scenario) -> list[PrintTrack]:
    """The tracks a print map shows: the scenario's ``tracks``, and a turn
    track from ``turns`` unless one of them is a turn record track."""
    out = [PrintTrack(t.id, t.name, t.spaces, ("tracks", i)) for i, t in enumerate(scenario.tracks) if t.spaces]
    turns = scenario.turns
    if turns is not None and turns.last >= turns.first and \
            not any(t.kind == "turn_record" for t in scenario.tracks):
        word = _TURN_WORD.get((scenario.game.language or "")[:2], "Turn")
        out.insert(0, PrintTrack("turns", word, tuple(str(n) for n in range(turns.first, turns.last + 1)),
                                 ("turns",)))
    return out


def _title_width(canvas: Canvas, track: PrintTrack, unit: float) -> float:
    return canvas.text_size(track.name, size=TITLE * unit, style="bold")[0]


def _layout(canvas: Canvas, track: PrintTrack, unit: float, at: Point, per_row: int, where: str) -> PlacedTrack:
    """``track`` with its frame's top left corner at ``at``, ``per_row`` spaces a row."""
    x, y = at
    s, g, pad = SPACE * unit, GAP * unit, PAD * unit
    per_row = max(1, min(per_row, len(track.spaces)))
    rows = -(-len(track.spaces) // per_row)
    width = max(per_row * s + (per_row - 1) * g, _title_width(canvas, track, unit)) + 2 * pad
    height = pad + TITLE_H * unit + rows * s + (rows - 1) * g + pad
    top = y + pad + TITLE_H * unit
    spaces = tuple((x + pad + (k % per_row) * (s + g), top + (k // per_row) * (s + g),
                    x + pad + (k % per_row) * (s + g) + s, top + (k // per_row) * (s + g) + s)
                   for k in range(len(track.spaces)))
    return PlacedTrack(track, where, (x, y, x + width, y + height), spaces)


def _per_row(canvas: Canvas, track: PrintTrack, unit: float, width: float) -> int:
    """How many spaces a row: as few rows as fit in ``width``, evenly filled."""
    s, g, pad = SPACE * unit, GAP * unit, PAD * unit
    most = max(1, int((width - 2 * pad + g) // (s + g)))
    rows = -(-len(track.spaces) // most)
    return max(1, -(-len(track.spaces) // rows))       # rows of even length: 12 as 6 + 6, not 10 + 2


def _hex_boxes(geo: HexGeometry, cell: float) -> BoxIndex:
    index = BoxIndex(cell)
    for label, poly in geo.polygons.items():
        xs = [p[0] for p in poly]
        ys = [p[1] for p in poly]
        index.add("hex", label, (min(xs), min(ys), max(xs), max(ys)))
    return index


def place_on_map(canvas: Canvas, tracks: Sequence[PrintTrack], geo: HexGeometry, boxes: BoxIndex,
                 board: tuple[int, int], unit: float) -> tuple[list[PlacedTrack], list[PrintTrack]]:
    """The tracks that find a free place on the map (clear of every hex and
    of everything ``boxes`` records, inside the board), nearest the board's
    edges first, in one row or as few rows as fit; and those that find none.
    Each placed track's frame is recorded in ``boxes`` as ``track``."""
    hexes = _hex_boxes(geo, unit)
    placed: list[PlacedTrack] = []
    rest: list[PrintTrack] = []
    w, h = board
    for track in tracks:
        found = None
        for rows in (1, 2, 3):
            per_row = -(-len(track.spaces) // rows)
            probe = _layout(canvas, track, unit, (0.0, 0.0), per_row, "map")
            tw, th = probe.box[2], probe.box[3]
            if tw > w or th > h:
                continue
            for x, y in _spots(geo, (w, h), (tw, th), unit):
                box = (x, y, x + tw, y + th)
                if not hexes.blocked(box) and not boxes.blocked(box):
                    found = _layout(canvas, track, unit, (x, y), per_row, "map")
                    break
            if found is not None:
                break
        if found is None:
            rest.append(track)
            continue
        boxes.add("track", found.track.id, found.box)
        placed.append(found)
    return placed, rest


def _spots(geo: HexGeometry, board: tuple[int, int], size: tuple[float, float], unit: float) -> list[Point]:
    """Where a track ``size`` may go: in the margins of the board round the
    hexes (only there is a place clear of every hex), nearest the board's
    edges first."""
    (w, h), (tw, th) = board, size
    step = 0.25 * unit
    edge, clear = 0.15 * unit, 0.3 * unit        # off the board's edge; off the hexes and their frame
    bx0, by0, bx1, by1 = geo.bounds() if geo.polygons else (w, h, 0.0, 0.0)
    xs = [edge + k * step for k in range(int((w - tw - 2 * edge) // step) + 1)]
    ys = [edge + k * step for k in range(int((h - th - 2 * edge) // step) + 1)]
    spots = [(x, y) for x in xs for y in ys
             if y + th <= by0 - clear or y >= by1 + clear or x + tw <= bx0 - clear or x >= bx1 + clear]
    spots.sort(key=lambda p: (min(p[0], w - tw - p[0], p[1], h - th - p[1]), p[1], p[0]))
    return spots


class TrackBand:
    """The tracks that found no place on the map in a band ``width`` wide
    under it: side by side while they fit, then on the next shelf, a track
    longer than the width wrapped to it."""

    def __init__(self, canvas: Canvas, tracks: Sequence[PrintTrack], unit: float, width: float) -> None:
        self.unit = unit
        self.margin = 0.35 * unit
        inner = width - 2 * self.margin
        self.placed: list[PlacedTrack] = []
        gap = 0.2 * unit
        x, y, shelf = self.margin, self.margin, 0.0      # tracks side by side while they fit
        for track in tracks:
            laid = _layout(canvas, track, unit, (x, y), _per_row(canvas, track, unit, inner), "sheet")
            if x > self.margin and laid.box[2] > width - self.margin:
                x, y, shelf = self.margin, y + shelf + gap, 0.0
                laid = _layout(canvas, track, unit, (x, y), _per_row(canvas, track, unit, inner), "sheet")
            self.placed.append(laid)
            x = laid.box[2] + gap
            shelf = max(shelf, laid.box[3] - y)
        self.height = (y + shelf + self.margin) if tracks else 0.0

    def at(self, top: float, boxes: BoxIndex) -> list[PlacedTrack]:
        """The tracks moved down to ``top``, their frames recorded in ``boxes``."""
        out = []
        for p in self.placed:
            b = p.box
            moved = PlacedTrack(p.track, p.where, (b[0], b[1] + top, b[2], b[3] + top),
                                tuple((s[0], s[1] + top, s[2], s[3] + top) for s in p.spaces))
            boxes.add("track", p.track.id, moved.box)
            out.append(moved)
        return out


def draw_track(canvas: Canvas, placed: PlacedTrack, unit: float) -> None:
    """A framed track: its name, then its spaces, each with its name in the
    top left corner."""
    x0, y0, x1, y1 = placed.box
    canvas.rectangle(placed.box, fill=_FRAME_FILL, outline=_INK, width=0.03 * unit)
    pad = PAD * unit
    canvas.text((x0 + pad, y0 + pad + TITLE_H * unit / 2), placed.track.name, size=TITLE * unit, fill=_INK,
                style="bold", anchor="lm")
    for name, (sx0, sy0, sx1, sy1) in zip(placed.track.spaces, placed.spaces, strict=True):
        canvas.rectangle((sx0, sy0, sx1, sy1), fill=_SPACE_FILL, outline=_INK, width=0.016 * unit)
        canvas.text((sx0 + 0.06 * unit, sy0 + 0.05 * unit), name, size=0.16 * unit, fill=_INK,
                    style="condensed", anchor="lt")
