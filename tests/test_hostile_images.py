"""Hostile images (issue 40, items 5, 9 and 10): every reader of an image
goes through :mod:`vmodtool.images`, which refuses from the header an image
whose decoded pixels would pass the decode budget — exit 2 and one located
line, never Pillow's ``DecompressionBombError`` (exit 70) or its warning,
and a peak memory measured in a child process under 300 MB.

The files are made here (zlib over rows of zeros, fed a block at a time):
a few hundred kilobytes that claim gigabytes of pixels."""

from __future__ import annotations

import io
import os
import shutil
import struct
import subprocess
import sys
import zipfile
import zlib
from pathlib import Path

import pytest
from PIL import Image

from tests.cli_runner import PEAK_RSS_CHILD
from vmodtool.images import DECODE_BUDGET, ImageError, decoded_cost, image_size, load_image

REPO = Path(__file__).resolve().parents[1]
OWN_ART = REPO / "examples" / "own-art"
DEMO_LOG = REPO / "examples" / "formats" / "demo.vlog"
DEMO_MODULE = REPO / "examples" / "formats" / "demo.vmod"
MIB = 1 << 20
#: what a refused image may cost the whole command (issue 40's target)
CEILING = 300 * MIB

_CHILD = PEAK_RSS_CHILD.format(gib=3)


def run_measured(args: list[object], tmp_path: Path) -> tuple[int, str, str, int]:
    """(exit code, stdout, stderr, peak RSS in bytes) of ``vmodtool ARGS`` in a child."""
    if not Path("/proc/self/status").exists():
        pytest.skip("needs /proc (Linux) to measure the child's peak memory")
    report = tmp_path / "peak-kib"
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONWARNINGS": "default"}
    proc = subprocess.run([sys.executable, "-c", _CHILD, str(report), *map(str, args)], capture_output=True,
                          env=env, check=False, cwd=tmp_path)
    return (proc.returncode, proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8"),
            int(report.read_text()) * 1024)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def zero_png(width: int, height: int, *, colour: int = 2, depth: int = 8, rows: int | None = None) -> bytes:
    """A PNG of zeros (colour type 0 grey, 2 RGB, 6 RGBA) whose IDAT holds
    ``rows`` rows (all by default: a valid image; fewer: a truncated one
    Pillow still allocates whole)."""
    channels = {0: 1, 2: 3, 6: 4}[colour]
    row = bytes(1 + (width * channels * depth + 7) // 8)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, 0)) \
        + _chunk(b"IDAT", zlib_rows(row, height if rows is None else rows)) + _chunk(b"IEND", b"")


def zlib_rows(row: bytes, count: int) -> bytes:
    """zlib of ``row`` × ``count``, compressed a block of rows at a time."""
    packer = zlib.compressobj(9)
    block = max(1, (1 << 22) // len(row))
    out = []
    for start in range(0, count, block):
        out.append(packer.compress(row * min(block, count - start)))
    out.append(packer.flush())
    return b"".join(out)


def one_error_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("vmodtool: error: "), err
    assert "Traceback" not in err and "Warning" not in err
    return lines[0]


# --------------------------------------------------------------------------
# the helper

def test_the_cost_is_what_pillow_allocates():
    # Pillow keeps a 1-bit pixel in a byte and pads RGB to 4 bytes
    assert decoded_cost((100, 10), "1") == 1000
    assert decoded_cost((100, 10), "RGB") == 4000
    assert decoded_cost((100, 10), "P", "RGBA") == 5000
    assert decoded_cost((100, 10), "RGBA", "RGBA") == 4000


def test_a_truncated_png_claiming_too_much_is_refused_from_its_header(tmp_path):
    # 12000x12000 RGBA with ten rows of data: Pillow would allocate 576 MB
    path = tmp_path / "piece.png"
    path.write_bytes(zero_png(12000, 12000, colour=6, rows=10))
    with pytest.raises(ImageError) as refused:
        load_image(path)
    text = str(refused.value)
    assert text.startswith(f"{path}: image header: cannot read the image: it is 12000x12000 pixels of mode RGBA")
    assert f"{DECODE_BUDGET:,} bytes" in text and "\n" not in text


def test_an_image_given_as_bytes_is_named_by_its_entry():
    data = zero_png(9000, 9000, colour=6, rows=1)
    with pytest.raises(ImageError, match=r"^game\.vmod: images/x\.png, image header: .*9000x9000"):
        image_size(data, file="game.vmod", place="images/x.png")


def test_a_jpeg_shown_smaller_is_decoded_smaller():
    buf = io.BytesIO()
    Image.new("RGB", (4000, 4000), (200, 10, 10)).save(buf, "JPEG")
    data = buf.getvalue()
    # 64 MB at full size: over a 20 MB budget, under it at 1/4 (1000x1000)
    with pytest.raises(ImageError, match="4000x4000"):
        load_image(data, budget=20 * MIB)
    img = load_image(data, budget=20 * MIB, max_size=(900, 900), mode="RGBA")
    assert img.size == (1000, 1000) and img.mode == "RGBA"


def test_an_image_within_the_budget_is_loaded_without_a_copy(tmp_path):
    path = tmp_path / "ok.png"
    Image.new("LA", (30, 20), (5, 200)).save(path)
    img = load_image(path, mode="RGBA")
    assert img.size == (30, 20) and img.getpixel((0, 0)) == (5, 5, 5, 200)
    same = load_image(path)
    assert same.mode == "LA" and same.tobytes() == Image.open(path).tobytes()


# --------------------------------------------------------------------------
# 5. faces[].image a 50000x50000 1-bit PNG: check-scenario and build exit 2

@pytest.fixture(scope="module")
def bomb_art(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("bomb-art") / "own-art"
    shutil.copytree(OWN_ART, folder)
    (folder / "art" / "tank.png").write_bytes(zero_png(50000, 50000, colour=0, depth=1))
    assert (folder / "art" / "tank.png").stat().st_size < 400_000
    return folder / "scenario.yaml"


def test_check_scenario_refuses_a_face_image_bomb(bomb_art, tmp_path):
    code, out, err, rss = run_measured(["check-scenario", bomb_art], tmp_path)
    assert code == 2, (out, err)
    report = out + err
    assert "Traceback" not in report and "DecompressionBomb" not in report and "Warning" not in report
    flagged = [line for line in report.splitlines() if "art/tank.png" in line]
    assert flagged and all("scenario.yaml" in line and "pixels" in line for line in flagged), report
    assert rss < CEILING, f"{rss / MIB:.0f} MiB"


def test_build_refuses_a_face_image_bomb(bomb_art, tmp_path):
    code, out, err, rss = run_measured(["build", bomb_art, "-o", tmp_path / "x.vmod", "-q", "-j", "1"], tmp_path)
    assert code == 2, (out, err)
    assert "Traceback" not in err and "DecompressionBomb" not in err and "art/tank.png" in err
    assert not (tmp_path / "x.vmod").exists()
    assert rss < CEILING, f"{rss / MIB:.0f} MiB"


# --------------------------------------------------------------------------
# 9. slice: a 12000x12000 RGB PNG of zeros, a PDF page of 13000x13000

def test_slice_refuses_a_png_past_the_budget(tmp_path):
    sheet = tmp_path / "sheet.png"
    sheet.write_bytes(zero_png(12000, 12000))           # 0.4 MB; 576 MB decoded
    code, _, err, rss = run_measured(["slice", sheet, "-o", tmp_path / "faces"], tmp_path)
    line = one_error_line(err)
    assert code == 2 and f"{sheet}: image header: " in line and "12000x12000 pixels of mode RGB" in line
    assert rss < CEILING, f"{rss / MIB:.0f} MiB"


def _pdf_with_image(dictionary: bytes, stream: bytes) -> bytes:
    return (b"%PDF-1.4\n1 0 obj\n<< /Type /XObject /Subtype /Image " + dictionary
            + b" /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream\nendobj\n%%EOF\n")


def test_slice_refuses_a_pdf_page_image_past_the_budget(tmp_path):
    width = 13000
    stream = zlib_rows(bytes(1 + 3 * width), width)       # PNG-predicted rows, each with its filter byte
    pdf = tmp_path / "sheet.pdf"
    pdf.write_bytes(_pdf_with_image(
        b"/Width 13000 /Height 13000 /BitsPerComponent 8 /ColorSpace /DeviceRGB /Filter /FlateDecode "
        b"/DecodeParms << /Predictor 15 /Colors 3 /Columns 13000 >>", stream))
    code, _, err, rss = run_measured(["slice", pdf, "-o", tmp_path / "faces"], tmp_path)
    line = one_error_line(err)
    assert code == 2 and f"{pdf}: page 1 (object at byte 9), image header: " in line and "13000x13000" in line
    assert rss < CEILING, f"{rss / MIB:.0f} MiB"
    # the same page without a predictor: refused from its dictionary, nothing inflated
    pdf.write_bytes(_pdf_with_image(
        b"/Width 13000 /Height 13000 /BitsPerComponent 8 /ColorSpace /DeviceRGB /Filter /FlateDecode",
        zlib_rows(bytes(3 * width), width)))
    code, _, err, rss = run_measured(["slice", pdf, "-o", tmp_path / "faces"], tmp_path)
    line = one_error_line(err)
    assert code == 2 and "page 1 (object at byte 9): the page image claims 13000x13000 pixels" in line
    assert rss < CEILING, f"{rss / MIB:.0f} MiB"


# --------------------------------------------------------------------------
# 10. replay --png: a 9990x9990 RGBA board, a 12000x12000 piece image

def _demo_module_with(tmp_path: Path, images: dict[str, bytes]) -> Path:
    out = tmp_path / "hostile.vmod"
    with zipfile.ZipFile(DEMO_MODULE) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            dst.writestr(info.filename, images.get(info.filename, src.read(info.filename)))
    return out


@pytest.mark.parametrize("piece_rows", [None, 10], ids=["whole", "ten-rows"])
def test_replay_png_draws_within_the_budget_and_names_what_it_could_not_draw(tmp_path, piece_rows):
    module = _demo_module_with(tmp_path, {
        "images/board.png": zero_png(9990, 9990, colour=6),
        "images/blue-inf.png": zero_png(12000, 12000, colour=6, rows=piece_rows),
    })
    out = tmp_path / "step.png"
    code, _, err, rss = run_measured(["replay", DEMO_LOG, "-m", module, "--step", "3", "--png", out], tmp_path)
    assert code == 0, err
    warned = [line for line in err.splitlines() if "not drawn" in line]
    assert any("images/board.png: image header: " in line and "9990x9990" in line for line in warned), err
    assert any("images/blue-inf.png: image header: " in line and "12000x12000" in line for line in warned), err
    assert "Traceback" not in err and "DecompressionBomb" not in err
    with Image.open(out) as picture:
        # the 9990-pixel map drawn smaller, within the picture budget
        assert 3000 < picture.width < 9990
    assert rss < CEILING, f"{rss / MIB:.0f} MiB"
