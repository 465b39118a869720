"""Hex map boards drawn from a scenario's map data, on VASSAL's own grid.

The board image that goes into a module is drawn in *board pixels*: the
pixels of ``MapGrid.size``, the same pixels in which the module's
``HexGrid`` (``dx``, ``dy``, ``x0``, ``y0``) is written.  Every hex is laid
around the centre VASSAL snaps a piece to (``MapGrid.centres``), so board,
module and audit agree to the pixel (:mod:`vmodtool.render.board_geometry`).

**Scale.**  ``scale=1`` is the *screen size* — the VASSAL board.  Print
output is the very same drawing multiplied by ``scale``; with a resolution
and a hex size, ``scale = dpi × hex_size_in / dy`` where ``dy`` is the
across-flats size of a hex in board pixels (VASSAL's ``dy`` in both
orientations).  A board printed at ``--dpi 300 --hex-size 0.625`` has hexes
exactly 5/8 inch across the flats and its PNG says so (``pHYs``).

**Title and terrain key.**  The VASSAL board is the hex area only (its
size is ``HexMap.size``, so the grid origin never moves and no phantom hexes
appear under a legend).  The title cartouche and the terrain key go into a
strip under the map in the *sheet* layout (print) or into a separate key
image (:func:`render_key`) that a module can show as a chart.

Public API: :func:`board_drawing` (record the drawing, with the centres,
labels and hexsides it drew), :func:`render_board` (a PIL image),
:func:`write_board` (stream a PNG of any size), :func:`render_key`,
:func:`overlay_grid` / :func:`grid_from_options` (check a grid over a user's
scanned map), :func:`module_board_image` (the image ``vmodtool build`` puts
in the module).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PIL import Image

from vmodtool.errors import VmodError
from vmodtool.fileio import atomic_write, refuse_overwrite
from vmodtool.images import image_size, load_image
from vmodtool.render.board_canvas import Canvas, Colour
from vmodtool.render.board_curves import chains, smooth_chain
from vmodtool.render.board_geometry import HexGeometry
from vmodtool.render.board_layout import (
    KEEP_OUT_KINDS,
    Box,
    BoxIndex,
    Drawn,
    Placed,
    PlacementWarning,
    Trial,
    located_warnings,
    place_text,
    union,
)
from vmodtool.render.board_symbols import (
    DEFAULT_FILLS,
    WATER,
    Hex,
    darken,
    dashes,
    draw_texture,
    hexside_kind,
    lighten,
    mix,
    parse_colour,
    seeded,
    star,
    texture_kind,
)
from vmodtool.render.board_tracks import PlacedTrack, TrackBand, draw_track, place_on_map, print_tracks
from vmodtool.vassal.grid import HexGrid

if TYPE_CHECKING:
    from vmodtool.scenario import model as M
    from vmodtool.scenario.mapgrid import MapGrid

__all__ = ["BoardOptions", "BoardDrawing", "DrawnHexside", "DrawnLine", "DrawnBridge", "board_drawing", "render_board",
           "write_board", "render_key", "write_key", "print_scale", "overlay_grid",
           "grid_overlay_drawing", "module_board_image", "module_board", "read_image", "image_header",
           "PAPER", "DEFAULT_HEX_SIZE_IN"]

Point = tuple[float, float]
PathLike = str | Path
#: terrain id → (fill, texture kind, elevation)
TerrainStyles = dict[str, tuple[Colour, str | None, int]]

PAPER: Colour = (246, 242, 229)
INK: Colour = (38, 36, 32)
GRID_INK: Colour = (84, 80, 68)
OBJECTIVE_RED: Colour = (196, 36, 36)
#: the classic 5/8-inch hex (across the flats) of printed wargame maps
DEFAULT_HEX_SIZE_IN = 0.625
_HILL_FILLS = ("#d8c48e", "#c9a86c", "#b38a55", "#9b7344", "#825e37")


@dataclass(frozen=True)
class BoardOptions:
    """What to draw.  ``scale`` multiplies board pixels (1 = the VASSAL
    board); ``dpi`` is only recorded in the PNG; ``sheet`` adds the title
    cartouche and terrain key under the map (not for VASSAL)."""

    scale: float = 1.0
    dpi: float | None = None
    sheet: bool = False
    hex_numbers: bool = True
    centre_dots: bool = True
    place_names: bool = True
    objectives: bool = True
    supersample: int | None = None


@dataclass(frozen=True)
class DrawnHexside:
    """A hexside feature as drawn: ``points`` in board pixels — the side's
    two end points (``drawn_as: hexside``), the two hex centres
    (``centre_line``), or the bridge's (start, end) across the side."""

    type: str
    kind: str
    a: str
    b: str
    drawn_as: str
    points: tuple[Point, Point]


@dataclass(frozen=True)
class DrawnLine:
    """One line of a hexside feature as drawn (a river, a road, a wall):
    ``sides`` its hexsides (pairs of hexes) end to end, ``points`` what is
    drawn for it (board pixels): a river's or road's smooth curve through
    each hexside's midpoint, a wall's hexsides corner to corner."""

    type: str
    kind: str
    drawn_as: str
    sides: tuple[tuple[str, str], ...]
    points: tuple[Point, ...]


@dataclass(frozen=True)
class DrawnBridge:
    """A bridge drawn where a road, track or railway crosses water:
    ``over`` is ``river`` (a river or stream along the side between ``a``
    and ``b``, which the road joins) or ``water`` (the road through the
    water hex ``a``; ``b`` the hex at the other end of that road segment);
    ``path`` the deck's centre line (board pixels); ``scenario`` whether the
    scenario names it (a ``bridge`` hexside) or the board added it."""

    over: str
    a: str
    b: str
    path: tuple[Point, ...]
    half_width: float
    scenario: bool = False


@dataclass
class BoardDrawing:
    """A recorded board: ``canvas`` holds the drawing; ``centres`` label →
    centre drawn (board pixels: the hexagon's centre, its dot); ``numbers``
    label → (text, anchor point) of the hex number drawn; ``hexsides`` the
    features as drawn, one by one, and ``lines`` the same joined into
    the curves drawn; ``tracks`` the turn and record tracks of a print map as placed
    (:mod:`vmodtool.render.board_tracks`); ``bridges`` every bridge (the scenario's and those
    drawn where a road crosses water); ``labels`` the place names as placed
    (in the scenario's order); ``boxes`` everything drawn that must not be
    covered, as boxes (:mod:`vmodtool.render.board_layout`); ``notes`` the
    place names and objective markers that found no free place (or only an
    abbreviation), by their scenario entries, and ``warnings`` the same as
    lines located in the scenario file;
    ``board_size`` the VASSAL board (board pixels); ``size`` the whole
    drawing (board pixels, with the sheet strip)."""

    canvas: Canvas
    scale: float
    dpi: float | None
    board_size: tuple[int, int]
    size: tuple[float, float]
    geometry: HexGeometry
    centres: dict[str, tuple[int, int]] = field(default_factory=dict)
    numbers: dict[str, tuple[str, Point]] = field(default_factory=dict)
    hexsides: list[DrawnHexside] = field(default_factory=list)
    lines: list[DrawnLine] = field(default_factory=list)
    tracks: list[PlacedTrack] = field(default_factory=list)
    bridges: list[DrawnBridge] = field(default_factory=list)
    labels: list[Placed] = field(default_factory=list)
    boxes: BoxIndex = field(default_factory=lambda: BoxIndex(64.0))
    notes: list[PlacementWarning] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def pixel_size(self) -> tuple[int, int]:
        return self.canvas.width, self.canvas.height

    def image(self) -> Image.Image:
        img = self.canvas.render()
        if self.dpi:
            img.info["dpi"] = (self.dpi, self.dpi)
        return img

    def write(self, path: PathLike) -> None:
        atomic_write(path, self.canvas.png_chunks(self.dpi))


def print_scale(map_grid: MapGrid, dpi: float, hex_size_in: float = DEFAULT_HEX_SIZE_IN) -> float:
    """The scale at which hexes are ``hex_size_in`` inches across the flats
    at ``dpi`` dots per inch."""
    if dpi <= 0 or hex_size_in <= 0:
        raise VmodError("--dpi and --hex-size must be more than 0")
    dy: float = map_grid.grid.dy
    return dpi * hex_size_in / abs(dy)


# --------------------------------------------------------------------------
# terrain styles

def _terrain_style(scenario: M.Scenario) -> TerrainStyles:
    """terrain id → (fill, texture kind, elevation)."""
    out: TerrainStyles = {}
    for tid, tt in scenario.map.terrain_types.items():
        kind = texture_kind(tid, tt.name, tt.symbol)
        elev = tt.elevation or 0
        if tt.fill:
            fill = parse_colour(tt.fill)
        elif elev > 0:
            fill = parse_colour(_HILL_FILLS[min(elev, len(_HILL_FILLS)) - 1])
        else:
            fill = parse_colour(DEFAULT_FILLS.get(kind, DEFAULT_FILLS[None]))
        if kind is not None and elev > 0 and texture_kind("", "", tt.symbol) is None and not tt.symbol:
            kind = None   # a "hill" is shown by its contour, not by a texture
        out[tid] = (fill, kind, elev)
    return out


_FEATURE_WIDTH = {"river": 0.08, "stream": 0.045, "road": 0.065, "track": 0.045, "railway": 0.05,
                  "wall": 0.06, "cliff": 0.07, "line": 0.05, "bridge": 0.04}
_FEATURE_COLOUR = {"river": "#3a72c8", "stream": "#5b8fd6", "road": "#8a5a2b", "track": "#7a5a34",
                   "railway": "#2b2b2b", "wall": "#6e6a62", "cliff": "#6b4a2a", "line": "#404040",
                   "bridge": "#3a3a3a"}


def _feature_style(htype: M.HexsideType, size: float) -> tuple[str, Colour, float]:
    kind = hexside_kind(htype.id, htype.name, htype.symbol, htype.drawn_as)
    colour = parse_colour(htype.stroke or _FEATURE_COLOUR[kind])
    width = float(htype.width) if htype.width else _FEATURE_WIDTH[kind] * size
    return kind, colour, width


# --------------------------------------------------------------------------
# the board

def board_drawing(scenario: M.Scenario, options: BoardOptions | None = None) -> BoardDrawing:
    """Record the board of ``scenario`` (nothing is rasterised yet)."""
    opts = options or BoardOptions()
    hmap = scenario.map
    mgrid = hmap.grid
    geo = HexGeometry.build(mgrid.grid, mgrid.hexes)
    size = abs(mgrid.grid.dy)                 # across flats, board pixels
    board_w, board_h = (int(hmap.size[0]), int(hmap.size[1]))
    strip = _SheetLayout(scenario, geo, board_w) if opts.sheet else None
    total = (board_w, board_h + (strip.height if strip else 0))
    canvas = Canvas(total, scale=opts.scale, background=PAPER, supersample=opts.supersample)
    drawing = BoardDrawing(canvas, opts.scale, opts.dpi, (board_w, board_h), total, geo)
    styles = _terrain_style(scenario)

    index = drawing.boxes = BoxIndex(size)
    fills = {label: styles[hmap.terrain[label]][0] for label in geo.polygons}
    half_y = (2.0 * abs(mgrid.grid.dx) / 3.0) if geo.sideways else size / 2.0
    # what may not move comes first: the hex numbers (they have priority),
    # the centre dots, the hexside features and the bridges (sized to stay
    # clear of the numbers); then the place names and the objective markers
    # take the first free place; the texture symbols go round all of them
    defaults = BoxIndex(size)
    if opts.hex_numbers:
        for label, (cx, cy) in geo.centres.items():
            defaults.add("number", label, _number_box(canvas, size, (cx, cy - 0.70 * half_y), label))
    features = _plan_hexside_features(drawing, scenario, geo, styles, size, defaults)
    numbers = _place_numbers(canvas, geo, mgrid.grid, index, size, half_y) if opts.hex_numbers else []
    dot_r = 0.026 * size + 0.008 * size
    if opts.centre_dots:
        for label, (cx, cy) in geo.centres.items():
            index.add("dot", label, (cx - dot_r, cy - dot_r, cx + dot_r, cy + dot_r))
    labels = _place_labels(canvas, drawing, scenario, geo, size) if opts.place_names else []
    objectives = _place_objectives(canvas, drawing, scenario, geo, size, labels) if opts.objectives else []
    if opts.place_names:
        drawing.notes[:0] = _label_notes(drawing, scenario, labels)
    drawing.warnings = located_warnings(scenario.path, drawing.notes)
    band_h = _plan_tracks(canvas, drawing, scenario, strip) if strip is not None else 0.0

    _draw_frame(canvas, geo, (board_w, board_h), size)
    _draw_terrain(canvas, geo, hmap, styles, index, size)
    # hill contours where the ground falls away, with hachures
    _draw_contours(canvas, geo, hmap, styles, size)
    # the hex grid: every side once
    grid_w = max(0.7, 0.016 * size)
    for (p, q) in geo.sides().values():
        canvas.line([p, q], GRID_INK, grid_w)
    _draw_hexside_features(canvas, features, size)
    # the map edge
    for loop in geo.boundary_loops():
        canvas.line(loop, INK, max(1.2, 0.035 * size))
    _draw_hex_marks(canvas, drawing, opts, geo, fills, numbers, size)
    for centre, vp, marker_size in objectives:
        _objective(canvas, centre, marker_size, vp)
    for placed in drawing.labels:
        canvas.text(placed.at, placed.text, size=placed.size, fill=INK, style="condensed-bold",
                    anchor=placed.anchor, halo=(252, 250, 242), halo_width=0.03 * size)
    for placed_track in drawing.tracks:
        draw_track(canvas, placed_track, size)
    if strip is not None:
        strip.draw(canvas, board_h + band_h, styles)
    return drawing


def _plan_tracks(canvas: Canvas, drawing: BoardDrawing, scenario: M.Scenario, strip: _SheetLayout) -> float:
    """Where the print map's tracks go: each on the map where it is clear of
    every hex and mark, else in a band under the map (the canvas grows by
    it); returns the band's height."""
    board_w, board_h = drawing.board_size
    size = drawing.geometry.across_flats()
    on_map, rest = place_on_map(canvas, print_tracks(scenario), drawing.geometry, drawing.boxes,
                                drawing.board_size, size)
    band = TrackBand(canvas, rest, size, board_w)
    drawing.tracks = on_map + band.at(board_h, drawing.boxes)
    if band.height:
        drawing.size = (drawing.size[0], board_h + band.height + strip.height)
        canvas.grow(drawing.size[1])
    return band.height


def _number_box(canvas: Canvas, size: float, at: Point, label: str, factor: float = 1.0) -> Box:
    """The box of hex number ``label`` drawn at ``at``, with its halo."""
    return canvas.text_box(at, label, size=0.15 * size * factor, style="condensed", anchor="mm",
                           halo_width=0.024 * size)


def _place_numbers(canvas: Canvas, geo: HexGeometry, grid: HexGrid, index: BoxIndex, size: float,
                   half_y: float) -> list[tuple[str, Point, float]]:
    """Where each hex number goes (label, anchor, type size factor): at the
    top of its hex unless a bridge (which cannot move) is there."""
    numbers: list[tuple[str, Point, float]] = []
    for label, (cx, cy) in geo.centres.items():
        for sx, sy, factor in _NUMBER_SHIFTS:
            anchor = (cx + sx * size, cy - 0.70 * half_y + sy * half_y)
            if (sx or sy) and grid.location_name(int(round(anchor[0])), int(round(anchor[1]))) != label:
                continue                  # a number stays in its own hex, as VASSAL names it
            box = _number_box(canvas, size, anchor, label, factor)
            if not index.blocked(box, frozenset({"bridge"})):
                break
        else:
            anchor, factor = (cx, cy - 0.70 * half_y), 1.0
            box = _number_box(canvas, size, anchor, label)
        numbers.append((label, anchor, factor))
        index.add("number", label, box)
    return numbers


def _draw_terrain(canvas: Canvas, geo: HexGeometry, hmap: M.HexMap, styles: TerrainStyles, index: BoxIndex,
                  size: float) -> None:
    """The hex fills, then each hex's texture symbols round the boxes
    already taken (the symbols' boxes are recorded)."""
    for label, poly in geo.polygons.items():
        fill, _kind, _elev = styles[hmap.terrain[label]]
        # the ideal hexagon around VASSAL's centre, grown by a hair so that
        # sub-pixel misses between neighbours never show the paper
        canvas.polygon(poly, fill=fill, outline=fill, width=0.8)

    symbols: list[Box] = []
    for label, poly in geo.polygons.items():
        fill, kind, _elev = styles[hmap.terrain[label]]
        if kind is None:
            continue
        cx, cy = geo.centres[label]
        # what this hex's symbols must keep out of: the boxes near the hex
        near = [d.box for d in index.hits(union([(x - 0.1 * size, y - 0.1 * size, x + 0.1 * size, y + 0.1 * size)
                                                 for x, y in poly]), KEEP_OUT_KINDS)]

        def keep_out(box: Box, near: list[Box] = near) -> bool:
            for k in near:
                if box[0] < k[2] and k[0] < box[2] and box[1] < k[3] and k[1] < box[3]:
                    return True
            return False

        del symbols[:]
        draw_texture(canvas, kind, Hex(cx, cy, size, tuple(poly), geo.sideways), fill, seeded(label),
                     keep_out=keep_out, record=symbols)
        for box in symbols:
            index.add("symbol", label, box)


def _draw_hex_marks(canvas: Canvas, drawing: BoardDrawing, opts: BoardOptions, geo: HexGeometry,
                    fills: dict[str, Colour], numbers: list[tuple[str, Point, float]], size: float) -> None:
    """Centre dots and hex numbers (recorded in ``drawing``)."""
    for label, (cx, cy) in geo.centres.items():
        drawing.centres[label] = (cx, cy)
        if opts.centre_dots:
            canvas.circle((cx, cy), 0.026 * size, fill=INK, outline=lighten(fills[label], 0.6),
                          width=0.008 * size)
    for label, anchor, factor in numbers:
        canvas.text(anchor, label, size=0.15 * size * factor, fill=(52, 50, 46), style="condensed",
                    anchor="mm", halo=lighten(fills[label], 0.3), halo_width=0.024 * size)
        drawing.numbers[label] = (label, anchor)


def render_board(scenario: M.Scenario, *, scale: float = 1.0, **options: Any) -> Image.Image:
    """The board as a PIL image (``scale`` 1 = the VASSAL board)."""
    return board_drawing(scenario, BoardOptions(scale=scale, **options)).image()


def write_board(scenario: M.Scenario, path: PathLike, *, scale: float = 1.0, **options: Any) -> BoardDrawing:
    """Write the board as PNG (streamed band by band: any size fits in
    memory).  Refuses to overwrite the scenario or its board image."""
    inputs = [p for p in (scenario.path, scenario.map.board_image) if p]
    refuse_overwrite(path, *inputs)
    drawing = board_drawing(scenario, BoardOptions(scale=scale, **options))
    drawing.write(path)
    return drawing


def module_board_image(scenario: M.Scenario) -> Image.Image:
    """The board image a module gets: the scenario's own ``board.image``
    (which must have the grid's board size) or the rendered board."""
    return module_board(scenario)[0]


def module_board(scenario: M.Scenario) -> tuple[Image.Image, BoardDrawing | None]:
    """The board image a module gets (:func:`module_board_image`) and the
    drawing it was rendered from, with its warnings (None: the scenario's
    own image)."""
    hmap = scenario.map
    if hmap.board_image is None:
        drawing = board_drawing(scenario)
        return drawing.image(), drawing
    image = read_image(hmap.board_image, "the board image")
    if image.size != tuple(hmap.size):
        raise VmodError(f"the board image is {image.size[0]}x{image.size[1]} pixels but the map grid "
                        f"needs {hmap.size[0]}x{hmap.size[1]}; check it with 'vmodtool grid-check' "
                        "and set map.size or the grid's margin/origin", file=hmap.board_image)
    return image, None


# --------------------------------------------------------------------------
# pieces of the board

def _draw_frame(canvas: Canvas, geo: HexGeometry, board: tuple[int, int], size: float) -> None:
    x0, y0, x1, y1 = geo.bounds()
    gap = min(x0, y0, board[0] - x1, board[1] - y1)
    if gap < 6:
        return
    pad = min(gap * 0.45, 0.2 * size)
    canvas.rectangle((x0 - pad, y0 - pad, x1 + pad, y1 + pad), fill=(238, 232, 214),
                     outline=INK, width=max(1.0, 0.03 * size))
    inner = pad * 0.55
    if inner > 2:
        canvas.rectangle((x0 - inner, y0 - inner, x1 + inner, y1 + inner),
                         outline=darken((238, 232, 214), 0.35), width=max(0.5, 0.008 * size))


def _draw_contours(canvas: Canvas, geo: HexGeometry, hmap: M.HexMap, styles: TerrainStyles,
                   size: float) -> None:
    sides = geo.sides()
    for label in geo.polygons:
        fill, _kind, elev = styles[hmap.terrain[label]]
        if elev <= 0:
            continue
        cx, cy = geo.centres[label]
        ink = darken(mix(fill, (110, 70, 30), 0.4), 0.35)
        for other in geo.neighbours[label]:
            if styles[hmap.terrain[other]][2] >= elev:
                continue
            p, q = sides[frozenset((label, other))]
            canvas.line([p, q], ink, max(0.8, 0.026 * size), round_caps=True)
            # hachures: short ticks from the contour up the slope
            mx, my = (p[0] + q[0]) / 2, (p[1] + q[1]) / 2
            ux, uy = cx - mx, cy - my
            d = math.hypot(ux, uy) or 1.0
            ux, uy = ux / d, uy / d
            for t in (0.2, 0.4, 0.6, 0.8):
                bx, by = p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t
                canvas.line([(bx, by), (bx + ux * 0.07 * size, by + uy * 0.07 * size)], ink,
                            max(0.5, 0.011 * size))


@dataclass
class _Features:
    """The hexside features of a board, worked out before anything is drawn."""

    along: list[tuple[str, Colour, float, tuple[Point, ...]]] = field(default_factory=list)
    across: list[tuple[str, Colour, float, tuple[Point, ...]]] = field(default_factory=list)
    #: colour, width, deck path, half-width of the deck, flares at (start, end)
    bridges: list[tuple[Colour, float, tuple[Point, ...], float, tuple[bool, bool]]] = field(default_factory=list)


#: half-lengths (hex sizes) a bridge over a hexside tries, longest first,
#: until it is clear of every hex number
_BRIDGE_HALF = (0.19, 0.16, 0.13, 0.11, 0.095, 0.08, 0.07, 0.06, 0.05)
#: where a hex number goes when a bridge is in its place: shifts across (hex
#: sizes) and down (half-heights: 1.5 puts it at the foot of the hex), and
#: a type size (first a hair higher and smaller, so it stays at the top)
_NUMBER_SHIFTS = ((0.0, 0.0, 1.0), (0.0, -0.1, 0.85), (0.0, 0.2, 1.0), (0.21, 0.0, 1.0), (-0.21, 0.0, 1.0),
                  (0.0, 0.28, 1.0), (0.0, -0.14, 0.75), (0.0, 1.5, 1.0), (0.2, 1.5, 1.0), (-0.2, 1.5, 1.0),
                  (0.0, 1.2, 1.0))
_BRIDGE_COLOUR = parse_colour(_FEATURE_COLOUR["bridge"])
_CROSSING = ("road", "track", "railway")


def _bridge_boxes(path: Sequence[Point], half: float, width: float, size: float,
                  flares: tuple[bool, bool]) -> list[Box]:
    """Boxes covering a bridge as :func:`_bridge_path` draws it: its deck and
    railings in pieces of at most a tenth of a hex (a diagonal bridge's one
    box would cover half its hex)."""
    rails = _rails(path, half, size, flares)
    pad = width / 2 + 1.0
    out: list[Box] = []
    step = 0.1 * size
    for line in rails:
        for a, b in zip(line, line[1:], strict=False):
            n = max(1, int(math.hypot(b[0] - a[0], b[1] - a[1]) // step) + 1)
            for k in range(n):
                x0, y0 = a[0] + (b[0] - a[0]) * k / n, a[1] + (b[1] - a[1]) * k / n
                x1, y1 = a[0] + (b[0] - a[0]) * (k + 1) / n, a[1] + (b[1] - a[1]) * (k + 1) / n
                out.append((min(x0, x1) - pad, min(y0, y1) - pad, max(x0, x1) + pad, max(y0, y1) + pad))
    # the deck between the railings
    for a, b in zip(path, path[1:], strict=False):
        n = max(1, int(math.hypot(b[0] - a[0], b[1] - a[1]) // step) + 1)
        for k in range(n + 1):
            x, y = a[0] + (b[0] - a[0]) * k / n, a[1] + (b[1] - a[1]) * k / n
            out.append((x - half * 0.7, y - half * 0.7, x + half * 0.7, y + half * 0.7))
    return out


def _plan_hexside_features(drawing: BoardDrawing, scenario: M.Scenario, geo: HexGeometry, styles: TerrainStyles,
                           size: float, numbers: BoxIndex) -> _Features:
    """Where every hexside feature and bridge goes; the boxes of the
    bridges and of the features along hexsides are recorded."""
    out = _Features()
    rivers = _plan_hexside_lines(drawing, scenario.map, geo, size, out)
    road_w = max([w for _k, _c, w, _s in out.across] + [0.0])
    over_rivers, ends = _added_bridges(scenario, styles)
    _plan_side_bridges(drawing, scenario.map, geo, size, numbers, out, rivers, road_w, over_rivers)
    water = {label for label in geo.polygons if styles[scenario.map.terrain[label]][1] == WATER}
    _plan_water_bridges(drawing, geo, size, out, rivers, road_w, water, ends)
    return out


def _deck_half(width: float, road_w: float, size: float) -> float:
    """Half the deck of a bridge of railing ``width`` over roads ``road_w`` wide."""
    return max(0.08 * size, road_w * 0.75 + width * 1.2)


def _plan_hexside_lines(drawing: BoardDrawing, hmap: M.HexMap, geo: HexGeometry, size: float,
                        out: _Features) -> dict[frozenset[str], float]:
    """The features along hexsides and across them (centre lines), each
    type's hexsides joined into lines drawn as smooth curves
    (:mod:`vmodtool.render.board_curves`); returns the half-width of the
    river or stream on each hexside that has one."""
    rivers: dict[frozenset[str], float] = {}          # hexside → half-width of its river or stream
    by_type: dict[str, list[tuple[str, str]]] = {}
    for hs in hmap.hexsides:
        htype = hmap.hexside_types[hs.type]
        kind, colour, width = _feature_style(htype, size)
        if not geo.adjacent(hs.a, hs.b):      # the loader rejects these; guard the API
            raise VmodError(f"hexes {hs.a} and {hs.b} are not adjacent, so the {hs.type} "
                            "between them has no hexside to be drawn on")
        ca, cb = geo.centres[hs.a], geo.centres[hs.b]
        if kind == "bridge":
            drawing.hexsides.append(DrawnHexside(hs.type, kind, hs.a, hs.b, htype.drawn_as,
                                                 _bridge_span(ca, cb, 0.19 * size)))
            continue
        if htype.drawn_as == "centre_line":
            seg = ((float(ca[0]), float(ca[1])), (float(cb[0]), float(cb[1])))
            drawing.hexsides.append(DrawnHexside(hs.type, kind, hs.a, hs.b, "centre_line", seg))
        else:
            drawing.hexsides.append(DrawnHexside(hs.type, kind, hs.a, hs.b, "hexside",
                                                 geo.shared_corners(hs.a, hs.b)))
            if kind in ("river", "stream"):
                side = frozenset((hs.a, hs.b))
                rivers[side] = max(rivers.get(side, 0.0), (width + max(0.8, 0.018 * size)) / 2 + 0.5)
        sides = by_type.setdefault(hs.type, [])
        if (hs.a, hs.b) not in sides and (hs.b, hs.a) not in sides:
            sides.append((hs.a, hs.b))
    for type_id, sides in by_type.items():
        htype = hmap.hexside_types[type_id]
        kind, colour, width = _feature_style(htype, size)
        across = htype.drawn_as == "centre_line"
        for line in (_centre_lines(geo, type_id, kind, sides) if across else
                     _side_lines(geo, type_id, kind, sides)):
            drawing.lines.append(line)
            pad = (width + max(0.8, 0.018 * size)) / 2 + 0.5
            if across:
                out.across.append((kind, colour, width, line.points))
            elif kind in _CURVED:
                out.along.append((kind, colour, width, line.points))
                _line_boxes(drawing.boxes, line, pad, 0.25 * size)
            else:                             # a wall: side by side, as typed
                for a, b in line.sides:
                    seg = geo.shared_corners(a, b)
                    out.along.append((kind, colour, width, seg))
                    _side_boxes(drawing.boxes, f"{a}/{b}", seg, pad)
    return rivers


def _side_boxes(index: BoxIndex, owner: str, seg: tuple[Point, Point], pad: float) -> None:
    """The boxes of a feature along one hexside: the side in four pieces (a
    diagonal's one box is not the side)."""
    (px, py), (qx, qy) = seg
    for k in range(4):
        x0, y0 = px + (qx - px) * k / 4, py + (qy - py) * k / 4
        x1, y1 = px + (qx - px) * (k + 1) / 4, py + (qy - py) * (k + 1) / 4
        index.add("hexside", owner, (min(x0, x1) - pad, min(y0, y1) - pad, max(x0, x1) + pad, max(y0, y1) + pad))


def _centre_lines(geo: HexGeometry, type_id: str, kind: str, sides: list[tuple[str, str]]) -> list[DrawnLine]:
    """A road's (or any centre line's) hexsides as lines from hex centre to
    hex centre, each drawn as a curve through the hexsides' midpoints."""
    out = []
    for hexes in chains(sides):
        closed = len(hexes) > 2 and hexes[0] == hexes[-1]
        points = [(float(geo.centres[h][0]), float(geo.centres[h][1])) for h in hexes]
        steps = tuple(zip(hexes, hexes[1:], strict=False))
        out.append(DrawnLine(type_id, kind, "centre_line", steps,
                             tuple(smooth_chain(points, closed=closed))))
    return out


#: the features along hexsides drawn as curves: water winds; a wall, a hedge
#: or a cliff keeps to its hexsides, corner to corner
_CURVED = frozenset({"river", "stream"})


def _side_lines(geo: HexGeometry, type_id: str, kind: str, sides: list[tuple[str, str]]) -> list[DrawnLine]:
    """A river's (or any feature along hexsides) hexsides as lines from
    corner to corner, a river's or stream's drawn as a curve through the
    hexsides' midpoints, a wall's along the sides themselves."""
    corner_of: dict[tuple[int, int], Point] = {}
    side_of: dict[frozenset[tuple[int, int]], tuple[str, str]] = {}
    edges = []
    for a, b in sides:
        keys = geo.side_corner_keys(a, b)
        for key, point in zip(keys, geo.shared_corners(a, b), strict=True):
            corner_of.setdefault(key, point)
        side_of[frozenset(keys)] = (a, b)
        edges.append(keys)
    out = []
    for corners in chains(edges):
        closed = len(corners) > 2 and corners[0] == corners[-1]
        steps = tuple(side_of[frozenset(pair)] for pair in zip(corners, corners[1:], strict=False))
        points = [corner_of[k] for k in corners]
        out.append(DrawnLine(type_id, kind, "hexside", steps,
                             tuple(smooth_chain(points, closed=closed) if kind in _CURVED else points)))
    return out


def _line_boxes(index: BoxIndex, line: DrawnLine, pad: float, step: float) -> None:
    """The boxes of a line along hexsides, in pieces of at most ``step``
    (a diagonal's one box would cover half a hex)."""
    owner = "/".join(line.sides[0]) if line.sides else line.type
    for (px, py), (qx, qy) in zip(line.points, line.points[1:], strict=False):
        n = max(1, int(math.hypot(qx - px, qy - py) // step) + 1)
        for k in range(n):
            x0, y0 = px + (qx - px) * k / n, py + (qy - py) * k / n
            x1, y1 = px + (qx - px) * (k + 1) / n, py + (qy - py) * (k + 1) / n
            index.add("hexside", owner, (min(x0, x1) - pad, min(y0, y1) - pad, max(x0, x1) + pad, max(y0, y1) + pad))


def _plan_side_bridges(drawing: BoardDrawing, hmap: M.HexMap, geo: HexGeometry, size: float, numbers: BoxIndex,
                       out: _Features, rivers: dict[frozenset[str], float], road_w: float,
                       over_rivers: list[tuple[str, str]]) -> None:
    """Bridges over hexsides: the scenario's, then one wherever a road
    crosses a river, each as long as it can be while clear of the numbers."""
    index = drawing.boxes
    spans: list[tuple[str, str, Colour, float, bool]] = []
    for hs in hmap.hexsides:
        htype = hmap.hexside_types[hs.type]
        kind, colour, width = _feature_style(htype, size)
        if kind == "bridge":
            spans.append((hs.a, hs.b, colour, width, True))
    for a, b in over_rivers:
        spans.append((a, b, _BRIDGE_COLOUR, _FEATURE_WIDTH["bridge"] * size, False))
    for a, b, colour, width, named in spans:
        ca, cb = geo.centres[a], geo.centres[b]
        half = _deck_half(width, road_w, size)
        least = rivers.get(frozenset((a, b)), 0.04 * size) + 0.015 * size
        p, q = _bridge_span(ca, cb, least)
        for h in _BRIDGE_HALF:
            length = max(h * size, least)
            p, q = _bridge_span(ca, cb, length)
            parts = _bridge_boxes((p, q), half, width, size, (True, True))
            if not numbers.blocked(union(parts)) or not any(numbers.blocked(box) for box in parts):
                break
        out.bridges.append((colour, width, (p, q), half, (True, True)))
        for box in _bridge_boxes((p, q), half, width, size, (True, True)):
            index.add("bridge", f"{a}/{b}", box)
        drawing.bridges.append(DrawnBridge("river", a, b, (p, q), half, named))
        if named:
            for k, drawn in enumerate(drawing.hexsides):
                if drawn.kind == "bridge" and {drawn.a, drawn.b} == {a, b}:
                    drawing.hexsides[k] = dataclasses.replace(drawn, points=(p, q))


def _plan_water_bridges(drawing: BoardDrawing, geo: HexGeometry, size: float, out: _Features,
                        rivers: dict[frozenset[str], float], road_w: float, water: set[str],
                        ends: dict[str, list[str]]) -> None:
    """Bridges through water hexes: the road from the bank to the centre."""
    index = drawing.boxes
    width = _FEATURE_WIDTH["bridge"] * size
    half = _deck_half(width, road_w, size)
    for w, others in ends.items():
        cw = geo.centres[w]
        centre = (float(cw[0]), float(cw[1]))
        pieces = [others] if len(others) == 2 else [[o] for o in others]
        for piece in pieces:
            path: list[Point] = []
            flares: list[bool] = []
            for i, other in enumerate(piece):
                co = geo.centres[other]
                mx, my = (cw[0] + co[0]) / 2.0, (cw[1] + co[1]) / 2.0
                if other not in water:         # onto the bank, past a river on that side
                    d = math.hypot(co[0] - cw[0], co[1] - cw[1]) or 1.0
                    t = min(0.45, (0.1 * size + rivers.get(frozenset((w, other)), 0.0)) / d)
                    mx, my = mx + (co[0] - cw[0]) * t, my + (co[1] - cw[1]) * t
                point = (mx, my)
                if i == 0:
                    path += [point, centre]
                else:
                    path.append(point)
                flares.append(other not in water)
            if len(piece) == 1:
                flares.append(False)
            else:                              # round the hex as the road does
                c0, c1 = geo.centres[piece[0]], geo.centres[piece[1]]
                bend = smooth_chain([(float(c0[0]), float(c0[1])), centre, (float(c1[0]), float(c1[1]))])
                path = [path[0], *bend[1:-1], path[-1]]
            box_path = tuple(path)
            flared = (flares[0], flares[-1])
            out.bridges.append((_BRIDGE_COLOUR, width, box_path, half, flared))
            for box in _bridge_boxes(box_path, half, width, size, flared):
                index.add("bridge", w, box)
            drawing.bridges.append(DrawnBridge("water", w, piece[-1], box_path, half, False))


def _added_bridges(scenario: M.Scenario, styles: TerrainStyles) -> tuple[list[tuple[str, str]], dict[str, list[str]]]:
    """The bridges the board adds by itself: the hexsides where a road,
    track or railway crosses a river or stream that no ``bridge`` hexside
    names (neither hex water), once each; and each water hex a road enters,
    with the hexes at the other ends of its road segments there."""
    hmap = scenario.map
    kinds = {tid: hexside_kind(ht.id, ht.name, ht.symbol, ht.drawn_as) for tid, ht in hmap.hexside_types.items()}
    named = {frozenset((hs.a, hs.b)) for hs in hmap.hexsides if kinds[hs.type] == "bridge"}
    rivers = {frozenset((hs.a, hs.b)) for hs in hmap.hexsides
              if kinds[hs.type] in ("river", "stream") and hmap.hexside_types[hs.type].drawn_as != "centre_line"}
    roads = [(hs.a, hs.b) for hs in hmap.hexsides
             if kinds[hs.type] in _CROSSING and hmap.hexside_types[hs.type].drawn_as == "centre_line"]
    water = {label for label, tid in hmap.terrain.items() if styles[tid][1] == WATER}
    over_rivers: list[tuple[str, str]] = []
    seen = set(named)
    for a, b in roads:
        side = frozenset((a, b))
        if side in rivers and side not in seen and a not in water and b not in water:
            seen.add(side)
            over_rivers.append((a, b))
    ends: dict[str, list[str]] = {}
    for a, b in roads:
        for w, other in ((a, b), (b, a)):
            if w in water:
                ends.setdefault(w, []).append(other)
    return over_rivers, ends


def _bridge_span(ca: tuple[int, int], cb: tuple[int, int], half: float) -> tuple[Point, Point]:
    """The two ends of a bridge of half-length ``half`` across the middle
    of the side between the hexes centred at ``ca`` and ``cb``."""
    mx, my = (ca[0] + cb[0]) / 2.0, (ca[1] + cb[1]) / 2.0
    ux, uy = cb[0] - ca[0], cb[1] - ca[1]
    d = math.hypot(ux, uy) or 1.0
    return (mx - ux / d * half, my - uy / d * half), (mx + ux / d * half, my + uy / d * half)


def _draw_hexside_features(canvas: Canvas, features: _Features, size: float) -> None:
    # rivers, walls …: casing under every segment, then the cores, so that
    # consecutive segments join cleanly
    for layer in ("casing", "core", "detail"):
        for kind, colour, width, seg in features.along:
            _stroke(canvas, kind, colour, width, seg, layer, size)
    for colour, width, path, half, flares in features.bridges:
        _bridge_path(canvas, colour, width, path, half, size, flares)
    for layer in ("casing", "core", "detail"):
        for kind, colour, width, seg in features.across:
            _stroke(canvas, kind, colour, width, seg, layer, size)


def _place_objectives(canvas: Canvas, drawing: BoardDrawing, scenario: M.Scenario, geo: HexGeometry,
                      size: float, labels: list[Drawn]) -> list[tuple[Point, float | None, float]]:
    """Each objective star (and its VP figure), all of one size (a star
    never shrinks to fit), at the first place beside its hex centre that
    is clear of numbers, place names, dots, bridges, rivers and other
    markers; else at least of the texts and bridges; else where the place
    names in its way can move aside, unabbreviated and as large as they can
    stay (``labels``, the records of the names, follow them); else with the
    star over a bridge (its VP figure still clear of it); else clear of the
    other markers and the hex numbers only, reported in
    ``drawing.warnings``."""
    index = drawing.boxes
    avoid = frozenset({"number", "label", "dot", "bridge", "hexside", "objective", "vp"})
    out: list[tuple[Point, float | None, float]] = []
    preferred = ((0.25, -0.19), (-0.3, -0.19), (0.25, 0.19), (-0.3, 0.19), (0.3, 0.0), (-0.36, 0.0),
                 (0.2, 0.32), (-0.26, 0.32), (0.0, 0.36), (0.34, -0.08), (-0.05, -0.33))
    # then anywhere in the hex, nearest the usual place first
    grid = sorted(((a / 10, b / 10) for a in range(-4, 5) for b in range(-4, 5)),
                  key=lambda p: (p[0] - 0.25) ** 2 + (p[1] + 0.19) ** 2)
    spots = preferred + tuple(grid)
    for k, obj in enumerate(scenario.map.objectives):
        cx, cy = geo.centres[obj.hex]
        places = []
        for a, b in spots:
            centre = (cx + a * size, cy + b * size)
            star_box, vp_box = _objective_boxes(canvas, centre, size, obj.vp)
            places.append((centre, star_box, vp_box, union([star_box] + ([vp_box] if vp_box else []))))
        chosen = next((p for kinds in (avoid, _HARD) for p in places if not index.blocked(p[3], kinds)), None)
        # the names in the way moved aside; then the star over a bridge (its VP figure never)
        for star_kinds in (_HARD, _TEXTS):
            if chosen is None:
                chosen = _objective_moving_labels(canvas, drawing, scenario, geo, size, labels, obj.hex, places,
                                                  star_kinds)
        if chosen is None:
            chosen = next((p for kinds in (_MARKS, _NUMBER) for p in places if not index.blocked(p[3], kinds)),
                          places[0])
            what = sorted({f"{d.kind} {d.owner}" for d in index.hits(chosen[3], _HARD)})
            drawing.notes.append(PlacementWarning(("map", "objectives", k), (
                f"the objective of hex {obj.hex} finds no free place in its hex (its marker covers "
                f"{', '.join(what)}); move a place name or an objective to another hex")))
        centre, star_box, vp_box, _whole = chosen
        index.add("objective", obj.hex, star_box)
        if vp_box is not None:
            index.add("vp", obj.hex, vp_box)
        out.append((centre, obj.vp, size))
    return out


#: an objective's place: the star's centre, its box, the VP figure's box, both boxes' union
_Spot = tuple[Point, Box, Box | None, Box]


def _objective_moving_labels(canvas: Canvas, drawing: BoardDrawing, scenario: M.Scenario, geo: HexGeometry,
                             size: float, labels: list[Drawn], hex_label: str, places: list[_Spot],
                             star_kinds: frozenset[str]) -> _Spot | None:
    """The first of ``places`` for an objective marker whose star meets
    nothing of ``star_kinds`` and its VP figure nothing of :data:`_HARD`
    but place names that can all move elsewhere, in full and clear,
    preferring the place that leaves them largest; those names are moved
    (``drawing.labels`` and their records in ``labels``).  None when there
    is no such place."""
    index = drawing.boxes
    best: tuple[float, _Spot, list[tuple[int, Placed]]] | None = None
    for place in places:
        centre, star_box, vp_box, whole = place
        in_way = index.hits(star_box, star_kinds) + (index.hits(vp_box, _HARD) if vp_box else [])
        if not in_way:
            return place
        if any(d.kind != "label" for d in in_way):
            continue
        moving = sorted(i for i, record in enumerate(labels) if any(record is d for d in in_way))
        marks = [Drawn("objective", hex_label, star_box)] + ([Drawn("vp", hex_label, vp_box)] if vp_box else [])
        trial = Trial(index, [labels[i] for i in moving], marks)
        moved: list[tuple[int, Placed]] = []
        for i in moving:
            placed = _place_label(canvas, drawing, trial, geo, size, scenario.map.labels[i])
            if not placed.clear or placed.text != scenario.map.labels[i].text:
                break
            moved.append((i, placed))
            trial.added.append(Drawn("label", scenario.map.labels[i].hex, placed.box))
        else:
            least = min(p.size for _i, p in moved)
            if best is None or least > best[0]:
                best = (least, place, moved)
            if least >= 0.15 * size - 1e-9:       # the names keep their size: no better place
                break
    if best is None:
        return None
    _least, place, moved = best
    index.discard([labels[i] for i, _p in moved])
    for i, placed in moved:
        drawing.labels[i] = placed
        labels[i] = index.add("label", scenario.map.labels[i].hex, placed.box)
    return place


def _objective_boxes(canvas: Canvas, centre: Point, size: float, vp: float | None) -> tuple[Box, Box | None]:
    r = 0.1 * size + 0.012 * size
    star_box = (centre[0] - r, centre[1] - r, centre[0] + r, centre[1] + r)
    if vp is None:
        return star_box, None
    vp_box = canvas.text_box((centre[0] + 0.1 * size, centre[1] - 0.07 * size), f"{vp:g}", size=0.12 * size,
                             style="bold", anchor="lm", halo_width=0.015 * size)
    return star_box, vp_box


#: what a text or marker never covers
_HARD = frozenset({"number", "label", "vp", "objective", "bridge"})
_LABEL_AVOID = frozenset({"number", "label", "vp", "objective", "bridge", "dot", "hexside"})
#: the texts and markers an objective star never covers (a bridge it may, when nothing else is free)
_TEXTS = frozenset({"number", "label", "vp", "objective"})
#: what an objective marker that finds no free place still keeps clear of, else at least of the hex numbers
_MARKS = frozenset({"number", "vp", "objective"})
_NUMBER = frozenset({"number"})


def _place_label(canvas: Canvas, drawing: BoardDrawing, index: BoxIndex | Trial, geo: HexGeometry, size: float,
                 lab: M.MapLabel) -> Placed:
    """Where a place name goes: the first free candidate place around its
    hex (:func:`~vmodtool.render.board_layout.place_text`) clear of
    everything in full; else over a river line or a centre dot; else
    abbreviated, and smaller still; else (not ``clear``) its first place."""
    board = (0.0, 0.0, float(drawing.board_size[0]), float(drawing.board_size[1]))

    def measure(at: Point, text: str, tsize: float, anchor: str) -> Box:
        return canvas.text_box(at, text, size=tsize, style="condensed-bold", anchor=anchor,
                               halo_width=0.03 * size)

    centre = geo.centres[lab.hex]
    placed: Placed | None = None
    for avoid, abbreviate, sizes in ((_LABEL_AVOID, False, (1.0, 0.85, 0.72)),
                                     (_HARD, False, (1.0, 0.85, 0.72)),
                                     (_LABEL_AVOID, True, (1.0, 0.85, 0.72, 0.62)),
                                     (_HARD, True, (1.0, 0.85, 0.72, 0.62))):
        attempt = place_text(lab.text, centre, size, index, avoid, measure, 0.15 * size, inside=board,
                             sizes=sizes, abbreviate=abbreviate)
        if attempt.clear or avoid is _LABEL_AVOID and not abbreviate:
            placed = attempt
        if attempt.clear:
            break
    assert placed is not None
    return placed


def _place_labels(canvas: Canvas, drawing: BoardDrawing, scenario: M.Scenario, geo: HexGeometry,
                  size: float) -> list[Drawn]:
    """Each place name where :func:`_place_label` puts it, in the
    scenario's order; their records in the index."""
    records = []
    for lab in scenario.map.labels:
        placed = _place_label(canvas, drawing, drawing.boxes, geo, size, lab)
        drawing.labels.append(placed)
        records.append(drawing.boxes.add("label", lab.hex, placed.box))
    return records


def _label_notes(drawing: BoardDrawing, scenario: M.Scenario, records: list[Drawn]) -> list[PlacementWarning]:
    """The place names that found no free place, or only an abbreviation
    (``records``: their boxes in the index)."""
    out = []
    for i, (lab, placed) in enumerate(zip(scenario.map.labels, drawing.labels, strict=True)):
        if not placed.clear:
            what = sorted({f"{d.kind} {d.owner}" for d in drawing.boxes.hits(placed.box, _LABEL_AVOID)
                           if d is not records[i]})
            out.append(PlacementWarning(("map", "labels", i), (
                f"the label {lab.text!r} of hex {lab.hex} finds no free place on the board (it covers "
                f"{', '.join(what) or 'the map edge'}); shorten it or move it to another hex")))
        elif placed.text != lab.text:
            out.append(PlacementWarning(("map", "labels", i), (
                f"the label {lab.text!r} of hex {lab.hex} is printed as {placed.text!r} to stay clear of the "
                "hex numbers and features")))
    return out


def _stroke(canvas: Canvas, kind: str, colour: Colour, width: float, seg: Sequence[Point],
            layer: str, size: float) -> None:
    """One layer of a feature along the polyline ``seg``."""
    pts = list(seg)
    if kind in ("river", "stream"):
        if layer == "casing":
            canvas.line(pts, darken(colour, 0.35), width + max(0.8, 0.018 * size), round_caps=True)
        elif layer == "core":
            canvas.line(pts, colour, width, round_caps=True)
        elif kind == "river":
            canvas.line(pts, lighten(colour, 0.3), width * 0.25, round_caps=True)
    elif kind == "road":
        if layer == "casing":
            canvas.line(pts, darken(colour, 0.5), width + max(0.9, 0.02 * size), round_caps=True)
        elif layer == "core":
            canvas.line(pts, colour, width, round_caps=True)
        else:
            canvas.line(pts, lighten(colour, 0.45), width * 0.22, round_caps=True)
    elif kind == "track":
        if layer == "core":
            for dash in dashes(pts, 0.1 * size, 0.06 * size):
                canvas.line(dash, colour, width, round_caps=True)
    elif kind == "railway":
        if layer == "core":
            canvas.line(pts, colour, width * 0.4)
        elif layer == "detail":
            _sleepers(canvas, pts, colour, width, size)
    elif kind == "wall":
        if layer == "casing":
            canvas.line(pts, darken(colour, 0.45), width + max(0.8, 0.016 * size), round_caps=True)
        elif layer == "core":
            canvas.line(pts, colour, width, round_caps=True)
        else:
            for dash in dashes(pts, width * 0.7, width * 0.7):
                canvas.line(dash, lighten(colour, 0.35), width * 0.3)
    else:   # cliff, line
        if layer == "core":
            canvas.line(pts, colour, width, round_caps=True)


def _sleepers(canvas: Canvas, pts: Sequence[Point], colour: Colour, width: float, size: float) -> None:
    """A railway's sleepers, square to the line, evenly along it."""
    lengths = [math.hypot(b[0] - a[0], b[1] - a[1]) for a, b in zip(pts, pts[1:], strict=False)]
    total = sum(lengths)
    n = max(2, int(total / (0.09 * size)))
    gap = total / (n + 1)
    at, i, done = gap / 2, 0, 0.0
    while i < len(lengths) and at < total:
        if at > done + lengths[i]:
            done += lengths[i]
            i += 1
            continue
        (px, py), (qx, qy) = pts[i], pts[i + 1]
        d = lengths[i] or 1.0
        t = (at - done) / d
        x, y = px + (qx - px) * t, py + (qy - py) * t
        nx, ny = -(qy - py) / d * width * 0.8, (qx - px) / d * width * 0.8
        canvas.line([(x - nx, y - ny), (x + nx, y + ny)], colour, width * 0.28)
        at += gap


def _bridge(canvas: Canvas, colour: Colour, width: float, p: Point, q: Point, size: float,
            road_width: float = 0.0) -> None:
    half = max(0.08 * size, road_width * 0.75 + width * 1.2)
    _bridge_path(canvas, colour, width, (p, q), half, size, (True, True))


def _bridge_path(canvas: Canvas, colour: Colour, width: float, path: Sequence[Point], half: float, size: float,
                 flares: tuple[bool, bool]) -> None:
    """A bridge deck ``2 × half`` wide along ``path`` with a railing on each
    side, flared outwards at the ends in ``flares`` (its banks)."""
    pts = list(path)
    if len(pts) < 2:
        return
    canvas.line(pts, (236, 230, 214), 2 * half)
    for rail in _rails(pts, half, size, flares):
        canvas.line(rail, colour, width, round_caps=True)


def _rails(path: Sequence[Point], half: float, size: float, flares: tuple[bool, bool]) -> list[list[Point]]:
    """The two railings of a bridge along ``path``, ``half`` off its centre
    line (joints mitred), flared outwards at the ends in ``flares``."""
    pts = list(path)
    length = sum(math.hypot(b[0] - a[0], b[1] - a[1]) for a, b in zip(pts, pts[1:], strict=False))
    rails: list[list[Point]] = []
    normals = []
    for a, b in zip(pts, pts[1:], strict=False):
        d = math.hypot(b[0] - a[0], b[1] - a[1]) or 1.0
        normals.append((-(b[1] - a[1]) / d, (b[0] - a[0]) / d))
    flare = min(0.06 * size, 0.35 * length)
    for sgn in (1, -1):
        rail: list[Point] = []
        for i, (x, y) in enumerate(pts):
            if i == 0:
                nx, ny = normals[0]
            elif i == len(pts) - 1:
                nx, ny = normals[-1]
            else:                                   # mitred joint
                (ax, ay), (bx, by) = normals[i - 1], normals[i]
                mx, my = ax + bx, ay + by
                m = math.hypot(mx, my) or 1.0
                cos = max(0.3, (mx * ax + my * ay) / m)
                nx, ny = mx / m / cos, my / m / cos
            rail.append((x + sgn * nx * half, y + sgn * ny * half))
        if flares[0]:
            (ux, uy), (nx, ny) = _direction(pts[0], pts[1]), normals[0]
            a = rail[0]
            rail.insert(0, (a[0] - ux * flare + sgn * nx * flare, a[1] - uy * flare + sgn * ny * flare))
        if flares[1]:
            (ux, uy), (nx, ny) = _direction(pts[-2], pts[-1]), normals[-1]
            b = rail[-1]
            rail.append((b[0] + ux * flare + sgn * nx * flare, b[1] + uy * flare + sgn * ny * flare))
        rails.append(rail)
    return rails


def _direction(a: Point, b: Point) -> Point:
    d = math.hypot(b[0] - a[0], b[1] - a[1]) or 1.0
    return (b[0] - a[0]) / d, (b[1] - a[1]) / d


def _objective(canvas: Canvas, centre: Point, size: float, vp: float | None) -> None:
    canvas.polygon(star(centre, 0.1 * size), fill=OBJECTIVE_RED, outline=(255, 250, 240),
                   width=0.012 * size)
    if vp is not None:
        text = f"{vp:g}"
        canvas.text((centre[0] + 0.1 * size, centre[1] - 0.07 * size), text, size=0.12 * size,
                    fill=OBJECTIVE_RED, style="bold", anchor="lm", halo=(255, 250, 240),
                    halo_width=0.015 * size)


# --------------------------------------------------------------------------
# title cartouche and terrain key

@dataclass
class _KeyEntry:
    """One entry of the terrain key under the map: what kind of swatch it
    shows, its caption and the terrain or hexside type it stands for."""

    kind: str                 # terrain | hexside | bridge (one the board adds) | objective
    text: str
    ref: str = ""             # the terrain or hexside type id


class _SheetLayout:
    """The title cartouche and terrain key, laid out for a given width
    (board pixels), drawn under the map at any ``top``."""

    def __init__(self, scenario: M.Scenario, geo: HexGeometry, width: float, *,
                 columns: int | None = None) -> None:
        self.scenario = scenario
        self.geo = geo
        self.unit = abs(geo.grid.dy)
        u = self.unit
        self.width = width
        self.entries = _key_entries(scenario)
        probe = Canvas((10, 10))
        self.text_w = max([probe.text_size(e.text, size=0.2 * u)[0] for e in self.entries] + [u])
        self.cell_w = 1.15 * u + self.text_w + 0.35 * u
        self.cell_h = 0.95 * u
        self.pad = 0.35 * u
        self.title_lines = _title_lines(scenario)
        tw = max(probe.text_size(t, size=sz * u, style=st)[0] for t, sz, st in self.title_lines)
        self.cart_w = tw + 0.9 * u
        self.cart_h = sum(sz for _t, sz, _s in self.title_lines) * u * 1.45 + 0.6 * u
        avail = width - 2 * self.pad
        side_by_side = avail - self.cart_w - self.pad >= self.cell_w * 2 and columns is None
        if columns is None:
            key_w = avail - (self.cart_w + self.pad if side_by_side else 0)
            columns = max(1, int(key_w // self.cell_w))
        self.columns = max(1, min(columns, len(self.entries)))
        self.rows = -(-len(self.entries) // self.columns)
        key_h = self.rows * self.cell_h
        self.side_by_side = side_by_side
        if side_by_side:
            self.height = max(self.cart_h, key_h + 0.3 * u) + 2 * self.pad
        else:
            self.height = self.cart_h + self.pad + key_h + 0.3 * u + 2 * self.pad

    def draw(self, canvas: Canvas, top: float, styles: TerrainStyles) -> None:
        u = self.unit
        x = self.pad
        y = top + self.pad
        # cartouche: double frame, title lines centred
        cw = self.cart_w if self.side_by_side else self.width - 2 * self.pad
        box = (x, y, x + cw, y + self.cart_h)
        canvas.rectangle(box, fill=(252, 249, 240), outline=INK, width=0.04 * u)
        inset = 0.09 * u
        canvas.rectangle((box[0] + inset, box[1] + inset, box[2] - inset, box[3] - inset),
                         outline=INK, width=0.012 * u)
        ty = y + 0.3 * u
        for text, sz, style in self.title_lines:
            h = sz * u * 1.45
            canvas.text(((box[0] + box[2]) / 2, ty + h / 2), text, size=sz * u, fill=INK,
                        style=style, anchor="mm")
            ty += h
        if self.side_by_side:
            kx, ky = x + cw + self.pad, y
        else:
            kx, ky = x, y + self.cart_h + self.pad
        for i, entry in enumerate(self.entries):
            col, row = i % self.columns, i // self.columns
            ex, ey = kx + col * self.cell_w, ky + 0.15 * u + row * self.cell_h
            _draw_key_entry(canvas, entry, (ex, ey), u, styles, self.scenario)


def _title_lines(scenario: M.Scenario) -> list[tuple[str, float, str]]:
    game = scenario.game
    lines = [(game.title, 0.34, "bold")]
    if scenario.map.name and scenario.map.name != game.title:
        lines.append((scenario.map.name, 0.24, "regular"))
    scale = game.scale or {}
    facts = []
    if scale.get("hex"):
        facts.append(f"1 hex = {scale['hex']}")
    if scale.get("turn"):
        facts.append(f"1 turn = {scale['turn']}")
    if facts:
        lines.append(("   ·   ".join(facts), 0.17, "condensed"))
    credit = " ".join(x for x in (game.designer, f"v{game.version}" if game.version else None) if x)
    if credit:
        lines.append((credit, 0.15, "condensed"))
    return lines


def _key_entries(scenario: M.Scenario) -> list[_KeyEntry]:
    hmap = scenario.map
    used = set(hmap.terrain.values())
    out = [_KeyEntry("terrain", tt.name + (f" ({tt.elevation})" if tt.elevation else ""), tid)
           for tid, tt in hmap.terrain_types.items() if tid in used]
    used_h = {h.type for h in hmap.hexsides}
    out += [_KeyEntry("hexside", ht.name, hid) for hid, ht in hmap.hexside_types.items()
            if hid in used_h]
    language = (scenario.game.language or "")[:2]
    over_rivers, through_water = _added_bridges(scenario, _terrain_style(scenario))
    named = any(hexside_kind(ht.id, ht.name, ht.symbol, ht.drawn_as) == "bridge"
                for hid, ht in hmap.hexside_types.items() if hid in used_h)
    if (over_rivers or through_water) and not named:
        # the bridges the board adds where a road crosses water, shown as a bridge hexside is
        out.append(_KeyEntry("bridge", _BRIDGE_WORD.get(language, "Bridge")))
    if hmap.objectives:
        out.append(_KeyEntry("objective", _OBJECTIVE_WORD.get(language, "Objective (VP)")))
    return out


_OBJECTIVE_WORD = {"ru": "Цель (ПО)", "fr": "Objectif (PV)", "de": "Ziel (SP)"}
_BRIDGE_WORD = {"ru": "Мост", "fr": "Pont", "de": "Brücke"}


def _draw_key_entry(canvas: Canvas, entry: _KeyEntry, at: Point, u: float, styles: TerrainStyles,
                    scenario: M.Scenario) -> None:
    x, y = at
    sw = 0.8 * u                                   # swatch: a small flat-top hex
    cx, cy = x + 0.15 * u + sw / 2, y + sw / 2
    r = sw / math.sqrt(3)
    corners = tuple((cx + r * math.cos(math.pi / 3 * k), cy + r * math.sin(math.pi / 3 * k))
                    for k in range(6))
    hmap = scenario.map
    if entry.kind == "terrain":
        fill, kind, elev = styles[entry.ref]
        canvas.polygon(corners, fill=fill)
        draw_texture(canvas, kind, Hex(cx, cy, sw * 1.05, corners), fill, seeded(str(entry.ref), "key"),
                     dense=0.8)
        if elev > 0:
            ink = darken(mix(fill, (110, 70, 30), 0.4), 0.35)
            canvas.polygon(corners, outline=ink, width=0.026 * u)
        canvas.polygon(corners, outline=GRID_INK, width=0.016 * u)
    else:
        canvas.polygon(corners, fill=parse_colour(DEFAULT_FILLS[None]), outline=GRID_INK,
                       width=0.016 * u)
        if entry.kind == "bridge":
            _key_bridge(canvas, _BRIDGE_COLOUR, _FEATURE_WIDTH["bridge"] * sw, (cx, cy), r, sw)
        elif entry.kind == "hexside":
            htype = hmap.hexside_types[entry.ref]
            kind, colour, width = _feature_style(htype, u)
            width *= sw / u
            if kind == "bridge":
                _key_bridge(canvas, colour, width, (cx, cy), r, sw)
            else:
                seg = ((cx - r * 0.8, cy + r * 0.25), (cx + r * 0.8, cy - r * 0.25))
                for layer in ("casing", "core", "detail"):
                    _stroke(canvas, kind, colour, width, seg, layer, sw)
        elif entry.kind == "objective":
            _objective(canvas, (cx, cy), sw * 1.6, None)
    canvas.text((x + 1.15 * u, cy), entry.text, size=0.2 * u, fill=INK, style="regular", anchor="lm")


def _key_bridge(canvas: Canvas, colour: Colour, width: float, centre: Point, r: float, sw: float) -> None:
    """A bridge in a key swatch: across a river, as on the board."""
    cx, cy = centre
    river = parse_colour(_FEATURE_COLOUR["river"])
    seg = ((cx, cy - r * 0.85), (cx, cy + r * 0.85))
    for layer in ("casing", "core"):
        _stroke(canvas, "river", river, _FEATURE_WIDTH["river"] * sw, seg, layer, sw)
    _bridge(canvas, colour, width, (cx - r * 0.55, cy), (cx + r * 0.55, cy), sw)


def render_key(scenario: M.Scenario, *, scale: float = 1.0, columns: int = 1,
               supersample: int | None = None) -> Image.Image:
    """The title cartouche and terrain key as a separate image (for a
    module's chart window or a rules sheet)."""
    return _key_canvas(scenario, scale, columns, supersample).render()


def write_key(scenario: M.Scenario, path: PathLike, *, scale: float = 1.0, columns: int = 2,
              dpi: float | None = None) -> None:
    refuse_overwrite(path, *[p for p in (scenario.path, scenario.map.board_image) if p])
    atomic_write(path, _key_canvas(scenario, scale, columns, None).png_chunks(dpi))


def _key_canvas(scenario: M.Scenario, scale: float, columns: int, supersample: int | None) -> Canvas:
    mgrid = scenario.map.grid
    geo = HexGeometry.build(mgrid.grid, {})
    probe = _SheetLayout(scenario, geo, 1e9, columns=columns)
    width = max(probe.cart_w, probe.columns * probe.cell_w) + 2 * probe.pad
    layout = _SheetLayout(scenario, geo, width, columns=columns)
    layout.side_by_side = False
    layout.height = layout.cart_h + layout.pad + layout.rows * layout.cell_h + 0.3 * layout.unit \
        + 2 * layout.pad
    canvas = Canvas((width, layout.height), scale=scale, background=PAPER, supersample=supersample)
    layout.draw(canvas, 0.0, _terrain_style(scenario))
    return canvas


# --------------------------------------------------------------------------
# grid check over a user's own map image

def grid_overlay_drawing(size: tuple[int, int], grid: HexGrid,
                         cells: Mapping[str, tuple[int, int]] | None = None, *,
                         colour: Colour = (220, 30, 30), numbers: bool = True) -> tuple[Canvas, HexGeometry]:
    """A transparent drawing of ``grid`` (hex outlines, centre crosses, hex
    numbers) for an image of ``size`` pixels.  ``cells`` label → raw
    (col, row) defaults to every hex whose centre is on the image."""
    if cells is None:
        cells = {}
        for label, (x, y) in grid.hex_centres(size[0], size[1]):
            cells[label] = grid.raw_column_row(x, y)
    geo = HexGeometry.build(grid, cells)
    canvas = Canvas(size, mode="RGBA", background=(0, 0, 0, 0), supersample=3)
    unit = abs(grid.dy)
    line = colour + (235,)
    halo = (255, 255, 255, 150)
    for (p, q) in geo.sides().values():
        canvas.line([p, q], halo, max(1.6, 0.035 * unit))
        canvas.line([p, q], line, max(0.8, 0.015 * unit))
    for loop in geo.boundary_loops():
        canvas.line(loop, halo, max(2.0, 0.05 * unit))
        canvas.line(loop, line, max(1.0, 0.025 * unit))
    half_y = (2.0 * abs(grid.dx) / 3.0) if geo.sideways else unit / 2.0
    for label, (cx, cy) in geo.centres.items():
        d = max(2.0, 0.07 * unit)
        for a, b in (((cx - d, cy), (cx + d, cy)), ((cx, cy - d), (cx, cy + d))):
            canvas.line([a, b], halo, max(1.6, 0.03 * unit))
            canvas.line([a, b], line, max(0.8, 0.014 * unit))
        if numbers:
            # below the centre: a scan prints its own numbers at the top of the hex
            canvas.text((cx, cy + 0.55 * half_y), label, size=max(7.0, 0.15 * unit), fill=line,
                        style="condensed-bold", anchor="mm", halo=(255, 255, 255, 210),
                        halo_width=max(1.0, 0.02 * unit))
    return canvas, geo


def overlay_grid(image: Image.Image, grid: HexGrid | MapGrid,
                 cells: Mapping[str, tuple[int, int]] | None = None, *,
                 colour: Colour = (220, 30, 30), numbers: bool = True) -> Image.Image:
    """``image`` with the grid drawn over it.  ``grid`` is a VASSAL
    :class:`HexGrid` or a scenario ``MapGrid`` (then its hexes are drawn)."""
    canvas = _overlay_canvas(image.size, grid, cells, colour=colour, numbers=numbers)
    base = image.convert("RGBA")
    return Image.alpha_composite(base, canvas.render())


def _overlay_canvas(size: tuple[int, int], grid: HexGrid | MapGrid,
                    cells: Mapping[str, tuple[int, int]] | None = None, *,
                    colour: Colour = (220, 30, 30), numbers: bool = True) -> Canvas:
    if not isinstance(grid, HexGrid):
        cells = grid.hexes if cells is None else cells
        grid = grid.grid
    canvas, _geo = grid_overlay_drawing(size, grid, cells, colour=colour, numbers=numbers)
    return canvas


def image_header(path: PathLike, what: str = "the image", *,
                 warn: Callable[[str], None] | None = None) -> tuple[int, int]:
    """The pixel size of a user's image from its header alone (nothing is
    decoded), refused past the decode budget (:mod:`vmodtool.images`; the
    image and its RGB overlay counted): what a command checks before it
    spends memory and time on the pixels."""
    return image_size(path, what, convert_to="RGB", warn=warn)


def read_image(path: PathLike, what: str = "the image", *,
               warn: Callable[[str], None] | None = None) -> Image.Image:
    """A user's image, loaded whole once its header passed the decode
    budget (:func:`vmodtool.images.load_image`); a one-line
    :class:`VmodError` naming the file for anything Pillow cannot read.
    Pillow's warnings go to ``warn`` (with the file named), never to
    stderr."""
    return load_image(path, what, convert_to="RGB", warn=warn)


def grid_from_vassal_attributes(attributes: Mapping[str, str], size: tuple[int, int]) -> HexGrid:
    """A HexGrid from raw VASSAL attributes, those of ``HexGrid`` and of its
    ``HexGridNumbering`` mixed (each key goes where VASSAL reads it)."""
    grid_keys = set(HexGrid.ATTRIBUTE_NAMES) | {"snapscale"}
    grid_attrs = {k: v for k, v in attributes.items() if k in grid_keys}
    numbering_attrs = {k: v for k, v in attributes.items() if k not in grid_keys}
    return HexGrid.from_attributes(grid_attrs, numbering_attrs, container_size=size)


def write_grid_overlay(image: Image.Image, grid: HexGrid | MapGrid, path: PathLike, *,
                       numbers: bool = True) -> int:
    """Write ``image`` with ``grid`` over it as PNG (atomically); returns how
    many hexes were drawn (a scenario grid's hexes, or every hex of a VASSAL
    grid whose centre is on the image).  The overlay is composited band by
    band into the RGB result, so a large scan costs the result's 3 bytes a
    pixel, not three RGBA copies of it."""
    import io

    canvas = _overlay_canvas(image.size, grid, numbers=numbers)
    result = Image.new("RGB", image.size)
    for top, band in canvas.bands():
        box = (0, top, image.size[0], top + band.size[1])
        part = Image.alpha_composite(image.crop(box).convert("RGBA"), band)
        result.paste(part.convert("RGB"), box[:2])
        del part
    buf = io.BytesIO()
    result.save(buf, "PNG")
    del result
    atomic_write(path, buf.getbuffer())
    if isinstance(grid, HexGrid):
        return sum(1 for _ in grid.hex_centres(*image.size))
    return len(grid.hexes)


def grid_from_options(*, orientation: str = "flat_top", hex_height: float | None = None,
                      hex_width: float | None = None, origin: tuple[int, int] | None = None,
                      columns: int = 10, rows: int = 8, offset_parity: str = "even",
                      margin: int = 24, numbering: Mapping[str, object] | None = None) -> MapGrid:
    """A scenario ``MapGrid`` from the grid keys of the scenario format."""
    from vmodtool.scenario.mapgrid import AxisNumbering, GridSpec, build_map_grid

    num = dict(numbering or {})
    if hex_height is None:
        if hex_width is None:
            raise VmodError("give --hex-height (and optionally --hex-width), a --scenario, or --vassal attributes")
        hex_height = hex_width / (math.sqrt(3) / 2) if orientation == "flat_top" \
            else hex_width * math.sqrt(3) / 2
    column = num.get("column", AxisNumbering())
    row = num.get("row", AxisNumbering())
    if not isinstance(column, AxisNumbering) or not isinstance(row, AxisNumbering):
        raise TypeError("numbering['column'] and numbering['row'] are AxisNumbering values")
    spec = GridSpec(orientation=orientation, hex_height=float(hex_height),
                    hex_width=float(hex_width) if hex_width else None, columns=columns, rows=rows,
                    offset_parity=offset_parity, margin=margin, origin=origin,
                    first=str(num.get("first", "column")), separator=str(num.get("separator", "")),
                    column=column, row=row,
                    stagger=bool(num.get("stagger", False)))
    grid = build_map_grid(spec)
    if grid.problems:
        raise VmodError(f"the grid numbering does not work: {grid.problems[0]}")
    return grid


def check_image_size(image_size: tuple[int, int], board_size: tuple[int, int]) -> str | None:
    """A warning when a user's board image and the grid's board differ."""
    if tuple(image_size) == tuple(board_size):
        return None
    return (f"the image is {image_size[0]}x{image_size[1]} pixels but the grid's board is "
            f"{board_size[0]}x{board_size[1]}; the hex area must sit at the same place — check the "
            "overlay, then set map.size (or margin/origin) so that they match")

