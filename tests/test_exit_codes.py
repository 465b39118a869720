"""One exit-code policy (``vmodtool/exit_codes.py``), carried by the results
themselves (``AuditReport.exit_code``, ``GameCheck.exit_code``) and read by
the commands and by ``vmodtool batch`` alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from vmodtool.exit_codes import EXIT_FINDINGS, EXIT_NOT_CHECKED, EXIT_OK, check_exit_code

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("found, complete, code", [
    (False, True, EXIT_OK), (True, True, EXIT_FINDINGS), (True, False, EXIT_FINDINGS),
    (False, False, EXIT_NOT_CHECKED),
])
def test_findings_win_and_what_was_not_looked_at_is_never_clean(found: bool, complete: bool, code: int) -> None:
    assert check_exit_code(found=found, complete=complete) == code


def test_a_command_and_its_batch_give_one_exit_code(tmp_path: Path) -> None:
    """An audit with an error: ``vmodtool audit`` exits with the report's
    code, and the batch record of the same game carries the same code."""
    import json

    from click.testing import CliRunner

    from vmodtool.cli import cli

    log = REPO / "examples" / "modern-tactical" / "logs" / "illegal-hq-moves-alone.vlog"
    scenario = REPO / "examples" / "modern-tactical" / "scenario.yaml"
    alone = CliRunner().invoke(cli, ["audit", str(log), "--scenario", str(scenario)])
    assert alone.exit_code == EXIT_FINDINGS, alone.output
    games = tmp_path / "games"
    games.mkdir()
    (games / log.name).write_bytes(log.read_bytes())
    out = tmp_path / "r.jsonl"
    CliRunner().invoke(cli, ["batch", "audit", str(games), "--scenario", str(scenario), "-o", str(out), "-j", "1"])
    (record,) = [json.loads(line) for line in out.read_text("utf-8").splitlines() if line.strip()]
    assert record["exit_code"] == alone.exit_code
