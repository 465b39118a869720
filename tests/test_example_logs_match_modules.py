"""Every example log (``examples/**/*.vlog``) belongs to its module the way a
log VASSAL writes does (issue 12):

* its ``moduledata`` is the module's own, byte for byte (so VASSAL loads it
  without the "Save Game Mismatch" question), and ``savedata`` names the
  module's version;
* every piece it adds (``+/id/type/state``) is one of the module's PieceSlots
  expanded through the prototypes as VASSAL's ``PieceCloner`` does, with that
  slot's gpid (state aside);
* every image a piece of the log shows, at any step, exists in the module.

The modules are built from the example scenarios exactly as ``vmodtool build``
does, once per session; the demo log goes with the committed ``demo.vmod``.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from tests.conftest import game_examples
from vmodtool.assemble.builder import build_module_file
from vmodtool.vassal.commands import AddPiece, ChangePiece, LogEntry, leaf_commands
from vmodtool.vassal.decks import draw_piles
from vmodtool.vassal.gamewriter import expand_prototypes
from vmodtool.vassal.metadata import ModuleMetadata, SaveMetadata
from vmodtool.vassal.module import Module
from vmodtool.vassal.pieces import PieceDef, Trait
from vmodtool.vassal.savefile import SavedGame
from vmodtool.vassal.traits import view_of

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
LOGS = sorted(EXAMPLES.rglob("*.vlog"))


@pytest.fixture(scope="session")
def module_files(tmp_path_factory) -> dict[str, Path]:
    """Module file of each example folder: built from its scenario, or the
    committed demo module."""
    out = tmp_path_factory.mktemp("example-modules")
    files = {"formats": EXAMPLES / "formats" / "demo.vmod"}
    for scenario in game_examples():
        system = scenario.parent.name
        files[system] = out / f"{system}.vmod"
        build_module_file(scenario, files[system], jobs=1)
    return files


class ModuleView:
    """What a log is checked against: the slots' expanded definitions and
    the images."""

    def __init__(self, path: Path) -> None:
        with Module.open(path) as module:
            self.name = module.buildfile.name
            self.version = module.buildfile.version
            self.moduledata = module.moduledata
            self.images = set(module.images)
            prototypes = module.buildfile.prototypes()
            #: expanded type -> gpids of the slots with that type
            self.slot_types: dict[str, set[str]] = {}
            for slot in module.buildfile.piece_slots():
                piece = expand_prototypes(PieceDef.parse(slot.definition), prototypes)
                self.slot_types.setdefault(piece.type, set()).add(slot.gpid)
            #: the Deck type each DrawPile gives its deck (DrawPile.getDeckType)
            self.deck_types = {pile.type.encode() for pile in draw_piles(module.buildfile)}


_VIEWS: dict[Path, ModuleView] = {}


def view(path: Path) -> ModuleView:
    if path not in _VIEWS:
        _VIEWS[path] = ModuleView(path)
    return _VIEWS[path]


def module_of(log: Path, module_files: dict[str, Path]) -> ModuleView:
    return view(module_files[log.relative_to(EXAMPLES).parts[0]])


def shown_images(traits: list[Trait]) -> list[str]:
    """Images a piece draws in its current state: the BasicPiece's, and the
    current level's image of each active Layer."""
    images = []
    for trait in traits:
        if trait.prefix == "piece;":
            images.append(view_of(trait).image)
        elif trait.prefix == "emb2;":
            layer = view_of(trait)
            level = int(trait.state.split(";")[0] or "0")
            names = list(layer.image_names)
            if level > 0 and level <= len(names):
                images.append(names[level - 1])
            elif layer.always_active and names:
                images.append(names[0])
    return [image for image in images if image]


def every_leaf(game: SavedGame):
    for node in game.top_level():
        for cmd in leaf_commands(node):
            inner = cmd.logged if isinstance(cmd, LogEntry) else cmd
            if inner is not None:
                yield inner


def test_there_are_example_logs():
    systems = {log.relative_to(EXAMPLES).parts[0] for log in LOGS}
    assert {"formats", "modern-tactical", "ww1-operational", "combat-commander"} <= systems
    assert len(LOGS) >= 48


@pytest.mark.parametrize("log", LOGS, ids=[str(p.relative_to(EXAMPLES)) for p in LOGS])
def test_log_carries_the_modules_metadata(log, module_files):
    module = module_of(log, module_files)
    with zipfile.ZipFile(log) as archive:
        names = archive.namelist()
        assert names[:1] == ["savedGame"]
        assert "moduledata" in names, "VASSAL would ask 'Save Game Mismatch' (module named '')"
        moduledata = archive.read("moduledata")
        savedata = SaveMetadata.parse(archive.read("savedata"))
    meta = ModuleMetadata.parse(moduledata)
    assert (meta.name, meta.version) == (module.name, module.version)
    assert moduledata == module.moduledata          # VASSAL copies the entry byte for byte
    assert savedata.version == module.version
    assert savedata.vassal_version.startswith("3.7")


@pytest.mark.parametrize("log", LOGS, ids=[str(p.relative_to(EXAMPLES)) for p in LOGS])
def test_every_piece_is_a_slot_of_the_module_and_its_images_exist(log, module_files):
    module = module_of(log, module_files)
    game = SavedGame.read(log)
    pieces: dict[str, list[Trait]] = {}
    added = 0
    for cmd in every_leaf(game):
        if isinstance(cmd, AddPiece) and not cmd.is_stack and (cmd.type or "").startswith("deck;"):
            # a deck is no palette piece: its DrawPile makes it, with the pile's type
            assert cmd.type in module.deck_types, f"{cmd.piece_id}: deck of no DrawPile of the module"
            continue
        if isinstance(cmd, AddPiece) and not cmd.is_stack:
            piece = PieceDef.parse(cmd.text)
            gpids = module.slot_types.get(piece.type)
            assert gpids is not None, f"{cmd.piece_id}: {piece.name!r} is no PieceSlot of the module"
            assert piece.basic_state().gpid in gpids, f"{cmd.piece_id}: gpid of another slot"
            pieces[cmd.piece_id or ""] = list(piece.traits)
            added += 1
        elif isinstance(cmd, ChangePiece) and cmd.piece_id in pieces:
            traits = pieces[cmd.piece_id]
            states = PieceDef.parse(AddPiece.build(cmd.piece_id, PieceDef.from_traits(traits).type,
                                                   cmd.new_state).text).traits
            pieces[cmd.piece_id] = traits = list(states)
        else:
            continue
        missing = [image for image in shown_images(pieces[cmd.piece_id or ""])
                   if image not in module.images]
        assert not missing, f"{cmd.kind} {cmd.piece_id}: image(s) not in the module: {missing}"
    assert added > 0


@pytest.mark.parametrize("system", ["modern-tactical", "ww1-operational", "combat-commander"])
def test_the_imageless_module_names_pieces_as_the_built_module(system, module_files):
    """One naming scheme: the module built without images that tests and
    benchmarks write logs with (``tests.audit.helpers.built_module``) has the
    built module's piece definitions exactly."""
    from tests.audit.helpers import built_module
    from vmodtool.scenario import load_scenario

    positions, _sizes = built_module(load_scenario(EXAMPLES / system / "scenario.yaml"))
    with Module.open(module_files[system]) as built:
        assert [(s.gpid, s.definition) for s in positions.buildfile.piece_slots()] == \
            [(s.gpid, s.definition) for s in built.buildfile.piece_slots()]
        assert positions.buildfile.prototypes() == built.buildfile.prototypes()
