"""The bundled example scenarios load with the real loader, and what they
describe resolves: hexes, units, setup, rules."""

from pathlib import Path

import pytest

from tests.conftest import game_examples
from vmodtool.scenario import check_scenario, load_scenario
from vmodtool.scenario.model import SetupBox, SetupStack

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SCENARIOS = game_examples()


def test_the_examples_exist():
    assert {p.parent.name for p in SCENARIOS} == {"modern-tactical", "ww1-operational",
                                                   "combat-commander", "own-art", "marne-1918"}


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.parent.name for p in SCENARIOS])
def test_example_is_clean(path):
    scenario, problems = check_scenario(path)
    assert scenario is not None
    assert [str(p) for p in problems] == []


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.parent.name for p in SCENARIOS])
def test_example_resolves(path):
    s = load_scenario(path)
    counters = {c.id for c in s.counters}
    placed = []
    for entry in s.setup:
        if isinstance(entry, SetupStack):
            assert entry.hex in s.map
            placed += entry.units
        else:
            assert isinstance(entry, SetupBox)
            assert s.box(entry.box)
            placed += entry.units
    assert set(placed) <= counters and len(placed) == len(set(placed))
    for counter in s.counters:
        unit_type = s.unit_type_of(counter)
        assert unit_type.faces and all(f.factors for f in unit_type.faces)
        assert counter.side in {side.id for side in s.game.sides}
    for hexside in s.map.hexsides:
        assert s.map.grid.adjacent(hexside.a, hexside.b)
    for label in s.map.hex_ids:
        assert s.map.terrain[label] in s.map.terrain_types
    assert s.rules and all(rule.ref for rule in s.rules)
    assert s.turns is not None and s.turns.phases


def test_modern_tactical_facts():
    s = load_scenario(EXAMPLES / "modern-tactical" / "scenario.yaml")
    assert len(s.counters) >= 12 and len(s.map.hex_ids) >= 80
    tags = s.tags()
    assert {"hq", "helicopter", "tank", "infantry"} <= tags
    assert any(f.chits == 2 for f in s.formations)
    kinds = {r.kind for r in s.rules}
    assert {"stacking", "cohabitation", "escorted_move", "state_never", "placement", "phase_sweep",
            "status_forbids", "command_range", "movement_allowance"} <= kinds
    terrain = set(s.map.terrain.values())
    assert {"woods", "town", "hill"} <= terrain
    assert {"river", "road"} <= {h.type for h in s.map.hexsides}


def test_ww1_counter_mix_comes_from_csv():
    s = load_scenario(EXAMPLES / "ww1-operational" / "scenario.yaml")
    assert all(c.position.file.endswith("counters.csv") for c in s.counters)
    assert {"storm", "french_regiment", "tank", "corps_hq", "aircraft"} <= s.tags()
    assert s.plugin_paths and s.plugin_paths[0].is_dir()
    assert any(r.kind == "replacement" for r in s.rules)


def test_combat_commander_is_in_russian():
    s = load_scenario(EXAMPLES / "combat-commander" / "scenario.yaml")
    assert any("\u0400" <= ch <= "\u04ff" for side in s.game.sides for ch in side.name)
    assert any(t.kind == "casualty" for t in s.tracks)


def test_the_guides_scenario_example_is_valid(tmp_path):
    guide = (Path(__file__).resolve().parents[2] / "docs" / "guide" / "scenario-files.md").read_text(
        encoding="utf-8")
    block = guide.split("```yaml\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "scenario.yaml"
    path.write_text(block, encoding="utf-8")
    scenario = load_scenario(path)
    assert scenario.map.hexside_features("0302", "0402") == {"river"}
