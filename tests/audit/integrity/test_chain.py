"""The ``chain`` section of check-game on the 19-log TLD chain: every
transition attributed, module updates collapsed, no artefact of the replay
among the differences, a summary that fits a screen, and the logs given in
another order detected with the right order suggested."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.conftest import shared_path
from vmodtool.audit.integrity import GameRecord, record_game
from vmodtool.audit.integrity.chain import best_order, section
from vmodtool.vassal.commands import MovePiece, leaf_commands

SIZES = {"Normandy": (5340, 5024)}


def _tld_logs() -> list[Path]:
    return sorted(shared_path("corpus", "tld", "game").glob("*.log"))


@pytest.fixture(scope="module")
def tld() -> GameRecord:
    return record_game(_tld_logs(), module=shared_path("corpus", "tld", "buildFile"), board_sizes=SIZES)


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
    assert not any(m.startswith("between 0606-1.log → 0606-2.log: 3/8/4 moved") for m in moved)
    assert not any(m.startswith("between 0606-1.log → 0606-2.log: 746 moved") for m in moved)
    assert any(f.kind == "unlogged_stack_move" for f in s.findings)
    # every 'unknown piece' warning is explained
    for w in tld.replay.warnings:
        if "unknown piece" in w.message:
            assert "removed at step" in w.message, w.message
    # every remaining move between logs is a real difference of places
    for f in s.findings:
        if f.kind == "moved_between_logs":
            d = f.details["difference"]
            assert d["before"] != d["after"]


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
