"""The ``chain`` section of check-game on the 19-log TLD chain: every
transition attributed, module updates collapsed, no artefact of the replay
among the differences, a summary that fits a screen, and the logs given in
another order detected with the right order suggested."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.conftest import shared_path
from vmodtool.checkgame import GameRecord, record_game
from vmodtool.checkgame.chain import best_order, section
from vmodtool.vassal.commands import MovePiece, leaf_commands

SIZES = {"Normandy": (5340, 5024)}


def _tld_logs() -> list[Path]:
    return sorted(shared_path("corpus", "tld", "game").glob("*.log"))


@pytest.fixture(scope="module")
def tld(tld_chain: GameRecord) -> GameRecord:
    return tld_chain


def test_every_transition_attributed_and_module_updates_collapsed(tld: GameRecord) -> None:
    s = section(tld)
    transitions = s.data["transitions"]
    assert len(transitions) == 18
    for t in transitions:
        assert t["saved_by"]["from"] and t["saved_by"]["to"]
    updates = [f for f in s.findings if f.kind == "module_updated"]
    assert [(f.details["definitions_changed"], f.severity) for f in updates] == [(1490, "note"), (1486, "note")]
    assert "1,490 piece definition(s) changed, no position changed" in updates[0].message
    assert not any("trait definition differs" in f.message for f in s.findings)
    assert s.data["suggested_order"] == [p.name for p in _tld_logs()]
    assert not any(f.kind in ("logs_out_of_order", "missing_log") for f in s.findings)
    assert len(s.summary) <= 40
    # no password in the names
    assert all("foo" != who and "blprez" != who for t in transitions for who in t["saved_by"]["to"])


def test_no_artefact_among_the_differences(tld: GameRecord) -> None:
    """A piece the logs move by a stack's id (a stack VASSAL created without
    logging it) is never reported as moved between the logs where the next
    log has it where that move took it."""
    s = section(tld)
    # the 0606-1 step 690 case: 3/8/4 and 746 moved by unlogged stack 1168786995021
    moved = [f.message for f in s.findings if f.kind == "moved_between_logs"]
    assert not any(m.startswith(("3/8/4 moved", "746 moved")) and "since the end of 0606-1.log" in m for m in moved)
    assert any(m.startswith("I/192/21 moved 7140 → 7634 since the end of 0606-1.log (outside the logs)")
               for m in moved)
    assert any(f.kind == "unlogged_stack_move" for f in s.findings)
    # every 'unknown piece' warning is explained
    for w in tld.replay.warnings:
        if "unknown piece" in w.message:
            assert "removed at step" in w.message, w.message
    # no remaining move between logs is one the log made: the log's last
    # MovePiece of the piece does not take it to where the next log has it
    logged: dict[str, dict[str | None, tuple[str | None, int, int]]] = {}
    for game in tld.replay.games:
        last = logged.setdefault(game.file, {})
        for _, node in game.log_steps():
            for c in leaf_commands(node):
                m = getattr(c, "logged", None)
                if isinstance(m, MovePiece) and m._field(8) is not None:
                    last[m.piece_id] = (m.new_map, *m.new_position)
    by_name = {Path(f).name: f for f in tld.replay.files}
    checked = 0
    for f in s.findings:
        if f.kind == "moved_between_logs":
            d = f.details["difference"]
            assert d["before"] != d["after"]
            before_log = by_name[f.details["from"]]
            after = d["after"]
            assert logged[before_log].get(d["piece"]["id"]) != (after["map"], after["x"], after["y"]), f.message
            checked += 1
    assert checked == 116


def test_shuffled_logs_detected_with_the_right_order(tld: GameRecord) -> None:
    logs = _tld_logs()
    shuffled = logs[:]
    random.Random(7).shuffle(shuffled)
    assert shuffled != logs
    rec = record_game(shuffled, module=shared_path("corpus", "tld", "buildFile"), board_sizes=SIZES)
    s = section(rec)
    [f] = [f for f in s.findings if f.kind == "logs_out_of_order"]
    assert f.severity == "suspicious"
    assert f.details["suggested_order"] == [p.name for p in logs]
    assert s.summary[0].startswith("logs OUT OF ORDER: the order that fits is 0606-1.log, 0606-2.log")
    assert not any(f.kind == "missing_log" for f in s.findings)


def test_the_unlogged_stack_move_is_in_the_log() -> None:
    # the case the artefact test names is really a MovePiece of a stack id
    # no command of the log creates
    from vmodtool.vassal.savefile import SavedGame
    g = SavedGame.read(shared_path("corpus", "tld", "game", "0606-1.log"))
    ids = [c.logged.piece_id for _, node in g.log_steps() for c in leaf_commands(node)
           if isinstance(getattr(c, "logged", None), MovePiece)]
    assert "1168786995021" in ids


def test_best_order_exact_and_greedy() -> None:
    big = 10 ** 9
    # 0 -> 2 -> 1 costs nothing
    cost = [[big, 5, 0], [5, big, 5], [5, 0, big]]
    assert best_order(cost) == ([0, 2, 1], 0)
    n = 12
    perm = list(range(n))
    random.Random(3).shuffle(perm)
    c = [[big if i == j else 50 for j in range(n)] for i in range(n)]
    for a, b in zip(perm, perm[1:], strict=False):
        c[a][b] = 1
    order, total = best_order(c)
    assert order == perm and total == n - 1


# -- logs written with GameWriter -------------------------------------------------------------------

def _writer(modern):  # type: ignore[no-untyped-def]
    from tests.audit.helpers import built_module
    from vmodtool.vassal.gamewriter import GameWriter, Player
    module, sizes = built_module(modern)
    w = GameWriter(module, players=[Player("pw-avi", "Avi", "Israel Defense Forces"),
                                    Player("pw-sami", "Sami", "Syrian Arab Army")], board_sizes=sizes)
    units = [pid for pid, p in w.pieces.items()
             if p.piece.get_property("UnitId") and w.location(pid)[:1] in "01"]
    return w, module, sizes, units


def _down(w, pid: str) -> str:  # type: ignore[no-untyped-def]
    """The hex below a piece's (same column, next row)."""
    loc = w.location(pid)
    return f"{loc[:2]}{int(loc[2:]) % 9 + 1:02d}"


def _session(w, units: list[str], who: str, path: Path) -> Path:  # type: ignore[no-untyped-def]
    """One log: the writer's current state saved, then a move of each unit
    given, by ``who``."""
    w.snapshot()
    for pid in units:
        w.move(pid, _down(w, pid), player=who)
    path.write_bytes(w.to_bytes(date_saved="1700000000000"))
    return path


def _record(paths: list[Path], module, sizes) -> GameRecord:  # type: ignore[no-untyped-def]
    return record_game(paths, module=module, board_sizes=sizes)


def test_a_clean_chain_has_nothing_suspicious(modern, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    w, module, sizes, units = _writer(modern)
    logs = [_session(w, units[:2], "Avi", tmp_path / "1.vlog"), _session(w, units[2:4], "Sami", tmp_path / "2.vlog"),
            _session(w, units[4:5], "Avi", tmp_path / "3.vlog")]
    s = section(_record(logs, module, sizes))
    assert s.suspicious == [] and s.findings == []
    assert [t["saved_by"] for t in s.data["transitions"]] == [{"from": ["Avi"], "to": ["Sami"]},
                                                              {"from": ["Sami"], "to": ["Avi"]}]
    assert s.data["suggested_order"] == ["1.vlog", "2.vlog", "3.vlog"]


def test_a_piece_moved_between_logs_is_one_finding(modern, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    w, module, sizes, units = _writer(modern)
    first = _session(w, units[:2], "Avi", tmp_path / "1.vlog")
    moved = units[5]
    start = w.location(moved)
    w.move(moved, _down(w, moved), player="Sami")      # not in any log: the next snapshot drops it
    second = _session(w, units[2:4], "Sami", tmp_path / "2.vlog")
    s = section(_record([first, second], module, sizes))
    [f] = s.suspicious
    assert f.kind == "moved_between_logs" and f.log == str(second)
    name = w.pieces[moved].piece.name
    assert f.message.startswith(f"{name} ")
    assert f.message.endswith(f" moved {start} → {w.location(moved)} since the end of 1.vlog (outside the logs)")
    assert s.data["transitions"][0]["counts"] == {"moved": 1}


def test_a_missing_log_is_one_gap_finding(modern, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    w, module, sizes, units = _writer(modern)
    assert len(units) >= 12
    first = _session(w, units[:1], "Avi", tmp_path / "1.vlog")
    _session(w, units[:12], "Sami", tmp_path / "2.vlog")        # the log left out
    third = _session(w, units[1:2], "Avi", tmp_path / "3.vlog")
    s = section(_record([first, third], module, sizes))
    gaps = [f for f in s.findings if f.kind == "missing_log"]
    assert len(gaps) == 1 and gaps[0].severity == "suspicious"
    assert gaps[0].message.startswith("a log seems to be missing between 1.vlog and 3.vlog: 12 piece(s) moved")
    assert not any(f.kind == "logs_out_of_order" for f in s.findings)


def test_logs_out_of_order_are_detected(modern, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    w, module, sizes, units = _writer(modern)
    logs = [_session(w, units[i:i + 2], who, tmp_path / f"{i}.vlog")
            for i, who in zip(range(0, 8, 2), ["Avi", "Sami", "Avi", "Sami"], strict=True)]
    given = [logs[2], logs[0], logs[3], logs[1]]
    s = section(_record(given, module, sizes))
    [f] = [f for f in s.findings if f.kind == "logs_out_of_order"]
    assert f.details["suggested_order"] == ["0.vlog", "2.vlog", "4.vlog", "6.vlog"]
    assert not any(f.kind == "missing_log" for f in s.findings)


def test_a_module_update_between_logs_is_one_note(modern, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from vmodtool.vassal.commands import AddPiece
    from vmodtool.vassal.pieces import PieceDef
    w, module, sizes, units = _writer(modern)
    first = _session(w, units[:2], "Avi", tmp_path / "1.vlog")
    for pid, p in w.pieces.items():   # the next session's module reports in other words
        new_type = p.piece.type.replace("$oldPieceName$", "$PieceName$", 1)
        w.pieces[pid].piece = PieceDef.parse(AddPiece.build(pid, new_type, p.piece.state).text)
    second = _session(w, units[2:4], "Sami", tmp_path / "2.vlog")
    s = section(_record([first, second], module, sizes))
    assert s.suspicious == []
    [f] = s.findings
    assert f.kind == "module_updated" and f.severity == "note"
    assert f.message == (f"module updated between 1.vlog and 2.vlog: {len(w.pieces)} piece definition(s) "
                         "changed, no position changed")


def test_a_layer_changed_between_logs_reads_by_its_level_name(modern, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    w, module, sizes, units = _writer(modern)
    pid = units[3]
    first = _session(w, units[:1], "Avi", tmp_path / "1.vlog")
    w.set_layer(pid, "Face", 2)          # flipped to its reduced face
    w.set_layer(pid, "disrupted", 1)     # a marker layer switched on
    second = _session(w, units[1:2], "Sami", tmp_path / "2.vlog")
    w.set_layer(pid, "disrupted", -1)    # and off again
    third = _session(w, units[1:2], "Avi", tmp_path / "3.vlog")
    s = section(_record([first, second, third], module, sizes))
    assert [(f.kind, f.log) for f in s.findings] == [("changed_between_logs", str(second)),
                                                    ("changed_between_logs", str(third))]
    assert s.findings[0].message.endswith(
        ": Face flipped to (reduced), disrupted added at level 1 (since the end of 1.vlog)")
    assert s.findings[1].message.endswith(": disrupted removed (since the end of 2.vlog)")


@pytest.mark.parametrize("system", ["modern-tactical", "ww1-operational", "combat-commander"])
def test_the_bundled_example_games_have_nothing_between_logs(system: str) -> None:
    from tests.audit.helpers import EXAMPLES, built_module, example
    module, sizes = built_module(example(system))
    log = EXAMPLES / system / "logs" / "game-1.vlog"
    s = section(record_game([log], module=module, board_sizes=sizes))
    assert s.checked and s.findings == []
    assert s.summary == ["one log (game-1.vlog): nothing to compare"]


def test_an_example_game_continued_in_a_second_log_is_clean(tmp_path: Path) -> None:
    """The bundled Quneitra Gap game (examples/make_logs.py), then a second
    log that starts from where it ended: nothing between the logs."""
    from tests.audit.test_example_logs import make_logs
    game = make_logs.SYSTEMS["modern-tactical"][0]
    table = game(None)
    w = table.w
    try:
        first = tmp_path / "game-1.vlog"
        first.write_bytes(w.to_bytes(key=make_logs.KEY, date_saved=make_logs.DATE_SAVED))
        w.snapshot()
        unit = next(pid for pid, p in w.pieces.items()
                    if p.piece.get_property("UnitId") and p.map == table.map)
        w.move(unit, _down(w, unit), player="Sami")
        second = tmp_path / "game-2.vlog"
        second.write_bytes(w.to_bytes(key=make_logs.KEY, date_saved=make_logs.DATE_SAVED))
        record = record_game([first, second], module=table.module)
    finally:
        table.module.close()
    s = section(record)
    assert s.findings == []
    assert s.summary[0] == "order checked: 2 logs in the order given fit best"
    [t] = s.data["transitions"]
    assert t["counts"] == {} and t["saved_by"]["to"] == ["Sami"]
