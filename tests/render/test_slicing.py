"""``vmodtool slice``: a sheet drawn by ``vmodtool sheets`` cut again gives
back the faces it was drawn from (Latin, Cyrillic, three faces; from PNG
and from the PDF page), also turned by half a degree and shifted like a
scan; a grid by hand; names; bad input as one located line and exit 2."""

from __future__ import annotations

import json
from io import BytesIO
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from PIL import Image

from vmodtool.errors import VmodError
from vmodtool.render import counters as C
from vmodtool.render import sheets as S
from vmodtool.render import slicing as L
from vmodtool.scenario import load_scenario

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SIZE = 188                                     # 5/8 in at 300 dpi, as write_sheets draws them


@pytest.fixture(scope="module", params=["modern-tactical", "combat-commander", "ww1-operational"])
def drawn(request, tmp_path_factory):
    """A scenario, its counter specs, and its first sheet's front and back
    pages written as PNG (as ``vmodtool sheets --png`` writes them)."""
    scenario = load_scenario(EXAMPLES / request.param / "scenario.yaml")
    specs = C.counter_specs(scenario)
    layout, pages = S.render_sheet_pages(specs, SIZE, S.SheetOptions(), jobs=1)
    folder = tmp_path_factory.mktemp(request.param)
    (folder / "front.png").write_bytes(pages[0])
    (folder / "back.png").write_bytes(pages[1])
    return scenario, specs, layout, folder


def _differences(got: Image.Image, expected: Image.Image) -> tuple[float, int]:
    """Mean absolute difference per channel (worst channel) and the largest
    difference, both inside a 1-px border."""
    a = np.asarray(got.convert("RGB"), dtype=np.int16)[1:-1, 1:-1]
    b = np.asarray(expected.convert("RGB"), dtype=np.int16)[1:-1, 1:-1]
    assert a.shape == b.shape
    diff = np.abs(a - b)
    return float(diff.mean(axis=(0, 1)).max()), int(diff.max())


def _expected(specs, layout):
    """File name → the face image it must hold, from the layout of sheet 1."""
    out = {}
    for p in layout.sheets[0]:
        spec = specs[p.spec_index]
        out[C.face_filename(spec.id, spec.faces[p.front_face][0])] = spec.faces[p.front_face][1]
        if p.back_face is not None:
            out[C.face_filename(spec.id, spec.faces[p.back_face][0])] = spec.faces[p.back_face][1]
    return out


def test_slice_gives_back_the_counters(drawn, tmp_path):
    scenario, specs, layout, folder = drawn
    result = L.slice_sheet(folder / "front.png", tmp_path, back=folder / "back.png",
                           names=lambda cols, rows: L.names_from_scenario(scenario, 1, cols, rows))
    assert (result.cols, result.rows, result.source, result.angle_deg) == (10, 14, "marks", 0.0)
    expected = _expected(specs, layout)
    assert sorted(p.name for p in result.files) == sorted(expected)
    for name, face in expected.items():
        got = Image.open(tmp_path / name)
        assert got.size == (SIZE, SIZE)
        mean, worst = _differences(got, C.render_face(face, SIZE, border=False))
        assert mean < 0.5 and worst <= 8, (name, mean, worst)
    # the empty cells of the part-filled sheet are not written
    assert result.empty == 140 - len(layout.sheets[0])
    manifest = json.loads(result.manifest.read_text(encoding="utf-8"))
    assert len(manifest["images"]) == len(layout.sheets[0])
    labels = {f[1].label for s in specs for f in s.faces if f[1].label}
    if any("А" <= ch <= "я" for text in labels for ch in text):     # combat-commander: Cyrillic counters
        assert any(name.startswith("fr.sq_elite") for name in expected)


def test_third_faces_come_back_from_their_chits(tmp_path):
    scenario = load_scenario(EXAMPLES / "ww1-operational" / "scenario.yaml")
    specs = C.counter_specs(scenario)
    layout, pages = S.render_sheet_pages(specs, SIZE, S.SheetOptions(), jobs=1)
    (tmp_path / "f.png").write_bytes(pages[0])
    result = L.slice_sheet(tmp_path / "f.png", tmp_path / "out",
                           names=lambda cols, rows: L.names_from_scenario(scenario, 1, cols, rows),
                           scenario_dir=EXAMPLES / "ww1-operational")
    third = [s for s in specs if len(s.faces) == 3]
    assert third
    for spec in third:
        got = Image.open(tmp_path / "out" / C.face_filename(spec.id, spec.faces[2][0]))
        assert _differences(got, C.render_face(spec.faces[2][1], SIZE, border=False))[1] <= 8
    snippet = result.snippet.read_text(encoding="utf-8")
    assert '{name: "replenished", image: "' in snippet and "unit_types:" in snippet


def test_slice_reads_the_pdf_page(tmp_path):
    scenario = load_scenario(EXAMPLES / "combat-commander" / "scenario.yaml")
    S.write_sheets(scenario, tmp_path / "s.pdf", S.SheetOptions(cards=False, calibration=True),
                   png_dir=tmp_path / "png", jobs=1)
    from_pdf = L.read_sheet_image(tmp_path / "s.pdf", page=3)               # after the calibration pair
    from_png = L.read_sheet_image(tmp_path / "png" / "sheet-01-front.png")
    assert np.array_equal(np.asarray(from_pdf), np.asarray(from_png))
    with pytest.raises(L.SliceError, match=r"s\.pdf: page 9 asked, but the PDF has 4 page image"):
        L.read_sheet_image(tmp_path / "s.pdf", page=9)


def _scanned(page: Image.Image, angle: float, shift: tuple[int, int]) -> Image.Image:
    """The page on a larger scanner bed, shifted and turned clockwise by
    ``angle`` degrees about the bed's centre."""
    bed = Image.new("RGB", (page.width + 160, page.height + 160), (255, 255, 255))
    bed.paste(page, (80 + shift[0], 80 + shift[1]))
    return bed.rotate(-angle, resample=Image.Resampling.BICUBIC, fillcolor=(255, 255, 255))


#: the turn of each example's scan: straight, clockwise, anticlockwise (every
#: example and every direction once, without the nine combinations' time)
SCAN_ANGLE = {"modern-tactical": 0.5, "combat-commander": -0.5, "ww1-operational": 0.0}


def test_a_turned_and_shifted_scan_is_straightened(drawn, tmp_path):
    scenario, specs, layout, folder = drawn
    angle = SCAN_ANGLE[folder.name.rstrip("0123456789")]
    front = _scanned(Image.open(folder / "front.png").convert("RGB"), angle, (37, -23))
    back = _scanned(Image.open(folder / "back.png").convert("RGB"), -angle / 2, (-11, 19))
    front.save(tmp_path / "scan-front.png")
    back.save(tmp_path / "scan-back.jpg", quality=95)
    result = L.slice_sheet(tmp_path / "scan-front.png", tmp_path / "out", back=tmp_path / "scan-back.jpg",
                           dpi=300, names=lambda cols, rows: L.names_from_scenario(scenario, 1, cols, rows))
    assert (result.cols, result.rows) == (10, 14)
    assert abs(result.angle_deg - angle) < 0.02
    for name, face in _expected(specs, layout).items():
        got = Image.open(tmp_path / "out" / name)
        mean, worst = _differences(got, C.render_face(face, SIZE, border=False))
        if angle == 0.0 and not name.endswith(tuple(f"__{f[0]}.png" for s in specs for f in s.faces[1:2])):
            assert mean < 0.5 and worst <= 8, (name, mean, worst)       # a shifted PNG: the same pixels
        else:                                   # resampled twice (and the back a JPEG): anti-aliasing only
            assert mean < 5, (name, mean)


@pytest.mark.parametrize("angle", [2.5, -3.0])
def test_marks_are_found_on_a_page_turned_a_few_degrees(angle):
    scenario = load_scenario(EXAMPLES / "modern-tactical" / "scenario.yaml")
    layout, pages = S.render_sheet_pages(C.counter_specs(scenario), SIZE, S.SheetOptions(), jobs=1)
    page = Image.open(BytesIO(pages[0])).convert("RGB")
    grid = L.find_grid(_scanned(page, angle, (0, 0)), dpi=300)
    assert (grid.cols, grid.rows) == (10, 14) and abs(grid.angle_deg - angle) < 0.01
    first = grid.cell(0, 0).box
    assert abs(first[2] - first[0] - SIZE) < 0.5 and abs(first[3] - first[1] - SIZE) < 0.5


def test_grid_by_hand_on_a_sheet_without_marks(tmp_path):
    scenario = load_scenario(EXAMPLES / "modern-tactical" / "scenario.yaml")
    specs = C.counter_specs(scenario)
    layout, pages = S.render_sheet_pages(specs, SIZE, S.SheetOptions(cut_marks=False, flip="short"), jobs=1)
    (tmp_path / "f.png").write_bytes(pages[0])
    (tmp_path / "b.png").write_bytes(pages[1])
    with pytest.raises(L.SliceError, match="no registration marks found"):
        L.slice_sheet(tmp_path / "f.png", tmp_path / "x")
    first = layout.sheets[0][0]
    gutter = layout.sheets[0][1].x - first.x - SIZE
    grid = L.GridOptions(10, 14, (first.x, first.y), (SIZE, SIZE), (gutter, gutter))
    result = L.slice_sheet(tmp_path / "f.png", tmp_path / "out", back=tmp_path / "b.png", grid=grid, flip="short")
    assert result.source == "options" and result.fronts == len(layout.sheets[0])
    for p in layout.sheets[0][:25]:
        spec = specs[p.spec_index]
        row, col = divmod(layout.sheets[0].index(p), 10)
        stem = f"r{row + 1:02d}c{col + 1:02d}"
        assert _differences(Image.open(tmp_path / "out" / f"{stem}.png"),
                            C.render_face(spec.faces[0][1], SIZE, border=False))[1] == 0
        back = Image.open(tmp_path / "out" / f"{stem}-back.png")
        if p.back_face is not None:
            assert _differences(back, C.render_face(spec.faces[1][1], SIZE, border=False))[1] == 0
        else:
            assert back.getcolors() == [(SIZE * SIZE, spec.faces[0][1].fill)]


def test_names_from_csv_in_any_script(tmp_path):
    scenario = load_scenario(EXAMPLES / "combat-commander" / "scenario.yaml")
    specs = C.counter_specs(scenario)
    layout, pages = S.render_sheet_pages(specs, SIZE, S.SheetOptions(), jobs=1)
    sheet = tmp_path / "лист 1.png"
    sheet.write_bytes(pages[0])
    names = tmp_path / "имена.csv"
    names.write_text("row,col,name\n1,1,Отделение А\n1,2,команда.png\n", encoding="utf-8")
    result = L.slice_sheet(sheet, tmp_path / "вырезки", names=L.names_from_csv(names), size=(75, 75))
    files = {p.name for p in result.files}
    assert {"Отделение А.png", "команда.png", "r01c03.png"} <= files
    assert Image.open(tmp_path / "вырезки" / "Отделение А.png").size == (75, 75)
    names.write_text("row,col,name\n1,1,a\nx,2,b\n", encoding="utf-8")
    with pytest.raises(L.SliceError, match=r"имена\.csv: line 3: row and col must be numbers"):
        L.names_from_csv(names)
    names.write_text("row,col,name\n1,1,../evil\n", encoding="utf-8")
    with pytest.raises(L.SliceError, match="line 2: image name '../evil' cannot be a file name"):
        L.names_from_csv(names)
    names.write_text("row,col,name,back\n1,1,a,b\n1,2,B.png\n", encoding="utf-8")
    with pytest.raises(L.SliceError, match="line 3: image name 'B.png' is used twice"):
        L.names_from_csv(names)
    names.write_text("row,col,name\n1,1,лист 1\n", encoding="utf-8")          # the sheet itself
    with pytest.raises(VmodError, match="лист 1.png"):
        L.slice_sheet(sheet, tmp_path, names=L.names_from_csv(names))
    assert sheet.read_bytes() == pages[0]
    names.write_text("row,col,name\n20,1,far\n", encoding="utf-8")
    with pytest.raises(L.SliceError, match="row 20, col 1, but the sheet has 14 rows"):
        L.slice_sheet(sheet, tmp_path / "x", names=L.names_from_csv(names))


def test_grid_outside_the_image(tmp_path):
    Image.new("RGB", (400, 300), "white").save(tmp_path / "small.png")
    with pytest.raises(L.SliceError, match=r"small\.png: the grid \(3 × 2 counters of 188 × 188 px from 10,10\) "
                                           r"spans 10…574 × 10…386, outside the 400 × 300 image"):
        L.slice_sheet(tmp_path / "small.png", tmp_path / "x", grid=L.GridOptions(3, 2, (10, 10), (188, 188)))


def _cli(*args: str):
    from vmodtool.cli import cli

    return CliRunner().invoke(cli, ["slice", *args])


def test_slice_command(tmp_path):
    scenario = EXAMPLES / "ww1-operational" / "scenario.yaml"
    from vmodtool.cli import cli

    done = CliRunner().invoke(cli, ["sheets", str(scenario), "-o", str(tmp_path / "s.pdf"), "-q", "-j", "1"])
    assert done.exit_code == 0, done.output
    res = _cli(str(tmp_path / "s.pdf"), "--back-page", "2", "--scenario", str(scenario), "-o", str(tmp_path / "f"))
    assert res.exit_code == 0, res.output
    assert "33 front and 20 back images from a 10 × 14 grid (from the marks; 107 empty cells)" in res.output
    assert (tmp_path / "f" / "ger.hq14__replenished.png").is_file() and (tmp_path / "f" / "faces.yaml").is_file()
    res = _cli(str(tmp_path / "s.pdf"), "--grid", "10x14", "--origin", "12mm,17.8mm", "--cell", "188",
               "--gutter", "35", "--scan-dpi", "300", "-o", str(tmp_path / "g"), "-q")
    assert res.exit_code == 0, res.output
    assert len(list((tmp_path / "g").glob("r*.png"))) == 33


@pytest.mark.parametrize("args, text", [
    (["README.md"], "README.md: cannot read the sheet image: "),
    (["examples/formats/demo.vlog"], "demo.vlog: cannot read the sheet image: "),
    (["--grid", "3x3", "--origin", "0,0", "--cell", "5000", "BLANK"], "outside the 300 × 200 image"),
    (["BLANK"], "BLANK.png: no registration marks found"),
    (["BLANK", "--page", "2"], "--page is for a PDF"),
    (["--origin", "1,1", "BLANK"], "needs --grid COLSxROWS"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, monkeypatch, args, text):
    monkeypatch.chdir(EXAMPLES.parent)
    Image.new("RGB", (300, 200), "white").save(tmp_path / "BLANK.png")
    args = [str(tmp_path / "BLANK.png") if a == "BLANK" else a for a in args]
    res = _cli(*args, "-o", str(tmp_path / "out"))
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    lines = res.output.strip().splitlines()
    if args[0] == "--origin":                  # a usage error: Click's usage lines, then the error
        assert lines[-1] == f"Error: a grid by hand {text}, --origin X,Y and --cell W[,H]"
    else:                                      # bad input: one line naming the file
        assert len(lines) == 1 and text in lines[0], lines


@pytest.mark.parametrize("options, size", [
    (S.SheetOptions(blocks=(5, 4)), SIZE),                        # die-cut blocks: counters abut
    (S.SheetOptions(blocks=(3, 3), bleed_mm=0, flip="short"), SIZE),
    (S.SheetOptions(paper="letter", dpi=600), 375),
])
def test_marks_give_every_layout_s_cells(options, size):
    specs = C.counter_specs(load_scenario(EXAMPLES / "combat-commander" / "scenario.yaml"))
    layout, pages = S.render_sheet_pages(specs, size, options, jobs=1)
    for number in (0, 1):
        grid = L.find_grid(Image.open(BytesIO(pages[number])).convert("RGB"), dpi=options.dpi)
        placed = {(p.back_x, p.back_y) if number else (p.x, p.y) for p in layout.sheets[0]}
        boxes = {(c.box[0], c.box[1]) for c in grid.cells}
        assert len(grid.cells) == layout.per_sheet and placed <= boxes
        assert all(c.box[2] - c.box[0] == size == c.box[3] - c.box[1] for c in grid.cells)


def test_card_sheets_carry_the_same_marks():
    from vmodtool.render.card_sheets import render_card_sheet_pages

    scenario = load_scenario(EXAMPLES / "combat-commander" / "scenario.yaml")
    sheets, pages = render_card_sheet_pages(scenario, S.SheetOptions())
    grid = L.find_grid(Image.open(BytesIO(pages[0])).convert("RGB"), dpi=300)
    first = sheets[0].placements[0]
    assert (grid.cols, grid.rows) == (3, 3)
    assert grid.cell(0, 0).box == (first.x, first.y, first.x + sheets[0].card_px[0], first.y + sheets[0].card_px[1])


def test_a_pdf_image_that_claims_more_than_it_may_is_refused_without_inflating(tmp_path) -> None:
    import zlib as _zlib

    from vmodtool.render.slicing import SliceError, read_sheet_image

    bomb = _zlib.compress(b"\0" * (1 << 24))                # 16 MB of zeros in a few KB
    pdf = (b"%PDF-1.4\n1 0 obj << /Type /XObject /Subtype /Image /Width 100000 /Height 100000 "
           b"/ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode /Length "
           + str(len(bomb)).encode() + b" >>\nstream\n" + bomb + b"\nendstream\nendobj\n%%EOF\n")
    path = tmp_path / "bomb.pdf"
    path.write_bytes(pdf)
    with pytest.raises(SliceError, match="claims 100000x100000 pixels"):
        read_sheet_image(path)
    # many objects without a stream before one: still found (and quickly)
    small = _zlib.compress(bytes(3 * 4 * 4))
    many = b"".join(b"%d 0 obj << /Type /Font >>\nendobj\n" % i for i in range(2, 20000))
    pdf = (b"%PDF-1.4\n" + many + b"1 0 obj << /Subtype /Image /Width 4 /Height 4 /ColorSpace /DeviceRGB "
           b"/BitsPerComponent 8 /Filter /FlateDecode /Length " + str(len(small)).encode()
           + b" >>\nstream\n" + small + b"\nendstream\nendobj\n")
    path.write_bytes(pdf)
    assert read_sheet_image(path).size == (4, 4)
