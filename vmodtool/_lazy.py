"""Lazy re-exports for package ``__init__`` modules (PEP 562).

A package lists its public names and the module each comes from; a name is
imported on first access, so ``import vmodtool.vassal.grid`` (which the CLI
does at start-up) or ``import vmodtool.audit.api`` (which a rule plug-in
does) does not import the rest of its package.  The package also imports the
same names under ``typing.TYPE_CHECKING`` so that type checkers and editors
see them; ``tests/test_public_api.py`` checks that both lists agree.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(namespace: dict[str, Any], modules: Mapping[str, Iterable[str]]
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of the package whose ``globals()``
    is *namespace*; *modules* maps each module to the public names it
    defines."""
    package = namespace["__name__"]
    exports = {name: module for module, names in modules.items() for name in names}

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value        # later look-ups are plain attribute reads
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(exports))

    return __getattr__, __dir__
