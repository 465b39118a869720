"""The helpers the built-in rule kinds share, public for a user's rule too
(``docs/guide/rule-plugins.md``): which markers a unit carries, box roles,
readable names of sides, phases, markers and selectors, unit lists, and
:class:`SettleRule`, the base of the kinds that judge the state at a
settle point (``check_at``) and report a finding once.

Everything here reads a :class:`~vmodtool.audit.api.GameView` only.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from vmodtool.audit.api import GameView, Rule, RuleContext, RuleEvent, UnitView, Violation
from vmodtool.audit.selectors import Subject, as_list, matches, reads_markers
from vmodtool.audit.state import Unit
from vmodtool.scenario.model import Box, MarkerKind, Scenario, Track, TurnStructure

__all__ = ["ELIMINATION_ROLES", "box_role", "is_elimination_box", "marker_scope", "carried_markers",
           "layer_markers", "with_markers", "carried_view", "matches_carried", "describe_selector", "describe_unit",
           "phase_name", "side_name", "marker_name", "marker_kinds", "join_names", "Placer", "SettleRule",
           "Finding", "Findings", "point_text", "current_steps", "step_rank", "state_matches", "old_new_state",
           "during_applies", "during_text", "units_on_map"]

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


def marker_scope(scenario: Scenario | None, kind: str) -> str:
    mk: MarkerKind | None = getattr(scenario, "markers", {}).get(kind)
    return mk.scope if mk is not None else "hex"


def layer_markers(state: GameView, uid: str) -> frozenset[str]:
    """The status layers switched on on the unit's own piece."""
    place = state.unit_places().get(uid)
    if place is not None:
        return frozenset(place.layers)
    return frozenset(state.unit(uid).markers)      # pragma: no cover - a unit never placed


def carried_markers(state: GameView, uid: str) -> frozenset[str]:
    """The marker kinds that apply to a unit: its layers, hex-scope marker
    counters in its hex, and unit-scope counters that sit on it (the nearest
    unit below the counter in the stack, or above if none is below)."""
    out = set(layer_markers(state, uid))
    unit = state.unit(uid)
    if unit.hex is None:
        return frozenset(out)
    keys = state.stack(unit.hex)
    units_state = state.unit_places()
    markers_state = state.marker_places()
    for i, key in enumerate(keys):
        m = markers_state.get(key)
        if m is None:
            continue
        scope = marker_scope(state.scenario, m.kind)
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


def with_markers(unit: UnitView, markers: Iterable[str]) -> UnitView:
    """``unit`` with other ``markers`` (the same object when they are equal,
    a copy otherwise)."""
    markers = frozenset(markers)
    if markers == unit.markers:
        return unit
    if isinstance(unit, Unit):                  # the audit's own views (named tuples)
        return unit._replace(markers=markers)
    new = copy.copy(unit)
    object.__setattr__(new, "markers", markers)
    return new


def carried_view(state: GameView, unit: UnitView) -> UnitView:
    """``unit`` whose ``markers`` are the markers it carries (see
    :func:`carried_markers`), for selectors with a ``markers`` key."""
    return with_markers(unit, carried_markers(state, unit.uid))


def matches_carried(selector: Any, state: GameView, unit: UnitView, subject: Subject | None = None) -> bool:
    """:func:`matches` on the unit with the markers it carries (looked up
    only when the selector reads markers)."""
    if reads_markers(selector):
        unit = carried_view(state, unit)
    return matches(selector, unit, state, subject)


def describe_unit(state: GameView, uid: str) -> str:
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


def units_on_map(state: GameView) -> list[UnitView]:
    """The units on the map, by id (views made only for them)."""
    us = state.unit_places()
    return [state.unit(uid) for uid in sorted(uid for uid, s in us.items() if s.present and s.hex is not None)]


def current_steps(state: GameView, unit: UnitView) -> int:
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


def join_names(values: Any) -> str:
    items = [str(v) for v in as_list(values)]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def _describe_side(value: Any, scenario: Scenario | None, subject: Subject | None) -> str:
    if value in ("friendly", "same"):
        return "of the placing player's side" if isinstance(subject, Placer) else "of its side"
    if value in ("enemy", "other"):
        return "of the enemy"
    return "of side " + join_names([side_name(scenario, v) for v in as_list(value)])


def _describe_served_by(value: Any, scenario: Scenario | None, subject: Subject | None) -> str:
    serves = sorted(getattr(subject, "serves", ()) or ())
    return "of a type it serves" + (f" ({', '.join(serves)})" if serves else "")


def _describe_state(value: Any, scenario: Scenario | None, subject: Subject | None) -> str:
    if not isinstance(value, Mapping):
        return f"state={value}"
    return "with " + ", ".join(f"{k} {join_names(v)}" for k, v in value.items())


#: how each selector key reads in a message: (its value, the scenario, the subject) -> words
_DESCRIBE_KEY: dict[str, Callable[[Any, Scenario | None, Subject | None], str]] = {
    "tags": lambda v, sc, sub: "tagged " + " and ".join(as_list(v)),
    "tags_all": lambda v, sc, sub: "tagged " + " and ".join(as_list(v)),
    "tags_any": lambda v, sc, sub: "tagged " + join_names(v),
    "type": lambda v, sc, sub: "of type " + join_names(v),
    "side": _describe_side,
    "same": lambda v, sc, sub: "of the same " + " and ".join(as_list(v)),
    "served_by": _describe_served_by,
    "state": _describe_state,
    "face": lambda v, sc, sub: "showing face " + join_names(v),
    "markers": lambda v, sc, sub: "marked " + join_names([marker_name(sc, k) for k in as_list(v)]),
    "marker_kind": lambda v, sc, sub: join_names([marker_name(sc, k) for k in as_list(v)]) + " markers",
    "in": lambda v, sc, sub: "in box " + join_names(v),
    "in_box_role": lambda v, sc, sub: "in a box of role " + join_names(v),
    "on_map": lambda v, sc, sub: "on the map" if v else "off the map",
    "not": lambda v, sc, sub: "not " + describe_selector(v, sc, sub),
    "formation": lambda v, sc, sub: "of formation " + join_names(v),
}


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
        describe = _DESCRIBE_KEY.get(key)
        parts.append(describe(value, scenario, subject) if describe is not None else f"{key}={value}")
    return ", ".join(parts)


def unit_list(units: Sequence[Any]) -> str:
    return ", ".join(f"{u.name} ({u.uid})" for u in units) if units else "none"


def state_matches(expected: Mapping[str, Any], values: Mapping[str, Any]) -> bool:
    for key, want in expected.items():
        allowed = as_list(want)
        got = values.get(key)
        if got not in allowed and str(got) not in [str(a) for a in allowed]:
            return False
    return True


def old_new_state(state: GameView, event: RuleEvent) -> tuple[dict[str, Any], dict[str, Any]]:
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
Finding = tuple[object, Callable[[RuleEvent], Violation]]
#: the findings of some hexes, by a key naming the finding
Findings = dict[Hashable, Finding]


class SettleRule(Rule):
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
        def findings_in(self, state: GameView, hex_id: str) -> Findings:
            """The findings of one hex, which depend only on what is in that hex
            (its pieces, their order, faces and layers): each subclass says."""
            ...

    def findings(self, state: GameView) -> Findings:
        """The findings of every occupied hex."""
        out: Findings = {}
        for hex_id in sorted({u.hex for u in state.units() if u.hex is not None}):
            out.update(self.findings_in(state, hex_id))
        return out

    def _judge_changed(self, state: GameView, hexes: set[str]) -> Findings:
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
        stack = state.stack
        for hex_id in sorted(hexes) if len(hexes) > 1 else hexes:
            if stack(hex_id):
                here = self.findings_in(state, hex_id)
                if here:
                    hex_keys[hex_id] = tuple(here)
                    fresh.update(here)
        if fresh:
            found.update(fresh)
        return fresh

    def idle(self, state: GameView) -> bool:
        """Whether a check now would find nothing and remember nothing: no hex
        changed since the last settle point it judged (see ``Engine.skips``)."""
        return bool(self.__dict__.get("_mark", 0) == state.change_mark()) and \
            not self.__dict__.get("_deferred", False)   # (a side's findings waiting for a check that judges it)

    def check(self, state: GameView, event: RuleEvent) -> Iterable[Violation]:
        if event.kind == "setup_end":
            self._note_start(state)
            return []
        if event.kind not in self.subscribes:
            return []
        if self.check_in and state.phase not in self.check_in:
            return []                     # not a settle point of this rule: what changed is judged later
        # only hexes whose content changed since the last settle point can
        # have new findings; the others' are already open (reported)
        mark, hexes = state.changed_since(self.__dict__.get("_mark", 0))
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

    def _judged_sides(self, state: GameView) -> frozenset[str | None] | None:
        """The sides whose findings this check reports (``applies_to``;
        None: every side's)."""
        applies = getattr(self.ctx, "applies_to", "all")
        if applies == "phasing":
            return frozenset({state.phasing_side}) if state.phasing_side is not None else None
        if applies == "moved":
            counts = dict(state.side_moves())
            before: dict[str | None, int] = self.__dict__.get("_side_counts", {})
            self._side_counts = counts
            return frozenset(s for s, n in counts.items() if n != before.get(s, 0))
        return None

    @staticmethod
    def _of_sides(state: GameView, key: Hashable, sig: object, sides: frozenset[str | None]) -> bool:
        """Whether a finding (its key and signature name its units) is of
        one of ``sides``: a unit it names is of one, or its key names one."""
        named = [x for part in (key, sig) if isinstance(part, tuple) for x in part] + [key, sig]
        found = False
        for x in named:
            if isinstance(x, str) and x in state.unit_places():
                found = True
                if state.unit(x).side in sides:
                    return True
        if not found:
            # (a finding of no unit, such as a side's stack: the side in its key)
            return any(isinstance(x, str) and x in sides for x in named)
        return False

    def _note_start(self, state: GameView) -> None:
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


def during_applies(during: Any, state: GameView, unit: UnitView) -> bool:
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


def during_text(during: Any, scenario: Scenario) -> str:
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
        return "in the " + join_names([phase_name(scenario, p) for p in phases]) if phases else "at any time"
    return "in the " + join_names([phase_name(scenario, p) for p in as_list(during)])
