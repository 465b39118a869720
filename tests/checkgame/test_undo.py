"""``check-game``'s undo check: who undid what, undone dice rolls as
re-rolls, counts per player — on logs written with GameWriter (a VASSAL 3.7
bracketed undo of a roll, the VASSAL 2.x ``* UNDO:`` line), the clean example
games and the TLD chain; and ``inspect`` counting undo steps as the replay
marks them."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.audit.helpers import built_module, example
from tests.conftest import EXAMPLES, shared_files
from vmodtool.checkgame import NOTE, SUSPICIOUS, check_game, record_game
from vmodtool.checkgame import undo as undo_check
from vmodtool.cli import cli
from vmodtool.inspection import inspect_file
from vmodtool.replay import Replay
from vmodtool.replay.events import chat_display
from vmodtool.vassal.gamewriter import ESC, GameWriter, Player
from vmodtool.vassal.sequence import decode_sequence, encode_sequence

FRITZ, TOMMY = "Fritz", "Tommy"
PLAYERS = [Player("ger-secret-pw", FRITZ, "German Empire"), Player("all-secret-pw", TOMMY, "Allies")]


@pytest.fixture(scope="module")
def ww1_module():
    return built_module(example("ww1-operational"))


def writer(ww1_module) -> GameWriter:
    module, sizes = ww1_module
    w = GameWriter(module, players=PLAYERS, board_sizes=sizes)
    w.snapshot()
    return w


def unit(w: GameWriter, uid: str) -> str:
    return w.find(UnitId=uid)


def undo_last_roll(w: GameWriter) -> None:
    """Undo the last step, a DiceButton roll, as VASSAL 3.7 logs it: the
    UNDO brackets around the inverse commands — the report line again behind
    "* UNDO: " (``Chatter.DisplayText.myUndoCommand``) and each property
    change with old and new values swapped."""
    entries = decode_sequence(w.steps[-1], ESC) if ESC in w.steps[-1] else [w.steps[-1]]
    inverse = []
    for entry in reversed(entries):
        command = entry[len("LOG\t"):]
        if command.startswith("CHAT"):
            inverse.append("LOG\tCHAT* UNDO: " + command[len("CHAT"):])
        else:
            kind, name, old, new, container = decode_sequence(command, "\t")
            inverse.append("LOG\t" + (encode_sequence([kind, name, new, old, container], "\t") or ""))
    w.steps.append(encode_sequence(["LOG\tUNDO\ttrue", *inverse, "LOG\tUNDO\tfalse"], ESC) or "")


def game(tmp_path: Path, w: GameWriter, name: str = "game.vlog") -> Path:
    path = tmp_path / name
    path.write_bytes(w.to_bytes(date_saved="1767225600000"))
    return path


def test_an_undone_roll_is_one_suspicious_finding(tmp_path, ww1_module):
    w = writer(ww1_module)
    w.report("TT|1|German Empire|Combat Phase")
    w.chat("#attack 1101 > 0902", player=FRITZ)
    w.dice("2d6", [3, 5], player=FRITZ)             # step 3
    undo_last_roll(w)                               # step 4: the roll taken back
    w.dice("2d6", [6, 6], player=FRITZ)             # step 5: and rolled again
    w.move(unit(w, "ger.storm.1"), "1001", player=FRITZ)
    w.undo(player=FRITZ)                            # step 7: a plain undo of a move
    path = game(tmp_path, w)
    module, sizes = ww1_module
    record = record_game([path], module=module, board_sizes=sizes)
    section = undo_check.section(record)
    found = [(f.kind, f.severity, f.file_step, f.player) for f in section.findings]
    assert found == [("undone_roll", SUSPICIOUS, 4, FRITZ), ("undo", NOTE, 7, FRITZ)]
    roll = section.findings[0]
    assert roll.message == "Fritz undid step 3 (a 2d6 roll: 8)"        # the button reports the total
    assert roll.details["rolls"] == ["a 2d6 roll: 8"] and roll.details["how"] == ["bracket"]
    assert section.findings[1].message.startswith("Fritz undid step 6 (")
    assert "1101 → 1001" in section.findings[1].message
    assert section.data["by_player"] == {FRITZ: {"undo_steps": 2, "undone_rolls": 1, "undone_rolls_logged_again": 0}}
    assert section.data["undone_rolls"] == 1 and section.data["by_how"] == {"bracket": 2}
    assert any(line.startswith("1 dice roll(s) undone: 1 SUSPICIOUS") for line in section.summary)


def test_an_old_style_undo_line_undoes_the_roll_it_names(tmp_path, ww1_module):
    # VASSAL 2.x logged every undo as a step of its own: a flip undone is a
    # flip back (which no rule can tell from a flip), a chat or dice line
    # undone is the line again behind "* UNDO: ".  The undo names the roll.
    w = writer(ww1_module)
    infantry = unit(w, "ger.inf.1")
    w.steps.append("LOG\tCHAT*** d6 = 2 *** &lt;Fritz&gt;")           # step 1: a 2.x roll
    w.set_layer(infantry, "Face", 2, player=FRITZ, report=False)       # step 2: a flip
    w.set_layer(infantry, "Face", 1, player=FRITZ, report=False)       # step 3: its undo
    w.steps.append("LOG\tCHAT* UNDO: *** d6 = 2 *** &lt;Fritz&gt;")  # step 4: the roll's
    w.steps.append("LOG\tCHAT*** d6 = 6 *** &lt;Fritz&gt;")           # step 5: rolled again
    path = game(tmp_path, w)
    steps = list(Replay.open(path).steps())
    assert steps[3].undo and steps[3].undoes == 1 and steps[0].undone_by == 4
    record = record_game([path])
    section = undo_check.section(record)
    assert [(f.kind, f.severity, f.file_step) for f in section.findings] == [("undone_roll", SUSPICIOUS, 4)]
    assert section.findings[0].message == "Fritz undid step 1 (a d6 roll: 2)"
    assert section.findings[0].details["how"] == ["undo line"]


def test_undos_in_a_row_are_one_finding_listing_each_roll(tmp_path, ww1_module):
    w = writer(ww1_module)
    for value in (1, 2, 3):
        w.steps.append(f"LOG\tCHAT*** d6 = {value} *** &lt;Tommy&gt;")
    for value in (3, 2, 1):
        w.steps.append(f"LOG\tCHAT* UNDO: *** d6 = {value} *** &lt;Tommy&gt;")
    record = record_game([game(tmp_path, w)])
    section = undo_check.section(record)
    assert len(section.findings) == 1
    f = section.findings[0]
    assert (f.kind, f.severity, f.player, f.details["undo_steps"]) == ("undone_roll", SUSPICIOUS, TOMMY, [4, 5, 6])
    assert f.message == "Tommy undid 3 steps in a row: steps 1–3 (3 d6 rolls: 1; 2; 3)"
    assert section.data["by_player"] == {TOMMY: {"undo_steps": 3, "undone_rolls": 3, "undone_rolls_logged_again": 0}}


def test_a_roll_undone_and_logged_again_unchanged_is_a_note(tmp_path, ww1_module):
    # VASSAL logs again what a player steps through again after undoing:
    # the same roll with the same values is no re-roll (the dice check
    # counts it once)
    w = writer(ww1_module)
    w.dice("2d6", [1, 2], player=FRITZ)             # step 1
    undo_last_roll(w)                               # step 2
    w.dice("2d6", [1, 2], player=FRITZ)             # step 3: the same roll, logged again
    section = undo_check.section(record_game([game(tmp_path, w)], module=ww1_module[0],
                                             board_sizes=ww1_module[1]))
    assert [(f.kind, f.severity) for f in section.findings] == [("undone_roll", NOTE)]
    assert section.findings[0].message == "Fritz undid step 1 (a 2d6 roll: 3, logged again unchanged at step 3)"
    assert section.data["undone_rolls"] == section.data["undone_rolls_logged_again"] == 1


def test_the_json_report_names_players_never_their_passwords(tmp_path, ww1_module):
    w = writer(ww1_module)
    w.dice("2d6", [2, 2], player=TOMMY)
    undo_last_roll(w)
    path = game(tmp_path, w)
    out = tmp_path / "check.json"
    result = CliRunner().invoke(cli, ["check-game", str(path), "--check", "undo", "--format", "json",
                                      "-o", str(out)])
    assert result.exit_code == 1, result.output
    text = out.read_text("utf-8")
    assert "secret-pw" not in text
    report = json.loads(text)
    (section,) = report["sections"]
    assert section["name"] == "undo" and section["data"]["undone_rolls"] == 1
    assert section["findings"][0]["player"] == TOMMY


# -- the clean example games ----------------------------------------------------------


def test_the_clean_example_games_have_no_suspicious_undo(built_examples):
    assert len(built_examples) == 3
    undos = 0
    for system, module in built_examples.items():
        record = record_game([EXAMPLES / system / "logs" / "game-1.vlog"], module=module)
        section = undo_check.section(record)
        assert section.checked and not section.suspicious, (system, [f.message for f in section.suspicious])
        assert section.data["undo_steps"] == sum(1 for s in record.steps if s.undo)
        undos += section.data["undo_steps"]
    assert undos >= 2          # the misclicks taken back in modern-tactical and combat-commander


# -- the TLD chain ----------------------------------------------------------------------
TLD_LOGS = shared_files("corpus/tld/game", "*.log")
_NAME = re.compile(r"<([^<>]+)>")


@pytest.fixture(scope="module")
def tld_record(tld_chain):
    return tld_chain


def test_tld_undo_counts_per_player_match_a_count_of_the_replays_steps(tld_record):
    steps = tld_record.steps
    names = {name for name, _ in tld_record.replay.roster.players.values()}
    per_player: Counter[str] = Counter()
    rolls: Counter[str] = Counter()
    for s in steps:
        if not s.undo:
            continue
        target = steps[s.undoes - 1] if s.undoes else None
        who = s.player or (target.player if target else None)
        if who is None:        # the player a chat or dice line of the undo or the undone step names
            lines = s.chat_lines + (target.chat_lines if target else [])
            who = next((n for line in lines for n in _NAME.findall(chat_display(line)) if n in names), None)
        per_player[who or "unnamed"] += 1
        if target is not None and any(e.kind == "dice" for e in target.events):
            rolls[who or "unnamed"] += 1
    section = undo_check.section(tld_record)
    assert section.data["undo_steps"] == sum(per_player.values()) > 400
    assert {p: c["undo_steps"] for p, c in section.data["by_player"].items()} == dict(per_player)
    assert {p: c["undone_rolls"] for p, c in section.data["by_player"].items() if c["undone_rolls"]} == dict(rolls)
    assert rolls == {"Joel": 1, "Nate": 11}
    per_log = Counter(Path(s.file or "").name for s in steps if s.undo)
    assert section.data["by_log"] == dict(per_log) and len(per_log) == 17
    # three series of undo presses took rolls back; in two the same rolls
    # were logged again unchanged right after (stepped through again), one
    # took Nate's weather roll back for good
    rolled = [(Path(f.log).name, f.file_step, f.severity) for f in section.findings if f.kind == "undone_roll"]
    assert rolled == [("0606-2.log", 122, NOTE), ("0606-2.log", 556, NOTE), ("0607-5.log", 269, SUSPICIOUS)]
    assert section.findings[[f.kind for f in section.findings].index("undone_roll")].message.endswith(
        "step 115 (a d6 roll: 3, logged again unchanged at step 126)")
    assert section.suspicious[0].message.endswith("step 268 (a d6 roll: 3)")
    assert section.data["undone_rolls_logged_again"] == 11


@pytest.mark.parametrize("log", TLD_LOGS, ids=[p.name for p in TLD_LOGS])
def test_inspect_counts_the_undo_steps_the_replay_finds(log):
    steps = list(Replay.open(log).steps())
    expected = sum(1 for s in steps if s.undo)
    assert inspect_file(log)["undo_steps"] == expected
    if log.name == "0607-1.log":
        assert expected == 139


def test_check_game_runs_undo_and_actions_together(tld_record):
    result = check_game(tld_record, ["undo", "actions"])
    assert [s.name for s in result.sections] == ["undo", "actions"]
    assert len(result.suspicious) == 1 and not result.complete    # TLD's module has no turn tracker
