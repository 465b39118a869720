"""``check-game``'s actions check: moves out of turn (the phasing side from
the module's turn tracker, by its chat reports and ``TURN`` states) and moves
of masked pieces, named without revealing them — on logs written with
GameWriter, the clean example games and the TLD chain."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.audit.helpers import built_module, example
from tests.conftest import EXAMPLES
from vmodtool.checkgame import NOTE, SUSPICIOUS, check_game, record_game
from vmodtool.checkgame import actions as actions_check
from vmodtool.vassal.commands import ChangePiece
from vmodtool.vassal.gamewriter import GameWriter, Player
from vmodtool.vassal.pieces import PieceDef, Trait
from vmodtool.vassal.sequence import encode_sequence
from vmodtool.vassal.traits import DEFAULT_TYPES

FRITZ, TOMMY = "Fritz", "Tommy"
GER, ALL = "German Empire", "Allies"
PLAYERS = [Player("ger-secret-pw", FRITZ, GER), Player("all-secret-pw", TOMMY, ALL)]
MASK = DEFAULT_TYPES["VASSAL.counters.Obscurable"]       # obs;77,130;;Mask;I;?;player:;Peek;;true;;


@pytest.fixture(scope="module")
def ww1_module():
    return built_module(example("ww1-operational"))


def writer(module_and_sizes, players=PLAYERS) -> GameWriter:
    module, sizes = module_and_sizes
    return GameWriter(module, players=players, board_sizes=sizes)


def unit(w: GameWriter, uid: str) -> str:
    return w.find(UnitId=uid)


def check(tmp_path: Path, w: GameWriter, module_and_sizes=None):
    path = tmp_path / "game.vlog"
    path.write_bytes(w.to_bytes(date_saved="1767225600000"))
    module, sizes = module_and_sizes if module_and_sizes is not None else (None, None)
    record = record_game([path], module=module, board_sizes=sizes)
    return actions_check.section(record)


def tracker_state(turn: int, side: int, phase: int) -> str:
    """The ww1 tracker (Turn counter > Side list > Phase list), encoded as
    VASSAL's TurnTracker.getState does."""
    phases = encode_sequence([phase, 0, 0, "true,true,true,true,true"], ";")
    sides = encode_sequence([side, 0, 0, "true,true", phases], ";")
    counter = encode_sequence([turn, 0, "false", 6, sides], ";")
    return encode_sequence([0, counter], "|") or ""


def test_an_off_turn_move_is_one_note(tmp_path, ww1_module):
    w = writer(ww1_module)
    w.snapshot()
    w.report(f"TT|1|{GER}|Movement Phase")                 # the tracker's report: the Germans phase
    w.move(unit(w, "ger.storm.1"), "1001", player=FRITZ)
    w.move(unit(w, "all.cav"), "0504", player=TOMMY)         # step 3: the Allies move in the German turn
    w.report(f"TT|1|{ALL}|Movement Phase")
    w.move(unit(w, "all.cav"), "0604", player=TOMMY)         # their own turn now
    section = check(tmp_path, w, ww1_module)
    assert section.checked
    assert [(f.kind, f.severity, f.file_step, f.player) for f in section.findings] == \
        [("off_turn_move", NOTE, 3, TOMMY)]
    f = section.findings[0]
    assert f.message.startswith("Tommy (Allies) moved ") and f.message.endswith(
        f" 0503 → 0504 during the turn of {GER}")
    assert f.details["phasing"] == GER and f.details["side"] == ALL
    off = section.data["off_turn"]
    assert off["checked"] and (off["moves"], off["steps"], off["by_player"]) == (1, 1, {TOMMY: 1})
    assert "'Side'" in off["phasing_from"]
    assert not section.suspicious


def test_moves_in_turn_only_are_a_checked_all_clear(tmp_path, ww1_module):
    w = writer(ww1_module)
    w.snapshot()
    w.report(f"TT|1|{GER}|Movement Phase")
    w.move(unit(w, "ger.storm.1"), "1001", player=FRITZ)
    section = check(tmp_path, w, ww1_module)
    assert section.checked and not section.findings
    assert "no off-turn move" in section.summary
    # the same log before the tracker says whose turn it is: never an all-clear
    w = writer(ww1_module)
    w.snapshot()
    w.move(unit(w, "ger.storm.1"), "1001", player=FRITZ)
    section = check(tmp_path, w, ww1_module)
    assert not section.checked and not section.findings
    assert section.data["off_turn"]["reason"].endswith("never shows whose turn it is (Allies, German Empire)")


def test_moving_a_piece_of_the_phasing_side_out_of_turn_is_suspicious(tmp_path, ww1_module):
    w = writer(ww1_module)
    w.snapshot()
    w.report(f"TT|1|{GER}|Movement Phase")
    storm = unit(w, "ger.storm.1")
    w.move(storm, "1001", player=FRITZ)                     # a German piece, moved in the German turn
    w.move(storm, "0901", player=TOMMY)                     # step 3: the Allied player moves it
    section = check(tmp_path, w, ww1_module)
    assert [(f.kind, f.severity, f.file_step) for f in section.findings] == [("off_turn_move", SUSPICIOUS, 3)]
    assert f"(a {GER} piece: {GER} moved it in its own turn)" in section.findings[0].message
    assert section.data["off_turn"]["suspicious"] == 1


def test_the_phasing_side_from_turn_commands(tmp_path, ww1_module):
    w = writer(ww1_module)
    w.set_turn(tracker_state(2, 1, 2))                      # the save stands in the Allied movement phase
    w.snapshot()
    w.move(unit(w, "ger.storm.1"), "1001", player=FRITZ)     # step 1: off turn
    w.set_turn(tracker_state(3, 0, 0))                      # step 2: German turn 3, no chat report
    w.move(unit(w, "ger.storm.1"), "1101", player=FRITZ)     # step 3: in turn
    w.move(unit(w, "all.cav"), "0504", player=TOMMY)         # step 4: off turn
    section = check(tmp_path, w, ww1_module)
    assert [(f.kind, f.file_step, f.details["phasing"]) for f in section.findings] == \
        [("off_turn_move", 1, ALL), ("off_turn_move", 4, GER)]


def test_an_undo_step_is_no_move_of_its_own(tmp_path, ww1_module):
    w = writer(ww1_module)
    w.snapshot()
    w.report(f"TT|1|{GER}|Movement Phase")
    w.move(unit(w, "all.cav"), "0504", player=TOMMY)         # step 2: off turn, then taken back
    w.undo(player=TOMMY)
    section = check(tmp_path, w, ww1_module)
    assert [(f.kind, f.severity, f.file_step) for f in section.findings] == [("off_turn_move", NOTE, 2)]
    assert section.findings[0].message.endswith("(undone at step 3)")


def test_without_a_side_level_off_turn_moves_are_not_checked(tmp_path, ww1_module):
    # modern-tactical is a chit-pull game: its tracker has no side level
    modern = built_module(example("modern-tactical"))
    w = writer(modern, [Player("p1", "Avi", "Israel Defense Forces"), Player("p2", "Sami", "Syrian Arab Army")])
    w.snapshot()
    w.move(w.find(UnitId="syr.cav.1"), "1107", player="Sami")
    section = check(tmp_path, w, modern)
    assert not section.checked and not section.findings
    assert "no level of the module's turn tracker lists the players' sides" in section.data["off_turn"]["reason"]
    assert any("off-turn moves NOT CHECKED" in line for line in section.summary)
    # without a module at all, the tracker's report still names the side
    # whose phase begins: the off-turn move is judged (a note)
    w = writer(ww1_module)
    w.snapshot()
    w.report(f"TT|1|{GER}|Movement Phase")
    w.move(unit(w, "all.cav"), "0504", player=TOMMY)
    section = check(tmp_path, w)
    assert section.checked and [f.kind for f in section.findings] == ["off_turn_move"]
    assert section.data["off_turn"]["phasing_from"].startswith("turn announcements of the module's chat reports (1)")
    # and with no report at all, NOT CHECKED saying why
    w = writer(ww1_module)
    w.snapshot()
    w.move(unit(w, "all.cav"), "0504", player=TOMMY)
    section = check(tmp_path, w)
    assert not section.checked and not section.findings
    assert section.data["off_turn"]["reason"].startswith(f"the logs never show whose turn it is ({ALL}, {GER}): "
                                                         "no module given (-m), no report of the module announces")


def test_a_report_announcing_a_side_s_turn_sets_the_phasing_side(tmp_path):
    """modern-tactical's tracker has no side level: the module's reports
    that announce one side's turn or phase say who is phasing; a player's
    own chat line does not."""
    modern = built_module(example("modern-tactical"))
    players = [Player("p1", "Avi", "Israel Defense Forces"), Player("p2", "Sami", "Syrian Arab Army")]
    w = writer(modern, players)
    w.snapshot()
    w.chat("Israel Defense Forces turn, I think?", player="Sami")      # talk: not read
    w.move(w.find(UnitId="syr.cav.1"), "1107", player="Sami")
    section = check(tmp_path, w, modern)
    assert not section.checked and "no report of the module announces" in section.data["off_turn"]["reason"]
    w = writer(modern, players)
    w.snapshot()
    w.report("Turn 2 — Israel Defense Forces activation phase")
    w.move(w.find(UnitId="syr.cav.1"), "1107", player="Sami")
    w.report("Turn 2 — Syrian Arab Army activation phase")
    w.move(w.find(UnitId="syr.cav.1"), "1108", player="Sami")
    section = check(tmp_path, w, modern)
    assert section.checked
    [f] = section.findings
    assert f.kind == "off_turn_move" and f.severity == NOTE and f.file_step == 2
    assert f.message.endswith("during the turn of Israel Defense Forces")


def test_a_global_property_naming_a_side_sets_the_phasing_side():
    sides = frozenset({GER, ALL})
    phasing = actions_check.PhasingSides([], sides, "the module has no turn tracker")
    assert phasing.property("ActiveSide", ALL) and phasing.current == ALL
    assert not phasing.property("Weather", "Rain") and phasing.current == ALL
    assert phasing.announcement(f"* {GER} Player Turn 3") and phasing.current == GER
    assert not phasing.announcement(f"* {GER} and {ALL} exchange prisoners (turn 3)")     # two sides named
    assert not phasing.announcement(f"* UNDO: * {ALL} Player Turn 3") and phasing.current == GER
    stems = actions_check._side_stems(["Allies", "Germans", "Франция"])
    assert stems == {"Allies": "allie", "Germans": "german", "Франция": "франция"}


def test_the_scenario_s_sides_count_as_sides_the_logs_name(tmp_path, ww1_module):
    """Players who took no side in the roster: the logs name no side, but
    inside ``audit`` the scenario's sides are the game's."""
    w = writer(ww1_module, [Player("p1", FRITZ, ""), Player("p2", TOMMY, "")])
    w.snapshot()
    w.move(unit(w, "all.cav"), "0504", player=TOMMY)
    path = tmp_path / "game.vlog"
    path.write_bytes(w.to_bytes(date_saved="1767225600000"))
    module, sizes = ww1_module
    record = record_game([path], module=module, board_sizes=sizes)
    assert actions_check.section(record).data["off_turn"]["reason"].startswith("the logs name no side")
    record.sides = (GER, ALL)
    reason = actions_check.section(record).data["off_turn"]["reason"] or ""
    assert not reason.startswith("the logs name no side")


# -- hidden moves -------------------------------------------------------------------------
@pytest.fixture
def masked_module():
    """The ww1 module with a Mask (``obs;``) on the 50th Reserve Division's
    piece slot, as a module maker adds one."""
    module, sizes = built_module(example("ww1-operational"))
    for slot in module.buildfile.piece_slots():
        piece = PieceDef.parse(slot.definition)
        if piece.get_property("UnitId") == "ger.inf.3":
            slot.element.text = PieceDef.from_traits([Trait(MASK, "null;"), *piece.traits]).encode()
            break
    else:
        raise AssertionError("no piece slot for ger.inf.3")
    return module, sizes


def mask(w: GameWriter, pid: str, password: str) -> None:
    """The piece masked by the player whose id is ``password`` (the Mask's
    state names who masked it)."""
    p = w.pieces[pid]
    traits = list(p.piece.traits)
    assert traits[0].prefix == "obs;"
    traits[0] = traits[0].with_state(f"{password};")
    new = PieceDef.from_traits(traits, id=p.piece.id)
    w.steps.append("LOG\t" + ChangePiece.build(pid, new.state, p.piece.state).text)
    p.piece = new


def test_a_hidden_move_is_reported_without_revealing_the_piece(tmp_path, masked_module):
    w = writer(masked_module)
    w.snapshot()
    division = unit(w, "ger.inf.3")
    name = w.pieces[division].piece.name
    mask(w, division, "ger-secret-pw")                     # step 1: Fritz masks it
    w.move(division, "1004", player=FRITZ, chat=False)      # step 2: and moves it
    section = check(tmp_path, w, masked_module)
    assert [(f.kind, f.severity, f.file_step) for f in section.findings] == [("hidden_move", NOTE, 2)]
    f = section.findings[0]
    assert f.message == f"Fritz ({GER}) moved a masked piece of Fritz ({GER}): 1003 → 1004"
    record = json.dumps([x.record() for x in section.findings] + [section.data], ensure_ascii=False)
    assert name not in record and "ger.inf.3" not in record and "secret-pw" not in record
    assert section.data["hidden"]["moves"] == 1 and section.data["hidden"]["by_player"] == {FRITZ: 1}


def test_a_piece_masked_by_one_player_moved_by_the_other_is_suspicious(tmp_path, masked_module):
    w = writer(masked_module)
    w.snapshot()
    division = unit(w, "ger.inf.3")
    mask(w, division, "ger-secret-pw")
    w.move(division, "0903", player=TOMMY, chat=False)
    section = check(tmp_path, w, masked_module)
    assert [(f.kind, f.severity) for f in section.findings] == [("hidden_move", SUSPICIOUS)]
    assert section.findings[0].message == f"Tommy ({ALL}) moved a masked piece of Fritz ({GER}): 1003 → 0903 " \
        "(another player's)"
    assert section.data["hidden"]["suspicious"] == 1


def test_an_unmasked_piece_moves_as_any_other(tmp_path, masked_module):
    w = writer(masked_module)
    w.snapshot()
    w.move(unit(w, "ger.inf.3"), "1004", player=FRITZ)
    section = check(tmp_path, w, masked_module)
    assert not section.findings
    assert section.data["hidden"]["concealable_moves"] == 1
    assert any("no hidden or masked piece moved" in line for line in section.summary)


# -- the clean example games and TLD ----------------------------------------------------


def test_the_clean_example_games_have_nothing_suspicious(built_examples):
    checked = {}
    for system, module in built_examples.items():
        record = record_game([EXAMPLES / system / "logs" / "game-1.vlog"], module=module)
        section = actions_check.section(record)
        assert not section.suspicious, (system, [f.message for f in section.suspicious])
        checked[system] = section.checked
        # the off-turn moves of a clean game are what its rules allow in the
        # other side's turn: losses to the dead pile, a retreat
        for f in section.findings:
            assert f.kind == "off_turn_move" and f.severity == NOTE
    assert checked == {"combat-commander": True, "modern-tactical": False, "ww1-operational": True}


def test_tld_off_turn_moves_are_not_checked_without_a_tracker(tld_chain):
    record = tld_chain
    result = check_game(record, ["actions"])
    (section,) = result.sections
    assert not section.checked and not result.complete
    assert section.data["off_turn"]["reason"] == (
        "the logs never show whose turn it is (Allies, Germans): the module has no turn tracker, no report of "
        "the module announces one side's turn or phase, no global property names a side")
    assert section.data["hidden"] == {"concealable_moves": 0, "moves": 0, "steps": 0, "suspicious": 0,
                                      "by_player": {}}
    assert "NOT CHECKED" in "\n".join(result.lines())
