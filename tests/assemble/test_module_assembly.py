"""Module assembly from the example scenarios (with simple test images; the
rendered images are covered by the end-to-end build tests)."""

import io
from pathlib import Path

import pytest
from lxml import etree
from PIL import Image

from tests.conftest import game_examples, shared_path
from vmodtool.assemble.components import DEFAULTS, P
from vmodtool.assemble.module import ModuleImages, assemble_module
from vmodtool.scenario import load_scenario
from vmodtool.scenario.model import SetupStack
from vmodtool.vassal.archive import Archive
from vmodtool.vassal.grid import board_from_element
from vmodtool.vassal.module import Module
from vmodtool.vassal.pieces import PieceDef

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SCENARIOS = game_examples()


def _png(colour, size=(60, 60)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, colour).save(buf, "PNG")
    return buf.getvalue()


def test_images(scenario) -> ModuleImages:
    images = ModuleImages(counter_size=(60, 60), board_size=scenario.map.size)
    for counter in scenario.counters:
        for face in scenario.unit_type_of(counter).faces:
            name = f"u-{counter.id}-{face.name}.png"
            images.files[name] = _png((200, 150, 100))
            images.unit[(counter.id, face.name)] = name
    for kind in scenario.markers:
        images.files[f"m-{kind}.png"] = _png((10, 10, 10))
        images.marker[kind] = images.layer[kind] = f"m-{kind}.png"
    for formation in scenario.formations:
        images.chit[formation.id] = "chit.png"
    images.chit["end_turn"] = "chit.png"
    images.files["chit.png"] = _png((1, 2, 3))
    images.files["board.png"] = _png((240, 240, 220), scenario.map.size)
    for deck in scenario.decks:
        images.card_back[deck.id] = "back.png"
        for card in deck.cards:
            images.card[card.id] = "card.png"
    for hand in scenario.hands:
        images.hand_board[hand.side] = "hand.png"
    if scenario.decks:
        images.files["card.png"] = _png((250, 250, 250), (225, 315))
        images.files["back.png"] = _png((90, 90, 200), (225, 315))
    if scenario.hands:
        images.files["hand.png"] = _png((40, 90, 60), (1000, 355))
    return images


test_images.__test__ = False  # a helper, not a test


@pytest.fixture(scope="module", params=SCENARIOS, ids=[p.parent.name for p in SCENARIOS])
def built(request, tmp_path_factory):
    scenario = load_scenario(request.param)
    build = assemble_module(scenario, test_images(scenario))
    path = tmp_path_factory.mktemp("vmod") / "out.vmod"
    path.write_bytes(build.to_bytes())
    return scenario, build, path


def test_reads_back_with_our_reader(built):
    scenario, build, path = built
    with Module.open(path) as module:
        assert module.name == scenario.game.title
        assert module.buildfile.vassal_version == "3.7.0"
        assert module.buildfile_entry == "buildFile.xml"
        sizes, missing = module.board_sizes()
        assert not missing and sizes[scenario.map.name] == scenario.map.size
        slots = module.buildfile.piece_slots()
        gpids = [int(s.gpid) for s in slots]
        assert len(gpids) == len(set(gpids))
        assert module.buildfile.next_piece_slot_id == max(gpids) + 1
        for slot in slots:
            piece = PieceDef.parse(slot.definition)
            assert piece.encode() == slot.definition
            assert piece.basic_state().gpid == slot.gpid


def test_setup_pieces_land_on_their_hex_centres(built):
    scenario, build, path = built
    with Module.open(path) as module:
        maps = {m.name: m for m in module.buildfile.maps()}
        main = maps[scenario.map.name]
        board = board_from_element(main.boards[0].element, *scenario.map.size)
        stacks = [el for el in main.element if el.tag == P + "module.map.SetupStack"]
        expected = [s for s in scenario.setup if isinstance(s, SetupStack) and s.units]
        assert len(stacks) == len(expected)
        for el, entry in zip(stacks, expected, strict=True):
            assert el.get("location") == entry.hex and el.get("useGridLocation") == "true"
            x, y = board.get_location(entry.hex)                 # what VASSAL's SetupStack does
            assert board.location_name(x, y) == entry.hex
            assert (x, y) == scenario.map.grid.grid.get_location(entry.hex)
            slots = [s for s in el if s.tag == P + "widget.PieceSlot"]
            ids = [PieceDef.parse(module.buildfile.text_of(s)).get_property("UnitId") for s in slots]
            assert tuple(ids) == entry.units                     # bottom -> top


def test_unit_pieces_have_the_intended_traits(built):
    scenario, build, path = built
    with Module.open(path) as module:
        protos = module.buildfile.prototypes()
        for slot in module.buildfile.piece_slots():
            piece = PieceDef.parse(slot.definition)
            uid = piece.get_property("UnitId")
            if uid is None:
                continue
            counter = scenario.counter(uid)
            unit_type = scenario.unit_type_of(counter)
            prefixes = [t.prefix for t in piece.traits]
            assert prefixes[:4] == ["prototype;"] * 3 + ["mark;"] and prefixes[-1] == "piece;"
            names = [t.view().prototype_name for t in piece.traits[:3]]
            assert all(name in protos for name in names)
            assert piece.get_property("Formation") == (counter.formation or "")
            for face in unit_type.faces:
                for factor, value in face.factors.items():
                    assert piece.get_property(f"{factor}_{face.name}") == str(value)
            if len(unit_type.faces) > 1:
                assert piece.get_property("Face_Level") is not None
            report = PieceDef.parse(protos["vmodtool unit"]).traits[0]
            assert report.prefix == "report;"


def test_components_have_vassal_attribute_sets():
    golden = etree.parse(str(shared_path("golden", "modules", "minimal-hex", "buildFile.xml")))
    seen = {}
    for el in golden.iter():
        if isinstance(el.tag, str) and el.tag.startswith("VASSAL."):
            cls = el.tag[len(P):] if el.tag.startswith(P) else el.tag
            seen.setdefault(cls, dict(el.attrib))
    compared = 0
    for cls, attrs in seen.items():
        if cls in ("GameModule",):
            assert sorted(DEFAULTS[cls]) == sorted(attrs)
        if cls in DEFAULTS:
            assert sorted(DEFAULTS[cls]) == sorted(attrs), cls
            compared += 1
    assert compared >= 30
    # every component class the golden module uses is one we know
    assert set(seen) <= set(DEFAULTS) | {"module.PrototypeDefinition"}


def test_build_is_reproducible():
    scenario = load_scenario(SCENARIOS[0])
    first = assemble_module(scenario, test_images(scenario)).to_bytes()
    second = assemble_module(scenario, test_images(scenario)).to_bytes()
    assert first == second


def test_off_map_boxes_and_turn_track(built):
    scenario, build, path = built
    with Archive.open(path) as arc:
        xml = arc.read("buildFile.xml").decode("utf-8")
        assert "help/scenario.html" in arc
    if scenario.boxes:
        assert 'mapName="Off-map"' in xml
        for box in scenario.boxes:
            assert f'name="{box.name}"' in xml.replace("&quot;", '"')
    assert "VASSAL.build.module.turn.TurnTracker" in xml
    for spec in scenario.game.dice:
        assert f'name="{spec}"' in xml
