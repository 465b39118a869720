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
from functools import cache
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
        if _division_marker(piece.name, lists, slot.element.getparent().get("entryName")):
            side = ""                                   # a marker: known, not a unit
        out.setdefault((piece.name, _image(piece)), side)
        out.setdefault((piece.name, _stem(_image(piece))), side)
        out.setdefault(piece.name, side)
    return out


def _side_of(units: dict[tuple[str, str] | str, str], name: str, image: str) -> str | None:
    """The side of a unit piece by its name and image, else its image's
    stem, else its name (None: not a unit)."""
    for key in ((name, image), (name, _stem(image)), name):
        if key in units:
            return units[key] or None
    return None


def _stem(image: str) -> str:
    """``1445`` of ``1445.svg`` (the logs' module version) and ``1445.f.svg``
    (the module's): which of the pieces of one name a piece is."""
    return image.split(".", 1)[0]


def _division_marker(name: str, lists: list[str | None], folder: str | None) -> bool:
    """An American infantry division's markers: the pieces of its palette
    panel named by its number alone ("90" in "90 Inf Div"), three of them."""
    folder = folder or ""
    return (bool(lists) and lists[-1] == "American" and folder.endswith(" Inf Div")
            and name == folder.split(" ")[0])


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
        side = _side_of(units, piece.name, _image(piece))
        if side is None:
            continue
        parent = p.parent
        order = parent.members.index(p) if parent is not None else 0
        # (the module has unnamed units: the audit names them by their VASSAL id)
        here[(where.location, side)].append((order, piece.name or f"piece {p.id}"))
    return {k: tuple(n for _, n in sorted(v)) for k, v in here.items() if len(v) > LIMIT}


def _expected(logs: list[Path], points: dict[int, str | None]
              ) -> dict[int, dict[tuple[str, str], tuple[str, ...]]]:
    """What a settle-point check reports at each of ``points`` (step ->
    the side it judges, the stacking rule's ``applies_to: phasing``; None:
    every side): the hexes of that side over the limit there, except those
    it reported before with these units or more (a standing finding is
    reported once, again only when it gains a unit or after a fix)."""
    module = Module.open(_module())
    units = _palette_units(module)
    replay = Replay.open(logs, module=module, board_sizes={MAP: (5340, 5024)})
    reported: dict[int, dict[tuple[str, str], tuple[str, ...]]] = {}
    open_: dict[tuple[str, str], tuple[str, ...]] = {}
    for step in replay.steps():
        if step.number in points:
            side = points[step.number]
            now = _overstacked(replay, units)
            judged = {k: v for k, v in now.items() if side is None or k[1] == side}
            reported[step.number] = {k: v for k, v in judged.items()
                                     if k not in open_ or not set(v) <= set(open_[k])}
            # (a side not judged keeps what was reported of it; what is put right is closed)
            open_ = {k: (tuple(sorted(v)) if k in judged else open_[k]) for k, v in now.items()
                     if k in judged or k in open_}
    return reported


def _found(report: dict) -> dict[int, dict[tuple[str, str], tuple[str, ...]]]:
    out: dict[int, dict[tuple[str, str], tuple[str, ...]]] = defaultdict(dict)
    for v in report["violations"]:
        if v["rule_id"] == "stack.end_of_movement" and not v["withdrawn_by_undo"]:
            names = tuple(u.split(" #")[0] for u in v["units"])       # "90 #2" is the second piece named 90
            # the side of the stack (the event's side is who was playing)
            out[v["step"]][(v["hexes"][0], v["evidence"]["side_counted"])] = names
    return dict(out)


@cache
def _chain_report() -> dict:
    """The audit of the whole chain (19 logs) with the example scenario, as
    JSON (made once for the tests that read it)."""
    logs = shared_files("corpus", "tld/game/*.log")
    if not logs:
        shared_path("corpus", "tld", "game")
    scenario = load_scenario(EXAMPLE, module=_module())
    return audit_logs(logs, scenario, module=_module()).as_json()


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
    # the Allied Follow-Up Movement phase ("Now for the Follow-Up movement
    # phase.", step 658) ends at step 1089 ("So, assuming that everything is
    # up to this point is ok, it's time for you to do your mechanized
    # movement phase."): the Allied stacks are judged there
    assert set(found) == {1089}
    expected = _expected([log], {1089: "allied"})
    assert found[1089] == expected[1089]
    assert len(found[1089]) == 16
    # hexes are the module's labels, units its piece names
    assert ("4224", "allied") in found[1089]
    assert found[1089][("4224", "allied")][:3] == ("1/357/90", "3/357/90", "1/359/90")
    # 12 of them stood so in the saved game the log began from (the landing
    # craft of the module's 6 June set-up): inherited, said so
    inherited = {v["hexes"][0] for v in report["violations"]
                 if v["rule_id"] == "stack.end_of_movement" and v["evidence"].get("inherited")}
    assert len(inherited) == 12 and "4223" in inherited and "7128" not in inherited
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
    assert "9 units of Allies in 4223" in v.message          # (10 with a "90" division marker)
    assert "2/12/4" in v.units and "345/90" in v.units


def test_stacking_on_the_whole_chain_equals_an_independent_count() -> None:
    """The stacking rule judges the phasing side at the end of its movement
    phases (``applies_to: phasing``): each over-stack is reported once, where
    it arose, and again only when a unit joins it."""
    logs = shared_files("corpus", "tld/game/*.log")
    report = _chain_report()
    found = _found(report)
    stacks = [v for v in report["violations"] if v["rule_id"] == "stack.end_of_movement"
              and not v["withdrawn_by_undo"]]
    # every finding is of the side whose movement phase ended there
    assert stacks and all(v["evidence"]["side_counted"] == v["phasing_side"] for v in stacks)
    sides = {v["step"]: v["phasing_side"] for v in stacks}
    # the ends of the movement phases, as the players typed them: step 1089
    # (the Allied Follow-Up Movement), "Defensive fire phase" (3566),
    # "reset phase" (7369), "Reset Phase" (9299, the German movement
    # phase), and 10132 (the end of 1931's movement phase was undone); at
    # 1372 ("Ready for your movement phase...": the German Mechanized
    # Movement ends) no German stack is over the limit
    assert set(found) == {1089, 3566, 7369, 9299, 10132}
    expected = _expected(logs, sides)
    for step in sorted(found):
        # the same hexes and units (the order within a stack after a log's
        # restore is the saved game's, which the audit does not re-read)
        assert {k: sorted(v) for k, v in found[step].items()} == \
            {k: sorted(v) for k, v in expected[step].items()}, step
    # no over-stack reported twice with the same units (or fewer)
    seen: dict[tuple[str, str], set[str]] = {}
    for v in sorted(stacks, key=lambda v: v["step"]):
        key = (v["hexes"][0], v["evidence"]["side_counted"])
        assert key not in seen or not set(v["units"]) <= seen[key], v["message"]
        seen[key] = set(v["units"])
    assert sum(len(f) for f in found.values()) == 36
    # identity is the VASSAL id: the binding bound each piece once
    assert report["steps"] == 10148


def test_a_stacking_check_at_the_end_of_the_german_movement_judges_the_germans_only() -> None:
    """At 9299 (the end of the German movement phase) Allied over-stacks
    stand on the map (an independent count from the replay), and the check
    reports German stacks only: the Allied ones are judged at the end of
    the Allied movement phase (10132)."""
    logs = shared_files("corpus", "tld/game/*.log")
    found = _found(_chain_report())
    every = _expected(logs, {9299: None})[9299]
    assert {side for _, side in every} == {"allied", "german"}
    assert found[9299] and {side for _, side in found[9299]} == {"german"}


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


def test_duplicate_division_markers_are_one_marker_kind_not_units() -> None:
    """TLD's American infantry divisions have three pieces named by the
    division's number (with the Unit prototype); they were bound as units
    ("8 units … 90 Infantry (90), (90 #2), (90 #3)" in 4224, issue 43)."""
    log = shared_path("corpus", "tld", "game", "0606-1.log")
    module = Module.open(_module())
    scenario = load_scenario(EXAMPLE, module=module)
    report = audit_logs([log], scenario, module=module)
    assert "90" in _division_names(module)
    assert not any(u.split(" #")[0] == "90" for v in report.violations for u in v.units)
    v = next(v for v in report.violations if v.rule_id == "stack.end_of_movement" and v.hexes == ("4224",))
    assert v.units == ("1/357/90", "3/357/90", "1/359/90", "2/359/90", "3/359/90")
    assert report.bound["markers"] > 48            # the division markers (48: the DISRUPTs … before)


def _division_names(module: Module) -> set[str]:
    names = set()
    for slot in module.buildfile.piece_slots():
        lists = [a.get("entryName") for a in slot.element.iterancestors() if str(a.tag).endswith("ListWidget")]
        piece = PieceDef.parse(slot.definition)
        if _division_marker(piece.name, lists, slot.element.getparent().get("entryName")):
            names.add(piece.name)
    return names


def test_a_chain_finding_names_its_log_and_its_step_there() -> None:
    logs = [shared_path("corpus", "tld", "game", n) for n in ("0606-1.log", "0606-2.log")]
    code, out = _audit(*map(str, logs), "--scenario", str(EXAMPLE), "-m", str(_module()), "--format", "json")
    report = json.loads(out)
    first_steps = 1091                                  # the steps of 0606-1.log
    later = [v for v in report["violations"] if v["step"] > first_steps]
    assert later and report["violations"][0]["step"] <= first_steps
    for v in report["violations"]:
        assert {"log", "log_step", "step"} <= set(v)
        if v["step"] > first_steps:
            assert v["log"] == "0606-2.log" and v["log_step"] == v["step"] - first_steps
        else:
            assert v["log"] == "0606-1.log" and v["log_step"] == v["step"]


def test_a_phase_announced_to_the_other_player_is_that_players() -> None:
    """The example's chat pattern: "your … phase" (group ``addressed``)
    starts the phase of the side the speaker addresses; a side named in the
    line is that side's; "German Coastal Artillery" (German fire in the
    Allied player turn) names no phasing side."""
    from vmodtool.audit.timeline import Clock
    clock = Clock(load_scenario(EXAMPLE, module=_module()))
    ready = clock.time("<Joel> - Ready for your movement phase...")
    assert ready is not None and (ready.phase, ready.side, ready.addressed) == ("movement", None, True)
    named = clock.time("<Nate> - German Replacement Phase, June 7")
    assert named is not None and (named.phase, named.side, named.addressed) == ("replacement", "german", False)
    coastal = clock.time("<Joel> - Starting German Coastal Artillery phase...")
    assert coastal is not None and (coastal.phase, coastal.side) == ("coastal_artillery", None)
    late = clock.time("<Joel> - So, assuming that everything is up to this point is ok, it's time for you "
                      "to do your mechanized movement phase.")
    assert late is not None and (late.phase, late.addressed) == ("mechanized", True)
    # in the audit: the German Mechanized Movement phase begun by Joel (of the Allies) is the Germans'
    logs = [shared_path("corpus", "tld", "game", name) for name in ("0606-1.log", "0606-2.log")]
    scenario = load_scenario(EXAMPLE, module=_module())
    report = audit_logs(logs, scenario, module=_module())
    after = [v for v in report.violations if v.step > 1089 and v.phase == "mechanized"]
    assert after and {v.phasing_side for v in after} == {"german"}


#: a sample of the chain's move-allowance findings (every 12th, by step and
#: unit), each judged by hand against ``vmodtool replay`` of the chain and
#: its chat: real, false (and why) or undecidable with this example's data
SAMPLE = [
    (900, "1/12/4", "real: 9 MP of 8 in the Allied Follow-Up; Joel redid it himself ('I had to redo these "
                    "moves', step 997) and the redone move (999) is within its allowance"),
    (1093, "220/21", "undecidable: 17 MP of 16 with every hex clear; the example types no roads"),
    (1460, "AOK 7", "undecidable: an army HQ, given the infantry's 8 MP by the example's binding"),
    (1712, "II/731/711", "undecidable: 10 MP of 8 over three drags, every hex clear"),
    (1855, "I/6", "false: German strategic movement (it came off the German Strategic Movement display, "
                  "'strategic movement has gone pretty well...', step 1852)"),
    (1863, "I/6", "false: the same strategic movement, 80 MP summed"),
    (3549, "21 #4", "false: a division marker of the 21st Panzer bound as a unit (binding, issue 43 item 7)"),
    (5874, "126/51", "undecidable: one drag of 9 hexes with 8 MP, every hex clear"),
    (5910, "7 #7", "false: the 7th Armoured's division marker bound as a unit"),
    (6971, "91 #4", "false: the 91st's division marker, bound as a unit of the wrong side"),
    (7193, "piece 1168285225940", "undecidable: an unnamed piece into a hex holding I/12/12ss"),
    (8647, "I/739/709", "false: the 'enemy' in 2717 is the 709th's division marker"),
    (8769, "2/101", "undecidable: 19 MP of 16 over two drags, every hex clear"),
    (8852, "2/200/21", "undecidable: the 'enemy' in 7241 is 634, a piece the binding may mis-side"),
    (8963, "III/1/2", "false: strategic movement (off the German Strategic Movement display at 8939)"),
    (9000, "KG 300", "false: strategic movement (from 8642, the strategic display's entry)"),
    (9032, "625", "false: the 'enemy' in 8746 is 628, a German piece that came off the German Strategic "
                  "Movement display with it (9022), bound to the other side"),
    (9069, "II/3/30", "false: the 'enemy' in 2829 is the 91st's division marker"),
    (9748, "6 GH/50", "undecidable: one drag of 10 hexes with 8 MP, every hex clear"),
    (9827, "piece 1168285006458", "undecidable: an unnamed piece, one drag of 10 hexes"),
]


def test_move_allowance_findings_of_the_chain() -> None:
    """The chain's move-allowance findings with combat windows, movement
    phases of the phasing side and take-backs (issue 43 item 1), and the
    binding of real modules (item 7: division markers as markers, a piece
    of the older module given its own palette slot).

    Before: 699 (621 standing, 78 withdrawn by undo). With combat windows:
    294 (248 and 46). With the binding too: 242 (203 and 39). With
    ``exempt_entering`` (a unit that came onto the map in the phase, off a
    strategic movement display or an entry track, is not charged): 201 (164
    and 37). A sample of 20 of the 248 judged by hand (:data:`SAMPLE`): 1
    real, 10 false (6 pieces bound as units or sides they are not, 5 of them
    division markers; 4 strategic movement), 9 undecidable without the
    board's terrain and roads, which the example does not type. Now 8 of the
    10 false ones are gone (the 21st's and 91st's markers, the 709th's
    marker taken for an enemy, the four strategic moves, 628 off the
    strategic display) and 2 undecidable ones (the unnamed piece beside
    I/12/12ss; 634's side); the real one stands. The false
    positives of combat moves and missed phases are gone: the advances
    after combat at 1222 and 1228 ('we advance to the hill'), the Allied
    advances after the roll at 6046 (the chat missed the combat phase), and
    the moves taken back at 678–689."""
    report = _chain_report()
    moves = [v for v in report["violations"] if v["rule_id"] == "move.allowance"]
    live = sorted((v for v in moves if not v["withdrawn_by_undo"]), key=lambda v: (v["step"], v["units"]))
    assert (len(moves), len(live)) == (201, 164)
    verdicts = [verdict.split(":")[0] for _, _, verdict in SAMPLE]
    assert (verdicts.count("real"), verdicts.count("false"), verdicts.count("undecidable")) == (1, 10, 9)
    standing = {(v["step"], v["units"][0]) for v in live}
    gone_with_binding = {(3549, "21 #4"), (6971, "91 #4"), (8647, "I/739/709"), (7193, "piece 1168285225940"),
                         (8852, "2/200/21"),
                         # exempt_entering: strategic movement
                         (1855, "I/6"), (1863, "I/6"), (8963, "III/1/2"), (9000, "KG 300"), (9032, "625")}
    for step, unit, verdict in SAMPLE:
        assert ((step, unit) in standing) == ((step, unit) not in gone_with_binding), (step, unit, verdict)
    # only moves of the movement phases, of the phasing side's units
    assert {v["phase"] for v in live} <= {"movement", "mechanized", "follow_up"}
    gone = {(678, "3/8/4"), (689, "2/8/4"), (1222, "2 RWR/3"), (1228, "1 SLR/3"), (6049, "3/18/1"),
            (6050, "3/26/1"), (6051, "2/26/1"), (6068, "1/18/1")}
    assert not gone & {(v["step"], v["units"][0]) for v in moves}
