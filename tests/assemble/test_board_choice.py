"""Per-scenario board choice (issue 46): ``map.boards`` gives the main map
alternative boards with its grid; each scenario names the one it is
played on (``board``).  ``build`` puts every board into the map's
``BoardPicker`` and each predefined setup's save chooses its scenario's
board as VASSAL's ``BoardPicker$SetBoards`` writes it; a log of each
scenario replays on its board, from the module or from the scenario."""

import shutil
import zipfile
from pathlib import Path

import pytest
import yaml
from PIL import Image

from vmodtool.assemble.builder import build_module_file
from vmodtool.audit.game import scenario_positions
from vmodtool.audit.scenario_choice import choose_scenario, scenario_for_logs
from vmodtool.errors import ScenarioError, VmodError
from vmodtool.lint import lint_module
from vmodtool.replay import Replay
from vmodtool.scenario import load_scenario
from vmodtool.scenario.model import SetupStack
from vmodtool.vassal.commands import SetBoards, leaves
from vmodtool.vassal.gamewriter import GameWriter, Player
from vmodtool.vassal.module import Module
from vmodtool.vassal.savefile import SavedGame

MARNE = Path(__file__).resolve().parents[2] / "examples" / "marne-1918"
BP = "VASSAL.build.module.map.BoardPicker"
BOARD = "VASSAL.build.module.map.boardPicker.Board"


def _game(tmp_path: Path, edit) -> Path:
    folder = tmp_path / "game"
    shutil.copytree(MARNE, folder)
    path = folder / "scenario.yaml"
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    edit(doc)
    path.write_text(yaml.safe_dump(doc, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def _two_boards(doc: dict) -> None:
    doc["map"]["boards"] = [{"id": "north", "name": "Север"}, {"id": "south", "name": "Sud", "image": "sud.png"}]
    doc["scenarios"][0]["board"] = "north"
    doc["scenarios"][1]["board"] = "south"          # the third is played on the map's own board


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("boards")
    path = _game(tmp, _two_boards)
    size = load_scenario(MARNE / "scenario.yaml").map.size
    Image.new("RGB", size, "#c8b890").save(path.parent / "sud.png")
    out = tmp / "marne.vmod"
    build_module_file(path, out, jobs=1)
    return load_scenario(path), out


def test_the_picker_holds_every_board_with_the_map_s_grid(built):
    scenario, out = built
    with Module.open(out) as module:
        main = next(m for m in module.buildfile.maps() if m.name == scenario.map.name)
        assert [b.name for b in main.boards] == ["Marne front", "Север", "Sud"]
        pickers = [el for el in main.element if el.tag == BP]
        assert len(pickers) == 1
        boards = [el for el in pickers[0] if el.tag == BOARD]
        own, north, south = boards
        assert north.get("image") == own.get("image") == "board.png"   # drawn as the map's own
        assert south.get("image") == "board-main-south.png" and "images/board-main-south.png" in module.files
        for alt in (north, south):
            assert len(alt) == 1 and alt[0].attrib == own[0].attrib            # the same HexGrid
            assert alt[0][0].attrib == own[0][0].attrib                          # and numbering
        sizes, missing = module.board_sizes()
        assert not missing and sizes["Sud"] == sizes["Marne front"]
        assert not [f for f in lint_module(module) if f.severity == "error"]


def _set_boards(saved: SavedGame) -> list[str]:
    return [cmd.text for node in saved.restore_part() for _, cmd in leaves(node) if isinstance(cmd, SetBoards)]


def test_each_setup_chooses_its_scenario_s_board(built):
    scenario, out = built
    expected = {"chateau-thierry": "Север", "belleau-wood": "Sud", "second-marne": "Marne front"}
    with zipfile.ZipFile(out) as archive:
        for named in scenario.scenarios:
            saved = SavedGame.from_bytes(archive.read(named.setup_file), file=named.setup_file)
            boards = _set_boards(saved)
            # BoardPicker.encode: the map's id + "BoardPicker", then name, x, y per board, tab-separated
            assert f"Marne frontBoardPicker\t{expected[named.id]}\t0\t0" in boards, named.id
            assert len(boards) == 1 + len(scenario.maps) + 1     # the main map, 'maps' windows, off-map


def _log_of(out: Path, named, tmp_path: Path) -> Path:
    """A log of the scenario: its setup, then a unit moved one hex on the main map."""
    with Module.open(out) as module, zipfile.ZipFile(out) as archive:
        saved = SavedGame.from_bytes(archive.read(named.setup_file), file=named.setup_file)
        side = module.buildfile.root.find("VASSAL.build.module.PlayerRoster")[0].text
        writer = GameWriter.from_save(module, saved, players=[Player("pw", "Alice", side)])
        stack = next(e for e in named.setup if getattr(e, "hex", None) and e.map is None)
        writer.move(writer.find(UnitId=stack.units[-1]), "0101")
        log = tmp_path / f"{named.id}.vlog"
        log.write_bytes(writer.to_bytes(date_saved="0"))
    return log


def test_a_log_of_each_scenario_replays_on_its_board(built, tmp_path):
    scenario, out = built
    positions, properties, hands = scenario_positions(scenario)
    for named in scenario.scenarios:
        log = _log_of(out, named, tmp_path)
        stack = next(e for e in named.setup if getattr(e, "hex", None) and e.map is None)
        board = {"north": "Север", "south": "Sud", None: "Marne front"}[named.board]
        # from the module, and from the scenario alone (no module: what the audit reads)
        for replay in (Replay.open([log], module=out),
                       Replay.open([log], positions=scenario_positions(scenario).positions,
                                   properties=properties, hands=hands)):
            state = replay.state_at(1)
            where = {r.unit_id: (r.map, r.location) for r in state.pieces if r.unit_id}
            assert where[stack.units[-1]] == (scenario.map.name, "0101"), named.id
            assert replay.engine is not None and replay.engine.state.boards[scenario.map.name][0][0] == board
    assert positions.set_boards(scenario.map.name, [("Sud", False, 0, 0)]) is None
    assert positions.set_boards(scenario.map.name, [("West", False, 0, 0)]) is not None


def test_a_board_a_scenario_names_must_be_one_of_the_map_s(tmp_path):
    def edit(doc):
        _two_boards(doc)
        doc["map"]["boards"][1].pop("image")
        doc["scenarios"][2]["board"] = "nord"
        doc["map"]["boards"].append({"id": "west", "name": "Marne front"})
    with pytest.raises(ScenarioError) as exc:
        load_scenario(_game(tmp_path, edit))
    text = "\n".join(exc.value.lines())
    assert "unknown board id of map.boards 'nord'; did you mean 'north'?" in text
    assert "the board name 'Marne front' is already the map's own board" in text


def test_a_map_window_has_no_alternative_boards(tmp_path):
    def edit(doc):
        doc["maps"][0]["boards"] = [{"id": "x"}]
    with pytest.raises(ScenarioError, match="only the main map"):
        load_scenario(_game(tmp_path, edit))


def test_a_writer_refuses_a_board_the_map_lacks(built):
    scenario, out = built
    with Module.open(out) as module, pytest.raises(VmodError, match="has no board 'West'"):
        GameWriter(module, boards={scenario.map.name: "West"})


def test_the_audit_tells_each_scenario_s_log_apart(built, tmp_path):
    scenario, out = built
    with Module.open(out) as module:
        for named in scenario.scenarios:
            log = _log_of(out, named, tmp_path)
            chosen, choice = scenario_for_logs([log], scenario, module=module,
                                               open_first=lambda log=log: Replay.open([log], module=out))
            assert choice.chosen is not None and choice.chosen.id == named.id


def test_the_board_tells_apart_scenarios_with_the_same_set_up(tmp_path):
    def edit(doc):
        _two_boards(doc)
        doc["map"]["boards"][1].pop("image")
        doc["scenarios"][1]["setup"] = doc["scenarios"][0]["setup"]
        doc["scenarios"][1]["turns"] = doc["scenarios"][0]["turns"]
        doc["scenarios"][1].pop("without_rules", None)
    scenario = load_scenario(_game(tmp_path, edit))
    first, second = scenario.scenarios[:2]
    start = {uid: (scenario.map.name, e.hex) for e in first.setup if isinstance(e, SetupStack) for uid in e.units}
    assert choose_scenario(scenario, start).chosen is None                 # a tie: no guess
    assert choose_scenario(scenario, start, "Север").chosen is first
    assert choose_scenario(scenario, start, "Sud").chosen is second
    # a board no scenario is played on is no evidence; the tie stays
    assert choose_scenario(scenario, start, "Marne front").chosen is None


def test_build_never_overwrites_an_alternative_board_s_image(built, tmp_path):
    scenario, _ = built
    image = next(b.image for b in scenario.map.boards if b.image is not None)
    before = image.read_bytes()
    with pytest.raises(VmodError):
        build_module_file(scenario.path, image, jobs=1)
    assert image.read_bytes() == before
