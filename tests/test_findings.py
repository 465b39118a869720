"""The one findings model (:mod:`vmodtool.findings`): lint's and check-game's
findings are its subclasses with their own JSON unchanged, the audit's
``Violation`` can become one the same way, and every check's result carries
its exit code and JSON (:class:`CheckResult`)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, cast

import pytest

from vmodtool import findings
from vmodtool.audit.api import Violation
from vmodtool.audit.report import AuditReport
from vmodtool.checkgame import GameCheck
from vmodtool.checkgame.model import NOTE, SUSPICIOUS, GameRecord, Section
from vmodtool.checkgame.model import Finding as GameFinding
from vmodtool.exit_codes import EXIT_FINDINGS, EXIT_NOT_CHECKED, EXIT_OK
from vmodtool.findings import SEVERITIES, CheckResult, Finding, Location, check_outcome
from vmodtool.lint import Finding as LintFinding
from vmodtool.lint import LintResult
from vmodtool.replay.game import Replay


@dataclass(frozen=True)
class _HexFinding(Finding):
    """A check of one's own: the base's keys, a place of its own."""

    code: str
    severity: str
    message: str
    place: str | None = None
    details: dict[str, Any] = field(default_factory=dict)


def test_the_base_record_has_every_common_key_and_what_a_check_lacks_is_none() -> None:
    f = _HexFinding("stacking", "error", "three units in 0607", place="0607", details={"n": 3})
    assert f.record() == {"code": "stacking", "severity": "error", "message": "three units in 0607",
                          "file": None, "log": None, "step": None, "place": "0607", "line": None,
                          "path": None, "details": {"n": 3}}
    assert f.location == Location(place="0607")
    assert _HexFinding("x", "info", "m").details == {}


def test_lint_findings_keep_their_fields_constructor_and_json() -> None:
    f = LintFinding(code="missing-image", severity="error", message="m", file="a.vmod!buildFile.xml",
                    line=7, component_path="Map[Main]", detail={"image": "x.png"})
    assert isinstance(f, Finding)
    assert LintFinding("missing-image", "error", "m", "a", 7, "Map[Main]", {"image": "x.png"}) == \
        LintFinding("missing-image", "error", "m", "a", 7, "Map[Main]", {})      # detail not compared, as before
    expected = {"code": "missing-image", "severity": "error", "message": "m", "file": "a.vmod!buildFile.xml",
                "line": 7, "component_path": "Map[Main]", "detail": {"image": "x.png"}}
    assert f.record() == expected and list(f.record()) == list(expected)
    assert f.to_dict() == f.record()
    assert (f.path, f.details, f.log, f.step, f.place) == ("Map[Main]", {"image": "x.png"}, None, None, None)
    assert f.location == Location(file="a.vmod!buildFile.xml", line=7, path="Map[Main]")


def test_check_game_findings_keep_their_fields_constructor_and_json() -> None:
    inner = GameFinding("reroll", NOTE, "again", log="b.vlog", step=4, file_step=2)
    f = GameFinding("reroll", SUSPICIOUS, "rolled twice", "b.vlog", 3, file_step=1, player="Ann",
                    details={"die": 6}, folded=(inner,))
    assert isinstance(f, Finding) and f.code == f.kind == "reroll"
    record = f.record()
    assert list(record) == ["kind", "severity", "message", "log", "log_step", "step", "file_step", "player",
                            "details", "count", "folded"]
    assert record["log_step"] == record["file_step"] == 1 and record["count"] == 2
    assert record["folded"] == [inner.record()]
    assert "folded" not in inner.record() and inner.record()["count"] == 1
    assert f.location == Location(log="b.vlog", step=3)
    json.dumps(record)


def _legacy_violation_json(v: Violation) -> dict[str, Any]:
    """What ``Violation.as_dict`` returned before it was a Finding: every
    field in order, tuples as lists, the evidence a plain dict."""
    out = {k: (list(val) if isinstance(val, tuple) else val) for k, val in v.__dict__.items()}
    out["evidence"] = dict(v.evidence)
    return out


def test_the_audit_violation_is_a_finding_with_its_json_unchanged() -> None:
    values: dict[str, Any] = dict(rule_id="stacking", severity="error", step=12, message="too many",
                                  ref=("7.1",), units=("u1", "u2"), labels=("1/A", "2/A"), hexes=("0607",),
                                  player="Ann", side="red", turn=2, phase="move", evidence={"limit": 2},
                                  log="g.vlog", log_step=5)
    violation = Violation(**values)
    assert isinstance(violation, Finding)
    assert violation.record() == violation.as_dict() == _legacy_violation_json(violation)
    assert list(violation.as_dict()) == list(_legacy_violation_json(violation))
    assert (violation.code, violation.place, violation.details) == ("stacking", "0607", {"limit": 2})
    assert violation.location.step == 12 and violation.location.log == "g.vlog"


def test_severities_are_defined_once() -> None:
    import vmodtool.audit.api as api
    import vmodtool.lint as lint
    assert lint.SEVERITIES is SEVERITIES and api.SEVERITIES is SEVERITIES
    assert list(findings.SEVERITY_RANK) == list(SEVERITIES)


def _game_check(*sections: Section) -> GameCheck:
    """A check of a game of no steps (the sections say what was found)."""
    record = GameRecord(logs=[], replay=cast(Replay, SimpleNamespace(warnings=[])), steps=[])
    return GameCheck(record=record, sections=list(sections))


@pytest.mark.parametrize("result, code", [
    (LintResult("m.vmod", [LintFinding("legacy-root", "info", "i")]), EXIT_OK),
    (LintResult("m.vmod", [LintFinding("missing-image", "error", "e")], "warning"), EXIT_FINDINGS),
    (LintResult("m.vmod", [LintFinding("missing-image", "error", "e")], "info"), EXIT_FINDINGS),
    (AuditReport(logs=["g.vlog"], scenario="s", violations=[]), EXIT_OK),
    (AuditReport(logs=["g.vlog"], scenario="s", violations=[], not_checked={"r": "no consent"}), EXIT_NOT_CHECKED),
    (_game_check(Section("undo", "Undo")), EXIT_OK),
    (_game_check(Section("dice", "Dice", checked=False)), EXIT_NOT_CHECKED),
    (_game_check(Section("undo", "Undo", findings=[GameFinding("undo", SUSPICIOUS, "m")])), EXIT_FINDINGS),
])
def test_every_check_result_carries_its_exit_code_and_json(result: Any, code: int) -> None:
    assert isinstance(result, CheckResult)
    report, exit_code = check_outcome(result)
    assert exit_code == code == result.exit_code
    assert report == result.as_json()
    json.dumps(report)


def test_a_lint_result_shows_what_is_asked_and_counts_all() -> None:
    result = LintResult("m.vmod", [LintFinding("missing-image", "error", "e", file="m.vmod"),
                                   LintFinding("legacy-root", "info", "i")], "warning")
    assert result.as_json() == {"file": "m.vmod", "summary": {"error": 1, "warning": 0, "info": 1},
                                "findings": [result.findings[0].record()]}
    assert list(result.lines()) == ["m.vmod: error missing-image: e",
                                    "m.vmod: 1 error(s), 0 warning(s), 1 info (1 below --min-severity not shown)"]
