"""Counter texts keep clear of each other: on every face of every example,
at the contact sheets' 120 px and at VASSAL size, the ink boxes of two
texts (a multi-line text is one box) are at least 0.3 of the larger
text's capital height apart — the WW1 HQ's designation was 6 px above
its "HQ 6" at 120 px, Combat Commander's names with descenders 1 px above
the factors.  The boxes are measured with the renderer's own layout
(``_layout_texts``) and glyph masks (``_text_mask``), as ``_draw_text``
places them."""

from __future__ import annotations

import pytest

from tests.conftest import game_examples
from vmodtool.render import counters as C
from vmodtool.scenario import load_scenario

#: the least space between two texts, a fraction of the larger one's capitals
CLEARANCE = 0.3
Box = tuple[int, int, int, int]


def text_boxes(face: C.FaceSpec, px: int) -> dict[str, tuple[Box, float, str]]:
    """What each text of ``face`` covers at ``px``: its ink box (the lines
    of one text joined), its capital height and its text."""
    out: dict[str, tuple[Box, float, str]] = {}
    for t in C._layout_texts(face, px):
        mask, left, top = C._text_mask(t.text, t.font, t.anchor + "s")
        ink = mask.getbbox()
        if ink is None:
            continue
        cap = t.font.size * C._CAP
        x, y = round(t.x) + left, round(t.y + cap / 2) + top          # as _draw_text pastes it
        box = (x + ink[0], y + ink[1], x + ink[2], y + ink[3])
        if t.what in out:
            (a, b, c, d), c0, text = out[t.what]
            box = (min(a, box[0]), min(b, box[1]), max(c, box[2]), max(d, box[3]))
            cap, t_text = max(c0, cap), f"{text} | {t.text}"
        else:
            t_text = t.text
        out[t.what] = (box, cap, t_text)
    return out


def _apart(a: Box, b: Box) -> int:
    """Empty pixels between two boxes (0 or less: they touch or overlap)."""
    return max(b[0] - a[2], a[0] - b[2], b[1] - a[3], a[1] - b[3])


def crowded(face: C.FaceSpec, px: int) -> list[tuple[str, str, int, float]]:
    boxes = list(text_boxes(face, px).values())
    out = []
    for i, (a, cap_a, text_a) in enumerate(boxes):
        for b, cap_b, text_b in boxes[i + 1:]:
            need = max(1.0, CLEARANCE * max(cap_a, cap_b))
            if _apart(a, b) < need:
                out.append((text_a, text_b, _apart(a, b), need))
    return out


_SCENARIOS: dict = {}


def _scenario(path):
    if path not in _SCENARIOS:
        _SCENARIOS[path] = load_scenario(path)
    return _SCENARIOS[path]


@pytest.mark.parametrize("size", ["120", "vassal"])
@pytest.mark.parametrize("path", game_examples(), ids=lambda p: p.parent.name)
def test_no_two_texts_of_a_counter_face_touch(path, size):
    scenario = _scenario(path)
    style = C.counter_style(scenario)
    px = 120 if size == "120" else C.resolution_px(style, "vassal")
    found = []
    faces = 0
    for spec in C.counter_specs(scenario, style):
        for face_name, face in spec.faces:
            faces += 1
            found += [(spec.id, face_name, *c) for c in crowded(face, px)]
    assert faces and found == []


def _ww1_hq() -> C.FaceSpec:
    path = next(p for p in game_examples() if p.parent.name == "ww1-operational")
    spec = next(s for s in C.counter_specs(_scenario(path)) if s.id == "ger.hq14")
    return spec.faces[0][1]


def test_the_ww1_hq_designation_clears_its_hq_row_at_120_px():
    boxes = text_boxes(_ww1_hq(), 120)
    label, _cap, text = boxes["label"]
    row, row_cap, row_text = boxes["bottom"]
    assert (text, row_text) == ("XIV R", "HQ 6")
    assert row[1] - label[3] >= CLEARANCE * row_cap


def test_the_check_sees_a_designation_on_its_row(monkeypatch):
    """Without the row's clearance (the old 0.045 of the edge) the HQ's
    designation is too close again: the check can fail."""
    monkeypatch.setattr(C, "_ROW_CLEARANCE", 0.0)
    assert [(a, b) for a, b, _gap, _need in crowded(_ww1_hq(), 120)] == [("HQ 6", "XIV R")]


def test_descenders_are_measured():
    assert C._descent("XIV R", "condensed-bold") < 0.02          # capitals sit on the baseline
    assert C._descent("HQ 6", "condensed-bold") > 0.1            # Q's tail
    assert C._descent("Рядовой", "condensed-bold") > 0.1         # р, у
    assert C._descent("Mk IV (D Bn)", "condensed-bold") > 0.1     # the brackets
