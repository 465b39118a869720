"""Boards drawn from terrain data: every hex where VASSAL's grid puts it,
labels as VASSAL names them, hexside features on the named hexsides, and
bad scenarios reported by the command with exit code 2."""

from __future__ import annotations

import json
import math
import struct
import zlib
from pathlib import Path

import pytest
from click.testing import CliRunner
from PIL import Image

from vmodtool.commands.board import board, grid_check
from vmodtool.errors import VmodError
from vmodtool.render import board_canvas
from vmodtool.render.board import (
    INK,
    BoardOptions,
    board_drawing,
    module_board_image,
    overlay_grid,
    print_scale,
    render_board,
    render_key,
    write_board,
)
from vmodtool.scenario import load_scenario
from vmodtool.scenario.mapgrid import AxisNumbering, GridSpec, build_map_grid

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = ["modern-tactical", "ww1-operational", "combat-commander"]


def example(name: str):
    return load_scenario(REPO / "examples" / name / "scenario.yaml")


# -- synthetic scenarios: every orientation and numbering style ---------------

def _axis_yaml(axis: AxisNumbering) -> dict:
    start = chr(ord("A") + axis.start) if axis.type == "alpha" else axis.start
    return {"type": axis.type, "start": start, "leading_zeros": axis.leading_zeros,
            "descending": axis.descending}


VARIANTS = {
    # pointy-top (VASSAL sideways), regular hexes given by the row spacing
    "pointy": GridSpec(orientation="pointy_top", hex_height=55.43, hex_width=64, columns=9, rows=7),
    # pointy-top, odd rows shifted, fractional VASSAL dy
    "pointy-odd": GridSpec(orientation="pointy_top", hex_height=50, columns=9, rows=7,
                           offset_parity="odd"),
    # alphabetic columns, a separator, descending rows, no leading zeros
    "alpha-desc": GridSpec(hex_height=60, columns=8, rows=6, separator="-",
                           column=AxisNumbering("alpha", 0, 0, False),
                           row=AxisNumbering("numeric", 6, 0, True)),
    # staggered numbering from column 00, non-regular hexes
    "stagger": GridSpec(hex_height=75, hex_width=64.95, columns=9, rows=6, stagger=True,
                        column=AxisNumbering("numeric", 0, 1, False)),
    # descending columns, three-digit columns, "." separator
    "desc-cols": GridSpec(hex_height=66.5, columns=9, rows=6, separator=".",
                          column=AxisNumbering("numeric", 9, 2, True),
                          row=AxisNumbering("numeric", 1, 1, False)),
    # pointy-top, row first, alphabetic rows, "," separator
    "row-first": GridSpec(orientation="pointy_top", hex_height=56, columns=8, rows=6, first="row",
                          separator=",", row=AxisNumbering("alpha", 0, 0, False)),
}

TERRAIN_TYPES = {
    "clear": {"code": ".", "name": "Clear", "fill": "#e3dfc0"},
    "woods": {"code": "w", "name": "Woods", "fill": "#6f9a4c", "symbol": "trees"},
    "town": {"code": "t", "name": "Town", "fill": "#b8ada0", "symbol": "buildings"},
    "hill1": {"code": "1", "name": "Hill", "fill": "#d6c08a", "elevation": 1},
    "hill2": {"code": "2", "name": "High hill", "fill": "#c09a60", "elevation": 2},
    "rough": {"code": "r", "name": "Rough", "fill": "#b0a184", "symbol": "rocks"},
    "marsh": {"code": "m", "name": "Marsh", "fill": "#a8c8b4", "symbol": "marsh"},
    "water": {"code": "~", "name": "Lake", "fill": "#8fbbe3"},
}
HEXSIDE_TYPES = {
    "river": {"name": "River", "stroke": "#3a72c8", "width": 5, "drawn_as": "hexside"},
    "stream": {"name": "Stream", "width": 3, "drawn_as": "hexside"},
    "road": {"name": "Road", "stroke": "#8a5a2b", "width": 4, "drawn_as": "centre_line"},
    "track": {"name": "Track", "width": 3, "drawn_as": "centre_line"},
    "railway": {"name": "Railway", "width": 4, "drawn_as": "centre_line"},
    "bridge": {"name": "Bridge", "width": 3, "drawn_as": "hexside", "symbol": "bridge"},
}


def _walk(grid, start: str, steps: int, avoid=()) -> list:
    """A line of adjacent hexes (deterministic)."""
    path = [start]
    while len(path) <= steps:
        options = [n for n in sorted(grid.neighbours(path[-1])) if n not in path and n not in avoid]
        if not options:
            break
        path.append(options[len(path) % len(options)])
    return path


def make_scenario(folder: Path, spec: GridSpec, *, mutate=None) -> Path:
    """A complete small scenario on grid ``spec`` with every terrain and
    hexside type, written as JSON (which is YAML)."""
    grid = build_map_grid(spec)
    assert not grid.problems, grid.problems
    labels = list(grid.hexes)
    kinds = list(TERRAIN_TYPES)
    hexes = {label: kinds[(i * 7 + i // 5) % len(kinds)] for i, label in enumerate(labels)
             if i % 3}
    first = labels[len(labels) // 2]
    river = [[first, n] for n in grid.neighbours(first)[:3]]
    road = _walk(grid, labels[0], 6)
    rail = _walk(grid, labels[-1], 5)
    doc = {
        "schema": "vmodtool/1",
        "game": {"id": "t", "title": "Test Board", "sides": [{"id": "a", "name": "A"},
                                                              {"id": "b", "name": "B"}]},
        "map": {
            "id": "main", "name": "Test map",
            "grid": {"kind": "hex", "orientation": spec.orientation, "hex_height": spec.hex_height,
                     **({"hex_width": spec.hex_width} if spec.hex_width else {}),
                     "columns": spec.columns, "rows": spec.rows,
                     ("shifted_rows" if spec.sideways else "low_columns"): spec.offset_parity,
                     "margin": spec.margin,
                     "numbering": {"first": spec.first, "separator": spec.separator,
                                   "column": _axis_yaml(spec.column), "row": _axis_yaml(spec.row),
                                   "stagger": spec.stagger}},
            "terrain_types": TERRAIN_TYPES,
            "terrain": {"default": "clear", "hexes": hexes},
            "hexside_types": HEXSIDE_TYPES,
            "hexsides": [{"type": "river", "between": river},
                         {"type": "stream", "between": [[labels[1], grid.neighbours(labels[1])[0]]]},
                         {"type": "bridge", "between": river[:1]},
                         {"type": "road", "path": road},
                         {"type": "track", "path": _walk(grid, labels[spec.columns], 4)},
                         {"type": "railway", "path": rail}],
            "labels": [{"hex": first, "text": "Пон-Сен-Луи"}],
            "objectives": [{"hex": labels[2], "name": "Hill", "vp": 2}],
        },
        "unit_types": {"inf": {"name": "Infantry", "faces": [{"name": "full", "factors": {"attack": 1}}]}},
        "counters": [{"id": "a.inf", "type": "inf", "side": "a"}],
    }
    if mutate:
        mutate(doc)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "scenario.yaml"
    path.write_text(json.dumps(doc, ensure_ascii=False, indent=1), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def boards(tmp_path_factory):
    """name → (scenario, drawing) for the examples and the variants."""
    out = {}
    for name in EXAMPLES:
        scenario = example(name)
        out[name] = (scenario, board_drawing(scenario))
    base = tmp_path_factory.mktemp("variants")
    for name, spec in VARIANTS.items():
        scenario = load_scenario(make_scenario(base / name, spec))
        out[name] = (scenario, board_drawing(scenario))
    return out


ALL = EXAMPLES + list(VARIANTS)


# -- centres ------------------------------------------------------------------

@pytest.mark.parametrize("name", ALL)
def test_every_centre_is_where_vassal_puts_the_hex(boards, name):
    scenario, drawing = boards[name]
    mgrid = scenario.map.grid
    grid = mgrid.grid
    assert set(drawing.centres) == set(mgrid.hexes)
    agree = 0
    for label, (cx, cy) in drawing.centres.items():
        # VASSAL's name for the drawn centre is the label, and a piece dropped
        # there stays there (snapTo gives back the same point)
        assert grid.location_name(cx, cy) == label
        assert grid.snap_to(cx, cy) == (cx, cy)
        assert (cx, cy) == mgrid.centres[label]
        # getLocation(label) (VASSAL's name → point) agrees within half a
        # pixel; on grids with a fractional dy VASSAL's own getLocation and
        # snapTo can differ by one pixel (getCenterPoint rounds once,
        # hexPointCenterFromRawIndex twice), and the board follows snapTo
        gx, gy = grid.get_location(label)
        if math.hypot(gx - cx, gy - cy) <= 0.5:
            agree += 1
        else:
            assert math.hypot(gx - cx, gy - cy) <= 1.0
    if name in EXAMPLES or float(grid.dy).is_integer():
        assert agree == len(drawing.centres)


@pytest.mark.parametrize("name", ALL)
def test_hexagons_are_laid_around_the_centres(boards, name):
    scenario, drawing = boards[name]
    geo = drawing.geometry
    grid = scenario.map.grid.grid
    r, half = 2 * abs(grid.dx) / 3, abs(grid.dy) / 2
    for label, poly in geo.polygons.items():
        cx, cy = drawing.centres[label]
        mx, my = sum(p[0] for p in poly) / 6, sum(p[1] for p in poly) / 6
        assert math.hypot(mx - cx, my - cy) < 1e-9, label
        ideal = [(r, 0), (r / 2, half), (-r / 2, half), (-r, 0), (-r / 2, -half), (r / 2, -half)]
        for (px, py), (du, dv) in zip(poly, ideal, strict=True):
            dx, dy = (dv, du) if grid.sideways else (du, dv)
            assert math.hypot(px - cx - dx, py - cy - dy) < 1e-9, label
        # the shared line work is within a pixel of the hexagon
        for p, q in zip(poly, geo.outlines[label], strict=True):
            assert _dist(p, q) < 1.0, label


@pytest.mark.parametrize("name", EXAMPLES + ["pointy"])
def test_rendered_dot_sits_on_the_vassal_centre(boards, name):
    scenario, drawing = boards[name]
    image = drawing.image()
    assert image.size == tuple(scenario.map.size) == tuple(scenario.map.grid.size)
    for label, (cx, cy) in drawing.centres.items():
        pixel = image.getpixel((cx, cy))
        assert sum(abs(a - b) for a, b in zip(pixel[:3], INK, strict=True)) < 90, (label, pixel)


def test_print_scale_multiplies_every_centre(boards):
    scenario, _ = boards["modern-tactical"]
    scale = print_scale(scenario.map.grid, 300, 0.625)
    assert scale == pytest.approx(300 * 0.625 / 64)
    drawing = board_drawing(scenario, BoardOptions(scale=scale, dpi=300))
    dots = [op.args[:2] for op in drawing.canvas.ops
            if op.kind == "circle" and op.args[2] == pytest.approx(0.026 * 64 * scale)]
    expected = sorted((cx * scale, cy * scale) for cx, cy in drawing.centres.values())
    flat = [v for point in sorted(dots) for v in point]
    assert flat == pytest.approx([v for point in expected for v in point])
    assert drawing.pixel_size == (round(732 * scale), round(720 * scale))


# -- labels -------------------------------------------------------------------

@pytest.mark.parametrize("name", ALL)
def test_hex_numbers_read_as_vassal_names_them(boards, name):
    scenario, drawing = boards[name]
    grid = scenario.map.grid.grid
    assert set(drawing.numbers) == set(drawing.centres)
    for label, (text, (x, y)) in drawing.numbers.items():
        assert text == label
        # the number is drawn inside its own hex: VASSAL names that point so
        assert grid.location_name(int(round(x)), int(round(y))) == label
    texts = {op.args[2] for op in drawing.canvas.ops if op.kind == "text"}
    assert set(drawing.centres) <= texts


def test_numbering_styles_appear_in_labels(boards):
    assert "A-6" in boards["alpha-desc"][1].numbers
    assert "009.01" in boards["desc-cols"][1].numbers and "001.01" in boards["desc-cols"][1].numbers
    assert "A,01" in boards["row-first"][1].numbers and "F,08" in boards["row-first"][1].numbers
    assert "0001" in boards["stagger"][1].numbers


# -- hexside features ---------------------------------------------------------

def _dist(p, q):
    return math.hypot(p[0] - q[0], p[1] - q[1])


@pytest.mark.parametrize("name", ALL)
def test_hexside_features_lie_on_the_named_hexsides(boards, name):
    scenario, drawing = boards[name]
    centres = drawing.centres
    hmap = scenario.map
    drawn = {(h.type, h.a, h.b) for h in drawing.hexsides}
    assert drawn == {(h.type, h.a, h.b) for h in hmap.hexsides}
    checked = 0
    for h in drawing.hexsides:
        ca, cb = centres[h.a], centres[h.b]
        p, q = h.points
        mid = ((p[0] + q[0]) / 2, (p[1] + q[1]) / 2)
        if h.drawn_as == "hexside":
            # midpoint equidistant from the two hexes, nearer to them than to any other
            da, db = _dist(mid, ca), _dist(mid, cb)
            assert da == pytest.approx(db, abs=1e-6)
            others = [_dist(mid, c) for label, c in centres.items() if label not in (h.a, h.b)]
            assert not others or min(others) > da + 1.0
            if h.kind == "bridge":     # across the side, along a → b
                cross = (q[0] - p[0]) * (cb[1] - ca[1]) - (q[1] - p[1]) * (cb[0] - ca[0])
                assert abs(cross) < 1e-6 * _dist(p, q) * _dist(ca, cb)
                checked += 1
                continue
            # the side's ends are corners of both hexagons
            for end in (p, q):
                for label in (h.a, h.b):
                    assert min(_dist(end, c) for c in drawing.geometry.polygons[label]) <= 1.0
            assert _dist(p, q) == pytest.approx(abs(hmap.grid.grid.dy) / math.sqrt(3), abs=1.5)
            checked += 1
        else:
            assert (p, q) == (tuple(map(float, ca)), tuple(map(float, cb)))
            assert _dist(mid, ((ca[0] + cb[0]) / 2, (ca[1] + cb[1]) / 2)) < 1e-9
    assert checked or not any(t.drawn_as == "hexside" for t in hmap.hexside_types.values())


def test_hexside_kinds():
    kinds = {h.type: h.kind for name in ["pointy"] for h in _variant_drawing("pointy").hexsides}
    assert kinds == {"river": "river", "stream": "stream", "bridge": "bridge", "road": "road",
                     "track": "track", "railway": "railway"}


_CACHE: dict = {}


def _variant_drawing(name):
    if name not in _CACHE:
        import tempfile

        folder = Path(tempfile.mkdtemp())
        _CACHE[name] = board_drawing(load_scenario(make_scenario(folder / name, VARIANTS[name])))
    return _CACHE[name]


def test_drawing_refuses_a_hexside_between_non_adjacent_hexes(boards):
    import dataclasses

    from vmodtool.scenario.model import Hexside

    scenario, _ = boards["modern-tactical"]
    bad = dataclasses.replace(scenario.map, hexsides=(Hexside("river", "0101", "0505"),))
    with pytest.raises(VmodError, match="not adjacent"):
        board_drawing(dataclasses.replace(scenario, map=bad))


# -- the command ---------------------------------------------------------------

def test_board_command_writes_the_vassal_board(tmp_path):
    out = tmp_path / "board.png"
    key = tmp_path / "key.png"
    scen = REPO / "examples" / "combat-commander" / "scenario.yaml"
    result = CliRunner().invoke(board, [str(scen), "-o", str(out), "--key", str(key)])
    assert result.exit_code == 0, result.output
    assert "VASSAL board" in result.output
    with Image.open(out) as img:
        assert img.size == tuple(load_scenario(scen).map.size)
    with Image.open(key) as img:
        assert img.size[0] > 100 and img.size[1] > 100


def test_board_command_print_resolution(tmp_path):
    out = tmp_path / "print.png"
    scen = REPO / "examples" / "ww1-operational" / "scenario.yaml"
    result = CliRunner().invoke(board, [str(scen), "-o", str(out), "--dpi", "100",
                                        "--hex-size", "0.75"])
    assert result.exit_code == 0, result.output
    data = out.read_bytes()
    i = data.index(b"pHYs")
    ppm = struct.unpack(">I", data[i + 4:i + 8])[0]
    assert ppm == round(100 / 0.0254)
    with Image.open(out) as img:
        img.load()
        scale = 100 * 0.75 / 76
        assert img.size[0] == round(load_scenario(scen).map.size[0] * scale)
        assert img.size[1] > round(load_scenario(scen).map.size[1] * scale)   # sheet strip


def _bad_terrain(doc):
    doc["map"]["terrain"]["rows"] = {"01": " ".join(["Q"] * 9)}


def _bad_hexside(doc):
    labels = list(build_map_grid(VARIANTS["pointy"]).hexes)
    doc["map"]["hexsides"].append({"type": "river", "between": [[labels[0], labels[-1]]]})


@pytest.mark.parametrize("mutate, message", [(_bad_terrain, "unknown terrain code 'Q'"),
                                             (_bad_hexside, "are not adjacent")])
def test_board_command_reports_bad_map_data(tmp_path, mutate, message):
    scen = make_scenario(tmp_path / "bad", VARIANTS["pointy"], mutate=mutate)
    out = tmp_path / "board.png"
    result = CliRunner(mix_stderr=False).invoke(board, [str(scen), "-o", str(out)]) \
        if "mix_stderr" in CliRunner.__init__.__code__.co_varnames \
        else CliRunner().invoke(board, [str(scen), "-o", str(out)])
    assert result.exit_code == 2
    text = result.output + (result.stderr if hasattr(result, "stderr") else "")
    assert message in text
    assert "scenario.yaml:" in text            # located by file and line
    assert not out.exists()


def test_board_command_never_overwrites_its_input(tmp_path):
    scen = make_scenario(tmp_path / "s", VARIANTS["pointy"])
    before = scen.read_bytes()
    result = CliRunner().invoke(board, [str(scen), "-o", str(scen)])
    assert result.exit_code == 2
    assert scen.read_bytes() == before


# -- rasterising ---------------------------------------------------------------

def test_bands_join_without_seams(monkeypatch, tmp_path):
    scenario = load_scenario(make_scenario(tmp_path / "s", VARIANTS["stagger"]))
    whole = render_board(scenario)
    monkeypatch.setattr(board_canvas, "BAND_PIXELS", 40_000)
    drawing = board_drawing(scenario)
    assert drawing.canvas.band_height() < 20
    path = tmp_path / "banded.png"
    drawing.write(path)
    with Image.open(path) as banded:
        assert banded.tobytes() == whole.tobytes()


@pytest.mark.parametrize("mode", ["RGB", "RGBA"])
@pytest.mark.parametrize("style,size,stroke", [("condensed", 38, 6), ("condensed", 29, 5), ("condensed-bold", 16, 2),
                                               ("regular", 20, 0), ("condensed", 9, 1)])
def test_glyph_texts_are_pillows_pixels(mode, style, size, stroke):
    # hex numbers drawn from glyph masks rasterised once: the very pixels of ImageDraw.text
    from PIL import ImageDraw

    from vmodtool.render.fonts import load_font

    background = (230, 226, 195, 255) if mode == "RGBA" else (230, 226, 195)
    halo = (240, 238, 225) if stroke else None
    texts = ["0101", "1111", "2930", "1414", "07", "10.05", "A12", "B-7", "3 4", "1"]
    drawn = 0
    for text in texts:
        for anchor in ("mm", "lt", "rb", "ms", "la"):
            expected, got = Image.new(mode, (200, 120), background), Image.new(mode, (200, 120), background)
            ImageDraw.Draw(expected).text((100, 60), text, font=load_font(style, size), fill=(52, 50, 46),
                                          anchor=anchor, stroke_width=stroke, stroke_fill=halo)
            if board_canvas._glyph_text(ImageDraw.Draw(got), (100, 60), text, style, size, anchor,
                                        (52, 50, 46), halo, stroke):
                drawn += 1
                assert got.tobytes() == expected.tobytes(), (text, anchor)
    assert drawn == len(texts) * 5


def test_glyph_texts_leave_other_texts_to_pillow():
    from PIL import ImageDraw

    draw = ImageDraw.Draw(Image.new("RGB", (200, 120)))
    for text in ("Мост", "office", "AVA", "", "ab"):   # Cyrillic, a ligature, a kerning pair, nothing, lower case
        assert not board_canvas._glyph_text(draw, (100, 60), text, "condensed", 38, "mm", (0, 0, 0), None, 0)


@pytest.mark.parametrize("broken", ["moved", "raises"])
def test_glyph_texts_are_left_to_pillow_where_they_would_differ(monkeypatch, broken):
    # another Pillow may rasterise or place glyphs otherwise (or lack the
    # calls used): the first text of each size is drawn both ways, and a
    # difference leaves every text of that size to ImageDraw.text
    from PIL import ImageDraw

    original = board_canvas._glyph_text_unchecked

    def moved(draw, at, *args):
        return original(draw, (at[0] + 1, at[1]), *args)

    def raises(*args):
        raise TypeError("getmask2() got an unexpected keyword argument 'stroke_filled'")

    monkeypatch.setattr(board_canvas, "_exact", {})
    monkeypatch.setattr(board_canvas, "_glyph_text_unchecked", moved if broken == "moved" else raises)
    draw = ImageDraw.Draw(Image.new("RGB", (200, 120)))
    for text in ("0101", "0102"):
        assert not board_canvas._glyph_text(draw, (100, 60), text, "condensed", 38, "mm", (0, 0, 0), None, 0)
    assert board_canvas._exact == {("condensed", 38, 0, "mm", "RGB"): False}


def test_png_stream_is_valid(tmp_path):
    scenario = example("modern-tactical")
    path = tmp_path / "b.png"
    write_board(scenario, path)
    data = path.read_bytes()
    assert data.startswith(b"\x89PNG")
    idat = b""
    pos = 8
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        crc = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])[0]
        assert crc == zlib.crc32(kind + chunk) & 0xFFFFFFFF
        if kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    raw = zlib.decompress(idat)
    assert len(raw) == 720 * (1 + 732 * 3)


def test_cyrillic_texts_render(boards):
    scenario, drawing = boards["combat-commander"]
    texts = [op.args[2] for op in drawing.canvas.ops if op.kind == "text"]
    assert "Мост Сен-Луи" in texts
    key = render_key(scenario)
    assert key.size[1] > 200
    from vmodtool.render.fonts import load_font

    assert load_font("condensed-bold", 20).getmask("Мост").getbbox() is not None


# -- grid check and the module's board image ------------------------------------------

def test_grid_check_over_a_board_image(tmp_path):
    scen = REPO / "examples" / "modern-tactical" / "scenario.yaml"
    scenario = load_scenario(scen)
    image_path = tmp_path / "scan.png"
    render_board(scenario).save(image_path)
    out = tmp_path / "check.png"
    result = CliRunner().invoke(grid_check, [str(image_path), "--scenario", str(scen), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "120 hexes" in result.output and "dx=55.43" in result.output
    with Image.open(out) as img:
        assert img.size == (732, 720)
    # the same grid from the options of the scenario format
    result = CliRunner().invoke(grid_check, [str(image_path), "--hex-height", "64", "--hex-width",
                                             "55.43", "--columns", "12", "--rows", "10", "-o",
                                             str(tmp_path / "c2.png")])
    assert result.exit_code == 0, result.output
    assert "x0=61 y0=56" in result.output
    # raw VASSAL attributes: every hex whose centre is on the image
    result = CliRunner().invoke(grid_check, [str(image_path), "--vassal", "dx=55.43", "--vassal",
                                             "dy=64", "--vassal", "x0=61", "--vassal", "y0=56",
                                             "-o", str(tmp_path / "c3.png")])
    assert result.exit_code == 0, result.output


def test_grid_check_reports_a_size_mismatch(tmp_path):
    image_path = tmp_path / "scan.png"
    Image.new("RGB", (700, 600), "white").save(image_path)
    scen = REPO / "examples" / "modern-tactical" / "scenario.yaml"
    result = CliRunner().invoke(grid_check, [str(image_path), "--scenario", str(scen)])
    assert result.exit_code == 1
    assert (tmp_path / "scan-grid.png").exists()
    result = CliRunner().invoke(grid_check, [str(image_path), "--scenario", str(scen), "-o",
                                             str(image_path)])
    assert result.exit_code == 2


def test_overlay_draws_the_grid_on_the_centres():
    scenario = example("ww1-operational")
    base = Image.new("RGB", scenario.map.size, "white")
    over = overlay_grid(base, scenario.map.grid, numbers=False)
    for label, (cx, cy) in scenario.map.grid.centres.items():
        r, g, b, _a = over.getpixel((cx, cy))
        assert r > 150 and g < 120, label          # the red centre cross


def test_module_board_image(tmp_path):
    scenario = example("modern-tactical")
    assert module_board_image(scenario).size == (732, 720)
    import dataclasses

    scan = tmp_path / "scan.png"
    Image.new("RGB", (700, 700)).save(scan)
    wrong = dataclasses.replace(scenario, map=dataclasses.replace(scenario.map, board_image=scan))
    with pytest.raises(VmodError, match="732x720"):
        module_board_image(wrong)
    Image.new("RGB", (732, 720)).save(scan)
    assert module_board_image(wrong).size == (732, 720)


def test_every_texture_kind_draws_inside_its_hex_and_keeps_out():
    """Each texture kind draws symbols, all inside the hex; a box the
    texture must keep out of stays clear; an unknown kind draws nothing."""
    import random

    from vmodtool.render.board_canvas import Canvas
    from vmodtool.render.board_symbols import TEXTURES, Hex, draw_texture

    size = 100.0
    corners = tuple((100 + size / math.sqrt(3) * math.cos(math.pi / 3 * k),
                     100 + size / math.sqrt(3) * math.sin(math.pi / 3 * k)) for k in range(6))
    cell = Hex(100.0, 100.0, size, corners)
    reach = size / math.sqrt(3) + 2.0
    taken = (60.0, 90.0, 140.0, 110.0)           # a place name across the middle

    def keep_out(box):
        return box[0] < taken[2] and taken[0] < box[2] and box[1] < taken[3] and taken[1] < box[3]

    for kind in TEXTURES:
        canvas = Canvas((200, 200))
        drawn: list = []
        draw_texture(canvas, kind, cell, (120, 160, 90), random.Random(7), record=drawn)
        assert canvas.ops and drawn, kind
        for x0, y0, x1, y1 in (op.bbox for op in canvas.ops):
            assert 100 - reach <= x0 and x1 <= 100 + reach and 100 - reach <= y0 and y1 <= 100 + reach, kind
        kept: list = []
        draw_texture(canvas := Canvas((200, 200)), kind, cell, (120, 160, 90), random.Random(7),
                     keep_out=keep_out, record=kept)
        assert not any(keep_out(box) for box in kept), kind
    canvas = Canvas((200, 200))
    draw_texture(canvas, "no-such-texture", cell, (120, 160, 90), random.Random(7))
    draw_texture(canvas, None, cell, (120, 160, 90), random.Random(7))
    assert not canvas.ops
