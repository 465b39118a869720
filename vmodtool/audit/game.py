"""From a replayed log to the rules checker: VASSAL pieces become scenario
units and markers, VASSAL events become audit events, chat reports become
game time (``docs/seed-rules.md`` §4.2–§4.5).

Identity: which piece is which unit, marker, side is the scenario's
binding (:mod:`vmodtool.audit.binding`; a module built by vmodtool is bound
by the ``UnitId``/``MarkerKind`` properties it writes, the binding that
scenario implies, §3.13), decided once per VASSAL piece id.  Place: on the
scenario's map a piece is in the hex VASSAL names; on the off-map window or
a module window bound to a box, in that box (or track space).  Face and
status layers: the layers the binding names.  Other pieces are ignored (and
counted once).

The log is replayed once, whole, before anything is judged: a step's undo
may come any number of steps later, and the steps it reverses are checked
between a checkpoint and a rollback of the rules and reported as withdrawn.
The audit then walks the replayed steps; stack order comes from the stacks
each step recorded (``Step.stacks``), not from a live engine.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from vmodtool.audit.api import EVENT_KINDS, Event
from vmodtool.audit.binding import PieceBinder, read_property
from vmodtool.audit.cards import CARD_EVENT_TYPES, CardFeed, CardTable
from vmodtool.audit.coverage import area_not_judged, unjudged_reasons, where_label
from vmodtool.audit.engine import Engine
from vmodtool.audit.report import AuditReport
from vmodtool.audit.state import AuditState
from vmodtool.audit.terrain import PieceTerrain
from vmodtool.audit.timeline import Clock, ClockChange
from vmodtool.errors import VmodError
from vmodtool.replay import ChangeEvent, ChatEvent, DiceEvent, MoveEvent, Replay
from vmodtool.replay.events import AddEvent, PieceRef, Place, RemoveEvent, TurnEvent
from vmodtool.replay.game import Step, relaxed_gc, stack_key
from vmodtool.replay.positions import Positions
from vmodtool.replay.properties import ModuleProperties
from vmodtool.scenario.binding import FORMATION
from vmodtool.scenario.geometry import (
    scenario_global_properties,
    scenario_hands,
    scenario_maps,
    scenario_turn_trackers,
)
from vmodtool.scenario.model import Scenario
from vmodtool.vassal.decks import HandDef
from vmodtool.vassal.metadata import ModuleMetadata
from vmodtool.vassal.savefile import SavedGame
from vmodtool.vassal.turntracker import TurnTrackerDef, turn_trackers

if TYPE_CHECKING:
    from vmodtool.checkgame.chain import Capture
    from vmodtool.replay.engine import Engine as ReplayEngine
    from vmodtool.vassal.module import Module

__all__ = ["AuditGame", "audit_logs", "open_audit", "OpenedAudit", "scenario_positions", "ScenarioPositions"]

#: the event kinds wanted when a step is replayed without judging it (see AuditGame.run_step)
_NOTHING: frozenset[str] = frozenset()


class ScenarioPositions(NamedTuple):
    """What a replay reads from the module ``vmodtool build`` makes of a
    scenario: its maps (``positions``) and global properties."""

    positions: Positions
    properties: ModuleProperties
    #: the private windows (PlayerHands) the built module has
    hands: tuple[HandDef, ...] = ()


def scenario_positions(scenario: Scenario,
                       board_sizes: dict[str, tuple[int, int]] | None = None) -> ScenarioPositions:
    """The maps, grids, zones and global properties of the module of a
    scenario as ``vmodtool build`` makes it, computed from the scenario
    (:mod:`vmodtool.scenario.geometry`; nothing is built): what positions
    are read with when the user does not give a module.  ``board_sizes``
    overrides a board's size, as it does a module's images."""
    maps = scenario_maps(scenario, board_sizes)
    positions = Positions.from_maps([(m.name, m.geometry) for m in maps],
                                    {m.name: m.stacking for m in maps})
    return ScenarioPositions(positions, ModuleProperties(scenario_global_properties(scenario)),
                             tuple(scenario_hands(scenario)))


class AuditGame:
    """Feeds one replay (a log or a chain) to an :class:`Engine`: first
    :meth:`prepare` (the whole replay, every piece bound), then :meth:`run`."""

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
        #: the maps the log's pieces and boards are on, collected only when
        #: set (not None): for a log without moduledata (see audit_logs)
        self.log_maps: set[str] | None = None
        self.steps = 0
        self.rank: dict[str, tuple[str, int]] = {}   # VASSAL piece id -> (stack key, index)
        self._activation_by: tuple[str | None, str | None] = (None, None)
        self.chit_formation: dict[str | None, str | None] = {}   # VASSAL piece id -> Formation
        self._steps: list[Step] = []
        self._initial: _Initial | None = None
        #: what the integrity check's chain section captures of each log's
        #: start and end while the game is replayed (set before prepare)
        self.capture: Capture | None = None
        #: the scenario's cards, decks and hands (§4.10; empty without them)
        self.cards = CardTable(scenario)
        #: the game's terrain pieces (``binding.terrain``; None without)
        self.terrain: PieceTerrain | None = (
            PieceTerrain(scenario.map, self._board_point) if scenario.binding.terrain else None)
        self._use(scenario)
        self.engine: Engine                        # set by run()
        self._wanted: frozenset[str] = frozenset()  # the event kinds the engine wants (set by run())

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

    def _tracker_time(self, tracker_id: str, state: str | None) -> ClockChange | None:
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

    def _terrain_moved(self, pid: str, where: Place | None) -> None:
        """A terrain piece is now at ``where`` (None: gone): the map the
        rules read terrain from follows."""
        terrain = self.terrain
        assert terrain is not None
        hex_id = self.place(where)[0] if where is not None else None
        changed = (terrain.place(pid, hex_id, where.map, where.x, where.y) if where is not None
                   else terrain.remove(pid))
        if changed:
            self.state.terrain_map = terrain.current

    def _note_place(self, uid: str, where: Place | None, hex_id: str | None, box: str | None) -> None:
        """No false clean: remember a unit put where no rule can look at it
        (:mod:`vmodtool.audit.coverage`): on a map but in no location of the
        scenario's map and no box; or in a holding box that stands for a
        whole window whose grid names the place otherwise (a main map taken
        as one box "Map": its units are in Belfort or Nancy, not in "Map")."""
        if hex_id is not None or where is None or where.map is None:
            self.unjudged.pop(uid, None)
            return
        if box is None:
            self.unjudged[uid] = where_label(where)
            return
        window = self.whole_window_box.get(box)
        loc = where.location
        if window is not None and loc != "offboard" and loc not in window:   # (None: a place not named)
            self.unjudged[uid] = where_label(where)
        else:
            self.unjudged.pop(uid, None)

    def _space(self, place: Place | None) -> int | None:
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
    def capture_initial(self, engine: ReplayEngine) -> None:
        """The first log's saved state (before step 1), read from the replay
        engine right after it restored that file (applied by
        :meth:`load_initial` once every piece is bound)."""
        pieces = []
        for p in engine.state.game_pieces():
            parent = p.parent
            rank = (stack_key(parent), parent.members.index(p)) if parent is not None else (f"@{p.id}", 0)
            pieces.append((engine.ref(p), engine.place_of(p), rank))
        self._initial = _Initial(pieces, set(engine.state.boards), dict(engine.state.turns))

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
                    self._terrain_moved(ref.id, where)
                elif feed is not None:
                    feed.initial(self.state, ref, where)
                continue
            hex_id, box = self.place(where)
            self.rank[ref.id or ""] = rank
            if uid is not None:
                self.state.place_unit(uid, hex_id, box)
                self._note_place(uid, where, hex_id, box)
                self._set_face_and_layers(uid, ref)
                order[uid] = rank
            elif kind is not None and ref.id is not None:    # (a marker: identified by its id)
                self.state.place_marker(ref.id, kind, hex_id, box, self._space(where))
                order[ref.id] = rank
        for keys in self.state.stacks.values():
            keys.sort(key=lambda k: order.get(k, ("", 0)))
        # the time the saved game stands at (the log starts inside it: no
        # turn or phase start is announced for it)
        for tracker_id, tracker_state in sorted(initial.turns.items()):
            change = self._tracker_time(tracker_id, tracker_state)
            if change is not None:
                st = self.state
                st.turn = change.turn if change.turn is not None else st.turn
                st.phase = change.phase if change.phase is not None else st.phase
                st.phasing_side = change.side if change.side is not None else st.phasing_side

    def _set_face_and_layers(self, uid: str, ref: PieceRef) -> None:
        """Face and status layers of a unit from its piece (a replay
        :class:`~vmodtool.replay.events.PieceRef`), as the binding reads them."""
        s = self.state.units_state[uid]
        face, layers = self.binder.shown(ref, len(self.faces[uid]), s.face)
        self.state.set_face_and_layers(uid, face, layers)

    def _sync_order(self, step: Step, hexes: Iterable[str]) -> None:
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

    # -- one step -----------------------------------------------------------------------------
    def _emit(self, event: Event, live: bool) -> None:
        if live:
            self.engine.dispatch(self.state, event)

    def _time(self, change: ClockChange, step: int, player: str | None, side: str | None, live: bool) -> None:
        state = self.state

        def ev(kind: str, **kw: Any) -> Event:
            return Event(kind, step, player=player, side=side, turn=state.turn, phase=state.phase, **kw)
        new_turn = change.turn if change.turn is not None else state.turn
        new_phase = change.phase if change.phase is not None else state.phase
        new_side = change.side if change.side is not None else state.phasing_side
        if change.side is None and change.addressed and side in self.side_ids.values():
            # ("your movement phase": the side the speaker addresses, of two)
            others = sorted({s for s in self.side_ids.values() if s != side})
            new_side = others[0] if len(others) == 1 else new_side
        if (new_turn, new_phase, new_side) == (state.turn, state.phase, state.phasing_side):
            return
        if state.active_formation is not None:
            self._emit(ev("activation_end", text=state.active_formation), live)
            state.active_formation = None
        if state.phase is not None:
            self._emit(ev("phase_end"), live)
        if state.turn is not None and new_turn != state.turn:
            self._emit(ev("turn_end"), live)
        turn_changed = new_turn != state.turn
        state.turn, state.phase, state.phasing_side = new_turn, new_phase, new_side
        if turn_changed:
            state.activation_count = 0
            self._emit(ev("turn_start"), live)
        self._emit(ev("phase_start"), live)

    def run_step(self, step: Step, live: bool) -> None:
        st = self.state
        st.step = n = step.number
        player = step.player
        side = self.side_ids.get(step.side or "", step.side)
        # events no rule takes are not built (most steps matter to few rules)
        wanted = self._wanted if live else _NOTHING
        dispatch = self.engine.dispatch
        if "step_start" in wanted:
            dispatch(st, Event("step_start", n, player=player, side=side, turn=st.turn,
                               phase=st.phase))
        touched: list[str] = []
        sub = 0
        for ev in step.events:
            sub += 1
            # ``type(ev) is``: the exact class (cheaper than isinstance), and it narrows ``ev``
            if type(ev) is MoveEvent:
                uid, kind = self.identify(ev.piece)
                fh, fb = self.place(ev.source)
                th, tb = self.place(ev.target)
                if uid is not None:
                    st.place_unit(uid, th, tb)
                    self._note_place(uid, ev.target, th, tb)
                    if fh:
                        touched.append(fh)
                    if th:
                        touched.append(th)
                    if fh == th and fb == tb:
                        kind_name = "reorder"
                    else:
                        kind_name = ("move" if fh and th else "enter" if th else "leave" if fh
                                     else "transfer")
                    if kind_name in wanted:
                        dispatch(st, Event(kind_name, n, sub, unit=uid, from_hex=fh, to_hex=th,
                                           from_box=fb, to_box=tb, player=player, side=side,
                                           turn=st.turn, phase=st.phase))
                elif kind is not None and (key := ev.piece.id) is not None:   # (identified: it has an id)
                    st.place_marker(key, kind, th, tb, self._space(ev.target))
                    if fh:
                        touched.append(fh)
                    if th:
                        touched.append(th)
                    if "marker_move" in wanted:
                        dispatch(st, Event("marker_move", n, sub, unit=ev.piece.id, marker=kind,
                                           from_hex=fh, to_hex=th, from_box=fb, to_box=tb,
                                           player=player, side=side, turn=st.turn,
                                           phase=st.phase))
                    if tb in self.drawn_boxes and fb not in self.drawn_boxes:
                        self._chit_drawn(ev.piece, kind, n, sub, player, side, live)
                elif self.terrain is not None and ev.piece.id in self.terrain.kinds:
                    self._terrain_moved(ev.piece.id, ev.target)
                elif self.card_feed is not None:
                    self.card_feed.moved(st, ev.piece, ev.target)     # a card moved as a plain piece
            elif type(ev) is AddEvent:
                uid, kind = self.identify(ev.piece)
                th, tb = self.place(ev.target)
                if uid is not None:
                    st.place_unit(uid, th, tb)
                    self._note_place(uid, ev.target, th, tb)
                    self._set_face_and_layers(uid, ev.piece)
                    if th:
                        touched.append(th)
                    kind_name = "add" if th else "transfer"
                    if kind_name in wanted:
                        dispatch(st, Event(kind_name, n, sub, unit=uid, to_hex=th, to_box=tb, player=player,
                                           side=side, turn=st.turn, phase=st.phase))
                elif kind is not None and (key := ev.piece.id) is not None:   # (identified: it has an id)
                    st.place_marker(key, kind, th, tb, self._space(ev.target))
                    if th:
                        touched.append(th)
                    if "marker_add" in wanted:
                        dispatch(st, Event("marker_add", n, sub, unit=ev.piece.id, marker=kind,
                                           to_hex=th, to_box=tb, player=player, side=side,
                                           turn=st.turn, phase=st.phase))
                elif self.terrain is not None and ev.piece.id in self.terrain.kinds:
                    self._terrain_moved(ev.piece.id, ev.target)
                elif self.card_feed is not None:
                    self.card_feed.moved(st, ev.piece, ev.target)
            elif type(ev) is RemoveEvent:
                uid, kind = self.identify(ev.piece)
                fh, fb = self.place(ev.source)
                if uid is not None:
                    st.remove_unit(uid)
                    if "remove" in wanted:
                        dispatch(st, Event("remove", n, sub, unit=uid, from_hex=fh, from_box=fb,
                                           player=player, side=side, turn=st.turn, phase=st.phase))
                elif kind is not None and (key := ev.piece.id) is not None:
                    st.remove_marker(key)
                    if "marker_remove" in wanted:
                        dispatch(st, Event("marker_remove", n, sub, unit=ev.piece.id, marker=kind,
                                           from_hex=fh, from_box=fb, player=player, side=side,
                                           turn=st.turn, phase=st.phase))
                elif self.terrain is not None and ev.piece.id in self.terrain.kinds:
                    self._terrain_moved(ev.piece.id, None)
                elif self.card_feed is not None:
                    self.card_feed.moved(st, ev.piece, None)
            elif type(ev) is ChangeEvent:
                self._changed(ev, n, sub, player, side, wanted)
            elif type(ev) in CARD_EVENT_TYPES:
                feed = self.card_feed
                if feed is not None:
                    for card_event in feed.events(st, ev, n, sub, player, side):
                        if card_event.kind in wanted:
                            dispatch(st, card_event)
            elif type(ev) is TurnEvent:
                change = self._tracker_time(ev.tracker, ev.new)
                if change is not None:
                    self._time(change, n, player, side, live)
            elif type(ev) is ChatEvent or type(ev) is DiceEvent:
                message = ev.message or ""
                if not message:
                    continue
                change = self.clock.time(message) if message[0] == "*" or self.clock.any_line else None
                if change is not None:
                    self._time(change, n, player, side, live)
                    continue
                roll = self.clock.roll(message)
                if roll is not None:
                    if "dice" in wanted:
                        dispatch(st, Event("dice", n, sub, text=roll[0], dice=roll[1],
                                           player=player, side=side, turn=st.turn,
                                           phase=st.phase))
                    continue
                # (an annotation no rule takes is not read: reading one changes nothing)
                note = self.clock.annotation(message, n) if "annotation" in wanted else None
                if note is not None:
                    dispatch(st, Event("annotation", n, sub, annotation=note, player=note.player or player,
                                       side=side, turn=st.turn, phase=st.phase))
        if touched:
            self._sync_order(step, touched)
        if "step_end" in wanted and not self.engine.skips(st, "step_end"):
            dispatch(st, Event("step_end", n, player=player, side=side, turn=st.turn,
                               phase=st.phase))

    def _chit_drawn(self, piece: PieceRef, kind: str, n: int, sub: int, player: str | None, side: str | None,
                    live: bool) -> None:
        """A chit went into a "drawn" box: any chit drawn (a formation's or
        an End Turn chit) ends the activation under way; a formation chit
        starts its own."""
        st = self.state
        formation = self._formation_of(piece) if "formation" in kind else None
        if st.active_formation is not None:
            # dated to this step, attributed to who ran the activation
            who, whose = self._activation_by
            self._emit(Event("activation_end", n, sub, text=st.active_formation, player=who,
                             side=whose, turn=st.turn, phase=st.phase), live)
            st.active_formation = None
        if formation:
            self._activation_by = (player, side)
            st.active_formation = formation
            st.activation_count += 1
            self._emit(Event("activation_start", n, sub, text=formation, player=player, side=side,
                             turn=st.turn, phase=st.phase), live)

    def _formation_of(self, piece: PieceRef) -> str | None:
        """The ``Formation`` property of a chit (read once per piece: a
        chit's formation never changes)."""
        pid = piece.id
        if pid in self.chit_formation:
            return self.chit_formation[pid]
        found = self.chit_formation[pid] = read_property(piece, FORMATION)
        return found

    def _changed(self, ev: ChangeEvent, n: int, sub: int, player: str | None, side: str | None,
                 wanted: Collection[str]) -> None:
        """A piece's state changed: its face (a ``flip``) or status layers."""
        uid, _ = self.identify(ev.after)
        if uid is None:
            return
        st = self.state
        s = st.units_state[uid]
        old_face = self.faces[uid][s.face]
        old_layers = s.layers
        self._set_face_and_layers(uid, ev.after)
        new_face = self.faces[uid][s.face]
        hex_id = s.hex
        if new_face != old_face and "flip" in wanted:
            utype = self.scenario.unit_type_of(self.scenario.counter(uid))
            before, after = utype.face(old_face).state, utype.face(new_face).state
            diff: dict[str, tuple[Any, Any]] = {"face": (old_face, new_face)}
            for key in set(before) | set(after):
                if before.get(key) != after.get(key):
                    diff[key] = (before.get(key), after.get(key))
            self.engine.dispatch(st, Event("flip", n, sub, unit=uid, from_hex=hex_id, to_hex=hex_id,
                                           changes=diff, player=player, side=side, turn=st.turn,
                                           phase=st.phase))
        if old_layers != s.layers and "layer" in wanted:
            for kind in sorted(old_layers ^ s.layers):
                self.engine.dispatch(st, Event("layer", n, sub, unit=uid, marker=kind, from_hex=hex_id,
                                               to_hex=hex_id, changes={"active": (kind in old_layers,
                                                                                  kind in s.layers)},
                                               player=player, side=side, turn=st.turn, phase=st.phase))

    # -- the whole game --------------------------------------------------------------------------
    def on_restore(self, k: int, engine: ReplayEngine) -> None:
        """What the audit reads of file ``k``'s saved state as the replay
        restores it (``Replay.steps(on_restore=)``): the first file's pieces,
        and each file's start for the integrity check's capture."""
        if k == 0:
            self.capture_initial(engine)
        if self.capture is not None:
            self.capture.on_restore(k, engine)

    def prepare(self, replayed: list[Step] | None = None) -> Scenario:
        """Replay the whole game and bind every piece in the order it
        appears; the scenario with the game's units (the one given when the
        binding made no new unit).  ``replayed``: every step of
        :attr:`replay`, when the caller replayed it itself with
        :meth:`on_restore` (``vmodtool report`` draws the game as it goes): the game
        is not replayed again."""
        with relaxed_gc():
            return self._prepare(replayed)

    def _prepare(self, replayed: list[Step] | None) -> Scenario:
        # the whole replay first: a step's undo may come any number of steps
        # later, and the rules' memory must be saved before a step that will
        # be undone; the steps carry all the audit reads (events, stacks)
        capture = self.capture
        if replayed is None:
            replayed = list(self.replay.steps(on_restore=self.on_restore))
        self._steps = steps = replayed
        if capture is not None:
            capture.finish(self.replay.engine)
        if self._initial is not None:
            for ref, _, _ in self._initial.pieces:
                self.identify(ref)
        for step in steps:
            for ev in step.events:
                if type(ev) is MoveEvent or type(ev) is AddEvent or type(ev) is RemoveEvent:
                    self.identify(ev.piece)
                elif type(ev) is ChangeEvent:
                    self.identify(ev.after)
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
        """Every step of the game, as :meth:`prepare` replayed them."""
        return self._steps

    def run(self, engine: Engine) -> None:
        """Judge the prepared game with ``engine`` (its rules made for the
        scenario :meth:`prepare` returned)."""
        self.engine = engine
        # the kinds some rule takes (the same for the whole audit: Engine.wants),
        # asked once, not for every event the game could make
        self._wanted = frozenset(k for k in EVENT_KINDS if engine.wants(k))
        with relaxed_gc():
            self._run(engine)

    def _run(self, engine: Engine) -> None:
        steps = self._steps
        self.load_initial()
        undone = {s.number for s in steps if s.undone_by}
        undo_steps = {s.number for s in steps if s.undo}
        if self.log_maps is not None:
            for step in steps:
                for ev in step.events:
                    if type(ev) is MoveEvent or type(ev) is AddEvent:
                        if ev.target is not None and ev.target.map is not None:
                            self.log_maps.add(ev.target.map)
        engine.note_units(self.state, self.unit_piece)
        engine.dispatch(self.state, Event("setup_end", 0, turn=self.state.turn))
        for step in steps:
            self.steps += 1
            if step.number in undo_steps:
                self.run_step(step, live=False)           # keep the state in step, check nothing
                continue
            if step.number in undone:
                frame = engine.checkpoint()
                self.run_step(step, live=True)
                engine.rollback(frame)
            else:
                self.run_step(step, live=True)
        engine.dispatch(self.state, Event("game_end", self.steps, turn=self.state.turn,
                                          phase=self.state.phase))
        engine.note_units(self.state, self.unit_piece)


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


class _Initial(NamedTuple):
    """A restored save before step 1: its pieces (with where they are and
    their place in their stack), its boards and turn trackers' states."""

    pieces: list[tuple[PieceRef, Place, tuple[str, int]]]
    boards: set[str]
    turns: dict[str, str]


def audit_logs(logs: Sequence[Path], scenario: Scenario, *, module: Module | str | Path | None = None,
               board_sizes: dict[str, tuple[int, int]] | None = None,
               plugin_folders: Sequence[Path] = (), trust_scenario_plugins: bool = False,
               only: Sequence[str] | None = None, integrity: bool = False) -> AuditReport:
    """Audit one log or a chain of logs against a scenario's rules.

    Plug-in rules are code: they are imported only from ``plugin_folders``
    and, with ``trust_scenario_plugins``, from the scenario's own
    ``plugins.paths``.  By default neither: every ``kind: plugin`` rule is
    reported in :attr:`AuditReport.not_checked` (the report is not
    :attr:`~AuditReport.complete`) and nothing is imported.  A plug-in that
    cannot be made a rule is a :class:`~vmodtool.audit.plugins.PluginError`.

    No false clean: a log saved with another module than ``module`` (or,
    without ``module``, the scenario's; by ``moduledata`` name, or for a log
    without one by its maps) or a game in which no piece is a unit of the
    scenario is a :class:`~vmodtool.errors.VmodError`; a rule whose
    ``subject`` matched no unit of the game is in ``not_checked``.

    With ``integrity``, the game's PBEM integrity is checked too (the checks
    of ``vmodtool check-game``, over the same replay: no second pass) and
    reported in :attr:`AuditReport.integrity`.

    :func:`open_audit` then :meth:`OpenedAudit.finish` are the same audit in
    two halves, for a caller that replays the game itself."""
    # one relaxed collection for the whole audit, not one each for reading,
    # replaying and judging: between them a restored threshold would start
    # collections that scan the replay's objects (a tenth of a short audit)
    with relaxed_gc():
        return open_audit(logs, scenario, module=module, board_sizes=board_sizes, plugin_folders=plugin_folders,
                          trust_scenario_plugins=trust_scenario_plugins, only=only,
                          integrity=integrity).finish()


def open_audit(logs: Sequence[Path], scenario: Scenario, *, module: Module | str | Path | None = None,
               board_sizes: dict[str, tuple[int, int]] | None = None,
               plugin_folders: Sequence[Path] = (), trust_scenario_plugins: bool = False,
               only: Sequence[str] | None = None, integrity: bool = False) -> OpenedAudit:
    """The first half of :func:`audit_logs` (the same arguments): the rules
    made, the logs read and checked against the module, nothing replayed
    yet.  :attr:`OpenedAudit.replay` is the replay the audit reads (its
    module's or the scenario's positions)."""
    # the rules first: a plug-in that is not a rule stops the audit before any log is read;
    # on an area map the kinds written for hex geometry are not run (NOT CHECKED)
    skipped = area_not_judged(scenario.rules, scenario.map.areas is not None)
    if skipped:
        only = [r.id for r in scenario.rules if r.id not in skipped and (only is None or r.id in only)]
    rules = partial(Engine, plugin_folders=plugin_folders, trust_scenario_plugins=trust_scenario_plugins,
                    only=only)
    engine = rules(scenario)
    source = scenario.module
    if source is not None and source.board_sizes:
        board_sizes = {**source.board_sizes, **(board_sizes or {})}
    if module is None and source is not None and source.file:
        module = scenario.folder / source.file
    stand_in: ScenarioPositions | None = None
    if module is None:
        stand_in = scenario_positions(scenario, board_sizes)
        given = _ModuleName(scenario.game.title, scenario.game.version or "1.0",
                            str(scenario.path or "the scenario"), ())
    else:
        from vmodtool.vassal.module import Module
        if not isinstance(module, Module):
            module = Module.open(module)
        given = _module_name(module)
        if source is not None and source.name:
            given = _ModuleName(source.name, given.version, f"module.name of {scenario.path}", given.translations)
    if stand_in is not None:
        replay = Replay.open(list(logs), positions=stand_in.positions, properties=stand_in.properties,
                             hands=stand_in.hands)
    else:
        replay = Replay.open(list(logs), module=module, board_sizes=board_sizes)
    warnings: list[str] = []
    unnamed = False           # a log without moduledata: its maps are checked instead
    for log, saved in zip(logs, replay.games, strict=True):
        found = _log_module(saved)
        if found is None:
            unnamed = True
        else:
            warnings += _check_module(str(log), found, given,
                                      source.aliases if source is not None else (), scenario.path)
    game = AuditGame(scenario, replay, module)
    if integrity:
        from vmodtool.checkgame.chain import Capture
        game.capture = Capture()
    if unnamed:
        game.log_maps = set()
    opened = OpenedAudit(list(logs), scenario, module, engine, game, given, warnings, rules)
    opened.skipped = skipped
    return opened


class OpenedAudit:
    """An audit whose logs are read and checked against the module
    (:func:`open_audit`): :meth:`finish` replays the game, binds its pieces
    and judges it."""

    def __init__(self, logs: list[Path], scenario: Scenario, module: Module | None, engine: Engine,
                 game: AuditGame, given: _ModuleName, warnings: list[str],
                 rules: Callable[[Scenario], Engine]) -> None:
        self.logs = logs
        self.scenario = scenario
        self.module = module
        self.engine = engine
        self.game = game
        self.given = given
        self.warnings = warnings
        #: the rules made for a scenario (again for the game's bound units)
        self._rules = rules
        #: rule id -> why it was not run (a kind an area map cannot judge)
        self.skipped: dict[str, str] = {}

    @property
    def replay(self) -> Replay:
        """The replay the audit reads."""
        return self.game.replay

    def on_restore(self, k: int, engine: ReplayEngine) -> None:
        """For a caller that replays :attr:`replay` itself
        (``replay.steps(on_restore=…)``, then :meth:`finish` with its steps)."""
        self.game.on_restore(k, engine)

    def finish(self, replayed: list[Step] | None = None) -> AuditReport:
        """Replay the game (unless ``replayed`` holds every step of
        :attr:`replay`, replayed with :meth:`on_restore`), bind its pieces,
        judge it: the report :func:`audit_logs` returns."""
        with relaxed_gc():
            return self._finish(replayed)

    def _finish(self, replayed: list[Step] | None) -> AuditReport:
        logs, scenario, module, engine, game, given = (self.logs, self.scenario, self.module, self.engine,
                                                       self.game, self.given)
        replay = game.replay
        warnings = list(self.warnings)
        integrity = game.capture is not None
        bound = game.prepare(replayed)
        if bound is not scenario:
            # the rules are made again for the game's units (the binding made them)
            engine = self._rules(bound)
        game.run(engine)
        if game.log_maps:
            known = set(replay.positions.map_names())
            if not game.log_maps & known:
                raise VmodError(
                    f"{logs[0]} uses map(s) {_names(game.log_maps)}, none of which is in the module "
                    f"given: {given.name!r} ({given.source}) has {_names(known) or 'no map'}; audit the log with "
                    "the module it was played with")
        if not game.piece_unit and engine.rules:
            # (with no rule to run the audit claims nothing: the replay's own findings stand)
            pieces = len(game.unknown_ids) + len(game.piece_marker) + len(game.ignored_ids)
            how = ("none with a UnitId property naming one of its counters (what a module made by 'vmodtool build' "
                   "writes; a game played with another module needs a binding, which 'vmodtool import' proposes)"
                   if scenario.binding.implied else "none matched by the scenario's binding.units")
            raise VmodError(
                f"no piece of {_names(str(p) for p in logs)} is a unit of the scenario "
                f"{scenario.path or scenario.game.title}: {pieces} piece(s), {how}; nothing could be checked")
        engine.mark_unseen()
        for rule_id, why in self.skipped.items():
            engine.not_checked.setdefault(rule_id, why)
        # no false clean: units that stood where the scenario names nothing
        for rule_id, why in unjudged_reasons(engine.rules, game.unjudged, game.unit_name).items():
            engine.not_checked.setdefault(rule_id, why)
        where = log_places(game.replayed_steps, logs)
        violations = [replace(v, log=place[0], log_step=place[1])
                      for v in engine.sorted_violations() for place in (where(v.step),)]
        warnings += [w.message if hasattr(w, "message") else str(w) for w in replay.warnings]
        if game.binder.problems:
            sample = ", ".join(sorted(game.binder.problems)[:8])
            warnings.append(f"{len(game.binder.problems)} piece(s) matched a binding.units entry but no side "
                            f"(give the entry a side or add a binding.sides entry) and are not units: {sample}")
        if game.unknown_pieces:
            sample = ", ".join(sorted(game.unknown_pieces)[:8])
            warnings.append(f"{len(game.unknown_pieces)} piece(s) are not units or markers of the "
                            f"scenario and were ignored by the rules: {sample}")
        terrain_pieces = len(game.terrain.kinds) if game.terrain is not None else 0
        if game.terrain is not None and not terrain_pieces:
            lines = ", ".join(str(t.line) for t in scenario.binding.terrain if t.line is not None)
            warnings.append(f"no piece of the game matched binding.terrain (line(s) {lines or '?'}): the terrain "
                            "the rules read is the map's typed terrain alone")
        checked = None
        if integrity:
            from vmodtool.checkgame import check_game
            from vmodtool.checkgame.model import GameRecord
            cap = game.capture
            assert cap is not None
            checked = check_game(GameRecord(list(logs), replay, game.replayed_steps, module, cap.starts, cap.ends,
                                            cap.ghosts, sides=[s.name for s in scenario.game.sides],
                                            dice_patterns=scenario.module.dice_reports if scenario.module else ()))
        return AuditReport(
            integrity=checked,
            logs=[str(p) for p in logs], scenario=str(scenario.path), violations=violations,
            steps=game.steps, rules_checked=[spec.id for spec, _ in engine.rules],
            not_checked=engine.not_checked, units_not_checked=dict(sorted(game.unjudged.items())),
            rule_sources=engine.rule_sources,
            rule_failures=[f.__dict__ for f in engine.failures], replay_warnings=warnings,
            chain_differences=[d.text() for d in replay.chain_differences],
            phase_names={p.id: p.name for p in (scenario.turns.phases if scenario.turns else ())},
            side_names={s.id: s.name for s in scenario.game.sides},
            bound={"units": len(game.piece_unit), "markers": len(game.piece_marker),
                   "ignored": len(game.ignored_ids) - terrain_pieces, "unbound": len(game.unknown_ids),
                   **({"terrain": terrain_pieces} if game.terrain is not None else {})})


def log_places(steps: Sequence[Step], logs: Sequence[Path | str]) -> Callable[[int], tuple[str | None, int]]:
    """Where a step of the chain (its number, 1 = the first log's first
    step, 0 = the starting state) is: (the log file's name, the step within
    that log), read from the steps the replay made (each names its file and
    its place there).  What a player quotes to an opponent; the chain step
    is what the audit numbers by."""
    by_number = {s.number: (Path(s.file).name if s.file else None, s.file_step) for s in steps}
    first = Path(logs[0]).name if logs else None
    last_number = max(by_number, default=0)

    def place(step: int) -> tuple[str | None, int]:
        found = by_number.get(step)
        if found is not None:
            return found
        if step <= 0 or not by_number:
            return first, 0                      # the starting state: before the first log's step 1
        return by_number[last_number]            # (past the end: the game's end, the last step)
    return place


class _ModuleName(NamedTuple):
    """A module as a log or the user names it: name, version, where the
    name comes from (a file), and the name's translations."""

    name: str
    version: str
    source: str
    translations: tuple[str, ...]


def _names(names: Iterable[str]) -> str:
    listed = sorted(set(names))
    shown = ", ".join(repr(n) for n in listed[:6])
    return shown + (f" and {len(listed) - 6} more" if len(listed) > 6 else "")


def _module_name(module: Module) -> _ModuleName:
    """What a module is called: its ``moduledata`` name (VASSAL matches
    saves by it), else the buildFile root's."""
    source = module.file or "the module"
    if module.moduledata:
        try:
            meta = ModuleMetadata.parse(module.moduledata, file=module.file)
        except VmodError:
            meta = None
        if meta is not None and meta.name:
            return _ModuleName(meta.name, meta.version, source, tuple(meta.name_translations.values()))
    return _ModuleName(module.name, module.buildfile.version, source, ())


def _log_module(saved: SavedGame) -> _ModuleName | None:
    """The module a log was saved with (its ``moduledata``), or None when
    the log has none (VASSAL 2.x) or it cannot be read."""
    raw = saved.metadata_xml("moduledata")
    if not raw:
        return None
    if raw in _MODULEDATA:
        named = _MODULEDATA[raw]
    else:
        try:
            meta = ModuleMetadata.parse(raw, file=saved.file)
        except VmodError:
            named = None
        else:
            named = (meta.name, meta.version, tuple(meta.name_translations.values())) if meta.name else None
        if len(_MODULEDATA) >= 64:
            _MODULEDATA.clear()
        _MODULEDATA[raw] = named
    if named is None:
        return None
    return _ModuleName(named[0], named[1], str(saved.file), named[2])


#: the module names ``moduledata`` entries give (name, version,
#: translations; None: none): the logs of a batch are mostly of one module,
#: and the entry is XML to parse
_MODULEDATA: dict[bytes, tuple[str, str, tuple[str, ...]] | None] = {}


def _check_module(log: str, found: _ModuleName, given: _ModuleName, aliases: Sequence[str] = (),
                  scenario_path: Path | None = None) -> list[str]:
    """A :class:`VmodError` when a log was saved with another module than
    the one given (by name: the game's positions and pieces would be read
    with the wrong module); a warning when only the version differs
    (players update a module in the middle of a game), or when the log's
    name is one of the scenario's ``module.aliases`` (a module renamed
    between versions)."""
    names = {found.name.strip(), *(t.strip() for t in found.translations)}
    if not names & {given.name.strip(), *(t.strip() for t in given.translations)}:
        where = f"module.aliases of {scenario_path}" if scenario_path else "module.aliases"
        if names & {a.strip() for a in aliases}:
            return [f"{log} was saved with module {found.name!r} {found.version}, the module given is "
                    f"{given.name!r} {given.version} ({given.source}); audited as the same module renamed "
                    f"({where}): pieces or maps may differ"]
        raise VmodError(f"{log} was saved with module {found.name!r} {found.version}, but the module given "
                        f"is {given.name!r} ({given.source}); audit it with the module of that game, or, if "
                        f"{found.name!r} is the same module under an earlier name, add it to {where} "
                        f"(aliases: [{found.name!r}])")
    if found.version != given.version:
        return [f"{log} was saved with version {found.version} of module {found.name!r}, the module given "
                f"is version {given.version} ({given.source}): pieces or maps may differ"]
    return []
