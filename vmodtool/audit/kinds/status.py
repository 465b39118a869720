"""Status kinds: ``status_forbids`` and ``state_never``
(``docs/seed-rules.md`` §2.5 items 7–8).  The time-window kinds are in
:mod:`vmodtool.audit.kinds.windows`; the helpers all kinds share in
:mod:`vmodtool.audit.rulekit` (re-exported here, where they lived before).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from vmodtool.audit.api import GameView, Rule, RuleContext, RuleEvent, UnitView, Violation
from vmodtool.audit.kinds import register
from vmodtool.audit.rulekit import (  # (the helpers lived here: their names stay importable)
    ELIMINATION_ROLES,
    Finding,
    Findings,
    Placer,
    SettleRule,
    box_role,
    carried_markers,
    carried_view,
    current_steps,
    describe_selector,
    describe_unit,
    during_applies,
    during_text,
    is_elimination_box,
    join_names,
    layer_markers,
    marker_kinds,
    marker_name,
    marker_scope,
    matches_carried,
    old_new_state,
    phase_name,
    point_text,
    side_name,
    step_rank,
    unit_list,
    with_markers,
)
from vmodtool.audit.selectors import as_list, is_fixed, matches

__all__ = ["StatusForbids", "StateNever", "TransitionWindow", "PhaseSweep", "Obligation",
           # (the helpers lived here: their names stay importable)
           "ELIMINATION_ROLES", "box_role", "is_elimination_box", "carried_markers", "layer_markers",
           "with_markers", "carried_view", "matches_carried", "describe_selector", "describe_unit", "phase_name",
           "side_name", "marker_name", "marker_kinds", "Placer", "SettleRule", "point_text",
           "current_steps", "step_rank", "unit_list", "Finding", "Findings"]

_ACTION_EVENTS = {"move": "move", "enter": "enter", "leave": "leave", "flip": "flip",
                  "transfer": "transfer"}
_ACTION_VERB = {"move": "moved", "enter": "entered the map", "leave": "left the map",
                "flip": "was flipped", "transfer": "was transferred"}


# -- status_forbids -------------------------------------------------------------------------
@register("status_forbids")
class StatusForbids(Rule):
    """A unit with status ``status`` (a selector over markers it carries, its
    state and tags) may not perform ``forbids`` (default ``move``) while
    ``during`` holds (``any``, ``own_activation``, ``own_phase``,
    ``{phase: id}`` or a list of phases).

    Hex-scope marker counters are read in the hex the unit *left*; a marker
    dragged along with the stack in the same step still counts (it is checked
    again at the end of the step)."""

    # a step_end judges the step's pending moves (none: nothing to do)
    quiet_step_end = True

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        actions = as_list(self.params.get("forbids", "move"))
        self.actions = frozenset(_ACTION_EVENTS.get(a, a) for a in actions)
        self.subscribes = self.actions | {"marker_move", "step_end"}
        self.cur_step: int | None = None
        self.moved_markers: list[tuple[str, str | None, str | None]] = []   # kind, from, to
        self.pending: list[tuple[RuleEvent, str]] = []       # moves of this step not flagged yet
        self.flagged: set[tuple[int, str]] = set()       # (step, uid)
        during = self.params.get("during")
        #: the phases a ``during`` mapping names (empty: it names none, or
        #: is not a mapping); outside them it never applies
        self.during_phases: tuple[Any, ...] = (
            tuple(as_list(during.get("phase")) + as_list(during.get("phases")))
            if isinstance(during, Mapping) else ())
        status = self.params.get("status")
        #: the kinds a ``status`` of markers alone names (the unit matches when
        #: it carries one); None: the selector reads more
        self.status_kinds: frozenset[str] | None = (
            frozenset(as_list(status["markers"])) if isinstance(status, Mapping) and set(status) == {"markers"}
            else None)

    def _new_step(self, step: int) -> None:
        if step != self.cur_step:
            self.cur_step = step
            self.moved_markers = []
            self.pending = []
            self.flagged = set()

    def _status_markers(self, state: GameView, uid: str, from_hex: str | None, to_hex: str | None,
                        late: bool = False) -> set[str]:
        """Markers the unit carried when it left ``from_hex``; ``late`` (at the
        end of the step) counts only markers that travelled with it, not
        markers placed in the hex it left after it had gone."""
        marks = set(layer_markers(state, uid))
        if from_hex is not None and not late:
            # (the kinds of the markers in the hex: no Marker views made)
            markers_state = state.marker_places()
            for key in state.stack(from_hex):
                m = markers_state.get(key)
                if m is not None and marker_scope(state.scenario, m.kind) == "hex":
                    marks.add(m.kind)
        for kind, a, b in self.moved_markers:
            if a is not None and a == from_hex and b == to_hex:
                marks.add(kind)
        if from_hex is None and not late:
            marks |= carried_markers(state, uid)
        return marks

    def _violation(self, state: GameView, event: RuleEvent, unit: UnitView, marks: set[str]) -> Violation:
        p = self.params
        status = describe_selector(p.get("status"), state.scenario, unit)
        action = _ACTION_VERB.get(event.kind, event.kind)
        where = f" {event.from_hex} → {event.to_hex}" if event.kind == "move" else \
            (f" in {unit.hex}" if unit.hex else "")
        when = during_text(p.get("during"), state.scenario)
        return self.ctx.violation(
            event, state,
            f"{unit.name} ({unit.uid}) {action}{where} while {status}; "
            f"a unit {status} may not {next(iter(sorted(self.actions)))} {when}.",
            units=[unit.uid], hexes=[h for h in (event.from_hex, event.to_hex or unit.hex) if h],
            markers=sorted(marks), phase_at_event=state.phase, activation=state.active_formation)

    def idle(self, state: GameView) -> bool:
        """Whether its ``step_end`` now would judge nothing (see
        ``Engine.skips``): no move of this step is pending (those of an
        earlier step are dropped by the next step's first event)."""
        return not self.pending or self.cur_step != state.step

    def check(self, state: GameView, event: RuleEvent) -> Iterable[Violation]:
        if event.step != self.cur_step:
            self._new_step(event.step)
        p = self.params
        if event.kind == "marker_move":
            if event.marker is not None:            # (the game adapter always names it)
                self.moved_markers.append((event.marker, event.from_hex, event.to_hex))
            return []
        if event.kind == "step_end":
            if not self.pending:
                return []
            out = []
            for ev, uid in self.pending:
                if (ev.step, uid) in self.flagged or uid not in state.unit_places():
                    continue
                out.extend(self._judge(state, ev, uid, late=True))
            self.pending = []
            return out
        if event.kind not in self.actions or event.unit is None or event.unit not in state.unit_places():
            return []
        if self.during_phases and state.phase not in self.during_phases:
            return []                           # (not in the phases its ``during`` names)
        unit = state.unit(event.unit)
        if not during_applies(p.get("during"), state, unit):
            return []
        found = self._judge(state, event, event.unit)
        if not found:
            self.pending.append((event, event.unit))
        return found

    def _judge(self, state: GameView, event: RuleEvent, uid: str, late: bool = False) -> list[Violation]:
        unit = state.unit(uid)
        marks = self._status_markers(state, uid, event.from_hex, event.to_hex, late)
        kinds = self.status_kinds
        if kinds is not None:
            if kinds.isdisjoint(marks):
                return []
        elif not matches(self.params.get("status"), with_markers(unit, marks), state):
            return []
        self.flagged.add((event.step, uid))
        return [self._violation(state, event, unit, marks)]


# -- state_never ----------------------------------------------------------------------------------
@register("state_never")
class StateNever(Rule):
    """Units matching ``subject`` may never show the ``state`` values
    (``{key: value or [values]}``) nor carry the ``markers``.  Reported when
    the condition appears (again after it has been put right)."""

    subscribes = frozenset({"flip", "layer", "marker_add", "marker_move", "move", "enter", "add",
                            "transfer", "setup_end"})
    # the events of one unit judge that unit only if it is a subject
    subject_events = frozenset({"flip", "layer", "move", "enter", "add", "transfer"})

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        self.bad: dict[str, tuple[str, ...]] = {}      # uid -> what is wrong
        # what _wrong reads of the entry, read once: (key, forbidden values,
        # the same as text) of ``state``, and the ``markers`` kinds
        self._forbidden: list[tuple[str, list[Any], list[str]]] = [
            (key, as_list(forbidden), [str(v) for v in as_list(forbidden)])
            for key, forbidden in (self.params.get("state") or {}).items()]
        self._marker_kinds: list[Any] = as_list(self.params.get("markers"))
        #: unit id -> whether it matches a ``subject`` of what never changes
        #: (None: the subject reads more)
        self._subjects: dict[str, bool] | None = {} if is_fixed(self.params.get("subject")) else None

    # (what the entry says, and whether a unit is a subject of a fixed
    # selector: the same for every copy of the rule)
    _shared = ("ctx", "params", "_forbidden", "_marker_kinds", "_subjects")

    def _candidates(self, state: GameView, event: RuleEvent) -> list[str]:
        ids = state.unit_places()
        if event.kind == "setup_end":
            return sorted(ids)
        if event.kind in ("marker_add", "marker_move"):
            out: list[str] = []
            for h in (event.from_hex, event.to_hex):
                if h is not None:
                    out.extend(u.uid for u in state.units_in(h))
            return out
        return [event.unit] if event.unit is not None and event.unit in ids else []

    def _wrong(self, state: GameView, uid: str, event: RuleEvent) -> tuple[str, ...]:
        p = self.params
        unit = state.unit(uid)
        if not unit.on_map and unit.box is None:
            return ()
        subjects = self._subjects
        if subjects is None:
            is_subject = matches(p.get("subject"), unit, state)
        else:
            found = subjects.get(uid)
            is_subject = found if found is not None else subjects.setdefault(
                uid, matches(p.get("subject"), unit, state))
        if not is_subject:
            return ()
        wrong: list[str] = []
        if self._forbidden:
            values: Mapping[str, Any] = unit.state
            if event.kind == "flip" and event.unit == uid:
                values = {**values, **old_new_state(state, event)[1]}
            for key, forbidden, as_text in self._forbidden:
                got = values.get(key)
                if got is not None and (got in forbidden or str(got) in as_text):
                    wrong.append(f"{key} {got}")
        if self._marker_kinds:
            marks = carried_markers(state, uid)
            for kind in self._marker_kinds:
                if kind in marks:
                    wrong.append(marker_name(state.scenario, kind))
        return tuple(wrong)

    def check(self, state: GameView, event: RuleEvent) -> Iterable[Violation]:
        out = []
        for uid in dict.fromkeys(self._candidates(state, event)):
            wrong = self._wrong(state, uid, event)
            if wrong and self.bad.get(uid) != wrong:
                unit = state.unit(uid)
                where = f" in {unit.hex}" if unit.hex else (f" in box {unit.box}" if unit.box else "")
                subject = describe_selector(self.params.get("subject"), state.scenario)
                forbidden = [f"{k} {join_names(v)}" for k, v in (self.params.get("state") or {}).items()]
                forbidden += [f"marked {marker_name(state.scenario, k)}"
                              for k in as_list(self.params.get("markers"))]
                out.append(self.ctx.violation(
                    event, state,
                    f"{unit.name} ({uid}){where} now has {' and '.join(wrong)}; units {subject} "
                    f"may never have {' or '.join(forbidden)}.",
                    units=[uid], hexes=[unit.hex] if unit.hex else [], wrong=list(wrong)))
            if wrong:
                self.bad[uid] = wrong
            else:
                self.bad.pop(uid, None)
        return out


# (the time-window kinds lived here)
from vmodtool.audit.kinds.windows import Obligation, PhaseSweep, TransitionWindow  # noqa: E402
