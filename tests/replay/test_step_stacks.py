"""``Step.stacks``: the stacks a step touched, as they are after it.

The audit follows stack order from these records instead of replaying the
log a second time, which is sound only if a consumer that starts from the
saved state and applies each step's records knows the bottom → top order of
every stack after every step.  Checked here against the live engine, on our
own example logs (with their undos and chit draws) and on every corpus log.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import rel_id, shared_files
from vmodtool.replay import Replay
from vmodtool.replay.game import stack_key

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_LOGS = sorted((ROOT / "examples").glob("*/logs/*.vlog"))
CORPUS_LOGS = [p for p in shared_files("corpus", "**/*") if p.suffix in (".vlog", ".log")
               and "tld/game" not in p.as_posix()]


def _initial_ranks(replay: Replay) -> dict[str, tuple[str, int]]:
    first = Replay(replay.games[:1], replay.positions, replay.files[:1])
    for _ in first.steps(until=0):
        pass
    ranks: dict[str, tuple[str, int]] = {}
    for obj in first.engine.state.pieces.values():
        if obj.is_stack:
            for i, m in enumerate(obj.members):
                ranks[m.id or ""] = (stack_key(obj), i)
    return ranks


def _record(ranks: dict[str, tuple[str, int]], step) -> None:
    for key, members in step.stacks.items():
        for i, pid in enumerate(members):
            ranks[pid] = (key, i)


def _assert_followed(ranks: dict[str, tuple[str, int]], stack, where: str) -> None:
    live = [m.id or "" for m in stack.members]
    followed = sorted(live, key=lambda pid: ranks.get(pid, ("", -1)))
    assert followed == live, f"{where}: stack {stack.id} is {live}, the records give {followed}"


def _check(path: Path, positions=None) -> int:
    replay = Replay.open([path], positions=positions)
    ranks = _initial_ranks(replay)
    checked = 0
    for step in replay.steps():
        _record(ranks, step)
        for obj in list(replay.engine.state.pieces.values()):
            if obj.is_stack and len(obj.members) > 1:
                _assert_followed(ranks, obj, f"{path.name} step {step.number}")
                checked += 1
    return checked


@pytest.mark.parametrize("log", EXAMPLE_LOGS, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_example_log_stack_order_follows_from_the_records(log):
    from vmodtool.audit.game import scenario_positions
    from vmodtool.scenario import load_scenario

    scenario = load_scenario(log.parent.parent / "scenario.yaml")
    assert _check(log, scenario_positions(scenario).positions) > 0


@pytest.mark.parametrize("log", CORPUS_LOGS, ids=rel_id)
def test_corpus_log_stack_order_follows_from_the_records(log):
    _check(log)


def test_tld_chain_stack_order_follows_from_the_records_across_files():
    """Across the 19 files of a chain, whose saved states differ from where
    the previous file ended: the first step of each file lists every stack."""
    from tests.conftest import shared_path
    from vmodtool.replay import load_board_sizes

    tld = shared_path("corpus", "tld")
    files = sorted((tld / "game").glob("*.log"))
    replay = Replay.open(files, module=tld / "buildFile",
                         board_sizes=load_board_sizes(tld / "board-sizes.json"))
    ranks = _initial_ranks(replay)
    firsts = 0
    for step in replay.steps():
        _record(ranks, step)
        touched = set(step.stacks)
        if step.file_step == 1:
            firsts += 1
        for obj in replay.engine.state.pieces.values():
            if obj.is_stack and len(obj.members) > 1 and (step.file_step == 1 or stack_key(obj) in touched):
                _assert_followed(ranks, obj, f"step {step.number}")
    assert firsts == len(files)
