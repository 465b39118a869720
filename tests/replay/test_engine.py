"""Replay semantics on small hand-made logs: moves into and out of stacks,
undo, bad input (warnings with step numbers), the CLI."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from vmodtool.commands.replay import replay_command
from vmodtool.errors import VmodError
from vmodtool.replay import AddEvent, ChatEvent, MoveEvent, RemoveEvent, Replay
from vmodtool.vassal.commands import AddPiece, ChangePiece, CommandGroup, MovePiece, RemovePiece, parse_commands
from vmodtool.vassal.savefile import SavedGame
from vmodtool.vassal.sequence import encode_sequence

ESC = "\x1b"
TYPE = "mark;UnitId\tpiece;;;inf.png;1/A/1-36 Inf"
SECRET = "hunter2-secret"


def piece(pid, map_id, x, y, unit="A1"):
    return AddPiece.build(pid, TYPE, encode_sequence([unit, f"{map_id};{x};{y};1;0"], "\t")).text


def stack(sid, map_id, x, y, *members):
    return AddPiece.build(sid, "stack", ";".join([map_id, str(x), str(y), *members, "@@0"])).text


def move(pid, to, xy, frm, oxy, under=None):
    return MovePiece.build(pid, to, xy[0], xy[1], under, frm, oxy[0], oxy[1], None, SECRET).text


def log(*cmds):
    """One step: LOG entries, the first as root and the others nested."""
    entries = ["LOG\t" + c for c in cmds]
    if len(entries) == 1:
        return entries[0]
    return encode_sequence(entries, ESC)


def game(restore, steps):
    restore_node = encode_sequence([""] + list(restore), ESC)
    parts = ["begin_save", "", restore_node, f"PLAYER\t{SECRET}\tAlice\tAllies",
             "Main MapBoardPicker\tMain\t0\t0", "end_save"] + list(steps)
    text = encode_sequence(parts, ESC)
    return SavedGame.from_bytes(text.encode("utf-8"), file="test.vlog")


def base():
    return [piece("p1", "Main Map", 100, 100, "A1"), piece("p2", "Main Map", 200, 200, "B2"),
            stack("s1", "Main Map", 100, 100, "p1"), stack("s2", "Main Map", 200, 200, "p2")]


def where(replay, pid):
    p = replay.engine.state.get(pid)
    m = p.current_map
    return (m.name if m else None, p.position,
            p.parent.id if p.parent else None,
            [q.id for q in p.parent.members] if p.parent else None)


def test_move_to_empty_point_then_new_stack():
    g = game(base(), [log(move("p1", "Main Map", (300, 300), "Main Map", (100, 100)),
                          stack("s3", "Main Map", 300, 300, "p1"))])
    r = Replay([g])
    steps = list(r.steps())
    assert where(r, "p1") == ("Main Map", (300, 300), "s3", ["p1"])
    ev = [e for e in steps[0].events if isinstance(e, MoveEvent)][0]
    assert (ev.source.x, ev.source.y, ev.target.x, ev.target.y) == (100, 100, 300, 300)
    assert ev.piece.name == "1/A/1-36 Inf" and ev.piece.unit_id == "A1"
    assert steps[0].player == "Alice" and steps[0].side == "Allies"


def test_move_onto_stack_with_under_id_goes_above_it():
    g = game(base(), [log(move("p1", "Main Map", (200, 200), "Main Map", (100, 100), "p2"))])
    r = Replay([g])
    list(r.steps())
    assert where(r, "p1") == ("Main Map", (200, 200), "s2", ["p2", "p1"])


def test_move_onto_stack_without_under_id_goes_to_the_bottom():
    # MovePiece with newUnderId null merges, then VASSAL re-inserts at index 0
    g = game(base(), [log(move("p1", "Main Map", (200, 200), "Main Map", (100, 100)))])
    r = Replay([g])
    list(r.steps())
    assert where(r, "p1") == ("Main Map", (200, 200), "s2", ["p1", "p2"])


def test_whole_stack_moves_and_other_map():
    g = game(base() + [piece("p3", "Main Map", 200, 200, "C3"),
                       stack("s2", "Main Map", 200, 200, "p2", "p3")],
             [log(move("s2", "Other", (5, 5), "Main Map", (200, 200)))])
    r = Replay([g])
    steps = list(r.steps())
    assert where(r, "p2")[:2] == ("Other", (5, 5))
    assert where(r, "p3")[3] == ["p2", "p3"]
    assert [e.stack_id for e in steps[0].events] == ["s2", "s2"]


def test_undo_bracket_restores_state_and_marks_step():
    fwd = log(move("p1", "Main Map", (300, 300), "Main Map", (100, 100)),
              stack("s3", "Main Map", 300, 300, "p1"), "CHAT* moved *")
    undo = log("UNDO\ttrue", RemovePiece.build("s3").text,
               move("p1", "Main Map", (100, 100), "Main Map", (300, 300)), "UNDO\tfalse")
    r = Replay([game(base(), [fwd, undo])])
    before = Replay([game(base(), [])]).initial_state().by_id()
    steps = list(r.steps())
    assert steps[1].undo and steps[1].undoes == 1 and steps[1].undo_kind == "bracket"
    assert steps[0].undone_by == 2 and all(e.undone for e in steps[0].events)
    after = r.snapshot().by_id()
    assert (after["p1"].x, after["p1"].y, after["p1"].map) == (before["p1"].x, before["p1"].y,
                                                              before["p1"].map)


def test_old_style_undo_is_an_exact_inverse():
    a = log(move("p1", "Main Map", (300, 300), "Main Map", (100, 100)))
    b = log(move("p1", "Main Map", (100, 100), "Main Map", (300, 300)))
    steps = list(Replay([game(base(), [a, b])]).steps())
    assert steps[1].undo_kind == "inverse" and steps[0].undone_by == 2


def test_change_flip_and_delete_events():
    new = encode_sequence(["A1x", "Main Map;100;100;1;0"], "\t")
    old = encode_sequence(["A1", "Main Map;100;100;1;0"], "\t")
    steps = list(Replay([game(base(), [log(ChangePiece.build("p1", new, old).text),
                                       log(RemovePiece.build("p2").text)])]).steps())
    change = steps[0].events[0]
    assert change.kind == "change" and change.changes()["UnitId"] == ("A1", "A1x")
    assert isinstance(steps[1].events[0], RemoveEvent)


def test_bad_input_warns_with_step_and_goes_on():
    steps = [log(move("nope", "Main Map", (1, 1), "Main Map", (2, 2))),
             log(ChangePiece.build("ghost", "x").text),
             log("M/p1/Main Map/5"),                       # truncated command
             log("STRANGE\tcustom command"),
             log(move("p2", "Main Map", (300, 300), "Main Map", (200, 200)))]
    r = Replay([game(base(), steps)])
    out = list(r.steps())
    msgs = {(w.step, w.message.split(" ")[0]) for w in r.warnings}
    assert (1, "MovePiece") in msgs and (2, "ChangePiece") in msgs and (3, "MovePiece") in msgs
    assert out[3].events[0].kind == "unknown"
    assert where(r, "p2")[1] == (300, 300)


def test_truncated_log_text_still_replays():
    text = game(base(), [log(move("p1", "Main Map", (300, 300), "Main Map", (100, 100))),
                         log(move("p2", "Main Map", (400, 400), "Main Map", (200, 200)))]).text
    cut = SavedGame.from_bytes(text[:-40].encode(), file="cut.vlog")
    r = Replay([cut])
    steps = list(r.steps())
    assert len(steps) == 2 and any(w.step == 2 for w in r.warnings)


def test_unknown_map_with_a_module_is_reported(tmp_path):
    bf = tmp_path / "buildFile.xml"
    bf.write_text(
        '<?xml version="1.0" encoding="UTF-8"?><VASSAL.build.GameModule name="T" version="1">'
        '<VASSAL.build.module.Map mapName="Main Map"><VASSAL.build.module.map.BoardPicker>'
        '<VASSAL.build.module.map.boardPicker.Board name="Main" width="800" height="600">'
        '<VASSAL.build.module.map.boardPicker.board.HexGrid dx="64.95" dy="75.0" x0="40" y0="38">'
        '<VASSAL.build.module.map.boardPicker.board.mapgrid.HexGridNumbering stagger="false" '
        'sep="" hLeading="1" vLeading="1"/></VASSAL.build.module.map.boardPicker.board.HexGrid>'
        '</VASSAL.build.module.map.boardPicker.Board></VASSAL.build.module.map.BoardPicker>'
        '</VASSAL.build.module.Map></VASSAL.build.GameModule>', encoding="utf-8")
    g = game(base(), [log(move("p1", "Main Map", (169, 263), "Main Map", (100, 100))),
                      log(move("p2", "Nowhere", (1, 1), "Main Map", (200, 200)))])
    from vmodtool.replay.positions import Positions
    from vmodtool.vassal.module import Module
    r = Replay([g], Positions(Module.open(bf)))
    steps = list(r.steps())
    ev = steps[0].events[0]
    assert ev.target.location == "0304"
    assert any(w.step == 2 and "Nowhere" in w.message for w in r.warnings)


def test_cli_text_jsonl_step_and_no_password(tmp_path):
    path = tmp_path / "g.vlog"
    g = game(base(), [log(move("p1", "Main Map", (300, 300), "Main Map", (100, 100)),
                          "CHAT&lt;Alice&gt; - hello")])
    path.write_bytes(g.to_bytes())
    runner = CliRunner()
    res = runner.invoke(replay_command, [str(path)])
    assert res.exit_code == 0, res.output
    assert "step 1, Allies: 1/A/1-36 Inf [A1] moved (100,100) → (300,300)" in res.output
    res = runner.invoke(replay_command, [str(path), "--format", "jsonl"])
    recs = [json.loads(line) for line in res.output.splitlines()]
    assert recs[0]["type"] == "step" and recs[0]["player"] == "Alice"
    res2 = runner.invoke(replay_command, [str(path), "--step", "1"])
    assert "board after step 1" in res2.output
    for out in (res.output, res2.output):
        assert SECRET not in out


def test_unreadable_file_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.vlog"
    bad.write_bytes(b"PK\x03\x04 this is not a zip")
    with pytest.raises(VmodError):
        Replay.open(bad)
    # the command turns the VmodError into one line and exit 2
    res = CliRunner().invoke(replay_command, [str(bad)])
    assert res.exit_code == 2 and "bad.vlog" in res.output and "Traceback" not in res.output


def test_parse_is_what_vassal_splits():
    g = game(base(), [log(move("p1", "Main Map", (1, 1), "Main Map", (100, 100)), "CHAThi")])
    assert isinstance(parse_commands(g.text), CommandGroup)
    steps = list(Replay([g]).steps())
    assert [type(e) for e in steps[0].events] == [MoveEvent, ChatEvent]
    assert isinstance(AddEvent, type)


def test_a_piece_that_cannot_be_decoded_is_a_warning_with_file_and_step():
    from vmodtool.replay.engine import Engine, Roster
    from vmodtool.replay.positions import Positions
    engine = Engine(Positions(), Roster(), file="bad.vlog")
    engine.in_restore = False
    engine.step_number = 3
    engine.apply(AddPiece.build("1", "piece;;", "null;0;0;;0"))      # BasicPiece type too short
    (warning,) = engine.warnings
    assert (warning.file, warning.step) == ("bad.vlog", 3)
    assert "AddPiece 1: the piece cannot be decoded" in warning.message
    (event,) = engine.events
    assert isinstance(event, AddEvent) and event.piece.name == "" and event.piece.unit_id is None
    assert engine.state.get("1").name == "" and engine.state.get("1").get_property("X") is None


def test_a_mapless_stack_s_written_position_is_no_unknown_piece():
    """VASSAL writes ``null;0;0;@@-1`` for a stack on no map and its 3.7
    ``Stack.setState`` reads no position after ``null``: it looks the two
    numbers up as pieces, finds none and says nothing (104 such warnings on
    clean corpus saves before).  A real unknown member still warns, on a map
    or off it, and so does a number that is not where the position is."""
    restore = base() + [
        AddPiece.build("n1", "stack", "null;0;0;@@-1").text,
        AddPiece.build("n2", "stack", "null;172;53;p1").text,
        AddPiece.build("n3", "stack", "null;0;0;ghost").text,
        AddPiece.build("n4", "stack", "null;0;0;p2;99").text,
        stack("s3", "Main Map", 300, 300, "0"),
    ]
    r = Replay([game(restore, [])])
    list(r.steps())
    messages = sorted(w.message for w in r.warnings if "lists unknown piece" in w.message)
    assert messages == ["stack n3 lists unknown piece ghost", "stack n4 lists unknown piece 99",
                        "stack s3 lists unknown piece 0"]
    assert r.engine.state.get("p1").parent.id == "n2"
