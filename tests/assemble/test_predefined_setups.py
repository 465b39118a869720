"""A game with several scenarios builds into one module whose File > New
Game menu lists each as a predefined setup: ``PredefinedSetup`` elements as
VASSAL 3.7 writes them and a ``.vsav`` per scenario written as VASSAL saves
a game, holding the scenario's units where its set-up puts them."""

import io
import re
import zipfile
from pathlib import Path

import pytest

from vmodtool.assemble.builder import build_module_file
from vmodtool.lint import lint_module
from vmodtool.replay import Replay
from vmodtool.scenario import load_scenario
from vmodtool.scenario.model import SetupBox, SetupStack
from vmodtool.scenario.offmap import OFF_MAP_NAME, layout_off_map
from vmodtool.vassal.archive import build_zip
from vmodtool.vassal.commands import AddPiece, leaves
from vmodtool.vassal.module import Module
from vmodtool.vassal.pieces import PieceDef
from vmodtool.vassal.savefile import SavedGame

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
MARNE = EXAMPLES / "marne-1918" / "scenario.yaml"
P = "VASSAL.build.module.PredefinedSetup"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("marne") / "marne.vmod"
    build_module_file(MARNE, out, jobs=1)
    return load_scenario(MARNE), out


def test_the_new_game_menu_lists_every_scenario(built):
    scenario, out = built
    with Module.open(out) as module:
        root = module.buildfile.root
        menus = [el for el in root if el.tag == P]
        assert len(menus) == 1 and root[-1] is menus[0]          # after every other component
        menu = menus[0]
        # a menu has no file (VASSAL writes none); attributes sorted as VASSAL writes them
        assert list(menu.attrib.items()) == [("isMenu", "true"), ("name", "Marne Salient, 1918"),
                                             ("useFile", "true")]
        leaves = [list(el.attrib.items()) for el in menu]
        assert leaves == [[("file", f"{s.id}.vsav"), ("isMenu", "false"), ("name", s.name), ("useFile", "true")]
                          for s in scenario.scenarios]
        for s in scenario.scenarios:
            assert s.setup_file in module.files


def test_build_is_reproducible(built, tmp_path):
    """(Its speed is measured in benchmarks/bench_build.py, not here.)"""
    _, out = built
    again = tmp_path / "again.vmod"
    build_module_file(MARNE, again, jobs=1)
    assert again.read_bytes() == out.read_bytes()


def test_each_setup_is_a_save_vassal_writes(built):
    scenario, out = built
    with Module.open(out) as module:
        moduledata = module.moduledata
        palette = {PieceDef.parse(s.definition).get_property("UnitId"): s.gpid
                   for s in module.buildfile.piece_slots()}
    with zipfile.ZipFile(out) as archive:
        for named in scenario.scenarios:
            saved = SavedGame.from_bytes(archive.read(named.setup_file), file=named.setup_file)
            assert saved.metadata_xml("moduledata") == moduledata     # the module's own, byte for byte
            assert b"<description>" + named.name.encode() + b"</description>" in saved.metadata_xml("savedata")
            assert not saved.is_log and saved.players() == []
            assert "prototype;" not in saved.text     # pieces expanded (docs/vassal-format.md §6.9)
            # each piece carries its palette slot's gpid, as one dragged from the palette
            pieces = [cmd for node in saved.restore_part() for _, cmd in leaves(node)
                      if isinstance(cmd, AddPiece) and not cmd.is_stack]
            assert len(pieces) == sum(len(e.units) for e in named.setup)
            for cmd in pieces:
                piece = PieceDef.parse(cmd.text)
                uid = piece.get_property("UnitId")
                assert piece.basic_state().gpid == palette[uid], uid


def _start(out: Path, entry: str) -> tuple[dict[str, tuple[str | None, str | None]], dict[str, str]]:
    """Unit id -> (map, location) and the turn tracker states of a setup, replayed."""
    with zipfile.ZipFile(out) as archive:
        data = archive.read(entry)
    folder = out.parent / "setups"
    folder.mkdir(exist_ok=True)
    path = folder / entry
    path.write_bytes(data)
    state = Replay.open([path], module=out).state_at(0)
    places = {record.unit_id: (record.map, record.location) for record in state.pieces if record.unit_id}
    return places, dict(state.turns)


def test_every_unit_stands_where_its_scenario_puts_it(built):
    scenario, out = built
    zones = {z.ref: z.name for z in layout_off_map(scenario).zones if z.kind == "box"}
    for named in scenario.scenarios:
        places, turns = _start(out, named.setup_file)
        expected = {}
        for entry in named.setup:
            for uid in entry.units:
                expected[uid] = ((scenario.map_window(entry.map or scenario.map.id).name, entry.hex)
                                 if isinstance(entry, SetupStack)
                                 else (OFF_MAP_NAME, zones[entry.box]))
        assert places == expected, named.id
        # the tracker stands at the scenario's first turn
        first = (named.turns or scenario.turns).first
        assert turns["TurnTracker0"].startswith(f"0|{first};"), named.id
    assert any(isinstance(e, SetupBox) for e in scenario.scenarios[2].setup)


def test_a_setup_face_is_the_face_the_piece_shows(built):
    _, out = built
    with zipfile.ZipFile(out) as archive:
        saved = SavedGame.from_bytes(archive.read("chateau-thierry.vsav"))
    level = {}
    for text in saved.text.split("\x1b"):
        if text.startswith("+/") and "/stack/" not in text:
            piece = PieceDef.parse(text)
            level[piece.get_property("UnitId")] = piece.get_property("Face_Level")
    assert level["all.fr.1"] == "2" and level["ger.inf.1"] == "1"     # set up reduced; the front


def test_a_single_scenario_file_makes_no_predefined_setup(tmp_path):
    out = tmp_path / "ww1.vmod"
    build_module_file(EXAMPLES / "ww1-operational" / "scenario.yaml", out, jobs=1)
    with Module.open(out) as module:
        assert not [el for el in module.buildfile.root.iter(P)]
        assert not [f for f in module.files if f.endswith(".vsav")]


def _rewritten(out: Path, tmp_path: Path, change) -> Module:
    with zipfile.ZipFile(out) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    change(entries)
    path = tmp_path / "changed.vmod"
    path.write_bytes(build_zip(entries))
    return Module.open(path)


def test_lint_finds_a_missing_or_broken_setup(built, tmp_path):
    _, out = built
    with Module.open(out) as module:
        assert [f.code for f in lint_module(module) if f.severity != "info"] == []

    def drop(entries):
        del entries["belleau-wood.vsav"]

    with _rewritten(out, tmp_path, drop) as module:
        found = [(f.code, f.severity) for f in lint_module(module) if f.severity != "info"]
    assert found == [("missing-file", "error")]

    def spoil(entries):
        entries["second-marne.vsav"] = b"PK\x03\x04 not a save"

    with _rewritten(out, tmp_path, spoil) as module:
        codes = [f.code for f in lint_module(module) if f.severity != "info"]
    assert codes == ["unreadable-setup"]

    def other_module(entries):
        buffer = io.BytesIO(entries["chateau-thierry.vsav"])
        with zipfile.ZipFile(buffer) as save:
            inner = {n: save.read(n) for n in save.namelist()}
        inner["moduledata"] = inner["moduledata"].replace(b"Marne Salient, 1918", b"Somme Breakout, 1918")
        entries["chateau-thierry.vsav"] = build_zip(inner)

    with _rewritten(out, tmp_path, other_module) as module:
        codes = [f.code for f in lint_module(module) if f.severity != "info"]
    assert codes == ["setup-module-name-mismatch"]


def test_the_help_page_gives_each_scenario_s_victory_conditions(built):
    scenario, out = built
    with zipfile.ZipFile(out) as archive:
        page = archive.read("help/scenario.html").decode("utf-8")
    section = page[page.index("<h2>Scenarios</h2>"):page.index("<h2>Counters</h2>")]
    for named in scenario.scenarios:
        assert f"<h3>{named.name}</h3>" in section and named.victory in section
    assert "Bois de Belleau (0303, 3 VP)" in section
    assert "adds stack.limit.wood; without stack.limit" in section


def _as_one_scenario(example: Path, folder: Path) -> Path:
    """The example's folder copied, its top-level setup moved into the one
    scenario of a ``scenarios`` section."""
    import shutil
    shutil.copytree(example.parent, folder)
    lines = (folder / "scenario.yaml").read_text("utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("setup:"))
    end = next(i for i in range(start + 1, len(lines)) if lines[i][:1].isalpha())
    moved = ["scenarios:", "  - id: only", "    name: The one scenario", "    setup:"]
    moved += ["    " + line if line.strip() else line for line in lines[start + 1:end]]
    (folder / "scenario.yaml").write_text("\n".join(lines[:start] + lines[end:] + moved) + "\n", "utf-8")
    return folder / "scenario.yaml"


def _board(path: Path, module: Path) -> list[tuple[object, ...]]:
    """Every piece of a save's start: its unit (or name), map, location,
    place in its stack, deck, state."""
    state = Replay.open([path], module=module).state_at(0)
    return sorted((p.unit_id or p.name, p.map, p.location, p.stack_index, p.deck, p.state) for p in state.pieces)


@pytest.mark.parametrize("name", ["modern-tactical", "combat-commander"])
def test_a_scenario_s_setup_starts_the_game_its_module_s_own_setup_would(name, tmp_path):
    """The same set-up as a predefined setup or as the module's at-start
    stacks: the same pieces (units, chits, markers' cards and decks) in the
    same places, stacks and states, but the gpid (a palette slot's, not a
    SetupStack's)."""
    example = EXAMPLES / name / "scenario.yaml"
    single, several = tmp_path / "single.vmod", tmp_path / "several.vmod"
    build_module_file(example, single, jobs=1)
    build_module_file(_as_one_scenario(example, tmp_path / "game"), several, jobs=1)
    from vmodtool.vassal.gamewriter import GameWriter
    with Module.open(single) as module:
        writer = GameWriter(module)
        writer.snapshot()
        own = tmp_path / "own.vsav"
        own.write_bytes(writer.to_bytes(date_saved="0"))
    with zipfile.ZipFile(several) as archive:
        setup = tmp_path / "only.vsav"
        setup.write_bytes(archive.read("only.vsav"))

    def without_gpid(board):
        # the gpid and the piece's id (UniqueID) differ: a palette slot's, the order pieces were made in
        return [(*row[:5], re.sub(r"UniqueID;\d+", "UniqueID;", re.sub(
            r"(null|[^;]*);(-?\d+);(-?\d+);\d+;", r"\1;\2;\3;;", row[5]))) for row in board]

    assert without_gpid(_board(setup, several)) == without_gpid(_board(own, single))
