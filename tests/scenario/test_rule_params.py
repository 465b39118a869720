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

from tests.conftest import game_examples
from vmodtool.audit.kinds import KINDS
from vmodtool.audit.registry import rule_class
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


# -- nested parameter objects ------------------------------------------------------

def with_rule(rule: str) -> str:
    """BASE with one more rule entry (``rule``: its YAML lines after ``- ``)."""
    return BASE + "  - " + rule.strip("\n").replace("\n", "\n    ") + "\n"


COMMAND = "id: cmd\nkind: command_range\nparams:\n  range_factor: move\n  out_of_range:\n"


@pytest.mark.parametrize("edit, needle, key, expected", [
    # the reproducers of issue 14: each misspelt inner key switched a check off unseen
    (COMMAND + "    accept_if: [passed_check]\n    markr: out_of_command\n", "markr", "out_of_range.markr",
     "unknown parameter of out_of_range in a command_range rule; did you mean 'ooc_marker'? (parameters: "
     "accept_if, check_annotation, check_target, failed_check, ooc_marker, otherwise)"),
    ("id: rp\nkind: replacement\nparams: {phase: movement, budget: 2, priority: {frist: {on_map: false}}}",
     "frist", "priority.frist", "unknown parameter of priority in a replacement rule; did you mean 'first'?"),
    ("id: rp\nkind: replacement\nparams: {phase: movement, budget: 2, return_from_dead: {stacked: {on_map: true}}}",
     "stacked", "return_from_dead.stacked",
     "unknown parameter of return_from_dead in a replacement rule; did you mean 'stacked_with'? "
     "(parameters: face, stacked_with)"),
    ("id: tw\nkind: transition_window\nparams:\n  subject: {on_map: true}\n  from: {step: full}\n"
     "  to: {step: reduced}\n  condition: {snapshot: phase_start, same_hex: {on_map: true}}",
     "same_hex", "condition.same_hex", "unknown parameter of condition in a transition_window rule; "
     "did you mean 'same_hex_as'? (parameters: same_hex_as, snapshot)"),
    ("id: ob\nkind: obligation\nparams:\n  trigger: {event: eliminated, subjcet: {on_map: true}}\n"
     "  require: [{eliminate: {on_map: true}}]", "subjcet", "trigger.subjcet",
     "unknown parameter of trigger in an obligation rule; did you mean 'subject'? "
     "(parameters: event, hex_contains, subject)"),
    ("id: ob\nkind: obligation\nparams:\n  trigger: {event: eliminated}\n"
     "  require: [{eliminate: {on_map: false}}, {eliminat: {on_map: true}}]", "eliminat: {on_map: true}",
     "require[1].eliminat",
     "unknown parameter of a require item in an obligation rule; did you mean 'eliminate'? "
     "(parameters: eliminate, marker_in_hex)"),
    ("id: ma\nkind: movement_allowance\nparams:\n  allowance: 4\n  costs: {foot: {clear: 1}}\n"
     "  road: {types: [river], cots: 1}", "cots", "road.cots",
     "unknown parameter of road in a movement_allowance rule; did you mean 'cost'? (parameters: cost, types)"),
    ("id: ma\nkind: movement_allowance\nparams:\n  allowance: 4\n  costs: {foot: {clear: 1}}\n"
     "  enemy_zoc: {enter: stop, exerted: {on_map: true}}", "exerted", "enemy_zoc.exerted",
     "unknown parameter of enemy_zoc in a movement_allowance rule; did you mean 'exerted_by'? "
     "(parameters: enter, exerted_by)"),
    # deeper: an object inside a nested object
    (COMMAND + "    check_target: {hq_factr: move}\n", "hq_factr", "out_of_range.check_target.hq_factr",
     "unknown parameter of out_of_range.check_target in a command_range rule; did you mean 'hq_factor'? "
     "(parameters: hq_factor)"),
    ("id: sf\nkind: status_forbids\nparams: {status: {on_map: true}, forbids: move, during: {own_sid: true}}",
     "own_sid", "during.own_sid", "unknown parameter of during in a status_forbids rule; did you mean 'own_side'?"),
    ("id: sw\nkind: phase_sweep\nparams: {at: {phase_ned: movement}, none_on_map: {on_map: true}}",
     "phase_ned", "at.phase_ned", "unknown parameter of at in a phase_sweep rule; did you mean 'phase_end'?"),
])
def test_misspelt_nested_parameters_are_located(tmp_path: Path, edit: str, needle: str, key: str,
                                                expected: str) -> None:
    text = with_rule(edit)
    code, lines = check(tmp_path, text)
    assert code == 2
    assert expected in located(lines, text, needle, "rules[2].params." + key)


@pytest.mark.parametrize("edit, needle, key, expected", [
    ("id: ma\nkind: movement_allowance\nparams:\n  allowance: 4\n  costs: {foot: {clear: 1}}\n"
     "  road: {types: [river]}", "road:", "road", "missing required parameter 'cost' of road in a "
     "movement_allowance rule"),
    ("id: ma\nkind: movement_allowance\nparams:\n  allowance: 4\n  costs: {foot: {clear: 1}}\n"
     "  enemy_zoc: {exerted_by: {on_map: true}}", "enemy_zoc", "enemy_zoc",
     "missing required parameter 'enter' of enemy_zoc in a movement_allowance rule"),
    ("id: rp\nkind: replacement\nparams: {phase: movement, budget: 2, priority: {then: [{on_map: true}]}}",
     "priority", "priority", "missing required parameter 'first' of priority in a replacement rule"),
    ("id: sw\nkind: phase_sweep\nparams: {at: {}, none_on_map: {on_map: true}}", "at: {}", "at",
     "an empty mapping is not valid for at in a phase_sweep rule; give at least one of: phase_end, "
     "phase_start, turn_end"),
    ("id: sw\nkind: phase_sweep\nparams: {at: {turn_end: true}, all_in_box: {select: {on_map: false}}}",
     "all_in_box", "all_in_box", "missing a parameter of all_in_box in a phase_sweep rule: at least one of "
     "'box_role', 'box'"),
    ("id: ob\nkind: obligation\nparams: {trigger: {event: eliminated}, require: [{}]}", "require", "require[0]",
     "an empty mapping is not valid for a require item in an obligation rule"),
    # a value of the right type is explained by its own alternative
    (COMMAND + "    check_target: {hq_factr: move}\n", "check_target", "out_of_range.check_target",
     "missing required parameter 'hq_factor' of out_of_range.check_target in a command_range rule"),
    # choices
    ("id: ob\nkind: obligation\nparams: {trigger: {event: eliminatd}, require: [{eliminate: {on_map: true}}]}",
     "eliminatd", "trigger.event", "expected one of: last_unit_eliminated_in_hex, eliminated, unit_eliminated "
     "(did you mean 'eliminated'?)"),
    (COMMAND + "    accept_if: [passed_chek]\n", "passed_chek", "out_of_range.accept_if[0]",
     "expected one of: passed_check, ooc_marker (did you mean 'passed_check'?)"),
    ("id: ma\nkind: movement_allowance\nparams:\n  allowance: 4\n  costs: {foot: {clear: 1}}\n"
     "  enemy_zoc: {enter: stopp}", "stopp", "enemy_zoc.enter", "expected one of: stop"),
])
def test_nested_missing_and_wrong_values_are_located(tmp_path: Path, edit: str, needle: str, key: str,
                                                     expected: str) -> None:
    text = with_rule(edit)
    code, lines = check(tmp_path, text)
    assert code == 2
    assert expected in located(lines, text, needle, "rules[2].params." + key)


def test_at_least_one_of_names_both_at_the_top_level(tmp_path: Path) -> None:
    text = with_rule("id: so\nkind: stack_order\nparams: {ignore: {on_map: false}}")
    code, lines = check(tmp_path, text)
    assert code == 2
    assert "missing a parameter of a stack_order rule: at least one of 'top', 'bottom'" in located(
        lines, text, "params: {ignore", "rules[2].params")


def test_selectors_inside_params_keep_their_own_words(tmp_path: Path) -> None:
    # a selector is not a parameter object: its keys are the selector's
    text = with_rule("id: ma\nkind: movement_allowance\nparams:\n  allowance: 4\n  costs: {foot: {clear: 1}}\n"
                     "  enemy_zoc: {enter: stop, exerted_by: {tagz: [tank]}}")
    code, lines = check(tmp_path, text)
    assert code == 2
    assert "unknown key 'tagz'; did you mean 'tags'?" in located(
        lines, text, "tagz", "rules[2].params.enemy_zoc.exerted_by.tagz")


EVERY_NESTED_KEY = """
  - id: cmd
    kind: command_range
    params:
      range_factor: move
      out_of_range: {accept_if: [passed_check, ooc_marker], otherwise: warning, failed_check: error,
                     check_target: {hq_factor: move}, check_annotation: [check, morale], ooc_marker: [ooc]}
  - id: ma
    kind: movement_allowance
    params:
      allowance: {factor: move}
      costs: {foot: {clear: 1}}
      road: {types: [river], cost: {foot: 0.5}}
      enemy_zoc: {enter: stop, exerted_by: {on_map: true}}
  - id: sw
    kind: phase_sweep
    params:
      at: {phase_end: [movement], phase_start: movement, turn_end: true}
      all_in_box: {select: {on_map: false}, box_role: eliminated, box: [blue_dead, red_dead]}
  - id: ob
    kind: obligation
    params:
      trigger: {event: last_unit_eliminated_in_hex, hex_contains: {on_map: true}, subject: {on_map: true}}
      require: [{eliminate: {on_map: true}}, {marker_in_hex: wreck}]
  - id: tw
    kind: transition_window
    params:
      subject: {on_map: true}
      from: {step: full}
      to: {step: reduced}
      condition: {snapshot: turn_start, same_hex_as: {on_map: true}}
  - id: rp
    kind: replacement
    params:
      phase: movement
      budget: 2
      priority: {first: {on_map: false}, then: [{on_map: true}], dead_pile_counts_only_if_returnable: true}
      return_from_dead: {face: [full], stacked_with: {on_map: true}}
      # rulebook references, not phase or selector names
      refs: {phase: "r 1", eligible: "r 2", per_unit: "r 3", steps: "r 4", priority: "r 5", return: "r 6",
             budget: "r 7"}
  - id: sf
    kind: status_forbids
    params:
      status: {on_map: true}
      forbids: move
      during: {phase: movement, phases: [combat], own_side: true, activation: own}
"""


def _keys_used(node: Any, path: Key = ()) -> Iterator[tuple[Key, str]]:
    if isinstance(node, list):
        for item in node:
            yield from _keys_used(item, path)
    elif isinstance(node, dict):
        for key, value in node.items():
            yield path, str(key)
            yield from _keys_used(value, path + (str(key),))


def test_every_nested_key_loads(tmp_path: Path) -> None:
    import yaml

    declared = {(kind, path, key) for kind in BUILT_IN for path, node in nested_objects(kind)
                if node.get("additionalProperties") is False for key in node.get("properties", {})}
    used = {(entry["kind"], path, key) for entry in yaml.safe_load(EVERY_NESTED_KEY)
            for path, key in _keys_used(entry["params"])}
    # stacking's per_type_max (modern-tactical) and the allowance {factor} (the starter) are used elsewhere
    assert declared - used <= {("stacking", ("per_type_max",), "max"), ("stacking", ("per_type_max",), "select"),
                               ("movement_allowance", ("allowance",), "factor")}
    path = tmp_path / "scenario.yaml"
    markers = ("markers:\n  wreck: {name: Wreck, representation: counter, scope: hex}\n"
               "  ooc: {name: Out of command, representation: counter, scope: hex}\n")
    path.write_text(BASE + EVERY_NESTED_KEY.lstrip("\n") + markers, encoding="utf-8")
    scenario, problems = check_scenario(path)
    assert problems == [] and scenario is not None
    assert len(scenario.rules) == 2 + 7


def test_board_style_takes_no_options(tmp_path: Path) -> None:
    text = BASE + "styles:\n  board: {hex_colour: \"#ffffff\"}\n"
    code, lines = check(tmp_path, text)
    assert code == 2
    assert "unknown key 'hex_colour'; board has no options" in located(
        lines, text, "hex_colour", "styles.board.hex_colour")
    path = tmp_path / "scenario.yaml"
    path.write_text(BASE + "styles:\n  board: {}\n", encoding="utf-8")
    assert check_scenario(path)[1] == []


@pytest.mark.parametrize("example", game_examples(),
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
        # and the keys of its nested objects, after the object's name
        for path, node in nested_objects(kind):
            if node.get("additionalProperties") is not False:
                continue
            after = section.group(1).split(f"`{path[-1]}`", 1)[-1]
            missing += [f"{kind}.{'.'.join(path)}.{key}" for key in node["properties"] if f"`{key}`" not in after]
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
