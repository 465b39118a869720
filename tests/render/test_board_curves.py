"""Rivers and roads drawn as smooth curves: each type's hexsides joined into
lines, the curve through the midpoint of every hexside the data names, never
in a hex the feature does not touch, and without the zig-zag's corners."""

from __future__ import annotations

import math

import pytest

from tests.render.test_board import VARIANTS, example, make_scenario
from vmodtool.render.board import board_drawing
from vmodtool.render.board_curves import chains, smooth_chain
from vmodtool.scenario import load_scenario

EXAMPLES = ["modern-tactical", "ww1-operational", "combat-commander"]
ALL = EXAMPLES + ["pointy", "pointy-odd", "alpha-desc"]
#: what winds: water and roads; a wall or cliff keeps to its hexsides
CURVED = {"river", "stream", "road", "track", "railway"}


@pytest.fixture(scope="module")
def drawings(tmp_path_factory):
    out = {}
    for name in EXAMPLES:
        scenario = example(name)
        out[name] = (scenario, board_drawing(scenario))
    base = tmp_path_factory.mktemp("curves")
    for name in ALL[len(EXAMPLES):]:
        scenario = load_scenario(make_scenario(base / name, VARIANTS[name]))
        out[name] = (scenario, board_drawing(scenario))
    return out


def _segment_distance(p, a, b) -> float:
    (px, py), (ax, ay), (bx, by) = p, a, b
    dx, dy = bx - ax, by - ay
    d2 = dx * dx + dy * dy
    t = 0.0 if d2 == 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / d2))
    return math.hypot(px - ax - t * dx, py - ay - t * dy)


def _distance_to(points, p) -> float:
    return min(_segment_distance(p, a, b) for a, b in zip(points, points[1:], strict=False))


# -- joining hexsides into lines ------------------------------------------------

def test_chains_join_edges_end_to_end_and_stop_at_junctions():
    assert chains([("b", "c"), ("a", "b"), ("c", "d")]) in (
        [["a", "b", "c", "d"]], [["d", "c", "b", "a"]])
    # a T: three lines from the junction (or to it)
    lines = chains([("a", "j"), ("j", "b"), ("j", "c"), ("c", "d")])
    assert sorted(sorted(line) for line in lines) == [["a", "j"], ["b", "j"], ["c", "d", "j"]]
    # a loop comes back to where it began; every edge once
    loop = chains([("a", "b"), ("b", "c"), ("c", "a")])
    assert len(loop) == 1 and loop[0][0] == loop[0][-1] and len(loop[0]) == 4


def test_smooth_chain_passes_every_midpoint_along_its_step():
    pts = [(0.0, 0.0), (10.0, 0.0), (15.0, 8.66), (25.0, 8.66)]
    curve = smooth_chain(pts)
    assert curve[0] == pts[0] and curve[-1] == pts[-1]
    for a, b in zip(pts, pts[1:], strict=False):
        mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
        assert min(math.hypot(mid[0] - x, mid[1] - y) for x, y in curve) < 1e-9
    assert smooth_chain(pts[:2]) == pts[:2]


def test_a_loop_is_closed_and_round():
    """A river all round one hex (a moat, a lake's shore): the curve ends
    where it began and passes every side's midpoint."""
    hexagon = [(math.cos(math.pi / 3 * k) * 10, math.sin(math.pi / 3 * k) * 10) for k in range(6)]
    curve = smooth_chain(hexagon + hexagon[:1], closed=True)
    assert math.dist(curve[0], curve[-1]) < 1e-9
    for a, b in zip(hexagon, hexagon[1:] + hexagon[:1], strict=True):
        mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
        assert min(math.dist(mid, p) for p in curve) < 1e-9
    assert max(_turns(curve)) < 16.0


# -- on the boards -------------------------------------------------------------

@pytest.mark.parametrize("name", ALL)
def test_every_typed_hexside_is_in_one_drawn_line(drawings, name):
    scenario, drawing = drawings[name]
    kinds = {h.type: h.kind for h in drawing.hexsides}
    typed = {(h.type, frozenset((h.a, h.b))) for h in scenario.map.hexsides if kinds[h.type] != "bridge"}
    drawn = [(line.type, frozenset(side)) for line in drawing.lines for side in line.sides]
    assert len(drawn) == len(set(drawn))
    assert set(drawn) == typed


@pytest.mark.parametrize("name", ALL)
def test_each_curve_passes_through_its_hexsides_and_strays_into_no_other_hex(drawings, name):
    scenario, drawing = drawings[name]
    centres = {label: (float(x), float(y)) for label, (x, y) in drawing.centres.items()}
    assert drawing.lines or not scenario.map.hexsides
    for line in drawing.lines:
        for a, b in line.sides:
            ca, cb = centres[a], centres[b]
            mid = ((ca[0] + cb[0]) / 2, (ca[1] + cb[1]) / 2)
            assert _distance_to(line.points, mid) < 1.0, (line.type, a, b)
        touched = {h for side in line.sides for h in side}
        for p in line.points:
            # the hex a point lies in is the one whose centre is nearest
            nearest = min(math.hypot(p[0] - c[0], p[1] - c[1]) for c in centres.values())
            own = min(math.hypot(p[0] - centres[h][0], p[1] - centres[h][1]) for h in touched)
            assert own <= nearest + 1.0, (line.type, p)


def _turns(points) -> list[float]:
    out = []
    for a, b, c in zip(points, points[1:], points[2:], strict=False):
        u = (b[0] - a[0], b[1] - a[1])
        v = (c[0] - b[0], c[1] - b[1])
        if math.hypot(*u) < 1e-9 or math.hypot(*v) < 1e-9:
            continue
        out.append(abs(math.degrees(math.atan2(u[0] * v[1] - u[1] * v[0], u[0] * v[0] + u[1] * v[1]))))
    return out


@pytest.mark.parametrize("name", ALL)
def test_curves_have_no_corners(drawings, name):
    """A river of hexsides turns 60° at every corner and a road 60° in every
    hex it bends in; the curves turn a few degrees a piece."""
    _scenario, drawing = drawings[name]
    bends = 0
    for line in drawing.lines:
        if line.kind not in CURVED:
            continue
        turns = _turns(line.points)
        assert not turns or max(turns) < 16.0, (line.type, max(turns))
        bends += len(line.sides) > 1
    assert bends


def test_the_pdf_and_the_module_board_draw_the_same_curves(drawings):
    """The print board is the same drawing at another scale."""
    from vmodtool.render.board import BoardOptions

    scenario, drawing = drawings["ww1-operational"]
    sheet = board_drawing(scenario, BoardOptions(scale=2.5, sheet=True))
    assert [(line.sides, line.points) for line in sheet.lines] == \
        [(line.sides, line.points) for line in drawing.lines]



def test_a_wall_keeps_to_its_hexsides(drawings):
    """A terrace wall is drawn along the sides themselves, corner to corner."""
    _scenario, drawing = drawings["combat-commander"]
    walls = [line for line in drawing.lines if line.kind == "wall"]
    assert walls
    geo = drawing.geometry
    for line in walls:
        for (a, b), p, q in zip(line.sides, line.points, line.points[1:], strict=False):
            ends = geo.shared_corners(a, b)
            assert min(math.dist(p, e) for e in ends) < 1.0 and min(math.dist(q, e) for e in ends) < 1.0
        assert len(line.points) == len(line.sides) + 1


def test_a_bridge_through_water_carries_the_road_as_it_curves(drawings):
    """The coast road rounds the water hex 0605 (Combat Commander's bridge
    of Saint-Louis): the bridge deck follows the curve, so no stretch of the
    road runs over the water beside it."""
    _scenario, drawing = drawings["combat-commander"]
    water = [b for b in drawing.bridges if b.over == "water"]
    assert water
    centres = {label: (float(x), float(y)) for label, (x, y) in drawing.centres.items()}
    checked = 0
    for bridge in water:
        for line in drawing.lines:
            if line.kind != "road":
                continue
            for p in line.points:
                nearest = min(centres, key=lambda h: math.dist(p, centres[h]))
                if nearest == bridge.a:
                    assert _distance_to(bridge.path, p) <= bridge.half_width, p
                    checked += 1
    assert checked > 5
