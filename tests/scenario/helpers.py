"""Helpers shared by the scenario tests and the fuzz tests."""

from __future__ import annotations

import json
from typing import Any


def toml_value(value: Any) -> str:
    """A TOML inline value (strings as JSON strings, which are TOML basic strings)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k), ensure_ascii=False)} = {toml_value(v)}"
                               for k, v in value.items() if v is not None) + "}"
    raise TypeError(type(value))
