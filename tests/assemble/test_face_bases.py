"""A counter face is drawn from a base kept for the faces that differ only
in their label (``render/counters._base``): every face so drawn is the face
drawn from nothing, byte for byte — over the examples, and over labels
that move the symbol (one line, two lines, none) — and an error still
names the face it is in."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.assemble.test_build_cache import scenario_text
from tests.conftest import game_examples
from vmodtool.render import counters as C
from vmodtool.scenario import load_scenario


def fresh(face: C.FaceSpec, px: int) -> bytes:
    C._BASES.clear()
    return C.render_face(face, px).tobytes()


def check_all(scenario: object, px: int | None = None) -> tuple[int, int]:
    """(faces, bases kept) of drawing every face of ``scenario`` in turn,
    each checked against the face drawn from nothing."""
    style = C.counter_style(scenario)
    px = px or C.resolution_px(style, "vassal")
    faces = [face for spec in C.counter_specs(scenario, style) for _, face in spec.faces]
    C._BASES.clear()
    kept = [C.render_face(face, px).tobytes() for face in faces]
    bases = len(C._BASES)
    assert kept == [fresh(face, px) for face in faces]
    return len(faces), bases


@pytest.mark.parametrize("path", [p for p in game_examples() if "from_module" not in p.read_text("utf-8")],
                         ids=lambda p: p.parent.name)
def test_the_examples_faces_are_the_faces_drawn_from_nothing(path: Path) -> None:
    check_all(load_scenario(path))


def test_labels_that_move_the_symbol_get_their_own_base(tmp_path: Path) -> None:
    text = scenario_text(8).replace('labels: ["1", "2", "3", "4"]',
                                    'labels: ["1", "2", "Гвардейский сводный 3", ""]', 1)
    assert "Гвардейский" in text
    path = tmp_path / "scenario.yaml"
    path.write_text(text, encoding="utf-8")
    scenario = load_scenario(path)
    for px in (None, 100):                   # the counters of a type share bases, at any VASSAL size
        faces, bases = check_all(scenario, px)
        assert 0 < bases < faces - 4
    assert check_all(scenario, 300)[1] == 0  # print sizes are drawn whole (not kept)


def test_an_error_names_the_face(monkeypatch: pytest.MonkeyPatch) -> None:
    face = C.FaceSpec(where="counter x.1, face full", fill=(200, 200, 200), ink=(0, 0, 0),
                      nato=("no-such-symbol", "battalion", (), False))
    C._BASES.clear()
    with pytest.raises(C.VmodError, match="counter x.1, face full"):
        C.render_face(face, 75)
