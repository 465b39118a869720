"""The one :class:`Context` every rule (built-in kind or a user's) is
created with: its scenario entry and the factory of its violations, which
fills in the clock and the player."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from vmodtool.audit.api import MomentView, RuleEvent, Violation
from vmodtool.scenario.model import RuleSpec, Scenario

__all__ = ["Context", "PluginContext"]


@dataclass
class Context:
    """Implements :class:`~vmodtool.audit.api.RuleContext`."""

    spec: RuleSpec
    scenario: Scenario
    params: Mapping[str, Any] = field(default_factory=dict)
    #: the state of the event being checked (set by the engine for a user's
    #: rule: the older ``violation(event, message)`` reads it)
    state: MomentView | None = None

    def __post_init__(self) -> None:
        if not self.params:
            self.params = dict(self.spec.params)

    def __deepcopy__(self, memo: dict[int, Any]) -> Context:
        # a rule's context (its scenario entry) never changes during an audit:
        # the copies the engine takes for undo share it
        return self

    @property
    def rule_id(self) -> str:
        return self.spec.id

    @property
    def ref(self) -> tuple[str, ...]:
        return self.spec.ref

    @property
    def severity(self) -> str:
        return self.spec.severity

    @property
    def check_at(self) -> str:
        return self.spec.check_at

    @property
    def check_in(self) -> tuple[str, ...]:
        return self.spec.check_in

    @property
    def applies_to(self) -> str:
        return self.spec.applies_to

    def violation(self, event: RuleEvent, *args: Any, severity: str | None = None,
                  units: Sequence[str] = (), hexes: Sequence[str | None] = (),
                  confidence: str | None = None, **evidence: Any) -> Violation:
        """The one way a rule reports: ``violation(event, state, message,
        **kw)``, dated with the clock of ``state`` (a moment: a kind may date a
        violation found later to the moment of the act).  The older
        ``violation(event, message, **kw)`` of the first plug-ins (no state)
        keeps working during a check: the state is the one of the event."""
        if args and isinstance(args[0], str):
            state, message, rest = self.state, args[0], args[1:]
        elif args:
            state, rest = args[0], args[2:]
            message = args[1] if len(args) > 1 else evidence.pop("message")
        else:
            raise TypeError("violation() takes the event, an optional state and the message")
        if rest:
            raise TypeError("violation() takes the event, an optional state and the message")
        if state is None:
            raise TypeError("violation() without a state is only possible during a check")
        labels: list[str] = []
        for uid in units:
            try:
                labels.append(state.unit(uid).name)
            except KeyError:
                labels.append(uid)
        return Violation(
            rule_id=self.spec.id, severity=severity or self.spec.severity, step=event.step,
            message=message, ref=self.spec.ref, units=tuple(units), labels=tuple(labels),
            hexes=tuple(h for h in hexes if h), player=event.player, side=event.side,
            turn=state.turn, phase=state.phase, phasing_side=state.phasing_side,
            activation=state.active_formation, evidence=dict(evidence),
            confidence=confidence or ("inferred-phase" if getattr(state, "time_inferred", False)
                                      else "certain"))


#: the older name of :class:`Context` (a plug-in's context is a rule's)
PluginContext = Context
