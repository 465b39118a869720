"""Running rules over a game: dispatching events, settle points, undo.

The engine owns the rule instances of one audit.  The game adapter (see
:mod:`vmodtool.audit.game`) applies each step to the
:class:`~vmodtool.audit.state.AuditState` and hands the engine the step's
events; the engine sends each event to the rules that subscribe to it and
takes the snapshots rules may ask for (start of turn, phase, activation).
A step that a later undo reverses is checked between :meth:`checkpoint` and
:meth:`rollback`: its violations are reported as withdrawn and the rules
forget it (``docs/seed-rules.md`` §4.8).  Copying rule memory only for those
steps keeps the cost per ordinary step at the dispatch itself.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from vmodtool.audit.api import BaseRule, Event, Violation
from vmodtool.audit.context import Context, PluginContext
from vmodtool.audit.plugins import PluginRule, make_plugin_rule, plugin_module, subscribes_problem
from vmodtool.audit.selectors import is_fixed, matches
from vmodtool.audit.state import AuditState
from vmodtool.scenario.model import RuleSpec, Scenario

__all__ = ["Engine", "RuleFailure", "PLUGIN_CONSENT", "NO_UNIT_MATCHED"]

#: events at which the engine keeps a copy of the game for the rules
#: (``GameView.snapshot``)
_SNAPSHOT_POINTS = frozenset({"turn_start", "phase_start", "activation_start"})

#: why a plug-in rule was not run (not imported) without the user's consent
PLUGIN_CONSENT = ("plug-ins are code, run only with --trust-scenario-plugins (the scenario's "
                  "plugins.paths) or --plugins DIR")

#: why a rule whose ``subject`` selector matched no unit of the game is not
#: checked: it judged nothing, which is not the same as finding nothing wrong
NO_UNIT_MATCHED = "no unit of the game matched its units selector"

#: a rule of the audit: a built-in kind or a user's plug-in
AuditRule = BaseRule[AuditState] | PluginRule
#: a rule's bound ``check`` (a plug-in may answer None)
Check = Callable[[AuditState, Event], "Iterable[Violation] | None"]
#: what an event kind is sent to: (spec, bound ``check``, the rule if it is a
#: plug-in: asked for its ``subscribes`` at every event, the rule's place in
#: :attr:`Engine.rules`, whether it is sent ``step_end`` only when it was sent
#: another event since the last one (``BaseRule.quiet_step_end``),
#: the subjects it is sent this kind for (unit id -> whether it is one; None:
#: every event, ``BaseRule.subject_events``))
Handler = tuple[RuleSpec, Check, "AuditRule | None", int, bool, "dict[str, bool] | None"]


@dataclass
class RuleFailure:
    """A plug-in rule that raised instead of answering: reported, never
    fatal (``error`` names the plug-in and the event; a built-in kind's
    exception is a bug of vmodtool and is not caught)."""

    rule_id: str
    step: int
    error: str


@dataclass
class _Frame:
    """What :meth:`Engine.checkpoint` keeps before a step that a later undo
    reverses: copies of the rule instances and how many violations there
    were (for :meth:`Engine.rollback`)."""

    step: int
    rules: list[AuditRule]
    violations_before: int


class Engine:
    """Rule instances of one audit and the violations they found.

    Plug-in rules are imported only from ``plugin_folders`` (the user's) and,
    when ``trust_scenario_plugins`` is set, from the scenario's own
    ``plugins.paths``; a plug-in rule whose module is in none of them is not
    imported and goes to :attr:`not_checked`."""

    def __init__(self, scenario: Scenario, *, rules: Sequence[RuleSpec] | None = None,
                 plugin_folders: Sequence[Path] = (), trust_scenario_plugins: bool = False,
                 only: Sequence[str] | None = None) -> None:
        self.scenario = scenario
        self.rules: list[tuple[RuleSpec, AuditRule]] = []
        self.violations: list[Violation] = []
        self.failures: list[RuleFailure] = []
        #: rule id -> why it was not checked (a plug-in without consent, or
        #: what a rule said it could not decide)
        self.not_checked: dict[str, str] = {}
        self._plugin_contexts: list[PluginContext] = []
        #: ids of the rules with a ``subject`` selector that some unit of the
        #: game matched (see :meth:`note_units`)
        self.saw_unit: set[str] = set()
        self._by_kind: dict[str, list[Handler]] = {}   # see _handlers
        #: the places (in :attr:`rules`) of the rules sent an event since the
        #: last ``step_end``
        self._busy: set[int] = set()
        self._wanted: dict[str, bool] = {}             # see wants
        #: rule place -> unit id -> whether the unit matches the rule's fixed
        #: ``subject`` (see BaseRule.subject_events; kept over rollbacks)
        self._subjects: dict[int, dict[str, bool]] = {}
        folders = [Path(f) for f in plugin_folders]
        if trust_scenario_plugins:
            folders = list(scenario.plugin_paths) + folders
        from vmodtool.audit.kinds import rule_class
        for spec in (rules if rules is not None else scenario.rules):
            if not spec.enabled or (only is not None and spec.id not in only):
                continue
            rule: AuditRule
            if spec.kind == "plugin":
                reference = spec.plugin or ""
                if not trust_scenario_plugins and plugin_module(reference, folders) is None:
                    # not in a folder the user named: never imported
                    self.not_checked[spec.id] = f"plug-in {reference} not imported: {PLUGIN_CONSENT}"
                    continue
                plugin_ctx = PluginContext(spec, scenario)
                rule = make_plugin_rule(spec.id, reference, plugin_ctx, folders)
                self._plugin_contexts.append(plugin_ctx)
            else:
                rule = rule_class(spec.kind)(Context(spec, scenario))
            self.rules.append((spec, rule))
        # copies of the game are kept only at the points a rule reads them
        # (``snapshots`` of a built-in kind; a plug-in may read any)
        self._snapshot_points: frozenset[str] = frozenset[str]().union(*[
            _SNAPSHOT_POINTS if spec.kind == "plugin" else frozenset(getattr(rule, "snapshots", ()))
            for spec, rule in self.rules])
        # the phases whose phase_start copy some rule reads (None: every phase's)
        phases: set[str] = set()
        every = False
        for spec, rule in self.rules:
            if spec.kind == "plugin" or "phase_start" in getattr(rule, "snapshots", ()):
                wanted = None if spec.kind == "plugin" else getattr(rule, "snapshot_phases", None)
                if not wanted:
                    every = True
                    break
                phases.update(wanted)
        self._snapshot_phases: frozenset[str] | None = None if every else frozenset(phases)

    # -- dispatch -----------------------------------------------------------------
    def _handlers(self, kind: str) -> list[Handler]:
        """(spec, bound ``check``, the rule if it is a plug-in) of the rules
        an event kind goes to."""
        found = self._by_kind.get(kind)
        if found is None:
            # built-in kinds fix what they subscribe to when they are made;
            # plug-ins are asked at every event (they may change their mind)
            found = self._by_kind[kind] = [
                self._handler(i, spec, rule, kind) for i, (spec, rule) in enumerate(self.rules)
                if spec.kind == "plugin" or kind in getattr(rule, "subscribes", ())]
        return found

    def _handler(self, i: int, spec: RuleSpec, rule: AuditRule, kind: str) -> Handler:
        if spec.kind == "plugin":
            return spec, rule.check, rule, i, False, None
        quiet = bool(getattr(rule, "quiet_step_end", False))
        subjects = None
        if kind in getattr(rule, "subject_events", ()) and is_fixed(self._subject_of(i)):
            subjects = self._subjects.setdefault(i, {})
        return spec, rule.check, None, i, quiet, subjects

    def _subject_of(self, i: int) -> Any:
        spec, rule = self.rules[i]
        params = getattr(rule, "params", None)
        return (params if params is not None else spec.params).get("subject")

    def wants(self, kind: str) -> bool:
        """Whether an event of this kind matters to any rule (the game
        adapter does not build the others)."""
        wanted = self._wanted.get(kind)
        if wanted is None:
            # (the same for the whole audit: which rules take a kind never changes)
            wanted = self._wanted[kind] = kind in self._snapshot_points or bool(self._handlers(kind))
        return wanted

    def skips(self, state: AuditState, kind: str) -> bool:
        """Whether an event of this kind (no snapshot point) would do nothing
        now, and is then taken as sent: every rule it goes to is a quiet
        ``step_end`` one sent nothing since the last
        (``BaseRule.quiet_step_end``) or a built-in kind whose ``idle`` says a
        check now would find nothing and change nothing it reads later (a
        settle-point kind with no hex changed since it last looked, a drag
        judge with no drag pending).  The game adapter then does not build
        it (most steps are chat)."""
        if kind in self._snapshot_points:
            return False
        handlers = self._by_kind.get(kind)
        if handlers is None:
            handlers = self._handlers(kind)
        busy = self._busy if kind == "step_end" else None
        for _spec, _check, plugin, i, quiet, _subjects in handlers:
            if quiet and busy is not None and i not in busy:
                continue                    # (not sent it: see dispatch)
            if plugin is not None:
                return False
            idle = getattr(self.rules[i][1], "idle", None)
            if idle is None or not idle(state):
                return False
        if busy is not None:
            busy.clear()                    # (what the step_end would have done)
        return True

    def dispatch(self, state: AuditState, event: Event) -> None:
        """Send one event to every rule that subscribes to it."""
        kind = event.kind
        if kind in self._snapshot_points:
            if kind == "phase_start" and self._snapshot_phases is not None and \
                    event.phase not in self._snapshot_phases:
                state.drop_snapshot(kind)       # (no rule reads this phase's)
            else:
                state.take_snapshot(kind)
        handlers = self._by_kind.get(kind)
        if handlers is None:
            handlers = self._handlers(kind)
        busy = self._busy
        step_end = kind == "step_end"
        if not handlers:
            if step_end:
                busy.clear()
            return
        for ctx in self._plugin_contexts:
            ctx.state = state
        for spec, check, plugin, i, quiet, subjects in handlers:
            if subjects is not None:
                uid = event.unit
                if uid is not None and uid in state.units_state:
                    is_subject = subjects.get(uid)
                    if is_subject is None:
                        is_subject = subjects[uid] = matches(self._subject_of(i), state.unit(uid), state)
                    if not is_subject:
                        continue            # (the rule would ignore it)
            if quiet:
                if not step_end:
                    busy.add(i)
                elif i not in busy:
                    continue                # (its step_end would do nothing)
            if plugin is None:
                # a built-in kind never raises for a legal-but-odd game: what it
                # raises is a bug of vmodtool, reported as one
                found = check(state, event)
            else:
                subscribes = getattr(plugin, "subscribes", ())
                try:
                    if kind not in subscribes:
                        continue
                except TypeError:     # the plug-in changed it to something that is not a set
                    self.failures.append(RuleFailure(
                        spec.id, event.step, f"plug-in {spec.plugin} at a {kind} event: "
                        f"{subscribes_problem(subscribes) or 'its subscribes is not a set of event kinds'}"))
                    continue
                try:
                    found = check(state, event)
                    if found:
                        found = list(found)
                except Exception as exc:  # noqa: BLE001 - a plug-in is user code: its bug must not stop the audit
                    self.failures.append(RuleFailure(
                        spec.id, event.step,
                        f"plug-in {spec.plugin} raised at a {kind} event: {type(exc).__name__}: {exc}"))
                    continue
            if not found:
                continue
            for violation in found:
                if violation.severity == "info" and violation.evidence.get("not_checked"):
                    self.not_checked.setdefault(spec.id, violation.message)
                    continue
                self.violations.append(violation)
        if step_end:
            busy.clear()

    # -- rules that saw no unit ---------------------------------------------------
    def note_units(self, state: AuditState, unit_ids: Iterable[str]) -> None:
        """Record which rules with a ``subject`` selector (the units a
        built-in kind judges) match one of ``unit_ids`` (the units of the
        game: pieces identified as scenario units) in ``state``.  Called at
        the start and at the end of the game, never per event: a rule is
        asked nothing it would not be asked anyway."""
        units = [state.unit(uid) for uid in unit_ids if uid in state.units_state]   # (those on the board yet)
        for spec, _ in self.rules:
            if spec.kind == "plugin" or spec.id in self.saw_unit:
                continue
            subject = spec.params.get("subject")
            if subject is None or any(matches(subject, u, state, u) for u in units):
                self.saw_unit.add(spec.id)

    def mark_unseen(self) -> None:
        """Every rule (not a plug-in) for which :meth:`note_units` found no
        unit goes to :attr:`not_checked`: it judged nothing, and the report
        must not count it as passing.  A rule that found something (even
        in a step undone later) saw a unit, whatever its selector says at
        the start and the end (one that reads a unit's face or markers)."""
        found = {v.rule_id for v in self.violations}
        for spec, _ in self.rules:
            if spec.kind != "plugin" and spec.id not in self.saw_unit and spec.id not in found:
                self.not_checked.setdefault(spec.id, NO_UNIT_MATCHED)

    def checkpoint(self) -> _Frame:
        """The rules' memory now (taken before a step that a later undo in
        the log reverses; the replay knows which steps those are)."""
        return _Frame(0, copy.deepcopy([r for _, r in self.rules]), len(self.violations))

    def rollback(self, frame: _Frame) -> None:
        """Back to ``frame``: the rules forget the undone step, and what it
        violated stays in the report marked ``withdrawn_by_undo``."""
        for i, rule in enumerate(frame.rules):
            spec, _ = self.rules[i]
            self.rules[i] = (spec, rule)
        # the same rules take the same kinds (a copy keeps what its kind
        # subscribes to; a plug-in is sent every kind): only the checks are
        # bound to the restored instances
        rules = self.rules
        self._by_kind = {
            kind: [(spec, rules[i][1].check, None if plugin is None else rules[i][1], i, quiet, subjects)
                   for spec, _check, plugin, i, quiet, subjects in handlers]
            for kind, handlers in self._by_kind.items()}
        for i in range(frame.violations_before, len(self.violations)):
            self.violations[i] = replace(self.violations[i], withdrawn_by_undo=True)

    def sorted_violations(self) -> list[Violation]:
        return sorted(self.violations, key=lambda v: (v.step, v.rule_id, v.units, v.message))
