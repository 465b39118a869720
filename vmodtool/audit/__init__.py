"""Audit played games against a scenario's rules: replay events become
scenario events (moves between hexes, flips, phases, turns), the rules of
the scenario's ``rules:`` (built-in kinds and Python plug-ins) check them,
and the violations come back in step order::

    from vmodtool.audit import audit_logs
    from vmodtool.scenario import load_scenario

    report = audit_logs([Path("game.vlog")], load_scenario("scenario.yaml"))
    for violation in report.violations: ...

A caller that replays the game itself takes the audit as a replay visitor
(:func:`prepare_audit` gives the replay and the :class:`AuditVisitor`;
``replay.run(audit, *mine)`` drives it beside the caller's own, in one pass).

The rule API is :mod:`vmodtool.audit.api` (:class:`Rule`, the base of the
built-in kinds and of a user's rules, :class:`RuleEvent`, :class:`Violation`,
the :class:`GameView` a rule sees), with the helpers the kinds share in
:mod:`vmodtool.audit.rulekit`; its names are re-exported here too.  Names
are imported on first use (PEP 562), so a plug-in's
``from vmodtool.audit.api import Rule`` stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vmodtool._lazy import lazy_exports

if TYPE_CHECKING:
    from vmodtool.audit.api import (
        EVENT_KINDS,
        SEVERITIES,
        Annotation,
        BaseRule,
        Event,
        GameView,
        MarkerView,
        Rule,
        RuleContext,
        RuleEvent,
        UnitView,
        Violation,
    )
    from vmodtool.audit.game import AuditVisitor, audit_logs, prepare_audit, scenario_positions
    from vmodtool.audit.plugins import PluginError
    from vmodtool.audit.registry import rule_class
    from vmodtool.audit.report import REPORT_SCHEMA_VERSION, AuditReport

__all__ = [
    "audit_logs", "scenario_positions", "prepare_audit", "AuditVisitor",
    "AuditReport", "REPORT_SCHEMA_VERSION",
    "Event", "RuleEvent", "Violation", "Annotation", "BaseRule", "Rule", "RuleContext", "GameView", "UnitView",
    "MarkerView",
    "SEVERITIES", "EVENT_KINDS",
    "PluginError",
    "rule_class",
]

__getattr__, __dir__ = lazy_exports(globals(), {
    "vmodtool.audit.game": ("audit_logs", "scenario_positions", "prepare_audit", "AuditVisitor"),
    "vmodtool.audit.report": ("AuditReport", "REPORT_SCHEMA_VERSION"),
    "vmodtool.audit.api": (
        "Event", "RuleEvent", "Violation", "Annotation", "BaseRule", "Rule", "RuleContext", "GameView", "UnitView",
        "MarkerView", "SEVERITIES", "EVENT_KINDS",
    ),
    "vmodtool.audit.plugins": ("PluginError",),
    "vmodtool.audit.registry": ("rule_class",),
})
