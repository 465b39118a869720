"""The catalogue of built-in rule kinds.  Each kind is a class registered
under its scenario name with :func:`register`; :func:`rule_class` finds it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Dict, Type

__all__ = ["register", "rule_class", "KINDS"]

KINDS: dict[str, type] = {}


def register(name: str) -> Callable[[type], type]:
    def decorate(cls: type) -> type:
        KINDS[name] = cls
        cls.kind = name
        return cls
    return decorate


def rule_class(name: str) -> type:
    """The class of a built-in kind (imports every kind module once)."""
    if name not in KINDS:
        # importing a kind module registers its kinds (idempotent)
        from vmodtool.audit.kinds import command, movement, placement, replacement, stacking, status  # noqa: F401
    try:
        return KINDS[name]
    except KeyError:
        raise KeyError(f"unknown rule kind {name!r}") from None
