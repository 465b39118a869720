"""NATO symbols: every kind and size draws something distinct; bad names
are clear errors."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from vmodtool.errors import VmodError
from vmodtool.render.nato import NATO_SIZES, NATO_SYMBOLS, NatoError, render_symbol


def alpha(img) -> np.ndarray:
    return np.asarray(img.getchannel("A"), dtype=np.int16)


def test_every_symbol_kind_renders_distinctly():
    images = {s: alpha(render_symbol(s, size="company", frame_w=60).image) for s in NATO_SYMBOLS}
    for a, b in itertools.combinations(NATO_SYMBOLS, 2):
        diff = np.abs(images[a] - images[b])
        assert (diff > 64).sum() >= 15, f"{a} and {b} look the same"
    # every kind but 'none' draws inside the frame
    frame = render_symbol("none", size="company", frame_w=60)
    for s in NATO_SYMBOLS:
        if s != "none":
            assert (images[s] - alpha(frame.image)).max() > 0, s


def test_every_size_renders_distinctly():
    images = {z: alpha(render_symbol("infantry", size=z, frame_w=60).image) for z in NATO_SIZES}
    for a, b in itertools.combinations(NATO_SIZES, 2):
        assert (np.abs(images[a] - images[b]) > 64).sum() >= 6, f"{a} and {b} look the same"


def test_combinations_add_to_the_base_symbol():
    recce = alpha(render_symbol("recce", frame_w=60).image)
    armoured = alpha(render_symbol("recce", modifiers=("armour",), frame_w=60).image)
    motorised = alpha(render_symbol("recce", modifiers=("motorised",), frame_w=60).image)
    assert (armoured >= recce - 8).all() and (armoured - recce).max() > 128
    assert (np.abs(armoured - motorised) > 64).sum() > 20
    hq = render_symbol("armour", hq=True, frame_w=60)
    plain = render_symbol("armour", frame_w=60)
    # the staff hangs below the frame on the left
    below = alpha(hq.image)[hq.frame[3] + 2:, :hq.frame[0] + 4]
    assert below.max() > 128 and alpha(plain.image)[plain.frame[3] + 2:, :].max() == 0


def test_antialiased_edges():
    a = alpha(render_symbol("infantry", frame_w=80).image)
    partial = ((a > 0) & (a < 255)).sum()
    assert partial > 100   # slanted lines have intermediate coverage


def test_ink_colour_and_frame_box():
    sym = render_symbol("infantry", size="division", frame_w=90, ink=(200, 10, 20))
    assert sym.image.mode == "RGBA"
    r, g, b, a = sym.image.getpixel((sym.frame[0] + 1, (sym.frame[1] + sym.frame[3]) // 2))
    assert (r, g, b) == (200, 10, 20) and a > 200
    left, t, rr, bb = sym.frame
    assert rr - left == 90 and bb - t == round(90 * 0.62)


@pytest.mark.parametrize("kw, text", [
    ({"symbol": "dragoon"}, "unknown NATO symbol 'dragoon'"),
    ({"symbol": "infantry", "modifiers": ("laser",)}, "unknown NATO modifier 'laser'"),
    ({"symbol": "infantry", "size": "legion"}, "unknown NATO size 'legion'"),
])
def test_unknown_names_are_clear_errors(kw, text):
    symbol = kw.pop("symbol")
    with pytest.raises(NatoError, match=text) as info:
        render_symbol(symbol, frame_w=40, where="unit type x", **kw)
    assert isinstance(info.value, VmodError) and "unit type x" in str(info.value)
