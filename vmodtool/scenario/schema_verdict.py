"""A yes/no check of a document against the scenario's JSON Schema, compiled
once into plain Python closures, without importing ``jsonschema``.

Loading a scenario asks the schema whether the document is valid, and almost
every document is: ``jsonschema`` then costs its import (about 40 ms, with
``referencing``, ``rpds`` and ``attrs``), building its validators and
walking its keyword dispatch (0.1 s in all for a 1,000-counter scenario, on
every ``build``, ``check-scenario`` and ``audit``).  This module compiles the
schema's keywords (the Draft 2020-12 subset the shipped schema uses) into one
function per subschema; only a document it finds invalid goes to
``jsonschema`` (``schema_check``), whose errors become the designer's
messages.

The verdict must be ``jsonschema``'s, keyword for keyword: the same type
rules (``bool`` is neither an integer nor a number; ``1.0`` is an integer),
the same equality for ``enum``/``const``/``uniqueItems`` (``True`` is not
``1``), each keyword applied only to instances of its type, ``format`` an
annotation (no format checker), ``pattern`` as ``re.search``.  A schema with
any keyword this module does not know, or a ``$ref`` outside the document,
is not compiled (:func:`compile_verdict` returns None) and ``jsonschema``
answers alone.  ``tests/scenario/test_schema_verdict.py`` holds the two
verdicts equal on the examples, the test scenarios and thousands of mutated
documents.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["compile_verdict", "verdict_of", "Check"]

#: whether an instance is valid against one subschema
Check = Callable[[Any], bool]

#: keywords that never change a verdict (annotations; ``format`` asserts
#: nothing without a format checker, as schema_check's validators have none)
_ANNOTATIONS = frozenset({"$schema", "$id", "$comment", "title", "description", "examples", "default",
                          "deprecated", "readOnly", "writeOnly", "format", "$defs"})
_KNOWN = _ANNOTATIONS | frozenset({
    "type", "enum", "const", "$ref", "allOf", "anyOf", "oneOf", "not", "if", "then", "else",
    "properties", "additionalProperties", "required", "propertyNames", "minProperties", "maxProperties",
    "items", "minItems", "maxItems", "uniqueItems", "minLength", "maxLength", "pattern",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"})


class _Unsupported(Exception):
    """The schema uses something this compiler does not implement."""


def _is_integer(x: Any) -> bool:
    if isinstance(x, bool):
        return False
    return isinstance(x, int) or (isinstance(x, float) and x.is_integer())


def _is_number(x: Any) -> bool:
    return not isinstance(x, bool) and isinstance(x, numbers.Number)


_TYPES: dict[str, Check] = {
    "object": lambda x: isinstance(x, dict),
    "array": lambda x: isinstance(x, list),
    "string": lambda x: isinstance(x, str),
    "integer": _is_integer,
    "number": _is_number,
    "boolean": lambda x: isinstance(x, bool),
    "null": lambda x: x is None,
}


def _unbool(x: Any) -> Any:
    """True and False as values unequal to 1 and 0 (jsonschema's rule)."""
    if x is True:
        return _TRUE
    if x is False:
        return _FALSE
    return x


_TRUE, _FALSE = object(), object()


def json_equal(a: Any, b: Any) -> bool:
    """JSON Schema equality: strings by value, sequences and mappings item
    by item, a boolean equal only to itself."""
    if a is b:
        return True
    if isinstance(a, str) or isinstance(b, str):
        return bool(a == b)
    if isinstance(a, Sequence) and isinstance(b, Sequence):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return bool(_unbool(a) == _unbool(b))


def _unique(items: list[Any]) -> bool:
    if all(isinstance(x, str) for x in items):
        return len(set(items)) == len(items)
    seen: list[Any] = []
    for x in items:
        if any(json_equal(s, x) for s in seen):
            return False
        seen.append(x)
    return True


def _all(checks: list[Check]) -> Check:
    if not checks:
        return lambda x: True
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        a, b = checks
        return lambda x: a(x) and b(x)
    items = tuple(checks)

    def every(x: Any) -> bool:
        for c in items:
            if not c(x):
                return False
        return True
    return every


class _Compiler:
    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        #: compiled $ref targets by pointer; a list cell so that a recursive
        #: reference can be called before its target is compiled
        self.refs: dict[str, list[Check]] = {}

    def ref(self, pointer: str) -> Check:
        cell = self.refs.get(pointer)
        if cell is None:
            cell = self.refs[pointer] = []
            cell.append(self.node(self._resolve(pointer)))
        if cell:
            return cell[0]
        # a reference to a schema still being compiled (recursion): look it up when called
        return lambda x: cell[0](x)

    def _resolve(self, pointer: str) -> Any:
        if not pointer.startswith("#"):
            raise _Unsupported(f"$ref {pointer!r} outside the document")
        node: Any = self.root
        for part in pointer[1:].split("/")[1:] if pointer != "#" else []:
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(node, Mapping) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                raise _Unsupported(f"$ref {pointer!r} does not resolve")
        return node

    def node(self, schema: Any) -> Check:
        if schema is True:
            return lambda x: True
        if schema is False:
            return lambda x: False
        if not isinstance(schema, Mapping):
            raise _Unsupported(f"a schema that is a {type(schema).__name__}")
        unknown = set(schema) - _KNOWN
        if unknown:
            raise _Unsupported(f"keyword(s) {sorted(unknown)}")
        checks: list[Check] = []
        if "type" in schema:
            checks.append(self._type(schema["type"]))
        if "enum" in schema:
            checks.append(self._enum(schema["enum"]))
        if "const" in schema:
            const = schema["const"]
            checks.append(lambda x: json_equal(const, x))
        obj = self._object(schema)
        if obj is not None:
            checks.append(obj)
        arr = self._array(schema)
        if arr is not None:
            checks.append(arr)
        text = self._string(schema)
        if text is not None:
            checks.append(text)
        num = self._number(schema)
        if num is not None:
            checks.append(num)
        if "$ref" in schema:
            ref = schema["$ref"]
            if not isinstance(ref, str):
                raise _Unsupported("$ref that is not text")
            checks.append(self.ref(ref))
        checks.extend(self._combinators(schema))
        return _all(checks)

    def _type(self, wanted: Any) -> Check:
        names = wanted if isinstance(wanted, list) else [wanted]
        try:
            tests = [_TYPES[n] for n in names]
        except (KeyError, TypeError):
            raise _Unsupported(f"type {wanted!r}") from None
        if len(tests) == 1:
            return tests[0]
        return lambda x: any(t(x) for t in tests)

    def _enum(self, options: Any) -> Check:
        if not isinstance(options, list):
            raise _Unsupported("enum that is not a list")
        if all(isinstance(o, str) for o in options):
            allowed = frozenset(options)
            return lambda x: isinstance(x, str) and x in allowed
        values = list(options)
        return lambda x: any(json_equal(o, x) for o in values)

    def _object(self, schema: Mapping[str, Any]) -> Check | None:
        keys = ("properties", "additionalProperties", "required", "propertyNames", "minProperties",
                "maxProperties")
        if not any(k in schema for k in keys):
            return None
        props = {name: self.node(sub) for name, sub in dict(schema.get("properties", {})).items()}
        extra_schema = schema.get("additionalProperties", True)
        extra: Check | None = None if extra_schema is True else self.node(extra_schema)
        required = tuple(schema.get("required", ()))
        names: Check | None = self.node(schema["propertyNames"]) if "propertyNames" in schema else None
        least = schema.get("minProperties")
        most = schema.get("maxProperties")
        get = props.get

        def check(x: Any) -> bool:
            if not isinstance(x, dict):
                return True
            for key in required:
                if key not in x:
                    return False
            if least is not None and len(x) < least:
                return False
            if most is not None and len(x) > most:
                return False
            for key, value in x.items():
                sub = get(key)
                if sub is not None:
                    if not sub(value):
                        return False
                elif extra is not None and not extra(value):
                    return False
                if names is not None and not names(key):
                    return False
            return True
        return check

    def _array(self, schema: Mapping[str, Any]) -> Check | None:
        if not any(k in schema for k in ("items", "minItems", "maxItems", "uniqueItems")):
            return None
        items = self.node(schema["items"]) if "items" in schema else None
        least, most = schema.get("minItems"), schema.get("maxItems")
        unique = schema.get("uniqueItems") is True

        def check(x: Any) -> bool:
            if not isinstance(x, list):
                return True
            if least is not None and len(x) < least:
                return False
            if most is not None and len(x) > most:
                return False
            if unique and not _unique(x):
                return False
            if items is not None:
                for value in x:
                    if not items(value):
                        return False
            return True
        return check

    def _string(self, schema: Mapping[str, Any]) -> Check | None:
        if not any(k in schema for k in ("minLength", "maxLength", "pattern")):
            return None
        least, most = schema.get("minLength"), schema.get("maxLength")
        search = re.compile(schema["pattern"]).search if "pattern" in schema else None

        def check(x: Any) -> bool:
            if not isinstance(x, str):
                return True
            if least is not None and len(x) < least:
                return False
            if most is not None and len(x) > most:
                return False
            return search is None or search(x) is not None
        return check

    def _number(self, schema: Mapping[str, Any]) -> Check | None:
        bounds = [(k, schema[k]) for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
                  if k in schema]
        if not bounds:
            return None
        low, high = schema.get("minimum"), schema.get("maximum")
        xlow, xhigh = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")

        def check(x: Any) -> bool:
            if not _is_number(x):
                return True
            # the comparisons jsonschema makes (a NaN passes them all, as there)
            if low is not None and x < low:
                return False
            if high is not None and x > high:
                return False
            if xlow is not None and x <= xlow:
                return False
            return not (xhigh is not None and x >= xhigh)
        return check

    def _combinators(self, schema: Mapping[str, Any]) -> list[Check]:
        out: list[Check] = []
        if "allOf" in schema:
            out.append(_all([self.node(s) for s in schema["allOf"]]))
        if "anyOf" in schema:
            branches = tuple(self.node(s) for s in schema["anyOf"])
            out.append(lambda x: any(b(x) for b in branches))
        if "oneOf" in schema:
            choices = tuple(self.node(s) for s in schema["oneOf"])

            def one(x: Any) -> bool:
                found = 0
                for b in choices:
                    if b(x):
                        found += 1
                        if found > 1:
                            return False
                return found == 1
            out.append(one)
        if "not" in schema:
            negated = self.node(schema["not"])
            out.append(lambda x: not negated(x))
        if "if" in schema:
            condition = self.node(schema["if"])
            then = self.node(schema["then"]) if "then" in schema else None
            otherwise = self.node(schema["else"]) if "else" in schema else None

            def branch(x: Any) -> bool:
                if condition(x):
                    return then is None or then(x)
                return otherwise is None or otherwise(x)
            out.append(branch)
        return out


def compile_verdict(schema: Mapping[str, Any]) -> Check | None:
    """The check of a whole document against ``schema`` (None when the
    schema uses what this module does not implement: ask jsonschema)."""
    try:
        return _Compiler(schema).node(schema)
    except (_Unsupported, re.error, TypeError, ValueError):
        return None


#: compiled verdicts by the id of their schema (kept with the schema, so
#: that an id is never reused for another while its entry lives)
_COMPILED: dict[int, tuple[Mapping[str, Any], Check | None]] = {}


def verdict_of(schema: Mapping[str, Any]) -> Check | None:
    """:func:`compile_verdict` of a schema the program keeps (the shipped
    schemas, loaded once), compiled on first use."""
    found = _COMPILED.get(id(schema))
    if found is None or found[0] is not schema:
        if len(_COMPILED) >= 16:
            _COMPILED.clear()
        found = _COMPILED[id(schema)] = (schema, compile_verdict(schema))
    return found[1]
