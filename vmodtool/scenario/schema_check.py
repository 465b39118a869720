"""Structural validation of a scenario document with the JSON Schema that
ships in the package, and the translation of JSON Schema errors into
messages a designer understands ("unknown key 'hex_hieght'; did you mean
'hex_height'?", "expected text, found the unquoted number 0304 …")."""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from vmodtool.scenario.problems import Path, Problem
from vmodtool.scenario.schema_verdict import Check, compile_verdict
from vmodtool.scenario.source import Document

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

    Explained = list[Problem] | None
    Explainer = Callable[[Document, ValidationError, Path, Mapping[str, Any]], Explained]

__all__ = ["scenario_schema", "schema_problems", "too_long"]


@lru_cache(maxsize=1)
def scenario_schema() -> dict[str, Any] | None:
    """The JSON Schema shipped with the package (``vmodtool/data``)."""
    try:
        text = resources.files("vmodtool").joinpath("data/scenario.schema.json").read_text("utf-8")
    except (FileNotFoundError, OSError):
        return None
    schema: dict[str, Any] = json.loads(text)
    return schema



def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    return value


def too_long(what: str, limit: object) -> str:
    """The words of a maxLength/maxItems problem (the loader says its bounds
    in the same words, so that one value is reported once)."""
    return f"{what} is too long (maximum {limit})"


#: a setup entry's kind by the key only it has (the four kinds are closed
#: objects: an entry with one kind's keys is none of the others)
_SETUP_KINDS = (("hex", "setup_hex_stack"), ("chits", "setup_box_chits"), ("arrive", "setup_reinforcement"))
_SETUP_OTHERWISE = "setup_box_units"


def dispatched_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with ``setup_entry``'s ``oneOf`` replaced by a choice of
    the one kind the entry's keys name (``if``/``then``): the same verdict
    on every document (the kinds are closed and each is told by a key the
    others do not allow or require), without checking each of hundreds of
    entries against all four kinds.  Its errors are not the designer's
    messages: it only says whether a document is valid."""
    defs = schema.get("$defs", {})
    kinds = [ref for _key, ref in _SETUP_KINDS] + [_SETUP_OTHERWISE]
    entry = defs.get("setup_entry", {})
    if sorted(b.get("$ref", "") for b in entry.get("oneOf", ())) != sorted(f"#/$defs/{k}" for k in kinds) or \
            any(defs.get(k, {}).get("additionalProperties") is not False for k in kinds):
        return schema                      # another shape: checked as written
    choice: dict[str, Any] = {"$ref": f"#/$defs/{_SETUP_OTHERWISE}"}
    for key, kind in reversed(_SETUP_KINDS):
        choice = {"if": {"required": [key]}, "then": {"$ref": f"#/$defs/{kind}"}, "else": choice}
    rest = {k: v for k, v in entry.items() if k != "oneOf"}
    return {**schema, "$defs": {**defs, "setup_entry": {**rest, **choice}}}


@lru_cache(maxsize=1)
def _verdict() -> Check | None:
    """The schema's compiled yes/no check (None: jsonschema decides alone)."""
    schema = scenario_schema()
    return compile_verdict(dispatched_schema(schema)) if schema is not None else None


@lru_cache(maxsize=1)
def _validators() -> tuple[Any, Any] | None:
    schema = scenario_schema()
    if schema is None:
        return None
    try:
        import jsonschema
    except ImportError:  # pragma: no cover - a dependency
        return None
    return jsonschema.Draft202012Validator(schema), jsonschema.Draft202012Validator(dispatched_schema(schema))


def schema_problems(doc: Document) -> list[Problem]:
    data = _jsonable(doc.data)
    verdict = _verdict()
    if verdict is not None and verdict(data):
        return []                          # valid: jsonschema is not even imported
    validators = _validators()
    if validators is None:
        return []
    validator, fast = validators
    if verdict is None and fast.is_valid(data):
        return []                          # a valid document: the quick verdict is the whole answer
    out: list[Problem] = []
    for error in validator.iter_errors(data):
        out.extend(_explain(doc, error))
    return out


def _original_path(doc: Document, path: Sequence[Any]) -> Path:
    """Map a JSON path (string keys) back to the document's keys (which may
    be ints for unquoted YAML keys)."""
    out: list[Any] = []
    node = doc.data
    for part in path:
        if isinstance(node, dict):
            key = part
            if part not in node:
                for k in node:
                    if str(k) == part:
                        key = k
                        break
            out.append(key)
            node = node.get(key)
        elif isinstance(node, list) and isinstance(part, int):
            out.append(part)
            node = node[part] if part < len(node) else None
        else:
            out.append(part)
            node = None
    return tuple(out)


def _rule_kind(doc: Document, path: Path) -> str | None:
    """The kind of the rule whose ``params`` mapping ``path`` is in
    (``rules[i].params…``), else None."""
    if len(path) < 3 or path[0] != "rules" or path[2] != "params" or not isinstance(path[1], int):
        return None
    rules = doc.data.get("rules") if isinstance(doc.data, dict) else None
    if not isinstance(rules, list) or path[1] >= len(rules) or not isinstance(rules[path[1]], dict):
        return None
    kind = rules[path[1]].get("kind")
    return kind if isinstance(kind, str) else None


def _descend(node: Mapping[str, Any], part: object) -> Mapping[str, Any] | None:
    """The subschema of ``node`` for the key or list index ``part``, looking
    into ``anyOf``/``oneOf`` branches; None past a ``$ref`` (a shared
    definition such as a selector is not a parameter object)."""
    if "$ref" in node:
        return None
    if isinstance(part, int):
        sub = node.get("items")
    else:
        sub = node.get("properties", {}).get(part)
    if isinstance(sub, Mapping):
        return sub
    for branch in [*node.get("anyOf", ()), *node.get("oneOf", ())]:
        if isinstance(branch, Mapping):
            found = _descend(branch, part)
            if found is not None:
                return found
    return None


def _is_or_branch(node: Mapping[str, Any], schema: Mapping[str, Any]) -> bool:
    return node == schema or any(b == schema for b in [*node.get("anyOf", ()), *node.get("oneOf", ())])


def _param_owner(doc: Document, path: Path, schema: Mapping[str, Any]) -> tuple[str, str] | None:
    """(kind, owner) when the mapping at ``path``, checked by ``schema``, is
    a rule's params or an object nested in them: owner "a stacking rule",
    "out_of_range in a command_range rule", "a require item in an
    obligation rule". None otherwise (a selector inside params, a plug-in's
    free params, anything outside rules)."""
    kind = _rule_kind(doc, path)
    root = scenario_schema()
    if kind is None or root is None:
        return None
    rule = f"a{'n' if kind[:1] in 'aeiou' else ''} {kind} rule"
    inner = path[3:]
    if not inner:
        return kind, rule
    node: Mapping[str, Any] | None = root.get("$defs", {}).get(f"params_{kind}")
    for part in inner:
        node = _descend(node, part) if node is not None else None
    if node is None or not _is_or_branch(node, schema):
        return None
    name = ".".join(str(p) for p in inner if not isinstance(p, int))
    owner = f"a {name} item" if isinstance(inner[-1], int) else name
    return kind, f"{owner} in {rule}"


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the text {value!r}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    if value is None:
        return "nothing (null)"
    return repr(value)


_TYPE_NAMES = {"string": "a text (string)", "integer": "a whole number", "number": "a number",
               "boolean": "true or false", "array": "a list", "object": "a mapping (key: value)",
               "null": "null"}


def _mapping_hint(schema: Mapping[str, Any], takes: str = "it takes the keys") -> str:
    """What a mapping the value should have been holds: its keys, else the
    schema's description of a free mapping (``game.scale``)."""
    keys = sorted(schema.get("properties", {}))
    if keys:
        return f"; {takes}: {', '.join(keys)}"
    described = schema.get("description")
    return f" ({str(described).rstrip('.')})" if described else ""


def _explain(doc: Document, error: ValidationError) -> list[Problem]:
    path = _original_path(doc, list(error.absolute_path))
    # a subschema is a mapping (a boolean schema has no keys to explain)
    schema: Mapping[str, Any] = error.schema if isinstance(error.schema, Mapping) else {}
    for explainer in _EXPLAINERS.get(str(error.validator), ()):
        found = explainer(doc, error, path, schema)
        if found is not None:
            return found
    return [doc.problem(path, error.message)]


def _alternatives(doc: Document, error: ValidationError, path: Path, schema: Mapping[str, Any]) -> Explained:
    """``oneOf``/``anyOf``: explain the alternative the value came closest
    to: the branch with the fewest errors, preferring the most specific
    (deepest) ones."""
    if not error.context:
        return None
    branches: dict[object, list[ValidationError]] = {}
    for sub in error.context:
        branches.setdefault(sub.relative_schema_path[0] if sub.relative_schema_path else 0,
                            []).append(sub)
    either = _either(doc, error, error.context, path, schema)
    if either is not None:
        return either
    here = list(error.absolute_path)

    def wrong_type(errs: list[ValidationError]) -> bool:
        """The branch wants another type of value altogether."""
        return any(e.validator in ("type", "const", "enum") and list(e.absolute_path) == here for e in errs)

    # a branch of the value's own type explains best ({hq_factr: …} against
    # "a number or {hq_factor: name}" is about the mapping, not "expected a number")
    best = min(branches.values(),
               key=lambda errs: (wrong_type(errs), len(errs), -max(len(e.absolute_path) for e in errs)))
    if len(best) == 1 and best[0].validator in ("oneOf", "anyOf") and not best[0].context:
        best = []
    if best:
        out: list[Problem] = []
        for sub in best:
            out.extend(_explain(doc, sub))
        return out
    return [doc.problem(path, f"{_describe(error.instance)} is not valid here"
                        + (f": {schema.get('description')}" if schema.get("description") else ""))]


def _no_type_fits(doc: Document, error: ValidationError, path: Path, schema: Mapping[str, Any]) -> Explained:
    """``oneOf``/``anyOf`` of which one alternative is a mapping, given a
    value of a type no alternative takes (``allowance: fast`` against "a
    number or {factor: name}"): every alternative named, and what the
    mapping takes, not only the first alternative's type."""
    found = _types_wanted(error, list(error.absolute_path))
    if found is None:
        return None
    wants, mapping = found
    if mapping is None:
        return None
    return [doc.problem(path, f"expected {' or '.join(dict.fromkeys(wants))}, found {_describe(error.instance)}"
                        + _mapping_hint(mapping, "the mapping takes the keys"))]


def _types_wanted(error: ValidationError, here: list[Any]) -> tuple[list[str], Mapping[str, Any] | None] | None:
    """The types the alternatives of ``error`` (nested ones too) want when
    each rejects the value's type at ``here``, and the first mapping's
    schema; None when an alternative takes the value's type (its own
    message explains better: a text against a list of names says "did you
    mean")."""
    branches: dict[object, list[ValidationError]] = {}
    for sub in error.context or ():
        branches.setdefault(sub.relative_schema_path[0] if sub.relative_schema_path else 0, []).append(sub)
    if not branches:
        return None
    wants: list[str] = []
    mapping: Mapping[str, Any] | None = None
    for errs in branches.values():
        own = [e for e in errs if list(e.absolute_path) == here and e.validator in ("type", "anyOf", "oneOf")]
        if not own:
            return None
        e = own[0]
        if e.validator == "type":
            names = e.validator_value if isinstance(e.validator_value, list) else [e.validator_value]
            wants.extend(_TYPE_NAMES.get(str(n), str(n)) for n in names)
            inner = e.schema if "object" in names and isinstance(e.schema, Mapping) else None
        else:
            nested = _types_wanted(e, here)
            if nested is None:
                return None
            wants.extend(nested[0])
            inner = nested[1]
        mapping = mapping if mapping is not None else inner
    return wants, mapping


def _either(doc: Document, error: ValidationError, context: Sequence[ValidationError], path: Path,
            schema: Mapping[str, Any]) -> Explained:
    """``{anyOf: [{required: [a]}, {required: [b]}]}``: at least one of them."""
    alternatives = [re.findall(r"'([^']+)' is a required property", sub.message)
                    for sub in context if sub.validator == "required"
                    and list(sub.absolute_path) == list(error.absolute_path)]
    if not (error.validator == "anyOf" and len(alternatives) == len(context) >= 2 and all(alternatives)):
        return None
    either = ", ".join(repr(a[0]) for a in alternatives)
    owner = _param_owner(doc, path, schema)
    if owner is not None:
        return [doc.problem(path, f"missing a parameter of {owner[1]}: at least one of {either}")]
    return [doc.problem(path, f"missing a key: at least one of {either}")]


def _extra_keys(doc: Document, error: ValidationError, path: Path, schema: Mapping[str, Any]) -> Explained:
    allowed = sorted(schema.get("properties", {}))
    instance = error.instance if isinstance(error.instance, Mapping) else {}  # always an object here
    extras = [k for k in instance if k not in schema.get("properties", {})
              and not any(re.search(p, k) for p in schema.get("patternProperties", {}))]
    owner = _param_owner(doc, path, schema)
    out = []
    for key in extras:
        hint = difflib.get_close_matches(key, allowed, n=1)
        if owner is not None:
            # a rule's params (or an object in them): name the kind and list what it reads
            msg = f"unknown parameter of {owner[1]}"
            msg += f"; did you mean {hint[0]!r}?" if hint else ""
            msg += f" (parameters: {', '.join(allowed)})"
        elif not allowed and not schema.get("patternProperties"):
            msg = f"unknown key {key!r}; {path[-1] if path else 'this mapping'} has no options"
        else:
            msg = f"unknown key {key!r}"
            msg += f"; did you mean {hint[0]!r}?" if hint else (
                f"; expected one of: {', '.join(allowed)}" if allowed else "")
        kpath = _original_path(doc, list(error.absolute_path) + [key])
        at = doc.key_info.get(kpath)   # the key itself, not its (maybe nested) value
        out.append(doc.problem(kpath, msg) if at is None else
                   Problem(msg, file=doc.file, line=at.line, column=at.column, path=kpath))
    return out


def _required(doc: Document, error: ValidationError, path: Path, schema: Mapping[str, Any]) -> Explained:
    missing = re.findall(r"'([^']+)' is a required property", error.message)
    key = missing[0] if missing else error.message
    owner = _param_owner(doc, path, schema)
    if owner is not None:
        return [doc.problem(path, f"missing required parameter {key!r} of {owner[1]}")]
    return [doc.problem(path, f"missing required key {key!r}")]


def _empty_params(doc: Document, error: ValidationError, path: Path, schema: Mapping[str, Any]) -> Explained:
    if error.instance or not isinstance(error.instance, Mapping):
        return None
    owner = _param_owner(doc, path, schema)
    keys = ", ".join(sorted(schema.get("properties", {})))
    if owner is not None and keys:
        return [doc.problem(path, f"an empty mapping is not valid for {owner[1]}; give at least one "
                            f"of: {keys}")]
    return None


def _type(doc: Document, error: ValidationError, path: Path, schema: Mapping[str, Any]) -> Explained:
    expected = error.validator_value
    names = expected if isinstance(expected, list) else [expected]
    want = " or ".join(_TYPE_NAMES.get(str(n), str(n)) for n in names)
    raw = doc.is_unquoted_number(path)
    if raw is not None and "string" in names:
        value = error.instance
        return [doc.problem(path, f"expected text, found the unquoted number {raw}"
                            + (f" (YAML reads it as {value})" if str(value) != raw else "")
                            + f"; write it in quotes: \"{raw}\"")]
    return [doc.problem(path, f"expected {want}, found {_describe(error.instance)}"
                        + (_mapping_hint(schema) if "object" in names else ""))]


def _enum(doc: Document, error: ValidationError, path: Path, schema: Mapping[str, Any]) -> Explained:
    options = [str(o) for o in error.validator_value] if isinstance(error.validator_value, list) else []
    hint = difflib.get_close_matches(str(error.instance), options, n=1)
    return [doc.problem(path, f"{_describe(error.instance)} is not allowed; expected one of: "
                        f"{', '.join(options)}" + (f" (did you mean {hint[0]!r}?)" if hint else ""))]


def _const(doc: Document, error: ValidationError, path: Path, schema: Mapping[str, Any]) -> Explained:
    return [doc.problem(path, f"expected {error.validator_value!r}, found {_describe(error.instance)}")]


def _pattern(doc: Document, error: ValidationError, path: Path, schema: Mapping[str, Any]) -> Explained:
    what = schema.get("description") or f"text matching {error.validator_value}"
    return [doc.problem(path, f"{_describe(error.instance)} is not valid: expected {what}")]


def _range(doc: Document, error: ValidationError, path: Path, schema: Mapping[str, Any]) -> Explained:
    return [doc.problem(path, f"{_describe(error.instance)} is out of range "
                              f"({error.validator} {error.validator_value})")]


def _too_long(doc: Document, error: ValidationError, path: Path, schema: Mapping[str, Any]) -> Explained:
    if not isinstance(error.instance, (str, list)):
        return None
    # say the size and the bound, not the (long) value itself
    what = "a text of {} characters" if error.validator == "maxLength" else "a list of {} entries"
    return [doc.problem(path, too_long(what.format(len(error.instance)), error.validator_value))]


def _size(doc: Document, error: ValidationError, path: Path, schema: Mapping[str, Any]) -> Explained:
    return [doc.problem(path, f"{_describe(error.instance)}: {error.message}")]


def _not(doc: Document, error: ValidationError, path: Path, schema: Mapping[str, Any]) -> Explained:
    return [doc.problem(path, schema.get("description") or f"{_describe(error.instance)} is not allowed here")]


#: how each JSON Schema validator's error is put in a designer's words: the
#: first explainer that gives problems wins (else the validator's message)
_EXPLAINERS: dict[str, tuple[Explainer, ...]] = {
    "oneOf": (_no_type_fits, _alternatives), "anyOf": (_no_type_fits, _alternatives),
    "additionalProperties": (_extra_keys,), "required": (_required,),
    "minProperties": (_empty_params, _size), "type": (_type,), "enum": (_enum,), "const": (_const,),
    "pattern": (_pattern,), "minimum": (_range,), "exclusiveMinimum": (_range,), "maximum": (_range,),
    "exclusiveMaximum": (_range,), "maxItems": (_too_long, _size), "maxLength": (_too_long, _size),
    "minItems": (_size,), "minLength": (_size,), "not": (_not,),
}
