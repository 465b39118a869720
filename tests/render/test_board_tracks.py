"""The turn and record tracks on the print map: every track of the scenario
(and a turn track from ``turns``), on the map where there is room clear of
every hex, else in a band under it; never over a hex number, a place name, a
feature or another track; not on the VASSAL board."""

from __future__ import annotations

import pytest

from tests.render.test_board import VARIANTS, example, make_scenario
from vmodtool.render.board import BoardOptions, board_drawing
from vmodtool.render.board_layout import intersects
from vmodtool.render.board_tracks import print_tracks
from vmodtool.scenario import load_scenario
from vmodtool.scenario.mapgrid import build_map_grid

EXAMPLES = ["modern-tactical", "ww1-operational", "combat-commander"]
COVERED = frozenset({"number", "label", "vp", "objective", "hexside", "bridge", "dot", "symbol", "track"})


def _check_clear(drawing) -> None:
    """No track meets a hex, a recorded mark, a drawn line or another track,
    and each lies on the drawing."""
    hex_boxes = [(min(p[0] for p in poly), min(p[1] for p in poly), max(p[0] for p in poly),
                  max(p[1] for p in poly)) for poly in drawing.geometry.polygons.values()]
    for placed in drawing.tracks:
        box = placed.box
        assert 0 <= box[0] and 0 <= box[1] and box[2] <= drawing.size[0] and box[3] <= drawing.size[1]
        others = [d for d in drawing.boxes.hits(box, COVERED) if not (d.kind == "track" and d.box == box)]
        assert not others, (placed.track.name, others[:3])
        assert not any(intersects(box, h) for h in hex_boxes), placed.track.name
        for line in drawing.lines:
            assert not any(box[0] <= x <= box[2] and box[1] <= y <= box[3] for x, y in line.points)
        for label in drawing.labels:
            assert not intersects(box, label.box)
        for text, at in drawing.numbers.values():
            assert not (box[0] <= at[0] <= box[2] and box[1] <= at[1] <= box[3]), text
        for space in placed.spaces:                      # each space inside its frame
            assert box[0] < space[0] < space[2] < box[2] and box[1] < space[1] < space[3] < box[3]


@pytest.mark.parametrize("name", EXAMPLES)
def test_the_print_map_shows_every_track_clear_of_the_map(name):
    scenario = example(name)
    drawing = board_drawing(scenario, BoardOptions(scale=1.0, sheet=True))
    assert [p.track.spaces for p in drawing.tracks] == [t.spaces for t in scenario.tracks]
    assert all(p.where == "sheet" for p in drawing.tracks)      # these maps have no margin to spare
    _check_clear(drawing)
    # the band lies between the map and the title: the sheet grew by it
    plain = board_drawing(scenario, BoardOptions(scale=1.0, sheet=False))
    assert not plain.tracks
    assert min(p.box[1] for p in drawing.tracks) >= drawing.board_size[1]


def _with_room(doc, extra=(0, 260)):
    spec = VARIANTS["alpha-desc"]
    w, h = build_map_grid(spec).size
    doc["map"]["size"] = [w + extra[0], h + extra[1]]
    doc["turns"] = {"first": 1, "last": 8, "structure": [{"phase": "move", "name": "Move"}]}
    doc["tracks"] = [{"id": "vp", "name": "Победные очки", "kind": "victory", "spaces": 9}]


def test_a_track_goes_on_the_map_where_the_board_leaves_room(tmp_path):
    scenario = load_scenario(make_scenario(tmp_path / "room", VARIANTS["alpha-desc"], mutate=_with_room))
    tracks = print_tracks(scenario)
    assert [t.name for t in tracks] == ["Turn", "Победные очки"]          # the turn track from `turns`
    assert tracks[0].spaces == tuple(str(n) for n in range(1, 9))
    drawing = board_drawing(scenario, BoardOptions(scale=1.5, sheet=True))
    assert [p.where for p in drawing.tracks] == ["map", "map"]
    assert all(p.box[3] <= drawing.board_size[1] for p in drawing.tracks)
    _check_clear(drawing)


def test_tracks_that_do_not_fit_the_margin_go_under_the_map(tmp_path):
    scenario = load_scenario(make_scenario(tmp_path / "tight", VARIANTS["alpha-desc"],
                                           mutate=lambda d: _with_room(d, (0, 0))))
    drawing = board_drawing(scenario, BoardOptions(scale=1.0, sheet=True))
    assert [p.where for p in drawing.tracks] == ["sheet", "sheet"]
    _check_clear(drawing)


def test_no_turn_track_is_added_beside_a_turn_record_track():
    scenario = example("ww1-operational")
    assert scenario.turns is not None
    assert [t.id for t in print_tracks(scenario)] == [t.id for t in scenario.tracks]
