"""Maps that read and print: no text on a board covers a hex number, a
feature or another text (by the board's own record of boxes, and by the
pixels it draws); a bridge wherever a road crosses a river or water; a
map larger than the paper tiled over pages that overlap exactly."""

from __future__ import annotations

import json
import math
import random
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from PIL import Image, ImageChops

from tests.conftest import game_examples, module_examples, shared_path
from vmodtool.commands.board import board
from vmodtool.render import board as B
from vmodtool.render.board import BoardOptions, board_drawing, print_scale
from vmodtool.render.board_canvas import Canvas
from vmodtool.render.board_layout import TEXT_KINDS, BoxIndex, abbreviations, intersects
from vmodtool.render.board_pages import layout_pages, pages_along, render_page
from vmodtool.render.board_symbols import WATER, hexside_kind, texture_kind
from vmodtool.scenario import load_scenario
from vmodtool.scenario.mapgrid import GridSpec, build_map_grid

MODULES = {"ragnarok": ("corpus", "ragnarok", "buildFile.xml"), "the-longest-day": ("corpus", "tld", "buildFile")}
#: what a text may never meet: another text, a texture symbol, a bridge, a marker
COVERED = frozenset({"number", "label", "vp", "symbol", "bridge", "objective"})
SCALES = ("vassal", "300dpi")


def _load(path: Path):
    name = path.parent.name
    if name in MODULES:
        return load_scenario(path, module=shared_path(*MODULES[name]))
    return load_scenario(path)


_DRAWINGS: dict = {}


def drawing_of(path: Path, scale: str):
    key = (path, scale)
    if key not in _DRAWINGS:
        scenario = _load(path)
        opts = BoardOptions() if scale == "vassal" else \
            BoardOptions(scale=print_scale(scenario.map.grid, 300), dpi=300, sheet=True)
        _DRAWINGS[key] = (scenario, board_drawing(scenario, opts))
    return _DRAWINGS[key]


#: examples whose map is an area map (spaces, no hexes): no hex board to draw (``board --spaces``)
AREA_EXAMPLES = {"paths-of-glory"}
ALL_EXAMPLES = game_examples() + [p for p in module_examples() if p.parent.name not in AREA_EXAMPLES]


def text_conflicts(index: BoxIndex) -> list:
    out = []
    for item, other in index.conflicts(TEXT_KINDS):
        if other.kind in COVERED:
            out.append((item, other))
    return out


# -- boxes --------------------------------------------------------------------

@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("path", ALL_EXAMPLES, ids=lambda p: p.parent.name)
def test_no_text_box_meets_another_text_a_number_or_a_feature(path, scale):
    scenario, drawing = drawing_of(path, scale)
    index = drawing.boxes
    kinds = {item.kind for item in index.items}
    assert "number" in kinds
    assert sum(1 for item in index.items if item.kind == "number") == len(scenario.map.grid.hexes)
    assert sum(1 for item in index.items if item.kind == "label") == len(scenario.map.labels)
    assert text_conflicts(index) == []
    assert drawing.warnings == [] or all(re.match(r".+scenario\.yaml:\d+:\d+: ", w) for w in drawing.warnings)
    # the record is the drawing: every text drawn has its box, every label is on the board
    texts = {op.args[2] for op in drawing.canvas.ops if op.kind == "text"}
    for placed in drawing.labels:
        assert placed.text in texts
        assert 0 <= placed.box[0] and placed.box[2] <= drawing.board_size[0]


def test_the_issue_s_labels_no_longer_cover_their_bridges():
    """Péronne and the 1105 bridge (WW1 at 300 dpi), as the issue saw them."""
    path = next(p for p in game_examples() if p.parent.name == "ww1-operational")
    _scenario, drawing = drawing_of(path, "300dpi")
    index = drawing.boxes
    peronne = next(p for p in drawing.labels if p.text == "Péronne")
    assert not index.hits(peronne.box, frozenset({"bridge", "number"}))
    number_1105 = next(i for i in index.items if i.kind == "number" and i.owner == "1105")
    assert not index.hits(number_1105.box, frozenset({"bridge"}))
    number_0806 = next(i for i in index.items if i.kind == "number" and i.owner == "0806")
    assert not intersects(number_0806.box, peronne.box)


def _mask(canvas: Canvas, keep, size: tuple[int, int]) -> Image.Image:
    """The pixels that the operations ``keep`` chooses draw, alone on a blank canvas."""
    solo = Canvas((size[0] / canvas.scale, size[1] / canvas.scale), scale=canvas.scale,
                  background=(255, 255, 255), supersample=canvas.supersample)
    solo.ops = [op for op in canvas.ops if keep(op)]
    return solo.render().convert("L").point(lambda v: 255 if v < 250 else 0)


def _overlap(a: Image.Image, b: Image.Image) -> bool:
    """Whether a pixel is set in both masks."""
    return ImageChops.multiply(a, b).getbbox() is not None


@pytest.mark.parametrize("name, scale", [("ww1-operational", "300dpi"), ("combat-commander", "vassal")])
def test_by_pixels_labels_share_no_pixel_with_numbers_bridges_or_other_labels(name, scale):
    """The rasterised ink (halo included) of the place names against the
    rasterised hex numbers and bridges: independent of the box record."""
    path = next(p for p in game_examples() if p.parent.name == name)
    _scenario, drawing = drawing_of(path, scale)
    canvas = drawing.canvas
    size = drawing.pixel_size
    labels = {p.text for p in drawing.labels}
    numbers = set(drawing.numbers)
    deck = (236, 230, 214)
    label_ink = _mask(canvas, lambda op: op.kind == "text" and op.args[2] in labels, size)
    number_ink = _mask(canvas, lambda op: op.kind == "text" and op.args[2] in numbers, size)
    bridge_ink = _mask(canvas, lambda op: op.kind == "line" and op.args[1] == deck, size)
    assert label_ink.getbbox() and number_ink.getbbox() and bridge_ink.getbbox()
    assert not _overlap(label_ink, number_ink)
    assert not _overlap(label_ink, bridge_ink)
    assert not _overlap(number_ink, bridge_ink)
    masks = [_mask(canvas, lambda op, t=p.text: op.kind == "text" and op.args[2] == t, size)
             for p in drawing.labels]
    for i, a in enumerate(masks):                          # labels among themselves
        for j in range(i + 1, len(masks)):
            assert not _overlap(a, masks[j]), (drawing.labels[i].text, drawing.labels[j].text)


def test_the_pixel_check_sees_a_label_over_a_number():
    """The check above can fail: a label drawn where the hex number is."""
    path = next(p for p in game_examples() if p.parent.name == "ww1-operational")
    scenario = load_scenario(path)
    drawing = board_drawing(scenario, BoardOptions(scale=2.0))
    text, (x, y) = drawing.numbers["0805"]
    drawing.canvas.text((x, y), "Péronne", size=0.15 * 76, fill=B.INK, style="condensed-bold")
    label_ink = _mask(drawing.canvas, lambda op: op.kind == "text" and op.args[2] == "Péronne", drawing.pixel_size)
    number_ink = _mask(drawing.canvas, lambda op: op.kind == "text" and op.args[2] == text, drawing.pixel_size)
    assert _overlap(label_ink, number_ink)


def test_a_label_that_fits_nowhere_is_reported_with_its_line(tmp_path):
    source = next(p for p in game_examples() if p.parent.name == "ww1-operational")
    shutil.copytree(source.parent, tmp_path, dirs_exist_ok=True)
    path = tmp_path / "scenario.yaml"
    text = path.read_text(encoding="utf-8")
    crowded = text.replace('    - {hex: "0203", text: "Albert"}',
                           '    - {hex: "0203", text: "Albert"}\n'
                           + "".join(f'    - {{hex: "0203", text: "Albert quarter {i}"}}\n' for i in range(12)), 1)
    assert crowded != text
    scen = tmp_path / "scenario.yaml"
    scen.write_text(crowded, encoding="utf-8")
    drawing = board_drawing(load_scenario(scen))
    assert drawing.warnings
    line = crowded.splitlines().index('    - {hex: "0203", text: "Albert quarter 11"}') + 1
    assert any(w.startswith(f"{scen}:{line}:") and "finds no free place" in w for w in drawing.warnings)
    result = CliRunner().invoke(board, [str(scen), "-o", str(tmp_path / "b.png")])
    assert result.exit_code == 0
    assert f"{scen}:{line}:" in result.output + getattr(result, "stderr", "")


@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("path", game_examples(), ids=lambda p: p.parent.name)
def test_every_objective_star_of_a_board_has_the_same_full_size(path, scale):
    """No star shrinks to fit its hex (Combat Commander's 0605, a bridge in
    water with a place name, had a half-size one): by the boxes recorded
    and by the stars drawn, each clear of every hex number."""
    scenario, drawing = drawing_of(path, scale)
    size = abs(scenario.map.grid.grid.dy)
    stars = [item for item in drawing.boxes.items if item.kind == "objective"]
    assert len(stars) == len(scenario.map.objectives) > 0
    for item in stars:
        assert item.box[2] - item.box[0] == pytest.approx(2 * 0.112 * size), item.owner
        assert not drawing.boxes.hits(item.box, frozenset({"number"})), item.owner
    drawn = [op.bbox for op in drawing.canvas.ops if op.kind == "polygon" and op.args[1] == B.OBJECTIVE_RED
             and op.bbox[1] < drawing.board_size[1] * drawing.scale]           # not the key's, under the map
    assert len(drawn) == len(stars)
    assert max(b[2] - b[0] for b in drawn) - min(b[2] - b[0] for b in drawn) < 1e-6
    assert not [w for w in drawing.warnings if "objective" in w]


def test_the_bridge_hex_s_star_moves_its_place_name_aside_at_full_size():
    path = next(p for p in game_examples() if p.parent.name == "combat-commander")
    scenario, drawing = drawing_of(path, "vassal")
    index = drawing.boxes
    star_box = next(i.box for i in index.items if i.kind == "objective" and i.owner == "0605")
    name = next(p for p in drawing.labels if p.text == "Мост Сен-Луи")          # in full, at its full size
    assert name.clear and name.size == pytest.approx(0.15 * 72)
    assert not intersects(name.box, star_box)
    assert text_conflicts(index) == []


def test_an_objective_that_fits_nowhere_is_reported_with_its_line_and_keeps_its_size(tmp_path):
    source = next(p for p in game_examples() if p.parent.name == "ww1-operational")
    shutil.copytree(source.parent, tmp_path, dirs_exist_ok=True)
    path = tmp_path / "scenario.yaml"
    text = path.read_text(encoding="utf-8")
    crowded = text.replace("  objectives:\n", "  objectives:\n" + "".join(
        f'    - {{hex: "0203", name: "Extra {i}", vp: {i + 1}}}\n' for i in range(12)), 1)
    assert crowded != text
    path.write_text(crowded, encoding="utf-8")
    scenario = load_scenario(path)
    drawing = board_drawing(scenario)
    reported = [w for w in drawing.warnings if "the objective of hex 0203 finds no free place" in w]
    assert reported and all(re.match(rf"{re.escape(str(path))}:\d+:\d+: ", w) for w in reported)
    lines = crowded.splitlines()
    last = lines.index('    - {hex: "0203", name: "Extra 11", vp: 12}') + 1
    assert any(w.startswith(f"{path}:{last}:") for w in reported)
    size = abs(scenario.map.grid.grid.dy)
    stars = [i for i in drawing.boxes.items if i.kind == "objective"]
    assert len(stars) == len(scenario.map.objectives)
    assert {round(i.box[2] - i.box[0], 6) for i in stars} == {round(2 * 0.112 * size, 6)}
    assert not any(drawing.boxes.hits(i.box, frozenset({"number"})) for i in stars)


def test_abbreviations():
    assert abbreviations("Villers-Bretonneux")[0] == "Villers-B."
    assert abbreviations("Мост Сен-Луи")[0] == "Мост Сен-Л."
    assert abbreviations("Ham") == []


# -- bridges --------------------------------------------------------------------

def expected_bridges(scenario) -> set[tuple[str, frozenset[str]]]:
    """Every road, track or railway segment crossing a river hexside or
    entering a water hex, worked out from the scenario alone."""
    hmap = scenario.map
    rivers = set()
    roads = []
    for hs in hmap.hexsides:
        t = hmap.hexside_types[hs.type]
        kind = hexside_kind(t.id, t.name, t.symbol, t.drawn_as)
        if t.drawn_as == "centre_line" and kind in ("road", "track", "railway"):
            roads.append((hs.a, hs.b))
        elif t.drawn_as != "centre_line" and kind in ("river", "stream"):
            rivers.add(frozenset((hs.a, hs.b)))
    water = {label for label, tid in hmap.terrain.items()
             if texture_kind(tid, hmap.terrain_types[tid].name, hmap.terrain_types[tid].symbol) == WATER}
    out = set()
    for a, b in roads:
        if a in water or b in water:
            for w in (a, b):
                if w in water:
                    out.add(("water", frozenset((w, b if w == a else a))))
        elif frozenset((a, b)) in rivers:
            out.add(("river", frozenset((a, b))))
    return out


def _darkest(image: Image.Image, point, r: int = 2) -> tuple[int, int, int]:
    x, y = int(round(point[0])), int(round(point[1]))
    pixels = [image.getpixel((i, j)) for i in range(x - r, x + r + 1) for j in range(y - r, y + r + 1)]
    return min(pixels, key=sum)


@pytest.mark.parametrize("path", game_examples(), ids=lambda p: p.parent.name)
def test_every_road_over_water_has_a_bridge_drawn(path):
    scenario, drawing = drawing_of(path, "300dpi")
    expected = expected_bridges(scenario)
    drawn = set()
    for br in drawing.bridges:
        if br.over == "river":
            drawn.add(("river", frozenset((br.a, br.b))))
    by_water = {}
    for br in drawing.bridges:
        if br.over == "water":
            by_water.setdefault(br.a, []).append(br)
    for kind, pair in expected:
        if kind == "water":
            w = next(h for h in pair if h in by_water)
            assert w in by_water
        else:
            assert ("river", pair) in drawn
    image = drawing.image()
    s = drawing.scale
    rail = B._BRIDGE_COLOUR
    half = max(b.half_width for b in drawing.bridges) if drawing.bridges else 0
    checked = 0
    for kind, pair in expected:
        a, b = sorted(pair)
        if kind == "water":
            w = next(h for h in pair if h in by_water)
            a, b = w, next(h for h in pair if h != w)
        ca, cb = drawing.centres[a], drawing.centres[b]
        ux, uy = cb[0] - ca[0], cb[1] - ca[1]
        d = math.hypot(ux, uy)
        t = 0.5 if kind == "river" else 0.3          # the crossing, or inside the water hex
        px, py = ca[0] + ux * t, ca[1] + uy * t
        nx, ny = -uy / d, ux / d
        br = next(x for x in drawing.bridges if {x.a, x.b} == {a, b} or (x.over == "water" and x.a == a))
        half = br.half_width
        if kind == "water" and len(br.path) == 3:      # a mitred joint at the centre: the railing is
            pass                                       # further out there, but not at 30 % of the way
        for sgn in (1, -1):
            pixel = _darkest(image, ((px + sgn * nx * half) * s, (py + sgn * ny * half) * s))
            assert sum(abs(p - q) for p, q in zip(pixel, rail, strict=True)) < 60, (kind, a, b, pixel)
            checked += 1
    assert checked == 2 * len(expected)


def test_the_combat_commander_bridge_hex_has_its_bridge():
    path = next(p for p in game_examples() if p.parent.name == "combat-commander")
    scenario, drawing = drawing_of(path, "vassal")
    assert ("water", frozenset(("0605", "0505"))) in expected_bridges(scenario)
    assert any(b.over == "water" and b.a == "0605" for b in drawing.bridges)


_RIVER = [["0301", "0401"], ["0302", "0401"], ["0302", "0402"], ["0303", "0402"], ["0303", "0403"]]
_ROAD = ["0102", "0202", "0302", "0402", "0502"]


def _crossing_doc() -> dict:
    """A 6x5 map whose road crosses a river once, between 0302 and 0402."""
    river, road = _RIVER, _ROAD
    return {"schema": "vmodtool/1",
            "game": {"id": "t", "title": "T", "sides": [{"id": "a", "name": "A"}, {"id": "b", "name": "B"}]},
            "map": {"id": "m", "name": "M",
                    "grid": {"kind": "hex", "orientation": "flat_top", "hex_height": 64, "columns": 6, "rows": 5,
                             "low_columns": "even", "margin": 24},
                    "terrain_types": {"clear": {"code": ".", "name": "Clear"}},
                    "terrain": {"default": "clear"},
                    "hexside_types": {"river": {"name": "River", "width": 5},
                                      "road": {"name": "Road", "width": 4, "drawn_as": "centre_line"}},
                    "hexsides": [{"type": "river", "between": river}, {"type": "road", "path": road}]},
            "unit_types": {"i": {"name": "I", "faces": [{"name": "f", "factors": {"a": 1}}]}},
            "counters": [{"id": "a.i", "type": "i", "side": "a"}]}


def test_a_road_across_a_river_gets_a_bridge_only_where_it_crosses(tmp_path):
    """No bridge type in the scenario: the board adds one at the crossing, none elsewhere."""
    grid = build_map_grid(GridSpec(hex_height=64, columns=6, rows=5))
    road = _ROAD
    doc = _crossing_doc()
    assert grid.adjacent("0302", "0402")
    path = tmp_path / "scenario.yaml"
    path.write_text(json.dumps(doc), encoding="utf-8")
    drawing = board_drawing(load_scenario(path), BoardOptions(scale=2.0))
    assert [(b.over, b.a, b.b, b.scenario) for b in drawing.bridges] == [("river", "0302", "0402", False)]
    with_bridge = drawing.image()
    doc["map"]["hexsides"] = doc["map"]["hexsides"][:1] + [{"type": "road", "path": road[:2]}]
    path.write_text(json.dumps(doc), encoding="utf-8")
    without = board_drawing(load_scenario(path), BoardOptions(scale=2.0))
    assert without.bridges == []
    br = drawing.bridges[0]
    (px, py), (qx, qy) = br.path
    mx, my = (px + qx) / 2, (py + qy) / 2
    d = math.hypot(qx - px, qy - py)
    nx, ny = -(qy - py) / d, (qx - px) / d
    at = ((mx + nx * br.half_width) * 2, (my + ny * br.half_width) * 2)
    rail = B._BRIDGE_COLOUR
    assert sum(abs(p - q) for p, q in zip(_darkest(with_bridge, at), rail, strict=True)) < 60
    assert sum(abs(p - q) for p, q in zip(_darkest(without.image(), at), rail, strict=True)) > 60


# -- the key ----------------------------------------------------------------------

def _key_kinds(scenario) -> list[tuple[str, str]]:
    return [(e.kind, e.text) for e in B._key_entries(scenario)]


def _bridge_rails(canvas: Canvas) -> int:
    return sum(1 for op in canvas.ops if op.kind == "line" and op.args[1] == B._BRIDGE_COLOUR)


@pytest.mark.parametrize("path", ALL_EXAMPLES, ids=lambda p: p.parent.name)
def test_the_key_shows_a_bridge_exactly_when_the_board_draws_one(path):
    """A bridge the board adds (a road over water) has a key entry unless
    a bridge hexside of the scenario already has one; no bridge, no entry."""
    scenario, drawing = drawing_of(path, "vassal")
    entries = B._key_entries(scenario)
    named = [e for e in entries if e.kind == "hexside"
             and hexside_kind(e.ref, scenario.map.hexside_types[e.ref].name,
                              scenario.map.hexside_types[e.ref].symbol,
                              scenario.map.hexside_types[e.ref].drawn_as) == "bridge"]
    added = [e for e in entries if e.kind == "bridge"]
    if not drawing.bridges:
        assert not named and not added
    elif named:
        assert not added
    else:
        assert len(added) == 1 and not any(b.scenario for b in drawing.bridges)


def test_combat_commander_s_key_names_its_bridge_in_russian():
    path = next(p for p in game_examples() if p.parent.name == "combat-commander")
    scenario, drawing = drawing_of(path, "300dpi")
    assert ("bridge", "Мост") in _key_kinds(scenario)
    key = B._key_canvas(scenario, 1.0, 2, None)
    assert _bridge_rails(key) == 2                    # the two railings of the entry's bridge
    texts = {op.args[2] for op in key.ops if op.kind == "text"}
    assert "Мост" in texts
    # the print sheet's key too: the board's bridge and the entry's
    sheet_rails = [op for op in drawing.canvas.ops if op.kind == "line" and op.args[1] == B._BRIDGE_COLOUR
                   and op.bbox[1] >= drawing.board_size[1] * drawing.scale]
    assert len(sheet_rails) == 2


def test_a_key_has_a_bridge_entry_only_with_a_bridge_on_the_board(tmp_path):
    doc = _crossing_doc()
    path = tmp_path / "scenario.yaml"
    path.write_text(json.dumps(doc), encoding="utf-8")
    crossing = load_scenario(path)
    assert ("bridge", "Bridge") in _key_kinds(crossing)
    assert _bridge_rails(B._key_canvas(crossing, 1.0, 2, None)) == 2
    doc["map"]["hexsides"][1] = {"type": "road", "path": ["0102", "0202"]}         # no longer crossing
    path.write_text(json.dumps(doc), encoding="utf-8")
    dry = load_scenario(path)
    assert board_drawing(dry).bridges == []
    assert [k for k, _t in _key_kinds(dry)] == ["terrain", "hexside", "hexside"]
    assert _bridge_rails(B._key_canvas(dry, 1.0, 2, None)) == 0
    # a road into a water hex: a bridge through it, and the entry
    doc["map"]["terrain_types"]["lake"] = {"code": "~", "name": "Lake", "symbol": "waves"}
    doc["map"]["terrain"] = {"default": "clear", "hexes": {"0202": "lake"}}
    path.write_text(json.dumps(doc), encoding="utf-8")
    wet = load_scenario(path)
    assert [b.over for b in board_drawing(wet).bridges] == ["water"]
    assert ("bridge", "Bridge") in _key_kinds(wet)
    # a scenario bridge over the crossing: its own entry, no second one
    doc = _crossing_doc()
    doc["map"]["hexside_types"]["bridge"] = {"name": "Stone bridge", "symbol": "bridge"}
    doc["map"]["hexsides"].append({"type": "bridge", "between": [["0302", "0402"]]})
    path.write_text(json.dumps(doc), encoding="utf-8")
    named = load_scenario(path)
    assert [b.scenario for b in board_drawing(named).bridges] == [True]
    assert [t for k, t in _key_kinds(named) if k != "terrain"] == ["River", "Road", "Stone bridge"]


# -- tiling ------------------------------------------------------------------------

def _big_scenario(folder: Path, columns: int = 60, rows: int = 40) -> Path:
    grid = build_map_grid(GridSpec(hex_height=64, columns=columns, rows=rows))
    rng = random.Random(3)
    labels = list(grid.hexes)
    terrain = {label: rng.choice(["clear"] * 6 + ["woods", "town"]) for label in labels}
    doc = {"schema": "vmodtool/1",
           "game": {"id": "big", "title": "Big Map", "sides": [{"id": "a", "name": "A"}, {"id": "b", "name": "B"}]},
           "map": {"id": "m", "name": f"{columns}x{rows}",
                   "grid": {"kind": "hex", "orientation": "flat_top", "hex_height": 64, "columns": columns,
                            "rows": rows, "low_columns": "even", "margin": 24},
                   "terrain_types": {"clear": {"code": ".", "name": "Clear"},
                                     "woods": {"code": "w", "name": "Woods", "symbol": "trees"},
                                     "town": {"code": "t", "name": "Town", "symbol": "buildings"}},
                   "terrain": {"default": "clear", "hexes": terrain},
                   "labels": [{"hex": labels[len(labels) // 2], "text": "Centreville"}]},
           "unit_types": {"i": {"name": "I", "faces": [{"name": "f", "factors": {"a": 1}}]}},
           "counters": [{"id": "a.i", "type": "i", "side": "a"}]}
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "scenario.yaml"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_a_60x40_map_on_a4_at_300_dpi(tmp_path):
    scenario = load_scenario(_big_scenario(tmp_path))
    drawing = board_drawing(scenario, BoardOptions(scale=print_scale(scenario.map.grid, 300), dpi=300, sheet=True))
    width, height = drawing.pixel_size
    layout = layout_pages((width, height), 300, paper="a4", orientation="portrait", overlap_mm=10)
    # A4 at 300 dpi: 2480 x 3508 px, 10 mm (118 px) margins, 10 mm (118 px) overlap
    assert layout.page == (2480, 3508)
    area_w, area_h = 2480 - 2 * 118, 3508 - 2 * 118
    assert layout.area == (area_w, area_h) and layout.overlap == 118
    cols = 1 + math.ceil((width - area_w) / (area_w - 118))
    rows = 1 + math.ceil((height - area_h) / (area_h - 118))
    assert (layout.columns, layout.rows) == (cols, rows) == (5, 3)
    assert len(layout.tiles) == cols * rows
    assert [t.name for t in layout.tiles[:cols + 1]] == ["A1", "A2", "A3", "A4", "A5", "B1"]
    # the tiles cover the board, and neighbours share exactly the overlap
    assert layout.tiles[-1].box[2:] == (width, height)
    a1, a2, b1 = layout.tiles[0], layout.tiles[1], layout.tiles[cols]
    assert a1.box[2] - a2.box[0] == 118 and a1.box[3] - b1.box[1] == 118
    m = layout.margin
    pages = {t.name: render_page(drawing.canvas, layout, t) for t in (a1, a2, b1)}
    right_of_a1 = pages["A1"].crop((m + area_w - 118, m, m + area_w, m + area_h))
    left_of_a2 = pages["A2"].crop((m, m, m + 118, m + area_h))
    assert right_of_a1.tobytes() == left_of_a2.tobytes()
    foot_of_a1 = pages["A1"].crop((m, m + area_h - 118, m + area_w, m + area_h))
    head_of_b1 = pages["B1"].crop((m, m, m + area_w, m + 118))
    assert foot_of_a1.tobytes() == head_of_b1.tobytes()
    # not an empty strip: the board is there
    assert len(right_of_a1.getcolors(maxcolors=1 << 20) or ()) > 20
    # landscape is chosen when it takes fewer pages
    auto = layout_pages((width, height), 300, paper="a4")
    assert auto.columns * auto.rows <= cols * rows


def test_pages_along():
    assert pages_along(1000, 1000, 100) == 1
    assert pages_along(1001, 1000, 100) == 2
    assert pages_along(1900, 1000, 100) == 2
    assert pages_along(1901, 1000, 100) == 3


def test_board_command_writes_tiled_and_single_page_pdfs(tmp_path):
    small = next(p for p in game_examples() if p.parent.name == "combat-commander")
    out = tmp_path / "cc.pdf"
    # 0.35-inch hexes: the map, its four tracks and its key (with the bridge entry) fit one A4 page
    result = CliRunner().invoke(board, [str(small), "-o", str(out), "--dpi", "100", "--hex-size", "0.35"])
    assert result.exit_code == 0, result.output
    assert "1 A4" in result.output
    assert b"/Count 1" in out.read_bytes()
    big = tmp_path / "big.pdf"
    scen = _big_scenario(tmp_path / "s", 16, 12)
    result = CliRunner().invoke(board, [str(scen), "-o", str(big), "--dpi", "100", "--paper", "letter",
                                        "--orientation", "landscape", "--overlap", "15"])
    assert result.exit_code == 0, result.output
    scenario = load_scenario(scen)
    drawing = board_drawing(scenario, BoardOptions(scale=print_scale(scenario.map.grid, 100), dpi=100, sheet=True))
    layout = layout_pages(drawing.pixel_size, 100, paper="letter", orientation="landscape", overlap_mm=15)
    assert layout.columns * layout.rows > 1
    assert b"/Count %d" % (layout.columns * layout.rows) in big.read_bytes()
    assert f"{layout.columns * layout.rows} LETTER landscape pages" in result.output
    result = CliRunner().invoke(board, [str(scen), "-o", str(tmp_path / "x.pdf"), "--scale", "2"])
    assert result.exit_code == 2
