"""The PNG writer of rendered images (``render/png.py``): its scanlines are
the image's rows each after a zero filter byte, and what it writes decodes
to the very pixels it was given."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageDraw

from vmodtool.render.board_canvas import Canvas
from vmodtool.render.png import encode_png, scanlines

CHANNELS = {"L": 1, "LA": 2, "RGB": 3, "RGBA": 4}


def _picture(mode: str, size: tuple[int, int]) -> Image.Image:
    img = Image.new("RGBA", size, (200, 30, 90, 255))
    draw = ImageDraw.Draw(img)
    draw.ellipse((0, 0, size[0] - 1, size[1] - 1), fill=(10, 220, 40, 128), outline=(0, 0, 0, 255))
    draw.line((0, size[1] - 1, size[0] - 1, 0), fill=(255, 255, 0, 0), width=2)
    return img.convert(mode)


def _rows(img: Image.Image) -> bytes:
    raw = img.tobytes()
    n = img.size[0] * CHANNELS[img.mode]
    return b"".join(b"\x00" + raw[i:i + n] for i in range(0, len(raw), n))


@pytest.mark.parametrize("mode", sorted(CHANNELS))
@pytest.mark.parametrize("size", [(1, 1), (75, 75), (3, 401), (401, 3), (1730, 17)])
def test_scanlines_are_each_row_after_a_zero_and_the_png_decodes_to_the_pixels(
        mode: str, size: tuple[int, int]) -> None:
    img = _picture(mode, size)
    assert scanlines(img, size[0] * CHANNELS[mode]) == _rows(img)
    back = Image.open(io.BytesIO(encode_png(img)))
    assert back.mode == mode and back.size == size
    assert back.tobytes() == img.tobytes()


def test_scanlines_built_row_by_row_when_the_encoder_pads_with_anything_but_zeros(
        monkeypatch: pytest.MonkeyPatch) -> None:
    img = _picture("RGB", (20, 7))
    plain = img.tobytes()
    real = Image.Image.tobytes

    def garbage_pads(self: Image.Image, encoder_name: str = "raw", *args: object) -> bytes:
        if args:                       # the padded rows: a pad of 0xFF after each
            n = self.size[0] * 3
            return b"".join(plain[i:i + n] + b"\xff" for i in range(0, len(plain), n))
        return real(self)

    monkeypatch.setattr(Image.Image, "tobytes", garbage_pads)
    assert scanlines(img, 60) == _rows(img)


def test_other_modes_are_written_as_rgb_or_rgba() -> None:
    paletted = _picture("RGB", (30, 30)).convert("P", palette=Image.Palette.ADAPTIVE, colors=16)
    back = Image.open(io.BytesIO(encode_png(paletted)))
    assert back.mode == "RGB" and back.tobytes() == paletted.convert("RGB").tobytes()


def test_a_streamed_canvas_png_decodes_to_the_canvas_image() -> None:
    canvas = Canvas((300, 90), background=(240, 240, 230))
    canvas.polygon([(10, 10), (290, 20), (150, 85)], fill=(90, 140, 60), outline=(0, 0, 0), width=1.5)
    data = b"".join(canvas.png_chunks(level=1))
    assert Image.open(io.BytesIO(data)).tobytes() == canvas.render().tobytes()


@pytest.mark.parametrize(("scale", "expected"), [(1.0, 3), (1.49, 3), (2.9, 3), (3.0, 2), (4.7, 2)])
def test_canvas_supersamples_3x3_below_print_scale_and_2x2_from_it(scale: float, expected: int) -> None:
    assert Canvas((10, 10), scale=scale).supersample == expected
    assert Canvas((10, 10), scale=scale, supersample=4).supersample == 4
