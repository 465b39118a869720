"""Area maps (issue 42): the spaces a module board gives (named as VASSAL
names its points), the connections between them, and the location
interface rules ask of them (neighbours, distance, path cost); the
scenario's ``map.spaces``/``connections`` loaded with located problems.

A synthetic module (a buildFile written here) stands for a real one: a
board of a ``ZonedGrid`` whose zones hold a ``RegionGrid`` (Cyrillic and
Latin names), a gridless box zone, and background regions."""

from __future__ import annotations

import math

import pytest
from lxml import etree

from vmodtool.scenario.loader import load_scenario
from vmodtool.scenario.locations import SPACE, AreaMap, Connection, Space, area_map, spaces_of_board
from vmodtool.scenario.problems import ScenarioProblems
from vmodtool.vassal.grid import Board, Region, RegionGrid, Zone, ZonedGrid

_B = "VASSAL.build.module.map.boardPicker"


def _zoned_board() -> Board:
    front = RegionGrid([Region("Бельфор", 100, 100), Region("Nancy", 100, 200), Region("Metz", 200, 200)])
    zone = Zone("Front", "0,0;300,0;300,300;0,300", location_format="$gridLocation$", grid=front)
    box = Zone("Reserve Box", "400,0;600,0;600,100;400,100")
    zoned = ZonedGrid([zone, box], background=RegionGrid([Region("Sea", 500, 500), Region("Hidden", 150, 150)]))
    return Board("Main", 800, 700, zoned)


def test_spaces_of_a_board_are_the_names_vassal_gives_their_points() -> None:
    board = _zoned_board()
    spaces = spaces_of_board(board)
    assert list(spaces) == ["Бельфор", "Nancy", "Metz", "Reserve Box", "Sea"]
    assert spaces["Бельфор"] == Space("Бельфор", (100, 100), "region", "Front")
    assert spaces["Reserve Box"].source == "zone" and spaces["Reserve Box"].zone == "Reserve Box"
    # a background region under a zone can name no piece: not a space
    assert "Hidden" not in spaces
    for name, space in spaces.items():
        assert space.point is not None and board.location_name(*space.point) == name


def test_a_region_sharing_an_origin_with_an_earlier_one_is_no_space() -> None:
    grid = RegionGrid([Region("A", 10, 10), Region("B", 10, 10), Region("C", 50, 10)])
    spaces = spaces_of_board(Board("b", 100, 100, grid))
    # VASSAL's HashMap keeps the later region under the point: one name of the two
    assert len(spaces) == 2 and "C" in spaces


def _graph() -> AreaMap:
    spaces = [Space(n) for n in ("Paris", "Nancy", "Belfort", "Metz", "Dijon", "Island")]
    return area_map(spaces, [Connection("Paris", "Nancy", "clear", 1), Connection("Nancy", "Belfort", "mountain", 2),
                             Connection("Nancy", "Metz"), Connection("Metz", "Belfort", "rail", 0.5),
                             Connection("Belfort", "Dijon")])


def test_neighbours_distance_and_path_cost() -> None:
    g = _graph()
    assert g.location_kind("Nancy") == SPACE and g.location_kind("0101") is None
    assert g.neighbours("Nancy") == ["Belfort", "Metz", "Paris"]
    assert g.adjacent("Belfort", "Nancy") and not g.adjacent("Paris", "Belfort")
    assert g.distance("Paris", "Dijon") == 3
    assert g.distance("Paris", "Paris") == 0
    assert g.distance("Paris", "Island") is None
    assert g.distance("Paris", "Atlantis") is None
    # Nancy → Metz → Belfort (1 + 0.5) is cheaper than the mountain line (2)
    assert g.path_cost("Nancy", "Belfort") == 1.5
    assert g.path_cost("Paris", "Dijon") == 3.5
    # a movement class's own costs: rail closed
    assert g.path_cost("Nancy", "Belfort", {"rail": math.inf}) == 2
    assert g.path_cost("Paris", "Island") is None


def _module(tmp_path):
    root = etree.Element("VASSAL.build.GameModule", name="Фронт", version="1.0")
    m = etree.SubElement(root, "VASSAL.build.module.Map", mapName="Карта")
    picker = etree.SubElement(m, "VASSAL.build.module.map.BoardPicker")
    board = etree.SubElement(picker, f"{_B}.Board", name="Board", width="800", height="700")
    zoned = etree.SubElement(board, f"{_B}.board.ZonedGrid")
    zone = etree.SubElement(zoned, f"{_B}.board.mapgrid.Zone", name="Front", path="0,0;300,0;300,300;0,300",
                            locationFormat="$gridLocation$", useParentGrid="false")
    grid = etree.SubElement(zone, f"{_B}.board.RegionGrid", snapto="true")
    for name, x, y in (("Бельфор", 100, 100), ("Nancy", 100, 200), ("Metz", 200, 200)):
        etree.SubElement(grid, f"{_B}.board.Region", name=name, originx=str(x), originy=str(y))
    etree.SubElement(zoned, f"{_B}.board.mapgrid.Zone", name="Reserve Box", path="400,0;600,0;600,100;400,100",
                     locationFormat="$name$", useParentGrid="false")
    path = tmp_path / "buildFile.xml"
    path.write_bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8"))
    return path


_SCENARIO = """\
schema: vmodtool/1
module: {{file: buildFile.xml, name: "Фронт"}}
game:
  id: front
  title: Front
  sides: [{{id: a, name: A}}, {{id: b, name: B}}]
map:
  from_module: Карта
  terrain_types:
    clear: {{code: ".", name: Clear}}
    mountain: {{code: "^", name: Mountain}}
  terrain: {{default: clear}}
{extra}
unit_types:
  inf:
    name: Infantry
    faces: [{{name: full, factors: {{move: 3}}}}]
binding:
  units: [{{match: {{name: "*"}}, type: inf, side: a}}]
rules: []
"""


def _write(tmp_path, extra: str):
    _module(tmp_path)
    path = tmp_path / "scenario.yaml"
    path.write_text(_SCENARIO.format(extra=extra), encoding="utf-8")
    return path


def test_an_area_map_from_a_module_loads_its_spaces_attributes_and_connections(tmp_path) -> None:
    (tmp_path / "lines.csv").write_text("a,b,kind\nNancy,Metz,rail\n", encoding="utf-8")
    path = _write(tmp_path, """\
  spaces:
    Бельфор: {terrain: mountain, fort: true, capacity: 2}
  connection_types:
    rail: {name: Rail, cost: 0.5}
  connections:
    - [Бельфор, Nancy]
    - [Nancy, Metz, clear]
  connections_csv: lines.csv""")
    scenario = load_scenario(path)
    areas = scenario.map.areas
    assert areas is not None and not areas.proposed
    assert list(areas.spaces) == ["Бельфор", "Nancy", "Metz", "Reserve Box"]
    assert areas.spaces["Бельфор"].attributes == {"terrain": "mountain", "fort": True, "capacity": 2}
    assert scenario.map.terrain["Бельфор"] == "mountain" and scenario.map.terrain["Nancy"] == "clear"
    assert areas.path_cost("Бельфор", "Metz") == 1.5          # the rail line is the cheaper of the two
    assert scenario.map.hex_ids == []


def test_area_problems_are_located(tmp_path) -> None:
    (tmp_path / "lines.csv").write_text("a,b\nNancy,Atlantis\n", encoding="utf-8")
    path = _write(tmp_path, """\
  spaces:
    Belfort: {fort: true}
  connections:
    - [Nancy, Nancy]
    - [Nancy, Metz, tunnel]
  connections_csv: lines.csv""")
    with pytest.raises(ScenarioProblems) as caught:
        load_scenario(path)
    text = "\n".join(str(p) for p in caught.value.problems)
    assert "map.spaces.Belfort: space 'Belfort' is not a space of the module's board" in text
    assert "a connection joins two different spaces; both are 'Nancy'" in text
    assert "connection kind 'tunnel' is not in map.connection_types" in text
    assert "lines.csv:2" in text and "space 'Atlantis' is not a space of the map" in text
    lines = {p.message: p.line for p in caught.value.problems}
    assert lines["a connection joins two different spaces; both are 'Nancy'"] == 16   # the item's own line


def test_area_keys_on_a_hex_map_are_refused(tmp_path) -> None:
    path = tmp_path / "scenario.yaml"
    path.write_text("""\
schema: vmodtool/1
game: {id: g, title: G, sides: [{id: a, name: A}]}
map:
  grid: {kind: hex, orientation: flat_top, hex_height: 64, columns: 2, rows: 2,
         numbering: {first: column, separator: "", column: {type: numeric, start: 1, leading_zeros: 1},
                     row: {type: numeric, start: 1, leading_zeros: 1}}}
  terrain_types: {clear: {code: ".", name: Clear}}
  terrain: {default: clear}
  connections: [["0101", "0102"]]
unit_types: {inf: {name: Inf, faces: [{name: full, factors: {move: 1}}]}}
counters: []
rules: []
""", encoding="utf-8")
    with pytest.raises(ScenarioProblems) as caught:
        load_scenario(path)
    assert any("map.connections is for an area map" in str(p) for p in caught.value.problems)
