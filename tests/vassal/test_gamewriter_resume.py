"""GameWriter goes on from a save (``GameWriter.from_save``), and expands a
prototype the module does not define to nothing, as VASSAL 3.7.26 does
(``UsePrototype.getExpandedInner``; docs/vassal-format.md §3.6), saying
which — on small modules written here (issue 42)."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from lxml import etree

from tests.audit import area_module
from vmodtool.errors import VmodError
from vmodtool.replay import Replay
from vmodtool.replay.visitor import BoardView, LogStart, ReplayVisitor
from vmodtool.vassal.buildfile import BuildFile
from vmodtool.vassal.commands import AddPiece, PlayerAdd, leaf_commands
from vmodtool.vassal.gamepieces import MissingPrototypeWarning
from vmodtool.vassal.gamewriter import GameWriter, Player, expand_prototypes
from vmodtool.vassal.module import Module
from vmodtool.vassal.pieces import PieceDef
from vmodtool.vassal.savefile import SavedGame
from vmodtool.vassal.traits import BasicPiece, Marker, UsePrototype, build_piece

P = "VASSAL.build."


class _Final(ReplayVisitor[dict[str, str | None]]):
    """Piece name → location at the end of the last file."""

    def __init__(self) -> None:
        self.where: dict[str, str | None] = {}

    def end_log(self, log: LogStart, final: BoardView) -> None:
        self.where = {p.ref.name: p.place.location for p in final.pieces()}

    def result(self) -> dict[str, str | None]:
        return self.where


def _final(path: Path, folder: Path) -> dict[str, str | None]:
    module = Module.open(folder / "buildFile.xml")
    replay = Replay.open([path], module=module, board_sizes={area_module.BOARD: area_module.SIZE})
    (where,) = replay.run(_Final())
    return where


# -- a prototype the module does not define ---------------------------------------------
def test_a_missing_prototype_expands_to_nothing_and_is_named() -> None:
    piece = PieceDef.parse(build_piece(UsePrototype.build(prototype_name="Here"),
                                       UsePrototype.build(prototype_name="Gone"),
                                       BasicPiece.build(piece_name="Корпус")).encode())
    here = build_piece(Marker.build(properties={"Class": "Here"}), BasicPiece.build()).encode()
    missing: set[str] = set()
    out = expand_prototypes(piece, {"Here": here}, missing=missing)
    assert [t.prefix for t in out.traits] == ["mark;", "piece;"]
    assert out.get_property("Class") == "Here" and out.name == "Корпус"
    assert missing == {"Gone"}
    assert expand_prototypes(piece, {"Here": here}).type == out.type     # (no set: still no error)


def test_prototypes_in_a_loop_are_still_refused() -> None:
    loop = build_piece(UsePrototype.build(prototype_name="A"), BasicPiece.build()).encode()
    with pytest.raises(VmodError, match="loop"):
        expand_prototypes(PieceDef.parse(loop), {"A": loop})


def _module_with_a_missing_prototype(folder: Path) -> Path:
    """The area module with its prototypes: its pieces use "Unit" (defined)
    and "Rebuild" (not defined)."""
    area_module.write_module(folder)
    path = folder / "buildFile.xml"
    bf = BuildFile.read(path)
    protos = etree.SubElement(bf.root, P + "module.PrototypesContainer")
    unit = etree.SubElement(protos, P + "module.PrototypeDefinition", name="Unit")
    unit.text = build_piece(Marker.build(properties={"Class": "Unit"}), BasicPiece.build()).encode()
    for slot in bf.root.iter(P + "widget.PieceSlot"):
        old = PieceDef.parse(slot.text or "")
        slot.text = build_piece(UsePrototype.build(prototype_name="Unit"),
                                UsePrototype.build(prototype_name="Rebuild"), *old.traits).encode()
    path.write_bytes(bf.to_bytes())
    return path


def test_the_writer_plays_a_module_that_names_a_missing_prototype(tmp_path: Path) -> None:
    _module_with_a_missing_prototype(tmp_path)
    module = Module.open(tmp_path / "buildFile.xml")
    with pytest.warns(MissingPrototypeWarning) as caught:
        w = GameWriter(module, players=[Player("pw", "Ann", "Red")],
                       board_sizes={area_module.BOARD: area_module.SIZE})
    (warning,) = caught                              # one warning for the set-up, naming it
    assert "Rebuild" in str(warning.message) and "buildFile.xml" in str(warning.message)
    assert w.missing_prototypes == {"Rebuild"}
    red = area_module.piece(w, "Red 1")
    traits = [t.prefix for t in w.pieces[red].piece.traits]
    assert "prototype;" not in traits and traits.count("mark;") == 2     # Unit's Class, and Side
    assert w.pieces[red].piece.get_property("Class") == "Unit"
    w.snapshot()
    with warnings.catch_warnings():
        warnings.simplefilter("error")               # (warned once: a move warns of nothing)
        w.move(red, "Nancy", player="Ann")
    log = tmp_path / "game.vlog"
    log.write_bytes(w.to_bytes(date_saved="1"))
    assert _final(log, tmp_path)["Red 1"] == "Nancy"


# -- going on from a save -------------------------------------------------------------
def _save(folder: Path) -> Path:
    """A save of the area module after two moves (0 steps: a position)."""
    area_module.write_module(folder)
    w = GameWriter(Module.open(folder / "buildFile.xml"), players=[Player("old-secret", "Ann", "Red")],
                   board_sizes={area_module.BOARD: area_module.SIZE})
    w.move(area_module.piece(w, "Red 1"), "Nancy", chat=False)
    w.move(area_module.piece(w, "Red 2"), "Paris", chat=False)
    w.snapshot()
    path = folder / "position.vsav"
    path.write_bytes(w.to_bytes(date_saved="1"))
    return path


def test_a_log_goes_on_from_a_save(tmp_path: Path) -> None:
    save = SavedGame.read(_save(tmp_path))
    module = Module.open(tmp_path / "buildFile.xml")
    w = GameWriter.from_save(module, save, players=[Player("new", "Борис", "Blue")],
                             board_sizes={area_module.BOARD: area_module.SIZE})
    assert {w.pieces[pid].piece.name: w.location(pid) for pid in w.pieces} == {
        "Red 1": "Nancy", "Red 2": "Paris", "Red HQ": "Paris", "Blue 1": "Belfort"}
    saved_ids = {c.piece_id for node in save.restore_part() for c in leaf_commands(node)
                 if isinstance(c, AddPiece) and c.piece_id}
    assert set(w.pieces) <= saved_ids and set(w.stacks) <= saved_ids
    assert int(w.new_id()) > max(int(i) for i in saved_ids if i is not None and i.isdigit())
    w.move(area_module.piece(w, "Blue 1"), "Dijon", player="Борис")
    w.move(area_module.piece(w, "Red 2"), "Nancy", player="Борис")          # onto the save's stack
    log = tmp_path / "goes-on.vlog"
    log.write_bytes(w.to_bytes(date_saved="2"))
    written = SavedGame.read(log)
    assert len(written.log_steps()) == 2
    roster = [c for node in written.restore_part() for c in leaf_commands(node) if isinstance(c, PlayerAdd)]
    assert [(c.player_id, c.name, c.side) for c in roster] == [("new", "Борис", "Blue")]
    assert "old-secret" not in written.text
    # the restore part is the save's own but for the roster
    kept = [n.encode() for n in save.restore_part() if not isinstance(n, PlayerAdd)]
    restored = [n.encode() for n in leaf_commands(written.restore_part()[0])]
    assert all(k in restored for k in kept if "\x1b" not in k)
    assert _final(log, tmp_path) == {"Red 1": "Nancy", "Red 2": "Nancy", "Red HQ": "Paris", "Blue 1": "Dijon"}


def test_the_audit_binds_through_a_missing_prototype(tmp_path: Path) -> None:
    """The audit's binding expands a piece's prototypes to read what they
    define (a piece logged with its ``prototype;`` traits): a missing one
    expands to nothing and the others still count, as in VASSAL (before,
    the whole expansion failed and the piece was read unexpanded)."""
    from vmodtool.audit.binding import PieceBinder
    from vmodtool.replay.events import PieceRef
    from vmodtool.scenario.loader import load_scenario

    path = area_module.write_scenario(tmp_path)
    _module_with_a_missing_prototype(tmp_path)
    text = path.read_text(encoding="utf-8").replace('- {match: {name: "*"}, type: infantry}',
                                                    '- {match: {property: {Class: Unit}}, type: infantry}')
    path.write_text(text, encoding="utf-8")
    module = Module.open(tmp_path / "buildFile.xml")
    scenario = load_scenario(path, module=module)
    piece = PieceDef.parse(build_piece(UsePrototype.build(prototype_name="Unit"),
                                       UsePrototype.build(prototype_name="Rebuild"),
                                       Marker.build(properties={"Side": "Red"}),
                                       BasicPiece.build(piece_name="Red 7")).encode())
    ref = PieceRef("77", piece.type, tuple(t.state for t in piece.traits))
    binder = PieceBinder(scenario, module)
    bound = binder.bind(ref)
    assert bound.unit is not None and not binder.problems
    (counter,) = [c for c in scenario.counters + tuple(binder.new_counters) if c.id == bound.unit]
    assert (counter.type, counter.side) == ("infantry", "red")
