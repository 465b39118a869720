"""The module ``vmodtool build`` makes of a scenario, as far as a replay of
its logs reads it, computed from the scenario without building anything:
its maps as VASSAL sees them (boards, grids, zones, edges, which maps
stack), its turn tracker and the global properties it defines.

This mirrors what :mod:`vmodtool.assemble.module` writes; the audit of a log
played with a built module reads positions and game time from here when no
module is given (``tests/scenario/test_geometry.py`` compares both for every
example):

* the main map: named ``map.name``, one board of that name, the scenario's
  hex grid on it (``map.grid``), the board ``map.size`` pixels; no edge
  buffer (``edgeWidth``/``edgeHeight`` 0: build writes none), pieces stack;
* the off-map window (when the scenario has boxes or tracks): map and board
  :data:`~vmodtool.scenario.offmap.OFF_MAP_NAME`, a ``ZonedGrid`` of one
  rectangular zone per box and track space (:func:`layout_off_map`,
  ``locationFormat`` ``$name$``), no background grid, pieces stack;
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

from vmodtool.scenario.cards import hand_board_size
from vmodtool.scenario.model import Scenario
from vmodtool.scenario.offmap import OFF_MAP_NAME, layout_off_map
from vmodtool.vassal.decks import HandDef
from vmodtool.vassal.grid import Board, HexGrid, MapGeometry, Zone, ZonedGrid
from vmodtool.vassal.pieces import java_int
from vmodtool.vassal.sequence import decode_sequence, encode_sequence
from vmodtool.vassal.turntracker import TurnLevelDef, TurnTrackerDef

__all__ = ["ScenarioMap", "scenario_maps", "scenario_hands", "main_board", "off_map_board", "scenario_turn_trackers",
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


def main_board(scenario: Scenario, size: tuple[int, int] | None = None) -> Board:
    """The main map's board: named as the map, the scenario's hex grid on
    it.  ``size`` (default ``map.size``, the board image's) is the board's
    pixel size; the grid numbers descending axes from it, as VASSAL does, so
    another size gets a grid built again from the same attributes."""
    grid_spec = scenario.map.grid
    width, height = size if size is not None else scenario.map.size
    grid = grid_spec.grid
    if grid.container_size != (width, height):
        grid = HexGrid.from_attributes(grid_spec.grid_attributes, grid_spec.numbering_attributes,
                                       (width, height))
    return Board(scenario.map.name, width, height, grid)


def off_map_board(scenario: Scenario, size: tuple[int, int] | None = None) -> Board | None:
    """The off-map window's board (None when the scenario has no boxes,
    tracks nor decks): one zone per box, track space and deck place, in the layout's order
    (VASSAL names a point by the first zone holding it)."""
    if not (scenario.boxes or scenario.tracks or scenario.decks):
        return None
    layout = layout_off_map(scenario)
    zoned = ZonedGrid([Zone(z.name, z.path, location_format="$name$") for z in layout.zones])
    width, height = size if size is not None else layout.size
    return Board(OFF_MAP_NAME, width, height, zoned)


def scenario_maps(scenario: Scenario, board_sizes: dict[str, tuple[int, int]] | None = None
                  ) -> tuple[ScenarioMap, ...]:
    """The built module's maps in buildFile order (main map, then the
    off-map window, then the hands' windows).  ``board_sizes`` (board name → pixels) overrides the
    boards' own sizes, as ``--board-size`` overrides a module's images."""
    sizes = board_sizes or {}
    main = main_board(scenario, sizes.get(scenario.map.name))
    maps = [ScenarioMap(scenario.map.name, MapGeometry.single(main))]
    off = off_map_board(scenario, sizes.get(OFF_MAP_NAME))
    if off is not None:
        maps.append(ScenarioMap(OFF_MAP_NAME, MapGeometry.single(off)))
    for hand in scenario.hands:        # a PlayerHand window: one zone over its board
        w, h = sizes.get(hand.vassal_name) or hand_board_size(scenario.decks, hand)
        zoned = ZonedGrid([Zone(hand.vassal_name, f"0,0;{w},0;{w},{h};0,{h}", location_format="$name$")])
        maps.append(ScenarioMap(hand.vassal_name, MapGeometry.single(Board(hand.vassal_name, w, h, zoned))))
    return tuple(maps)


def _tracker_log(scenario: Scenario) -> dict[str, Any]:
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
    name = str(_tracker_log(scenario).get("component", "Turn"))
    return {TRACKER_ID: TurnTrackerDef(TRACKER_ID, name, (top,))}


def scenario_hands(scenario: Scenario) -> list[HandDef]:
    """The built module's private windows: one ``PlayerHand`` per hand,
    which only its side (by the side's name, as the roster names sides) may
    open (``build/decks.py`` writes them so)."""
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
