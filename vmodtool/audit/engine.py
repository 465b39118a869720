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

from vmodtool.audit.api import SNAPSHOT_POINTS, Rule, RuleEvent, Violation
from vmodtool.audit.registry import PLUGIN_CONSENT, RuleRaised, RuleSource, make_rule, sources_of
from vmodtool.audit.selectors import is_fixed, matches
from vmodtool.audit.state import AuditState
from vmodtool.scenario.model import RuleSpec, Scenario

__all__ = ["Engine", "RuleFailure", "PLUGIN_CONSENT", "NO_UNIT_MATCHED"]

#: events at which the engine keeps a copy of the game for the rules
#: (``GameView.snapshot``)
_SNAPSHOT_POINTS = SNAPSHOT_POINTS

#: why a rule whose ``subject`` selector matched no unit of the game is not
#: checked: it judged nothing, which is not the same as finding nothing wrong
NO_UNIT_MATCHED = "no unit of the game matched its units selector"

#: a rule of the audit: a built-in kind or a user's rule (the registry wraps
#: those: ``registry.GuardedPlugin``), all run alike
AuditRule = Rule
#: a rule's bound ``check``
Check = Callable[[AuditState, RuleEvent], Iterable[Violation]]
#: what an event kind is sent to: (spec, bound ``check``, the rule's place in
#: :attr:`Engine.rules`, whether it is sent ``step_end`` only when it was sent
#: another event since the last one (``Rule.quiet_step_end``),
#: the subjects it is sent this kind for (unit id -> whether it is one; None:
#: every event, ``Rule.subject_events``))
Handler = tuple[RuleSpec, Check, int, bool, "dict[str, bool] | None"]


@dataclass
class RuleFailure:
    """A user's rule that raised instead of answering: reported, never
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

    The rules are made by the registry (:func:`vmodtool.audit.registry.make_rule`),
    which alone decides consent: plug-in rules are imported only from
    ``plugin_folders`` (the user's), from the scenario's own ``plugins.paths``
    when ``trust_scenario_plugins`` is set, or from an installed rule package;
    a plug-in rule found in none of them is not imported and goes to
    :attr:`not_checked`.  Every rule made is then run alike."""

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
        #: ids of the rules with a ``subject`` selector that some unit of the
        #: game matched (see :meth:`note_units`)
        self.saw_unit: set[str] = set()
        self._by_kind: dict[str, list[Handler]] = {}   # see _handlers
        #: the places (in :attr:`rules`) of the rules sent an event since the
        #: last ``step_end``
        self._busy: set[int] = set()
        self._wanted: dict[str, bool] = {}             # see wants
        #: rule place -> unit id -> whether the unit matches the rule's fixed
        #: ``subject`` (see Rule.subject_events; kept over rollbacks)
        self._subjects: dict[int, dict[str, bool]] = {}
        folders = [Path(f) for f in plugin_folders]
        if trust_scenario_plugins:
            folders = list(scenario.plugin_paths) + folders
        #: where each rule came from (built-in, an entry point, a plug-in folder)
        self.sources: list[tuple[RuleSpec, RuleSource]] = []
        for spec in (rules if rules is not None else scenario.rules):
            if not spec.enabled or (only is not None and spec.id not in only):
                continue
            made = make_rule(spec, scenario, folders, trust_scenario_plugins=trust_scenario_plugins)
            if made.rule is None:
                self.not_checked[spec.id] = made.not_checked or "not made"
                continue
            self.rules.append((spec, made.rule))
            self.sources.append((spec, made.source))
        # copies of the game are kept only at the points a rule reads them
        self._snapshot_points: frozenset[str] = frozenset[str]().union(*[rule.snapshots for _, rule in self.rules])
        # the phases whose phase_start copy some rule reads (None: every phase's)
        phases: set[str] = set()
        every = False
        for _spec, rule in self.rules:
            if "phase_start" in rule.snapshots:
                if not rule.snapshot_phases:
                    every = True
                    break
                phases.update(rule.snapshot_phases)
        self._snapshot_phases: frozenset[str] | None = None if every else frozenset(phases)

    @property
    def rule_sources(self) -> dict[str, str]:
        """Rule id -> where it came from, for the rules not built in
        (``entry point <distribution>``, ``plugin folder <folder>``)."""
        return sources_of(self.sources)

    # -- dispatch -----------------------------------------------------------------
    def _handlers(self, kind: str) -> list[Handler]:
        """The handlers of the rules an event kind goes to (a rule fixes what
        it subscribes to when it is made)."""
        found = self._by_kind.get(kind)
        if found is None:
            found = self._by_kind[kind] = [
                self._handler(i, spec, rule, kind) for i, (spec, rule) in enumerate(self.rules)
                if kind in rule.subscribes]
        return found

    def _handler(self, i: int, spec: RuleSpec, rule: AuditRule, kind: str) -> Handler:
        quiet = bool(rule.quiet_step_end)
        subjects = None
        if kind in rule.subject_events and is_fixed(self._subject_of(i)):
            subjects = self._subjects.setdefault(i, {})
        return spec, rule.check, i, quiet, subjects

    def _subject_of(self, i: int) -> Any:
        return self.rules[i][1].subject

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
        (``Rule.quiet_step_end``) or a rule whose ``idle`` says a
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
        for _spec, _check, i, quiet, _subjects in handlers:
            if quiet and busy is not None and i not in busy:
                continue                    # (not sent it: see dispatch)
            idle = getattr(self.rules[i][1], "idle", None)
            if idle is None or not idle(state):
                return False
        if busy is not None:
            busy.clear()                    # (what the step_end would have done)
        return True

    def dispatch(self, state: AuditState, event: RuleEvent) -> None:
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
        for spec, check, i, quiet, subjects in handlers:
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
            # a built-in kind never raises for a legal-but-odd game: what it
            # raises is a bug of vmodtool, reported as one; a user's rule's
            # exception is a rule failure (registry.GuardedPlugin)
            try:
                found = check(state, event)
            except RuleRaised as failed:
                self.failures.append(RuleFailure(spec.id, event.step, failed.message))
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
        for spec, rule in self.rules:
            if spec.id in self.saw_unit:
                continue
            subject = rule.subject
            if subject is None or any(matches(subject, u, state, u) for u in units):
                self.saw_unit.add(spec.id)

    def mark_unseen(self) -> None:
        """Every rule for which :meth:`note_units` found no
        unit goes to :attr:`not_checked`: it judged nothing, and the report
        must not count it as passing.  A rule that found something (even
        in a step undone later) saw a unit, whatever its selector says at
        the start and the end (one that reads a unit's face or markers)."""
        found = {v.rule_id for v in self.violations}
        for spec, _ in self.rules:
            if spec.id not in self.saw_unit and spec.id not in found:
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
        # subscribes to): only the checks are bound to the restored instances
        rules = self.rules
        self._by_kind = {
            kind: [(spec, rules[i][1].check, i, quiet, subjects)
                   for spec, _check, i, quiet, subjects in handlers]
            for kind, handlers in self._by_kind.items()}
        for i in range(frame.violations_before, len(self.violations)):
            self.violations[i] = replace(self.violations[i], withdrawn_by_undo=True)

    def sorted_violations(self) -> list[Violation]:
        return sorted(self.violations, key=lambda v: (v.step, v.rule_id, v.units, v.message))
