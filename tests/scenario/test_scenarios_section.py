"""The ``scenarios`` section: several scenarios of one game sharing its
units, map and rules, each with its set-up, turns, objectives and rules;
every problem located."""

from pathlib import Path

import pytest

from vmodtool.scenario import check_scenario, load_scenario
from vmodtool.scenario.model import SetupBox, SetupStack

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "marne-1918" / "scenario.yaml"


@pytest.fixture(scope="module")
def marne():
    return load_scenario(EXAMPLE)


def test_the_example_has_three_scenarios_sharing_the_game(marne):
    assert [s.id for s in marne.scenarios] == ["chateau-thierry", "belleau-wood", "second-marne"]
    assert marne.setup == () and marne.chosen is None
    first, wood, marne2 = marne.scenarios
    assert first.menu == wood.menu == "Marne Salient, 1918"
    assert (first.turns.first, first.turns.last) == (1, 3)
    assert (wood.turns.first, wood.turns.last) == (3, 5)
    assert marne2.turns is marne.turns                        # no turns given: the game's
    assert [o.hex for o in first.objectives] == ["0505"] and marne2.objectives is None
    assert first.setup_file == "chateau-thierry.vsav"
    # reinforcements are set-up box entries with an arrival
    arrivals = [(e.units, e.arrive_turn) for e in marne2.setup if isinstance(e, SetupBox) and e.arrive_turn]
    assert arrivals == [(("all.ft",), 3), (("all.marines",), 2)]


def test_a_scenario_adds_and_leaves_out_rules(marne):
    rules = {s.id: [r.id for r in s.rules] for s in marne.scenarios}
    assert rules["chateau-thierry"] == ["setup.match", "stack.limit", "move.allowance"]
    assert rules["belleau-wood"] == ["setup.match", "move.allowance", "stack.limit.wood"]
    wood = marne.named("belleau-wood")
    assert wood.rules[-1].params["limit"] == 2


def test_named_gives_the_game_as_one_scenario(marne):
    wood = marne.named("Belleau Wood, 6 June")
    assert wood.chosen == "belleau-wood"
    assert wood.named("belleau wood, 6 june").chosen == "belleau-wood"   # names without regard to case
    assert [(e.hex, e.units) for e in wood.setup if isinstance(e, SetupStack)][0] == \
        ("0303", ("ger.inf.1", "ger.storm.1"))
    assert (wood.turns.first, wood.turns.last) == (3, 5)
    assert [o.name for o in wood.map.objectives] == ["Bois de Belleau", "Bouresches"]
    assert wood.counters == marne.counters and wood.map.grid is marne.map.grid
    with pytest.raises(KeyError):
        marne.named("Verdun")


def _problems(tmp_path, edit):
    text = EXAMPLE.read_text("utf-8")
    for old, new in edit:
        assert old in text
        text = text.replace(old, new)
    (tmp_path / "counters.csv").write_bytes((EXAMPLE.parent / "counters.csv").read_bytes())
    path = tmp_path / "scenario.yaml"
    path.write_text(text, "utf-8")
    _, problems = check_scenario(path)
    return [f"{p.line}: {p.message}" for p in problems if p.severity == "error"]


def test_each_problem_of_a_scenario_is_located(tmp_path):
    lines = EXAMPLE.read_text("utf-8").splitlines()

    def line_of(text):
        return next(i for i, line in enumerate(lines, 1) if text in line)

    found = _problems(tmp_path, [
        ("turns: {first: 3, last: 5}", "turns: {first: 3, last: 9}"),
        ('{hex: "0905", stack: [ger.inf8.2]}', '{hex: "0905", stack: [ger.inf8.2, ger.inf8.9]}'),
        ("without_rules: [stack.limit]", "without_rules: [stack.limt]"),
        ('name: "Second Marne, 15 July"', 'name: "BELLEAU WOOD, 6 June"'),
        ('{hex: "0303", stack: [ger.inf.1, ger.storm.1]}', '{hex: "0303", stack: [ger.inf.1, ger.inf.1]}'),
    ])
    assert f"{line_of('turns: {first: 3, last: 5}')}: turn 9 is outside the game's turns (1–6)" in found
    assert any(f.startswith(f"{line_of('[ger.inf8.2]')}: unknown unit 'ger.inf8.9'") for f in found)
    assert any(f.startswith(f"{line_of('without_rules')}: unknown rule id 'stack.limt'") for f in found)
    assert any(f.startswith(f"{line_of('Second Marne, 15 July')}: duplicate scenario name") for f in found)
    assert any(f.startswith(f"{line_of('[ger.inf.1, ger.storm.1]')}: unit 'ger.inf.1' is set up twice")
               for f in found)


def test_a_unit_may_stand_elsewhere_in_each_scenario_but_a_scenario_rule_id_is_its_own(tmp_path):
    found = _problems(tmp_path, [("      - id: stack.limit.wood", "      - id: move.allowance")])
    assert len(found) == 1 and "rule id 'move.allowance' is a rule of the game too" in found[0]


def test_the_schema_refuses_unknown_keys_of_a_scenario(tmp_path):
    found = _problems(tmp_path, [('    victory: "The Germans win if they hold Château-Thierry',
                                  '    victor: "The Germans win if they hold Château-Thierry'),
                                 ("  - id: second-marne\n", "  - id: second-marne\n    setup_x: []\n")])
    assert any("victor" in f for f in found)
    assert any("setup_x" in f for f in found)


def test_a_scenario_may_have_its_own_resources(tmp_path):
    edit = [("    without_rules: [stack.limit]\n",
             "    without_rules: [stack.limit]\n"
             "    resources:\n"
             "      replacement_points:\n"
             "        track: turn_record\n"
             "        schedule: {3: {all: 2}, 6: {all: 1}, 4: {nobody: 1}}\n")]
    found = _problems(tmp_path, edit)
    assert any("turn 6 is outside the game (3–5)" in f for f in found)   # the scenario's turns
    assert any("unknown side 'nobody'" in f for f in found)
    edit = [("    without_rules: [stack.limit]\n",
             "    without_rules: [stack.limit]\n"
             "    resources: {replacement_points: {track: turn_record, schedule: {3: {all: 2}}}}\n")]
    assert _problems(tmp_path, edit) == []
    game = load_scenario(tmp_path / "scenario.yaml")
    assert game.resources == {}
    assert game.named("belleau-wood").resources == {"replacement_points": {
        "track": "turn_record", "schedule": {3: {"all": 2}}}}
    assert game.named("second-marne").resources == {}


def test_a_top_level_setup_beside_scenarios_is_a_warning(tmp_path):
    text = EXAMPLE.read_text("utf-8").replace("scenarios:                         # stack lists",
                                              "setup:\n  - {hex: \"0101\", stack: [ger.hq8]}\n\n"
                                              "scenarios:                         # stack lists")
    (tmp_path / "counters.csv").write_bytes((EXAMPLE.parent / "counters.csv").read_bytes())
    (tmp_path / "scenario.yaml").write_text(text, "utf-8")
    _, problems = check_scenario(tmp_path / "scenario.yaml")
    assert [(p.severity, p.path) for p in problems] == [("warning", ("setup",))]
    assert "has no plain New Game in VASSAL" in problems[0].message
