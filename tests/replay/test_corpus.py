"""Every log of the corpus replays without error; the TLD logs replay as one
chain with their module's grid."""

from __future__ import annotations

import collections

import pytest

from tests.conftest import rel_id, shared_files, shared_path
from vmodtool.replay import Replay, load_board_sizes

LOGS = [p for p in shared_files("corpus", "**/*") if p.suffix in (".vlog", ".log")
        and "tld/game" not in p.as_posix()]


@pytest.mark.parametrize("log", LOGS, ids=rel_id)
def test_corpus_log_replays(log):
    replay = Replay.open(log)
    steps = list(replay.steps())
    assert steps, "a log has steps"
    for step in steps:
        for event in step.events:
            event.text()
            event.record()


def test_tld_chain():
    tld = shared_path("corpus", "tld")
    files = sorted((tld / "game").glob("*.log"))
    replay = Replay.open(files, module=tld / "buildFile",
                         board_sizes=load_board_sizes(tld / "board-sizes.json"))
    steps = list(replay.steps())
    assert len(steps) == 10148
    assert steps[0].player == "Joel" and steps[0].side == "Allies"
    # the Normandy board names hexes; the other display boards have no size in the corpus
    assert "Normandy" not in replay.missing_board_sizes
    moves = [e for s in steps for e in s.events if e.kind == "move"
             and e.target.map == "Normandy"]
    assert moves and all(e.target.location and e.target.location != "offboard"
                         for e in moves[:50])
    kinds = collections.Counter(d.kind for d in replay.chain_differences)
    # module upgrades between logs change the trait chains of ~1,490 pieces twice;
    # the rest are pieces moved, restacked or added between sessions
    assert kinds["changed"] > 2900 and kinds["moved"] > 0
    assert all(w.step is None or "unknown piece" in w.message or "without logging it" in w.message
               for w in replay.warnings)
    # every move of an unknown id is explained: 37 moves of stacks VASSAL
    # created without logging them, 4 commands naming a removed piece
    unlogged = [w for w in replay.warnings if "created on the mover's machine without logging it" in w.message]
    unknown = [w for w in replay.warnings if "unknown piece" in w.message]
    assert len(unlogged) == 37 and len(unknown) == 4
    assert all("removed at step" in w.message for w in unknown)
    assert sum(1 for s in steps if s.undo) > 100
