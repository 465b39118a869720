"""The step pips stand in a column of their own: on every unit face of
every example, at VASSAL size and at print resolution, no pip touches the
NATO symbol as drawn (frame, size mark and HQ staff), the art box, any
text or a band (side stripe, formation band, reduced band), and every pip
is inside the counter.  (The pips were at the left
edge at a fixed place even when a side text stood there.)"""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.conftest import game_examples
from tests.render.test_counter_clearance import _apart, text_boxes
from vmodtool.render import counters as C
from vmodtool.render.nato import render_symbol
from vmodtool.scenario import load_scenario

Box = tuple[int, int, int, int]


def symbol_box(face: C.FaceSpec, S: int) -> Box | None:
    """The ink of the face's NATO symbol (or its art box) as ``_draw_base`` places it."""
    g = C._geometry(face)
    if dict(face.regions).get("centre"):
        return None
    if face.art or face.image is not None:
        x0, y0, x1, y1 = (round(v * S) for v in g["art_box"])
        return (x0, y0, x1, y1)
    if face.nato is None:
        return None
    symbol, size, mods, hq = face.nato
    sym = render_symbol(symbol, size=size, modifiers=mods, hq=hq, frame_w=max(6, round(g["frame_w"] * S)),
                        ink=face.ink, line=max(1.0, S / 70))
    fx0, fy0, fx1, fy1 = sym.frame
    ox, oy = round(S / 2 - (fx0 + fx1) / 2), round(g["frame_cy"] * S - (fy0 + fy1) / 2)
    ink = sym.image.getchannel("A").getbbox()
    assert ink is not None
    return (ox + ink[0], oy + ink[1], ox + ink[2], oy + ink[3])


def pip_problems(face: C.FaceSpec, S: int) -> list[str]:
    out = []
    sym = symbol_box(face, S)
    texts = text_boxes(face, S)
    for x, y, d in C.pip_boxes(face, S):
        pip = (x, y, x + d, y + d)
        if x < 0 or y < 0 or x + d > S or y + d > S:
            out.append(f"pip {pip} outside the counter")
        t = face.template
        if face.formation_stripe and x < round(t.formation * S):
            out.append(f"pip {pip} on the formation band")
        if face.stripe and y < round(t.stripe * S):
            out.append(f"pip {pip} on the side stripe")
        if face.reduced and y + d > S - round(t.reduced * S):
            out.append(f"pip {pip} on the reduced band")
        if sym is not None and _apart(pip, sym) < 1:
            out.append(f"pip {pip} on the symbol {sym}")
        for box, _cap, text in texts.values():
            if _apart(pip, box) < 1:
                out.append(f"pip {pip} on the text {text!r} {box}")
    return out


@pytest.mark.parametrize("size", ["vassal", "300"])
@pytest.mark.parametrize("path", game_examples(), ids=lambda p: p.parent.name)
def test_pips_touch_neither_symbol_nor_text(path, size):
    scenario = load_scenario(path)
    style = C.counter_style(scenario)
    S = C.resolution_px(style, "vassal" if size == "vassal" else 300)
    found, pips = [], 0
    for spec in C.counter_specs(scenario, style):
        for name, face in spec.faces:
            pips += len(C.pip_boxes(face, S))
            found += [f"{spec.id} {name}: {p}" for p in pip_problems(face, S)]
    assert not found, "\n".join(found[:10])
    if path.parent.name in ("modern-tactical", "ww1-operational"):
        assert pips > 40


def test_a_side_text_on_the_left_sends_the_pips_right():
    """A face with a left side text: the pips take the right edge, clear of it."""
    scenario = load_scenario(game_examples()[0].parent.parent / "ww1-operational" / "scenario.yaml")
    face = next(f for s in C.counter_specs(scenario) for _n, f in s.faces if f.pips[1] > 1)
    moved = replace(face, regions=(*face.regions, ("left", "3")))
    S = 75
    assert C.pip_boxes(face, S)[0][0] < S / 4 and C.pip_boxes(moved, S)[0][0] > 3 * S / 4
    assert not pip_problems(moved, S)
