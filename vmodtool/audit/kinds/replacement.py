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
from typing import Any, NamedTuple

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


class _Gain(NamedTuple):
    """A step gain being judged: the event, the unit, the sentence naming
    it, the steps and how (``return`` from the dead pile, or a flip)."""

    event: Event
    unit: UnitView
    what: str
    steps: int
    how: str

    @property
    def kw(self) -> dict[str, Any]:
        """The units and hexes of its violations."""
        return {"units": [self.unit.uid], "hexes": [self.unit.hex] if self.unit.hex else []}


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
        unit = state.unit(event.unit)
        who = f"{unit.name} ({unit.uid})"
        where = unit.hex if unit.hex else (f"box {unit.box}" if unit.box else "?")
        what = (f"{who} returned from the dead pile to {where}" if how == "return"
                else f"{who} in {where} regained a step ({unit.face} side up)")
        gained = _Gain(event, unit, what, steps, how)
        wrong_phase = self._wrong_phase(state, gained)
        if wrong_phase is not None:
            return [wrong_phase]
        out: list[Violation] = []
        # 1.7a-2 eligibility
        if not self._eligible(state, unit):
            out.append(self._v(event, state, "eligible", f"{what}; only units "
                               f"{describe_selector(self.params.get('eligible'), state.scenario)} may absorb "
                               f"replacement points.", **gained.kw))
        out += self._per_unit(state, gained)
        returned, face_flagged = self._return(state, gained)
        out += returned
        # 1.7a-4 steps per point
        per_point = self.params.get("steps_per_point")
        if per_point is not None and steps > per_point and not face_flagged:
            out.append(self._v(event, state, "steps", f"{what}: {steps} steps at once; one replacement "
                               f"point restores {per_point} step{'s' if per_point != 1 else ''}.", **gained.kw))
        out += self._priority(state, gained)
        out += self._over_budget(state, gained)
        return out

    def _wrong_phase(self, state: GameView, g: _Gain) -> Violation | None:
        """A gain outside the replacement phase of the unit's own side."""
        phase = self.params.get("phase")
        if (phase is None or state.phase == phase) and \
                (state.phasing_side is None or state.phasing_side == g.unit.side):
            return None
        scenario = state.scenario
        when = phase_name(scenario, state.phase)
        if state.phasing_side is not None:
            when += f" of {side_name(scenario, state.phasing_side)}"
        return self._v(g.event, state, "phase", f"{g.what} in the {when}; steps are regained only with "
                       f"replacement points in the {phase_name(scenario, phase)} of the unit's own "
                       f"side.", **g.kw)

    def _per_unit(self, state: GameView, g: _Gain) -> list[Violation]:
        """1.7a-3: replacements per unit per turn."""
        key = f"{state.turn}|{g.unit.uid}"
        self.gains[key] = self.gains.get(key, 0) + 1
        limit = self.params.get("per_unit_per_turn")
        if limit is None or self.gains[key] <= limit:
            return []
        return [self._v(g.event, state, "per_unit", f"{g.what}: replacement no. {self.gains[key]} for "
                        f"this unit in turn {state.turn}; a unit may absorb at most {limit} per "
                        f"turn.", **g.kw)]

    def _return(self, state: GameView, g: _Gain) -> tuple[list[Violation], bool]:
        """1.7c-1: how a unit returns from the dead pile (its face, its
        company), and whether its face was found wrong."""
        ret = self.params.get("return_from_dead") or {}
        if g.how != "return" or not ret:
            return [], False
        out: list[Violation] = []
        unit, what = g.unit, g.what
        face = ret.get("face")
        if face == "reduced_if_two_step" and unit.steps >= 2 and unit.state.get("step") != "reduced":
            out.append(self._v(g.event, state, "return", f"{what} {unit.face} side up ({g.steps} steps); a "
                               f"{unit.steps}-step unit returns reduced.", **g.kw))
        elif face not in (None, "reduced_if_two_step", "any") and unit.face not in as_list(face):
            out.append(self._v(g.event, state, "return", f"{what} {unit.face} side up; it must return "
                               f"{face} side up.", **g.kw))
        face_flagged = bool(out)
        sel = ret.get("stacked_with")
        if sel is not None and unit.hex is not None:
            good = [o for o in state.units_in(unit.hex)
                    if o.uid != unit.uid and matches_carried(sel, state, o, unit)]
            if not good:
                others = [o for o in state.units_in(unit.hex) if o.uid != unit.uid]
                out.append(self._v(g.event, state, "return", f"{what}, a hex without a unit "
                                   f"{describe_selector(sel, state.scenario, unit)} (in the hex: "
                                   f"{unit_list(others)}); it must be stacked with one.", **g.kw))
        return out, face_flagged

    def _priority(self, state: GameView, g: _Gain) -> list[Violation]:
        """1.7b: units that have priority still waiting."""
        p = self.params
        prio = p.get("priority")
        if not isinstance(prio, Mapping) or prio.get("first") is None or g.how == "return":
            return []
        first, unit = prio["first"], g.unit
        if matches(first, unit, state):
            return []
        ret = p.get("return_from_dead") or {}
        waiting = [d for d in state.units() if d.side == unit.side and d.uid != unit.uid
                   and matches(first, d, state) and self._eligible(state, d)]
        if prio.get("dead_pile_counts_only_if_returnable") and ret.get("stacked_with") is not None:
            waiting = [d for d in waiting if any(
                o.on_map and matches_carried(ret["stacked_with"], state, o, d)
                for o in state.units())]
        if not waiting:
            return []
        return [self._v(g.event, state, "priority", f"{g.what} while {unit_list(waiting)} "
                        f"{'is' if len(waiting) == 1 else 'are'} still waiting "
                        f"({describe_selector(first, state.scenario)}); those have priority.",
                        waiting=[d.uid for d in waiting], **g.kw)]

    def _over_budget(self, state: GameView, g: _Gain) -> list[Violation]:
        """1.7d: one gain is one RP claimed; a gain of too many steps is the
        1.7a-4 (or 1.7c-1) finding, not a second budget finding."""
        unit = g.unit
        bkey = f"{state.turn}|{unit.side}"
        self.used[bkey] = self.used.get(bkey, 0) + 1
        available = self._budget(state, state.turn, unit.side)
        if available is None or self.used[bkey] <= available:
            return []
        carry = "" if self.params.get("carry_over") else " (unused points are lost at the end of their turn)"
        return [self._v(g.event, state, "budget", f"{g.what}: {side_name(state.scenario, unit.side)} "
                        f"{'have' if self.used[bkey] > 1 else 'has'} used {self.used[bkey]} replacement "
                        f"points in turn {state.turn}; {available} available{carry}.", **g.kw)]
