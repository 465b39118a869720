"""What the audit's state keeps as the steps go (the units and markers of
each hex, each unit's cached view, the views a snapshot copy carries over)
equals what is recomputed from scratch, at every step of every example log
and in every snapshot the rules read."""

from __future__ import annotations

from pathlib import Path

import pytest

from vmodtool.audit.engine import Engine
from vmodtool.audit.game import AuditGame, scenario_positions
from vmodtool.audit.judge import StepJudge
from vmodtool.audit.state import AuditState
from vmodtool.replay import Replay
from vmodtool.scenario import load_scenario

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SYSTEMS = ("modern-tactical", "ww1-operational", "combat-commander")


def _check(state: AuditState) -> int:
    """Compare a state's kept tables with ones made from its units and
    markers; returns the cached views compared."""
    by_hex: dict[str, set[str]] = {}
    for uid, s in state.units_state.items():
        if s.present and s.hex is not None:
            by_hex.setdefault(s.hex, set()).add(uid)
    for key, m in state.markers_state.items():
        if m.hex is not None:
            by_hex.setdefault(m.hex, set()).add(key)
    assert {h: set(keys) for h, keys in state.stacks.items()} == by_hex
    assert all(len(keys) == len(set(keys)) for keys in state.stacks.values())
    compared = 0
    for uid, s in state.units_state.items():
        cached = s._view
        if cached is not None and cached[0] == state._marker_version.get(s.hex):
            assert cached[1] == state._build_unit(uid, s), uid
            compared += 1
    return compared


@pytest.mark.parametrize("system", SYSTEMS)
def test_kept_state_equals_recomputed(system: str, monkeypatch: pytest.MonkeyPatch) -> None:
    scenario = load_scenario(EXAMPLES / system / "scenario.yaml")
    positions, properties, hands = scenario_positions(scenario)
    steps = views = snapshots = 0
    original_step = StepJudge.end_step
    original_snapshot = AuditState.take_snapshot

    def end_step(self: StepJudge, step) -> None:
        nonlocal steps, views
        original_step(self, step)
        steps += 1
        views += _check(self.state)

    def take_snapshot(self: AuditState, point: str) -> None:
        nonlocal views, snapshots
        original_snapshot(self, point)
        copy = self._snapshots[point]
        views += _check(copy)
        snapshots += 1
        for uid in copy.units_state:                # a copy's views are its own units'
            assert copy.unit(uid) == copy._build_unit(uid, copy.units_state[uid])
    monkeypatch.setattr(StepJudge, "end_step", end_step)
    monkeypatch.setattr(AuditState, "take_snapshot", take_snapshot)
    for log in sorted((EXAMPLES / system / "logs").glob("*.vlog")):
        game = AuditGame(scenario, Replay.open([log], positions=positions, properties=properties, hands=hands))
        game.prepare()
        game.run(Engine(scenario))
    assert steps > 1000 and views > 1000
    if system == "ww1-operational":         # (the one whose rules read snapshots)
        assert snapshots > 20
