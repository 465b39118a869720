"""``vmodtool.scenario.geometry``: the maps, turn tracker and global
properties of the module ``vmodtool build`` makes of a scenario, computed
once; build serialises them, and the module it writes, read back by
VASSAL's readers (its grids and zones by
:class:`~vmodtool.replay.positions.Positions`, its tracker and properties
from the buildFile), gives the same geometry, for the three examples."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from vmodtool.assemble.builder import build_module_file
from vmodtool.assemble.images import module_image_names
from vmodtool.assemble.module import assemble_module
from vmodtool.audit.game import scenario_positions
from vmodtool.replay.positions import Positions
from vmodtool.replay.properties import ModuleProperties
from vmodtool.scenario import load_scenario
from vmodtool.scenario.geometry import (
    ZoneSpec,
    hand_zone,
    main_board,
    off_map_zones,
    scenario_global_properties,
    scenario_maps,
    scenario_turn_trackers,
)
from vmodtool.scenario.mapgrid import AxisNumbering, build_map_grid
from vmodtool.scenario.model import Scenario
from vmodtool.scenario.offmap import OFF_MAP_NAME, layout_off_map
from vmodtool.vassal.module import Module
from vmodtool.vassal.turntracker import turn_trackers

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SYSTEMS = ("modern-tactical", "ww1-operational", "combat-commander")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("geometry-modules")
    files = {}
    for system in SYSTEMS:
        files[system] = out / f"{system}.vmod"
        build_module_file(EXAMPLES / system / "scenario.yaml", files[system], jobs=1)
    return files


def _scenario(system: str) -> Scenario:
    return load_scenario(EXAMPLES / system / "scenario.yaml")


def _layout(positions: Positions, map_name: str) -> list[tuple[object, ...]]:
    geometry = positions.geometry(map_name)
    assert geometry is not None, positions.problem(map_name)
    return [(p.board.name, p.board.width, p.board.height, p.board.reversed, p.origin, type(p.board.grid))
            for p in geometry.placements] + [(geometry.edge_width, geometry.edge_height)]


@pytest.mark.parametrize("system", SYSTEMS)
def test_every_hex_and_zone_centre_is_named_as_the_built_module_names_it(system, built):
    scenario = _scenario(system)
    ours = scenario_positions(scenario).positions
    with Module.open(built[system]) as module:
        theirs = Positions(module)
        assert ours.has_module and theirs.has_module and ours.module is None
        assert ours.map_names() == theirs.map_names() == [scenario.map.name, OFF_MAP_NAME] + [
            h.vassal_name for h in scenario.hands]
        assert ours.missing_sizes == theirs.missing_sizes == []
        for name in theirs.map_names():
            assert ours.knows_map(name) and ours.stacking(name) == theirs.stacking(name)
            assert ours.problem(name) is None and theirs.problem(name) is None
            assert _layout(ours, name) == _layout(theirs, name)
        main = scenario.map.name
        (placement,) = theirs.geometry(main).placements
        ox, oy = placement.origin
        hexes = 0
        for label, (x, y) in scenario.map.grid.centres.items():
            found = ours.locate(main, x + ox, y + oy)
            assert found == theirs.locate(main, x + ox, y + oy), (system, label)
            assert found[0] == label and found[1] == scenario.map.grid.hexes[label]
            hexes += 1
        assert hexes == len(scenario.map.grid.hexes) > 20
        zones = layout_off_map(scenario).zones
        for zone in zones:
            found = ours.locate(OFF_MAP_NAME, *zone.centre)
            assert found == theirs.locate(OFF_MAP_NAME, *zone.centre) == (zone.name, None), (system, zone)
        assert len(zones) == len(scenario.boxes) + sum(len(t.spaces) for t in scenario.tracks) + sum(
            1 for d in scenario.decks if d.zone is None) > 5
        assert not ours.knows_map("Nowhere") and ours.locate("Nowhere", 1, 1) == (None, None)


@pytest.mark.parametrize("system", SYSTEMS)
def test_every_point_of_each_map_is_named_as_the_built_module_names_it(system, built):
    """Not only the centres: a lattice over each map and beyond its edges
    (hex sides and corners, gaps between zones, off the board)."""
    ours = scenario_positions(_scenario(system)).positions
    with Module.open(built[system]) as module:
        theirs = Positions(module)
        compared = 0
        for name in theirs.map_names():
            board = theirs.geometry(name).placements[0].board
            for x in range(-6, board.width + 12, 5):
                for y in range(-6, board.height + 12, 5):
                    assert ours.locate(name, x, y) == theirs.locate(name, x, y), (name, x, y)
                    compared += 1
        assert compared > 40000


@pytest.mark.parametrize("system", SYSTEMS)
def test_boards_chosen_by_the_game_are_placed_as_the_built_module_places_them(system, built):
    """``SetBoards``: the map's board again, turned 180°, moved to another
    slot, twice side by side (one turned), or a board the map does not
    have."""
    scenario = _scenario(system)
    main = scenario.map.name
    width = scenario.map.size[0]
    points = [(x + dx, y) for x, y in list(scenario.map.grid.centres.values())[::7] for dx in (0, width)]
    points += [(3, 3), (400, 90)]
    with Module.open(built[system]) as module:
        for boards in ([(main, False, 0, 0)], [(main, True, 0, 0)], [(main, False, 1, 2)],
                       [(main, False, 0, 0), (main, True, 1, 0)], [("No such board", False, 0, 0)]):
            ours = scenario_positions(scenario).positions
            theirs = Positions(module)
            assert ours.set_boards(main, boards) == theirs.set_boards(main, boards)
            assert ours.problem(main) == theirs.problem(main)
            for x, y in points:
                assert ours.locate(main, x, y) == theirs.locate(main, x, y), (boards, x, y)
        assert ours.problem(main) == f"board 'No such board' is not a board of map {main!r}"


def test_given_board_sizes_renumber_a_descending_grid_as_the_module_does():
    """``--board-size`` overrides a board's size; a descending axis counts
    from the board's far edge, so the grid is built again for it."""
    scenario = _scenario("modern-tactical")
    spec = dataclasses.replace(scenario.map.grid.spec, column=dataclasses.replace(
        scenario.map.grid.spec.column, descending=True), row=AxisNumbering(descending=True))
    grid = build_map_grid(spec)
    scenario = dataclasses.replace(scenario, map=dataclasses.replace(scenario.map, grid=grid, grid_spec=spec))
    build = assemble_module(scenario, module_image_names(scenario))
    module = Module(buildfile=build.buildfile, buildfile_entry="buildFile.xml", container="buildfile",
                    file="test")
    width, height = scenario.map.size
    for sizes in ({scenario.map.name: (width, height), OFF_MAP_NAME: layout_off_map(scenario).size},
                  {scenario.map.name: (width + 130, height + 70), OFF_MAP_NAME: (900, 2000)}):
        ours = scenario_positions(scenario, sizes).positions
        theirs = Positions(module, sizes)
        assert _layout(ours, scenario.map.name) == _layout(theirs, scenario.map.name)
        assert _layout(ours, OFF_MAP_NAME) == _layout(theirs, OFF_MAP_NAME)
        named = set()
        for x in range(0, width + 130, 9):
            for y in range(0, height + 70, 9):
                found = ours.locate(scenario.map.name, x, y)
                assert found == theirs.locate(scenario.map.name, x, y), (sizes, x, y)
                named.add(found[0])
        assert len(named) > len(scenario.map.grid.hexes) // 2
    assert main_board(scenario).grid is grid.grid                 # its own size: the scenario's grid
    assert main_board(scenario, (width + 130, height)).grid is not grid.grid


@pytest.mark.parametrize("system", SYSTEMS)
def test_turn_tracker_and_global_properties_are_the_built_modules(system, built):
    scenario = _scenario(system)
    with Module.open(built[system]) as module:
        trackers = turn_trackers(module.buildfile)
        assert scenario_turn_trackers(scenario) == trackers and len(trackers) == 1
        properties = ModuleProperties.of(module.buildfile).by_container
        assert scenario_global_properties(scenario) == properties
        assert scenario_positions(scenario).properties.by_container == properties
    assert {"Turn", "Phase"} <= properties["Module"]
    assert [m.name for m in scenario_maps(scenario)] == [scenario.map.name, OFF_MAP_NAME] + [
        h.vassal_name for h in scenario.hands]


def test_a_scenario_without_turns_dice_boxes_or_tracks():
    scenario = _scenario("modern-tactical")
    bare = dataclasses.replace(scenario, turns=None, boxes=(), tracks=(),
                               game=dataclasses.replace(scenario.game, dice=()))
    build = assemble_module(bare, module_image_names(bare))
    assert scenario_turn_trackers(bare) == turn_trackers(build.buildfile) == {}
    assert scenario_global_properties(bare) == ModuleProperties.of(build.buildfile).by_container == {}
    assert [m.name for m in scenario_maps(bare)] == [e.name for e in build.buildfile.maps()]


def test_the_build_layer_still_offers_the_layout():
    from vmodtool.assemble import offmap
    from vmodtool.assemble.module import OFF_MAP_NAME as BUILD_NAME
    assert offmap.layout_off_map is layout_off_map and BUILD_NAME == OFF_MAP_NAME == offmap.OFF_MAP_NAME


@pytest.mark.parametrize("system", ["combat-commander", "ww1-operational"])
def test_build_writes_the_zones_and_hands_the_geometry_computes(system):
    """One source: every Zone element of the off-map window and of each
    hand's window is a :class:`ZoneSpec` of the geometry, written as is."""
    scenario = _scenario(system)
    build = assemble_module(scenario, module_image_names(scenario))
    zone_tag = "VASSAL.build.module.map.boardPicker.board.mapgrid.Zone"
    keys = ("name", "path", "locationFormat")      # the others are the component's defaults
    written = {name: [{k: z.get(k) for k in keys} for z in el.iter(zone_tag)]
               for el in build.buildfile.root.iter()
               if el.tag.endswith(("module.Map", "module.PlayerHand")) and (name := el.get("mapName"))}
    assert written[OFF_MAP_NAME] == [z.attributes() for z in off_map_zones(scenario)] != []
    for hand in scenario.hands:
        assert written[hand.vassal_name] == [hand_zone(scenario, hand).attributes()]
    assert written[scenario.map.name] == []


def test_a_zone_spec_is_what_vassal_reads_of_its_attributes():
    from vmodtool.vassal.grid import Zone

    spec = ZoneSpec("Мёртвые", "0,0;40,0;40,30;0,30")
    read = Zone.from_attributes(spec.attributes())
    assert (read.name, read.location_format) == (spec.name, "$name$")
    assert read.polygon.contains(20, 15) and not read.polygon.contains(50, 15)
    assert spec.zone().polygon.contains(20, 15)
