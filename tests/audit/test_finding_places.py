"""Every audit finding names the log file it is in and the step within that
log, besides the step over the whole chain (issue 43, item 6): what a
player quotes to an opponent.  The summary counts the pieces the binding
bound."""

from __future__ import annotations

from pathlib import Path

from vmodtool.audit.api import Violation
from vmodtool.audit.game import audit_logs, prepare_audit
from vmodtool.audit.report import AuditReport
from vmodtool.scenario import load_scenario

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
MT = EXAMPLES / "modern-tactical"


def test_log_places_follow_the_files_of_the_steps() -> None:
    first, second = MT / "logs" / "game-1.vlog", MT / "logs" / "illegal-over-long-move.vlog"
    replay, visitor = prepare_audit([first, second], load_scenario(MT / "scenario.yaml"))
    (report,) = replay.run(visitor)
    steps = visitor.audit_game.replayed_steps
    in_first = sum(1 for s in steps if s.file == str(first))
    assert 0 < in_first < len(steps) == report.steps
    assert visitor.log_place(0) == (first.name, 0)            # the starting state
    assert visitor.log_place(-1) == (first.name, 0)
    assert visitor.log_place(2) == (first.name, 2)
    assert visitor.log_place(in_first) == (first.name, in_first)
    assert visitor.log_place(in_first + 1) == (second.name, 1)
    assert visitor.log_place(len(steps)) == (second.name, len(steps) - in_first)
    assert visitor.log_place(len(steps) + 5) == (second.name, len(steps) - in_first)   # past the end: the last


def _violation(step: int, log: str | None, log_step: int | None, **kw: object) -> Violation:
    return Violation("r", "error", step, "bad", log=log, log_step=log_step, **kw)  # type: ignore[arg-type]


def test_the_text_names_the_log_and_the_chain_step() -> None:
    chain = AuditReport(["a.vlog", "b.vlog"], "s.yaml", [_violation(1234, "b.vlog", 12, side="x", player="Ann")],
                        side_names={"x": "Axis"})
    line = next(chain.lines())
    assert line.startswith("ERROR b.vlog step 12 (chain step 1,234), Axis (Ann): bad")
    one = AuditReport(["a.vlog"], "s.yaml", [_violation(7, "a.vlog", 7)])
    assert next(one.lines()).startswith("ERROR a.vlog step 7: bad")
    unplaced = AuditReport(["a.vlog"], "s.yaml", [_violation(7, None, None)])
    assert next(unplaced.lines()).startswith("ERROR step 7: bad")


def test_a_mover_without_a_side_is_named_with_no_side() -> None:
    report = AuditReport(["a.vlog"], "s.yaml", [_violation(3, "a.vlog", 3, player="player-3", phase="move")],
                         phase_names={"move": "Movement"})
    line = next(report.lines())
    assert "Movement, player-3 (no side): bad" in line and ",  (" not in line


def test_a_chain_s_findings_name_their_log_in_json_and_text() -> None:
    scenario = load_scenario(MT / "scenario.yaml")
    first, second = MT / "logs" / "game-1.vlog", MT / "logs" / "illegal-over-long-move.vlog"
    alone = audit_logs([first], scenario)
    chain = audit_logs([first, second], scenario)
    later = [v for v in chain.violations if v.step > alone.steps]
    assert later, "the second log's over-long move is found"
    for v in later:
        assert v.log == second.name and v.log_step == v.step - alone.steps
    for v in chain.violations:
        if 0 < v.step <= alone.steps:
            assert v.log == first.name and v.log_step == v.step
    record = chain.as_json()["violations"][-1]
    assert {"log", "log_step", "step"} <= set(record)
    assert record["log"] == second.name
    text = "\n".join(chain.lines())
    v = later[0]
    assert f"{second.name} step {v.log_step} (chain step {v.step:,})" in text


def test_the_summary_counts_the_bound_pieces() -> None:
    scenario = load_scenario(MT / "scenario.yaml")
    report = audit_logs([MT / "logs" / "game-1.vlog"], scenario)
    bound = report.as_json()["bound"]
    assert bound["units"] == len(scenario.counters) and bound["units"] > 0
    assert set(bound) == {"units", "markers", "ignored", "unbound"}
    assert (f"bound: {bound['units']} unit(s), {bound['markers']} marker(s), {bound['ignored']} ignored, "
            f"{bound['unbound']} not bound") in list(report.lines())
