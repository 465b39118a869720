"""GameWriter writes what VASSAL writes: the archive's metadata entries as
``GameState.saveGame`` does, pieces only from the module's PieceSlots, dice
rolls as the module's DiceButton logs them (checked against a log VASSAL
3.7.26 wrote itself)."""

from __future__ import annotations

import io
import os
import zipfile
from pathlib import Path

import pytest

from vmodtool.errors import VmodError
from vmodtool.replay import load_board_sizes
from vmodtool.vassal.buildfile import BuildFile, PieceSlotEntry
from vmodtool.vassal.commands import AddPiece, LogEntry, leaf_commands
from vmodtool.vassal.gamewriter import GameWriter, Player, expand_prototypes
from vmodtool.vassal.metadata import ModuleMetadata, SaveMetadata
from vmodtool.vassal.module import Module
from vmodtool.vassal.pieces import PieceDef
from vmodtool.vassal.savefile import SavedGame

DEMO = Path(__file__).resolve().parents[2] / "examples" / "formats"
SHARED = Path(os.environ.get("VMODTOOL_SHARED", Path(__file__).resolve().parents[3] / "shared"))
KASSALA = SHARED / "corpus" / "kassala"
GOLDEN_LOG = SHARED / "golden" / "logs" / "kassala-scripted-A.vlog"


@pytest.fixture
def demo():
    with Module.open(DEMO / "demo.vmod") as module:
        yield module


def _entries(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def test_archive_has_savedgame_savedata_and_the_modules_own_moduledata(demo):
    w = GameWriter(demo, players=[Player("pw", "Алиса", "Синие")])
    w.snapshot()
    entries = _entries(w.to_bytes(date_saved="1767225600000", comment="ход 1"))
    assert list(entries) == ["savedGame", "savedata", "moduledata"]
    assert entries["moduledata"] == demo.moduledata            # copied byte for byte
    save = SaveMetadata.parse(entries["savedata"])
    assert (save.version, save.vassal_version, save.date_saved, save.description) == \
        ("1.0", "3.7.0", "1767225600000", "ход 1")
    assert b"<extra1/>" in entries["savedata"]


def test_a_module_without_moduledata_gets_the_metadata_vassal_makes(tmp_path):
    folder = tmp_path / "m"
    folder.mkdir()
    bf = BuildFile.read(DEMO / "demo-module" / "buildFile.xml")
    bf.root.set("description", "Описание")
    bf.root.set("ModuleOther1", "первый")
    (folder / "buildFile.xml").write_bytes(bf.to_bytes())
    with Module.open(folder) as module:
        w = GameWriter(module, board_sizes={"Demo Board": (700, 620)}, vassal_version="3.7.26")
        w.snapshot()
        entries = _entries(w.to_bytes(date_saved="5"))
    meta = ModuleMetadata.parse(entries["moduledata"])
    assert (meta.name, meta.version, meta.vassal_version, meta.date_saved) == \
        ("vmodtool Demo", "1.0", "3.7.26", "5")
    assert (meta.description, meta.extra1, meta.extra2) == ("Описание", "первый", "")
    assert SaveMetadata.parse(entries["savedata"]).vassal_version == "3.7.26"


def test_date_defaults_to_now(demo):
    w = GameWriter(demo)
    w.snapshot()
    date = SaveMetadata.parse(_entries(w.to_bytes())["savedata"]).date_saved
    assert date.isdigit() and int(date) > 1_700_000_000_000


def test_added_pieces_are_the_modules_slots(demo, tmp_path):
    w = GameWriter(demo, players=[Player("pw", "Алиса", "Синие")])
    w.snapshot()
    slot = w.palette_slot(UnitId="wp.tank.1")
    pid = w.add(slot, "0505", "Main Map", player="Алиса")
    log = tmp_path / "add.vlog"
    log.write_bytes(w.to_bytes())
    added = [cmd for cmd in leaf_commands(SavedGame.read(log).commands)
             if isinstance(cmd, LogEntry) and isinstance(cmd.logged, AddPiece)
             and cmd.logged.piece_id == pid]
    assert len(added) == 1
    piece = PieceDef.parse(added[0].logged.text)
    expected = expand_prototypes(PieceDef.parse(slot.definition), w.prototypes)
    assert piece.type == expected.type
    assert piece.basic_state().gpid == slot.gpid == "2"


def test_a_slot_of_another_module_is_refused(demo):
    w = GameWriter(demo)
    w.snapshot()
    foreign = PieceSlotEntry(element=None, kind="PieceSlot", entry_name="X", gpid="9",
                             definition=w.slots[0].definition)
    with pytest.raises(VmodError, match="not a slot of this module"):
        w.add(foreign, "0505", "Main Map")
    with pytest.raises(VmodError, match="0 palette slots"):
        w.palette_slot(UnitId="nobody")


def test_dice_need_the_modules_button(demo):
    w = GameWriter(demo, players=[Player("pw", "Борис", "Красные")])
    w.snapshot()
    with pytest.raises(VmodError, match="no DiceButton named '1d6'"):
        w.dice("1d6", [3])
    with pytest.raises(VmodError, match="rolls 2 dice"):
        w.dice("2d6", [3])
    w.dice("2d6", [3, 5], player="Борис")
    w.dice("2d6", [6, 6], player="Борис")
    second = w.steps[-1]
    assert "MutableProperty\t2d6_result\t3,5\t6,6\tModule" in second      # old value tracked
    assert "MutableProperty\t2d6_summary\t3 x1, 5 x1\t6 x2\tModule" in second


@pytest.mark.skipif(not GOLDEN_LOG.is_file(), reason="golden logs not available")
def test_dice_steps_equal_what_vassal_wrote():
    golden = [node.encode() for _, node in SavedGame.read(GOLDEN_LOG).log_steps()
              if "1d6_result" in node.encode()]
    with Module.open(KASSALA) as module:
        w = GameWriter(module, players=[Player("pw", "Oracle", "Player 1")],
                       board_sizes=load_board_sizes(KASSALA / "board-sizes.json"))
        w.snapshot()
        for value in (5, 3, 2):
            w.dice("1d6", [value], player="Oracle")
    assert golden and w.steps == golden


def test_the_writer_is_the_game_state_plus_its_log() -> None:
    """GameWriter logs steps over GamePieces (the state it changes and its
    begin_save encoding); every name it exported before the split still
    imports from gamewriter and is the same object."""
    from vmodtool.vassal import gamepieces, gamewriter

    assert issubclass(gamewriter.GameWriter, gamepieces.GamePieces)
    for name in ("expand_prototypes", "Player", "PlacedPiece"):
        assert getattr(gamewriter, name) is getattr(gamepieces, name)
        assert name in gamewriter.__all__
    assert {"DiceButtonSpec", "module_metadata", "GameWriter"} <= set(gamewriter.__all__)
    logging_only = {"move", "move_stack", "undo", "dice", "draw", "shuffle", "to_bytes", "snapshot"}
    assert not logging_only & set(vars(gamepieces.GamePieces)), "the state class logs nothing"
