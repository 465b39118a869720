"""Print sheets: page sizes, duplex mirror geometry (checked numerically on
the page pixels), printer offset, die-cut blocks, counts, PDF structure."""

from __future__ import annotations

import re
import zlib
from io import BytesIO
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageOps

from vmodtool.render import counters as C
from vmodtool.render import sheets as S
from vmodtool.render.counter_pdf import pdf_from_pngs, png_bytes, png_idat
from vmodtool.scenario import load_scenario

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def tactical():
    return load_scenario(EXAMPLES / "modern-tactical" / "scenario.yaml")


@pytest.fixture(scope="module")
def specs(tactical):
    return C.counter_specs(tactical)


@pytest.mark.parametrize("paper, dpi, size", [
    ("a4", 300, (2480, 3508)), ("a4", 600, (4961, 7016)),
    ("letter", 300, (2550, 3300)), ("letter", 600, (5100, 6600)),
])
def test_page_pixel_size(paper, dpi, size):
    assert S.SheetOptions(paper=paper, dpi=dpi).page_px == size


@pytest.mark.parametrize("flip", ["long", "short"])
@pytest.mark.parametrize("offset", [(0.0, 0.0), (1.5, -0.8)])
def test_back_positions_mirror_the_front(specs, flip, offset):
    opts = S.SheetOptions(flip=flip, offset_mm=offset)
    layout = S.layout_sheets(specs, 188, opts)
    pw, ph = opts.page_px
    dx, dy = round(offset[0] * 300 / 25.4), round(offset[1] * 300 / 25.4)
    for p in layout.sheets[0]:
        if flip == "long":
            assert (p.back_x - dx, p.back_y - dy) == (pw - p.x - 188, p.y)
            assert p.back_x - dx == S.mirror_x(p.x, 188, pw)
        else:
            assert (p.back_x - dx, p.back_y - dy) == (p.x, ph - p.y - 188)


def test_duplex_pages_align_pixel_for_pixel(specs):
    """Flip the back page the way a duplex printer does and check that the
    back of every counter lies exactly behind its front."""
    opts = S.SheetOptions(cut_marks=False)
    layout, pages = S.render_sheet_pages(specs, 120, opts, jobs=1)
    front = Image.open(BytesIO(pages[0])).convert("RGB")
    back = Image.open(BytesIO(pages[1])).convert("RGB")
    seen_through = np.asarray(ImageOps.mirror(back))     # long-edge flip, seen from the front
    for p in layout.sheets[0]:
        spec = specs[p.spec_index]
        if len(spec.faces) < 2:
            continue
        expected_back = np.asarray(ImageOps.mirror(C.render_face(spec.faces[1][1], 120, border=False)))
        expected_front = np.asarray(C.render_face(spec.faces[0][1], 120, border=False))
        box = (slice(p.y, p.y + 120), slice(p.x, p.x + 120))
        assert np.array_equal(np.asarray(front)[box], expected_front), spec.id
        assert np.array_equal(seen_through[box], expected_back), spec.id


def test_printer_offset_moves_the_back_page(specs):
    plain = S.render_sheet_pages(specs, 120, S.SheetOptions(cut_marks=False), jobs=1)[1][1]
    shifted = S.render_sheet_pages(specs, 120, S.SheetOptions(cut_marks=False, offset_mm=(2.54, -1.27)),
                                   jobs=1)[1][1]
    a = np.asarray(Image.open(BytesIO(plain)))
    b = np.asarray(Image.open(BytesIO(shifted)))
    # +2.54 mm = +30 px right, -1.27 mm = -15 px (up) at 300 dpi; compare the counter area
    assert np.array_equal(b[200 - 15:1500 - 15, 300 + 30:2200 + 30], a[200:1500, 300:2200])


def test_bleed_extends_the_edge_colour(specs):
    layout, pages = S.render_sheet_pages(specs, 120, S.SheetOptions(cut_marks=False, bleed_mm=1.0),
                                         jobs=1)
    front = np.asarray(Image.open(BytesIO(pages[0])))
    p = layout.sheets[0][0]
    bleed = round(300 / 25.4)
    fill = tuple(specs[p.spec_index].faces[0][1].fill)
    assert tuple(front[p.y + 60, p.x - bleed]) == fill            # left bleed
    assert tuple(front[p.y + 60, p.x - bleed - 2]) == (255, 255, 255)


def test_die_cut_blocks_abut(specs):
    opts = S.SheetOptions(blocks=(4, 4), block_gap_mm=6)
    layout = S.layout_sheets(specs, 188, opts)
    xs = sorted({p.x for p in layout.sheets[0]})
    steps = {b - a for a, b in zip(xs, xs[1:], strict=False)}
    assert 188 in steps and (188 + round(6 * 300 / 25.4)) in steps
    inner = [p for p in layout.sheets[0] if p.x - 188 in xs and p.x + 188 in xs]
    assert inner and all(p.bleed[0] == 0 and p.bleed[2] == 0 for p in inner)


def test_counts_are_honoured(specs):
    layout = S.layout_sheets(specs, 188, S.SheetOptions())
    placed = [specs[p.spec_index].id for sheet in layout.sheets for p in sheet]
    assert len(placed) == sum(s.count for s in specs)
    assert placed.count("chit.team_ari") == 2 and placed.count("syr.t72.1") == 1
    small = S.layout_sheets(specs * 10, 188, S.SheetOptions())
    assert len(small.sheets) == -(-sum(s.count for s in specs) * 10 // small.per_sheet)


@pytest.mark.parametrize("kw, text", [
    ({"paper": "a3"}, "unknown paper"), ({"dpi": 1200}, "300 or 600"),
    ({"bleed_mm": 3, "gutter_mm": 2}, "more than half the gutter"),
    ({"flip": "sideways"}, "long or short"), ({"offset_mm": (30, 0)}, "calibration"),
])
def test_bad_options(specs, kw, text):
    with pytest.raises(S.SheetError, match=text):
        S.layout_sheets(specs, 188, S.SheetOptions(**kw))


def test_counter_larger_than_page(specs):
    with pytest.raises(S.SheetError, match="does not fit"):
        S.layout_sheets(specs, 2600, S.SheetOptions())


def test_calibration_back_rulers_mirror_front_crosses():
    opts = S.SheetOptions(dpi=300, offset_mm=(6.0, 0.0))
    front, back = (np.asarray(p.convert("L")) for p in S.calibration_pages(opts))
    pw, ph = opts.page_px
    x, y = pw // 4, ph // 4
    assert front[y, x] < 128 and front[y, x + 30] < 128          # cross lines
    mm = 300 / 25.4
    bx = pw - x + round(6 * mm)                                   # mirrored, then offset
    row = round(y + 5.5 * mm)                                     # between two ruler ticks
    assert back[row, bx] < 200 and back[row, pw - x] > 200


def test_pdf_is_lossless_and_sized(tmp_path, tactical):
    res = S.write_sheets(tactical, tmp_path / "s.pdf", S.SheetOptions(calibration=True),
                         png_dir=tmp_path / "png", jobs=1)
    data = (tmp_path / "s.pdf").read_bytes()
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
    assert res.pages == 4 and [p.name for p in res.pngs][:2] == ["calibration-front.png",
                                                                 "calibration-back.png"]
    assert b"DCTDecode" not in data and data.count(b"/FlateDecode") == 4
    boxes = re.findall(rb"/MediaBox \[0 0 ([0-9.]+) ([0-9.]+)\]", data)
    assert all(abs(float(w) - 595.28) < 0.01 and abs(float(h) - 841.89) < 0.01 for w, h in boxes)
    # the image stream is the sheet PNG's own IDAT data: same pixels
    w, h, idat = png_idat((tmp_path / "png" / "sheet-01-back.png").read_bytes())
    assert (w, h) == (2480, 3508) and idat in data
    assert len(zlib.decompress(idat)) == h * (3 * w + 1)


def test_pdf_writer_roundtrip():
    img = Image.new("RGB", (30, 20), (10, 200, 30))
    pdf = pdf_from_pngs([png_bytes(img)], 300)
    assert b"/Width 30 /Height 20" in pdf and b"/Count 1" in pdf
    xref = int(pdf.rsplit(b"startxref", 1)[1].split()[0])
    assert pdf[xref:xref + 4] == b"xref"


def test_sheets_command(tmp_path):
    from click.testing import CliRunner

    from vmodtool.commands.counters import sheets_command

    scen = str(EXAMPLES / "ww1-operational" / "scenario.yaml")
    res = CliRunner().invoke(sheets_command, [scen, "-o", str(tmp_path / "s.pdf"), "--paper", "letter",
                                              "--offset", "0.5,-1", "--blocks", "5x5", "-j", "1"])
    assert res.exit_code == 0, res.output
    assert "sheet" in res.output and (tmp_path / "s.pdf").is_file()
    res = CliRunner().invoke(sheets_command, [scen, "-o", str(tmp_path / "t.pdf"), "--offset", "x"])
    assert res.exit_code == 2 and "DX,DY" in res.output
    res = CliRunner().invoke(sheets_command, [scen])
    assert res.exit_code == 2


def _example_scenarios():
    """Every example; those bound to a published module with its buildFile
    from shared/ (skipped without it)."""
    modules = {"ragnarok": ("corpus", "ragnarok", "buildFile.xml"), "the-longest-day": ("corpus", "tld", "buildFile"),
               "paths-of-glory": ("corpus", "pog", "buildFile.xml")}
    for path in sorted(EXAMPLES.glob("*/scenario.yaml")):
        yield pytest.param(path, modules.get(path.parent.name), id=path.parent.name)


@pytest.mark.parametrize("path, module", list(_example_scenarios()))
def test_every_face_of_every_example_is_printed(path, module):
    """The layout draws each face of each counter as often as the counter is
    printed: a third face is an extra chit, never left off."""
    if module is not None:
        from tests.conftest import shared_path

        module = shared_path(*module)        # skips without shared/
    scenario = load_scenario(path, module=module)
    specs = C.counter_specs(scenario)
    layout = S.layout_sheets(specs, 188, S.SheetOptions())
    printed: dict[tuple[int, int], int] = {}
    for _sheet, idx, face, _side in layout.printed_faces():
        printed[idx, face] = printed.get((idx, face), 0) + 1
    expected = {(i, f): spec.count for i, spec in enumerate(specs) for f in range(len(spec.faces)) if spec.count}
    assert printed == expected
    assert len(layout.printed_faces()) == sum(s.count * len(s.faces) for s in specs)
    # fronts only: every front face, and the count of what is left off is known
    assert len(layout.printed_faces(backs=False)) == sum(s.count * (len(s.faces) + 1) // 2 for s in specs)


def test_third_face_is_drawn_on_an_extra_chit():
    ww1 = load_scenario(EXAMPLES / "ww1-operational" / "scenario.yaml")
    specs = C.counter_specs(ww1)
    assert any(len(s.faces) == 3 for s in specs)
    layout, pages = S.render_sheet_pages(specs, 120, S.SheetOptions(), jobs=1)
    front = np.asarray(Image.open(BytesIO(pages[0])).convert("RGB"))
    back = np.asarray(Image.open(BytesIO(pages[1])).convert("RGB"))
    third = [p for sheet in layout.sheets[:1] for p in sheet if p.front_face == 2]
    assert len(third) == sum(1 for s in specs if len(s.faces) == 3)
    for p in third:
        spec = specs[p.spec_index]
        assert p.back_face is None
        drawn = front[p.y:p.y + 120, p.x:p.x + 120]
        assert np.array_equal(drawn, np.asarray(C.render_face(spec.faces[2][1], 120, border=False))), spec.id
        plain = back[p.back_y:p.back_y + 120, p.back_x:p.back_x + 120]
        assert (plain == np.array(spec.faces[2][1].fill, dtype=np.uint8)).all()
        # the chit follows its counter on the sheet
        before = layout.sheets[0][layout.sheets[0].index(p) - 1]
        assert (before.spec_index, before.front_face, before.back_face) == (p.spec_index, 0, 1)


def test_registration_disks_sit_outside_the_grid_corners(specs):
    opts = S.SheetOptions()
    layout, pages = S.render_sheet_pages(specs, 188, opts, jobs=1)
    for number, mirrored in ((0, None), (1, "long")):
        page = np.asarray(Image.open(BytesIO(pages[number])).convert("L"))
        points = S.registration_points(layout.col_edges, layout.row_edges, layout.page_px, 300, mirrored)
        grid = (min(layout.col_edges), min(layout.row_edges), max(layout.col_edges), max(layout.row_edges))
        for x, y in points:
            assert page[int(y), int(x)] == 0                        # the disk's centre is black
            assert not grid[0] <= x <= grid[2] and not grid[1] <= y <= grid[3]
            top, left = int(y) - 30, int(x) - 30                      # the disk is 47 px across
            dark = np.argwhere(page[top:top + 61, left:left + 61] < 128)
            centre = dark.mean(axis=0) + 0.5 + (top, left)             # pixel i covers [i, i + 1)
            assert abs(centre - (y, x)).max() < 0.6                    # centred on the point
