"""Time-window kinds: ``transition_window``, ``phase_sweep`` and
``obligation`` (``docs/seed-rules.md`` §2.5 items 9, 11 and the obligations
of §4.5)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from vmodtool.audit.api import GameView, Rule, RuleContext, RuleEvent, UnitView, Violation
from vmodtool.audit.kinds import register
from vmodtool.audit.rulekit import (
    box_role,
    describe_selector,
    describe_unit,
    is_elimination_box,
    join_names,
    layer_markers,
    marker_kinds,
    marker_name,
    matches_carried,
    old_new_state,
    phase_name,
    point_text,
    side_name,
    state_matches,
    units_on_map,
    with_markers,
)
from vmodtool.audit.selectors import as_list, matches

__all__ = ["TransitionWindow", "PhaseSweep", "Obligation"]

# -- transition_window ---------------------------------------------------------------------------
@register("transition_window")
class TransitionWindow(Rule):
    """A change of units ``subject`` from state ``from`` to state ``to`` is
    legal only in ``phases`` (of the unit's own side with
    ``own_phase_only``) and, with ``condition``, only if in the snapshot
    (``phase_start`` by default) the unit shared its hex with a unit matching
    ``same_hex_as`` (relative to the unit).  ``mandatory: true`` warns at the
    end of such a phase for every eligible unit that did not change."""

    subscribes = frozenset({"flip", "phase_end"})

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        cond = self.params.get("condition") or {}
        point = cond.get("snapshot", "phase_start") if cond else None
        #: the snapshot the condition reads (the engine takes only those asked for)
        self.snapshots = frozenset({point}) if point else frozenset()
        # a phase_start copy is read only in the phase it starts, and this
        # kind reads the game only in its ``phases`` (a flip outside them is
        # judged without the condition; ``_mandatory`` looks only in them)
        if point == "phase_start":
            self.snapshot_phases = frozenset(as_list(self.params.get("phases")))

    def _matches_from_to(self, old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
        p = self.params
        return state_matches(p.get("from") or {}, old) and state_matches(p.get("to") or {}, new)

    def _phase_ok(self, state: GameView, unit: UnitView) -> tuple[bool, str]:
        p = self.params
        phases = as_list(p.get("phases"))
        names = join_names([phase_name(state.scenario, x) for x in phases]) if phases else "any phase"
        own = " of its own side" if p.get("own_phase_only") else ""
        need = f"only in the {names}{own}"
        if phases and state.phase not in phases:
            return False, need
        if p.get("own_phase_only") and state.phasing_side is not None and state.phasing_side != unit.side:
            return False, need
        return True, need

    def _condition(self, state: GameView, uid: str) -> tuple[bool, str | None, bool]:
        """(met, text, from_snapshot)."""
        cond = self.params.get("condition")
        if not cond:
            return True, None, False
        point = cond.get("snapshot", "phase_start")
        snap = state.snapshot(point) if point else None
        view = snap if snap is not None else state
        sel = cond.get("same_hex_as")
        text = None
        if sel is not None:
            try:
                unit = view.unit(uid)
            except KeyError:
                return False, None, snap is not None
            subject_desc = describe_selector(sel, state.scenario, unit)
            when = "at the start of the phase" if point == "phase_start" else f"at {point}"
            text = f"{when} it did not share a hex with a unit {subject_desc}"
            if unit.hex is None:
                return False, text, snap is not None
            for other in view.units_in(unit.hex):
                if other.uid != uid and matches_carried(sel, view, other, unit):
                    return True, None, snap is not None
            return False, text, snap is not None
        return True, None, snap is not None

    def check(self, state: GameView, event: RuleEvent) -> Iterable[Violation]:
        p = self.params
        if event.kind == "phase_end":
            return self._mandatory(state, event)
        if event.unit is None or event.unit not in state.unit_places():
            return []
        unit = state.unit(event.unit)
        if not matches(p.get("subject"), unit, state):
            return []
        old, new = old_new_state(state, event)
        if not self._matches_from_to(old, new):
            return []
        change = " → ".join(" ".join(str(v) for v in d.values())
                            for d in (p.get("from") or {}, p.get("to") or {}))
        where = f" in {unit.hex}" if unit.hex else ""
        ok, need = self._phase_ok(state, unit)
        if not ok:
            side = f" of {side_name(state.scenario, state.phasing_side)}" if state.phasing_side else ""
            return [self.ctx.violation(
                event, state,
                f"{unit.name} ({unit.uid}){where} changed {change} in the "
                f"{phase_name(state.scenario, state.phase)}{side}; this change is allowed {need}.",
                units=[unit.uid], hexes=[unit.hex] if unit.hex else [], check="window")]
        met, text, from_snapshot = self._condition(state, unit.uid)
        if not met:
            return [self.ctx.violation(
                event, state, f"{unit.name} ({unit.uid}){where} changed {change}, but {text}.",
                units=[unit.uid], hexes=[unit.hex] if unit.hex else [], check="condition",
                confidence=None if from_snapshot else "inferred-phase")]
        return []

    def _mandatory(self, state: GameView, event: RuleEvent) -> list[Violation]:
        p = self.params
        if not p.get("mandatory"):
            return []
        phases = as_list(p.get("phases"))
        if phases and state.phase not in phases:
            return []
        out = []
        change = " → ".join(" ".join(str(v) for v in d.values())
                            for d in (p.get("from") or {}, p.get("to") or {}))
        for unit in state.units():
            if not unit.on_map or not matches(p.get("subject"), unit, state):
                continue
            if p.get("own_phase_only") and state.phasing_side is not None and state.phasing_side != unit.side:
                continue
            if not state_matches(p.get("from") or {}, unit.state):
                continue
            met, _text, _snap = self._condition(state, unit.uid)
            if not met:
                continue
            out.append(self.ctx.violation(
                event, state,
                f"{unit.name} ({unit.uid}) in {unit.hex} was eligible for {change} in the "
                f"{phase_name(state.scenario, state.phase)} but was not changed.",
                severity="warning", units=[unit.uid], hexes=[unit.hex], check="mandatory"))
        return out


# -- phase_sweep -------------------------------------------------------------------------------
@register("phase_sweep")
class PhaseSweep(Rule):
    """At ``at`` (``{phase_end: id}``, ``{phase_start: id}`` or
    ``{turn_end: true}``): no unit or marker matching ``none_on_map`` is on
    the map, and every piece matching ``all_in_box.select`` is in a box of
    role ``all_in_box.box_role`` (of its own side when the box has one).

    ``none_on_map: {markers: [...]}`` names marker kinds: layers switched on
    on units and marker counters on the map are both reported."""

    subscribes = frozenset({"phase_end", "phase_start", "turn_end"})

    def _due(self, state: GameView, event: RuleEvent) -> bool:
        at = self.params.get("at") or {}
        if not isinstance(at, Mapping):
            at = {"phase_end": at}
        if event.kind in ("phase_end", "phase_start") and event.kind in at:
            phase = event.phase or state.phase
            return phase in as_list(at[event.kind])
        if event.kind == "turn_end" and at.get("turn_end"):
            return True
        return False

    def check(self, state: GameView, event: RuleEvent) -> Iterable[Violation]:
        if not self._due(state, event):
            return []
        out: list[Violation] = []
        when = ("at the end of the " + phase_name(state.scenario, event.phase or state.phase)
                if event.kind == "phase_end" else
                "at the start of the " + phase_name(state.scenario, event.phase or state.phase)
                if event.kind == "phase_start" else "at the end of the turn")
        none = self.params.get("none_on_map")
        if none is not None:
            out.extend(self._none_on_map(state, event, none, when))
        box = self.params.get("all_in_box")
        if box is not None:
            out.extend(self._all_in_box(state, event, box, when))
        return out

    def _none_on_map(self, state: GameView, event: RuleEvent, sel: Any, when: str) -> list[Violation]:
        out: list[Violation] = []
        scenario = state.scenario
        kinds = marker_kinds(sel)
        marker_sel = kinds is not None or (isinstance(sel, Mapping) and set(sel) == {"markers"})
        if kinds is None and isinstance(sel, Mapping) and "markers" in sel:
            kinds = tuple(as_list(sel["markers"]))
        desc = describe_selector(sel, scenario)
        if not (isinstance(sel, Mapping) and "marker_kind" in sel):
            for unit in units_on_map(state):
                view = with_markers(unit, layer_markers(state, unit.uid)) if kinds else unit
                if matches(sel, view, state):
                    left = sorted(set(kinds or ()) & view.markers)
                    who = f"{unit.name} ({unit.uid}) in {unit.hex}"
                    if left:
                        msg = (f"{who} is still marked {join_names([marker_name(scenario, k) for k in left])} "
                               f"{when}; every {join_names([marker_name(scenario, k) for k in kinds or ()])} marker "
                               f"must be removed by then.")
                    else:
                        msg = f"{who} is still on the map {when}; no unit {desc} may remain on the map then."
                    out.append(self.ctx.violation(event, state, msg, units=[unit.uid], hexes=[unit.hex],
                                                  markers=left))
        if marker_sel and kinds:
            by_hex: dict[str, list[str]] = {}
            for m in state.markers():
                if m.hex is not None and m.kind in kinds:
                    by_hex.setdefault(m.hex, []).append(m.kind)
            for hex_id in sorted(by_hex):
                names = sorted({marker_name(scenario, k) for k in by_hex[hex_id]})
                out.append(self.ctx.violation(
                    event, state, f"{join_names(names)} marker still in {hex_id} {when}; every "
                    f"{join_names([marker_name(scenario, k) for k in kinds])} marker must be removed by then.",
                    hexes=[hex_id], markers=sorted(by_hex[hex_id])))
        return out

    def _all_in_box(self, state: GameView, event: RuleEvent, spec: Any, when: str) -> list[Violation]:
        out: list[Violation] = []
        scenario = state.scenario
        sel = spec.get("select") if isinstance(spec, Mapping) else None
        roles = as_list(spec.get("box_role")) if isinstance(spec, Mapping) else []
        boxes = as_list(spec.get("box")) if isinstance(spec, Mapping) else []
        box_side = {b.id: b.side for b in scenario.boxes}

        def fits(box_id: str | None, side: str | None) -> bool:
            if box_id is None:
                return False
            if boxes and box_id not in boxes:
                return False
            if roles and box_role(scenario, box_id) not in roles:
                return False
            return box_side.get(box_id) in (None, side)

        target = "a box of role " + join_names(roles) if roles else "box " + join_names(boxes)
        kinds = marker_kinds(sel)
        if kinds is not None:
            for m in sorted(state.markers(), key=lambda m: m.key):
                if m.kind in kinds and not fits(m.box, None):
                    where = m.hex if m.hex else (f"box {m.box}" if m.box else "nowhere")
                    out.append(self.ctx.violation(
                        event, state, f"{marker_name(scenario, m.kind)} marker {m.key} is in {where} "
                        f"{when}; it must be in {target}.", hexes=[m.hex] if m.hex else [],
                        marker=m.key, box=m.box))
            return out
        for unit in sorted(state.units(), key=lambda u: u.uid):
            if not matches(sel, unit, state) or fits(unit.box, unit.side):
                continue
            where = unit.hex if unit.hex else (f"box {unit.box}" if unit.box else "nowhere")
            out.append(self.ctx.violation(
                event, state, f"{unit.name} ({unit.uid}) is in {where} {when}; it must be in "
                f"{target}" + (" of its side" if any(box_side.values()) else "") + ".",
                units=[unit.uid], hexes=[unit.hex] if unit.hex else [], box=unit.box))
        return out


# -- obligation ------------------------------------------------------------------------------------
_DUE_EVENTS = {"step_end": "step_end", "activation_end": "activation_end", "phase_end": "phase_end",
               "turn_end": "turn_end", "event": "step_end"}


@dataclass
class _Pending:
    """An obligation a trigger created, waiting for the rule's ``due`` point,
    when its ``require`` items are checked."""

    event: RuleEvent                    # the trigger (violations are dated to it)
    hex: str | None
    subjects: tuple[str, ...]       # units the requirements are about
    cause: tuple[str, ...]          # units whose elimination triggered it


@register("obligation")
class Obligation(Rule):
    """A trigger creates a pending obligation; when it is ``due`` (a settle
    point) every ``require`` item must hold, else one violation per unmet
    item, dated to the trigger's step.

    Triggers: ``{event: last_unit_eliminated_in_hex, hex_contains: sel}`` –
    a unit not matching ``sel`` is eliminated (to an eliminated/dead box or
    removed) and its hex then holds only units matching ``sel`` (or none, when
    such a unit was eliminated from it earlier in the step);
    ``{event: eliminated, subject: sel}`` – a unit matching ``sel`` is
    eliminated.  Requirements: ``{eliminate: sel}`` (the trigger hex's units
    matching ``sel`` are off the map), ``{marker_in_hex: kind}``.  The
    items are checked in order; once an ``eliminate`` item is unmet, the
    later items (its consequences, such as a Wreck marker) are not reported."""

    # the due point resolves the obligations since the last one (none: nothing to do)
    quiet_step_end = True

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        due = self.params.get("due") or getattr(ctx, "check_at", "step_end") or "step_end"
        self.due = _DUE_EVENTS.get(due, "step_end")
        self.subscribes = frozenset({"leave", "remove", "transfer", self.due})
        self.pending: list[_Pending] = []
        self.cur_step: int | None = None
        self.eliminated: list[tuple[str, str]] = []     # (uid, hex) this step

    def _eliminated_from(self, state: GameView, event: RuleEvent) -> str | None:
        """The hex a unit was eliminated from by this event, if it was."""
        if event.unit is None or event.from_hex is None or event.unit not in state.unit_places():
            return None
        if event.kind == "remove" or (event.kind == "leave" and
                                      (event.to_box is None or is_elimination_box(state.scenario, event.to_box))):
            return event.from_hex
        return None

    def check(self, state: GameView, event: RuleEvent) -> Iterable[Violation]:
        if event.step != self.cur_step:
            self.cur_step = event.step
            self.eliminated = []
        if event.kind == self.due:
            return self._resolve(state, event)
        hex_id = self._eliminated_from(state, event)
        uid = event.unit
        if hex_id is None or uid is None:        # (a unit's elimination names it)
            return []
        trig = self.params.get("trigger") or {}
        kind = trig.get("event")
        unit = state.unit(uid)
        if kind == "last_unit_eliminated_in_hex":
            sel = trig.get("hex_contains")
            self.eliminated.append((uid, hex_id))
            rest = state.units_in(hex_id)
            if any(not matches(sel, u, state) for u in rest):
                return []
            if any(ob.hex == hex_id and ob.event.step == event.step for ob in self.pending):
                return []
            here = [e for e, h in self.eliminated if h == hex_id]
            subjects = [u.uid for u in rest if matches(sel, u, state)]
            subjects += [e for e in here if e not in subjects and matches(sel, state.unit(e), state)]
            cause = tuple(e for e in here if e not in subjects)
            # the stack is gone once its last other unit is eliminated, whichever
            # of the two (that unit or the HQ) the log eliminates first
            if subjects and cause:
                self.pending.append(_Pending(event, hex_id, tuple(subjects), cause))
        elif kind in ("eliminated", "unit_eliminated"):
            if matches(trig.get("subject"), unit, state):
                self.pending.append(_Pending(event, hex_id, (uid,), (uid,)))
        return []

    def _resolve(self, state: GameView, event: RuleEvent) -> list[Violation]:
        out: list[Violation] = []
        when = point_text(self.due)
        for ob in self.pending:
            missing_elimination = False
            names = ", ".join(describe_unit(state, u) for u in ob.subjects)
            cause = ", ".join(describe_unit(state, u) for u in ob.cause)
            trig = self.params.get("trigger") or {}
            if trig.get("event") == "last_unit_eliminated_in_hex":
                why = f"the last unit stacked with {names} in {ob.hex} was eliminated ({cause})"
            else:
                why = f"{names} was eliminated from {ob.hex}"
            for req in as_list(self.params.get("require")):
                if not isinstance(req, Mapping):
                    continue
                if missing_elimination:
                    break       # an elimination is missing: its consequences are not owed yet
                if "eliminate" in req:
                    alive = [u for u in ob.subjects if u in state.unit_places() and state.unit(u).on_map
                             and matches(req["eliminate"], state.unit(u), state)]
                    if alive:
                        where = ", ".join(f"{describe_unit(state, u)} in {state.unit(u).hex}" for u in alive)
                        out.append(self.ctx.violation(
                            ob.event, state, f"{why}, but {where} is still on the map {when}; "
                            f"it must be eliminated with its stack.",
                            units=alive, hexes=[ob.hex] + [state.unit(u).hex for u in alive
                                                           if state.unit(u).hex != ob.hex],
                            requirement="eliminate"))
                    missing_elimination = bool(alive)
                if "marker_in_hex" in req:
                    kinds = as_list(req["marker_in_hex"])
                    have = {m.kind for m in state.markers_in(ob.hex)} if ob.hex else set()
                    if not have & set(kinds):
                        names_k = join_names([marker_name(state.scenario, k) for k in kinds])
                        out.append(self.ctx.violation(
                            ob.event, state, f"{why}, but there is no {names_k} marker in {ob.hex} "
                            f"{when}; one must be placed there.",
                            units=list(ob.subjects), hexes=[ob.hex], requirement="marker_in_hex"))
        self.pending = []
        return out
