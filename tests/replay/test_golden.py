"""Replay of the scripted logs VASSAL 3.7.26 wrote, against the ground truth
of every step (``../shared/golden/logs``; the golden README describes its
``*.truth.json`` files)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import rel_id, shared_files, shared_path
from vmodtool.replay import Replay, load_board_sizes
from vmodtool.replay.game import snapshot

FIELDS = ("map", "x", "y", "location", "stack_id", "stack_index", "stack_size", "grid_cell",
          "state", "name")
LOGS = shared_files("golden/logs", "*.vlog")


def _open(vlog):
    module = vlog.name.split("-scripted")[0]
    return Replay.open(vlog, module=shared_path("corpus", module, "buildFile.xml"),
                       board_sizes=load_board_sizes(shared_path("corpus", module,
                                                                "board-sizes.json")))


def _mismatches(truth, snap):
    out = []
    for field in FIELDS:
        want = truth.get(field)
        got = getattr(snap, field) if snap is not None else None
        if field == "grid_cell" and got is not None:
            got = list(got)
        if want != got:
            out.append((truth["id"], field, want, got))
    return out


@pytest.mark.parametrize("vlog", LOGS, ids=rel_id)
def test_golden_log_matches_truth(vlog):
    truth = json.loads(vlog.with_name(vlog.name[:-5] + ".truth.json").read_text("utf-8"))
    replay = _open(vlog)

    initial = replay.initial_state().by_id()
    assert len(initial) == len(truth["initial_state"])
    bad = [m for p in truth["initial_state"] for m in _mismatches(p, initial.get(p["id"]))]
    assert bad == []

    steps = 0
    for step, expected in zip(replay.steps(), truth["steps"], strict=True):
        steps += 1
        assert step.number == expected["step"] + 1
        board = snapshot(replay.engine).by_id()
        for piece in expected["pieces"]:
            after = piece["after"]
            if after is None:
                assert piece["id"] not in board, f"step {step.number}: {piece['id']} not removed"
                continue
            want = dict(after, id=piece["id"], name=piece["name"])
            assert _mismatches(want, board.get(piece["id"])) == [], f"step {step.number}"
        assert step.chat_lines == expected["chat_messages"], f"step {step.number}"
        assert (step.undo and step.undo_kind == "bracket") == (expected["action"] == "undo")
    assert steps == len(truth["steps"]) == truth["log_entry_count"]
    assert replay.warnings == []

    final = snapshot(replay.engine).by_id()
    assert len(final) == len(truth["final_state"])
    bad = [m for p in truth["final_state"] for m in _mismatches(p, final.get(p["id"]))]
    assert bad == []


@pytest.mark.parametrize("vlog", LOGS, ids=rel_id)
def test_undone_steps_are_marked(vlog):
    steps = list(_open(vlog).steps())
    undos = [s for s in steps if s.undo]
    assert undos
    for s in undos:
        target = steps[s.undoes - 1]
        assert target.undone_by == s.number
        assert all(e.undone for e in target.events)


def test_state_at_step_equals_live_replay():
    vlog = shared_path("golden", "logs", "ragnarok-scripted-A.vlog")
    truth = json.loads(vlog.with_name("ragnarok-scripted-A.truth.json").read_text("utf-8"))
    board = _open(vlog).state_at(22).by_id()
    for piece in truth["steps"][21]["pieces"]:
        want = dict(piece["after"], id=piece["id"], name=piece["name"])
        assert _mismatches(want, board[piece["id"]]) == []
