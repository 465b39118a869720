"""Side colours a publisher could print: sides that give no colour take
distinct colours of the Okabe–Ito palette (made for colour-blind readers),
a side that gives no ink takes black or white, whichever reads better on
its fill, and every face's factors keep WCAG's 4.5:1 contrast for text —
the reduced face too, whose fill is lightened (white ink on a dark fill
lost its contrast there)."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import pytest

from vmodtool.render import counters as C
from vmodtool.scenario import check_scenario, load_scenario
from vmodtool.scenario.colours import (
    MIN_TEXT_CONTRAST,
    contrast_ratio,
    hex_rgb,
    readable_ink,
    relative_luminance,
)
from vmodtool.scenario.model import SIDE_PALETTE

STARTER = resources.files("vmodtool").joinpath("data/starter/scenario.yaml").read_text("utf-8")
BLUE = '- {id: blue, name: "Blue", fill: "#9fc5e8", ink: "#000000"}'
RED = '- {id: red,  name: "Red",  fill: "#ea9999", ink: "#000000"}'


def scenario_with(tmp_path: Path, blue: str, red: str) -> Path:
    text = STARTER.replace("{{id}}", "t").replace("{{title}}", "T").replace("{{path}}", "scenario.yaml")
    assert BLUE in text and RED in text
    path = tmp_path / "scenario.yaml"
    path.write_text(text.replace(BLUE, blue).replace(RED, red), "utf-8")
    return path


def test_wcag_numbers() -> None:
    assert contrast_ratio((0, 0, 0), (255, 255, 255)) == pytest.approx(21.0)
    assert contrast_ratio((118, 118, 118), (255, 255, 255)) == pytest.approx(4.54, abs=0.01)   # WCAG's grey
    assert relative_luminance((255, 0, 0)) == pytest.approx(0.2126)
    assert readable_ink((20, 40, 90)) == (255, 255, 255) and readable_ink((240, 200, 100)) == (0, 0, 0)
    assert hex_rgb("#abc") == (0xaa, 0xbb, 0xcc) and hex_rgb("blue") is None


@pytest.mark.parametrize("fill", SIDE_PALETTE)
def test_every_palette_colour_reads_with_its_default_ink(fill: str) -> None:
    rgb = hex_rgb(fill)
    assert rgb is not None
    assert contrast_ratio(rgb, readable_ink(rgb)) >= MIN_TEXT_CONTRAST


def test_the_palette_colours_are_distinct() -> None:
    assert len({f.lower() for f in SIDE_PALETTE}) == len(SIDE_PALETTE)


def test_sides_without_colours_differ_and_every_face_reads(tmp_path: Path) -> None:
    """French and US with no colours print in two palette colours; a dark
    side with no ink gets white ink, and every face of every counter (the
    reduced ones lightened) keeps 4.5:1 between its fill and its ink."""
    path = scenario_with(tmp_path, '- {id: blue, name: "French"}', '- {id: red, name: "US", fill: "#1d2b4f"}')
    sc = load_scenario(path)
    blue, red = sc.game.sides
    assert blue.fill == SIDE_PALETTE[0] and blue.ink == "#000000"
    assert red.fill == "#1d2b4f" and red.ink == "#ffffff"
    faces = [(face.where, face.fill, face.ink) for spec in C.counter_specs(sc) if spec.kind == "unit"
             for _name, face in spec.faces]
    assert len(faces) >= 8
    for where, fill, ink in faces:
        assert contrast_ratio(fill, ink) >= MIN_TEXT_CONTRAST, (where, fill, ink)
    reds = {fill for where, fill, _ink in faces if where.startswith("counter red")}
    assert len(reds) == 2, "the reduced face is still lighter than the full face"


def test_the_old_lightening_lost_the_contrast_of_white_ink() -> None:
    """What the reduced face's fill guards against: the full lightening of a
    dark fill under white ink reads at under 4.5:1."""
    dark, white = (0x1d, 0x2b, 0x4f), (255, 255, 255)
    assert contrast_ratio(C._mix(dark, white, 0.45), white) < MIN_TEXT_CONTRAST
    assert contrast_ratio(C._lighter_fill(dark, white, 0.45), white) >= MIN_TEXT_CONTRAST
    light = (0x9a, 0xd2, 0xf2)          # black ink: lightened as much as asked
    assert C._lighter_fill(light, (0, 0, 0), 0.45) == C._mix(light, white, 0.45)


def test_an_ink_hard_to_read_on_its_fill_is_a_located_warning(tmp_path: Path) -> None:
    path = scenario_with(tmp_path, '- {id: blue, name: "Blue", fill: "#9fc5e8", ink: "#ffffff"}', RED)
    problems = check_scenario(path)[1]
    warnings = [p for p in problems if p.severity == "warning" and "contrast" in p.message]
    assert len(warnings) == 1, problems
    text = path.read_text("utf-8")
    assert warnings[0].line == text[:text.index('ink: "#ffffff"')].count("\n") + 1
    assert re.search(r"contrast of 1\.\d:1, under the 4\.5:1", warnings[0].message)
