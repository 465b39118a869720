"""Unit tests of the grid module: the worked examples of
``docs/vassal-format.md`` §5.5, the quirks of §5.6, rules-engine helpers and
building from buildFile elements.  (VASSAL's own answers on 555k points are
in ``test_grid_golden.py``.)"""

from __future__ import annotations

import math
from collections import deque

import pytest
from lxml import etree

from vmodtool.errors import FormatError
from vmodtool.vassal.grid import (
    DEFAULT_HEX_WIDTH,
    OFFBOARD,
    Board,
    BoardPlacement,
    HexGrid,
    JavaPolygon,
    LocationError,
    MapGeometry,
    Region,
    RegionGrid,
    SquareGrid,
    Zone,
    ZonedGrid,
    board_from_element,
    format_index,
    grid_from_element,
)

SPI = dict(dx="55.4256", dy="64", x0="40", y0="50", sideways="false")
SPI_NUMBERING = dict(stagger="false", hOff="1", vOff="1", hLeading="1", vLeading="1",
                     first="H", sep="")


def spi_grid(size=(1000, 800)) -> HexGrid:
    """The grid of §5.5 (a)."""
    return HexGrid.from_attributes(SPI, SPI_NUMBERING, size)


def sideways_grid() -> HexGrid:
    """The grid of §5.5 (c)."""
    return HexGrid.from_attributes(dict(dx="60", dy="69.28", x0="35", y0="40", sideways="true"),
                                   dict(stagger="true"), (900, 700))


# --------------------------------------------------------------------------
# §5.5 worked examples

def test_example_a_flat_topped_spi():
    grid = spi_grid()
    assert grid.raw_column_row(280, 180) == (4, 2)
    assert grid.location_name(280, 180) == "0503"
    assert grid.get_location("0503") == (261, 178)
    assert grid.get_location("0603") == (317, 210)  # odd column half a hex lower


def test_example_b_real_module_cut_off_column_zero():
    grid = HexGrid.from_attributes(
        dict(dx="80.88337155288302", dy="93.90000000000086", x0="22", y0="-4"),
        dict(stagger="true", hOff="0", vOff="0", hLeading="1", vLeading="1", first="H"),
        (750, 750))
    assert grid.get_location("0305") == (264, 418)
    assert grid.location_name(264, 418) == "0305"
    assert grid.location_name(22, -4) == "0000"
    assert grid.location_name(102, 42) == "0101"
    assert grid.location_name(183, 89) == "0201"
    assert grid.location_name(264, 42) == "0301"


def test_example_c_sideways():
    grid = sideways_grid()
    assert grid.get_location("0101") == (40, 35)
    assert grid.get_location("0102") == (109, 35)
    assert grid.get_location("0201") == (6, 95)
    assert grid.get_location("0302") == (109, 155)
    assert grid.location_name(179, 155) == "0303"
    for name in ("0101", "0102", "0201", "0302"):
        assert grid.location_name(*grid.get_location(name)) == name


def test_example_d_two_boards():
    north = Board("North", 1000, 800, spi_grid())
    south = Board("South", 1000, 800, spi_grid())
    geometry = MapGeometry([BoardPlacement(north, 0, 0), BoardPlacement(south, 0, 1)],
                           edge_width=20, edge_height=20)
    assert geometry.placement_of("South").origin == (20, 820)
    placement, local = geometry.to_board(300, 1000)
    assert placement.board is south and local == (280, 180)
    assert geometry.location_name(300, 1000) == "0503"
    assert geometry.board_at(300, 200).board is north
    assert geometry.to_map("South", 261, 178) == (281, 998)
    assert geometry.point_of("South", "0503") == (281, 998)


# --------------------------------------------------------------------------
# map geometry

def test_offboard_semantics():
    gridless = Board("Plain", 100, 100)
    no_numbering = Board("Bare", 100, 100, HexGrid.from_attributes({}, None, (100, 100)))
    geometry = MapGeometry([BoardPlacement(gridless, 0, 0), BoardPlacement(no_numbering, 1, 0)],
                           edge_width=10, edge_height=10)
    assert geometry.location_name(5, 5) == OFFBOARD          # in the edge
    assert geometry.location_name(50, 50) == OFFBOARD        # board without grid
    assert geometry.location_name(150, 50) == OFFBOARD       # grid without numbering
    assert geometry.location_name(210, 50) == OFFBOARD       # right of the boards
    assert geometry.board_at(110, 50).board is no_numbering  # right edge belongs to the next
    # snapping still works on a grid without numbering
    assert geometry.snap_to(150, 50) != (150, 50)


def test_reversed_board_turns_points():
    board = Board("Main", 1000, 800, spi_grid(), reversed=True)
    geometry = MapGeometry.single(board)
    assert geometry.to_board(720, 620)[1] == (280, 180)
    assert geometry.location_name(720, 620) == "0503"
    assert geometry.to_map("Main", 261, 178) == (739, 622)
    assert geometry.snap_to(720, 620) == (739, 622)


def test_map_snap_moves_one_pixel_overhang_back():
    # a square grid whose cell centres lie on the board's right edge
    grid = SquareGrid(dx=100, dy=100, x0=100, y0=50, container_size=(100, 100))
    geometry = MapGeometry.single(Board("B", 100, 100, grid))
    assert grid.snap_to(90, 50) == (100, 50)
    assert geometry.snap_to(90, 50) == (99, 50)


# --------------------------------------------------------------------------
# neighbours, distance, hex centres

def _bfs_distances(grid: HexGrid, start: str, limit: int):
    seen = {start: 0}
    queue = deque([start])
    while queue:
        label = queue.popleft()
        if seen[label] == limit:
            continue
        for other in grid.neighbours(label):
            if other not in seen:
                seen[other] = seen[label] + 1
                queue.append(other)
    return seen


def test_neighbours_even_and_odd_columns():
    grid = spi_grid()
    # 0503: raw column 4 (even); 0603: raw column 5, drawn half a hex lower
    assert sorted(grid.neighbours("0503")) == ["0402", "0403", "0502", "0504", "0602", "0603"]
    assert sorted(grid.neighbours("0603")) == ["0503", "0504", "0602", "0604", "0703", "0704"]
    # every neighbour's centre is one hex away and all six are distinct
    centre = grid.get_location("0603")
    for name in grid.neighbours("0603"):
        x, y = grid.get_location(name)
        assert math.isclose(math.hypot(x - centre[0], y - centre[1]), 64, rel_tol=0.03)


def test_neighbours_sideways_and_within():
    grid = sideways_grid()
    assert sorted(grid.neighbours("0202")) == ["0101", "0102", "0201", "0203", "0301", "0302"]
    centre = grid.get_location("0302")
    for name in grid.neighbours("0302"):
        x, y = grid.get_location(name)
        assert math.isclose(math.hypot(x - centre[0], y - centre[1]), 69.28, rel_tol=0.03)
    # top-left corner hex: only neighbours whose centres are on the board
    assert sorted(grid.neighbours("0101", within=(900, 700))) == ["0102", "0201", "0202"]


@pytest.mark.parametrize("make", [spi_grid, sideways_grid], ids=["flat", "sideways"])
def test_distance_matches_neighbour_graph(make):
    grid = make()
    for start in ("0503", "0604", "0101"):
        for label, steps in _bfs_distances(grid, start, 5).items():
            assert grid.distance(start, label) == steps
            assert grid.distance(label, start) == steps


def test_distance_with_stagger_true_origin_column_zero():
    grid = HexGrid.from_attributes(dict(dx="80.88", dy="93.9", x0="22", y0="-4"),
                                   dict(stagger="true", hOff="0", vOff="0"), (750, 750))
    assert grid.distance("0101", "0201") == 1
    assert grid.distance("0101", "0301") == 2
    assert grid.distance("0101", "0105") == 4
    assert grid.distance("0000", "0505") == 7


def test_hex_centres_cover_board_and_name_themselves():
    grid = spi_grid()
    centres = dict(grid.hex_centres(200, 200))
    assert set(centres) == {"0101", "0102", "0103", "0200", "0201", "0202", "0301", "0302", "0303"}
    assert centres["0103"] == (40, 178)
    full = list(grid.hex_centres())
    assert len(full) == len({name for name, _ in full})
    for name, (x, y) in full:
        assert 0 <= x < 1000 and 0 <= y < 800
        assert grid.location_name(x, y) == name
        assert grid.snap_to(x, y) == (x, y)


def test_raw_index_of_inverts_naming_where_get_location_does_not():
    # stagger + hDescend with an odd maxColumns: getLocation never round-trips
    grid = HexGrid.from_attributes(dict(dx="55.4256", dy="64", x0="40", y0="50"),
                                   dict(stagger="true", hDescend="true"), (960, 800))
    assert grid.max_columns == 15
    name = grid.location_name(317, 210)
    assert grid.location_name(*grid.get_location(name)) != name   # §5.6 quirk 2
    assert grid.raw_index_of(name) == grid.raw_column_row(317, 210)
    assert grid.name_of_raw(*grid.raw_index_of(name)) == name


# --------------------------------------------------------------------------
# quirks (§5.6) and attribute semantics (§2.1, §2.4.5)

def test_max_rows_uses_dx_and_max_columns_dy():
    grid = HexGrid.from_attributes(dict(dx="55.43", dy="64"), dict(vDescend="true"), (1000, 800))
    assert grid.max_rows == 14          # floor(800 / 55.43 + 0.5), not 800 / 64
    assert grid.max_columns == 16       # floor(1000 / 64 + 0.5)
    # "row 1" lands below the 800-px board
    assert grid.get_location("0101")[1] == int(14 * 64.0) + 32


def test_dy_resets_default_dx():
    absent = HexGrid.from_attributes(dict(dy="80"), {}, (800, 600))
    assert absent.dx == math.sqrt(3) / 2 * 80
    explicit_default = HexGrid.from_attributes(dict(dx=repr(DEFAULT_HEX_WIDTH), dy="80"), {},
                                               (800, 600))
    assert explicit_default.dx == math.sqrt(3) / 2 * 80
    assert explicit_default.attribute_strings()["dx"] == "69.28203230275508"
    kept = HexGrid.from_attributes(dict(dx="60", dy="80"), {}, (800, 600))
    assert kept.dx == 60.0


def test_attribute_read_back_strings():
    grid = HexGrid.from_attributes(dict(dx="60", dy="64", x0="+5", snapTo="TRUE",
                                        edgesLegal="yes", snapscale="2", color="0xFF0000"),
                                   dict(first="Vertical first", hType="Alphabetic"), (800, 600))
    attrs = grid.attribute_strings()
    assert attrs["dy"] == "64.0" and attrs["dx"] == "60.0" and attrs["x0"] == "5"
    assert attrs["snapTo"] == "true" and attrs["edgesLegal"] == "false"
    assert attrs["snapscale"] == "2" and attrs["color"] == "255,0,0"
    numbering = grid.numbering.attribute_strings()
    assert numbering["first"] == "V" and numbering["hType"] == "A"
    assert numbering["stagger"] == "true"          # the default (§2.4.6)
    assert numbering["locationFormat"] == "$gridLocation$"


def test_double_forms_java_accepts():
    for text in ("64", " 64 ", "64d", "6.4e1", "640E-1", "64.", "0x1p6"):
        assert HexGrid.from_attributes(dict(dy=text, dx="50"), None).dy == 64.0


@pytest.mark.parametrize("component,attrs,numbering,bad", [
    ("HexGrid", dict(x0="12.5"), None, "x0='12.5'"),
    ("HexGrid", dict(y0=""), None, "y0=''"),
    ("HexGrid", dict(dx="1,5"), None, "dx='1,5'"),
    ("HexGrid", dict(snapscale="two"), None, "snapscale='two'"),
    ("HexGrid", dict(x0="99999999999"), None, "x0='99999999999'"),
    ("HexGridNumbering", {}, dict(hLeading="1.0"), "hLeading='1.0'"),
    ("HexGridNumbering", {}, dict(vOff="one"), "vOff='one'"),
    ("HexGridNumbering", {}, dict(first=""), "first=''"),
])
def test_malformed_numbers_are_format_errors(component, attrs, numbering, bad):
    with pytest.raises(FormatError) as info:
        HexGrid.from_attributes(attrs, numbering, (100, 100))
    assert component in str(info.value) and bad in str(info.value)


def test_malformed_numbers_in_other_components():
    with pytest.raises(FormatError, match="SquareGrid attribute y0='1.5'"):
        SquareGrid.from_attributes(dict(y0="1.5"), None)
    with pytest.raises(FormatError, match="Region attribute originx='a'"):
        Region.from_attributes(dict(name="A", originx="a"))
    element = etree.fromstring('<VASSAL.build.module.map.boardPicker.Board name="B" width="5.5"/>')
    with pytest.raises(FormatError, match="Board attribute width='5.5'"):
        board_from_element(element)


def test_zero_spacing_is_rejected():
    with pytest.raises(FormatError, match="dx"):
        HexGrid.from_attributes(dict(dx="0"), None)


def test_label_formatting():
    assert [format_index(n, "N", 1) for n in (5, 12, 0, -1)] == ["05", "12", "00", "-01"]
    assert [format_index(n, "N", 2) for n in (5, 50, 100)] == ["005", "050", "100"]
    assert format_index(7, "N", 0) == "7"
    assert [format_index(n, "A", 1) for n in (0, 25, 26, 27, 52, -1)] == \
        ["A", "Z", "AA", "BB", "AAA", "-B"]


def test_short_label_does_not_parse():
    grid = spi_grid()
    with pytest.raises(LocationError):
        grid.get_location("53")       # leading 1 requires two digits
    with pytest.raises(LocationError):
        grid.get_location("05x03")


def test_greedy_parse_of_ambiguous_names():
    grid = HexGrid.from_attributes(dict(dx="55.4256", dy="64", x0="40", y0="50"),
                                   dict(stagger="false", hLeading="0", vLeading="0",
                                        hOff="0", vOff="0"), (2000, 2000))
    # col 1 row 11 and col 11 row 1 are both named "111"; the regex is greedy
    assert grid.name_of_raw(1, 11) == grid.name_of_raw(11, 1) == "111"
    assert grid.get_location("111") == grid.center_point(11, 1)


def test_location_formats():
    grid = HexGrid.from_attributes(SPI, dict(SPI_NUMBERING, locationFormat="$column$-$row$"),
                                   (1000, 800))
    assert grid.location_name(280, 180) == "05-03"
    assert grid.get_location("05-03") == (261, 178)
    prefixed = HexGrid.from_attributes(SPI, dict(SPI_NUMBERING, locationFormat="Hex $gridLocation$"),
                                       (1000, 800))
    assert prefixed.location_name(280, 180) == "Hex 0503"
    assert prefixed.get_location("Hex 0503") == (261, 178)
    column_only = HexGrid.from_attributes(SPI, dict(SPI_NUMBERING, locationFormat="C$column$$foo$"),
                                          (1000, 800))
    assert column_only.location_name(280, 180) == "C05"   # unknown $foo$ is empty
    with pytest.raises(LocationError):
        column_only.get_location("C05")                    # no row group: BadCoords


def test_snapping_modes():
    grid = spi_grid()
    assert grid.snap_to(270, 170) == (261, 178)
    off = HexGrid.from_attributes(dict(SPI, snapTo="false"), SPI_NUMBERING, (1000, 800))
    assert off.snap_to(270, 170) == (270, 170)
    assert off.snap_to(270, 170, force=True) == (261, 178)
    edges = HexGrid.from_attributes(dict(SPI, edgesLegal="true"), SPI_NUMBERING, (1000, 800))
    assert edges.snap_to(261, 150) == (261, 146)           # top side midpoint of 0503
    assert edges.snap_to(261, 150, center_only=True) == (261, 178)


def test_corners_legal_left_of_origin():
    grid = HexGrid.from_attributes(dict(dx="64.95", dy="75", x0="37", y0="12",
                                        cornersLegal="true"), None, (800, 600))
    # centre of raw column -1: the corner arithmetic truncates toward zero
    centre_u = int(64.95 * -1 + 37)
    snapped = grid.snap_to(centre_u, 12 + 37)
    assert snapped[0] - centre_u == 43


# --------------------------------------------------------------------------
# polygons and zones

def test_java_polygon_insideness():
    square = JavaPolygon.from_path("10,10;20,10;20,20;10,20")
    assert square.contains(10, 10) and square.contains(19, 19)
    assert not square.contains(20, 15) and not square.contains(15, 20)
    assert square.bounds_size() == (10, 10)
    assert not JavaPolygon.from_path("1,1;5,5").contains(2, 2)
    # unparsable vertices are skipped, as VASSAL does
    assert JavaPolygon.from_path("0,0;x,3;10,0;10,10;0,10").npoints == 4


def _zoned() -> ZonedGrid:
    background = spi_grid()
    box = Zone("Box", "0,0;100,0;100,100;0,100")
    hexes = Zone("Hexes", "200,0;600,0;600,400;200,400", location_format="Z $gridLocation$",
                 use_parent_grid=True)
    track = Zone("Track", "700,0;800,0;800,100;700,100", location_format="$name$ $gridLocation$",
                 grid=SquareGrid.from_attributes(dict(dx="20", dy="20", x0="710", y0="10"),
                                                 dict(hLeading="0", vLeading="0"), (100, 100)))
    return ZonedGrid([box, hexes, track], background)


def test_zoned_grid_dispatch():
    zoned = _zoned()
    assert zoned.location_name(50, 50) == "Box"
    assert zoned.snap_to(50, 50) == (50, 50)                 # gridless zone: no snap
    assert zoned.location_name(280, 180) == "Z 0503"
    assert zoned.snap_to(270, 170) == (261, 178)
    assert zoned.location_name(650, 500) == "1208"           # background
    assert zoned.location_name(712, 31) == "Track 12"
    assert zoned.snap_to(712, 31) == (710, 30)
    assert zoned.get_location("Box") == (50, 50)             # mean of the vertices
    assert zoned.get_location("Z 0503") == (261, 178)
    assert zoned.get_location("Track 12") == (710, 30)
    assert zoned.get_location("1208") == zoned.background.get_location("1208")
    with pytest.raises(LocationError):
        zoned.get_location("Z 0101")   # the centre lies outside the zone → background fails too


def test_concave_gridless_zone_locates_first_vertex():
    zone = Zone("L", "0,0;100,0;100,10;10,10;10,100;0,100")
    assert not zone.contains(36, 36)
    assert zone.get_location("L") == (0, 0)


# --------------------------------------------------------------------------
# square and region grids

def test_square_grid_naming_truncates_rows():
    grid = SquareGrid.from_attributes(dict(dx="50", dy="50", x0="25", y0="25"),
                                      dict(hOff="1", vOff="1"), (500, 500))
    assert grid.location_name(25, 25) == "0101"
    assert grid.location_name(80, 130) == "0203"
    # (y - y0)/dy + 0.5 = -0.3: truncation gives row 0, floor would give -1
    assert grid.location_name(25, -15) == "0101"
    assert grid.location_name(-15, 25) == "0001"
    assert grid.get_location("0203") == (75, 125)
    assert grid.snap_to(80, 130) == (75, 125)
    edges = SquareGrid(dx=50, dy=50, x0=25, y0=25, edges_legal=True)
    assert edges.snap_to(48, 27) == (50, 25)
    corners = SquareGrid(dx=50, dy=50, x0=25, y0=25, corners_legal=True)
    assert corners.snap_to(48, 48) == (50, 50)


def test_square_grid_descending():
    grid = SquareGrid.from_attributes(dict(dx="50", dy="50", x0="25", y0="25"),
                                      dict(vDescend="true", hOff="0", vOff="0"), (500, 300))
    assert grid.max_rows == 6
    assert grid.location_name(25, 25) == "0006"
    assert grid.get_location("0006") == (25, 25)


def test_region_grid():
    regions = [Region("North", 100, 100), Region("South", 100, 300), Region("Twin", 100, 100)]
    grid = RegionGrid(regions)
    assert grid.location_name(90, 120) == "Twin"     # same origin: the later region replaces
    assert grid.location_name(100, 260) == "South"
    assert grid.snap_to(90, 120) == (100, 100)
    assert grid.get_location("South") == (100, 300)
    with pytest.raises(LocationError):
        grid.get_location("North")
    off = RegionGrid.from_attributes(dict(snapto="TRUE"), regions)   # only "true" exactly
    assert off.snap_to(90, 120) == (90, 120)
    assert RegionGrid().location_name(1, 1) is None


# --------------------------------------------------------------------------
# building from elements

BOARD_XML = """
<VASSAL.build.module.map.boardPicker.Board name="Main" image="map.png" reversible="true">
  <!-- a comment -->
  <VASSAL.build.module.map.boardPicker.board.ZonedGrid>
    <VASSAL.build.module.map.boardPicker.board.mapgrid.ZonedGridHighlighter/>
    <VASSAL.build.module.map.boardPicker.board.mapgrid.Zone name="Box" path="0,0;100,0;100,100;0,100"
        locationFormat="$name$" useParentGrid="false"/>
    <VASSAL.build.module.map.boardPicker.board.mapgrid.Zone name="Inner" path="200,0;800,0;800,600;200,600"
        locationFormat="$gridLocation$" useParentGrid="false">
      <VASSAL.build.module.map.boardPicker.board.HexGrid dx="55.4256" dy="64" x0="40" y0="50">
        <VASSAL.build.module.map.boardPicker.board.mapgrid.HexGridNumbering vDescend="true"
            stagger="false"/>
      </VASSAL.build.module.map.boardPicker.board.HexGrid>
    </VASSAL.build.module.map.boardPicker.board.mapgrid.Zone>
    <VASSAL.build.module.map.boardPicker.board.HexGrid dx="55.4256" dy="64" x0="40" y0="50">
      <VASSAL.build.module.map.boardPicker.board.mapgrid.HexGridNumbering stagger="false"/>
    </VASSAL.build.module.map.boardPicker.board.HexGrid>
  </VASSAL.build.module.map.boardPicker.board.ZonedGrid>
</VASSAL.build.module.map.boardPicker.Board>
"""


def test_board_from_element():
    board = board_from_element(etree.fromstring(BOARD_XML), 1000, 800)
    assert (board.name, board.width, board.height, board.reversible) == ("Main", 1000, 800, True)
    zoned = board.grid
    assert isinstance(zoned, ZonedGrid) and [z.name for z in zoned.zones] == ["Box", "Inner"]
    inner = zoned.zones[1].grid
    assert inner.container_size == (600, 600)         # the zone's bounding box
    assert inner.max_rows == math.floor(600 / 55.4256 + 0.5)
    assert zoned.background.container_size == (1000, 800)
    assert board.location_name(50, 50) == "Box"
    assert board.location_name(280, 180) == inner.location_name(280, 180)
    assert board.location_name(900, 700) == zoned.background.location_name(900, 700)


def test_grid_from_element_other_tags():
    square = grid_from_element(etree.fromstring(
        '<VASSAL.build.module.map.boardPicker.board.SquareGrid dx="10" dy="10" x0="5" y0="5">'
        '<VASSAL.build.module.map.boardPicker.board.mapgrid.SquareGridNumbering hOff="0"/>'
        '</VASSAL.build.module.map.boardPicker.board.SquareGrid>'), (100, 100))
    assert isinstance(square, SquareGrid) and square.location_name(5, 5) == "0001"
    regions = grid_from_element(etree.fromstring(
        '<VASSAL.build.module.map.boardPicker.board.RegionGrid snapto="true">'
        '<VASSAL.build.module.map.boardPicker.board.Region name="A" originx="10" originy="10"/>'
        '<VASSAL.build.module.map.boardPicker.board.Region name="B" originx="90" originy="10"/>'
        '</VASSAL.build.module.map.boardPicker.board.RegionGrid>'), (100, 100))
    assert isinstance(regions, RegionGrid) and regions.location_name(60, 0) == "B"
    assert grid_from_element(etree.fromstring("<some.other.Grid/>"), (1, 1)) is None
    plain = board_from_element(etree.fromstring(
        '<VASSAL.build.module.map.boardPicker.Board name="P"/>'))
    assert (plain.width, plain.height, plain.grid) == (500, 500, None)


def _java_nearest(grid: RegionGrid, x: int, y: int) -> tuple[int, int]:
    """``RegionGrid`` 's loop as VASSAL runs it: int distances that wrap in 32
    bits, the first of the least in HashMap order."""
    best, best_dist = (x, y), math.inf
    for ox, oy in grid._origins:
        d = ((x - ox) * (x - ox) + (y - oy) * (y - oy)) & 0xFFFFFFFF
        d = d - (1 << 32) if d >= 1 << 31 else d
        if d < best_dist:
            best, best_dist = (ox, oy), d
    return best


def test_region_grid_nearest_is_the_java_loop_s_answer_near_and_far():
    """The nearest origin found at once (at an origin, or no distance can
    wrap) is the one VASSAL's loop finds; far points (distances past 32
    bits) still wrap as Java's do."""
    import random
    rnd = random.Random(42)
    regions = [Region(f"R{i}", rnd.randrange(0, 3000), rnd.randrange(0, 3000)) for i in range(300)]
    regions += [Region("tie-a", 500, 500), Region("tie-b", 520, 500), Region("tie-c", 510, 520)]
    grid = RegionGrid(regions)
    points = [(r.x, r.y) for r in regions] + [(510, 500), (510, 510)]
    points += [(rnd.randrange(-200, 3200), rnd.randrange(-200, 3200)) for _ in range(500)]
    points += [(rnd.randrange(-100000, 100000), rnd.randrange(-100000, 100000)) for _ in range(200)]
    for x, y in points:
        assert grid.snap_to(x, y) == _java_nearest(grid, x, y), (x, y)
    assert grid.snap_to(60000, 60000) == _java_nearest(grid, 60000, 60000)   # (a wrapped distance wins)
