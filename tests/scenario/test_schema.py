"""The JSON Schema of the scenario format (vmodtool/data/scenario.schema.json).

Checks that the schema is a valid draft 2020-12 schema, that the worked
examples of docs/seed-rules.md §3.10/§3.11 (our copies under fixtures/) and
any ``examples/*/scenario.yaml`` validate, and that typical mistakes fail at
the JSON path where the user made them.
"""

from __future__ import annotations

import copy
import csv
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

jsonschema = pytest.importorskip("jsonschema")
from jsonschema import Draft202012Validator  # noqa: E402
from jsonschema.exceptions import best_match  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
SCHEMA_PATH = REPO / "vmodtool" / "data" / "scenario.schema.json"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
EXAMPLE_A = FIXTURES / "example_a" / "scenario.yaml"
EXAMPLE_B = FIXTURES / "example_b" / "scenario.yaml"
REPO_EXAMPLES = sorted(REPO.glob("examples/*/scenario.yaml"))


@pytest.fixture(scope="module")
def schema() -> dict:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def validator(schema: dict) -> Draft202012Validator:
    # The loader compiles regexes itself; the format checker makes "format: regex" assert here.
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


def load(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def example_a() -> dict:
    return load(EXAMPLE_A)


def messages(validator: Draft202012Validator, doc: Any) -> list[str]:
    return [f"{e.json_path}: {e.message}" for e in validator.iter_errors(doc)]


def rule_index(doc: dict, rule_id: str) -> int:
    return next(i for i, r in enumerate(doc["rules"]) if r["id"] == rule_id)


# -- the schema itself ---------------------------------------------------------

def test_schema_is_valid_json_and_draft_2020_12(schema: dict) -> None:
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == "https://vmodtool.invalid/schema/scenario-1.json"
    assert schema["title"] and schema["description"]
    Draft202012Validator.check_schema(schema)


def test_schema_top_level_contract(schema: dict) -> None:
    # counters: required unless a binding takes the units from a module (if/then)
    assert set(schema["required"]) == {"schema", "game", "map", "unit_types"}
    assert schema["additionalProperties"] is False
    assert schema["properties"]["schema"]["enum"] == ["vmodtool/1", "wgscen/1"]


def _walk(node: Any, path: str = "#"):
    if isinstance(node, dict):
        yield path, node
        for key, value in node.items():
            yield from _walk(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _walk(value, f"{path}/{i}")


def test_every_property_has_a_description(schema: dict) -> None:
    """Editors show `description` as help; a bare $ref borrows its target's."""
    defs = schema["$defs"]
    missing = []
    for path, node in _walk(schema):
        props = node.get("properties")
        if not isinstance(props, dict) or path.endswith("/properties"):
            continue
        for name, sub in props.items():
            if not isinstance(sub, dict) or "description" in sub:
                continue
            target = sub.get("$ref", "")
            if target.startswith("#/$defs/") and "description" in defs[target[8:]]:
                continue
            if path.startswith("#/$defs/rule/allOf") or "/if" in path or "/then" in path \
                    or "/else" in path:
                continue   # if/then/else switches, not documentation
            missing.append(f"{path}/properties/{name}")
    assert not missing, missing
    assert all("description" in d for d in defs.values())


def test_rule_kinds_each_have_params_and_a_switch(schema: dict) -> None:
    defs = schema["$defs"]
    kinds = defs["rule"]["properties"]["kind"]["enum"]
    assert len(kinds) == 21
    switched = [c["if"]["properties"]["kind"]["const"] for c in defs["rule"]["allOf"]
                if "params" in c.get("then", {}).get("properties", {})]
    assert switched == kinds
    for kind in kinds:
        assert f"params_{kind}" in defs


def test_fixed_key_objects_are_closed(schema: dict) -> None:
    defs = schema["$defs"]
    for name in ["game", "side", "map", "grid", "numbering", "numbering_part", "terrain_type",
                 "terrain", "hexside_type", "box", "track", "factor_layout", "unit_type", "nato",
                 "face", "marker", "formation", "counter", "setup_hex_stack", "setup_box_units",
                 "setup_box_chits", "setup_reinforcement", "activation", "phase", "turns", "log",
                 "rule", "selector"]:
        assert defs[name]["additionalProperties"] is False, name


# -- valid documents -----------------------------------------------------------

@pytest.mark.parametrize("path", [EXAMPLE_A, EXAMPLE_B], ids=["example_a", "example_b"])
def test_worked_examples_validate(validator: Draft202012Validator, path: Path) -> None:
    doc = load(path)
    assert doc["schema"] == "vmodtool/1"
    assert messages(validator, doc) == []


def test_example_b_counters_csv(validator: Draft202012Validator) -> None:
    doc = load(EXAMPLE_B)
    assert doc["counters"] == {"csv": "counters.csv"}
    with (EXAMPLE_B.parent / "counters.csv").open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0]) == ["id", "type", "side", "formation", "label", "labels", "count"]
    assert {r["type"] for r in rows} <= set(doc["unit_types"])
    # The same rows written as the list form validate too.
    listed = []
    for r in rows:
        entry: dict = {k: r[k] for k in ("id", "type", "side", "formation", "label") if r[k]}
        if r["labels"]:
            entry["labels"] = r["labels"].split("|")
        if r["count"]:
            entry["count"] = int(r["count"])
        listed.append(entry)
    doc["counters"] = listed
    assert messages(validator, doc) == []


def test_legacy_schema_name_accepted(validator: Draft202012Validator, example_a: dict) -> None:
    doc = copy.deepcopy(example_a)
    doc["schema"] = "wgscen/1"
    assert messages(validator, doc) == []


def test_river_replaces_stream_in_example_a(example_a: dict) -> None:
    assert "river" in example_a["map"]["hexside_types"]
    assert "stream" not in json.dumps(example_a)


@pytest.mark.parametrize(
    "path", REPO_EXAMPLES or [pytest.param(None, marks=pytest.mark.skip(
        reason="no examples/*/scenario.yaml yet"))],
    ids=[p.parent.name for p in REPO_EXAMPLES] or ["none"])
def test_repository_examples_validate(validator: Draft202012Validator, path: Path) -> None:
    """The example scenarios other people write (skipped while there are none)."""
    assert messages(validator, load(path)) == []


# -- invalid documents: each fails where the mistake is ------------------------

Mutation = Callable[[dict], None]


def _set(path: tuple, value: Any) -> Mutation:
    def mutate(doc: dict) -> None:
        node = doc
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return mutate


def _del(path: tuple) -> Mutation:
    def mutate(doc: dict) -> None:
        node = doc
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]
    return mutate


def _rename(path: tuple, new: str) -> Mutation:
    def mutate(doc: dict) -> None:
        node = doc
        for key in path[:-1]:
            node = node[key]
        node[new] = node.pop(path[-1])
    return mutate


def _on_rule(rule_id: str, mutate_rule: Callable[[dict], None]) -> Mutation:
    def mutate(doc: dict) -> None:
        mutate_rule(doc["rules"][rule_index(doc, rule_id)])
    return mutate


def _rule_params(rule_id: str, **changes: Any) -> Mutation:
    def mutate_rule(rule: dict) -> None:
        for key, value in changes.items():
            if value is _DROP:
                del rule["params"][key]
            else:
                rule["params"][key] = value
    return _on_rule(rule_id, mutate_rule)


_DROP = object()


def _in_rule(rule_id: str, rest: str) -> Callable[[dict], str]:
    """Expected path inside the rule with this id (indices differ between copies)."""
    return lambda doc: f"$.rules[{rule_index(doc, rule_id)}]{rest}"

# (case id, mutation of example A, expected JSON path of the best error, words in its message)
INVALID = [
    ("unknown_top_level_key", _set(("scenery",), {"x": 1}), "$", "scenery"),
    ("misspelt_grid_key", _rename(("map", "grid", "columns"), "colums"), "$.map.grid", "colum"),
    ("unquoted_hex_id_in_setup", _set(("setup", 0, "hex"), 802), "$.setup[0].hex",
     "not of type 'string'"),
    ("bad_colour", _set(("game", "sides", 0, "fill"), "#c9d7e"), "$.game.sides[0].fill",
     "does not match"),
    ("bad_dice", _set(("game", "dice"), ["1d6", "d6"]), "$.game.dice[1]", "does not match"),
    ("unknown_rule_kind", _on_rule("stack.limit", lambda r: r.update(kind="stack_limit")),
     _in_rule("stack.limit", ".kind"), "is not one of"),
    ("stacking_without_limit", _rule_params("stack.limit", limit=_DROP), _in_rule("stack.limit", ".params"),
     "'limit' is a required property"),
    ("face_without_name", _del(("unit_types", "merkava_plt", "faces", 0, "name")),
     "$.unit_types.merkava_plt.faces[0]", "'name' is a required property"),
    ("setup_entry_with_hex_and_box", _set(("setup", 0, "box"), "idf_elim"), "$.setup[0]",
     "is not valid under any of the given schemas"),
    ("counters_csv_not_a_string", _set(("counters",), {"csv": 5}), "$.counters.csv",
     "not of type 'string'"),
    ("unknown_nato_symbol", _set(("unit_types", "merkava_plt", "nato", "symbol"), "tank"),
     "$.unit_types.merkava_plt.nato.symbol", "is not one of"),
    ("severity_not_in_enum", _on_rule("stack.limit", lambda r: r.update(severity="fatal")),
     _in_rule("stack.limit", ".severity"), "is not one of"),
    # further mistakes that would otherwise be lost silently
    ("missing_counters", _del(("counters",)), "$", "'counters' is a required property"),
    ("unknown_schema_version", _set(("schema",), "vmodtool/2"), "$.schema", "is not one of"),
    ("movement_without_costs", _rule_params("move.ground", costs=_DROP), _in_rule("move.ground", ".params"),
     "'costs' is a required property"),
    ("selector_typo", _rule_params("hq.escorted_move", subject={"tag": ["hq"]}),
     _in_rule("hq.escorted_move", ".params.subject"), "'tag' was unexpected"),
    ("plugin_key_on_builtin_kind", _on_rule("stack.limit", lambda r: r.update(plugin="m:C")),
     _in_rule("stack.limit", ".plugin"), "should not be valid"),
    ("per_turn_limit_max_and_max_from", _rule_params("activation.limit", max=2),
     _in_rule("activation.limit", ".params"), "is valid under each of"),
    ("unquoted_hex_key_in_terrain", _set(("map", "terrain", "hexes"), {196: "town"}),
     "$.map.terrain.hexes", "not of type 'string'"),
    ("hexside_pair_of_three", _set(("map", "hexsides", 2, "between"), [["0605", "0705", "0805"]]),
     "$.map.hexsides[2].between[0]", "too long"),
    ("counter_label_and_labels", _set(("counters", 1, "label"), "1/A"), "$.counters[1]",
     "should not be valid"),
    ("bad_regex", _set(("log", "dice_regex"), "(unclosed"), "$.log.dice_regex", "regex"),
    ("version_as_number", _set(("game", "version"), 1.1), "$.game.version",
     "not of type 'string'"),
    ("too_few_sides", _set(("game", "sides"), [{"id": "a", "name": "A", "fill": "#000000",
                                               "ink": "#ffffff"}]),
     "$.game.sides", "too short"),
]


@pytest.mark.parametrize("case,mutate,where,words", INVALID, ids=[c[0] for c in INVALID])
def test_invalid_documents_fail_at_the_mistake(validator: Draft202012Validator,
                                               example_a: dict, case: str, mutate: Mutation,
                                               where: Any, words: str) -> None:
    doc = copy.deepcopy(example_a)
    if callable(where):
        where = where(doc)
    mutate(doc)
    errors = list(validator.iter_errors(doc))
    assert errors, f"{case}: document unexpectedly valid"
    best = best_match(errors)
    assert best.json_path == where, [f"{e.json_path}: {e.message}" for e in errors]
    assert words in best.message


def test_plugin_kind_needs_plugin_key(validator: Draft202012Validator) -> None:
    doc = load(EXAMPLE_B)
    i = rule_index(doc, "tank.breakdown_after_attack")
    del doc["rules"][i]["plugin"]
    best = best_match(validator.iter_errors(doc))
    assert best.json_path == f"$.rules[{i}]"
    assert "'plugin' is a required property" in best.message


def test_yaml_1_1_on_key_is_reported(validator: Draft202012Validator) -> None:
    """PyYAML (YAML 1.1) reads a bare ``on:`` key as True; the `placement`
    param must then be quoted ("on") or the loader must resolve it as a
    string.  The schema names the non-string key instead of passing silently."""
    text = EXAMPLE_A.read_text(encoding="utf-8").replace('"on": return_from_box',
                                                         "on: return_from_box")
    doc = yaml.safe_load(text)
    i = rule_index(doc, "hq.rebuild")
    assert True in doc["rules"][i]["params"]
    found = messages(validator, doc)
    assert f"$.rules[{i}].params: True is not of type 'string'" in found
    assert f"$.rules[{i}].params: 'on' is a required property" in found


# -- the quick verdict: setup entries checked against the one kind their keys name --------
def _setup_entries() -> list[Any]:
    base = {"hex": "0101", "stack": ["u1"], "box": "b", "units": ["u1"], "chits": ["c1"], "arrive": 3,
            "faces": {"u1": "reduced"}}
    import itertools
    keys = sorted(base)
    entries: list[Any] = [dict(zip(combo, (base[k] for k in combo), strict=True))
                          for n in range(len(keys) + 1) for combo in itertools.combinations(keys, n)]
    entries += [{"hex": 101, "stack": ["u1"]}, {"hex": "0101", "stack": "u1"}, {"box": "b", "units": []},
                {"box": "b", "units": ["u1"], "arrive": "soon"}, {"box": "b", "chits": ["c1"], "extra": 1},
                "0101", None, [], {"box": "b", "units": ["u1"], "faces": {"u1": 3}}]
    return entries


def test_quick_verdict_of_setup_entries_is_the_schema_s(schema: dict) -> None:
    from vmodtool.scenario.schema_check import dispatched_schema

    fast_schema = dispatched_schema(schema)
    assert fast_schema is not schema and "oneOf" not in fast_schema["$defs"]["setup_entry"]
    full, fast = Draft202012Validator(schema), Draft202012Validator(fast_schema)
    doc = yaml.safe_load(EXAMPLE_A.read_text(encoding="utf-8"))
    verdicts = []
    for entry in _setup_entries():
        trial = copy.deepcopy(doc)
        trial["setup"] = [entry]
        verdicts.append(full.is_valid(trial))
        assert fast.is_valid(trial) == verdicts[-1], entry
    assert 4 <= sum(verdicts) < len(verdicts) - 20       # the valid kinds and many invalid mixes


def test_quick_verdict_keeps_the_schema_of_another_shape(schema: dict) -> None:
    from vmodtool.scenario.schema_check import dispatched_schema

    other = copy.deepcopy(schema)
    other["$defs"]["setup_box_units"]["additionalProperties"] = True      # no longer told apart by keys
    assert dispatched_schema(other) is other


def test_a_model_loaded_before_its_schema_check_is_the_loaded_model(tmp_path: Path) -> None:
    from dataclasses import replace

    from vmodtool.scenario.loader import load_scenario, load_scenario_unchecked
    from vmodtool.scenario.problems import ScenarioProblems

    model, check_schema = load_scenario_unchecked(EXAMPLE_A)
    check_schema()
    loaded = load_scenario(EXAMPLE_A)
    # (a map's solved grid has no equality of its own: its spec and the rest are compared)
    assert model.map.grid_spec == loaded.map.grid_spec and model.map.grid is not None
    assert replace(model, map=None) == replace(loaded, map=None)
    bad = tmp_path / "scenario.yaml"
    bad.write_text(EXAMPLE_A.read_text(encoding="utf-8").replace("\ngame:\n", "\nunknown_key: 1\ngame:\n", 1),
                   encoding="utf-8")
    with pytest.raises(ScenarioProblems) as whole:
        load_scenario(bad)
    _model, check_schema = load_scenario_unchecked(bad)       # the model's own checks pass
    with pytest.raises(ScenarioProblems) as later:
        check_schema()
    assert str(later.value) == str(whole.value) and "unknown_key" in str(later.value)


def test_a_model_with_a_document_error_is_refused_before_its_schema_check(tmp_path: Path) -> None:
    # a duplicate key is the document's own error (the data is read): refused at once, as load_scenario does
    from vmodtool.scenario.loader import load_scenario, load_scenario_unchecked
    from vmodtool.scenario.problems import ScenarioProblems

    bad = tmp_path / "scenario.yaml"
    bad.write_text(EXAMPLE_A.read_text(encoding="utf-8").replace("\ngame:\n", "\nschema: vmodtool/1\ngame:\n", 1),
                   encoding="utf-8")
    with pytest.raises(ScenarioProblems) as whole:
        load_scenario(bad)
    with pytest.raises(ScenarioProblems) as first:
        load_scenario_unchecked(bad)
    assert str(first.value) == str(whole.value) and "duplicate key 'schema'" in str(first.value)
