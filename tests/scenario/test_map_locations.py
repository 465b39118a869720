"""One location interface for hex and area maps (issue 42): the scenario
map answers neighbours and distance for its hexes or, on an area map, for
its spaces through the typed connections; a movement class's cost table may
price connection kinds; ``map.connections_complete`` says whether the typed
lines are all the printed ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.area_module import write_scenario
from tests.audit.helpers import example
from vmodtool.scenario.loader import load_scenario
from vmodtool.scenario.locations import HEX, SPACE
from vmodtool.scenario.problems import ScenarioProblems


def test_an_area_map_answers_through_its_connections(tmp_path: Path) -> None:
    hex_map = load_scenario(write_scenario(tmp_path)).map
    assert hex_map.areas is not None and hex_map.areas.complete
    assert hex_map.location_ids == ["Lille", "Paris", "Nancy", "Belfort", "Metz", "Dijon", "Остров"]
    assert hex_map.locations is hex_map.areas and hex_map.locations.location_kind("Остров") == SPACE
    assert hex_map.neighbours("Nancy") == ["Belfort", "Metz", "Paris"]
    assert hex_map.neighbours("Остров") == []
    assert hex_map.distance("Lille", "Dijon") == 4
    assert hex_map.distance("Lille", "Остров") is None
    assert hex_map.areas.kinds == {"clear": 1.0, "mountain": 2.0, "river": 2.0}
    assert hex_map.areas.connected("Paris") and not hex_map.areas.connected("Остров")
    assert hex_map.hex_ids == []


def test_a_hex_map_is_the_same_interface() -> None:
    hex_map = example("modern-tactical").map
    assert hex_map.areas is None and hex_map.locations is hex_map.grid
    assert hex_map.location_ids == hex_map.hex_ids
    assert hex_map.locations.location_kind("1003") == HEX and hex_map.locations.location_kind("Paris") is None
    assert hex_map.distance("1003", "1206") == hex_map.grid.distance("1003", "1206") == 4
    assert hex_map.neighbours("1003") == hex_map.grid.neighbours("1003")


def test_connections_are_not_complete_unless_the_scenario_says_so(tmp_path: Path) -> None:
    assert not load_scenario(write_scenario(tmp_path, complete=False)).map.areas.complete    # type: ignore[union-attr]


def test_a_cost_table_may_name_connection_kinds_on_an_area_map_only(tmp_path: Path) -> None:
    path = write_scenario(tmp_path)
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("foot: {default: 1}", "foot: {default: 1, river: prohibited, mountain: 3}"),
                    encoding="utf-8")
    load_scenario(path)                                  # connection kinds: known names
    path.write_text(text.replace("foot: {default: 1}", "foot: {default: 1, tunnel: 3}"), encoding="utf-8")
    with pytest.raises(ScenarioProblems) as caught:
        load_scenario(path)
    assert any("unknown terrain type or connection kind 'tunnel'" in str(p) for p in caught.value.problems)


def test_connections_complete_is_for_an_area_map(tmp_path: Path) -> None:
    path = tmp_path / "scenario.yaml"
    path.write_text("""\
schema: vmodtool/1
game: {id: g, title: G, sides: [{id: a, name: A}]}
map:
  grid: {kind: hex, orientation: flat_top, hex_height: 64, columns: 2, rows: 2,
         numbering: {first: column, separator: "", column: {type: numeric, start: 1, leading_zeros: 1},
                     row: {type: numeric, start: 1, leading_zeros: 1}}}
  terrain_types: {clear: {code: ".", name: Clear}}
  terrain: {default: clear}
  connections_complete: true
unit_types: {inf: {name: Inf, faces: [{name: full, factors: {move: 1}}]}}
counters: []
rules: []
""", encoding="utf-8")
    with pytest.raises(ScenarioProblems) as caught:
        load_scenario(path)
    assert any("map.connections_complete is for an area map" in str(p) for p in caught.value.problems)
