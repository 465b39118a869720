"""The game as the rules checker sees it: scenario units (not VASSAL
pieces) in hexes and boxes, with their face, status layers and the marker
counters around them, plus the clock (turn, phase, phasing side,
activation).

:class:`AuditState` is mutable and driven by the engine; rules only read it
through the :class:`~vmodtool.audit.api.GameView` methods.  ``copy()`` gives
an independent snapshot (start of turn, phase, activation; undo).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, FrozenSet, List, Mapping, Optional, Sequence, Set

from vmodtool.scenario.model import Scenario

__all__ = ["AuditState", "UnitState", "MarkerState", "Unit", "Marker"]


@dataclass
class UnitState:
    uid: str
    hex: Optional[str] = None
    box: Optional[str] = None
    face: int = 0                   # index into the unit type's faces
    layers: Set[str] = field(default_factory=set)   # active layer-type markers
    present: bool = True            # False once removed from the game
    entered: Optional[tuple] = None  # (turn, activation count) when it last entered the map


@dataclass
class MarkerState:
    key: str                        # the VASSAL piece id (stable for the game)
    kind: str
    hex: Optional[str] = None
    box: Optional[str] = None


@dataclass(frozen=True)
class Unit:
    """Read-only view of a unit (:class:`~vmodtool.audit.api.UnitView`)."""

    uid: str
    label: str
    name: str
    type: str
    tags: FrozenSet[str]
    side: str
    formation: Optional[str]
    hex: Optional[str]
    box: Optional[str]
    face: str
    state: Mapping[str, Any]
    factors: Mapping[str, Any]
    markers: FrozenSet[str]
    on_map: bool
    serves: FrozenSet[str]
    steps: int
    movement_class: Optional[str]
    entered: Optional[tuple]

    def describe(self) -> str:
        return f"{self.name} ({self.uid})"


@dataclass(frozen=True)
class Marker:
    key: str
    kind: str
    hex: Optional[str]
    box: Optional[str]

    @property
    def on_map(self) -> bool:
        return self.hex is not None


class AuditState:
    """Units, markers, stacks and the clock of an audited game."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.units_state: Dict[str, UnitState] = {}
        self.markers_state: Dict[str, MarkerState] = {}
        self.stacks: Dict[str, List[str]] = {}      # hex -> unit ids / marker keys, bottom -> top
        self.turn: Optional[int] = None
        self.phase: Optional[str] = None
        self.phasing_side: Optional[str] = None
        self.active_formation: Optional[str] = None
        self.activation_count = 0
        self.activations: Dict[tuple, int] = {}     # (turn, formation) -> count
        self.step = 0
        self.time_inferred = False
        self._snapshots: Dict[str, "AuditState"] = {}
        self._event_views: Optional[Dict[str, Unit]] = None   # see :meth:`judging`
        self._types = scenario.unit_types
        self._counters = {c.id: c for c in scenario.counters}

    # -- copies ------------------------------------------------------------------
    def copy(self) -> "AuditState":
        """An independent copy (the scenario and its tables are shared).
        Written out field by field: ``copy.deepcopy`` was the audit's
        hottest path (a snapshot at every turn, phase and activation start)."""
        dup = AuditState.__new__(AuditState)
        dup.__dict__.update(self.__dict__)
        dup.__dict__.pop("_views", None)
        dup._event_views = None
        dup.units_state = {uid: UnitState(u.uid, u.hex, u.box, u.face, set(u.layers), u.present,
                                          u.entered)
                           for uid, u in self.units_state.items()}
        dup.markers_state = {k: MarkerState(m.key, m.kind, m.hex, m.box)
                             for k, m in self.markers_state.items()}
        dup.stacks = {h: list(keys) for h, keys in self.stacks.items()}
        dup.activations = dict(self.activations)
        dup._snapshots = {}          # a copy never carries older snapshots (no chain kept alive)
        return dup

    def take_snapshot(self, point: str) -> None:
        self._snapshots[point] = self.copy()

    def snapshot(self, point: str) -> Optional["AuditState"]:
        return self._snapshots.get(point)

    # -- views -------------------------------------------------------------------
    def hex_signatures(self) -> Dict[str, tuple]:
        """Per occupied hex, everything a hex's settle-point findings read
        (its pieces bottom → top, each unit's face, status layers and entry,
        each marker's kind): a hex whose signature is unchanged has the same
        findings, so the settle-point kinds judge only the hexes that changed."""
        units, markers = self.units_state, self.markers_state
        out: Dict[str, tuple] = {}
        for hex_id, keys in self.stacks.items():
            sig = []
            for k in keys:
                s = units.get(k)
                if s is not None:
                    sig.append((k, s.box, s.face, frozenset(s.layers), s.present, s.entered))
                else:
                    m = markers.get(k)
                    sig.append((k, m.kind if m is not None else None))
            out[hex_id] = tuple(sig)
        return out

    def judging(self, on: bool) -> None:
        """While the engine hands one event to the rules nothing changes the
        game (rules only read it): views are then computed once per unit for
        all the rules; switched off before the game changes again."""
        self._event_views = {} if on else None

    def unit(self, uid: str) -> Unit:
        memo = self._event_views
        if memo is not None:
            view = memo.get(uid)
            if view is None:
                view = memo[uid] = self._unit(uid)
            return view
        return self._unit(uid)

    def _unit(self, uid: str) -> Unit:
        s = self.units_state[uid]
        # views are cached per unit and rebuilt when anything they show changed
        key = (s.hex, s.box, s.face, frozenset(s.layers), s.present, s.entered,
               tuple(self.stacks.get(s.hex, ())) if s.hex is not None else ())
        cache = self.__dict__.setdefault("_views", {})
        hit = cache.get(uid)
        if hit is not None and hit[0] == key:
            return hit[1]
        view = self._build_unit(uid, s)
        cache[uid] = (key, view)
        return view

    def _build_unit(self, uid: str, s: "UnitState") -> Unit:
        counter = self._counters[uid]
        utype = self._types[counter.type]
        face = utype.faces[min(s.face, len(utype.faces) - 1)]
        markers = set(s.layers)
        if s.hex is not None:
            for key in self.stacks.get(s.hex, ()):
                m = self.markers_state.get(key)
                if m is not None:
                    markers.add(m.kind)
        name = f"{counter.label} {utype.name}" if counter.label else utype.name
        return Unit(uid, counter.label or uid, name, utype.id, utype.tags, counter.side,
                    counter.formation, s.hex, s.box, face.name, face.state, face.factors,
                    frozenset(markers), s.hex is not None and s.present, frozenset(utype.serves),
                    utype.steps, utype.movement_class, s.entered)

    def units(self) -> List[Unit]:
        return [self.unit(uid) for uid, s in self.units_state.items() if s.present]

    def units_in(self, hex_id: str) -> List[Unit]:
        return [self.unit(k) for k in self.stacks.get(hex_id, ()) if k in self.units_state]

    def markers_in(self, hex_id: str) -> List[Marker]:
        return [self._marker(k) for k in self.stacks.get(hex_id, ()) if k in self.markers_state]

    def markers(self) -> List[Marker]:
        return [self._marker(k) for k in self.markers_state]

    def _marker(self, key: str) -> Marker:
        m = self.markers_state[key]
        return Marker(m.key, m.kind, m.hex, m.box)

    def units_in_box(self, box_id: str) -> List[Unit]:
        return [self.unit(uid) for uid, s in self.units_state.items() if s.present and s.box == box_id]

    def occupied_hexes(self) -> List[str]:
        return [h for h, keys in self.stacks.items() if any(k in self.units_state for k in keys)]

    # -- changes (the engine's) ----------------------------------------------------------
    def _detach(self, key: str) -> None:
        for hex_id, keys in list(self.stacks.items()):
            if key in keys:
                keys.remove(key)
                if not keys:
                    del self.stacks[hex_id]

    def place_unit(self, uid: str, hex_id: Optional[str], box: Optional[str],
                   order: Optional[Sequence[str]] = None) -> None:
        s = self.units_state.setdefault(uid, UnitState(uid))
        self._detach(uid)
        was_on_map = s.hex is not None
        s.hex, s.box, s.present = hex_id, box, True
        if hex_id is not None:
            self.stacks.setdefault(hex_id, []).append(uid)
            if not was_on_map:
                s.entered = (self.turn, self.activation_count)
        if order is not None and hex_id is not None:
            self.set_order(hex_id, order)

    def remove_unit(self, uid: str) -> None:
        s = self.units_state.get(uid)
        if s is None:
            return
        self._detach(uid)
        s.hex = s.box = None
        s.present = False

    def place_marker(self, key: str, kind: str, hex_id: Optional[str], box: Optional[str]) -> None:
        m = self.markers_state.setdefault(key, MarkerState(key, kind))
        self._detach(key)
        m.hex, m.box = hex_id, box
        if hex_id is not None:
            self.stacks.setdefault(hex_id, []).append(key)

    def remove_marker(self, key: str) -> None:
        self._detach(key)
        self.markers_state.pop(key, None)

    def set_order(self, hex_id: str, order: Sequence[str]) -> None:
        """Reorder a hex's pieces (bottom → top); keys not listed keep their
        relative order below the listed ones."""
        keys = self.stacks.get(hex_id, [])
        listed = [k for k in order if k in keys]
        rest = [k for k in keys if k not in listed]
        self.stacks[hex_id] = rest + listed
