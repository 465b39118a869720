"""Status and time-window kinds: ``status_forbids``, ``state_never``,
``transition_window``, ``phase_sweep`` and ``obligation``
(``docs/seed-rules.md`` §2.5 items 7–9, 11 and the obligations of §4.5).

The module also holds the small helpers the other kinds of this package
share (which markers a unit carries, box roles, readable selectors,
settle-point bookkeeping).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from vmodtool.audit.api import BaseRule, Event, RuleContext, Violation
from vmodtool.audit.kinds import register
from vmodtool.audit.selectors import Subject, as_list, is_fixed, matches, reads_markers
from vmodtool.audit.state import AuditState, Unit, UnitState
from vmodtool.scenario.model import Box, MarkerKind, Scenario, Track, TurnStructure

__all__ = ["StatusForbids", "StateNever", "TransitionWindow", "PhaseSweep", "Obligation",
           "ELIMINATION_ROLES", "box_role", "is_elimination_box", "carried_markers", "layer_markers",
           "with_markers", "carried_view", "matches_carried", "describe_selector", "describe_unit", "phase_name",
           "side_name", "marker_name", "marker_kinds", "Placer", "SettleRule", "point_text",
           "current_steps", "step_rank"]

#: box roles (and track kinds) a unit goes to when it is destroyed
ELIMINATION_ROLES = ("eliminated", "dead", "casualty")

_POINT_EVENTS = {"step_end": "step_end", "activation_end": "activation_end",
                 "phase_end": "phase_end", "turn_end": "turn_end", "game_end": "game_end"}
_POINT_TEXT = {"step_end": "at the end of the step", "activation_end": "at the end of the activation",
               "phase_end": "at the end of the phase", "turn_end": "at the end of the turn",
               "game_end": "at the end of the game", "event": "after the change"}
#: events after which an ``event``-timed settle rule looks again
_CHANGE_EVENTS = frozenset({"move", "enter", "leave", "transfer", "add", "remove", "flip", "layer",
                            "reorder", "marker_add", "marker_remove", "marker_move"})


# -- shared helpers ------------------------------------------------------------------
def box_role(scenario: Scenario | None, box_id: str | None) -> str | None:
    """The role of a box; a track of kind ``casualty`` counts as role
    ``casualty`` (a Casualty Track holds units too)."""
    if box_id is None:
        return None
    box: Box
    for box in getattr(scenario, "boxes", ()):
        if box.id == box_id:
            return box.role
    track: Track
    for track in getattr(scenario, "tracks", ()):
        if track.id == box_id:
            return "casualty" if track.kind == "casualty" else None
    return None


def is_elimination_box(scenario: Scenario | None, box_id: str | None) -> bool:
    return box_role(scenario, box_id) in ELIMINATION_ROLES


def _marker_scope(scenario: Scenario | None, kind: str) -> str:
    mk: MarkerKind | None = getattr(scenario, "markers", {}).get(kind)
    return mk.scope if mk is not None else "hex"


def layer_markers(state: AuditState, uid: str) -> frozenset[str]:
    """The status layers switched on on the unit's own piece."""
    us = getattr(state, "units_state", None)
    if us is not None and uid in us:
        return frozenset(us[uid].layers)
    return frozenset(state.unit(uid).markers)      # pragma: no cover - foreign GameView


def carried_markers(state: AuditState, uid: str) -> frozenset[str]:
    """The marker kinds that apply to a unit: its layers, hex-scope marker
    counters in its hex, and unit-scope counters that sit on it (the nearest
    unit below the counter in the stack, or above if none is below)."""
    stacks = getattr(state, "stacks", None)
    if stacks is None:                              # pragma: no cover - foreign GameView
        return frozenset(state.unit(uid).markers)
    out = set(layer_markers(state, uid))
    unit = state.unit(uid)
    if unit.hex is None:
        return frozenset(out)
    keys = stacks.get(unit.hex, [])
    units_state = state.units_state
    markers_state = state.markers_state
    for i, key in enumerate(keys):
        m = markers_state.get(key)
        if m is None:
            continue
        scope = _marker_scope(state.scenario, m.kind)
        if scope == "box":
            continue
        if scope == "hex":
            out.add(m.kind)
            continue
        below = [k for k in keys[:i] if k in units_state]
        above = [k for k in keys[i + 1:] if k in units_state]
        owner = below[-1] if below else (above[0] if above else None)
        if owner == uid:
            out.add(m.kind)
    return frozenset(out)


def with_markers(unit: Unit, markers: Iterable[str]) -> Unit:
    """``unit`` with other ``markers`` (the same object when they are equal,
    a copy otherwise)."""
    markers = frozenset(markers)
    if markers == unit.markers:
        return unit
    if hasattr(unit, "_replace"):               # the audit's own views (named tuples)
        return unit._replace(markers=markers)
    new = copy.copy(unit)
    object.__setattr__(new, "markers", markers)
    return new


def carried_view(state: AuditState, unit: Unit) -> Unit:
    """``unit`` whose ``markers`` are the markers it carries (see
    :func:`carried_markers`), for selectors with a ``markers`` key."""
    return with_markers(unit, carried_markers(state, unit.uid))


def matches_carried(selector: Any, state: AuditState, unit: Unit, subject: Subject | None = None) -> bool:
    """:func:`matches` on the unit with the markers it carries (looked up
    only when the selector reads markers)."""
    if reads_markers(selector):
        unit = carried_view(state, unit)
    return matches(selector, unit, state, subject)


def describe_unit(state: AuditState, uid: str) -> str:
    try:
        return f"{state.unit(uid).name} ({uid})"
    except KeyError:
        return uid


def phase_name(scenario: Scenario | None, phase_id: str | None) -> str:
    if phase_id is None:
        return "an unknown phase"
    turns: TurnStructure | None = getattr(scenario, "turns", None)
    if turns is not None:
        try:
            return turns.phase(phase_id).name
        except KeyError:
            pass
    return phase_id


def side_name(scenario: Scenario | None, side_id: str | None) -> str:
    if side_id is None:
        return "no side"
    if scenario is None:
        return side_id
    try:
        return scenario.game.side(side_id).name
    except (KeyError, AttributeError):
        return side_id


def marker_name(scenario: Scenario | None, kind: str) -> str:
    mk: MarkerKind | None = getattr(scenario, "markers", {}).get(kind)
    return mk.name if mk is not None else kind


def marker_kinds(selector: Any) -> tuple[str, ...] | None:
    """The marker kinds a selector names with ``marker_kind`` (it then
    selects marker pieces, not units); None when it selects units."""
    if isinstance(selector, Mapping) and "marker_kind" in selector:
        return tuple(as_list(selector["marker_kind"]))
    return None


def point_text(check_at: str | None) -> str:
    return _POINT_TEXT.get(check_at or "event", f"at {check_at}")


def step_rank(scenario: Scenario, type_id: str, step_value: Any) -> int | None:
    """How many steps a unit of the type has with ``step`` state
    ``step_value`` (full = all its steps, each further value one less)."""
    utype = scenario.unit_types[type_id]
    values: list[Any] = []
    for face in utype.faces:
        v = face.state.get("step")
        if v is not None and v not in values:
            values.append(v)
    if step_value not in values:
        return None
    steps = max(utype.steps, len(values))
    return steps - values.index(step_value)


def current_steps(state: AuditState, unit: Unit) -> int:
    rank = step_rank(state.scenario, unit.type, unit.state.get("step"))
    return rank if rank is not None else unit.steps


@dataclass(frozen=True)
class Placer:
    """A stand-in subject for relative selectors when a marker (not a unit)
    is placed: ``side: friendly`` means the side of the placing player."""

    side: str | None
    formation: str | None = None
    serves: frozenset[str] = frozenset()
    tags: frozenset[str] = frozenset()
    uid: str | None = None


def _names(values: Any) -> str:
    items = [str(v) for v in as_list(values)]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def describe_selector(selector: Any, scenario: Scenario | None = None, subject: Subject | None = None) -> str:
    """A short English rendering of a selector for messages."""
    if selector is None or selector == {}:
        return "any unit"
    if isinstance(selector, (list, tuple)):
        return " or ".join(f"({describe_selector(s, scenario, subject)})" for s in selector)
    if not isinstance(selector, Mapping):
        return str(selector)
    parts: list[str] = []
    for key, value in selector.items():
        if key in ("tags", "tags_all"):
            parts.append("tagged " + " and ".join(as_list(value)))
        elif key == "tags_any":
            parts.append("tagged " + _names(value))
        elif key == "type":
            parts.append("of type " + _names(value))
        elif key == "side":
            if value in ("friendly", "same"):
                parts.append("of the placing player's side" if isinstance(subject, Placer)
                             else "of its side")
            elif value in ("enemy", "other"):
                parts.append("of the enemy")
            else:
                parts.append("of side " + _names([side_name(scenario, v) for v in as_list(value)]))
        elif key == "same":
            parts.append("of the same " + " and ".join(as_list(value)))
        elif key == "served_by":
            serves = sorted(getattr(subject, "serves", ()) or ())
            parts.append("of a type it serves" + (f" ({', '.join(serves)})" if serves else ""))
        elif key == "state" and isinstance(value, Mapping):
            parts.append("with " + ", ".join(f"{k} {_names(v)}" for k, v in value.items()))
        elif key == "face":
            parts.append("showing face " + _names(value))
        elif key == "markers":
            names = [marker_name(scenario, k) for k in as_list(value)]
            parts.append("marked " + _names(names))
        elif key == "marker_kind":
            names = [marker_name(scenario, k) for k in as_list(value)]
            parts.append(_names(names) + " markers")
        elif key == "in":
            parts.append("in box " + _names(value))
        elif key == "in_box_role":
            parts.append("in a box of role " + _names(value))
        elif key == "on_map":
            parts.append("on the map" if value else "off the map")
        elif key == "not":
            parts.append("not " + describe_selector(value, scenario, subject))
        elif key == "formation":
            parts.append("of formation " + _names(value))
        else:
            parts.append(f"{key}={value}")
    return ", ".join(parts)


def unit_list(units: Sequence[Any]) -> str:
    return ", ".join(f"{u.name} ({u.uid})" for u in units) if units else "none"


def _state_matches(expected: Mapping[str, Any], values: Mapping[str, Any]) -> bool:
    for key, want in expected.items():
        allowed = as_list(want)
        got = values.get(key)
        if got not in allowed and str(got) not in [str(a) for a in allowed]:
            return False
    return True


def _old_new_state(state: AuditState, event: Event) -> tuple[dict[str, Any], dict[str, Any]]:
    """The unit's state values before and after a ``flip`` (from the event's
    changes, completed from the faces it names)."""
    old: dict[str, Any] = {}
    new: dict[str, Any] = {}
    scenario = state.scenario
    face = event.changes.get("face") if event.changes else None
    if face is not None and event.unit is not None:
        try:
            utype = scenario.unit_type_of(scenario.counter(event.unit))
            for name, target in ((face[0], old), (face[1], new)):
                try:
                    target.update(utype.face(name).state)
                except KeyError:
                    pass
        except KeyError:
            pass
    for key, change in (event.changes or {}).items():
        if key == "face" or not isinstance(change, (tuple, list)) or len(change) != 2:
            continue
        old[key], new[key] = change[0], change[1]
    return old, new


#: a settle-point finding: its signature (a different one is a new finding)
#: and what makes its violation, given the settle point's event
Finding = tuple[object, Callable[[Event], Violation]]
#: the findings of some hexes, by a key naming the finding
Findings = dict[Hashable, Finding]


class SettleRule(BaseRule[AuditState]):
    """Base of kinds judged at a settle point (``check_at``): each finding is
    reported once when it appears (or changes) and again only after it has
    been put right and reappears."""

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        self.check_at: str = getattr(ctx, "check_at", "step_end") or "step_end"
        point = _POINT_EVENTS.get(self.check_at)
        self.point = point
        # game_end closes every open window (a log may stop inside an activation);
        # a finding already reported at the last settle point is not repeated
        self.subscribes = frozenset({point, "game_end", "setup_end"}) if point else \
            _CHANGE_EVENTS | {"game_end", "setup_end"}
        self.open: dict[Hashable, object] = {}
        #: the phases the settle point counts in (``check_in``; empty: all)
        self.check_in = frozenset(getattr(ctx, "check_in", ()) or ())

    # a copy keeps what is open, what each hex showed (``_found``: values
    # are (signature, builder) pairs, shared) and how far it read the log
    _shallow = ("_found",)
    # made at the first settle point (``__dict__.setdefault``)
    _found: Findings
    _hex_keys: dict[str, tuple[Hashable, ...]]
    _mark: int

    if TYPE_CHECKING:
        # for the type checker only: every settle-point kind defines it
        # (no ABCMeta on a class the audit's hot paths test with isinstance)
        def findings_in(self, state: AuditState, hex_id: str) -> Findings:
            """The findings of one hex, which depend only on what is in that hex
            (its pieces, their order, faces and layers): each subclass says."""
            ...

    def findings(self, state: AuditState) -> Findings:
        """The findings of every occupied hex."""
        out: Findings = {}
        for hex_id in sorted({u.hex for u in state.units() if u.hex is not None}):
            out.update(self.findings_in(state, hex_id))
        return out

    def _judge_changed(self, state: AuditState, hexes: set[str]) -> Findings:
        """Judge again the hexes that changed since the last settle point;
        returns the findings of those hexes (the others keep theirs)."""
        memory = self.__dict__
        found: Findings | None = memory.get("_found")
        if found is None:
            found = memory["_found"] = {}
        hex_keys: dict[str, tuple[Hashable, ...]] | None = memory.get("_hex_keys")
        if hex_keys is None:
            hex_keys = memory["_hex_keys"] = {}
        if hex_keys:
            for hex_id in hexes:
                for key in hex_keys.pop(hex_id, ()):
                    found.pop(key, None)
        fresh: Findings = {}
        stacks = state.stacks
        for hex_id in sorted(hexes) if len(hexes) > 1 else hexes:
            if hex_id in stacks:
                here = self.findings_in(state, hex_id)
                if here:
                    hex_keys[hex_id] = tuple(here)
                    fresh.update(here)
        if fresh:
            found.update(fresh)
        return fresh

    def idle(self, state: AuditState) -> bool:
        """Whether a check now would find nothing and remember nothing: no hex
        changed since the last settle point it judged (see ``Engine.skips``)."""
        changed = getattr(state, "changed", None)
        if changed is None:             # (a foreign GameView: every hex is judged)
            return False
        return bool(self.__dict__.get("_mark", 0) == state._log_base + len(changed)) and \
            not self.__dict__.get("_deferred", False)   # (a side's findings waiting for a check that judges it)

    def check(self, state: AuditState, event: Event) -> Iterable[Violation]:
        if event.kind == "setup_end":
            self._note_start(state)
            return []
        if event.kind not in self.subscribes:
            return []
        if self.check_in and state.phase not in self.check_in:
            return []                     # not a settle point of this rule: what changed is judged later
        changed_since = getattr(state, "changed_since", None)
        if changed_since is None:       # a foreign GameView: judge every hex
            found = self.findings(state)
            fresh = found
        else:
            # only hexes whose content changed since the last settle point can
            # have new findings; the others' are already open (reported)
            mark, hexes = changed_since(self.__dict__.get("_mark", 0))
            self._mark = mark
            deferred = self.__dict__.get("_deferred", False)
            if not hexes and not deferred:
                return []
            fresh = self._judge_changed(state, hexes)
            found = self._found
            if not fresh and not found and not self.open:
                return []               # (nothing found, now or before: the usual case)
            if deferred:
                # (findings of a side an earlier check did not judge, in hexes unchanged since)
                fresh = {k: v for k, v in found.items() if k in fresh or _is_new(self.open.get(k), v[0])}
        # (the end of the game is the last check that can see a finding: every side's)
        judged = None if event.kind == "game_end" else self._judged_sides(state)
        start = self.__dict__.get("_at_start")
        out = []
        for key, (sig, build) in sorted(fresh.items(), key=lambda kv: repr(kv[0])):
            if not _is_new(self.open.get(key), sig):
                continue
            if judged is not None and not self._of_sides(state, key, sig, judged):
                continue                # (not this check's side: judged at its own)
            violation = build(event)
            if start is not None and key in start and not _is_new(start[key], sig):
                violation = replace(violation, message=violation.message + _INHERITED,
                                    evidence={**violation.evidence, "inherited": True})
            out.append(violation)
        opened = {key: sig for key, (sig, _) in found.items()}
        self._deferred = False
        if judged is not None:
            self._deferred = any(not self._of_sides(state, key, sig, judged) and _is_new(self.open.get(key), sig)
                                 for key, sig in opened.items())
            # a finding of a side not judged now stays as it was reported
            opened = {key: (sig if self._of_sides(state, key, sig, judged) else self.open[key])
                      for key, sig in opened.items()
                      if key in self.open or self._of_sides(state, key, sig, judged)}
        self.open = opened
        return out

    def _judged_sides(self, state: AuditState) -> frozenset[str | None] | None:
        """The sides whose findings this check reports (``applies_to``;
        None: every side's)."""
        applies = getattr(self.ctx, "applies_to", "all")
        if applies == "phasing":
            return frozenset({state.phasing_side}) if state.phasing_side is not None else None
        if applies == "moved":
            counts = dict(getattr(state, "_side_moves", {}))
            before: dict[str | None, int] = self.__dict__.get("_side_counts", {})
            self._side_counts = counts
            return frozenset(s for s, n in counts.items() if n != before.get(s, 0))
        return None

    @staticmethod
    def _of_sides(state: AuditState, key: Hashable, sig: object, sides: frozenset[str | None]) -> bool:
        """Whether a finding (its key and signature name its units) is of
        one of ``sides``: a unit it names is of one, or its key names one."""
        named = [x for part in (key, sig) if isinstance(part, tuple) for x in part] + [key, sig]
        found = False
        for x in named:
            if isinstance(x, str) and x in state.units_state:
                found = True
                if state.unit(x).side in sides:
                    return True
        if not found:
            # (a finding of no unit, such as a side's stack: the side in its key)
            return any(isinstance(x, str) and x in sides for x in named)
        return False

    def _note_start(self, state: AuditState) -> None:
        """The findings at the start of the game (the saved state the first
        log begins from): reported at the first check that can see them,
        as inherited from an earlier log."""
        self._at_start = {key: sig for key, (sig, _) in self.findings(state).items()}

    @property
    def when(self) -> str:
        return point_text(self.check_at)


#: what a finding that stood when the log began says
_INHERITED = " (it stood so in the saved game the log began from: inherited, not made in this log)"


def _is_new(old: object, sig: object) -> bool:
    """Whether a finding with signature ``sig`` is to be reported when
    ``old`` was (None: it was not open): a finding that merely persists, or
    only lost units (a stack of 10 become 9), is not a new act; one that
    gained a unit, or changed otherwise, is."""
    if old is None:
        return True
    if isinstance(old, tuple) and isinstance(sig, tuple):
        return not set(sig) <= set(old)
    return old != sig


def _during_applies(during: Any, state: AuditState, unit: Unit) -> bool:
    if during in (None, "any", "always"):
        return True
    if during == "own_activation":
        return state.active_formation is not None and state.active_formation == unit.formation
    if during == "own_phase":
        return state.phasing_side is not None and state.phasing_side == unit.side
    if during == "enemy_phase":
        return state.phasing_side is not None and state.phasing_side != unit.side
    if isinstance(during, Mapping):
        phases = as_list(during.get("phase")) + as_list(during.get("phases"))
        if phases and state.phase not in phases:
            return False
        if during.get("own_side") and state.phasing_side != unit.side:
            return False
        if during.get("activation") == "own" and state.active_formation != unit.formation:
            return False
        return True
    return state.phase in as_list(during)


def _during_text(during: Any, scenario: Scenario) -> str:
    if during in (None, "any", "always"):
        return "at any time"
    if during == "own_activation":
        return "during its own formation's activation"
    if during == "own_phase":
        return "during its own side's phases"
    if during == "enemy_phase":
        return "during the enemy's phases"
    if isinstance(during, Mapping):
        phases = as_list(during.get("phase")) + as_list(during.get("phases"))
        return "in the " + _names([phase_name(scenario, p) for p in phases]) if phases else "at any time"
    return "in the " + _names([phase_name(scenario, p) for p in as_list(during)])


_ACTION_EVENTS = {"move": "move", "enter": "enter", "leave": "leave", "flip": "flip",
                  "transfer": "transfer"}
_ACTION_VERB = {"move": "moved", "enter": "entered the map", "leave": "left the map",
                "flip": "was flipped", "transfer": "was transferred"}


# -- status_forbids -------------------------------------------------------------------------
@register("status_forbids")
class StatusForbids(BaseRule[AuditState]):
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
        self.pending: list[tuple[Event, str]] = []       # moves of this step not flagged yet
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

    def _status_markers(self, state: AuditState, uid: str, from_hex: str | None, to_hex: str | None,
                        late: bool = False) -> set[str]:
        """Markers the unit carried when it left ``from_hex``; ``late`` (at the
        end of the step) counts only markers that travelled with it, not
        markers placed in the hex it left after it had gone."""
        marks = set(layer_markers(state, uid))
        if from_hex is not None and not late:
            # (the kinds of the markers in the hex: no Marker views made)
            markers_state = state.markers_state
            for key in state.stacks.get(from_hex, ()):
                m = markers_state.get(key)
                if m is not None and _marker_scope(state.scenario, m.kind) == "hex":
                    marks.add(m.kind)
        for kind, a, b in self.moved_markers:
            if a is not None and a == from_hex and b == to_hex:
                marks.add(kind)
        if from_hex is None and not late:
            marks |= carried_markers(state, uid)
        return marks

    def _violation(self, state: AuditState, event: Event, unit: Unit, marks: set[str]) -> Violation:
        p = self.params
        status = describe_selector(p.get("status"), state.scenario, unit)
        action = _ACTION_VERB.get(event.kind, event.kind)
        where = f" {event.from_hex} → {event.to_hex}" if event.kind == "move" else \
            (f" in {unit.hex}" if unit.hex else "")
        when = _during_text(p.get("during"), state.scenario)
        return self.ctx.violation(
            event, state,
            f"{unit.name} ({unit.uid}) {action}{where} while {status}; "
            f"a unit {status} may not {next(iter(sorted(self.actions)))} {when}.",
            units=[unit.uid], hexes=[h for h in (event.from_hex, event.to_hex or unit.hex) if h],
            markers=sorted(marks), phase_at_event=state.phase, activation=state.active_formation)

    def idle(self, state: AuditState) -> bool:
        """Whether its ``step_end`` now would judge nothing (see
        ``Engine.skips``): no move of this step is pending (those of an
        earlier step are dropped by the next step's first event)."""
        return not self.pending or self.cur_step != state.step

    def check(self, state: AuditState, event: Event) -> Iterable[Violation]:
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
                if (ev.step, uid) in self.flagged or uid not in _unit_ids(state):
                    continue
                out.extend(self._judge(state, ev, uid, late=True))
            self.pending = []
            return out
        if event.kind not in self.actions or event.unit is None or event.unit not in _unit_ids(state):
            return []
        if self.during_phases and state.phase not in self.during_phases:
            return []                           # (not in the phases its ``during`` names)
        unit = state.unit(event.unit)
        if not _during_applies(p.get("during"), state, unit):
            return []
        found = self._judge(state, event, event.unit)
        if not found:
            self.pending.append((event, event.unit))
        return found

    def _judge(self, state: AuditState, event: Event, uid: str, late: bool = False) -> list[Violation]:
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


def _unit_ids(state: AuditState) -> Collection[str]:
    """The ids of the scenario's units (a mapping or set: for ``in`` and
    iteration only; not copied, as this is asked for every event)."""
    us: Mapping[str, UnitState] | None = getattr(state, "units_state", None)
    if us is not None:
        return us
    return {u.uid for u in state.units()}     # pragma: no cover - foreign GameView


def _units_on_map(state: AuditState) -> list[Unit]:
    """The units on the map, by id (views made only for them)."""
    us: Mapping[str, UnitState] | None = getattr(state, "units_state", None)
    if us is None:                  # pragma: no cover - foreign GameView
        return [u for u in sorted(state.units(), key=lambda u: u.uid) if u.on_map]
    return [state.unit(uid) for uid in sorted(uid for uid, s in us.items() if s.present and s.hex is not None)]


# -- state_never ----------------------------------------------------------------------------------
@register("state_never")
class StateNever(BaseRule[AuditState]):
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

    def _candidates(self, state: AuditState, event: Event) -> list[str]:
        ids = _unit_ids(state)
        if event.kind == "setup_end":
            return sorted(ids)
        if event.kind in ("marker_add", "marker_move"):
            out: list[str] = []
            for h in (event.from_hex, event.to_hex):
                if h is not None:
                    out.extend(u.uid for u in state.units_in(h))
            return out
        return [event.unit] if event.unit is not None and event.unit in ids else []

    def _wrong(self, state: AuditState, uid: str, event: Event) -> tuple[str, ...]:
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
                values = {**values, **_old_new_state(state, event)[1]}
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

    def check(self, state: AuditState, event: Event) -> Iterable[Violation]:
        out = []
        for uid in dict.fromkeys(self._candidates(state, event)):
            wrong = self._wrong(state, uid, event)
            if wrong and self.bad.get(uid) != wrong:
                unit = state.unit(uid)
                where = f" in {unit.hex}" if unit.hex else (f" in box {unit.box}" if unit.box else "")
                subject = describe_selector(self.params.get("subject"), state.scenario)
                forbidden = [f"{k} {_names(v)}" for k, v in (self.params.get("state") or {}).items()]
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


# -- transition_window ---------------------------------------------------------------------------
@register("transition_window")
class TransitionWindow(BaseRule[AuditState]):
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
        return _state_matches(p.get("from") or {}, old) and _state_matches(p.get("to") or {}, new)

    def _phase_ok(self, state: AuditState, unit: Unit) -> tuple[bool, str]:
        p = self.params
        phases = as_list(p.get("phases"))
        names = _names([phase_name(state.scenario, x) for x in phases]) if phases else "any phase"
        own = " of its own side" if p.get("own_phase_only") else ""
        need = f"only in the {names}{own}"
        if phases and state.phase not in phases:
            return False, need
        if p.get("own_phase_only") and state.phasing_side is not None and state.phasing_side != unit.side:
            return False, need
        return True, need

    def _condition(self, state: AuditState, uid: str) -> tuple[bool, str | None, bool]:
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

    def check(self, state: AuditState, event: Event) -> Iterable[Violation]:
        p = self.params
        if event.kind == "phase_end":
            return self._mandatory(state, event)
        if event.unit is None or event.unit not in _unit_ids(state):
            return []
        unit = state.unit(event.unit)
        if not matches(p.get("subject"), unit, state):
            return []
        old, new = _old_new_state(state, event)
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

    def _mandatory(self, state: AuditState, event: Event) -> list[Violation]:
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
            if not _state_matches(p.get("from") or {}, unit.state):
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
class PhaseSweep(BaseRule[AuditState]):
    """At ``at`` (``{phase_end: id}``, ``{phase_start: id}`` or
    ``{turn_end: true}``): no unit or marker matching ``none_on_map`` is on
    the map, and every piece matching ``all_in_box.select`` is in a box of
    role ``all_in_box.box_role`` (of its own side when the box has one).

    ``none_on_map: {markers: [...]}`` names marker kinds: layers switched on
    on units and marker counters on the map are both reported."""

    subscribes = frozenset({"phase_end", "phase_start", "turn_end"})

    def _due(self, state: AuditState, event: Event) -> bool:
        at = self.params.get("at") or {}
        if not isinstance(at, Mapping):
            at = {"phase_end": at}
        if event.kind in ("phase_end", "phase_start") and event.kind in at:
            phase = event.phase or state.phase
            return phase in as_list(at[event.kind])
        if event.kind == "turn_end" and at.get("turn_end"):
            return True
        return False

    def check(self, state: AuditState, event: Event) -> Iterable[Violation]:
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

    def _none_on_map(self, state: AuditState, event: Event, sel: Any, when: str) -> list[Violation]:
        out: list[Violation] = []
        scenario = state.scenario
        kinds = marker_kinds(sel)
        marker_sel = kinds is not None or (isinstance(sel, Mapping) and set(sel) == {"markers"})
        if kinds is None and isinstance(sel, Mapping) and "markers" in sel:
            kinds = tuple(as_list(sel["markers"]))
        desc = describe_selector(sel, scenario)
        if not (isinstance(sel, Mapping) and "marker_kind" in sel):
            for unit in _units_on_map(state):
                view = with_markers(unit, layer_markers(state, unit.uid)) if kinds else unit
                if matches(sel, view, state):
                    left = sorted(set(kinds or ()) & view.markers)
                    who = f"{unit.name} ({unit.uid}) in {unit.hex}"
                    if left:
                        msg = (f"{who} is still marked {_names([marker_name(scenario, k) for k in left])} "
                               f"{when}; every {_names([marker_name(scenario, k) for k in kinds or ()])} marker "
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
                    event, state, f"{_names(names)} marker still in {hex_id} {when}; every "
                    f"{_names([marker_name(scenario, k) for k in kinds])} marker must be removed by then.",
                    hexes=[hex_id], markers=sorted(by_hex[hex_id])))
        return out

    def _all_in_box(self, state: AuditState, event: Event, spec: Any, when: str) -> list[Violation]:
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

        target = "a box of role " + _names(roles) if roles else "box " + _names(boxes)
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

    event: Event                    # the trigger (violations are dated to it)
    hex: str | None
    subjects: tuple[str, ...]       # units the requirements are about
    cause: tuple[str, ...]          # units whose elimination triggered it


@register("obligation")
class Obligation(BaseRule[AuditState]):
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

    def _eliminated_from(self, state: AuditState, event: Event) -> str | None:
        """The hex a unit was eliminated from by this event, if it was."""
        if event.unit is None or event.from_hex is None or event.unit not in _unit_ids(state):
            return None
        if event.kind == "remove" or (event.kind == "leave" and
                                      (event.to_box is None or is_elimination_box(state.scenario, event.to_box))):
            return event.from_hex
        return None

    def check(self, state: AuditState, event: Event) -> Iterable[Violation]:
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

    def _resolve(self, state: AuditState, event: Event) -> list[Violation]:
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
                    alive = [u for u in ob.subjects if u in _unit_ids(state) and state.unit(u).on_map
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
                        names_k = _names([marker_name(state.scenario, k) for k in kinds])
                        out.append(self.ctx.violation(
                            ob.event, state, f"{why}, but there is no {names_k} marker in {ob.hex} "
                            f"{when}; one must be placed there.",
                            units=list(ob.subjects), hexes=[ob.hex], requirement="marker_in_hex"))
        self.pending = []
        return out
