"""The catalogue of built-in rule kinds.  Each kind is a class registered
under its scenario name with :func:`register`; :func:`rule_class` finds it."""

from __future__ import annotations

from typing import Callable, Dict, Type

__all__ = ["register", "rule_class", "KINDS"]

KINDS: Dict[str, Type] = {}


def register(name: str) -> Callable[[Type], Type]:
    def decorate(cls: Type) -> Type:
        KINDS[name] = cls
        cls.kind = name
        return cls
    return decorate


def rule_class(name: str) -> Type:
    """The class of a built-in kind (imports every kind module once)."""
    if name not in KINDS:
        # importing a kind module registers its kinds (idempotent)
        from vmodtool.audit.kinds import (command, movement, placement, stacking,  # noqa: F401
                                          status, replacement)
    try:
        return KINDS[name]
    except KeyError:
        raise KeyError(f"unknown rule kind {name!r}") from None
