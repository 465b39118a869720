"""The built-in rule kinds.  Each module of this package holds kinds,
registered under their scenario names with :func:`register`; the registry
(:mod:`vmodtool.audit.registry`) imports every module of the package (no
list to keep up) and finds installed rule packages too
(:func:`vmodtool.audit.registry.rule_class`).  This package imports
nothing of the registry: the registry reads it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from vmodtool.audit.api import Rule

__all__ = ["register", "KINDS", "KindClass"]

#: a built-in kind: a rule class made with a context
KindClass = type[Rule]
_K = TypeVar("_K", bound=KindClass)

KINDS: dict[str, KindClass] = {}
#: whether every module of the package was imported (see registry.builtin_kinds)
ALL_LOADED = False


def register(name: str) -> Callable[[_K], _K]:
    def decorate(cls: _K) -> _K:
        KINDS[name] = cls
        cls.kind = name
        return cls
    return decorate

