"""The scenario map taken from a module (``map.from_module``): every hex
label is the name VASSAL gives the hex's centre on the module's map.

Two real boards (from ../shared, skipped without it): Ragnarok's "Map",
whose hex grid is the own grid of a zone (no background grid), and The
Longest Day's "Normandy", whose hex grid is a ZonedGrid's background.  The
labels are checked against ``Positions`` (the module's map as the replayer
names points, in map coordinates) and, for Ragnarok, against what VASSAL
3.7.26 itself located on that board (the golden hex grid answers).
Synthetic boards cover the choices made when several zones carry hex grids.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from tests.conftest import shared_path
from vmodtool.replay.positions import Positions, load_board_sizes
from vmodtool.scenario.module_map import ModuleMap, ModuleMapError, find_map, module_map_grid
from vmodtool.vassal.module import Module


def _map_of(module: Module, map_name: str, sizes: dict[str, tuple[int, int]]) -> ModuleMap:
    return module_map_grid(find_map(module.buildfile.maps(), map_name), None, sizes)


def _edge(module: Module, map_name: str) -> tuple[int, int]:
    element = find_map(module.buildfile.maps(), map_name).element
    return int(element.get("edgeWidth") or 0), int(element.get("edgeHeight") or 0)


def _assert_labels_are_vassals(module: Module, map_name: str, result: ModuleMap,
                               sizes: dict[str, tuple[int, int]]) -> None:
    positions = Positions(module, sizes)
    ex, ey = _edge(module, map_name)
    wrong = [(label, (x, y), positions.location(map_name, x + ex, y + ey))
             for label, (x, y) in result.grid.centres.items()
             if positions.location(map_name, x + ex, y + ey) != label]
    assert wrong == []


# -- Ragnarok: the hex grid is a zone's own grid --------------------------------------------

@pytest.fixture(scope="module")
def ragnarok() -> tuple[Module, dict[str, tuple[int, int]], ModuleMap]:
    module = Module.open(shared_path("corpus", "ragnarok", "buildFile.xml"))
    sizes = load_board_sizes(shared_path("corpus", "ragnarok", "board-sizes.json"))
    return module, sizes, _map_of(module, "Main Map", sizes)


def test_ragnarok_hexes_come_from_the_zone_grid(ragnarok: tuple[Module, dict[str, tuple[int, int]], ModuleMap]
                                                ) -> None:
    module, sizes, result = ragnarok
    assert (result.map_name, result.board_name, result.size) == ("Main Map", "Map", (3300, 2457))
    assert len(result.grid.hexes) == 467
    # the other zones' names are locations, not hexes: the endurance and rainbow tracks, the warrior box
    assert "warrior" in result.zones
    assert any(z.startswith("Endurance ") for z in result.zones)
    assert any(z.startswith("Rainbow ") for z in result.zones)
    assert not set(result.zones) & set(result.grid.hexes)
    _assert_labels_are_vassals(module, "Main Map", result, sizes)


def test_ragnarok_hexes_are_those_vassal_locates(ragnarok: tuple[Module, dict[str, tuple[int, int]], ModuleMap]
                                                 ) -> None:
    """VASSAL's ZonedGrid finds a hex name only where its centre lies in the
    zone that names it: exactly those names are the map's hexes, at VASSAL's
    centres (getLocation and snapping differ by at most a pixel)."""
    _, _, result = ragnarok
    golden = json.loads(shared_path("golden", "hexgrid", "real_ragnarok.json").read_text(encoding="utf-8"))
    located = {entry["name"]: entry["location"] for entry in golden["board_locations"]
               if entry.get("location") is not None and entry["name"].isdigit()}
    assert set(result.grid.hexes) == set(located)
    far = [(label, centre, located[label]) for label, centre in result.grid.centres.items()
           if max(abs(centre[0] - located[label][0]), abs(centre[1] - located[label][1])) > 1]
    assert far == []


def test_ragnarok_neighbours_and_distance_from_the_zone_grid(
        ragnarok: tuple[Module, dict[str, tuple[int, int]], ModuleMap]) -> None:
    _, _, result = ragnarok
    grid = result.grid
    spacing = (112.4, math.hypot(112.4 / 2, 97.72))   # along a row; to the next row (sideways grid)
    for label, (x, y) in grid.centres.items():
        for other in grid.neighbours(label):
            ox, oy = grid.centres[other]
            assert min(abs(math.hypot(ox - x, oy - y) - s) for s in spacing) < 3, (label, other)
            assert grid.distance(label, other) == 1
    assert grid.distance("1224", "1224") == 0
    # along one printed row (sideways: the same y) the distance is the number of hex widths between
    rows: dict[int, list[tuple[int, str]]] = {}
    for label, (x, y) in grid.centres.items():
        rows.setdefault(y // 10, []).append((x, label))
    checked = 0
    for row in rows.values():
        row.sort()
        for (xa, a), (xb, b) in zip(row, row[1:] + row[:1], strict=True):
            assert grid.distance(a, b) == round(abs(xb - xa) / 112.4), (a, b)
            checked += 1
    assert checked > 400


# -- The Longest Day: the hex grid is a ZonedGrid's background ------------------------------

def test_tld_normandy_background_grid() -> None:
    module = Module.open(shared_path("corpus", "tld", "buildFile"))
    sizes = load_board_sizes(shared_path("corpus", "tld", "board-sizes.json"))
    result = _map_of(module, "Normandy", sizes)
    assert result.board_name == "Normandy"
    assert len(result.grid.hexes) == 7482
    _assert_labels_are_vassals(module, "Normandy", result, sizes)


# -- synthetic boards: several zones with hex grids --------------------------------------------

_HEX = ('<VASSAL.build.module.map.boardPicker.board.HexGrid dx="60.0" dy="70.0" x0="{x0}" y0="35" '
        'sideways="false" snapTo="true">'
        '<VASSAL.build.module.map.boardPicker.board.mapgrid.HexGridNumbering first="H" sep="" hType="N" '
        'vType="N" hLeading="1" vLeading="1" hOff="{hoff}" vOff="1" hDescend="false" vDescend="{vdesc}" '
        'stagger="false" locationFormat="$gridLocation$"/>'
        '</VASSAL.build.module.map.boardPicker.board.HexGrid>')
_NO_NUMBERING = ('<VASSAL.build.module.map.boardPicker.board.HexGrid dx="60.0" dy="70.0" x0="30" y0="35" '
                 'sideways="false"/>')


def _zone(name: str, path: str, grid: str, fmt: str = "$gridLocation$") -> str:
    return (f'<VASSAL.build.module.map.boardPicker.board.mapgrid.Zone name="{name}" path="{path}" '
            f'locationFormat="{fmt}" useParentGrid="false" useHighlight="false" highlightProperty="">'
            f'{grid}</VASSAL.build.module.map.boardPicker.board.mapgrid.Zone>')


def _module(tmp_path: Path, zones: str, edge: int = 20) -> Module:
    text = ('<?xml version="1.0" encoding="UTF-8"?>'
            '<VASSAL.build.GameModule name="Zones" version="1" VassalVersion="3.7.9">'
            f'<VASSAL.build.module.Map mapName="Field" edgeWidth="{edge}" edgeHeight="{edge}">'
            '<VASSAL.build.module.map.BoardPicker>'
            '<VASSAL.build.module.map.boardPicker.Board name="Field" width="900" height="600" reversible="false">'
            '<VASSAL.build.module.map.boardPicker.board.ZonedGrid>'
            f'{zones}'
            '</VASSAL.build.module.map.boardPicker.board.ZonedGrid>'
            '</VASSAL.build.module.map.boardPicker.Board>'
            '</VASSAL.build.module.map.BoardPicker>'
            '</VASSAL.build.module.Map>'
            '</VASSAL.build.GameModule>')
    path = tmp_path / "buildFile.xml"
    path.write_text(text, encoding="utf-8")
    return Module.open(path)


_WEST = "0,0;540,0;540,600;0,600"
_EAST = "540,0;900,0;900,600;540,600"


def test_one_grid_repeated_in_two_zones_is_one_map(tmp_path: Path) -> None:
    grid = _HEX.format(x0=30, hoff=1, vdesc="false")
    module = _module(tmp_path, _zone("west", _WEST, grid) + _zone("east", _EAST, grid))
    sizes = {"Field": (900, 600)}
    result = _map_of(module, "Field", sizes)
    xs = {x for x, _ in result.grid.centres.values()}
    assert min(xs) < 540 < max(xs)                 # hexes of both zones
    assert result.zones == []
    _assert_labels_are_vassals(module, "Field", result, sizes)
    # neighbours across the zone border come from the one grid
    west = max((c for c in result.grid.centres.items() if c[1][0] < 540), key=lambda c: (c[1][0], -c[1][1]))
    assert any(result.grid.centres[n][0] > 540 for n in result.grid.neighbours(west[0]))


def test_the_zone_naming_most_hexes_gives_the_map_grid(tmp_path: Path) -> None:
    west = _HEX.format(x0=30, hoff=1, vdesc="true")     # descending rows: numbered from the zone's own box
    east = _HEX.format(x0=30, hoff=21, vdesc="false")   # another numbering: its names are not map hexes
    module = _module(tmp_path, _zone("west", _WEST, west) + _zone("east", _EAST, east)
                     + _zone("box", "0,0;10,0;10,10;0,10", "", fmt="$name$"))
    sizes = {"Field": (900, 600)}
    result = _map_of(module, "Field", sizes)
    assert all(x < 540 for x, _ in result.grid.centres.values())
    assert result.zones and all(int(label[:2]) > 20 for label in result.zones if label != "box")
    assert not set(result.zones) & set(result.grid.hexes)
    _assert_labels_are_vassals(module, "Field", result, sizes)


def test_zone_hex_grid_without_numbering_is_refused(tmp_path: Path) -> None:
    module = _module(tmp_path, _zone("west", _WEST, _NO_NUMBERING))
    with pytest.raises(ModuleMapError, match="no numbering"):
        _map_of(module, "Field", {"Field": (900, 600)})


def test_zones_without_hex_grids_make_an_area_map(tmp_path: Path) -> None:
    """Issue 42: a board of zones and regions is an area map whose spaces
    are the names VASSAL gives (here one gridless zone), not a refusal."""
    module = _module(tmp_path, _zone("box", _WEST, "", fmt="$name$"))
    result = _map_of(module, "Field", {"Field": (900, 600)})
    assert result.areas is not None and list(result.areas.spaces) == ["box"]
    assert result.grid.hexes == {}
