"""Loading and validating scenario files: the model, and a clear located
message for each kind of mistake (all of them at once)."""

import json
import re
from importlib import resources
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.scenario.helpers import toml_value
from vmodtool.cli import cli
from vmodtool.scenario import ScenarioProblems, check_scenario, load_scenario, source
from vmodtool.scenario.model import SetupStack

STARTER = resources.files("vmodtool").joinpath("data/starter/scenario.yaml").read_text("utf-8")
BASE = (STARTER.replace("{{id}}", "test-game").replace("{{title}}", "Test — Тест")
        .replace("{{path}}", "scenario.yaml"))


def write(tmp_path: Path, text: str, name: str = "scenario.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def line_of(text: str, needle: str) -> int:
    for number, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in text")


def problems_for(tmp_path: Path, text: str):
    _, problems = check_scenario(write(tmp_path, text))
    return [p for p in problems if p.severity == "error"]


def test_starter_loads_to_a_model(tmp_path):
    scenario = load_scenario(write(tmp_path, BASE))
    assert scenario.game.title == "Test — Тест"
    assert [s.id for s in scenario.game.sides] == ["blue", "red"]
    assert len(scenario.map.hex_ids) == 48
    assert scenario.map.hex_ids[:3] == ["0101", "0201", "0301"]
    assert scenario.map.terrain["0301"] == "woods" and scenario.map.terrain["0602"] == "town"
    assert scenario.map.hexside_features("0402", "0503") == {"river"}
    assert [c.id for c in scenario.counters][:3] == ["blue.inf.1", "blue.inf.2", "blue.tank"]
    assert scenario.counter("red.inf.2").label == "2"
    stacks = list(scenario.stacks())
    assert isinstance(stacks[1], SetupStack) and stacks[1].units == ("blue.inf.2", "blue.tank")
    assert scenario.turns.phases[0].id == "movement"
    assert scenario.rules[1].params["costs"]["foot"]["woods"] == 2
    # grid: the scenario's labels are VASSAL's own names for the hex centres
    grid = scenario.map.grid
    for label in scenario.map.hex_ids:
        assert grid.label_at(*grid.centre(label)) == label
    assert grid.grid_attributes["sideways"] == "false"
    assert set(scenario.map.neighbours("0402")) == {"0401", "0502", "0503", "0403", "0303", "0302"}
    assert scenario.map.distance("0101", "0806") == 9   # 7 columns gain 3 rows diagonally, +2


@pytest.mark.parametrize("edit, needle, expected", [
    # unknown terrain code in a terrain row
    (('"02": ". . w . . t . ."', '"02": ". . w . . q . ."'), '"02":', "unknown terrain code 'q' for hex 0602"),
    # a hex id that is not on the map
    (('{hex: "0703", stack: [red.inf.1]}', '{hex: "0913", stack: [red.inf.1]}'), '"0913"',
     "setup hex '0913' is not on the map"),
    # a setup unit that does not exist
    (('stack: [red.inf.1]}', 'stack: [red.inf.9]}'), "red.inf.9", "unknown unit 'red.inf.9'"),
    # an unquoted hex id that YAML turned into a number
    (('{hex: "0703", stack: [red.inf.1]}', '{hex: 0703, stack: [red.inf.1]}'), "hex: 0703",
     'write it in quotes: "0703"'),
    # a face without factors
    (('{name: reduced, state: {step: reduced}, factors: {attack: 2, defense: 2, move: 4}}',
      '{name: reduced, state: {step: reduced}}'), "name: reduced, state: {step: reduced}}", "has no factors"),
    # a hexside between non-adjacent hexes
    (('["0402", "0503"]]', '["0402", "0505"]]'), '"0505"', "are not adjacent"),
    # a rule that names an unknown tag
    (('params: {limit: 2, count: units, per_side: true}',
      'params: {limit: 2, count: units, per_side: true, exempt: {tags: [helicopter]}}'),
     "helicopter", "unknown tag 'helicopter'"),
    # a misspelt key
    (("    hex_height: 64", "    hex_hieght: 64"), "hex_hieght", "did you mean 'hex_height'"),
    # an unknown unit type in the counter mix
    (('{id: red.tank, type: tank,', '{id: red.tank, type: tnak,'), "type: tnak",
     "unknown unit type 'tnak'; did you mean 'tank'?"),
    # a terrain row with too few codes
    (('"06": ". . . . . . . ."', '"06": ". . . . ."'), '"06":', "has 8 hexes (0106 … 0806) but 5 terrain codes"),
    # duplicate counter ids after count expansion
    (('{id: red.tank, type: tank, side: red, label: "3"}', '{id: red.inf.1, type: tank, side: red, label: "3"}'),
     "id: red.inf.1", "duplicate counter id 'red.inf.1'"),
    # a rule of an unknown kind
    (("kind: stacking", "kind: stackin"), "kind: stackin", "expected one of"),
    # a phase that does not exist
    (("phases: [movement]", "phases: [move]"), "phases: [move]", "unknown phase 'move'"),
    # an unknown side
    (('{id: blue.tank, type: tank, side: blue, label: "C"}', '{id: blue.tank, type: tank, side: bleu, label: "C"}'),
     "side: bleu", "unknown side 'bleu'; did you mean 'blue'?"),
])
def test_each_mistake_is_located(tmp_path, edit, needle, expected):
    old, new = edit
    assert old in BASE
    text = BASE.replace(old, new)
    problems = problems_for(tmp_path, text)
    matching = [p for p in problems if expected in p.message]
    assert matching, [str(p) for p in problems]
    assert matching[0].line == line_of(text, needle), str(matching[0])
    assert matching[0].file.endswith("scenario.yaml")


def test_all_mistakes_at_once(tmp_path):
    text = (BASE.replace('{hex: "0703", stack: [red.inf.1]}', '{hex: "0999", stack: [red.inf.9]}')
            .replace('"02": ". . w . . t . ."', '"02": ". . w . . q . ."')
            .replace("    hex_height: 64", "    hex_height: 64\n    colour: red"))
    problems = problems_for(tmp_path, text)
    messages = " | ".join(p.message for p in problems)
    assert "0999" in messages and "red.inf.9" in messages and "'q'" in messages
    assert "unknown key 'colour'" in messages
    assert len(problems) >= 4


def test_duplicate_key_and_yaml_syntax(tmp_path):
    text = BASE.replace("  dice: [1d6, 2d6]", "  dice: [1d6, 2d6]\n  dice: [1d6]")
    problems = problems_for(tmp_path, text)
    dup = [p for p in problems if "duplicate key 'dice'" in p.message]
    assert dup and dup[0].line == line_of(text, "  dice: [1d6]")
    text = BASE.replace("  dice: [1d6, 2d6]", "  dice: [1d6, 2d6")
    problems = problems_for(tmp_path, text)
    assert len(problems) == 1 and "not valid YAML" in problems[0].message and problems[0].line


def test_alias_bomb_and_non_mapping(tmp_path, monkeypatch):
    # 10**9 values if expanded; building stops after MAX_NODES of them (a
    # smaller limit here keeps the test cheap: the cost is the limit's, not the bomb's)
    assert 0 < source.MAX_NODES <= 1_000_000
    monkeypatch.setattr(source, "MAX_NODES", 5_000)
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n" for i in range(8))
    problems = problems_for(tmp_path, bomb)
    assert any("expands to more than 5000 values" in p.message for p in problems), problems
    assert "mapping of keys" in problems_for(tmp_path, "- just\n- a list\n")[0].message


def test_unquoted_row_label_and_bad_encoding(tmp_path):
    text = BASE.replace('"03": ". . . . . . . ."', '03: ". . . . . . . ."')
    problems = problems_for(tmp_path, text)
    assert any("row label 03 must be in quotes" in p.message for p in problems)
    path = tmp_path / "latin1.yaml"
    path.write_bytes(BASE.replace("Тест", "").encode("utf-8") + "\n# caf\xe9".encode("latin-1"))
    _, problems = check_scenario(path)
    assert "not UTF-8" in problems[0].message


def test_csv_counter_mix(tmp_path):
    (tmp_path / "mix.csv").write_text(
        "id,type,side,formation,label,labels,count\n"
        "blue.inf,infantry,blue,,,A|B,2\n"
        "blue.tank,tank,blue,,C,,\n"
        "red.inf,infantry,red,,,1|2,2\n"
        "red.tank,tnak,red,,3,,\n", encoding="utf-8")
    start = BASE.index("counters:\n")
    end = BASE.index("setup:")
    text = BASE[:start] + "counters: {csv: mix.csv}\n\n" + BASE[end:]
    problems = problems_for(tmp_path, text)
    bad = [p for p in problems if "tnak" in p.message]
    assert bad and bad[0].file.endswith("mix.csv") and bad[0].line == 5
    fixed = tmp_path / "mix.csv"
    fixed.write_text(fixed.read_text(encoding="utf-8").replace("tnak", "tank"), encoding="utf-8")
    scenario = load_scenario(write(tmp_path, text))
    assert [c.id for c in scenario.counters] == ["blue.inf.1", "blue.inf.2", "blue.tank",
                                                "red.inf.1", "red.inf.2", "red.tank"]




def _canonical(scenario):
    from dataclasses import fields
    out = {}
    for f in fields(scenario):
        if f.name in ("path", "map"):
            continue
        value = getattr(scenario, f.name)
        out[f.name] = repr(value).replace(str(scenario.path), "<file>")
    out["positions_stripped"] = True
    m = scenario.map
    out["map"] = (m.terrain, m.hexsides, m.grid.grid_attributes, m.grid.numbering_attributes, m.size)
    return {k: re.sub(r"Position\([^)]*\)", "", str(v)) for k, v in out.items()}


def test_yaml_and_toml_load_to_equal_models(tmp_path):
    import yaml
    data = yaml.safe_load(BASE)
    toml_text = "".join(f"{json.dumps(k)} = {toml_value(v)}\n" for k, v in data.items())
    yaml_model = load_scenario(write(tmp_path, BASE))
    toml_model = load_scenario(write(tmp_path, toml_text, "scenario.toml"))
    assert _canonical(yaml_model) == _canonical(toml_model)


def test_toml_error_has_a_line(tmp_path):
    text = ('schema = "vmodtool/1"\n[game]\nid = "x"\ntitle = "T"\n'
            'sides = [{id = "a", name = "A"}, {id = "b", name = "B"}]\n'
            '[map.grid]\nhex_height = 64\ncolumns = 4\nrows = 3\nhex_hieght = 3\n')
    _, problems = check_scenario(write(tmp_path, text, "s.toml"))
    typo = [p for p in problems if "hex_hieght" in p.message]
    assert typo and typo[0].line == 10


def test_cli_check_scenario(tmp_path):
    good = write(tmp_path, BASE)
    result = CliRunner().invoke(cli, ["check-scenario", str(good)])
    assert result.exit_code == 0 and "ok" in result.output and "48 hexes" in result.output
    bad = write(tmp_path, BASE.replace('stack: [red.inf.1]}', 'stack: [red.inf.9]}'), "bad.yaml")
    result = CliRunner().invoke(cli, ["check-scenario", str(bad)])
    assert result.exit_code == 2
    result = CliRunner().invoke(cli, ["check-scenario", "--format", "json", str(bad)])
    report = json.loads(result.output)
    assert report["valid"] is False and report["problems"][0]["line"]


def test_load_scenario_raises_with_every_problem(tmp_path):
    bad = write(tmp_path, BASE.replace('stack: [red.inf.1]}', 'stack: [red.inf.9]}')
                .replace('{hex: "0203"', '{hex: "0909"'))
    with pytest.raises(ScenarioProblems) as info:
        load_scenario(bad)
    assert len(info.value.problems) >= 2
    assert "2 problems" in str(info.value)


def test_init_writes_a_valid_starter(tmp_path):
    result = CliRunner().invoke(cli, ["init", "Битва за Москву", "--dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    path = tmp_path / "Битва за Москву" / "scenario.yaml"
    scenario = load_scenario(path)
    assert scenario.game.id == "bitva-za-moskvu" and scenario.game.title == "Битва за Москву"
    result = CliRunner().invoke(cli, ["init", "Битва за Москву", "--dir", str(tmp_path)])
    assert result.exit_code != 0


def test_init_hint_can_be_pasted_into_a_shell(tmp_path):
    """The next command init prints is quoted for the shell: a folder name with
    a space ("Marne Salient 1918") pasted unquoted was two arguments."""
    import shlex
    result = CliRunner().invoke(cli, ["init", "Marne Salient 1918", "--dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    command = result.output.strip().split("then run: ", 1)[1]
    words = shlex.split(command)
    assert words[:2] == ["vmodtool", "check-scenario"] and len(words) == 3
    assert Path(words[2]) == tmp_path / "Marne Salient 1918" / "scenario.yaml"
    result = CliRunner().invoke(cli, ["init", "Битва", "--dir", str(tmp_path)])
    assert result.output.strip().endswith(f"vmodtool check-scenario {tmp_path}/Битва/scenario.yaml")


def test_a_mapping_given_as_text_says_what_it_takes(tmp_path):
    """``game.scale: 2 km per hex`` said only "expected a mapping"; the message
    now says what the mapping holds (its keys, or the free mapping's meaning)."""
    text = BASE.replace("game:\n", "game:\n  scale: 2 km per hex\n", 1)
    assert "scale: 2 km" in text
    with pytest.raises(ScenarioProblems) as info:
        load_scenario(write(tmp_path, text))
    message = next(p.message for p in info.value.problems if "scale" in p.message)
    assert "expected a mapping (key: value), found the text '2 km per hex'" in message
    assert 'hex: "250 m"' in message
    # a mapping with named keys lists them
    text = re.sub(r"(?ms)^game:\n(  .*?\n)+(?=\S)", "game: Marne 1918\n", BASE, count=1)
    with pytest.raises(ScenarioProblems) as info:
        load_scenario(write(tmp_path, text))
    message = next(p.message for p in info.value.problems if "Marne 1918" in p.message)
    assert "found the text 'Marne 1918'; it takes the keys: " in message
    assert "sides" in message and "title" in message


@pytest.mark.parametrize("name", ["Bob's \"Marne\" 1918", "Марнский выступ 1918", "Марна"])
def test_init_hint_survives_quotes_and_cyrillic(tmp_path, name):
    """A quote in the folder name, Cyrillic with a space, Cyrillic alone:
    the pasted hint is one word naming the written file (quoted only where
    the shell needs it)."""
    import shlex
    result = CliRunner().invoke(cli, ["init", name, "--dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    command = result.output.strip().split("then run: ", 1)[1]
    assert shlex.split(command) == ["vmodtool", "check-scenario", str(tmp_path / name / "scenario.yaml")]
    assert (tmp_path / name / "scenario.yaml").is_file()
    if " " not in name and "'" not in name:
        assert "'" not in command                 # a Cyrillic name is as it is
    else:
        assert "'" in command


def test_init_hint_on_windows_is_double_quoted():
    """cmd.exe and PowerShell take a double-quoted word as one argument (not
    POSIX single quotes); a Windows path needs none where it is plain."""
    from vmodtool.commands.scenario import _shell_word

    spaced = "C:\\Games\\Marne Salient 1918\\scenario.yaml"
    assert _shell_word(spaced, windows=True) == f'"{spaced}"'
    plain = "C:\\Games\\Марна\\scenario.yaml"
    assert _shell_word(plain, windows=True) == plain
    assert _shell_word("D:\\a,b\\scenario.yaml", windows=True) == '"D:\\a,b\\scenario.yaml"'  # , splits in PowerShell
    assert _shell_word("Marne Salient 1918/scenario.yaml", windows=False) == "'Marne Salient 1918/scenario.yaml'"


def test_a_mapping_or_another_type_given_as_text_names_both(tmp_path):
    """A value that may be a number (or a list) or a mapping, given as
    text, said only the first alternative ("expected a number"); it names
    every alternative and what the mapping takes, each problem at its line."""
    text = BASE.replace("allowance: {factor: move}", "allowance: fast", 1)
    text = re.sub(r"(?ms)^counters:\n(  .*?\n)+(?=\S)", "counters: twelve counters\n", text, count=1)
    assert "allowance: fast" in text and "counters: twelve" in text
    with pytest.raises(ScenarioProblems) as info:
        load_scenario(write(tmp_path, text))
    by_path = {p.path: p for p in info.value.problems}
    allowance = next(p for path, p in by_path.items() if path and path[-1] == "allowance")
    assert allowance.message == ("expected a number or a mapping (key: value), found the text 'fast'; "
                                 "the mapping takes the keys: factor")
    assert allowance.line == text.splitlines().index("      allowance: fast") + 1
    assert ("expected a list or a mapping (key: value), found the text 'twelve counters'; "
            "the mapping takes the keys: csv") in [p.message for p in info.value.problems if p.path == ("counters",)]
    # a text against "a name or a mapping" still says which names it takes
    text = BASE.replace("window: phase", "window: sometimes", 1)
    with pytest.raises(ScenarioProblems) as info:
        load_scenario(write(tmp_path, text))
    assert any("'sometimes' is not allowed; expected one of:" in p.message for p in info.value.problems)


def test_schema_command_prints_the_schema():
    result = CliRunner().invoke(cli, ["schema"])
    schema = json.loads(result.output)
    assert schema["$schema"].endswith("2020-12/schema")


def test_turn_tracker_levels_are_names_or_positions(tmp_path):
    ok = BASE + "\nlog:\n  turn_tracker:\n    levels: {turn: 1, side: null, phase: Segment}\n"
    assert problems_for(tmp_path, ok) == []
    bad = BASE + "\nlog:\n  turn_tracker:\n    levels: {turn: 0, phase: '', month: Month}\n"
    messages = sorted(str(p) for p in problems_for(tmp_path, bad))
    assert any("levels.turn" in m and "out of range" in m for m in messages), messages
    assert any("levels.phase" in m and "non-empty" in m for m in messages), messages
    assert any("unknown key 'month'" in m for m in messages), messages


STARTER_RIVER = '      between: [["0401", "0501"], ["0401", "0502"], ["0402", "0502"], ["0402", "0503"]]\n'


def test_a_river_typed_as_a_path_is_the_river_typed_as_pairs(tmp_path):
    """``path`` along hexsides is a zig-zag from bank to bank: each two hexes in
    a row are one hexside, the same hexsides as the pairs."""
    assert STARTER_RIVER in BASE
    as_pairs = load_scenario(write(tmp_path, BASE, "pairs.yaml"))
    text = BASE.replace(STARTER_RIVER, '      path: ["0501", "0401", "0502", "0402", "0503"]\n')
    as_path = load_scenario(write(tmp_path, text, "path.yaml"))
    assert as_path.map.hexsides == as_pairs.map.hexsides and len(as_pairs.map.hexsides) == 4
    assert not [p for p in check_scenario(tmp_path / "path.yaml")[1] if p.severity == "warning"]


def test_a_river_in_pieces_is_reported_at_its_entry(tmp_path):
    """A river typed as pairs that do not meet was drawn as separate dashes with
    no word; it is a warning located at the entry, naming the pieces.  A type
    with a symbol (a bridge) or ``continuous: false`` is made of pieces."""
    text = BASE.replace(STARTER_RIVER, '      between: [["0401", "0501"], ["0402", "0503"]]\n')
    path = write(tmp_path, text)
    problems = [p for p in check_scenario(path)[1] if p.severity == "warning"]
    assert len(problems) == 1, problems
    assert problems[0].line == line_of(text, "- type: river")
    assert "River is in 2 pieces that do not meet: 0401|0501; 0402|0503" in problems[0].message
    quiet = text.replace('river: {name: "River",', 'river: {continuous: false, name: "River",')
    assert quiet != text
    assert not [p for p in check_scenario(write(tmp_path, quiet))[1] if p.severity == "warning"]


def test_sides_without_a_fill_get_distinct_colour_blind_safe_colours(tmp_path):
    """Two sides that gave no fill printed alike (both the one default grey);
    they take the palette's colours in side order, and two sides given one
    fill are a warning at the second."""
    from vmodtool.scenario.model import SIDE_PALETTE
    text = re.sub(r',\s*fill: "#[0-9a-f]{6}"', "", BASE)
    assert text != BASE
    scenario = load_scenario(write(tmp_path, text))
    fills = [side.fill for side in scenario.game.sides]
    assert fills == list(SIDE_PALETTE[:len(fills)]) and len(set(fills)) == len(fills) == 2
    same = re.sub(r'fill: "#[0-9a-f]{6}"', 'fill: "#9FC5E8"', BASE)
    warnings = [p for p in check_scenario(write(tmp_path, same))[1] if p.severity == "warning"]
    assert len(warnings) == 1 and "has the fill #9FC5E8 of side 'blue'" in warnings[0].message
    assert warnings[0].line == line_of(same, "id: red")
