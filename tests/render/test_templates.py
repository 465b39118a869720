"""Counter templates (templates/, vmodtool/scenario/templates.py) and face
images (faces[].image): golden images per template, selection by name, path,
side and unit type, located errors, and a face image that reaches the
module, the counter PNGs and the print sheet."""

from __future__ import annotations

import shutil
import zipfile
from dataclasses import replace
from io import BytesIO
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tests.render.golden_images import check_golden
from vmodtool.render import counters as C
from vmodtool.render.templates_preview import with_template
from vmodtool.scenario import check_scenario, load_scenario
from vmodtool.scenario.templates import TemplateError, bundled_templates, load_template

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
GOLDEN = Path(__file__).resolve().parent / "golden" / "templates"
#: per template: the example and counters its golden image shows
CASES = {
    "nato": ("modern-tactical", ("syr.t72.1", "idf.hq_a", "idf.inf.1"), None),
    "silhouette": ("modern-tactical", ("syr.t72.1", "idf.hq_a", "idf.m113.1"), None),
    "combat-commander": ("combat-commander", ("it.sq_elite", "fr.ldr.1", "it.mmg"), None),
}


def test_three_templates_ship() -> None:
    names = bundled_templates()
    assert {"nato", "silhouette", "combat-commander"} <= set(names)
    for path in names.values():
        assert load_template(path).name == path.stem


def _strip(example: str, ids: tuple[str, ...], template: str) -> Image.Image:
    sc = with_template(load_scenario(EXAMPLES / example / "scenario.yaml"), template)
    specs = [s for s in C.counter_specs(sc) if s.id in ids]
    assert len(specs) == len(ids)
    faces = [im for s in specs for im in C.render_spec(s, 75)]
    strip = Image.new("RGB", (len(faces) * 75, 75))
    for i, im in enumerate(faces):
        strip.paste(im, (i * 75, 0))
    return strip


@pytest.mark.parametrize("template", sorted(CASES))
def test_golden_template(template: str) -> None:
    example, ids, _ = CASES[template]
    img = _strip(example, ids, template)
    check_golden(img, GOLDEN / f"{template}.png")


def test_templates_differ_and_default_is_nato() -> None:
    sc = load_scenario(EXAMPLES / "modern-tactical" / "scenario.yaml")
    default = C.render_spec(C.counter_specs(sc)[0], 75)[0]
    nato = C.render_spec(C.counter_specs(with_template(sc, "nato"))[0], 75)[0]
    sil = C.render_spec(C.counter_specs(with_template(sc, "silhouette"))[0], 75)[0]
    assert default.tobytes() == nato.tobytes()
    assert sil.tobytes() != nato.tobytes()


def _box_ink(img: Image.Image, box: tuple[float, float, float, float], ink: tuple[int, int, int]) -> int:
    a = np.asarray(img, dtype=np.int16)
    s = img.width
    x0, y0, x1, y1 = (round(v * s) for v in box)
    part = a[y0:y1, x0:x1]
    return int((np.abs(part - np.array(ink)).max(axis=2) < 60).sum())


def test_size_mark_is_above_the_symbol_not_between_the_factors() -> None:
    """The platoon's dots lie below the top row (the factors' band holds no
    ink in the middle, between the two factor pairs)."""
    sc = load_scenario(EXAMPLES / "modern-tactical" / "scenario.yaml")
    spec = next(s for s in C.counter_specs(sc) if s.id == "idf.mk.1")
    face = spec.faces[0][1]
    g = C._geometry(face)
    img = C.render_face(face, 600, border=False)
    top_band = (0.51, g["top_off"] + 0.01, 0.6, g["top_y"] + 0.06)      # between "5-10" and "3-8"
    assert _box_ink(img, top_band, face.ink) == 0
    mark_top = g["frame_cy"] - 0.31 * g["frame_w"] - 0.27 * g["frame_w"]
    assert mark_top > g["top_y"] + 0.18 * 0.729 / 2 + 0.01                # below the top row's capitals
    assert _box_ink(img, (0.45, mark_top, 0.55, mark_top + 0.1), face.ink) > 100   # the dots are there


def test_label_is_legible_and_clear_of_the_factors() -> None:
    sc = load_scenario(EXAMPLES / "ww1-operational" / "scenario.yaml")
    sizes = []
    for spec in C.counter_specs(sc):
        for _name, face in spec.faces:
            if face.kind != "unit" or not face.label:
                continue
            texts = C._layout_texts(face, 75)
            label = [t for t in texts if t.font.font.family and t.text in face.label]
            bottom = [t for t in texts if t.y > 0.8 * 75]
            for lab in label:
                sizes.append(lab.font.size)
                assert lab.font.size >= 8, (face.where, lab.font.size)
                for b in bottom:
                    gap = (b.y - b.font.size * 0.729 / 2) - (lab.y + lab.font.size * 0.729 / 2)
                    assert gap >= 2, (face.where, lab.text, b.text, gap)
    assert sorted(sizes)[len(sizes) // 2] >= 11      # was 9 px (6 px capitals) for every label


# -- selection and errors ---------------------------------------------------------------------
def _copy(tmp_path: Path, example: str) -> Path:
    folder = tmp_path / example
    shutil.copytree(EXAMPLES / example, folder, ignore=shutil.ignore_patterns("logs"))
    return folder / "scenario.yaml"


def _add_style(path: Path, line: str) -> None:
    text = path.read_text("utf-8")
    assert "\nstyles:" not in text
    path.write_text(text + "\nstyles:\n  counter:\n" + line + "\n", "utf-8")


def test_unknown_template_is_a_located_scenario_error(tmp_path: Path) -> None:
    path = _copy(tmp_path, "modern-tactical")
    _add_style(path, "    template: nope")
    problems = check_scenario(path)[1]
    msgs = [str(p) for p in problems]
    assert any("unknown counter template 'nope'" in m and f"{path}:" in m for m in msgs), msgs


def test_template_by_path_side_and_unit_type(tmp_path: Path) -> None:
    path = _copy(tmp_path, "modern-tactical")
    mine = path.parent / "mine.yaml"
    mine.write_text((ROOT / "templates" / "silhouette.yaml").read_text("utf-8").replace(
        "name: silhouette", "name: mine") + "sides:\n  idf: {fill: '#102030', ink: '#ffffff'}\n", "utf-8")
    _add_style(path, "    template: {default: nato, sides: {idf: mine.yaml}, unit_types: {t72_plt: silhouette}}")
    assert not [p for p in check_scenario(path)[1] if p.severity == "error"]
    specs = {s.id: s for s in C.counter_specs(load_scenario(path))}
    idf = specs["idf.mk.1"].faces[0][1]
    assert idf.template.name == "mine" and idf.fill == (16, 32, 48) and idf.art == "tank"
    assert specs["syr.t72.1"].faces[0][1].template.name == "silhouette"
    assert specs["syr.brdm"].faces[0][1].template.name == "nato"


def test_bad_template_file_names_its_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("vmodtool_template: 1\nname: bad\ncorners: {style: round}\n", "utf-8")
    with pytest.raises(TemplateError) as err:
        load_template(bad)
    assert str(err.value).startswith(f"{bad}: line 3: corners.style")


def test_text_that_does_not_fit_names_the_scenario_line(tmp_path: Path) -> None:
    path = _copy(tmp_path, "combat-commander")
    text = path.read_text("utf-8")
    path.write_text(text.replace('"Лейтенант Дюран"', '"Лейтенант-Дюран-Монморанси"'), "utf-8")
    sc = load_scenario(path)
    with pytest.raises(C.CounterTextError) as err:
        C.counter_specs(sc)
    assert f"{path}:" in str(err.value) and "Лейтенант-Дюран-Монморанси" in str(err.value)


# -- face images --------------------------------------------------------------------------------
MAGENTA = (255, 0, 255)


def _with_face_image(tmp_path: Path, image_line: str) -> Path:
    path = _copy(tmp_path, "modern-tactical")
    art = Image.new("RGB", (40, 20), (0, 200, 0))
    art.paste(MAGENTA, (10, 0, 30, 20))
    art.save(path.parent / "merkava.png")
    text = path.read_text("utf-8")
    old = "- {name: full,    state: {step: full},    factors: {ap: 5, ap_range: 10,"
    assert old in text
    path.write_text(text.replace(old, "- {name: full,    state: {step: full}, " + image_line
                                 + " factors: {ap: 5, ap_range: 10,", 1), "utf-8")
    return path


def _magenta(img: Image.Image) -> int:
    a = np.asarray(img.convert("RGB"), dtype=np.int16)
    return int((np.abs(a - np.array(MAGENTA)).max(axis=2) < 30).sum())


def test_missing_face_image_is_a_located_error(tmp_path: Path) -> None:
    path = _with_face_image(tmp_path, "image: nothere.png,")
    msgs = [str(p) for p in check_scenario(path)[1]]
    line = next(i for i, ln in enumerate(path.read_text("utf-8").splitlines(), 1) if "nothere.png" in ln)
    assert any("face image 'nothere.png' does not exist" in m and f"{path}:{line}" in m for m in msgs), msgs


def test_unreadable_face_image_is_a_located_error(tmp_path: Path) -> None:
    path = _with_face_image(tmp_path, "image: notes.png,")
    (path.parent / "notes.png").write_text("not an image", "utf-8")
    msgs = [str(p) for p in check_scenario(path)[1]]
    assert any("'notes.png' is not an image" in m and f"{path}:" in m for m in msgs), msgs


@pytest.mark.parametrize("fit, expect", [("contain", 0.5), ("stretch", 0.5), ("cover", 1.0)])
def test_fit_modes(tmp_path: Path, fit: str, expect: float) -> None:
    """contain keeps the image's aspect (magenta: half its width); cover fills the
    box and crops (with position 0.5: only the magenta middle remains)."""
    path = _with_face_image(tmp_path, f"image: {{file: merkava.png, fit: {fit}, box: face}},")
    face = next(s for s in C.counter_specs(load_scenario(path)) if s.id == "idf.mk.1").faces[0][1]
    pic, _ox, _oy = C._fitted_image(face.image, 100, 100)
    share = _magenta(pic) / (pic.width * pic.height)
    assert abs(share - expect) < 0.05, share


def test_crop_and_position(tmp_path: Path) -> None:
    path = _with_face_image(tmp_path, "image: {file: merkava.png, crop: [0, 0, 10, 20], fit: cover},")
    face = next(s for s in C.counter_specs(load_scenario(path)) if s.id == "idf.mk.1").faces[0][1]
    pic, _ox, _oy = C._fitted_image(face.image, 50, 50)
    assert _magenta(pic) == 0                     # the crop keeps only the green left part
    bad = _with_face_image(tmp_path / "b", "image: {file: merkava.png, crop: [30, 0, 20, 20]},")
    msgs = [str(p) for p in check_scenario(bad)[1]]
    assert any("must lie inside the image, which is 40x20" in m for m in msgs), msgs


def test_face_image_reaches_counters_module_and_sheets(tmp_path: Path) -> None:
    from vmodtool.assemble.builder import build_module_file
    from vmodtool.render.sheets import SheetOptions, write_sheets

    path = _with_face_image(tmp_path, "image: merkava.png,")
    assert not [p for p in check_scenario(path)[1] if p.severity == "error"]
    sc = load_scenario(path)
    # the counters' PNG (VASSAL size and print)
    m = C.render_all(sc, tmp_path / "out", resolutions=("vassal", 300), jobs=1)
    vassal = Image.open(m.path("idf.mk.1", "full", "vassal"))
    assert vassal.size == (75, 75) and _magenta(vassal) > 150
    assert _magenta(Image.open(m.path("idf.mk.1", "full", 300))) > 150 * 6
    assert _magenta(Image.open(m.path("idf.mk.1", "reduced", "vassal"))) == 0
    # the module's image of that face
    vmod = tmp_path / "game.vmod"
    build_module_file(path, vmod, jobs=1)
    with zipfile.ZipFile(vmod) as z:
        names = [n for n in z.namelist() if n.startswith("images/") and "mk.1" in n and "full" in n]
        assert names, [n for n in z.namelist() if "mk.1" in n]
        img = Image.open(BytesIO(z.read(names[0])))
        assert img.size == (75, 75) and _magenta(img) > 150
    # the print sheet page
    pages = tmp_path / "pages"
    write_sheets(sc, None, SheetOptions(), png_dir=pages)
    fronts = sorted(pages.glob("*.png"))
    assert fronts and max(_magenta(Image.open(p)) for p in fronts) > 150 * 6


def test_silhouette_art_is_drawn_instead_of_the_nato_box() -> None:
    sc = with_template(load_scenario(EXAMPLES / "modern-tactical" / "scenario.yaml"), "silhouette")
    face = next(s for s in C.counter_specs(sc) if s.id == "idf.mk.1").faces[0][1]
    assert face.art == "tank"
    plain = replace(face, art=None, nato=None)
    assert C.render_face(face, 120).tobytes() != C.render_face(plain, 120).tobytes()


@pytest.mark.parametrize("how", ["dotdot", "symlink", "absolute"])
def test_a_template_outside_the_scenario_folder_is_refused(tmp_path: Path, how: str) -> None:
    """Issue 40 item 4: a template file is read only from the scenario's
    folder, as its images are (``..``, an absolute path and a symbolic link
    out of the folder are refused at check-scenario, and never rendered)."""
    from click.testing import CliRunner

    from vmodtool.cli import cli
    path = _copy(tmp_path, "modern-tactical")
    outside = tmp_path / "outside.yaml"
    outside.write_text((ROOT / "templates" / "silhouette.yaml").read_text("utf-8"), "utf-8")
    ref = {"dotdot": "../outside.yaml", "symlink": "link.yaml", "absolute": str(outside)}[how]
    if how == "symlink":
        (path.parent / "link.yaml").symlink_to(outside)
    _add_style(path, f"    template: {ref}")
    result = CliRunner().invoke(cli, ["check-scenario", str(path)])
    assert result.exit_code == 2, result.output
    flagged = [ln for ln in result.output.splitlines() if f"the counter template {ref!r} must be inside" in ln]
    assert len(flagged) == 1 and flagged[0].startswith(f"{path}:"), result.output
