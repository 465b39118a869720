"""Rule ``params`` are checked per kind against the JSON Schema (the one
source of what each kind reads): an unknown or misspelt parameter, a missing
one and a wrong type are located errors of ``vmodtool check-scenario``; the
schema declares exactly the keys each built-in kind reads."""

from __future__ import annotations

import ast
import inspect
import json
import re
import textwrap
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.conftest import built_examples
from vmodtool.audit.kinds import KINDS, rule_class
from vmodtool.cli import cli
from vmodtool.scenario.loader import RULE_KINDS, check_scenario

REPO = Path(__file__).resolve().parents[2]
STARTER = resources.files("vmodtool").joinpath("data/starter/scenario.yaml").read_text("utf-8")
BASE = (STARTER.replace("{{id}}", "test-game").replace("{{title}}", "Test — Тест")
        .replace("{{path}}", "scenario.yaml"))
STACKING = "params: {limit: 2, count: units, per_side: true}"
SCHEMA: dict[str, Any] = json.loads(
    resources.files("vmodtool").joinpath("data/scenario.schema.json").read_text("utf-8"))
DEFS: dict[str, Any] = SCHEMA["$defs"]

#: keys a kind accepts without reading them, each for a stated reason
ACCEPTED_UNREAD = {
    # the range is measured at activation start, the only value the schema allows
    ("command_range", "evaluate_at"),
    # EZOC and supply are accepted and deliberately not checked (004:1.7a-5)
    ("replacement", "ignore_conditions"),
}


def check(tmp_path: Path, text: str) -> tuple[int, list[str]]:
    path = tmp_path / "scenario.yaml"
    path.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(cli, ["check-scenario", str(path)])
    return result.exit_code, result.output.splitlines()


def line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), start=1) if needle in line)


def located(lines: list[str], text: str, needle: str, key: str) -> str:
    """The one output line located at ``needle``'s line with key path ``key``."""
    want = re.compile(rf"scenario\.yaml:{line_of(text, needle)}:\d+: {re.escape(key)}: ")
    found = [line for line in lines if want.search(line)]
    assert len(found) == 1, (want.pattern, lines)
    return found[0]


def edited(old: str, new: str) -> str:
    assert old in BASE
    return BASE.replace(old, new, 1)


# -- reproducers ------------------------------------------------------------------

def test_misspelt_count_is_an_unknown_parameter(tmp_path: Path) -> None:
    text = edited(STACKING, "params: {limit: 2, cuont: units, per_side: true}")
    code, lines = check(tmp_path, text)
    assert code == 2
    line = located(lines, text, "cuont", "rules[0].params.cuont")
    assert "unknown parameter of a stacking rule; did you mean 'count'?" in line
    assert "(parameters: count, exempt, limit, per_side, per_type_max, points_from)" in line


def test_misspelt_hexside_extra_is_an_unknown_parameter(tmp_path: Path) -> None:
    text = edited("      hexside_extra:", "      hexside_extras:")
    code, lines = check(tmp_path, text)
    assert code == 2
    line = located(lines, text, "hexside_extras:", "rules[1].params.hexside_extras")
    assert "unknown parameter of a movement_allowance rule; did you mean 'hexside_extra'?" in line


def test_misspelt_limit_is_unknown_and_limit_missing(tmp_path: Path) -> None:
    text = edited(STACKING, "params: {limt: 2, count: units, per_side: true}")
    code, lines = check(tmp_path, text)
    assert code == 2
    line = located(lines, text, "limt", "rules[0].params.limt")
    assert "did you mean 'limit'?" in line
    missing = located(lines, text, "limt", "rules[0].params")
    assert "missing required parameter 'limit' of a stacking rule" in missing


def test_wrong_type_is_located_at_the_value(tmp_path: Path) -> None:
    text = edited(STACKING, "params: {limit: 2, count: units, per_side: \"да\"}")
    code, lines = check(tmp_path, text)
    assert code == 2
    line = located(lines, text, "per_side: \"да\"", "rules[0].params.per_side")
    assert "expected true or false, found the text 'да'" in line


def test_out_of_range_and_bad_choice_are_located(tmp_path: Path) -> None:
    text = edited(STACKING, "params: {limit: -1, count: unit, per_side: true}")
    code, lines = check(tmp_path, text)
    assert code == 2
    assert "out of range" in located(lines, text, "limit: -1", "rules[0].params.limit")
    assert "did you mean 'units'?" in located(lines, text, "limit: -1", "rules[0].params.count")


def test_missing_params_of_a_kind_that_needs_them(tmp_path: Path) -> None:
    text = edited("    " + STACKING + "\n", "")
    code, lines = check(tmp_path, text)
    assert code == 2
    assert "missing required key 'params'" in located(lines, text, "- id: stack.limit", "rules[0]")


def test_plugin_params_are_free(tmp_path: Path) -> None:
    text = BASE + ('  - id: house.rule\n    kind: plugin\n    plugin: "house_rules:Check"\n'
                   '    params: {anything: 1, cuont: units}\n')
    code, lines = check(tmp_path, text)
    assert code == 0 and len(lines) == 1 and ": ok — " in lines[0], lines


@pytest.mark.parametrize("example", built_examples(),
                         ids=lambda p: p.parent.name)
def test_bundled_examples_have_no_problems(example: Path) -> None:
    scenario, problems = check_scenario(example)
    assert scenario is not None and problems == []


# -- the schema declares exactly what each kind reads -----------------------------

def _is_params(node: ast.expr, aliases: set[str]) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "params") or \
        (isinstance(node, ast.Name) and node.id in aliases)


def _keys_read(func: Callable[..., Any] | type, seen: set[object]) -> set[str]:
    """The constant keys a class's methods (or a function) read of its
    params (``self.params``, a local alias of it, or a ``params`` argument),
    following helpers of the same module that are handed the params."""
    if func in seen:
        return set()
    seen.add(func)
    module = inspect.getmodule(func)
    tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    keys: set[str] = set()
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef):
            continue
        aliases = {"params"}
        loops: dict[str, list[object]] = {}   # for end in ("top", "bottom"): p.get(end)
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign) and _is_params(node.value, set()):
                aliases |= {t.id for t in node.targets if isinstance(t, ast.Name)}
            if isinstance(node, ast.For) and isinstance(node.target, ast.Name) \
                    and isinstance(node.iter, (ast.Tuple, ast.List)):
                loops[node.target.id] = [e.value for e in node.iter.elts if isinstance(e, ast.Constant)]
        for node in ast.walk(fn):
            if isinstance(node, ast.Subscript) and _is_params(node.value, aliases) \
                    and isinstance(node.slice, ast.Constant):
                keys.add(node.slice.value)
            elif isinstance(node, ast.Compare) and isinstance(node.left, ast.Constant) \
                    and any(_is_params(c, aliases) for c in node.comparators):
                keys.add(node.left.value)
            elif isinstance(node, ast.Call):
                f = node.func
                if isinstance(f, ast.Attribute) and f.attr == "get" and _is_params(f.value, aliases) \
                        and node.args:
                    arg = node.args[0]
                    if isinstance(arg, ast.Constant):
                        keys.add(arg.value)
                    elif isinstance(arg, ast.Name):
                        keys.update(str(v) for v in loops.get(arg.id, []))
                if isinstance(f, ast.Name) and any(_is_params(a, aliases) for a in node.args):
                    helper = getattr(module, f.id, None)
                    if inspect.isfunction(helper) or inspect.isclass(helper):
                        keys |= _keys_read(helper, seen)
    return {k for k in keys if isinstance(k, str)}


def kind_reads(kind: str) -> set[str]:
    cls = rule_class(kind)
    seen: set[object] = set()
    keys: set[str] = set()
    for klass in cls.__mro__:
        if klass.__module__.startswith("vmodtool.audit.kinds"):
            keys |= _keys_read(klass, seen)
    return keys


BUILT_IN = [k for k in RULE_KINDS if k != "plugin"]


def test_every_built_in_kind_is_registered() -> None:
    rule_class("stacking")
    assert sorted(KINDS) == sorted(BUILT_IN)


@pytest.mark.parametrize("kind", BUILT_IN)
def test_schema_declares_exactly_what_the_kind_reads(kind: str) -> None:
    params = DEFS[f"params_{kind}"]
    declared = set(params["properties"])
    read = kind_reads(kind)
    assert read, kind   # the extraction works
    assert read - declared == set(), f"{kind} reads undeclared params"
    unread = {(kind, k) for k in declared - read}
    assert unread <= ACCEPTED_UNREAD, f"{kind} declares params it never reads"
    assert params["additionalProperties"] is False
    for key in params.get("required", []):
        assert key in declared


def test_extraction_finds_helpers() -> None:
    # the cost tables and the placement trigger are read by helpers
    assert {"costs", "hexside_extra", "road", "bridge_types"} <= kind_reads("movement_allowance")
    assert "on" in kind_reads("placement")


def test_plugin_params_stay_open() -> None:
    assert DEFS["params_plugin"]["additionalProperties"] is True


def test_format_doc_lists_every_parameter() -> None:
    doc = (REPO / "docs" / "scenario-format.md").read_text("utf-8")
    missing = []
    for kind in BUILT_IN:
        section = re.search(rf"^\| `{kind}` \|(.*)$", doc, re.MULTILINE)
        if section is None:
            missing.append(kind)
            continue
        missing += [f"{kind}.{key}" for key in DEFS[f"params_{kind}"]["properties"]
                    if f"`{key}`" not in section.group(1)]
    assert not missing, missing


# -- styles are checked at load, as the counter renderer reads them ---------------

STYLES = """styles:
  counter:
    size: 16mm
    vassal_dpi: 150
    font: regular
    label_font: condensed
    border: "#123"
    reduced_mark: "#a01010"
    reduced_lighten: 0.5
    pips: false
    chits: true
    reduced_states: [reduced, разбит]
"""


def styled(lines: str) -> str:
    return BASE + STYLES + lines


def test_full_counter_style_loads_and_renders(tmp_path: Path) -> None:
    from vmodtool.render.counters import counter_style

    path = tmp_path / "scenario.yaml"
    path.write_text(styled(""), encoding="utf-8")
    scenario, problems = check_scenario(path)
    assert scenario is not None and problems == []
    style = counter_style(scenario)
    assert style.border == (0x11, 0x22, 0x33) and style.font == "regular" and style.vassal_px == 94
    assert style.reduced_states == ("reduced", "разбит") and not style.show_pips


def test_schema_styles_match_the_renderer() -> None:
    from vmodtool.render import counters, fonts

    counter = SCHEMA["properties"]["styles"]["properties"]["counter"]
    assert set(counter["properties"]) == counters._STYLE_KEYS
    assert counter["additionalProperties"] is False
    for key in ("font", "label_font"):
        assert counter["properties"][key]["enum"] == list(fonts.FONT_STYLES)
    row = re.search(r"^\| `styles` \|(.*)$", (REPO / "docs" / "scenario-format.md").read_text("utf-8"),
                    re.MULTILINE)
    assert row is not None
    assert [key for key in [*counters._STYLE_KEYS, *fonts.FONT_STYLES] if f"`{key}`" not in row.group(1)] == []


@pytest.mark.parametrize("edit, needle, key, expected", [
    ("    bordr: \"#000000\"\n", "bordr", "styles.counter.bordr", "unknown key 'bordr'; did you mean 'border'?"),
    ("    reduced_mark: red\n", "reduced_mark: red", "styles.counter.reduced_mark", "is not valid: expected Colour"),
    ("    border: \"#12345g\"\n", "#12345g", "styles.counter.border", "is not valid: expected Outline colour"),
    ("    font: Arial\n", "font: Arial", "styles.counter.font", "'Arial' is not allowed; expected one of: regular"),
    ("    pips: \"нет\"\n", "pips: \"нет\"", "styles.counter.pips", "expected true or false"),
    ("    reduced_lighten: 2\n", "reduced_lighten: 2", "styles.counter.reduced_lighten", "out of range"),
    ("    formations: {blu: {stripe: \"#00f\"}}\n", "formations", "styles.counter.formations.blu",
     "unknown formation 'blu'; no formations are defined"),
    ("    formations: {blu: {strip: \"#00f\"}}\n", "formations", "styles.counter.formations.blu.strip",
     "did you mean 'stripe'?"),
    ("  countr: {}\n", "countr", "styles.countr", "unknown key 'countr'; did you mean 'counter'?"),
])
def test_style_mistakes_are_located(tmp_path: Path, edit: str, needle: str, key: str, expected: str) -> None:
    # an edit of a key STYLES already gives replaces it (a duplicate key is its own error)
    name = edit.split(":")[0] + ":"
    base = "".join(line + "\n" for line in STYLES.splitlines() if not line.startswith(name))
    text = BASE + base + edit
    code, lines = check(tmp_path, text)
    assert code == 2
    assert expected in located(lines, text, needle, key)


def test_too_small_vassal_images_are_found_at_load(tmp_path: Path) -> None:
    text = BASE + "styles:\n  counter: {size: 4mm, vassal_dpi: 100}\n"
    code, lines = check(tmp_path, text)
    assert code == 2
    assert "gives VASSAL images of 16 px; at least 24 px" in located(
        lines, text, "size: 4mm", "styles.counter.size")
