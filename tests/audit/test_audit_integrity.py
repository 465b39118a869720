"""``vmodtool audit`` reports the game's PBEM integrity (the checks of
``vmodtool check-game``) over the same replay: in the text after the
rules, in the JSON under ``integrity``, and a suspicious finding makes the
exit code 1 even when every rule passed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from tests.scenario.test_binding import DEMO, LOG, write
from vmodtool.cli import cli


def _audit(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["audit", *args])
    return result.exit_code, result.output


def test_a_clean_game_has_a_clean_integrity_section(tmp_path: Path) -> None:
    scenario = write(tmp_path)
    code, out = _audit(str(LOG), "--scenario", str(scenario), "--format", "json")
    assert code == 0, out
    report = json.loads(out)
    integrity = report["integrity"]
    assert integrity["schema"] == "vmodtool-check-game/1" and integrity["suspicious"] == 0
    assert [s["name"] for s in integrity["sections"]] == ["chain", "undo", "dice", "actions", "decks"]
    code, text = _audit(str(LOG), "--scenario", str(scenario))
    assert code == 0 and "PBEM integrity (vmodtool check-game):" in text
    code, out = _audit(str(LOG), "--scenario", str(scenario), "--format", "json", "--no-integrity")
    assert code == 0 and "integrity" not in json.loads(out)


def test_a_suspicious_finding_makes_the_audit_fail(tmp_path: Path) -> None:
    # the same log twice: the second starts from the first one's saved
    # state, so what the first log did is undone "between the logs"
    scenario = write(tmp_path)
    again = tmp_path / "again.vlog"
    shutil.copyfile(LOG, again)
    code, out = _audit(str(LOG), str(again), "--scenario", str(scenario), "-m", str(DEMO), "--format", "json")
    report = json.loads(out)
    assert report["violations"] == []                     # every rule passed
    assert report["integrity"]["suspicious"] > 0
    assert code == 1
    kinds = {f["kind"] for s in report["integrity"]["sections"] for f in s["findings"]
             if f["severity"] == "suspicious"}
    assert kinds and kinds <= {"moved_between_logs", "logs_out_of_order", "restart_reroll", "changed_between_logs",
                               "added_between_logs", "removed_between_logs"}, kinds


def test_inside_audit_the_scenario_s_sides_are_the_game_s(tmp_path: Path) -> None:
    """The integrity check inside ``audit`` knows the scenario's sides: its
    off-turn reason never says the logs name no side."""
    from vmodtool.audit.game import audit_logs
    from vmodtool.scenario.loader import load_scenario
    scenario = load_scenario(write(tmp_path))
    report = audit_logs([LOG], scenario, module=DEMO, integrity=True)
    assert report.integrity is not None
    assert list(report.integrity.record.sides) == [s.name for s in scenario.game.sides]
    reason = next(s for s in report.integrity.sections if s.name == "actions").data["off_turn"]["reason"] or ""
    assert not reason.startswith("the logs name no side"), reason
