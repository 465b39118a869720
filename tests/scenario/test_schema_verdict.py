"""The compiled schema verdict (scenario/schema_verdict.py) against
jsonschema's: the same answer on every document, or the scenario loader
would let an invalid scenario through (or refuse a valid one)."""

from __future__ import annotations

import copy
import json
import math
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from vmodtool.scenario.schema_check import _jsonable, dispatched_schema, scenario_schema, schema_problems
from vmodtool.scenario.schema_verdict import compile_verdict, json_equal
from vmodtool.scenario.source import load_document

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted([*ROOT.glob("examples/*/scenario.yaml"), *ROOT.glob("tests/scenario/fixtures/*/scenario.yaml")])


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    found = scenario_schema()
    assert found is not None
    return found


@pytest.fixture(scope="module")
def judges(schema: dict[str, Any]) -> tuple[Any, Any, Any]:
    verdict = compile_verdict(schema)
    quick = compile_verdict(dispatched_schema(schema))
    assert verdict is not None and quick is not None      # the shipped schema compiles whole
    return verdict, quick, Draft202012Validator(schema)


def _docs() -> list[Any]:
    return [_jsonable(load_document(p).data) for p in SCENARIOS]


def test_every_bundled_scenario_is_valid_by_both(judges: tuple[Any, Any, Any]) -> None:
    verdict, quick, validator = judges
    assert len(SCENARIOS) >= 8
    for doc in _docs():
        assert validator.is_valid(doc)
        assert verdict(doc) and quick(doc)


# -- mutated documents ----------------------------------------------------------------------
_ODD_VALUES: list[Any] = [None, True, False, 0, 1, -1, 1.0, 2.5, -0.5, float("nan"), "", "x", "0101", "a" * 300,
                          [], ["x"], [1, 1], ["a", "a"], {}, {"x": 1}, {"name": ""}, 10**9]


def _paths(node: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [here]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*here, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*here, i))
    return out


def _at(node: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        node = node[part]
    return node


def _mutate(doc: Any, rng: random.Random) -> Any:
    trial = copy.deepcopy(doc)
    path = rng.choice(_paths(trial)[1:])
    parent, last = _at(trial, path[:-1]), path[-1]
    value = parent[last]
    how = rng.randrange(7)
    if how == 0 and isinstance(parent, dict):
        del parent[last]                                     # a key missing
    elif how == 1 and isinstance(value, dict):
        value[rng.choice(["extra", "nmae", "id", "name", "kind", "side"])] = rng.choice(_ODD_VALUES)
    elif how == 2 and isinstance(value, list) and value:
        value.append(copy.deepcopy(rng.choice(value)))       # a duplicate item
    elif how == 3 and isinstance(value, list):
        value.clear()
    elif how == 4 and isinstance(value, (int, float)) and not isinstance(value, bool):
        parent[last] = rng.choice([value * -1, value + 0.5, 0, float(value), value * 1000])
    elif how == 5 and isinstance(value, str):
        parent[last] = rng.choice(["", value + "!", value.upper(), " " + value, value * 40, "1e3"])
    else:
        parent[last] = copy.deepcopy(rng.choice(_ODD_VALUES))
    return trial


def test_mutated_documents_get_jsonschema_s_verdict(judges: tuple[Any, Any, Any]) -> None:
    verdict, quick, validator = judges
    rng = random.Random(20261202)
    docs = _docs()
    valid = invalid = 0
    for n in range(600):
        trial = _mutate(docs[n % len(docs)], rng)
        if n % 3 == 0:
            trial = _mutate(trial, rng)                      # two changes now and then
        expected = validator.is_valid(trial)
        assert verdict(trial) == expected, n
        assert quick(trial) == expected, n
        valid += expected
        invalid += not expected
    assert valid > 60 and invalid > 200                     # both verdicts well exercised


# -- each keyword on small schemas, against random values ---------------------------------
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.sampled_from([0.0, 1.0, -2.0, 2.5, float("nan")])
    | st.text(alphabet="ab1-_Ж ", max_size=4),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(["a", "b", "c", "1", "Ж"]), inner,
                                                                 max_size=4),
    max_leaves=10)

_SMALL: list[dict[str, Any]] = [
    {"type": "integer"}, {"type": "number"}, {"type": ["string", "null"]}, {"type": "boolean"},
    {"enum": [1, "a", None, [1], {"a": 1}]}, {"enum": ["a", "b"]}, {"const": 1}, {"const": True}, {"const": [1, "a"]},
    {"uniqueItems": True}, {"uniqueItems": True, "items": {"type": "integer"}}, {"minItems": 2, "maxItems": 3},
    {"minLength": 1, "maxLength": 2}, {"pattern": "^a"}, {"pattern": "b"},
    {"minimum": 0, "maximum": 2}, {"exclusiveMinimum": 0}, {"exclusiveMaximum": 1, "minimum": -1},
    {"properties": {"a": {"type": "integer"}}, "additionalProperties": False},
    {"properties": {"a": {"type": "integer"}}, "additionalProperties": {"type": "string"}},
    {"required": ["a", "b"]}, {"minProperties": 1, "maxProperties": 2}, {"propertyNames": {"pattern": "^[a-c]$"}},
    {"anyOf": [{"type": "integer"}, {"type": "string"}]}, {"oneOf": [{"type": "integer"}, {"minimum": 0}]},
    {"allOf": [{"type": "array"}, {"items": {"type": "boolean"}}]}, {"not": {"type": "object"}},
    {"if": {"required": ["a"]}, "then": {"properties": {"a": {"const": 1}}}, "else": {"type": "array"}},
    {"$defs": {"tree": {"type": ["array", "integer"], "items": {"$ref": "#/$defs/tree"}}}, "$ref": "#/$defs/tree"},
    {"$defs": {"x": {"type": "string"}}, "properties": {"a": {"$ref": "#/$defs/x"}}, "required": ["a"]},
    {"format": "regex", "type": "string", "description": "an annotation only"},
    True, False,
]


@settings(max_examples=150, deadline=None)
@given(value=_json)
def test_each_keyword_judges_as_jsonschema(value: Any) -> None:
    for small in _SMALL:
        check = compile_verdict(small) if isinstance(small, dict) else compile_verdict({"allOf": [small]})
        assert check is not None, small
        got, expected = check(value), Draft202012Validator(small).is_valid(value)
        if got != expected and _nan_hides_a_duplicate(small, value):
            # jsonschema sorts the items to find duplicates, and a NaN
            # among them spoils the sort: it misses a duplicate that is
            # there.  The verdict finds it; the document then goes to
            # jsonschema, whose problems (none) are the answer, as always
            continue
        assert got == expected, (small, value)


def _nan_hides_a_duplicate(schema: Any, value: Any) -> bool:
    """``value`` is an array with a NaN (in an item, at any depth: a list
    holding one sorts as badly) and two equal items (as jsonschema compares
    them: ``True`` is not ``1``), under ``uniqueItems``."""
    if not (isinstance(schema, dict) and schema.get("uniqueItems") and isinstance(value, list)):
        return False
    if not _holds_nan(value):
        return False
    return any(json_equal(a, b) for i, a in enumerate(value) for b in value[i + 1:])


def _holds_nan(value: Any) -> bool:
    if isinstance(value, float):
        return math.isnan(value)
    if isinstance(value, list):
        return any(_holds_nan(x) for x in value)
    if isinstance(value, dict):
        return any(_holds_nan(x) for x in value.values())
    return False


def test_a_nan_deep_in_the_items_is_the_sort_jsonschema_cannot_do() -> None:
    # drawn by Hypothesis (CI, Python 3.12 and 3.13): two equal lists holding
    # the same NaN; jsonschema's sort of the items misses the duplicate, the
    # verdict finds it (and a document it refuses goes to jsonschema anyway)
    nan = math.nan
    value = [[nan, False, False, ""], [False], [nan, False, False, ""]]
    schema = {"uniqueItems": True}
    check = compile_verdict(schema)
    assert check is not None and check(value) is False
    assert Draft202012Validator(schema).is_valid(value) is True
    assert _nan_hides_a_duplicate(schema, value)


def test_json_equality_tells_booleans_from_numbers() -> None:
    assert json_equal(1, 1.0) and json_equal([1, "a"], [1.0, "a"]) and json_equal({"a": [1]}, {"a": [1.0]})
    assert not json_equal(True, 1) and not json_equal(False, 0) and not json_equal([True], [1])
    assert not json_equal("1", 1) and not json_equal({"a": 1}, {"b": 1}) and not json_equal([1], [1, 1])
    assert json_equal(math.nan, math.nan) and not json_equal(float("nan"), float("nan"))   # as jsonschema: by identity


def test_a_schema_beyond_the_compiler_is_left_to_jsonschema() -> None:
    assert compile_verdict({"type": "object", "patternProperties": {"^x": {}}}) is None
    assert compile_verdict({"$ref": "https://example.com/other.json"}) is None
    assert compile_verdict({"$ref": "#/$defs/missing"}) is None
    assert compile_verdict({"type": "decimal"}) is None
    assert compile_verdict({"pattern": "("}) is None


def test_an_invalid_scenario_still_gets_every_message(tmp_path: Path) -> None:
    doc = yaml.safe_load((ROOT / "tests/scenario/fixtures/example_a/scenario.yaml").read_text(encoding="utf-8"))
    doc["map"]["grid"]["hex_hieght"] = 3
    doc["game"]["title"] = 7
    path = tmp_path / "scenario.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    messages = [p.message for p in schema_problems(load_document(path))]
    assert any("hex_hieght" in m and "hex_height" in m for m in messages), messages
    assert any("expected text, found the unquoted number 7" in m for m in messages), messages


def test_a_valid_scenario_is_loaded_without_importing_jsonschema() -> None:
    code = ("import sys; from vmodtool.scenario import load_scenario; "
            f"load_scenario({json.dumps(str(ROOT / 'examples/modern-tactical/scenario.yaml'))}); "
            "print('jsonschema' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


@pytest.mark.parametrize("folder", ["templates", "templates/cards"])
def test_template_verdicts_are_jsonschema_s(folder: str) -> None:
    from vmodtool.scenario.templates import template_schema

    schema = template_schema(ROOT / folder / ("template.schema.json" if folder == "templates" else
                                              "card-template.schema.json"))
    verdict = compile_verdict(schema)
    assert verdict is not None
    validator = Draft202012Validator(schema)
    docs = [yaml.safe_load(p.read_text(encoding="utf-8")) for p in sorted((ROOT / folder).glob("*.yaml"))]
    assert docs and all(validator.is_valid(d) and verdict(d) for d in docs)
    rng = random.Random(7)
    invalid = 0
    for n in range(300):
        trial = _mutate(docs[n % len(docs)], rng)
        expected = validator.is_valid(trial)
        assert verdict(trial) == expected, n
        invalid += not expected
    assert invalid > 50
