"""The binding of a published module's pieces (issue 43, items 3 and 7), on
games written with ``GameWriter`` (tests/audit/piece_module.py): terrain
that is pieces, read from the game at every step (a Woods piece makes its
hex cost more, a River piece on a hexside adds its crossing cost, and
moving the piece moves the terrain); duplicate division markers that use
the units' prototype are one marker kind, not units; leaders whose
BasicPiece name is generic keep the names their labels give them."""

from __future__ import annotations

from pathlib import Path

from tests.audit.piece_module import BOARD, MAP, SCENARIO, SIZE, write_scenario
from vmodtool.audit.binding import PieceBinder
from vmodtool.audit.game import audit_logs
from vmodtool.audit.report import AuditReport
from vmodtool.scenario import load_scenario
from vmodtool.vassal.gamewriter import GameWriter, Player
from vmodtool.vassal.module import Module
from vmodtool.vassal.traits import BasicPiece, UsePrototype, build_piece


def _writer(folder: Path) -> GameWriter:
    w = GameWriter(Module.open(folder / "buildFile.xml"), players=[Player("pw", "Ann", "Red")],
                   board_sizes={BOARD: SIZE})
    w.snapshot()                      # the setup stacks are the log's starting state
    return w


def _piece(w: GameWriter, name: str) -> str:
    return next(pid for pid, p in w.pieces.items() if p.piece.name == name)


def _audit(folder: Path, w: GameWriter, scenario_text: str = SCENARIO) -> AuditReport:
    scenario = write_scenario(folder, scenario_text)
    log = folder / "game.vlog"
    log.write_bytes(w.to_bytes())
    return audit_logs([log], load_scenario(scenario))


def _errors(report: AuditReport) -> list[tuple[str, tuple[str, ...]]]:
    return [(v.message, v.hexes) for v in report.errors]


def test_a_woods_piece_makes_its_hex_cost_more(tmp_path: Path) -> None:
    write_scenario(tmp_path)
    w = _writer(tmp_path)
    w.move(_piece(w, "Rifles"), "0203", player="Ann")         # into the Woods piece's hex: 3 MP of 2
    report = _audit(tmp_path, w)
    (error,) = report.errors
    assert "0202 → 0203: needs 3 MP" in error.message and error.units == ("Rifles",)
    assert report.bound["terrain"] == 2
    # the same game with no terrain binding: the hex is clear, the move legal
    plain = SCENARIO.replace("  terrain:\n    - {match: {name: Woods}, terrain: woods}\n"
                             "    - {match: {name: River}, hexside: river}\n", "")
    assert plain != SCENARIO
    assert _errors(_audit(tmp_path, w, plain)) == []


def test_the_terrain_moves_with_its_piece(tmp_path: Path) -> None:
    write_scenario(tmp_path)
    w = _writer(tmp_path)
    w.move(_piece(w, "Woods"), "0101", player="Ann")          # the woods are now elsewhere
    w.move(_piece(w, "Rifles"), "0203", player="Ann")         # 1 MP: clear
    assert _errors(_audit(tmp_path, w)) == []
    w.move(_piece(w, "Rifles"), "0202", player="Ann")
    w.move(_piece(w, "Woods"), "0203", player="Ann")          # and back
    w.move(_piece(w, "Rifles"), "0203", player="Ann")
    errors = _audit(tmp_path, w).errors
    assert [v.step for v in errors] == [5] and "0202 → 0203: needs 3 MP" in errors[0].message


def test_a_river_piece_on_a_hexside_adds_its_crossing_cost(tmp_path: Path) -> None:
    # a unit of 1 MP: across the river costs 1 + 2, around it 2, straight on 1
    slow = SCENARIO.replace("factors: {move: 2}", "factors: {move: 1}")
    scenario = load_scenario(write_scenario(tmp_path, slow))
    (ax, ay), (bx, by) = scenario.map.grid.centres["0505"], scenario.map.grid.centres["0504"]

    def game(to: str) -> GameWriter:
        w = _writer(tmp_path)
        # the River piece on the side between 0505 and 0504 (just inside 0505)
        w._move_to(_piece(w, "River"), MAP, (ax + bx) // 2, (ay + by) // 2 + 1, "Ann", True)
        slot = next(s for s in w.slots if s.entry_name == "Rifles")
        unit = w.add(slot, "0505", MAP, player="Ann")
        w.move(unit, to, player="Ann")
        return w
    (error,) = _audit(tmp_path, game("0504"), slow).errors
    assert "0505 → 0504: needs 2 MP" in error.message and "0505-" in error.message
    assert _errors(_audit(tmp_path, game("0506"), slow)) == []          # away from the river: 1 MP
    unbound = slow.replace("    - {match: {name: River}, hexside: river}\n", "")
    assert unbound != slow
    assert _errors(_audit(tmp_path, game("0504"), unbound)) == []       # no river: 1 MP


def test_division_markers_are_markers_and_leaders_keep_their_names(tmp_path: Path) -> None:
    write_scenario(tmp_path)
    w = _writer(tmp_path)
    w.move(_piece(w, "Rifles"), "0303", player="Ann")
    report = _audit(tmp_path, w)
    scenario_units = {c.id for c in load_scenario(tmp_path / "scenario.yaml").counters}
    assert scenario_units == set()
    assert report.bound["units"] == 3 and report.bound["markers"] == 3
    # every bound unit by its name: no "90", and the leaders by their labels
    from vmodtool.audit.engine import Engine
    from vmodtool.audit.game import AuditGame
    from vmodtool.replay import Replay
    module = Module.open(tmp_path / "buildFile.xml")
    scenario = load_scenario(tmp_path / "scenario.yaml", module=module)
    game = AuditGame(scenario, Replay.open([tmp_path / "game.vlog"], module=module, board_sizes={BOARD: SIZE}),
                     module)
    bound = game.prepare()
    game.run(Engine(bound, rules=[]))
    assert sorted(c.id for c in bound.counters) == ["Leader (Fergusson)", "Leader (Wellesley)", "Rifles"]
    assert sorted(game.piece_marker.values()) == ["division"] * 3


def test_name_from_names_units_by_a_property(tmp_path: Path) -> None:
    text = SCENARIO.replace("    - {match: {prototype: [Unit, Leader]}, type: infantry}\n",
                            "    - {match: {prototype: Leader}, type: infantry, name_from: Commander}\n"
                            "    - {match: {prototype: Unit}, type: infantry}\n")
    assert text != SCENARIO
    write_scenario(tmp_path, text)
    w = _writer(tmp_path)
    w.move(_piece(w, "Rifles"), "0302", player="Ann")
    log = tmp_path / "game.vlog"
    log.write_bytes(w.to_bytes())
    from vmodtool.audit.engine import Engine
    from vmodtool.audit.game import AuditGame
    from vmodtool.replay import Replay
    module = Module.open(tmp_path / "buildFile.xml")
    scenario = load_scenario(tmp_path / "scenario.yaml", module=module)
    game = AuditGame(scenario, Replay.open([log], module=module, board_sizes={BOARD: SIZE}), module)
    bound = game.prepare()
    game.run(Engine(bound, rules=[]))
    assert sorted(c.id for c in bound.counters) == ["Gen. Fergusson", "Gen. Wellesley", "Rifles"]


def test_name_from_with_counter_from_is_a_located_problem(tmp_path: Path) -> None:
    from vmodtool.scenario import check_scenario
    text = SCENARIO.replace("type: infantry}", "counter_from: UnitId, name_from: Commander}")
    _, problems = check_scenario(write_scenario(tmp_path, text))
    assert any("'name_from' goes with 'type'" in p.message and p.path[-1] == "name_from" for p in problems)


def test_a_terrain_binding_that_matches_no_piece_is_said(tmp_path: Path) -> None:
    text = SCENARIO.replace("{match: {name: Woods}, terrain: woods}", "{match: {name: Forest}, terrain: woods}")
    text = text.replace("    - {match: {name: River}, hexside: river}\n", "")
    write_scenario(tmp_path, text)
    w = _writer(tmp_path)
    w.move(_piece(w, "Rifles"), "0203", player="Ann")
    report = _audit(tmp_path, w, text)
    assert report.errors == []                                # the typed terrain: clear
    assert any(x.startswith("no piece of the game matched binding.terrain") for x in report.replay_warnings)
    assert not any("matched binding.terrain" in x for x in _audit(tmp_path, w).replay_warnings)


def test_the_binder_reads_a_prototype_s_own_prototypes_only_when_a_piece_reaches_it(tmp_path: Path) -> None:
    """The prototypes a prototype uses are read when a selector reaches it,
    not every prototype of the module up front (Paths of Glory defines
    hundreds); one that cannot be read uses none."""
    scenario = load_scenario(write_scenario(tmp_path))
    module = Module.open(tmp_path / "buildFile.xml")
    binder = PieceBinder(scenario, module)
    assert binder._prototype_uses == {}                    # nothing parsed yet
    binder.prototypes["Outer"] = build_piece(UsePrototype.build(prototype_name="Unit"), BasicPiece.build()).encode()
    binder.prototypes["Broken"] = "+/null/emb2;x\tnot-a-basic-piece/\t"
    assert binder.prototype_uses("Outer") == ["Unit"]
    assert binder.prototype_uses("Broken") == [] and binder.prototype_uses("Nowhere") == []
    assert set(binder._prototype_uses) == {"Outer", "Broken", "Nowhere"}
