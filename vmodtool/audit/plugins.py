"""Loading rule plug-ins: Python classes for rules the catalogue cannot
express (``kind: plugin``, ``plugin: "module:Class"``).

Plug-ins are code that runs with the user's rights, so nothing is imported
unless the user consents: the folders they name (``--plugins DIR``,
``audit_logs(plugin_folders=…)``) and, only when they trust the scenario
(``--trust-scenario-plugins``, ``trust_scenario_plugins=True``), the
scenario's own ``plugins.paths`` (inside the scenario's folder, checked by
the scenario loader).  A plug-in rule whose module is in no such folder is
not imported at all and is reported as not checked (:func:`plugin_module`
answers None).  Nothing in a log or a module can make vmodtool import code.

Everything that goes wrong while making the rule — the module does not
import, the class is missing, is not a class, raises in its constructor or
is not a rule (no ``check``, ``subscribes`` not a set of event kinds) — is a
:class:`PluginError`: one line naming the plug-in file, the class and the
rule (the CLI exits 2).  What a plug-in's ``check`` raises during the audit
is a rule failure of the report (:mod:`vmodtool.audit.engine`).
"""

from __future__ import annotations

import importlib.util
import sys
import traceback
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Protocol, cast

from vmodtool.audit.api import Event, GameView, Violation
from vmodtool.audit.context import Context
from vmodtool.errors import VmodError

__all__ = ["load_plugin_class", "make_plugin_rule", "plugin_module", "subscribes_problem",
           "PluginError", "PluginRule", "PluginClass"]


class PluginError(VmodError):
    """A plug-in named by the scenario cannot be loaded or is not a rule."""


class PluginRule(Protocol):
    """What the engine calls on a plug-in (docs/seed-rules.md §3.12):
    ``check`` after each event of a kind in its ``subscribes`` (read at every
    event, with ``getattr``: a plug-in may change it or leave it out); it may
    answer None for nothing found."""

    def check(self, state: GameView, event: Event) -> Iterable[Violation] | None: ...


#: a plug-in class: made with its rule's context
PluginClass = Callable[[Context], PluginRule]

_LOADED: dict[Path, ModuleType] = {}


def _split(reference: str) -> tuple[str, str]:
    module_name, _, class_name = reference.partition(":")
    if not module_name or not class_name:
        raise PluginError(f"plug-in reference {reference!r} is not \"module:Class\"")
    return module_name, class_name


def plugin_module(reference: str, folders: Sequence[Path]) -> Path | None:
    """The file of the module of ``"module:Class"`` in the first of
    ``folders`` that has it (``a.b`` is ``a/b.py``), or None.  Only looks:
    nothing is imported."""
    module_name, _ = _split(reference)
    parts = module_name.split(".")
    for folder in folders:
        candidate = Path(folder).joinpath(*parts).with_suffix(".py")
        if candidate.is_file():
            return candidate
    return None


def load_plugin_class(reference: str, folders: Sequence[Path]) -> PluginClass:
    """The class ``Class`` of ``module.py`` found in one of ``folders``
    (imported: call it only for folders the user consented to)."""
    module_name, class_name = _split(reference)
    path = plugin_module(reference, folders)
    if path is None:
        where = ", ".join(str(f) for f in folders) or "no plug-in folders"
        raise PluginError(f"plug-in module {module_name!r} not found in {where}")
    cls = getattr(_load(path, module_name), class_name, None)
    if cls is None:
        raise PluginError(f"the module has no class {class_name!r}", file=path)
    if not isinstance(cls, type):
        raise PluginError(f"{class_name!r} is not a class: it is of type {type(cls).__name__}", file=path,
                          place=f"class {class_name}")
    # what a user's class does is known only by running it: make_plugin_rule
    # checks what it makes
    return cast(PluginClass, cls)


def make_plugin_rule(rule_id: str, reference: str, ctx: Context, folders: Sequence[Path]) -> PluginRule:
    """The rule ``rule_id`` of the scenario: an instance of the plug-in class
    ``reference`` from ``folders``, checked to be a rule (a callable
    ``check``, ``subscribes`` a set of event kinds)."""
    _, class_name = _split(reference)
    try:
        cls = load_plugin_class(reference, folders)
    except PluginError as exc:      # which rule needs it, too
        raise PluginError(f"{exc.message} (plug-in {reference} of rule {rule_id})", file=exc.file,
                          place=exc.place) from None
    path = plugin_module(reference, folders)
    place = f"class {class_name} (rule {rule_id})"
    try:
        rule = cls(ctx)
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - a plug-in's constructor is user code: what it raises is its error
        raise PluginError(f"the constructor raised {_exception(exc)}", file=path, place=place) from None
    check = getattr(rule, "check", None)
    if check is None:
        raise PluginError("not a rule: it has no check(state, event) method", file=path, place=place)
    if not callable(check):
        raise PluginError(f"not a rule: its check is of type {type(check).__name__}, not a method", file=path,
                          place=place)
    problem = subscribes_problem(getattr(rule, "subscribes", frozenset()))
    if problem:
        raise PluginError(f"not a rule: {problem}", file=path, place=place)
    return rule


def subscribes_problem(subscribes: object) -> str | None:
    """What is wrong with a plug-in's ``subscribes`` (None: a set, frozenset,
    list or tuple of event-kind strings)."""
    if not isinstance(subscribes, (set, frozenset, list, tuple)):
        return (f"its subscribes is of type {type(subscribes).__name__}, not a set of event kinds "
                "(e.g. frozenset({\"move\"}))")
    wrong = [k for k in subscribes if not isinstance(k, str)]
    if wrong:
        return f"its subscribes holds {wrong[0]!r}, not an event kind (a string)"
    return None


def _exception(exc: BaseException) -> str:
    """``Type: first line of the message``."""
    text = (exc.msg or "") if isinstance(exc, SyntaxError) else str(exc).strip()
    first = text.splitlines()[0] if text else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def _line_in(path: Path, exc: BaseException) -> str | None:
    """``line N`` of ``path`` where ``exc`` came from (a SyntaxError's own
    line, or the last frame of the traceback in that file)."""
    if isinstance(exc, SyntaxError) and exc.lineno:
        return f"line {exc.lineno}"
    where = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == str(path) and frame.lineno:
            where = f"line {frame.lineno}"
    return where


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
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - a plug-in's module is user code: what it raises is its error
        sys.modules.pop(unique, None)
        raise PluginError(f"the plug-in module failed to import: {_exception(exc)}", file=path,
                          place=_line_in(key, exc)) from None
    _LOADED[key] = module
    return module
