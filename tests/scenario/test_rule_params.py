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
from collections.abc import Callable, Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

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


@pytest.mark.parametrize("example", sorted((REPO / "examples").glob("*/scenario.yaml")),
                         ids=lambda p: p.parent.name)
def test_bundled_examples_have_no_problems(example: Path) -> None:
    scenario, problems = check_scenario(example)
    assert scenario is not None and problems == []


# -- the schema declares exactly what each kind reads -----------------------------

#: a params path: ("out_of_range", "check_target", "hq_factor"); list items are transparent
Key = tuple[str, ...]
#: calls that hand their first argument on as it is (or as a list of it)
_PASS_ON = {"as_list", "list", "tuple", "frozenset", "set", "enumerate"}
#: how deep a path is followed (a recursive helper walks ``not: {not: …}`` selectors)
_DEPTH = 4


class ParamReads:
    """The constant key paths a kind's code reads of its params.

    A small data-flow walk over the source: ``self.params`` (and a name
    ``params``) is the root; a name or ``self`` attribute assigned from
    ``X.get("k")``, ``X["k"]``, ``X or {}``, ``as_list(X)`` or a ``for``
    over X stands for that path; ``X.get("k")``, ``X["k"]`` and ``"k" in X``
    read ``path + ("k",)``.  Helpers of the same module and methods of the
    class that are handed a path are followed with it bound."""

    def __init__(self) -> None:
        self.paths: set[Key] = set()
        self._done: set[tuple[int, frozenset[tuple[str, Key]]]] = set()

    def unit(self, obj: Callable[..., Any] | type, bound: dict[str, set[Key]]) -> None:
        key = (id(obj), frozenset((n, p) for n, ps in bound.items() for p in ps))
        if key in self._done:
            return
        self._done.add(key)
        module = inspect.getmodule(obj)
        top = ast.parse(textwrap.dedent(inspect.getsource(obj))).body[0]
        attrs: dict[str, set[Key]] = {}
        if isinstance(top, ast.ClassDef):
            methods = {f.name: f for f in top.body if isinstance(f, ast.FunctionDef)}
            envs: dict[str, dict[str, set[Key]]] = {name: {"params": {()}} for name in methods}
            if "__init__" in envs:
                envs["__init__"].update(bound)
            while any([self._bind(fn, envs[name], attrs) for name, fn in methods.items()]):
                pass
            for name, fn in methods.items():
                self._read(fn, envs[name], attrs, module, methods)
        elif isinstance(top, ast.FunctionDef):
            env = {"params": {()}, **{k: set(v) for k, v in bound.items()}}
            while self._bind(top, env, attrs):
                pass
            self._read(top, env, attrs, module, {})

    @staticmethod
    def _loops(fn: ast.AST) -> dict[str, list[str]]:
        """``for end in ("top", "bottom"): p.get(end)``: the constants a loop name takes."""
        return {node.target.id: [e.value for e in node.iter.elts
                                 if isinstance(e, ast.Constant) and isinstance(e.value, str)]
                for node in ast.walk(fn) if isinstance(node, ast.For) and isinstance(node.target, ast.Name)
                and isinstance(node.iter, (ast.Tuple, ast.List))}

    @classmethod
    def resolve(cls, node: ast.AST, env: dict[str, set[Key]], attrs: dict[str, set[Key]],
                loops: dict[str, list[str]]) -> set[Key]:
        """The params paths an expression stands for."""
        def again(sub: ast.AST) -> set[Key]:
            return cls.resolve(sub, env, attrs, loops)

        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            return {()} if node.attr == "params" else set(attrs.get(node.attr, ()))
        if isinstance(node, ast.Name):
            return set(env.get(node.id, ()))
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
                and isinstance(node.slice.value, str):
            return {p + (node.slice.value,) for p in again(node.value) if len(p) < _DEPTH}
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Attribute) and f.attr == "get" and node.args:
                arg = node.args[0]
                keys = [arg.value] if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else (
                    loops.get(arg.id, []) if isinstance(arg, ast.Name) else [])
                return {p + (k,) for p in again(f.value) for k in keys if len(p) < _DEPTH}
            if isinstance(f, ast.Name) and f.id in _PASS_ON and node.args:
                return again(node.args[0])
            return set()
        if isinstance(node, ast.BoolOp):
            return set().union(*(again(v) for v in node.values))
        if isinstance(node, ast.IfExp):
            return again(node.body) | again(node.orelse)
        return set()

    def _bind(self, fn: ast.AST, env: dict[str, set[Key]], attrs: dict[str, set[Key]]) -> bool:
        """Bind the names (and self attributes) assigned from a params path;
        True if a binding was added (run until nothing changes)."""
        loops = self._loops(fn)
        changed = False
        for node in ast.walk(fn):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets, value = node.targets, node.value
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                targets, value = [node.target], node.value
            elif isinstance(node, (ast.For, ast.comprehension)):
                targets, value = [node.target], node.iter
                if isinstance(node.target, ast.Tuple) and isinstance(value, ast.Call) \
                        and isinstance(value.func, ast.Name) and value.func.id == "enumerate":
                    targets = [node.target.elts[-1]]
            else:
                continue
            paths = self.resolve(value, env, attrs, loops)
            for target in targets if paths else []:
                if isinstance(target, ast.Name):
                    table, name = env, target.id
                elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                        and target.value.id == "self":
                    table, name = attrs, target.attr
                else:
                    continue
                if paths - table.get(name, set()):
                    table.setdefault(name, set()).update(paths)
                    changed = True
        return changed

    def _read(self, fn: ast.FunctionDef, env: dict[str, set[Key]], attrs: dict[str, set[Key]],
              module: Any, methods: dict[str, ast.FunctionDef]) -> None:
        loops = self._loops(fn)

        def paths(node: ast.AST) -> set[Key]:
            return self.resolve(node, env, attrs, loops)

        for node in ast.walk(fn):
            if isinstance(node, (ast.Subscript, ast.Call)):
                self.paths |= {p for p in paths(node) if p}
            if isinstance(node, ast.Compare) and isinstance(node.left, ast.Constant) \
                    and isinstance(node.left.value, str) and isinstance(node.ops[0], (ast.In, ast.NotIn)):
                self.paths |= {p + (node.left.value,) for c in node.comparators for p in paths(c)
                               if len(p) < _DEPTH}
            if not isinstance(node, ast.Call):
                continue
            args = [paths(a) for a in node.args]
            if not any(args):
                continue
            f = node.func
            if isinstance(f, ast.Name):
                helper = getattr(module, f.id, None)
                if inspect.isfunction(helper) or (inspect.isclass(helper)
                                                  and helper.__module__.startswith("vmodtool.audit.kinds")):
                    names = list(inspect.signature(helper).parameters)
                    self.unit(helper, {n: ps for n, ps in zip(names, args, strict=False) if ps})
            elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self" \
                    and f.attr in methods:
                method = methods[f.attr]
                sub = dict(env)
                sub.update({a.arg: ps for a, ps in zip(method.args.args[1:], args, strict=False) if ps})
                key = (id(method), frozenset((n, p) for n, ps in sub.items() for p in ps))
                if key not in self._done:
                    self._done.add(key)
                    self._read(method, sub, attrs, module, methods)


def kind_paths(kind: str) -> set[Key]:
    """Every params path the kind's classes (and their helpers) read."""
    reads = ParamReads()
    for klass in rule_class(kind).__mro__:
        if klass.__module__.startswith("vmodtool.audit.kinds"):
            reads.unit(klass, {})
    return reads.paths


def kind_reads(kind: str) -> set[str]:
    """The top-level params the kind reads."""
    return {p[0] for p in kind_paths(kind)}


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
    # nested keys: through a local (road), a self attribute set from one
    # (check_target), a list of items (require) and a helper handed a
    # nested object (all_in_box, during)
    assert {("road", "types"), ("road", "cost")} <= kind_paths("movement_allowance")
    assert ("out_of_range", "check_target", "hq_factor") in kind_paths("command_range")
    assert {("require", "eliminate"), ("require", "marker_in_hex")} <= kind_paths("obligation")
    assert ("all_in_box", "box") in kind_paths("phase_sweep")
    assert ("during", "own_side") in kind_paths("status_forbids")


# -- nested parameter objects: closed to exactly what the kind reads ---------------

#: nested keys a kind accepts without reading them, each for a stated reason
ACCEPTED_UNREAD_NESTED = {
    # the seed ranks only the dead pile (1.7b): `then` lists who comes next, for
    # the reader; the check serves `first` before all others
    ("replacement", ("priority",), "then"),
}


def _dynamic_reads() -> dict[tuple[str, Key], set[str]]:
    """Nested keys the code reads with a computed key, from what computes it."""
    from vmodtool.audit.kinds.replacement import SUBCHECK_SUFFIXES

    return {
        # Replacement._ref: (params["refs"] or {}).get(check) for each sub-check
        ("replacement", ("refs",)): set(SUBCHECK_SUFFIXES),
        # PhaseSweep._due: at[event.kind] for event.kind in ("phase_end", "phase_start")
        ("phase_sweep", ("at",)): {"phase_end", "phase_start"},
    }


def param_objects(node: Any, path: Key = ()) -> Iterator[tuple[Key, dict[str, Any]]]:
    """(params path, schema) of every object declared inline in a kind's
    params: through properties, list items and anyOf/oneOf branches, not
    into a ``$ref`` (selectors and state maps are checked on their own)."""
    if not isinstance(node, dict) or "$ref" in node:
        return
    if node.get("type") == "object" or "properties" in node:
        yield path, node
        for key, sub in node.get("properties", {}).items():
            yield from param_objects(sub, path + (key,))
    yield from param_objects(node.get("items"), path)
    for branch in [*node.get("anyOf", ()), *node.get("oneOf", ())]:
        yield from param_objects(branch, path)


def nested_objects(kind: str) -> list[tuple[Key, dict[str, Any]]]:
    return [(path, node) for path, node in param_objects(DEFS[f"params_{kind}"]) if path]


def test_the_nested_objects_are_found() -> None:
    paths = {(kind, path) for kind in BUILT_IN for path, _ in nested_objects(kind)}
    assert {("command_range", ("out_of_range",)), ("command_range", ("out_of_range", "check_target")),
            ("obligation", ("require",)), ("replacement", ("priority",)),
            ("movement_allowance", ("enemy_zoc",))} <= paths


@pytest.mark.parametrize("kind", BUILT_IN)
def test_no_nested_parameter_object_is_open(kind: str) -> None:
    # closed (additionalProperties: false), or a map keyed by ids the designer
    # chooses (terrain ids, movement classes), whose values have a schema
    open_ = [path for path, node in nested_objects(kind)
             if node.get("additionalProperties") is not False
             and not (isinstance(node.get("additionalProperties"), dict) and not node.get("properties"))]
    assert open_ == [], f"{kind}: open nested objects {open_}"


@pytest.mark.parametrize("kind", BUILT_IN)
def test_nested_objects_declare_exactly_what_the_kind_reads(kind: str) -> None:
    read_paths = kind_paths(kind)
    dynamic = _dynamic_reads()
    for path, node in nested_objects(kind):
        if node.get("additionalProperties") is not False:
            continue        # a keyed map: its keys are the designer's ids
        declared = set(node.get("properties", {}))
        read = {p[len(path)] for p in read_paths if len(p) > len(path) and p[:len(path)] == path}
        read |= dynamic.get((kind, path), set())
        where = ".".join(path)
        assert read, f"{kind}.{where}: the extraction finds no reads"
        assert read - declared == set(), f"{kind}.{where} reads undeclared keys"
        unread = {(kind, path, k) for k in declared - read}
        assert unread <= ACCEPTED_UNREAD_NESTED, f"{kind}.{where} declares keys it never reads"
        assert set(node.get("required", [])) <= declared


def test_refs_name_the_replacement_sub_checks() -> None:
    from vmodtool.audit.kinds.replacement import SUBCHECK_SUFFIXES

    refs = DEFS["params_replacement"]["properties"]["refs"]
    assert set(refs["properties"]) == set(SUBCHECK_SUFFIXES)


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
