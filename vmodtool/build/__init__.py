"""Deprecated import path: the module assembler is :mod:`vmodtool.assemble`
and lint is :mod:`vmodtool.lint`.

``import vmodtool.build`` (and ``vmodtool.build.<module>``) keeps working
for one release: it warns (``DeprecationWarning``) and forwards every
name and submodule to its new home.  A package named ``build`` was the
wrong name: pytest's default ``norecursedirs`` and many tools treat
``build/`` as output and skip it.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings
from typing import Any

warnings.warn("vmodtool.build is now vmodtool.assemble (and vmodtool.build.lint is vmodtool.lint); "
              "the old path will be removed in the next release", DeprecationWarning, stacklevel=2)

#: old submodule → its new module
MOVED = {
    "builder": "vmodtool.assemble.builder",
    "components": "vmodtool.assemble.components",
    "decks": "vmodtool.assemble.decks",
    "images": "vmodtool.assemble.images",
    "module": "vmodtool.assemble.module",
    "module_images": "vmodtool.assemble.module_images",
    "offmap": "vmodtool.assemble.offmap",
    "pieces": "vmodtool.assemble.pieces",
    "scenario_cache": "vmodtool.assemble.scenario_cache",
    "lint": "vmodtool.lint.linter",
}

#: where the package's old top-level names live now (the assembler's own,
#: then lint's, which it used to re-export)
_HOMES = ("vmodtool.assemble", "vmodtool.lint")


class _Forward(importlib.abc.MetaPathFinder):
    """Finds ``vmodtool.build.X`` as the module it moved to (imported only
    when asked for, as before)."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        prefix, _, name = fullname.rpartition(".")
        if prefix != __name__ or name not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, _Alias(MOVED[name]))


class _Alias(importlib.abc.Loader):
    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: Any) -> Any:
        return importlib.import_module(self.target)

    def exec_module(self, module: Any) -> None:
        return None


if not any(isinstance(f, _Forward) for f in sys.meta_path):
    sys.meta_path.insert(0, _Forward())


def __getattr__(name: str) -> Any:
    if name in MOVED:
        return importlib.import_module(MOVED[name])
    for home in _HOMES:
        module = importlib.import_module(home)
        if name in getattr(module, "__all__", ()):
            return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*MOVED, *(n for home in _HOMES for n in importlib.import_module(home).__all__)})
