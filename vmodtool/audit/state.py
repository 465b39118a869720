"""The game as the rules checker sees it: scenario units (not VASSAL
pieces) in hexes and boxes, with their face, status layers and the marker
counters around them, plus the clock (turn, phase, phasing side,
activation).

:class:`AuditState` is mutable and driven by the engine; rules only read it
through the :class:`~vmodtool.audit.api.GameView` methods.  ``copy()`` gives
an independent snapshot (start of turn, phase, activation; undo).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from vmodtool.scenario.model import HexMap, Scenario

__all__ = ["AuditState", "UnitState", "MarkerState", "Unit", "Marker", "Entered", "HAND_PREFIX"]

#: a hand as a place of the audit (``to_box``/``from_box`` of card events):
#: ``hand:<side id>``
HAND_PREFIX = "hand:"

#: when a unit last entered the map: (turn, activation count of the game)
Entered = tuple[int | None, int]


class UnitState:
    """Where a unit is and what it shows.  Setting any field drops the
    unit's cached view (:meth:`AuditState.unit`); setting its face or
    layers records its hex as changed in the owning state's log."""

    __slots__ = ("uid", "hex", "box", "face", "layers", "present", "entered", "_view", "_log")

    #: (the marker version of its hex, the view) built by :meth:`AuditState.unit`
    _view: tuple[int | None, Unit] | None
    #: the owning state's log of changed hexes
    _log: list[str] | None

    def __init__(self, uid: str, hex: str | None = None, box: str | None = None,
                 face: int = 0, layers: frozenset[str] = frozenset(), present: bool = True,
                 entered: Entered | None = None, log: list[str] | None = None) -> None:
        object.__setattr__(self, "_log", None)
        self.uid = uid
        self.hex = hex
        self.box = box
        self.face = face                # index into the unit type's faces
        self.layers = frozenset(layers)  # active layer-type markers
        self.present = present          # False once removed from the game
        self.entered = entered          # (turn, activation count) when it last entered the map
        object.__setattr__(self, "_log", log)

    def clone(self, log: list[str] | None) -> UnitState:
        """A copy logging into ``log`` (another state's); it keeps the cached
        view, which shows what the copy shows (views are immutable)."""
        dup = UnitState.__new__(UnitState)
        put = object.__setattr__
        put(dup, "uid", self.uid)
        put(dup, "hex", self.hex)
        put(dup, "box", self.box)
        put(dup, "face", self.face)
        put(dup, "layers", self.layers)
        put(dup, "present", self.present)
        put(dup, "entered", self.entered)
        put(dup, "_view", self._view)
        put(dup, "_log", log)
        return dup

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        object.__setattr__(self, "_view", None)
        if name in _SHOWN and self._log is not None and self.hex is not None:
            self._log.append(self.hex)

    def __repr__(self) -> str:
        return (f"UnitState({self.uid!r}, hex={self.hex!r}, box={self.box!r}, face={self.face}, "
                f"layers={set(self.layers)!r}, present={self.present})")


#: the fields of a unit that its hex shows (a change is a change of the hex)
_SHOWN = frozenset({"face", "layers"})


@dataclass
class MarkerState:
    """Where a marker counter is and what kind it is: the mutable record
    :class:`AuditState` keeps, shown to rules as a :class:`Marker`."""

    key: str                        # the VASSAL piece id (stable for the game)
    kind: str
    hex: str | None = None
    box: str | None = None
    space: int | None = None     # on a track (``box`` is its id): its space, 1 = the first


class Unit(NamedTuple):
    """Read-only view of a unit (:class:`~vmodtool.audit.api.UnitView`); a
    named tuple, as the audit builds one each time a unit moves."""

    uid: str
    label: str
    name: str
    type: str
    tags: frozenset[str]
    side: str
    formation: str | None
    hex: str | None
    box: str | None
    face: str
    state: Mapping[str, Any]
    factors: Mapping[str, Any]
    markers: frozenset[str]
    on_map: bool
    serves: frozenset[str]
    steps: int
    movement_class: str | None
    entered: Entered | None

    def describe(self) -> str:
        return f"{self.name} ({self.uid})"


@dataclass(frozen=True)
class Marker:
    """Read-only view of a marker counter
    (:class:`~vmodtool.audit.api.MarkerView`): a copy of its
    :class:`MarkerState` made when a rule asks."""

    key: str
    kind: str
    hex: str | None
    box: str | None
    space: int | None = None     # on a track: its space, 1 = the track's first

    @property
    def on_map(self) -> bool:
        return self.hex is not None


#: what a unit's view holds that never changes: label, name, type, tags,
#: side, formation, serves, steps, movement class, faces
_Fixed = tuple[str, str, str, frozenset[str], str, "str | None", frozenset[str], int, "str | None",
               tuple[Any, ...]]


class AuditState:
    """Units, markers, stacks and the clock of an audited game."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        #: the map the rules read terrain from: the scenario's, with the
        #: terrain of ``binding.terrain`` pieces laid over it (vmodtool.audit.terrain)
        self.terrain_map: HexMap = scenario.map
        self.units_state: dict[str, UnitState] = {}
        self.markers_state: dict[str, MarkerState] = {}
        self.stacks: dict[str, list[str]] = {}      # hex -> unit ids / marker keys, bottom -> top
        self.turn: int | None = None
        self.phase: str | None = None
        self.phasing_side: str | None = None
        self.active_formation: str | None = None
        self.activation_count = 0
        self.activations: dict[tuple[int | None, str | None], int] = {}     # (turn, formation) -> count
        self.step = 0
        self.time_inferred = False
        self._snapshots: dict[str, AuditState] = {}
        #: per hex, a count bumped whenever a marker counter enters or leaves it
        #: (a unit's view lists the markers in its hex)
        self._marker_version: dict[str | None, int] = {}
        #: hexes whose content (pieces, their order, faces, layers) changed, in
        #: order, duplicates allowed; settle-point rules read it from where they
        #: stopped (see :meth:`changed_since`)
        self.changed: list[str] = []
        self._log_base = 0              # marks of a copy go on from its original's
        self._types = scenario.unit_types
        self._counters = {c.id: c for c in scenario.counters}
        #: unit id -> what its view holds that never changes (shared by copies)
        self._fixed_views: dict[str, _Fixed] = {}
        #: side -> how many times a unit of that side was placed or removed;
        #: with :attr:`_token` (new in every copy) it says whether the
        #: positions of some sides changed since a rule last looked
        self._side_moves: dict[str | None, int] = {}
        self._all_moves = 0
        self._token = object()
        #: cards (``docs/seed-rules.md`` §4.10): side -> the scenario card ids
        #: in its hand (in the order they came), deck id -> how many cards it
        #: holds (known from the deck's last event), card id -> where it is
        #: (a deck id, ``hand:<side>``, a hex or a box; None: nowhere known)
        self.hands: dict[str, list[str]] = {}
        self.deck_sizes: dict[str, int] = {}
        self.card_places: dict[str, str | None] = {}

    # -- copies ------------------------------------------------------------------
    def copy(self) -> AuditState:
        """An independent copy (the scenario and its tables are shared).
        Written out field by field: ``copy.deepcopy`` was the audit's
        hottest path (a snapshot at every turn, phase and activation start)."""
        dup = AuditState.__new__(AuditState)
        dup.__dict__.update(self.__dict__)
        dup.changed = []
        dup._log_base = self._log_base + len(self.changed)
        log = dup.changed
        dup.units_state = {uid: u.clone(log) for uid, u in self.units_state.items()}
        dup.markers_state = {k: MarkerState(m.key, m.kind, m.hex, m.box, m.space)
                             for k, m in self.markers_state.items()}
        dup.stacks = {h: list(keys) for h, keys in self.stacks.items()}
        dup.activations = dict(self.activations)
        dup._marker_version = dict(self._marker_version)
        dup._side_moves = dict(self._side_moves)
        dup.hands = {side: list(cards) for side, cards in self.hands.items()}
        dup.deck_sizes = dict(self.deck_sizes)
        dup.card_places = dict(self.card_places)
        dup._token = object()
        dup._snapshots = {}          # a copy never carries older snapshots (no chain kept alive)
        return dup

    def take_snapshot(self, point: str) -> None:
        self._snapshots[point] = self.copy()

    def drop_snapshot(self, point: str) -> None:
        """No copy at this point (no rule reads it): :meth:`snapshot` answers
        None until the next one, never an older point's."""
        self._snapshots.pop(point, None)

    def snapshot(self, point: str) -> AuditState | None:
        return self._snapshots.get(point)

    # -- views -------------------------------------------------------------------
    def unit(self, uid: str) -> Unit:
        """The view of a unit, built once and kept until something it shows
        changes: a field of its :class:`UnitState` (which drops it) or the
        marker counters in its hex (``_marker_version``)."""
        s = self.units_state[uid]
        cached = s._view
        if cached is not None and cached[0] == self._marker_version.get(s.hex):
            return cached[1]
        view = self._build_unit(uid, s)
        object.__setattr__(s, "_view", (self._marker_version.get(s.hex), view))
        return view

    def _build_unit(self, uid: str, s: UnitState) -> Unit:
        fixed = self._fixed_views.get(uid)
        if fixed is None:
            fixed = self._fixed(uid)
        label, name, type_id, tags, side, formation, serves, steps, movement_class, faces = fixed
        face = faces[min(s.face, len(faces) - 1)]
        hex_id = s.hex
        markers = s.layers
        if hex_id is not None:
            kinds = [m.kind for m in map(self.markers_state.get, self.stacks.get(hex_id, ())) if m is not None]
            if kinds:
                markers = markers.union(kinds)
        return Unit(uid, label, name, type_id, tags, side, formation, hex_id, s.box, face.name, face.state,
                    face.factors, markers, hex_id is not None and s.present, serves, steps, movement_class,
                    s.entered)

    def _fixed(self, uid: str) -> _Fixed:
        """What a unit's view holds that never changes (its counter and type)."""
        counter = self._counters[uid]
        utype = self._types[counter.type]
        name = f"{counter.label} {utype.name}" if counter.label else utype.name
        fixed = self._fixed_views[uid] = (counter.label or uid, name, utype.id, utype.tags, counter.side,
                                          counter.formation, frozenset(utype.serves), utype.steps,
                                          utype.movement_class, tuple(utype.faces))
        return fixed

    def units(self) -> list[Unit]:
        return [self.unit(uid) for uid, s in self.units_state.items() if s.present]

    def units_in(self, hex_id: str) -> list[Unit]:
        keys = self.stacks.get(hex_id)
        if not keys:
            return []
        # (:meth:`unit` inlined: the settle-point kinds list a hex at every change)
        units_state = self.units_state
        versions = self._marker_version
        out: list[Unit] = []
        for k in keys:
            s = units_state.get(k)
            if s is None:
                continue                # (a marker)
            cached = s._view
            version = versions.get(s.hex)
            if cached is not None and cached[0] == version:
                out.append(cached[1])
                continue
            view = self._build_unit(k, s)
            object.__setattr__(s, "_view", (version, view))
            out.append(view)
        return out

    def unit_places(self) -> Mapping[str, UnitState]:
        """Every unit seen so far, by id: where it is, without its view (not
        copied: read it, never change it)."""
        return self.units_state

    def marker_places(self) -> Mapping[str, MarkerState]:
        """Every marker counter on the board, by piece key (not copied)."""
        return self.markers_state

    def stack(self, hex_id: str) -> Sequence[str]:
        """The unit ids and marker keys in a hex, bottom -> top (not copied)."""
        return self.stacks.get(hex_id, ())

    def change_mark(self) -> int:
        """A mark for :meth:`changed_since` meaning "now"."""
        return self._log_base + len(self.changed)

    def markers_in(self, hex_id: str) -> list[Marker]:
        return [self._marker(k) for k in self.stacks.get(hex_id, ()) if k in self.markers_state]

    def markers(self) -> list[Marker]:
        return [self._marker(k) for k in self.markers_state]

    def _marker(self, key: str) -> Marker:
        m = self.markers_state[key]
        return Marker(m.key, m.kind, m.hex, m.box, m.space)

    def track_position(self, track_id: str, marker_kind: str,
                       side: str | None = None) -> int | None:
        """The space of the one marker of ``marker_kind`` on track
        ``track_id``, counted along the track (1 = its first space, whatever
        the spaces are called); ``None`` when there is none or more than one.
        ``side`` is accepted for plug-ins that name the track's owner (a
        track belongs to one side already)."""
        found = [m.space for m in self.markers_state.values()
                 if m.kind == marker_kind and m.box == track_id and m.space is not None]
        return found[0] if len(found) == 1 else None

    # -- cards -------------------------------------------------------------------
    def hand(self, side: str) -> tuple[str, ...]:
        """The scenario card ids in a side's hand, in the order they came
        (empty for a side without a hand or cards)."""
        return tuple(self.hands.get(side, ()))

    def deck_size(self, deck: str) -> int | None:
        """How many cards a deck (scenario deck id) holds, as its last
        event in the log said; None before any."""
        return self.deck_sizes.get(deck)

    def card_place(self, card: str) -> str | None:
        """Where a card is: a deck id, ``hand:<side>``, a hex or a box
        (None: not known yet)."""
        return self.card_places.get(card)

    def place_card(self, card: str, where: str | None) -> None:
        """Move a card (the engine's): out of the hand it was in, into
        ``where`` (``hand:<side>`` puts it in that side's hand)."""
        old = self.card_places.get(card)
        if old is not None and old.startswith(HAND_PREFIX):
            held = self.hands.get(old[len(HAND_PREFIX):])
            if held is not None and card in held:
                held.remove(card)
        self.card_places[card] = where
        if where is not None and where.startswith(HAND_PREFIX):
            held = self.hands.setdefault(where[len(HAND_PREFIX):], [])
            if card not in held:
                held.append(card)

    def units_in_box(self, box_id: str) -> list[Unit]:
        return [self.unit(uid) for uid, s in self.units_state.items() if s.present and s.box == box_id]

    def occupied_hexes(self) -> list[str]:
        return [h for h, keys in self.stacks.items() if any(k in self.units_state for k in keys)]

    def moves_of_others(self, side: str | None) -> tuple[object, int]:
        """A value that changes whenever a unit of a side other than ``side``
        is placed, moved or removed (and differs between copies of the game)."""
        # all moves minus the side's own: grows exactly when another side moves
        return (self._token, self._all_moves - self._side_moves.get(side, 0))

    def side_moves(self) -> Mapping[str | None, int]:
        """Side -> how many times a unit of that side was placed, moved or
        removed so far (not copied)."""
        return self._side_moves

    def _moved(self, uid: str) -> None:
        counter = self._counters.get(uid)
        side = counter.side if counter is not None else None
        self._side_moves[side] = self._side_moves.get(side, 0) + 1
        self._all_moves += 1

    # -- what changed ----------------------------------------------------------------------
    def changed_since(self, mark: int) -> tuple[int, set[str]]:
        """(new mark, hexes changed since ``mark``): ``mark`` is a position in
        :attr:`changed` a reader got from an earlier call (0 at the start)."""
        changed = self.changed
        base = self._log_base
        end = base + len(changed)
        if mark < base or mark > end:
            # a mark from before this copy was made: every occupied hex counts
            return end, set(self.stacks) | set(changed)
        return end, set(changed[mark - base:])

    def touch(self, hex_id: str | None) -> None:
        """Record a change of what a hex shows (done by every method below)."""
        if hex_id is not None:
            self.changed.append(hex_id)

    # -- changes (the engine's) ----------------------------------------------------------
    def _detach(self, key: str, hex_id: str | None) -> None:
        if hex_id is None:
            return
        keys = self.stacks.get(hex_id)
        if keys is not None and key in keys:
            keys.remove(key)
            if not keys:
                del self.stacks[hex_id]
            self.changed.append(hex_id)

    def place_unit(self, uid: str, hex_id: str | None, box: str | None,
                   order: Sequence[str] | None = None) -> None:
        s = self.units_state.get(uid)
        if s is None:
            s = self.units_state[uid] = UnitState(uid, log=self.changed)
        self._detach(uid, s.hex)
        self._moved(uid)
        was_on_map = s.hex is not None
        # (straight to the fields: the hook's only work for these is
        # dropping the view; a move sets them at every event)
        put = object.__setattr__
        put(s, "hex", hex_id)
        put(s, "box", box)
        put(s, "present", True)
        put(s, "_view", None)
        if hex_id is not None:
            self.stacks.setdefault(hex_id, []).append(uid)
            self.changed.append(hex_id)
            if not was_on_map:
                put(s, "entered", (self.turn, self.activation_count))
        if order is not None and hex_id is not None:
            self.set_order(hex_id, order)

    def set_face_and_layers(self, uid: str, face: int, layers: frozenset[str]) -> None:
        s = self.units_state[uid]
        if s.face != face:
            s.face = face
        if s.layers != layers:
            s.layers = frozenset(layers)

    def remove_unit(self, uid: str) -> None:
        s = self.units_state.get(uid)
        if s is None:
            return
        self._detach(uid, s.hex)
        self._moved(uid)
        s.hex = s.box = None
        s.present = False

    def place_marker(self, key: str, kind: str, hex_id: str | None, box: str | None,
                     space: int | None = None) -> None:
        m = self.markers_state.get(key)
        if m is None:
            m = self.markers_state[key] = MarkerState(key, kind)
        old = m.hex
        self._detach(key, old)
        m.hex, m.box, m.space = hex_id, box, space
        if hex_id is not None:
            self.stacks.setdefault(hex_id, []).append(key)
            self.changed.append(hex_id)
        versions = self._marker_version
        for h in (old, hex_id):
            if h is not None:
                versions[h] = versions.get(h, 0) + 1

    def remove_marker(self, key: str) -> None:
        m = self.markers_state.pop(key, None)
        if m is not None and m.hex is not None:
            self._detach(key, m.hex)
            self._marker_version[m.hex] = self._marker_version.get(m.hex, 0) + 1

    def set_order(self, hex_id: str, order: Sequence[str]) -> None:
        """Reorder a hex's pieces (bottom → top); keys not listed keep their
        relative order below the listed ones."""
        keys = self.stacks.get(hex_id, [])
        listed = [k for k in order if k in keys]
        rest = [k for k in keys if k not in listed]
        if rest + listed != keys:
            self.stacks[hex_id] = rest + listed
            self.changed.append(hex_id)
