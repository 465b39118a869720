"""The game as the audit sees it: VASSAL pieces bound to scenario units,
markers, terrain and cards, VASSAL places read as hexes and boxes, and the
:class:`~vmodtool.audit.state.AuditState` the rules read
(``docs/seed-rules.md`` §4.2–§4.5).

Identity: which piece is which unit, marker, side is the scenario's
binding (:mod:`vmodtool.audit.binding`; a module built by vmodtool is bound
by the ``UnitId``/``MarkerKind`` properties it writes, the binding that
scenario implies, §3.13), decided once per VASSAL piece id.  Place: on the
scenario's map a piece is in the hex VASSAL names; on the off-map window or
a module window bound to a box, in that box (or track space).  Face and
status layers: the layers the binding names.  Other pieces are ignored (and
counted once).

:class:`BoundGame` holds what is bound and where each unit stands; it
neither replays nor judges: :mod:`vmodtool.audit.game` reads the replay
into it, :mod:`vmodtool.audit.judge` judges its steps.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, NamedTuple

from vmodtool.audit.binding import PieceBinder
from vmodtool.audit.card_feed import CardFeed, CardTable
from vmodtool.audit.coverage import where_label
from vmodtool.audit.state import AuditState
from vmodtool.audit.terrain import PieceTerrain
from vmodtool.audit.timeline import Clock, ClockChange
from vmodtool.audit.windows import Windows
from vmodtool.replay.events import PieceRef, Place
from vmodtool.scenario.geometry import scenario_turn_trackers
from vmodtool.scenario.model import Scenario
from vmodtool.vassal.turntracker import TurnTrackerDef, turn_trackers

if TYPE_CHECKING:
    from vmodtool.replay.game import Replay, Step
    from vmodtool.replay.visitor import BoardView
    from vmodtool.vassal.module import Module

__all__ = ["BoundGame", "Initial"]


class BoundGame:
    """One game's pieces bound to the scenario, and the audit state they
    make: what the replay pass (:class:`~vmodtool.audit.game.GameReader`)
    fills and the judging pass (:class:`~vmodtool.audit.judge.StepJudge`)
    moves forward."""

    def __init__(self, scenario: Scenario, replay: Replay, module: Module | None = None) -> None:
        self.replay = replay
        self.binder = PieceBinder(scenario, module)
        self.piece_unit: dict[str, str] = {}      # VASSAL piece id -> scenario unit id
        self.unit_piece: dict[str, str] = {}      # scenario unit id -> (the last) VASSAL piece id
        self.piece_marker: dict[str, str] = {}    # VASSAL piece id -> marker kind
        self.unknown_pieces: set[str] = set()
        self.unknown_ids: set[str] = set()        # VASSAL piece ids of those pieces
        self.ignored_ids: set[str] = set()        # pieces the binding ignores on purpose
        #: no false clean: unit id -> where it stood on a map in a place that
        #: is neither a location of the scenario's map nor a box (the last
        #: such place; no rule looked at it there: see :func:`unjudged_reason`)
        self.unjudged: dict[str, str] = {}
        #: units that stood on another map window of the scenario (``maps``)
        #: where it names no location: kept in ``unjudged`` though they come
        #: back to the main map
        self.stood_on_other_window: set[str] = set()
        self.other_windows = frozenset(m.name for m in scenario.maps)
        #: unit id -> the last location of a window of ``maps`` it stood on
        #: (the rules of kinds that read ``map`` only are NOT CHECKED for it:
        #: :func:`vmodtool.audit.windows.window_reasons`)
        self.on_windows: dict[str, str] = {}
        #: the maps the log's pieces and boards are on, collected only when
        #: set (not None): for a log without moduledata (see audit_logs)
        self.log_maps: set[str] | None = None
        #: the steps judged so far
        self.steps = 0
        self.rank: dict[str, tuple[str, int]] = {}   # VASSAL piece id -> (stack key, index)
        #: every step of the game, as the replay pass recorded them
        self._steps: list[Step] = []
        self._initial: Initial | None = None
        #: the scenario's cards, decks and hands (§4.10; empty without them)
        self.cards = CardTable(scenario)
        #: the game's terrain pieces (``binding.terrain``; None without)
        self.terrain: PieceTerrain | None = (
            PieceTerrain(scenario.map, self._board_point) if scenario.binding.terrain else None)
        self._use(scenario)

    def _use(self, scenario: Scenario) -> None:
        """Take the scenario (the one given, or with the game's bound units)."""
        self.scenario = scenario
        self.clock = Clock(scenario)
        self.state = AuditState(scenario)
        self.faces = {c.id: [f.name for f in scenario.unit_type_of(c).faces]
                      for c in scenario.counters}
        self.counter_names = {c.id: c.label or "" for c in scenario.counters}
        self.layer_kinds = [k.id for k in scenario.markers.values() if k.representation == "layer"]
        self.box_by_zone = {b.name: b.id for b in scenario.boxes if b.module_map is None}
        self.box_by_zone.update({b.id: b.id for b in scenario.boxes if b.module_map is None})
        #: boxes that are module windows or zones: (map, zone or None) -> box id
        self.box_by_place = {(b.module_map, b.module_zone): b.id for b in scenario.boxes if b.module_map}
        #: holding boxes bound to a whole module window: box id -> the names
        #: that mean the box itself (its name, the window's)
        self.whole_window_box = {b.id: (b.name, b.module_map) for b in scenario.boxes
                                 if b.module_map and b.module_zone is None and b.role == "holding"}
        self.track_space: dict[str, int] = {}     # zone of a track space -> 1, 2, … along it
        for track in scenario.tracks:
            for i, space in enumerate(track.spaces, 1):
                self.box_by_zone[f"{track.name} {space}"] = track.id
                self.track_space[f"{track.name} {space}"] = i
        self.side_ids = {s.name: s.id for s in scenario.game.sides}
        self.side_ids.update({s.id: s.id for s in scenario.game.sides})
        self.drawn_boxes = {p.activation.drawn: p.id for p in (scenario.turns.phases if scenario.turns else ())
                            if p.activation is not None and p.activation.drawn}
        self.trackers = self._trackers()
        self.map_name = scenario.map.name
        self.hexes = scenario.map.grid.hexes          # label -> raw cell: membership only
        #: the windows of ``maps``: their locations are rules' locations too (issue 46)
        self.windows = Windows(scenario)
        #: an area map's spaces: locations of the map as hexes are (issue 42);
        #: the spaces of a zone bound to a box are that box's
        self.spaces, self.box_by_space = _area_places(scenario)
        self.card_feed = CardFeed(self.cards, self.place) if self.cards else None

    def _trackers(self) -> dict[str, TurnTrackerDef]:
        """The module's turn trackers by command id (only the one named
        ``log.turn_tracker.component`` when the module has it); with the
        scenario's maps standing for the module (:func:`scenario_positions`),
        the tracker ``vmodtool build`` writes."""
        positions = self.replay.positions
        buildfile = getattr(getattr(positions, "module", None), "buildfile", None)
        if buildfile is not None:
            found = turn_trackers(buildfile)
        elif getattr(positions, "has_module", False):
            found = scenario_turn_trackers(self.scenario)
        else:
            return {}
        named = {k: t for k, t in found.items() if t.name == self.clock.tracker_name}
        return named or found

    def tracker_time(self, tracker_id: str, state: str | None) -> ClockChange | None:
        tracker = self.trackers.get(tracker_id)
        if tracker is None or state is None:
            return None
        return self.clock.tracker_time(tracker.active_levels(state))

    # -- places ---------------------------------------------------------------------
    def place(self, place: Place | None) -> tuple[str | None, str | None]:
        """(hex, box) of a replay Place."""
        if place is None or place.map is None:
            return None, None
        if place.map == self.map_name:
            loc = place.location
            if loc in self.hexes or loc in self.spaces:
                return loc, None
            if loc in self.box_by_space:
                return None, self.box_by_space[loc]
            box = self.box_by_place.get((place.map, loc)) if self.box_by_place else None
            return None, box
        if self.windows:
            location = self.windows.location(place.map, place.location)
            if location is not None:
                return location, None
        if place.location in self.box_by_zone:
            return None, self.box_by_zone[place.location]
        if self.box_by_place:
            box = self.box_by_place.get((place.map, place.location)) or self.box_by_place.get((place.map, None))
            return None, box
        return None, None

    def _board_point(self, map_name: str | None, x: int, y: int) -> tuple[int, int] | None:
        """The scenario map's board point of a map point (None: not on it)."""
        if map_name != self.map_name:
            return None
        geometry = self.replay.positions.geometry(map_name)
        found = geometry.to_board(x, y) if geometry is not None else None
        return (found[1][0], found[1][1]) if found is not None else None

    def terrain_moved(self, pid: str, where: Place | None) -> None:
        """A terrain piece is now at ``where`` (None: gone): the map the
        rules read terrain from follows."""
        terrain = self.terrain
        assert terrain is not None
        # (terrain lies on the scenario's map only)
        hex_id = self.place(where)[0] if where is not None and where.map == self.map_name else None
        changed = (terrain.place(pid, hex_id, where.map, where.x, where.y) if where is not None
                   else terrain.remove(pid))
        if changed:
            self.state.terrain_map = terrain.current

    def note_place(self, uid: str, where: Place | None, hex_id: str | None, box: str | None) -> None:
        """No false clean: remember a unit put where no rule can look at it
        (:mod:`vmodtool.audit.coverage`): on a map but in no location of the
        scenario's map and no box; or in a holding box that stands for a
        whole window whose grid names the place otherwise (a main map taken
        as one box "Map": its units are in Belfort or Nancy, not in "Map")."""
        if hex_id is not None or where is None or where.map is None:
            if uid not in self.stood_on_other_window:
                self.unjudged.pop(uid, None)
            if hex_id is not None and where is not None and where.map in self.other_windows:
                self.on_windows[uid] = hex_id
            return
        if box is None:
            self.unjudged[uid] = where_label(where)
            if where.map in self.other_windows:
                # a window no rule reads (``maps``): what it did there stays unjudged when it comes back
                self.stood_on_other_window.add(uid)
            return
        window = self.whole_window_box.get(box)
        loc = where.location
        if window is not None and loc != "offboard" and loc not in window:   # (None: a place not named)
            self.unjudged[uid] = where_label(where)
        else:
            self.unjudged.pop(uid, None)

    def space(self, place: Place | None) -> int | None:
        """Which space (1 = the first) of a track a replay Place is in (None
        off tracks)."""
        if place is None or place.map is None or place.map == self.map_name or place.location is None:
            return None
        return self.track_space.get(place.location)

    def identify(self, ref: PieceRef) -> tuple[str | None, str | None]:
        """(unit id, marker kind) of a piece reference (a piece the replay
        registered: it has an id), bound the first time it is seen."""
        pid = ref.id
        if pid is None:
            return None, None
        if pid in self.piece_unit:
            return self.piece_unit[pid], None
        if pid in self.piece_marker:
            return None, self.piece_marker[pid]
        if pid in self.unknown_ids or pid in self.ignored_ids:
            return None, None
        if self.cards and self.cards.card_of(ref) is not None:
            self.ignored_ids.add(pid)           # a card: followed by the card events, never a unit
            return None, None
        bound = self.binder.bind(ref)
        if (bound.terrain is not None or bound.hexside is not None) and self.terrain is not None:
            self.terrain.bind(pid, bound.terrain, bound.hexside)
            self.ignored_ids.add(pid)             # no unit, no marker: its terrain follows it
            return None, None
        if bound.unit is not None:
            self.piece_unit[pid] = bound.unit
            self.unit_piece[bound.unit] = pid
            return bound.unit, None
        if bound.marker is not None:
            self.piece_marker[pid] = bound.marker
            return None, bound.marker
        if bound.ignored:
            self.ignored_ids.add(pid)
        else:
            self.unknown_pieces.add(ref.name)
            self.unknown_ids.add(pid)
        return None, None

    # -- initial state ------------------------------------------------------------------------
    def keep_initial(self, initial: BoardView) -> None:
        """The first log's saved state (before step 1), as the replay
        restored it (applied by :meth:`load_initial` once every piece is
        bound); its pieces are bound now, in their order."""
        pieces = [(p.ref, p.place, (p.stack, p.stack_index)) for p in initial.pieces()]
        self._initial = Initial(pieces, set(initial.boards), dict(initial.turns))
        for ref, _, _ in pieces:
            self.identify(ref)

    def load_initial(self) -> None:
        initial = self._initial
        if initial is None:
            return
        order: dict[str, tuple[str, int]] = {}
        maps = self.log_maps
        if maps is not None:
            maps.update(initial.boards)
        feed = self.card_feed
        for ref, where, rank in initial.pieces:
            uid, kind = self.identify(ref)
            if maps is not None and where.map is not None:
                maps.add(where.map)
            if uid is None and kind is None:
                if self.terrain is not None and ref.id in self.terrain.kinds:
                    self.terrain_moved(ref.id, where)
                elif feed is not None:
                    feed.initial(self.state, ref, where)
                continue
            hex_id, box = self.place(where)
            self.rank[ref.id or ""] = rank
            if uid is not None:
                self.state.place_unit(uid, hex_id, box)
                self.note_place(uid, where, hex_id, box)
                self.set_face_and_layers(uid, ref)
                order[uid] = rank
            elif kind is not None and ref.id is not None:    # (a marker: identified by its id)
                self.state.place_marker(ref.id, kind, hex_id, box, self.space(where))
                order[ref.id] = rank
        for keys in self.state.stacks.values():
            keys.sort(key=lambda k: order.get(k, ("", 0)))
        # the time the saved game stands at (the log starts inside it: no
        # turn or phase start is announced for it)
        for tracker_id, tracker_state in sorted(initial.turns.items()):
            change = self.tracker_time(tracker_id, tracker_state)
            if change is not None:
                st = self.state
                st.turn = change.turn if change.turn is not None else st.turn
                st.phase = change.phase if change.phase is not None else st.phase
                st.phasing_side = change.side if change.side is not None else st.phasing_side

    def set_face_and_layers(self, uid: str, ref: PieceRef) -> None:
        """Face and status layers of a unit from its piece (a replay
        :class:`~vmodtool.replay.events.PieceRef`), as the binding reads them."""
        s = self.state.units_state[uid]
        face, layers = self.binder.shown(ref, len(self.faces[uid]), s.face)
        self.state.set_face_and_layers(uid, face, layers)

    def sync_order(self, step: Step, hexes: Iterable[str]) -> None:
        """Stack order (bottom → top) of hexes after ``step``, from the
        stacks the replay recorded with it (a piece keeps its place in a
        stack the step did not touch)."""
        rank = self.rank
        for key, members in step.stacks.items():
            for i, pid in enumerate(members):
                rank[pid] = (key, i)
        unit_piece = self.unit_piece
        stacks = self.state.stacks

        def place_in_stack(key: str) -> tuple[str, int]:
            return rank.get(unit_piece.get(key, key), ("", 0))
        for hex_id in set(hexes):
            keys = stacks.get(hex_id)
            if not keys or len(keys) < 2:
                continue
            ordered = sorted(keys, key=place_in_stack)
            if ordered != keys:
                stacks[hex_id] = ordered
                self.state.touch(hex_id)

    def other_moved(self, ref: PieceRef, where: Place | None) -> None:
        """A piece that is no unit and no marker moved, was added or
        (``where`` None) removed: a terrain piece's terrain follows it, a
        card moved as a plain piece is where it lies now."""
        if self.terrain is not None and ref.id in self.terrain.kinds:
            self.terrain_moved(ref.id, where)
        elif self.card_feed is not None:
            self.card_feed.moved(self.state, ref, where)

    # -- the whole game --------------------------------------------------------------------------
    def bind_new_units(self) -> Scenario:
        """The scenario with the game's units, once every piece of the game
        is bound (the one given when the binding made no new unit)."""
        new = self.binder.new_counters
        if new:
            self._use(replace(self.scenario, counters=self.scenario.counters + tuple(new)))
        return self.scenario

    def unit_name(self, uid: str) -> str:
        """``name (id)`` of a unit of the game, for the report."""
        counter = self.counter_names.get(uid)
        return f"{counter} ({uid})" if counter and counter != uid else uid

    @property
    def replayed_steps(self) -> list[Step]:
        """Every step of the game, as the replay pass recorded them."""
        return self._steps



def _area_places(scenario: Scenario) -> tuple[set[str], dict[str, str]]:
    """The spaces of the scenario's area map that are locations, and space →
    box id for the spaces in a zone of that map bound to a box (a reserve
    box of regions is one box)."""
    areas = scenario.map.areas
    if areas is None:
        return set(), {}
    zone_box = {b.module_zone: b.id for b in scenario.boxes
                if b.module_map == scenario.map.name and b.module_zone is not None}
    boxed = {name: zone_box[s.zone] for name, s in areas.spaces.items() if s.zone in zone_box}
    return {name for name in areas.spaces if name not in boxed}, boxed


class Initial(NamedTuple):
    """A restored save before step 1: its pieces (with where they are and
    their place in their stack), its boards and turn trackers' states."""

    pieces: list[tuple[PieceRef, Place, tuple[str, int]]]
    boards: set[str]
    turns: dict[str, str]

