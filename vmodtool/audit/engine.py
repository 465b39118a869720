"""Running rules over a game: dispatching events, settle points, undo.

The engine owns the rule instances of one audit.  The game adapter (see
:mod:`vmodtool.audit.game`) applies each step to the
:class:`~vmodtool.audit.state.AuditState` and hands the engine the step's
events; the engine sends each event to the rules that subscribe to it and
takes the snapshots rules may ask for (start of turn, phase, activation).
A step that a later undo reverses is checked between :meth:`checkpoint` and
:meth:`rollback`: its violations are reported as withdrawn and the rules
forget it (``scenario-and-rules`` §4.8).  Copying rule memory only for those
steps keeps the cost per ordinary step at the dispatch itself.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from vmodtool.audit.api import Event, Violation
from vmodtool.audit.context import Context, PluginContext
from vmodtool.audit.plugins import load_plugin_class
from vmodtool.audit.state import AuditState
from vmodtool.scenario.model import RuleSpec, Scenario

__all__ = ["Engine", "RuleFailure"]


@dataclass
class RuleFailure:
    """A rule that raised instead of answering: reported, never fatal."""

    rule_id: str
    step: int
    error: str


@dataclass
class _Frame:
    step: int
    rules: list
    violations_before: int


class Engine:
    """Rule instances of one audit and the violations they found."""

    def __init__(self, scenario: Scenario, *, rules: Optional[Sequence[RuleSpec]] = None,
                 plugin_folders: Sequence[Path] = (), only: Optional[Sequence[str]] = None) -> None:
        self.scenario = scenario
        self.rules: List[Tuple[RuleSpec, object]] = []
        self.violations: List[Violation] = []
        self.failures: List[RuleFailure] = []
        self.not_checked: Dict[str, str] = {}
        self._plugin_contexts: List[PluginContext] = []
        self._by_kind: Dict[str, List[int]] = {}     # event kind -> indices of the rules asked
        folders = list(scenario.plugin_paths) + [Path(f) for f in plugin_folders]
        from vmodtool.audit.kinds import rule_class
        for spec in (rules if rules is not None else scenario.rules):
            if not spec.enabled or (only is not None and spec.id not in only):
                continue
            if spec.kind == "plugin":
                ctx = PluginContext(spec, scenario)
                self._plugin_contexts.append(ctx)
                cls = load_plugin_class(spec.plugin or "", folders)
            else:
                ctx = Context(spec, scenario)
                cls = rule_class(spec.kind)
            self.rules.append((spec, cls(ctx)))

    # -- dispatch -----------------------------------------------------------------
    def dispatch(self, state: AuditState, event: Event) -> None:
        """Send one event to every rule that subscribes to it."""
        if event.kind in ("turn_start", "phase_start", "activation_start"):
            state.take_snapshot(event.kind.replace("_start", "") + "_start")
        for ctx in self._plugin_contexts:
            ctx.state = state
        kind = event.kind
        indices = self._by_kind.get(kind)
        if indices is None:
            # built-in kinds fix what they subscribe to when they are made;
            # plug-ins are asked at every event (they may change their mind)
            indices = self._by_kind[kind] = [
                i for i, (spec, rule) in enumerate(self.rules)
                if spec.kind == "plugin" or kind in getattr(rule, "subscribes", ())]
        rules = self.rules
        judging = getattr(state, "judging", None)     # (a foreign GameView may not have it)
        if judging is not None:
            judging(True)
        try:
            for i in indices:
                spec, rule = rules[i]
                if kind not in getattr(rule, "subscribes", ()):
                    continue
                try:
                    found = list(rule.check(state, event) or ())
                except Exception as exc:  # a rule's bug must not stop the audit
                    self.failures.append(RuleFailure(spec.id, event.step, f"{type(exc).__name__}: {exc}"))
                    continue
                for violation in found:
                    if violation.severity == "info" and violation.evidence.get("not_checked"):
                        self.not_checked.setdefault(spec.id, violation.message)
                        continue
                    self.violations.append(violation)
        finally:
            if judging is not None:
                judging(False)

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
        self._by_kind = {}
        for i in range(frame.violations_before, len(self.violations)):
            self.violations[i] = replace(self.violations[i], withdrawn_by_undo=True)

    def sorted_violations(self) -> List[Violation]:
        return sorted(self.violations, key=lambda v: (v.step, v.rule_id, v.units, v.message))
