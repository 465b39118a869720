"""Lint of attribute values (``docs/vassal-format.md`` §2.1): integers,
doubles, booleans, colours and key strokes VASSAL cannot read, by the
component's class (:data:`~vmodtool.lint.attribute_kinds.ATTRIBUTE_KINDS`).
The colour and key-stroke readers serve the trait check too."""

from __future__ import annotations

from lxml import etree

from vmodtool.errors import FormatError
from vmodtool.lint.attribute_kinds import ATTRIBUTE_KINDS, LAUNCH_KEYS
from vmodtool.lint.codes import registrar
from vmodtool.lint.context import LintRun, java_int_ok, short_tag
from vmodtool.vassal.grid_common import parse_double_attribute
from vmodtool.vassal.keys import is_meant_keystroke

__all__ = ["check_attributes", "double_ok", "colour_problem", "key_problem"]


register = registrar(__name__)

register("bad-int-attribute", "error",
         "an integer attribute is not a Java int: VASSAL throws NumberFormatException "
         "and drops the component (the root: refuses the module)")
register("bad-double-attribute", "error",
         "a floating-point attribute is not a Java double: VASSAL throws "
         "NumberFormatException and drops the component")
register("ignored-number-attribute", "warning",
         "a numeric attribute is malformed; VASSAL catches the error and keeps the "
         "default")
register("bad-boolean", "warning",
         "a boolean is neither true nor false: VASSAL reads it as false")
register("bad-colour", "warning",
         "a colour is not r,g,b[,a] (0-255) or 0xRRGGBB: VASSAL uses black")
register("bad-keystroke", "warning",
         "a key stroke is not keyCode,modifiers[,name]: VASSAL reads no key")
register("named-key-comma", "warning",
         "a named key command contains ',': VASSAL keeps only the text before it")
register("named-key-hides-keystroke", "warning",
         "a key is written keyCode,modifiers,name with a real key stroke (70,130,Flip): "
         "VASSAL reads a named command and ignores the key stroke, so pressing the keys does "
         "nothing; write 70,130 for Ctrl+F")


def double_ok(value: str) -> bool:
    try:
        parse_double_attribute("", "", value)
    except FormatError:
        return False
    return True


def colour_problem(value: str | None) -> str | None:
    """Why ``ColorConfigurer.stringToColor`` would fall back to black
    (``None`` when the value is a colour or empty)."""
    if value is None or value in ("", "null"):
        return None
    if value[:2] in ("0x", "0X"):
        try:
            number = int(value[2:], 16)
        except ValueError:
            return "not a hex number"
        return None if 0 <= number < 2 ** 31 else "out of range"
    parts = [p for p in value.split(",") if p != ""]
    if len(parts) < 3:
        return "needs r,g,b"
    for part in parts[:4]:
        if not java_int_ok(part):
            return f"{part!r} is not an integer"
        if not 0 <= int(part) <= 255:
            return f"{part} is outside 0-255"
    return None


def key_problem(value: str | None, legacy_char: bool = False) -> tuple[str, str] | None:
    """(code, why) for a key-stroke token VASSAL cannot read; ``None`` when
    fine.  ``legacy_char``: a token without ``,`` is a Ctrl+char key (trait
    fields), not an error."""
    if value is None or value == "":
        return None
    parts = value.split(",")
    while parts and parts[-1] == "":
        parts.pop()
    if len(parts) < 2:
        if legacy_char:
            return None
        return ("bad-keystroke", "has no ',' between key code and modifiers")
    if not (java_int_ok(parts[0]) and java_int_ok(parts[1])):
        return ("bad-keystroke", "key code and modifiers must be integers")
    if len(parts) > 3:
        return ("named-key-comma", f"the command name {','.join(parts[2:])!r} contains ','; "
                f"VASSAL keeps only {parts[2]!r}")
    if len(parts) == 3 and parts[2] and is_meant_keystroke(int(parts[0]), int(parts[1])):
        return ("named-key-hides-keystroke", f"a key stroke with the name {parts[2]!r}: VASSAL 3.7 "
                f"reads the named command {parts[2]!r} and ignores the keys; write "
                f"{parts[0]},{parts[1]} for the key stroke")
    return None


def check_attributes(run: LintRun, element: etree._Element, tag: str) -> None:
    """Each typed attribute of ``element`` (a component of class ``tag``)."""
    kinds = ATTRIBUTE_KINDS.get(tag, {})
    for name, value in element.attrib.items():
        kind = kinds.get(name)
        if kind is None and name in LAUNCH_KEYS:
            kind = "k"
        if kind is None:
            continue
        what = f"{short_tag(element.tag)} attribute {name}={value!r}"
        detail = {"attribute": name, "value": value}
        if kind == "i" and not java_int_ok(value):
            run.add("bad-int-attribute", f"{what} is not an integer: VASSAL throws "
                    "NumberFormatException and drops the component", element, detail=detail)
        elif kind == "d" and not double_ok(value):
            run.add("bad-double-attribute", f"{what} is not a number: VASSAL throws "
                    "NumberFormatException and drops the component", element, detail=detail)
        elif kind == "dl":
            bad = [p for p in value.split(",") if not double_ok(p)]
            if bad:
                run.add("bad-double-attribute", f"{what}: {bad[0]!r} is not a number: "
                        "VASSAL throws NumberFormatException and drops the component",
                        element, detail=detail)
        elif kind in ("i?", "d?"):
            ok = java_int_ok(value) if kind == "i?" else double_ok(value)
            if not ok:
                run.add("ignored-number-attribute", f"{what} is not a number; VASSAL "
                        "ignores it and keeps the default", element, detail=detail)
        elif kind == "b":
            if value and value.lower() not in ("true", "false"):
                run.add("bad-boolean", f"{what} is not true/false: VASSAL reads false",
                        element, detail=detail)
        elif kind == "c":
            why = colour_problem(value)
            if why:
                run.add("bad-colour", f"{what} is not a colour ({why}): VASSAL uses black",
                        element, detail=detail)
        elif kind == "k":
            problem = key_problem(value)
            if problem:
                run.add(problem[0], f"{what}: {problem[1]}", element, detail=detail)
