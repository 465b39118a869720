"""The module ``vmodtool build`` makes of a scenario, as far as a replay of
its logs reads it, computed once from the scenario: its maps as VASSAL sees
them (boards, grids, zones, edges, which maps stack), its turn tracker, its
hands and the global properties it defines.

:mod:`vmodtool.assemble` serialises what this module computes (the zones,
the hands' windows, the turn tracker's levels), so the built module and the
audit of a log played with it (which reads positions and game time from here
when no module is given) cannot disagree; ``tests/scenario/test_geometry.py``
reads each built example back through VASSAL's readers and finds the same:

* the main map: named ``map.name``, one board of that name, the scenario's
  hex grid on it (``map.grid``), the board ``map.size`` pixels; no edge
  buffer (``edgeWidth``/``edgeHeight`` 0: build writes none), pieces stack;
* the off-map window (when the scenario has boxes, tracks or decks): map and
  board :data:`~vmodtool.scenario.offmap.OFF_MAP_NAME`, a ``ZonedGrid`` of one
  rectangular zone per box, track space and deck place
  (:func:`off_map_zones`, ``locationFormat`` ``$name$``), no background grid,
  pieces stack;
* one ``PlayerHand`` window per hand, one zone over its board
  (:func:`hand_zone`), opened by its side only (:func:`scenario_hands`);
* one ``TurnTracker`` (when the scenario has turns): a counter level
  ``Turn``, under it a list level ``Side`` (the player turns) and under that
  (or under ``Turn``) a list level ``Phase``;
* global properties, all on the module: each dice button's ``<spec>_result``,
  ``_total``, ``_keep``, ``_summary``, the tracker's ``<name>_command`` and
  ``<name>_value`` and each level's property.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vmodtool.scenario.cards import HandSpec, hand_board_size
from vmodtool.scenario.model import HexMap, Scenario
from vmodtool.scenario.offmap import OFF_MAP_NAME, OffMapLayout, layout_off_map
from vmodtool.vassal.decks import HandDef
from vmodtool.vassal.grid import Board, HexGrid, MapGeometry, Zone, ZonedGrid
from vmodtool.vassal.pieces import java_int
from vmodtool.vassal.sequence import decode_sequence, encode_sequence
from vmodtool.vassal.turntracker import TurnLevelDef, TurnTrackerDef

__all__ = ["ScenarioMap", "ZoneSpec", "scenario_maps", "scenario_hands", "main_board", "main_board_name", "map_board",
           "off_map_board", "has_off_map", "off_map_zones", "hand_zone", "scenario_turn_trackers", "tracker_log",
           "scenario_global_properties", "OFF_MAP_NAME", "MODULE_CONTAINER", "TRACKER_ID"]

#: the properties container of the module itself (``GameModule``)
MODULE_CONTAINER = "Module"
#: the id the built module's one turn tracker has in ``TURN`` commands
TRACKER_ID = "TurnTracker0"
_DICE_SUFFIXES = ("_result", "_total", "_keep", "_summary")


@dataclass(frozen=True)
class ScenarioMap:
    """One map window of the built module: its name, what VASSAL's
    ``Map.locationName`` reads (the board at slot (0, 0) and the map's edge)
    and whether its pieces stack (its ``StackMetrics`` is not disabled)."""

    name: str
    geometry: MapGeometry
    stacking: bool = True
    #: the other boards of its ``BoardPicker`` (the main map's ``map.boards``), one a save may choose
    alternatives: tuple[Board, ...] = ()


@dataclass(frozen=True)
class ZoneSpec:
    """One zone of a built map's ``ZonedGrid``: what build writes (its
    attributes) and what VASSAL reads of them (:meth:`zone`)."""

    name: str
    path: str
    location_format: str = "$name$"

    def attributes(self) -> dict[str, str]:
        """The ``Zone`` element's attributes."""
        return {"name": self.name, "path": self.path, "locationFormat": self.location_format}

    def zone(self) -> Zone:
        return Zone(self.name, self.path, location_format=self.location_format)


def has_off_map(scenario: Scenario) -> bool:
    """Whether the built module has the off-map window (for boxes, tracks
    or decks)."""
    return bool(scenario.boxes or scenario.tracks or scenario.decks)


def off_map_zones(scenario: Scenario, layout: OffMapLayout | None = None) -> tuple[ZoneSpec, ...]:
    """The off-map window's zones: one per box, track space and deck place,
    in the layout's order (VASSAL names a point by the first zone holding
    it); ``layout``: the scenario's, when the caller has it."""
    zones = (layout or layout_off_map(scenario)).zones
    return tuple(ZoneSpec(z.name, z.path) for z in zones)


def hand_zone(scenario: Scenario, hand: HandSpec, size: tuple[int, int] | None = None) -> ZoneSpec:
    """A hand window's one zone, over its whole board (``size``, default
    the board build draws): a card in the hand is "in" the hand."""
    w, h = size or hand_board_size(scenario.decks, hand)
    return ZoneSpec(hand.vassal_name, f"0,0;{w},0;{w},{h};0,{h}")


def main_board_name(scenario: Scenario) -> str:
    """The main map's one board: named as the map."""
    return scenario.map.name


def main_board(scenario: Scenario, size: tuple[int, int] | None = None) -> Board:
    """The main map's board: named as the map, the scenario's hex grid on
    it.  ``size`` (default ``map.size``, the board image's) is the board's
    pixel size; the grid numbers descending axes from it, as VASSAL does, so
    another size gets a grid built again from the same attributes."""
    return map_board(scenario.map, size)


def map_board(hex_map: HexMap, size: tuple[int, int] | None = None) -> Board:
    """A map window's one board, named as the map, its hex grid on it (the
    main map's, or one of ``maps``; ``size`` as :func:`main_board`'s)."""
    grid_spec = hex_map.grid
    width, height = size if size is not None else hex_map.size
    grid = grid_spec.grid
    if grid.container_size != (width, height):
        grid = HexGrid.from_attributes(grid_spec.grid_attributes, grid_spec.numbering_attributes,
                                       (width, height))
    return Board(hex_map.name, width, height, grid)


def off_map_board(scenario: Scenario, size: tuple[int, int] | None = None) -> Board | None:
    """The off-map window's board (None when the scenario has no boxes,
    tracks nor decks): one zone per box, track space and deck place, in the layout's order
    (VASSAL names a point by the first zone holding it)."""
    if not has_off_map(scenario):
        return None
    layout = layout_off_map(scenario)
    zoned = ZonedGrid([z.zone() for z in off_map_zones(scenario, layout)])
    width, height = size if size is not None else layout.size
    return Board(OFF_MAP_NAME, width, height, zoned)


def scenario_maps(scenario: Scenario, board_sizes: dict[str, tuple[int, int]] | None = None
                  ) -> tuple[ScenarioMap, ...]:
    """The built module's maps in buildFile order (main map, the ``maps``
    windows, then the off-map window, then the hands' windows).  ``board_sizes`` (board name → pixels) overrides the
    boards' own sizes, as ``--board-size`` overrides a module's images."""
    sizes = board_sizes or {}
    main = main_board(scenario, sizes.get(scenario.map.name))
    others = tuple(Board(alt.name, *(sizes.get(alt.name) or (main.width, main.height)), main.grid)
                   for alt in scenario.map.boards)
    maps = [ScenarioMap(scenario.map.name, MapGeometry.single(main), alternatives=others)]
    for extra in scenario.maps:
        maps.append(ScenarioMap(extra.name, MapGeometry.single(map_board(extra, sizes.get(extra.name)))))
    off = off_map_board(scenario, sizes.get(OFF_MAP_NAME))
    if off is not None:
        maps.append(ScenarioMap(OFF_MAP_NAME, MapGeometry.single(off)))
    for hand in scenario.hands:        # a PlayerHand window: one zone over its board
        w, h = sizes.get(hand.vassal_name) or hand_board_size(scenario.decks, hand)
        zoned = ZonedGrid([hand_zone(scenario, hand, (w, h)).zone()])
        maps.append(ScenarioMap(hand.vassal_name, MapGeometry.single(Board(hand.vassal_name, w, h, zoned))))
    return tuple(maps)


def tracker_log(scenario: Scenario) -> dict[str, Any]:
    """The ``log.turn_tracker`` section (the tracker's name, formats)."""
    log = scenario.log.get("turn_tracker", {}) if isinstance(scenario.log, dict) else {}
    return log if isinstance(log, dict) else {}


def _list_values(names: list[str]) -> tuple[str, ...]:
    """A list level's values as VASSAL reads back its ``list`` attribute."""
    text = encode_sequence(names, ",") or ""
    return tuple(decode_sequence(text, ",")) if text else ()


def scenario_turn_trackers(scenario: Scenario) -> dict[str, TurnTrackerDef]:
    """The built module's turn tracker by the id ``TURN`` commands carry
    (empty without turns): what :func:`~vmodtool.vassal.turntracker.turn_trackers`
    reads from its buildFile."""
    turns = scenario.turns
    if turns is None:
        return {}
    levels: list[tuple[str, str, tuple[str, ...]]] = []     # (name, property, values) below the turn
    if turns.player_turns:
        sides = {s.id: s.name for s in scenario.game.sides}
        levels.append(("Side", "PhasingSide", _list_values([sides[s] for s in turns.player_turns])))
    if turns.phases:
        levels.append(("Phase", "Phase", _list_values([p.name for p in turns.phases])))
    child: tuple[TurnLevelDef, ...] = ()
    for name, prop, values in reversed(levels):
        child = (TurnLevelDef("list", name, prop, 1, values, child),)
    start = java_int(str(turns.first))
    top = TurnLevelDef("counter", "Turn", "Turn", 1 if start is None else start, (), child)
    name = str(tracker_log(scenario).get("component", "Turn"))
    return {TRACKER_ID: TurnTrackerDef(TRACKER_ID, name, (top,))}


def scenario_hands(scenario: Scenario) -> list[HandDef]:
    """The built module's private windows: one ``PlayerHand`` per hand,
    which only its side (by the side's name, as the roster names sides) may
    open (``assemble/decks.py`` writes them so)."""
    names = {s.id: s.name for s in scenario.game.sides}
    return [HandDef(hand.vassal_name, "PlayerHand", (names.get(hand.side, hand.side),))
            for hand in scenario.hands]


def scenario_global_properties(scenario: Scenario) -> dict[str, set[str]]:
    """The global properties the built module defines, by properties
    container (what :class:`~vmodtool.replay.properties.ModuleProperties`
    reads from its buildFile): a ``MutableProperty`` naming another one is
    dropped by VASSAL."""
    if not (scenario.game.dice or scenario.turns is not None):
        return {}
    names: set[str] = set()
    for spec in scenario.game.dice:
        names.update(spec + suffix for suffix in _DICE_SUFFIXES)
    for tracker in scenario_turn_trackers(scenario).values():
        names.update((tracker.name + "_command", tracker.name + "_value"))
        stack = list(tracker.levels)
        while stack:
            level = stack.pop()
            if level.property:
                names.add(level.property)
            stack.extend(level.children)
    return {MODULE_CONTAINER: names}
