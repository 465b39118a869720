"""``replacement``: the compound replacement-point rule (seed 004:1.7a–d,
``docs/seed-rules.md`` §2.4).

A *step gain* is a ``flip`` whose ``step`` state goes up (reduced → full)
or a unit entering the map from a dead/eliminated box.  Each gain inside
the rule's ``phase`` of the unit's own side is one replacement point (RP)
and is checked against:

=================  ===============================================================  ==========
sub-check          params                                                           seed ref
=================  ===============================================================  ==========
``phase``          ``phase`` – gains only in the side's own phase                     1.7a-1
``eligible``       ``eligible`` (or ``aircraft_eligible``) selector                    1.7a-2
``per_unit``       ``per_unit_per_turn``                                               1.7a-3
``steps``          ``steps_per_point`` – one RP restores that many steps               1.7a-4
``priority``       ``priority: {first, then, dead_pile_counts_only_if_returnable}``    1.7b
``return``         ``return_from_dead: {face, stacked_with}``                          1.7c-1
``budget``         ``budget`` (``resources.<name>`` schedule or a number),             1.7d
                   ``carry_over``
=================  ===============================================================  ==========

Each violation carries only the ref of its sub-check: ``refs: {sub-check:
ref}`` in the params, else the entry's ``ref`` item ending with the seed
suffix above, else all of the entry's refs.  ``ignore_conditions`` (EZOC,
supply) are accepted and deliberately not checked (1.7a-5).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from vmodtool.audit.api import Event, GameView, Rule, RuleContext, UnitView, Violation
from vmodtool.audit.kinds import register
from vmodtool.audit.rulekit import (
    current_steps,
    describe_selector,
    is_elimination_box,
    matches_carried,
    old_new_state,
    phase_name,
    side_name,
    step_rank,
    unit_list,
)
from vmodtool.audit.selectors import as_list, matches
from vmodtool.vassal.pieces import java_int

__all__ = ["Replacement", "SUBCHECK_SUFFIXES"]

#: sub-check -> the suffixes of the seed ids (§2.4) that name it
SUBCHECK_SUFFIXES = {
    "phase": ("1.7a-1",), "eligible": ("1.7a-2",), "per_unit": ("1.7a-3",), "steps": ("1.7a-4",),
    "priority": ("1.7b",), "return": ("1.7c-1", "1.7c"), "budget": ("1.7d",),
}


def _turn_number(key: object) -> int | None:
    """A turn number from a schedule's key or the turn part of a used-points
    key (``"3"`` or 3); None for anything else."""
    if isinstance(key, bool):
        return None
    if isinstance(key, int):
        return key
    return java_int(key) if isinstance(key, str) else None


@register("replacement")
class Replacement(Rule):

    subscribes = frozenset({"flip", "enter"})

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        self.gains: dict[str, int] = {}     # "turn|uid" -> gains this turn
        self.used: dict[str, int] = {}      # "turn|side" -> RPs used

    # -- refs -------------------------------------------------------------------------------
    def _ref(self, check: str) -> tuple[str, ...]:
        explicit = (self.params.get("refs") or {}).get(check)
        if explicit:
            return tuple(as_list(explicit))
        refs = tuple(self.ctx.ref)
        for suffix in SUBCHECK_SUFFIXES.get(check, ()):
            hit = [r for r in refs if r.endswith(suffix) or r.endswith(":" + suffix)]
            if hit:
                return (hit[0],)
        return refs

    def _v(self, event: Event, state: GameView, check: str, msg: str, **kw: Any) -> Violation:
        v = self.ctx.violation(event, state, msg, check=check, **kw)
        return dataclasses.replace(v, ref=self._ref(check))

    # -- gains ------------------------------------------------------------------------------
    def _gain(self, state: GameView, event: Event) -> tuple[int, str] | None:
        """(steps gained, how) of a step gain, or None."""
        if event.unit is None:
            return None
        try:
            unit = state.unit(event.unit)
        except KeyError:
            return None
        if event.kind == "enter":
            if not is_elimination_box(state.scenario, event.from_box):
                return None
            return current_steps(state, unit), "return"
        old, new = old_new_state(state, event)
        if "step" not in old or "step" not in new:
            return None
        a = step_rank(state.scenario, unit.type, old["step"])
        b = step_rank(state.scenario, unit.type, new["step"])
        if a is None or b is None or b <= a:
            return None
        return b - a, "flip"

    def _eligible(self, state: GameView, unit: UnitView) -> bool:
        p = self.params
        if matches(p.get("eligible"), unit, state):
            return True
        air = p.get("aircraft_eligible")
        return air is not None and matches(air, unit, state)

    def _budget(self, state: GameView, turn: int | None, side: str) -> float | None:
        budget = self.params.get("budget")
        if budget is None:
            return None
        listed: set[int] = set()        # the turns whose points may differ from ``default``
        if isinstance(budget, (int, float)):
            fixed: float = budget
            default = fixed

            def per_turn(t: int) -> float:
                return fixed
        else:
            sched = budget
            if isinstance(budget, str):
                node: Any = {"resources": state.scenario.resources}
                for part in budget.split("."):
                    node = node.get(part) if isinstance(node, Mapping) else None
                sched = node
            if isinstance(sched, Mapping) and "schedule" in sched:
                sched = sched["schedule"]
            if not isinstance(sched, Mapping):
                return None
            default = 0
            listed = {k for k in (_turn_number(key) for key in sched) if k is not None}

            def per_turn(t: int) -> float:
                row = sched.get(t, sched.get(str(t)))
                points: float = (row or {}).get(side, 0) if isinstance(row, Mapping) else (row or 0)
                return points
        if turn is None:
            return None
        total = per_turn(turn)
        if self.params.get("carry_over"):
            first = state.scenario.turns.first if state.scenario.turns else 1
            # the turns with points of their own or points used, one by one;
            # every other turn before this one carries ``default`` over (the
            # turn a log gives may be as large as a damaged file holds)
            used = {t: n for t, n in ((_turn_number(key.partition("|")[0]), n) for key, n in self.used.items()
                                      if key.partition("|")[2] == side) if t is not None}
            seen = {t for t in listed | set(used) if first <= t < turn}
            for t in seen:
                total += max(0, per_turn(t) - used.get(t, 0))
            total += max(0, turn - first - len(seen)) * max(0, default)
        return total

    # -- the check ----------------------------------------------------------------------------
    def check(self, state: GameView, event: Event) -> Iterable[Violation]:
        gain = self._gain(state, event)
        if gain is None or event.unit is None:      # (a gain is a unit's)
            return []
        steps, how = gain
        p = self.params
        scenario = state.scenario
        unit = state.unit(event.unit)
        who = f"{unit.name} ({unit.uid})"
        where = unit.hex if unit.hex else (f"box {unit.box}" if unit.box else "?")
        what = (f"{who} returned from the dead pile to {where}" if how == "return"
                else f"{who} in {where} regained a step ({unit.face} side up)")
        kw = dict(units=[unit.uid], hexes=[unit.hex] if unit.hex else [])
        phase = p.get("phase")
        if (phase is not None and state.phase != phase) or \
                (state.phasing_side is not None and state.phasing_side != unit.side):
            when = phase_name(scenario, state.phase)
            if state.phasing_side is not None:
                when += f" of {side_name(scenario, state.phasing_side)}"
            return [self._v(event, state, "phase", f"{what} in the {when}; steps are regained only with "
                            f"replacement points in the {phase_name(scenario, phase)} of the unit's own "
                            f"side.", **kw)]
        out: list[Violation] = []
        # 1.7a-2 eligibility
        if not self._eligible(state, unit):
            out.append(self._v(event, state, "eligible", f"{what}; only units "
                               f"{describe_selector(p.get('eligible'), scenario)} may absorb replacement "
                               f"points.", **kw))
        # 1.7a-3 per unit per turn
        key = f"{state.turn}|{unit.uid}"
        self.gains[key] = self.gains.get(key, 0) + 1
        limit = p.get("per_unit_per_turn")
        if limit is not None and self.gains[key] > limit:
            out.append(self._v(event, state, "per_unit", f"{what}: replacement no. {self.gains[key]} for "
                               f"this unit in turn {state.turn}; a unit may absorb at most {limit} per "
                               f"turn.", **kw))
        # 1.7c-1 return placement
        face_flagged = False
        ret = p.get("return_from_dead") or {}
        if how == "return" and ret:
            face = ret.get("face")
            if face == "reduced_if_two_step" and unit.steps >= 2 and unit.state.get("step") != "reduced":
                face_flagged = True
                out.append(self._v(event, state, "return", f"{what} {unit.face} side up ({steps} steps); a "
                                   f"{unit.steps}-step unit returns reduced.", **kw))
            elif face not in (None, "reduced_if_two_step", "any") and unit.face not in as_list(face):
                face_flagged = True
                out.append(self._v(event, state, "return", f"{what} {unit.face} side up; it must return "
                                   f"{face} side up.", **kw))
            sel = ret.get("stacked_with")
            if sel is not None and unit.hex is not None:
                good = [o for o in state.units_in(unit.hex)
                        if o.uid != unit.uid and matches_carried(sel, state, o, unit)]
                if not good:
                    others = [o for o in state.units_in(unit.hex) if o.uid != unit.uid]
                    out.append(self._v(event, state, "return", f"{what}, a hex without a unit "
                                       f"{describe_selector(sel, scenario, unit)} (in the hex: "
                                       f"{unit_list(others)}); it must be stacked with one.", **kw))
        # 1.7a-4 steps per point
        per_point = p.get("steps_per_point")
        if per_point is not None and steps > per_point and not face_flagged:
            out.append(self._v(event, state, "steps", f"{what}: {steps} steps at once; one replacement "
                               f"point restores {per_point} step{'s' if per_point != 1 else ''}.", **kw))
        # 1.7b priority
        prio = p.get("priority")
        if isinstance(prio, Mapping) and prio.get("first") is not None:
            first = prio["first"]
            if how != "return" and not matches(first, unit, state):
                waiting = [d for d in state.units() if d.side == unit.side and d.uid != unit.uid
                           and matches(first, d, state) and self._eligible(state, d)]
                if prio.get("dead_pile_counts_only_if_returnable") and ret.get("stacked_with") is not None:
                    waiting = [d for d in waiting if any(
                        o.on_map and matches_carried(ret["stacked_with"], state, o, d)
                        for o in state.units())]
                if waiting:
                    out.append(self._v(event, state, "priority", f"{what} while {unit_list(waiting)} "
                                       f"{'is' if len(waiting) == 1 else 'are'} still waiting "
                                       f"({describe_selector(first, scenario)}); those have priority.",
                                       waiting=[d.uid for d in waiting], **kw))
        # 1.7d budget
        # one gain is one RP claimed; a gain of too many steps is the 1.7a-4
        # (or 1.7c-1) finding, not a second budget finding
        bkey = f"{state.turn}|{unit.side}"
        self.used[bkey] = self.used.get(bkey, 0) + 1
        available = self._budget(state, state.turn, unit.side)
        if available is not None and self.used[bkey] > available:
            carry = "" if p.get("carry_over") else " (unused points are lost at the end of their turn)"
            out.append(self._v(event, state, "budget", f"{what}: {side_name(scenario, unit.side)} "
                               f"{'have' if self.used[bkey] > 1 else 'has'} used {self.used[bkey]} replacement "
                               f"points in turn {state.turn}; {available} available{carry}.", **kw))
        return out
