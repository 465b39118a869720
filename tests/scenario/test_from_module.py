"""The scenario skeleton ``vmodtool import`` writes (vmodtool.scenario.from_module):
what it proposes for real modules, that it loads, and that any name survives."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.conftest import shared_path
from vmodtool.replay import load_board_sizes
from vmodtool.scenario import load_scenario
from vmodtool.scenario.from_module import scenario_from_module, yaml_text
from vmodtool.scenario.model import SIDE_PALETTE
from vmodtool.vassal.buildfile import BuildFile
from vmodtool.vassal.module import Module
from vmodtool.vassal.traits import BasicPiece, Embellishment, Marker, UsePrototype, build_piece

DEMO = Path(__file__).resolve().parents[2] / "examples" / "formats" / "demo.vmod"


def _write(tmp_path: Path, module: Module, sizes=None, name: str = "scenario.yaml") -> tuple[Path, dict]:
    out = tmp_path / name
    result = scenario_from_module(module, module_file=str(Path(module.file).resolve()), board_sizes=sizes)
    out.write_text(result.text, encoding="utf-8")
    return out, yaml.safe_load(result.text)


@pytest.fixture(scope="module")
def tld(tmp_path_factory):
    folder = shared_path("corpus", "tld")
    sizes = load_board_sizes(folder / "board-sizes.json")
    with Module.open(folder / "buildFile") as module:
        result = scenario_from_module(module, module_file="buildFile", board_sizes=sizes)
    out = tmp_path_factory.mktemp("tld") / "tld.yaml"
    out.write_text(result.text, encoding="utf-8")
    return result, yaml.safe_load(result.text), out, folder


def test_tld_sides_map_units_and_faces(tld):
    result, data, _, _ = tld
    assert [s["name"] for s in data["game"]["sides"]] == ["American", "British", "German"]
    assert data["map"] == {"from_module": "Normandy", "terrain_types": data["map"]["terrain_types"],
                           "terrain": {"default": "clear"}}
    assert data["module"]["name"] == "The Longest Day"
    assert data["module"]["board_sizes"] == {"Normandy": [5340, 5024]}
    binding = data["binding"]
    assert binding["sides"] == [{"side": "american", "match": {"palette": "*/American/*"}},
                                {"side": "british", "match": {"palette": "*/British/*"}},
                                {"side": "german", "match": {"palette": "*/German/*"}}]
    assert binding["units"][0] == {"match": {"prototype": "Unit"}, "type": "unit"}
    assert {"match": {"prototype": "Air"}, "type": "air"} in binding["units"]
    assert data["unit_types"]["unit"]["name"] == "Unit"
    assert [f["name"] for f in data["unit_types"]["unit"]["faces"]] == ["front", "back"]
    assert [f["name"] for f in data["unit_types"]["air"]["faces"]] == ["front"]   # no flip layer
    assert binding["faces"] == {"layer": "Flip"}
    assert {"match": {"name": "DISRUPT"}, "kind": "disrupt"} in binding["markers"]
    assert data["markers"]["disrupt"]["representation"] == "counter"
    # the other windows are boxes, with roles their names suggest
    boxes = {b["name"]: b for b in data["boxes"]}
    assert "Normandy" not in boxes
    assert boxes["Allied Remnants"]["role"] == "dead"
    assert boxes["Turn, Rail, & Port Tracks"]["module"] == {"map": "Turn, Rail, & Port Tracks"}
    assert boxes["German Entry Schedule"]["side"] == "german"
    assert data["rules"] == []
    assert (result.sides, result.unit_types, result.missing_board_sizes) == (3, 3, ())


def test_tld_scenario_loads_with_the_module_map(tld):
    _, _, out, folder = tld
    scenario = load_scenario(out, module=folder / "buildFile")
    assert scenario.map.module_map == "Normandy"
    assert len(scenario.map.hex_ids) > 1000
    assert {s.id for s in scenario.game.sides} == {"american", "british", "german"}
    assert scenario.binding.faces is not None and scenario.binding.faces.layer == "Flip"
    assert not scenario.binding.implied
    assert scenario.binding.units[0].type == "unit"
    assert {b.module_map for b in scenario.boxes} >= {"Allied Remnants"}


def test_tld_division_markers_are_proposed_as_markers_before_units(tld):
    """The American infantry divisions' pieces named by the division's
    number ("90" ×3 in "90 Inf Div") share the units' prototype: proposed as
    one marker kind tried before the units, not as units (issue 43)."""
    result, data, out, folder = tld
    entry = next(m for m in data["binding"]["markers"] if m.get("before_units"))
    assert "90" in entry["match"]["name"] and "Pieces/American/90 Inf Div" in entry["match"]["palette"]
    assert entry["kind"] in data["markers"]
    assert not any("Ind Arty" in p or "Rem & Repl" in p for p in entry["match"]["palette"])
    sizes = load_board_sizes(folder / "board-sizes.json")
    scenario = load_scenario(out, module=folder / "buildFile", board_sizes=sizes)
    assert any(m.before_units for m in scenario.binding.markers)


def test_pieces_on_no_side_are_offered_as_terrain(tld):
    """TLD's fortifications are on no side: the binding offers them as terrain
    (commented: the user says which terrain type they are)."""
    result, data, out, folder = tld
    assert "terrain" not in data["binding"]
    assert '#  - {match: {prototype: "Fortification"}, terrain: TYPE}' in result.text


def test_the_same_module_gives_the_same_text():
    folder = shared_path("corpus", "tld")
    sizes = load_board_sizes(folder / "board-sizes.json")
    texts = set()
    for _ in range(2):
        with Module.open(folder / "buildFile") as module:
            texts.add(scenario_from_module(module, module_file="m", board_sizes=sizes).text)
    assert len(texts) == 1


def test_a_board_without_size_is_named_and_left_to_fill_in():
    with Module.open(shared_path("corpus", "tld", "buildFile")) as module:
        result = scenario_from_module(module, module_file="buildFile")
    assert result.missing_board_sizes == ("Normandy",)
    assert any("Normandy" in note and "--board-size" in note for note in result.notes)
    assert '#   "Normandy": [WIDTH, HEIGHT]' in result.text
    assert "board_sizes" not in yaml.safe_load(result.text)["module"]


def test_a_side_property_gives_the_sides():
    """Paths of Glory has no side folders; its pieces say Side: AP / CP."""
    with Module.open(shared_path("corpus", "pog", "buildFile.xml")) as module:
        data = yaml.safe_load(scenario_from_module(module, module_file="m").text)
    assert {s["id"] for s in data["game"]["sides"]} == {"ap", "cp"}
    assert {"side": "ap", "match": {"property": {"Side": "AP"}}} in data["binding"]["sides"]
    assert data["binding"]["units"][0] == {"match": {"prototype": "Unit"}, "type": "unit"}
    assert data["log"]["turn_tracker"]["component"] == "Turn"
    assert data["log"]["turn_tracker"]["levels"] == {"turn": "Turn", "side": None, "phase": None}


def test_a_prototype_only_units_use_groups_them_through_sub_prototypes():
    """Vive l'Empereur: pieces use 'French Unit' etc., which use 'Unit'."""
    with Module.open(shared_path("corpus", "vivelemperor", "buildFile.xml")) as module:
        data = yaml.safe_load(scenario_from_module(module, module_file="m").text)
    assert data["binding"]["units"] == [{"match": {"prototype": "Unit"}, "type": "unit"}]
    assert [s["name"] for s in data["game"]["sides"]] == ["France", "Anglo-Allies", "Prussia"]
    # the colours sides without a fill get (Okabe-Ito, for colour-blind readers), each side its own
    assert [(s["fill"], s["ink"]) for s in data["game"]["sides"]] == [(f, "#000000") for f in SIDE_PALETTE[:3]]
    assert "2d6" in data["game"]["dice"] and "5d6" in data["game"]["dice"]


def test_a_module_without_a_hex_map_gets_a_placeholder_that_loads(tmp_path):
    path = shared_path("corpus", "table-battles-fallujah", "buildFile.xml")     # boards without grids
    with Module.open(path) as module:
        result = scenario_from_module(module, module_file=str(path))
    data = yaml.safe_load(result.text)
    assert "from_module" not in data["map"] and data["map"]["grid"]["kind"] == "hex"
    assert "# from_module" not in result.text and "PLACEHOLDER" in result.text
    assert any("no map window with a hex grid" in n for n in result.notes)
    out = tmp_path / "fallujah.yaml"
    out.write_text(result.text, encoding="utf-8")
    assert load_scenario(out).map.module_map is None


def test_a_hex_grid_of_one_zone_is_the_map(tmp_path):
    """Ragnarok's board is a ZonedGrid with no background grid: its hexes are
    the HexGrid of its zone "map" (issue 43, item 7).  Import proposes that
    board, as ``from_module`` typed by hand takes it, not a placeholder."""
    folder = shared_path("corpus", "ragnarok")
    sizes = load_board_sizes(folder / "board-sizes.json")
    with Module.open(folder / "buildFile.xml") as module:
        result = scenario_from_module(module, module_file=str(folder / "buildFile.xml"), board_sizes=sizes)
    data = yaml.safe_load(result.text)
    assert data["map"]["from_module"] == "Main Map" and "grid" not in data["map"]
    assert "PLACEHOLDER" not in result.text and 'the hex grid of zone "map"' in result.text
    assert not any("placeholder" in n for n in result.notes)
    out = tmp_path / "ragnarok.yaml"
    out.write_text(result.text, encoding="utf-8")
    scenario = load_scenario(out, board_sizes=sizes)
    assert (scenario.map.module_map, scenario.map.module_board) == ("Main Map", "Map")
    assert len(scenario.map.grid.hexes) == 467


def test_a_module_of_regions_gets_an_area_map(tmp_path):
    """Issue 42: Hannibal's main map is a RegionGrid: its spaces are the map."""
    path = shared_path("corpus", "hannibal", "buildFile")
    with Module.open(path) as module:
        result = scenario_from_module(module, module_file=str(path))
    data = yaml.safe_load(result.text)
    assert data["map"]["from_module"] == "Main Map" and data["map"]["connections_proposed"] is True
    assert any("PROPOSAL" in n for n in result.notes)
    out = tmp_path / "hannibal.yaml"
    out.write_text(result.text, encoding="utf-8")
    areas = load_scenario(out).map.areas
    assert areas is not None and "Latium - Rome" in areas.spaces


def test_the_demo_module(tmp_path):
    with Module.open(DEMO) as module:
        out, data = _write(tmp_path, module)
    assert data["map"]["from_module"] == "Main Map"
    assert data["game"]["dice"] == ["2d6"]
    assert load_scenario(out).map.module_map == "Main Map"


# -- any name survives ---------------------------------------------------------------

TRICKY = ["Армия: «Север» # 1", 'He said "go" & left', "a\\b", "tab\there", "line\nbreak", "bidi \u202eevil",
          "- dash", "yes", "0503", "{brace}, [list]", "Ω ünïcödé 漢字", "nel\x85x", "*star?"]


@pytest.mark.parametrize("text", TRICKY)
def test_yaml_text_reads_back_as_the_same_text(text):
    quoted = yaml_text(text)
    assert "\n" not in quoted and "\u202e" not in quoted and "\x85" not in quoted
    assert yaml.safe_load(f"key: {quoted}")["key"] == text
    assert yaml.safe_load(f"{{a: {quoted}, b: 1}}") == {"a": text, "b": 1}
    assert yaml.safe_load(f"- {quoted}   # {quoted}") == [text]


def _unicode_module(tmp_path: Path) -> Path:
    """A small module whose every name is hard to write in YAML."""
    def piece(proto: str, name: str, flip: bool) -> str:
        traits = [UsePrototype.build(prototype_name=proto)]
        if flip:
            traits.append(Embellishment.build(activate_command="Переворот", image_names=["b.png"], level_names=[""],
                                              always_active=False))
        traits.append(BasicPiece.build(image="f.png", piece_name=name))
        return build_piece(*traits).encode()

    bf = BuildFile.new(attributes=[("name", "Битва: «Север» & #1"), ("version", "1.0")])
    root = bf.root
    from lxml import etree

    proto_container = etree.SubElement(root, "VASSAL.build.module.PrototypesContainer")
    for name in ("Отряд", 'Marker "M"'):
        el = etree.SubElement(proto_container, "VASSAL.build.module.PrototypeDefinition", name=name)
        el.text = build_piece(Marker.build(properties={"Kind": "x"}), BasicPiece.build()).encode()
    window = etree.SubElement(root, "VASSAL.build.module.PieceWindow", name="Фишки")
    tab = etree.SubElement(window, "VASSAL.build.widget.TabWidget", entryName="")
    for side, units in (("Красные: 1#", ["1-й полк", "2-й полк"]), ('Blue "B" & co', ["3rd: 'A'", "4th #4"])):
        lst = etree.SubElement(tab, "VASSAL.build.widget.ListWidget", entryName=side)
        for unit in units:
            slot = etree.SubElement(lst, "VASSAL.build.widget.PieceSlot", entryName=unit)
            slot.text = piece("Отряд", unit, True)
    markers = etree.SubElement(tab, "VASSAL.build.widget.ListWidget", entryName="Markers")
    slot = etree.SubElement(markers, "VASSAL.build.widget.PieceSlot", entryName="Подавлен: да")
    slot.text = piece('Marker "M"', "Подавлен: да", False)
    for map_name in ("Карта: главная", "Потери «красных»"):
        m = etree.SubElement(root, "VASSAL.build.module.Map", mapName=map_name)
        picker = etree.SubElement(m, "VASSAL.build.module.map.BoardPicker")
        board = etree.SubElement(picker, "VASSAL.build.module.map.boardPicker.Board", name=map_name + " доска",
                                 width="400", height="300")
        if map_name.startswith("Карта"):
            grid = etree.SubElement(board, "VASSAL.build.module.map.boardPicker.board.HexGrid", dx="55.43", dy="64",
                                    x0="0", y0="32", sideways="false")
            etree.SubElement(grid, "VASSAL.build.module.map.boardPicker.board.mapgrid.HexGridNumbering",
                             first="H", sep="", hLeading="1", vLeading="1", hType="N", vType="N")
    path = tmp_path / "buildFile.xml"
    bf.write(path)
    return path


def test_unicode_and_yaml_characters_in_every_name_survive(tmp_path):
    source = _unicode_module(tmp_path)
    with Module.open(source) as module:
        result = scenario_from_module(module, module_file="buildFile.xml")
    out = tmp_path / "scenario.yaml"
    out.write_text(result.text, encoding="utf-8")
    data = yaml.safe_load(result.text)
    assert data["game"]["title"] == "Битва: «Север» & #1"
    assert data["module"]["name"] == "Битва: «Север» & #1"
    assert [s["name"] for s in data["game"]["sides"]] == ["Красные: 1#", 'Blue "B" & co']
    assert data["game"]["sides"][0]["id"] == "krasnye_1"           # ids stay ASCII
    assert data["binding"]["sides"][0]["match"] == {"palette": "*/Красные: 1#"}   # the slots sit in the folder itself
    assert data["binding"]["units"] == [{"match": {"prototype": "Отряд"}, "type": "otryad"}]
    assert data["unit_types"]["otryad"]["name"] == "Отряд"
    assert data["binding"]["faces"] == {"layer": "Переворот"}
    assert data["map"]["from_module"] == "Карта: главная"
    assert data["boxes"] == [{"id": "poteri_krasnykh", "name": "Потери «красных»", "role": "dead",
                              "module": {"map": "Потери «красных»"}}]
    assert {"match": {"name": "Подавлен: да"}, "kind": "podavlen_da"} in data["binding"]["markers"]
    scenario = load_scenario(out)
    assert scenario.map.module_map == "Карта: главная"
    assert scenario.game.sides[1].name == 'Blue "B" & co'


@pytest.mark.parametrize("parts", [("tld", "buildFile"), ("kassala", "buildFile.xml"),
                                   ("vivelemperor", "buildFile.xml")])
def test_side_patterns_match_the_palette_paths_the_audit_reads(parts):
    """Each side's palette pattern matches the slots of its folder, as the
    audit names them (unnamed widgets left out), and no other side's."""
    from vmodtool.audit.binding import _palette_path
    from vmodtool.scenario.binding import Pattern

    with Module.open(shared_path("corpus", *parts)) as module:
        data = yaml.safe_load(scenario_from_module(module, module_file="m").text)
        paths = [_palette_path(slot) for slot in module.buildfile.piece_slots()]
    names = {s["id"]: s["name"] for s in data["game"]["sides"]}
    for entry in data["binding"]["sides"]:
        value = entry["match"]["palette"]
        patterns = [Pattern.parse(v) for v in (value if isinstance(value, list) else [value])]
        matched = [p for p in paths if any(pat.matches(p) for pat in patterns)]
        assert matched, entry
        assert all(any(names[entry["side"]] in part for part in p.split("/")) for p in matched)
