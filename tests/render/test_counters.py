"""Counter rendering: sizes, faces, Cyrillic, golden images, the batch with
its cache and manifest, and clear errors for bad data."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tests.render.golden_images import check_golden
from vmodtool.errors import VmodError
from vmodtool.render import counters as C
from vmodtool.render import fonts
from vmodtool.scenario import load_scenario
from vmodtool.scenario.model import NatoSpec

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
GOLDEN = Path(__file__).resolve().parent / "golden" / "counters"


@pytest.fixture(scope="module")
def tactical():
    return load_scenario(EXAMPLES / "modern-tactical" / "scenario.yaml")


@pytest.fixture(scope="module")
def ww1():
    return load_scenario(EXAMPLES / "ww1-operational" / "scenario.yaml")


@pytest.fixture(scope="module")
def russian():
    return load_scenario(EXAMPLES / "combat-commander" / "scenario.yaml")


def with_style(scenario, **counter_style):
    styles = dict(scenario.styles)
    styles["counter"] = {**(styles.get("counter") or {}), **counter_style}
    return replace(scenario, styles=styles)


def with_unit_type(scenario, type_id, **changes):
    types = dict(scenario.unit_types)
    types[type_id] = replace(types[type_id], **changes)
    return replace(scenario, unit_types=types)


# -- sizes ------------------------------------------------------------------------------
@pytest.mark.parametrize("size, dpi, px", [
    ("5/8in", "vassal", 75), ("5/8in", 300, 188), ("5/8in", 600, 375),
    ("1/2in", 300, 150), ("1/2in", 600, 300), ("3/4in", 300, 225), ("3/4in", "vassal", 90),
    ("16mm", 300, 189), ("16mm", 600, 378), ("60px", "vassal", 60), ("60px", 300, 150),
])
def test_exact_pixel_size_at_each_resolution(tactical, size, dpi, px):
    sc = with_style(tactical, size=size)
    style = C.counter_style(sc)
    assert C.resolution_px(style, dpi) == px
    spec = C.counter_specs(sc, style)[0]
    for img in C.render_spec(spec, C.resolution_px(style, dpi)):
        assert img.size == (px, px) and img.mode == "RGB"


def test_vassal_px_override(tactical):
    style = C.counter_style(with_style(tactical, vassal_px=64))
    assert C.resolution_px(style, "vassal") == 64


def test_parse_size():
    assert C.parse_size("5/8in") == (0.625, "in")
    assert C.parse_size("16mm") == (16.0, "mm")
    assert C.parse_size("0.75in") == (0.75, "in")
    with pytest.raises(C.CounterError, match="5/8in"):
        C.parse_size("five eighths")


# -- faces --------------------------------------------------------------------------------
def test_every_face_of_every_counter(tactical):
    specs = C.counter_specs(tactical)
    units = [s for s in specs if s.kind == "unit"]
    assert [s.id for s in units] == [c.id for c in tactical.counters]
    for spec in units:
        utype = tactical.unit_types[tactical.counter(spec.id).type]
        assert [n for n, _ in spec.faces] == [f.name for f in utype.faces]
    images = C.render_counter_faces(tactical, "syr.t72.1", px=188)
    assert len(images) == 2
    front, back = (np.asarray(i, dtype=np.int16) for i in images)
    assert np.abs(front - back).mean() > 10          # lighter back, reduced factors
    # the reduced marker band along the bottom edge of the back
    assert tuple(back[-3, 94]) == (192, 32, 32)
    assert tuple(front[-3, 94]) != (192, 32, 32)


def test_reduced_face_has_its_own_factors(tactical):
    spec = next(s for s in C.counter_specs(tactical) if s.id == "syr.t72.1")
    (_, full), (_, reduced) = spec.faces
    assert dict(full.regions)["top_left"] == "4-8" and dict(reduced.regions)["top_left"] == "2-8"
    assert not full.reduced and reduced.reduced
    assert full.pips == (2, 2) and reduced.pips == (1, 2)


def test_side_colours_and_stripe(tactical):
    idf, syr = (np.asarray(C.render_counter_faces(tactical, cid, px=100)[0])
                for cid in ("idf.mk.1", "syr.t72.1"))
    assert tuple(idf[50, 20]) == (0xc9, 0xd7, 0xe8)   # side fill
    assert tuple(syr[3, 50]) == (0x7a, 0x1f, 0x1f)    # side stripe across the top
    assert tuple(syr[50, 20]) == (0xe8, 0xd4, 0x8f)


def test_hq_command_range_badge_when_layout_lacks_it(tactical):
    sc = replace(tactical, factor_layouts={**tactical.factor_layouts,
                                           "hq": {"style": "tactical", "bottom": "{move}"}})
    spec = next(s for s in C.counter_specs(sc) if s.id == "syr.hq_78")
    assert spec.faces[0][1].command_range == "4"
    spec = next(s for s in C.counter_specs(tactical) if s.id == "syr.hq_78")
    assert spec.faces[0][1].command_range is None     # printed by the layout already


def test_cyrillic_renders(russian):
    spec = next(s for s in C.counter_specs(russian) if s.id == "fr.ldr.1")
    face = spec.faces[0][1]
    assert face.label == "Лейтенант Дюран"
    with_label = np.asarray(C.render_face(face, 188), dtype=np.int16)
    without = np.asarray(C.render_face(replace(face, label=None), 188), dtype=np.int16)
    assert np.abs(with_label - without).sum() > 0
    font = fonts.load_font("condensed-bold", 40)
    # DejaVu has the glyphs: no .notdef boxes (which would all be alike)
    masks = {ch: bytes(font.getmask(ch)) for ch in "ДюрнЛ"}
    assert len(set(masks.values())) == 5


def test_markers_and_chits(tactical):
    specs = {s.id: s for s in C.counter_specs(tactical)}
    layers = [k for k, m in tactical.markers.items() if m.representation == "layer"]
    assert all(f"marker.{k}" not in specs for k in layers)
    assert specs["marker.out_of_command"].faces[0][1].title == "OOC"
    assert specs["chit.team_ari"].count == 2                  # formation chits: 2
    assert specs["marker.end_turn_chit"].count == 2            # end_turn_chits: 2
    img = C.render_marker(tactical, "wreck", px=120)
    assert img.size == (120, 120)
    assert img.getpixel((10, 60)) == (0x50, 0x50, 0x50)


# -- golden images --------------------------------------------------------------------
GOLDEN_CASES = [
    ("modern-tactical", "syr.t72.1"), ("modern-tactical", "idf.hq_a"),
    ("modern-tactical", "syr.brdm"), ("ww1-operational", "ger.inf.1"),
    ("ww1-operational", "all.hq3"), ("combat-commander", "it.sq_elite"),
    ("combat-commander", "marker.foxholes"),
]


@pytest.mark.parametrize("example, cid", GOLDEN_CASES)
def test_golden_images(example, cid):
    sc = load_scenario(EXAMPLES / example / "scenario.yaml")
    spec = next(s for s in C.counter_specs(sc) if s.id == cid)
    for (name, _), img in zip(spec.faces, C.render_spec(spec, 120), strict=True):
        check_golden(img, GOLDEN / f"{example}__{C.face_filename(cid, name)}", max_off=24)


# -- batch -----------------------------------------------------------------------------------
def test_render_all_manifest_names_and_cache(tmp_path, tactical):
    out = tmp_path / "out"
    m = C.render_all(tactical, out, resolutions=("vassal", 300), jobs=2)
    n_faces = sum(len(s.faces) for s in C.counter_specs(tactical))
    assert len(m.entries) == 2 * n_faces and m.rendered == 2 * n_faces and m.cached == 0
    p = m.path("syr.t72.1", "reduced", 300)
    assert p == out / "300dpi" / "syr.t72.1__reduced.png"
    assert Image.open(p).size == (188, 188)
    assert Image.open(m.path("syr.t72.1", "full")).size == (75, 75)
    for e in m.entries:
        assert e.path.isascii() and (out / e.path).is_file()
    data = json.loads((out / "counters.json").read_text())
    assert data["renderer"] == C.RENDERER_VERSION and len(data["entries"]) == len(m.entries)
    # unchanged: nothing redrawn
    m2 = C.render_all(tactical, out, resolutions=("vassal", 300), jobs=1)
    assert m2.rendered == 0 and m2.cached == 2 * n_faces
    # one unit type changed: only its counters are redrawn
    changed = tactical.unit_types["rcl_team"]
    face = replace(changed.faces[0], factors={**changed.faces[0].factors, "move": 4})
    sc = with_unit_type(tactical, "rcl_team", faces=(face,))
    before = (out / "vassal" / "syr.rcl__full.png").read_bytes()
    m3 = C.render_all(sc, out, resolutions=("vassal", 300), jobs=1)
    assert m3.rendered == 2 and m3.cached == 2 * n_faces - 2
    assert (out / "vassal" / "syr.rcl__full.png").read_bytes() != before
    # a deleted file is redrawn
    (out / "vassal" / "idf.mk.1__full.png").unlink()
    m4 = C.render_all(sc, out, resolutions=("vassal",), jobs=1)
    assert m4.rendered == 2 and (out / "vassal" / "idf.mk.1__full.png").is_file()


def test_progress_callback(tmp_path, tactical):
    seen = []
    C.render_all(tactical, tmp_path, resolutions=("vassal",), jobs=1, cache=False,
                 progress=lambda d, t: seen.append((d, t)))
    assert seen[0] == (0, len(C.counter_specs(tactical))) and seen[-1][0] == seen[-1][1]


def test_safe_names_are_ascii_and_stable():
    assert C.face_filename("syr.t72.1", "full") == "syr.t72.1__full.png"
    odd = C.face_filename("fr.sq", "сломлен face")
    assert odd.isascii() and odd == C.face_filename("fr.sq", "сломлен face")
    assert odd != C.face_filename("fr.sq", "разбит face")


def test_identical_output_every_run(tactical):
    a = C.render_counter_faces(tactical, "idf.cobra", px=150)
    b = C.render_counter_faces(tactical, "idf.cobra", px=150)
    assert [i.tobytes() for i in a] == [i.tobytes() for i in b]


# -- bad data ------------------------------------------------------------------------------
def test_unknown_symbol_is_a_clear_error(tactical):
    sc = with_unit_type(tactical, "t72_plt", nato=NatoSpec("laser_tank", "platoon"))
    with pytest.raises(VmodError, match="unknown NATO symbol 'laser_tank'") as info:
        C.counter_specs(sc)
    assert "unit type t72_plt" in str(info.value) and "scenario.yaml" in str(info.value)


def test_missing_factor_is_a_clear_error(tactical):
    utype = tactical.unit_types["t72_plt"]
    faces = (utype.faces[0], replace(utype.faces[1], factors={"ap": 2, "move": 8}))
    with pytest.raises(C.CounterError, match="counter syr.t72.1, face reduced.*'ap_range'"):
        C.counter_specs(with_unit_type(tactical, "t72_plt", faces=faces))


def test_text_that_does_not_fit_names_counter_face_and_text(tactical):
    utype = tactical.unit_types["t72_plt"]
    face = replace(utype.faces[0], factors={**utype.faces[0].factors, "move": 123456789012})
    with pytest.raises(C.CounterTextError) as info:
        C.counter_specs(with_unit_type(tactical, "t72_plt", faces=(face, utype.faces[1])))
    msg = str(info.value)
    assert "counter syr.t72.1, face full" in msg and "123456789012" in msg and "fit" in msg


def test_long_label_shrinks_before_failing(tactical):
    counters = tuple(replace(c, label="Golani Brigade 1") if c.id == "idf.inf.1" else c
                     for c in tactical.counters)
    C.counter_specs(replace(tactical, counters=counters))   # shrinks, fits
    counters = tuple(replace(c, label="Golani Brigade, 1st Battalion, Company A") if c.id == "idf.inf.1"
                     else c for c in tactical.counters)
    with pytest.raises(C.CounterTextError, match="label"):
        C.counter_specs(replace(tactical, counters=counters))


def test_unknown_font_is_a_clear_error(tactical):
    with pytest.raises(C.CounterError, match="font 'Arial' is not bundled"):
        C.counter_style(with_style(tactical, font="Arial"))


def test_missing_font_file_is_a_clear_error(tactical, monkeypatch):
    monkeypatch.setitem(fonts.FONT_STYLES, "bold", "NoSuchFont.ttf")
    with pytest.raises(VmodError, match="NoSuchFont.ttf is missing"):
        C.counter_style(tactical)


@pytest.mark.parametrize("style, text", [
    ({"size": "huge"}, "bad styles.counter.size"),
    ({"reduced_mark": "red"}, "bad colour"),
    ({"sise": "5/8in"}, "unknown option"),
    ({"size": "10px"}, "at least 24 px"),
])
def test_bad_style_is_a_clear_error(tactical, style, text):
    with pytest.raises(C.CounterError, match=text):
        C.counter_specs(with_style(tactical, **style))


def test_counters_command(tmp_path):
    from click.testing import CliRunner

    from vmodtool.commands.counters import counters_command

    scen = str(EXAMPLES / "combat-commander" / "scenario.yaml")
    res = CliRunner().invoke(counters_command, [scen, "-o", str(tmp_path / "c"), "--no-print", "-q"])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "c" / "vassal" / "fr.hero__front.png").is_file()
    assert not (tmp_path / "c" / "300dpi").exists()
    res = CliRunner().invoke(counters_command, [scen, "-o", str(tmp_path / "c"), "--dpi", "600"])
    assert res.exit_code == 0 and "unchanged" in res.output
    assert Image.open(tmp_path / "c" / "600dpi" / "fr.hero__front.png").size == (375, 375)
