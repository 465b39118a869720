"""Loading rule plug-ins: Python classes for rules the catalogue cannot
express (``kind: plugin``, ``plugin: "module:Class"``).

Plug-ins are code, so they are loaded **only** from folders the user names:
the scenario's ``plugins.paths`` (inside the scenario's own folder, checked
by the scenario loader) and folders given on the command line.  Nothing in a
log or a module can make vmodtool import code.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Protocol, cast

from vmodtool.audit.api import Event, GameView, Violation
from vmodtool.audit.context import PluginContext
from vmodtool.errors import VmodError

__all__ = ["load_plugin_class", "PluginError", "PluginRule", "PluginClass"]


class PluginError(VmodError):
    """A plug-in named by the scenario cannot be loaded."""


class PluginRule(Protocol):
    """What the engine calls on a plug-in (docs/seed-rules.md §3.12):
    ``check`` after each event of a kind in its ``subscribes`` (read at every
    event, with ``getattr``: a plug-in may change it or leave it out); it may
    answer None for nothing found."""

    def check(self, state: GameView, event: Event) -> Iterable[Violation] | None: ...


#: a plug-in class: made with its rule's context
PluginClass = Callable[[PluginContext], PluginRule]

_LOADED: dict[Path, ModuleType] = {}


def load_plugin_class(reference: str, folders: Sequence[Path]) -> PluginClass:
    """The class ``Class`` of ``module.py`` found in one of ``folders``."""
    module_name, _, class_name = reference.partition(":")
    if not module_name or not class_name:
        raise PluginError(f"plug-in reference {reference!r} is not \"module:Class\"")
    parts = module_name.split(".")
    for folder in folders:
        candidate = Path(folder).joinpath(*parts).with_suffix(".py")
        if candidate.is_file():
            module = _load(candidate, module_name)
            cls = getattr(module, class_name, None)
            if cls is None:
                raise PluginError(f"{candidate} has no class {class_name!r}", file=candidate)
            # what a user's module holds is known only by running it: the class
            # is taken to follow docs/seed-rules.md §3.12 (the engine reports a check that fails)
            return cast(PluginClass, cls)
    where = ", ".join(str(f) for f in folders) or "no plug-in folders (scenario plugins.paths)"
    raise PluginError(f"plug-in module {module_name!r} not found in {where}")


def _load(path: Path, module_name: str) -> ModuleType:
    key = path.resolve()
    if key in _LOADED:
        return _LOADED[key]
    unique = f"vmodtool_plugin_{abs(hash(str(key)))}_{module_name.replace('.', '_')}"
    spec = importlib.util.spec_from_file_location(unique, key)
    if spec is None or spec.loader is None:
        raise PluginError("cannot load the plug-in module", file=path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[unique] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - a plug-in's module is user code: whatever it raises is its error
        sys.modules.pop(unique, None)
        raise PluginError(f"the plug-in failed to load: {type(exc).__name__}: {exc}", file=path) from None
    _LOADED[key] = module
    return module
