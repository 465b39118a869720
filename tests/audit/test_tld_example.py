"""The Longest Day example (examples/the-longest-day): a game played with the
published module (VASSAL 2.9, no module built by vmodtool), audited through
the scenario's binding.

The stacking findings are checked against an independent count made here
from the replay alone: which pieces are units and on which side is read
from the module's palette (the slot of the piece's name and image: its
prototypes and top palette folder), where they are from the replay's board
state at each settle point."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.conftest import shared_files, shared_path
from vmodtool.audit.game import audit_logs
from vmodtool.cli import cli
from vmodtool.replay import Replay
from vmodtool.scenario import load_scenario
from vmodtool.vassal.module import Module
from vmodtool.vassal.pieces import PieceDef

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "the-longest-day" / "scenario.yaml"
SIDES = {"American": "allied", "British": "allied", "German": "german"}
LIMIT = 3
HEX = re.compile(r"[0-9]{4}")          # the module's hex labels: column and row, two digits each
MAP = "Normandy"


def _module() -> Path:
    return shared_path("corpus", "tld", "buildFile")


def _image(piece: PieceDef) -> str:
    return str(getattr(piece.basic.view(), "image", "") or "")


def _palette_units(module: Module) -> dict[tuple[str, str] | str, str]:
    """(name, image) and name -> side of every palette piece that is a unit
    (prototype Unit, not a Fortification), by its top palette list (the
    logs were played with an older version of the module, whose images had
    other names: a piece is then known by its name)."""
    out: dict[tuple[str, str] | str, str] = {}
    for slot in module.buildfile.piece_slots():
        lists = [a.get("entryName") for a in slot.element.iterancestors() if str(a.tag).endswith("ListWidget")]
        side = SIDES.get(lists[-1] if lists else "")
        if side is None or "prototype;Unit" not in slot.definition or "prototype;Fortification" in slot.definition:
            continue
        piece = PieceDef.parse(slot.definition)
        out.setdefault((piece.name, _image(piece)), side)
        out.setdefault(piece.name, side)
    return out


def _overstacked(replay: Replay, units: dict[tuple[str, str] | str, str]
                 ) -> dict[tuple[str, str], tuple[str, ...]]:
    """(hex, side) -> unit names bottom to top, for every hex of the map with
    more than LIMIT units of one side, in the replay's live state."""
    engine = replay.engine
    assert engine is not None
    here: dict[tuple[str, str], list[tuple[int, str]]] = defaultdict(list)
    for p in engine.state.game_pieces():
        where = engine.place_of(p)
        if where.map != MAP or where.location is None or not HEX.fullmatch(where.location):
            continue                      # (zones of the map, such as "Cherbourg Alarm Units", are not hexes)
        piece = engine.ref(p).definition()
        side = units.get((piece.name, _image(piece))) or units.get(piece.name)
        if side is None:
            continue
        parent = p.parent
        order = parent.members.index(p) if parent is not None else 0
        # (the module has unnamed units: the audit names them by their VASSAL id)
        here[(where.location, side)].append((order, piece.name or f"piece {p.id}"))
    return {k: tuple(n for _, n in sorted(v)) for k, v in here.items() if len(v) > LIMIT}


def _expected(logs: list[Path], points: set[int]) -> dict[int, dict[tuple[str, str], tuple[str, ...]]]:
    """What a settle-point check reports at each of ``points``: the hexes
    over the limit there, except those it reported at the previous point
    with the same units (a finding is reported once until put right)."""
    module = Module.open(_module())
    units = _palette_units(module)
    replay = Replay.open(logs, module=module, board_sizes={MAP: (5340, 5024)})
    reported: dict[int, dict[tuple[str, str], tuple[str, ...]]] = {}
    open_: dict[tuple[str, str], tuple[str, ...]] = {}
    for step in replay.steps():
        if step.number in points:
            now = _overstacked(replay, units)
            # (a stack is the same finding while it holds the same units)
            reported[step.number] = {k: v for k, v in now.items() if open_.get(k) != tuple(sorted(v))}
            open_ = {k: tuple(sorted(v)) for k, v in now.items()}
    return reported


def _found(report: dict) -> dict[int, dict[tuple[str, str], tuple[str, ...]]]:
    out: dict[int, dict[tuple[str, str], tuple[str, ...]]] = defaultdict(dict)
    for v in report["violations"]:
        if v["rule_id"] == "stack.end_of_movement" and not v["withdrawn_by_undo"]:
            names = tuple(u.split(" #")[0] for u in v["units"])       # "90 #2" is the second piece named 90
            # the side of the stack (the event's side is who was playing)
            out[v["step"]][(v["hexes"][0], v["evidence"]["side_counted"])] = names
    return dict(out)


def _audit(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["audit", *args])
    return result.exit_code, result.output


def test_the_example_validates_with_the_module() -> None:
    result = CliRunner().invoke(cli, ["check-scenario", str(EXAMPLE), "-m", str(_module())])
    assert result.exit_code == 0, result.output
    assert "7482 hexes" in result.output and "0 counters of 4 types" in result.output


def test_without_the_module_the_scenario_says_what_to_give() -> None:
    result = CliRunner().invoke(cli, ["check-scenario", str(EXAMPLE)])
    assert result.exit_code == 2
    assert "map.from_module: the map is taken from the module, but no module is named" in result.output


def test_stacking_on_the_first_log_equals_an_independent_count() -> None:
    log = shared_path("corpus", "tld", "game", "0606-1.log")
    code, out = _audit(str(log), "--scenario", str(EXAMPLE), "-m", str(_module()), "--format", "json")
    assert code == 1, out
    report = json.loads(out)
    found = _found(report)
    # the log ends in the Follow-Up Movement phase ("Now for the Follow-Up
    # movement phase.", step 658): the end of the game is its end
    assert set(found) == {1091}
    expected = _expected([log], {1091})
    assert found[1091] == expected[1091]
    assert len(found[1091]) == 16
    # hexes are the module's labels, units its piece names
    assert ("4224", "allied") in found[1091]
    assert found[1091][("4224", "allied")][:3] == ("1/357/90", "3/357/90", "1/359/90")
    # no false clean (issue 42): the log's pieces also stand in windows this
    # version of the module lacks (its entry track, remnants …) and on the
    # Normandy map outside its hexes; no rule looked at them there, and the
    # report says so instead of counting those places as clean
    windows = {where.split(" (")[0].split(":")[0] for where in report["units_not_checked"].values()}
    assert windows == {"Allied Entry Track", "Allied Non-Divisional Reinforcements", "German Strategic Movement",
                       "German Remnants", "Allied Airborne Display", "Normandy"}
    assert set(report["not_checked"]) == {"stack.end_of_movement", "move.allowance", "fort.never_moves"}
    assert "no rule looked at them there" in report["not_checked"]["stack.end_of_movement"]


@pytest.mark.parametrize("name", ["0606-1.log"])
def test_the_units_of_a_hex_are_the_modules_pieces(name: str) -> None:
    log = shared_path("corpus", "tld", "game", name)
    scenario = load_scenario(EXAMPLE, module=_module())
    report = audit_logs([log], scenario, module=_module())
    v = next(v for v in report.violations if v.rule_id == "stack.end_of_movement" and v.hexes == ("4223",))
    assert "10 units of Allied in 4223" in v.message
    assert "2/12/4" in v.units and "345/90" in v.units


def test_stacking_on_the_whole_chain_equals_an_independent_count() -> None:
    logs = shared_files("corpus", "tld/game/*.log")
    if not logs:
        shared_path("corpus", "tld", "game")
    scenario = load_scenario(EXAMPLE, module=_module())
    report = audit_logs(logs, scenario, module=_module()).as_json()
    found = _found(report)
    # the ends of the movement phases, as the players typed them: "Ready for
    # your movement phase..." (1372, ends the Follow-Up Movement), "Defensive
    # fire phase" (3566), "reset phase" (7369), "Reset Phase" (9299), and one
    # more at 10132 (the end of 1931's movement phase was undone)
    assert set(found) == {1372, 3566, 7369, 9299, 10132}
    expected = _expected(logs, set(found))
    for step in sorted(found):
        # the same hexes and units (the order within a stack after a log's
        # restore is the saved game's, which the audit does not re-read)
        assert {k: sorted(v) for k, v in found[step].items()} == \
            {k: sorted(v) for k, v in expected[step].items()}, step
    assert sum(len(f) for f in found.values()) == 43
    # identity is the VASSAL id: the binding bound each piece once
    assert report["steps"] == 10148


def test_movement_findings_follow_the_modules_grid() -> None:
    log = shared_path("corpus", "tld", "game", "0606-1.log")
    module = Module.open(_module())
    scenario = load_scenario(EXAMPLE, module=module)
    report = audit_logs([log], scenario, module=module)
    moves = [v for v in report.violations if v.rule_id == "move.allowance" and not v.withdrawn_by_undo]
    assert moves
    # the module's own hex grid, read here from its buildFile (every hex costs 1: clear terrain)
    from vmodtool.vassal.grid import HexGrid, board_from_element
    board = next(b for b in module.buildfile.boards() if b.name == MAP)
    grid = board_from_element(board.element, 5340, 5024).grid
    hexes = getattr(grid, "background", grid)
    assert isinstance(hexes, HexGrid)
    for v in moves:
        path = v.evidence["path"]
        assert all(b in hexes.neighbours(a) for a, b in zip(path, path[1:], strict=False)), v.message
        # (at least the straight distance: hexes of a zone, such as a display, are not the map's)
        assert v.evidence["cost"] == len(path) - 1 >= hexes.distance(path[0], path[-1])
        assert v.evidence["spent"] > v.evidence["allowance"]


def test_faces_come_from_the_unnamed_flip_layer() -> None:
    """The module's units flip with an unnamed layer whose command is "Flip":
    a unit shows its reduced face exactly when that layer is on in the log."""
    from vmodtool.audit.engine import Engine
    from vmodtool.audit.game import AuditGame
    log = shared_path("corpus", "tld", "game", "0606-1.log")
    module = Module.open(_module())
    scenario = load_scenario(EXAMPLE, module=module)
    game = AuditGame(scenario, Replay.open([log], module=module, board_sizes={MAP: (5340, 5024)}), module)
    bound = game.prepare()
    game.run(Engine(bound, rules=[]))
    reduced = {game.unit_piece[u] for u, s in game.state.units_state.items() if s.face == 1 and s.present}
    # independently: the pieces whose layer (type "emb2;Flip;…") has a positive level at the end
    replay = Replay.open([log], module=module, board_sizes={MAP: (5340, 5024)})
    for _ in replay.steps():
        pass
    engine = replay.engine
    assert engine is not None
    flipped = set()
    for p in engine.state.game_pieces():
        for trait in engine.ref(p).definition().traits:
            if trait.type.startswith("emb2;Flip;") and int(trait.state.split(";")[0] or "-1") > 0:
                flipped.add(p.id)
    assert reduced and reduced == flipped & set(game.piece_unit)
