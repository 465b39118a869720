"""What an audit leaves behind in a long-lived process (``batch`` workers,
a library user auditing game after game): nothing that keeps the game's
scenario or its map alive.  A selector's compiled predicate (cached by the
selector, beyond the audit) kept the last scenario it read formations or
boxes from: one scenario per audit, up to the cache's 4,096 entries; the
movement rules' tables (cached by map) kept up to 32 maps with their edge
costs and searches, ~17 MB per audit of a Longest Day game (seen by the game
fuzz: 3.6 GB after a few thousand runs)."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import pytest

from vmodtool.audit.game import audit_logs
from vmodtool.scenario import load_scenario

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize("system", ["modern-tactical", "ww1-operational", "combat-commander"])
def test_an_audit_keeps_no_scenario_or_map_alive(system: str) -> None:
    refs = []
    for _ in range(3):
        scenario = load_scenario(EXAMPLES / system / "scenario.yaml")
        report = audit_logs([EXAMPLES / system / "logs" / "game-1.vlog"], scenario)
        assert report.steps > 0
        refs += [weakref.ref(scenario), weakref.ref(scenario.map)]
        del scenario, report
    gc.collect()
    assert [r() for r in refs] == [None] * 6
