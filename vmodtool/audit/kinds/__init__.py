"""The catalogue of built-in rule kinds.  Each kind is a class registered
under its scenario name with :func:`register`; :func:`rule_class` finds it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from vmodtool.audit.api import BaseRule
from vmodtool.audit.state import AuditState

__all__ = ["register", "rule_class", "KINDS", "KindClass"]

#: a built-in kind: a rule class made with a context, reading the audit's state
KindClass = type[BaseRule[AuditState]]
_K = TypeVar("_K", bound=KindClass)

KINDS: dict[str, KindClass] = {}


def register(name: str) -> Callable[[_K], _K]:
    def decorate(cls: _K) -> _K:
        KINDS[name] = cls
        cls.kind = name
        return cls
    return decorate


def rule_class(name: str) -> KindClass:
    """The class of a built-in kind (imports every kind module once)."""
    if name not in KINDS:
        # importing a kind module registers its kinds (idempotent)
        from vmodtool.audit.kinds import (  # noqa: F401
            cards,
            combat,
            command,
            movement,
            placement,
            replacement,
            stacking,
            status,
        )
    try:
        return KINDS[name]
    except KeyError:
        raise KeyError(f"unknown rule kind {name!r}") from None
