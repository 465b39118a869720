"""The one registry of rule kinds, fed three ways, and where each rule of an
audit came from.

- **built-in**: every module of :mod:`vmodtool.audit.kinds` (found with
  :mod:`pkgutil`, no list to keep up): importing a module registers its
  kinds (:func:`vmodtool.audit.kinds.register`);
- **entry point**: an installed package that declares
  ``[project.entry-points."vmodtool.rules"]`` ``name = "module:Class"``
  makes ``kind: name`` a kind of every scenario.  Installing the package is
  the user's consent, as with pytest or flake8 plug-ins; its module is
  imported only when a scenario's rule uses the kind.  A built-in kind's name
  cannot be taken: the built-in kind wins;
- **plug-in folder**: ``kind: plugin``, ``plugin: "module:Class"`` from a
  folder the user named (``--plugins DIR``) or the scenario's own
  ``plugins.paths`` when the user trusts them (:mod:`vmodtool.audit.plugins`
  decides, and imports nothing else).

:func:`make_rule` makes the rule of a scenario entry from any of the three,
or says why it was not made (a plug-in without consent, an unknown kind);
each rule it makes carries its :class:`RuleSource`.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from vmodtool.audit.api import EVENT_KINDS, SNAPSHOT_POINTS, GameView, Rule, RuleEvent, Violation
from vmodtool.audit.context import Context
from vmodtool.audit.plugins import PluginError, PluginRule, make_plugin_rule, plugin_module, subscribes_problem
from vmodtool.scenario.model import RuleSpec, Scenario

if TYPE_CHECKING:
    # (imported where entry points are read: importlib.metadata pulls in the
    # email package, which an audit of built-in rules never needs)
    from importlib import metadata

__all__ = ["rule_class", "ENTRY_POINT_GROUP", "PLUGIN_CONSENT", "RuleSource", "BUILT_IN", "builtin_kinds",
           "installed_kinds", "kind_class", "installed_class", "make_rule", "Made", "GuardedPlugin", "RuleRaised",
           "sources_of"]

#: the entry-point group of installed rule packages
ENTRY_POINT_GROUP = "vmodtool.rules"

#: why a plug-in rule was not run (not imported) without the user's consent
PLUGIN_CONSENT = ("plug-ins are code, run only with --trust-scenario-plugins (the scenario's "
                  "plugins.paths) or --plugins DIR")


@dataclass(frozen=True)
class RuleSource:
    """Where a rule's class came from: ``built-in``, ``entry point`` (``where``
    the distribution that declares it) or ``plugin folder`` (``where`` the
    folder, as the report shows it)."""

    origin: str
    where: str = ""

    @property
    def built_in(self) -> bool:
        return self.origin == "built-in"

    def __str__(self) -> str:
        return f"{self.origin} {self.where}" if self.where else self.origin


BUILT_IN = RuleSource("built-in")

#: a rule class: made with its rule's context
RuleClass = Callable[[Context], Any]


def builtin_kinds() -> Mapping[str, type[Rule]]:
    """Every built-in kind by its scenario name (imports each module of
    :mod:`vmodtool.audit.kinds` once)."""
    from vmodtool.audit import kinds
    if not kinds.ALL_LOADED:
        for module in pkgutil.iter_modules(kinds.__path__):
            importlib.import_module(f"{kinds.__name__}.{module.name}")
        kinds.ALL_LOADED = True
    return kinds.KINDS


def installed_kinds() -> dict[str, metadata.EntryPoint]:
    """The entry points of group ``vmodtool.rules`` by kind name (nothing
    imported; the first of two with one name wins, as the metadata lists
    them)."""
    from importlib import metadata
    found: dict[str, metadata.EntryPoint] = {}
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(ep.name, ep)
    return found


def _dist_name(ep: metadata.EntryPoint) -> str:
    dist = getattr(ep, "dist", None)
    return str(dist.name) if dist is not None else ep.value.partition(":")[0]


def kind_class(name: str) -> tuple[RuleClass, RuleSource] | None:
    """The class of a kind, built-in or of an installed rule package, and
    where it came from (None: no such kind)."""
    builtin = builtin_kinds().get(name)
    if builtin is not None:
        return builtin, BUILT_IN
    ep = installed_kinds().get(name)
    if ep is None:
        return None
    source = RuleSource("entry point", _dist_name(ep))
    return _load(ep, source), source


def rule_class(name: str) -> RuleClass:
    """The class of a kind: built-in, or of an installed rule package
    (entry-point group ``vmodtool.rules``); ``KeyError`` for no such kind."""
    found = kind_class(name)
    if found is None:
        raise KeyError(f"unknown rule kind {name!r}")
    return found[0]


def installed_class(reference: str) -> metadata.EntryPoint | None:
    """The entry point (group ``vmodtool.rules``) of an installed package that
    declares the class ``"module:Class"`` (None: none does).  Only looks."""
    reference = reference.replace(" ", "")
    from importlib import metadata
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if ep.value.replace(" ", "") == reference:
            return ep
    return None


def _load(ep: metadata.EntryPoint, source: RuleSource) -> RuleClass:
    try:
        cls = ep.load()
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - an installed package's module is user code
        raise PluginError(f"the rule kind {ep.name!r} of {source} ({ep.value}) failed to import: "
                          f"{type(exc).__name__}: {exc}") from None
    if not isinstance(cls, type):
        raise PluginError(f"the rule kind {ep.name!r} of {source} ({ep.value}) is not a class")
    return cast(RuleClass, cls)


def _shown(folder: Path) -> str:
    """A folder as the report names it: relative to the working directory
    when inside it (the report reads the same on every machine)."""
    try:
        return Path(folder).resolve().relative_to(Path.cwd().resolve()).as_posix() or "."
    except ValueError:
        return str(folder)


@dataclass
class Made:
    """What :func:`make_rule` answers: the rule and its source, or why the
    entry was not made a rule (it is then not checked)."""

    rule: Rule | None
    source: RuleSource
    not_checked: str | None = None


def make_rule(spec: RuleSpec, scenario: Scenario, folders: Sequence[Path], *,
              trust_scenario_plugins: bool) -> Made:
    """The rule of a scenario entry.  A ``kind: plugin`` entry is imported
    only from ``folders`` (the user's, and the scenario's own when trusted):
    this is where consent is decided."""
    if spec.kind == "plugin":
        reference = spec.plugin or ""
        path = plugin_module(reference, folders)
        ep = installed_class(reference) if path is None else None
        if ep is not None:
            # an installed rule package declares this class: installing it was the consent
            return _from_entry_point(spec, scenario, ep)
        if path is None and not trust_scenario_plugins:
            # not in a folder the user named: never imported
            return Made(None, RuleSource("plugin folder"), f"plug-in {reference} not imported: {PLUGIN_CONSENT}")
        ctx = Context(spec, scenario)
        folder = next((f for f in folders if path is not None and _inside(path, f)), None)
        source = RuleSource("plugin folder", _shown(folder) if folder is not None else "")
        plugin = make_plugin_rule(spec.id, reference, ctx, folders)
        return Made(GuardedPlugin(ctx, plugin, f"plug-in {reference}"), source)
    found = kind_class(spec.kind)
    if found is None:
        return Made(None, RuleSource("unknown"),
                    f"no rule kind {spec.kind!r}: not a built-in kind, and no installed rule package "
                    f"declares it (entry-point group {ENTRY_POINT_GROUP})")
    cls, source = found
    if source.built_in:
        return Made(cast(Rule, cls(Context(spec, scenario))), source)
    return _user_rule(spec, scenario, cls, source, f"rule kind {spec.kind} ({source})")


def _from_entry_point(spec: RuleSpec, scenario: Scenario, ep: metadata.EntryPoint) -> Made:
    source = RuleSource("entry point", _dist_name(ep))
    return _user_rule(spec, scenario, _load(ep, source), source, f"plug-in {spec.plugin}")


def _user_rule(spec: RuleSpec, scenario: Scenario, cls: RuleClass, source: RuleSource, name: str) -> Made:
    """A rule of an installed package, made and checked as a plug-in is."""
    ctx = Context(spec, scenario)
    try:
        rule = cls(ctx)
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - a package's constructor is user code
        raise PluginError(f"{name} of rule {spec.id}: the constructor raised {type(exc).__name__}: {exc}") from None
    problem = _not_a_rule(rule)
    if problem:
        raise PluginError(f"{name} of rule {spec.id} is not a rule: {problem}")
    return Made(GuardedPlugin(ctx, cast(PluginRule, rule), name), source)


def _inside(path: Path, folder: Path) -> bool:
    try:
        Path(path).resolve().relative_to(Path(folder).resolve())
    except ValueError:
        return False
    return True


def _not_a_rule(rule: object) -> str | None:
    check = getattr(rule, "check", None)
    if not callable(check):
        return "it has no check(state, event) method"
    return subscribes_problem(getattr(rule, "subscribes", frozenset()))


class RuleRaised(Exception):
    """A user's rule raised instead of answering (the engine reports it as a
    rule failure and goes on; a built-in kind's exception is a bug of
    vmodtool and is not caught)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class GuardedPlugin(Rule):
    """A user's rule (a plug-in folder's or an installed package's) as the
    engine runs it: what it raises becomes a :class:`RuleRaised`, it may
    answer None, and the context knows the state for the older
    ``ctx.violation(event, message)`` call.  A rule that subclasses
    :class:`Rule` is otherwise run exactly as a built-in kind (its
    ``subscribes``, ``snapshots``, ``quiet_step_end``, ``subject_events``,
    ``subject``); a duck-typed one (any class with ``check`` and
    ``subscribes``) is asked for its ``subscribes`` at every event and may
    read every snapshot point, as before the :class:`Rule` class existed."""

    def __init__(self, ctx: Context, plugin: PluginRule, name: str) -> None:
        super().__init__(ctx)
        self.ctx: Context = ctx
        self.plugin = plugin
        self.name = name
        self.typed = isinstance(plugin, Rule)
        if isinstance(plugin, Rule):
            self.subscribes = frozenset(plugin.subscribes)
            self.snapshots = plugin.snapshots
            self.snapshot_phases = plugin.snapshot_phases
            self.__dict__["quiet_step_end"] = plugin.quiet_step_end
            self.__dict__["subject_events"] = plugin.subject_events
        else:
            self.subscribes = EVENT_KINDS         # (asked for its own at each event)
            self.snapshots = SNAPSHOT_POINTS

    _shared = ("ctx", "params", "name", "typed", "subscribes", "snapshots", "snapshot_phases",
               "quiet_step_end", "subject_events")

    @property
    def subject(self) -> Any:
        # (a duck-typed plug-in's params are its own business: never "saw no unit")
        return self.plugin.subject if isinstance(self.plugin, Rule) else None

    def check(self, state: GameView, event: RuleEvent) -> Iterable[Violation]:
        if not self.typed:
            subscribes = getattr(self.plugin, "subscribes", ())
            try:
                if event.kind not in subscribes:
                    return ()
            except TypeError:     # the plug-in changed it to something that is not a set
                raise RuleRaised(
                    f"{self.name} at a {event.kind} event: "
                    f"{subscribes_problem(subscribes) or 'its subscribes is not a set of event kinds'}") from None
        self.ctx.state = state
        try:
            found = self.plugin.check(state, event)
            return list(found) if found else ()
        except Exception as exc:  # noqa: BLE001 - a plug-in is user code: its bug must not stop the audit
            raise RuleRaised(f"{self.name} raised at a {event.kind} event: {type(exc).__name__}: {exc}") from None


def sources_of(rules: Iterable[tuple[RuleSpec, RuleSource]]) -> dict[str, str]:
    """Rule id -> where it came from, for the rules not built in."""
    return {spec.id: str(source) for spec, source in rules if not source.built_in}
