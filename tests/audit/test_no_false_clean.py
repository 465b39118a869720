"""No false clean (issue 14): an audit that could not have judged the game
never reports it clean.

A log saved with another module than the one given, a log whose pieces are
none of them units of the scenario, or a log without moduledata whose maps
are not in the module: exit 2 with one line naming both sides.  A rule
whose ``subject`` matched no unit of the game: NOT CHECKED (text and JSON),
exit 3 -- the same mechanism as a plug-in rule run without consent.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.conftest import shared_path
from vmodtool.audit.engine import NO_UNIT_MATCHED
from vmodtool.audit.game import audit_logs
from vmodtool.cli import cli
from vmodtool.errors import VmodError
from vmodtool.scenario import load_scenario

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
MODERN = EXAMPLES / "modern-tactical"
WW1 = EXAMPLES / "ww1-operational"
MODERN_LOG = MODERN / "logs" / "game-1.vlog"


def _audit(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["audit", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output


def _variant(tmp_path: Path, source: Path, old: str, new: str) -> Path:
    """A copy of an example (its folder: the scenario reads its CSV files)
    with one piece of the scenario's text replaced."""
    folder = tmp_path / source.name
    shutil.copytree(source, folder, ignore=shutil.ignore_patterns("logs"))
    path = folder / "scenario.yaml"
    text = path.read_text("utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")
    return path


# -- the module a log was saved with -----------------------------------------------------------

def test_log_of_another_module_is_refused() -> None:
    code, out = _audit(str(MODERN_LOG), "--scenario", str(WW1 / "scenario.yaml"))
    assert code == 2
    lines = [line for line in out.splitlines() if line.strip()]
    assert len(lines) == 1, out
    line = lines[0]
    assert "game-1.vlog was saved with module 'Quneitra Gap, 1985' 1.0" in line
    assert "the module given is 'Somme Breakout, 1918'" in line
    assert str(WW1 / "scenario.yaml") in line
    assert "Traceback" not in out


def test_log_of_another_module_is_refused_by_the_library() -> None:
    with pytest.raises(VmodError, match="saved with module 'Quneitra Gap, 1985'.*'Somme Breakout, 1918'"):
        audit_logs([MODERN_LOG], load_scenario(WW1 / "scenario.yaml"))


def test_another_version_of_the_module_is_a_warning(tmp_path: Path) -> None:
    scenario = _variant(tmp_path, MODERN, 'version: "1.0"', 'version: "1.1"')
    code, out = _audit(str(MODERN_LOG), "--scenario", str(scenario))
    assert code == 0, out
    assert "0 error(s), 0 warning(s)" in out
    assert ("replay: " + str(MODERN_LOG) + " was saved with version 1.0 of module 'Quneitra Gap, 1985', "
            "the module given is version 1.1") in out


# -- no piece bound to a unit of the scenario --------------------------------------------------

def test_no_piece_of_the_log_is_a_unit(tmp_path: Path) -> None:
    # the WW1 scenario under the modern module's name: the names agree, no piece does
    scenario = _variant(tmp_path, WW1, 'title: "Somme Breakout, 1918"', 'title: "Quneitra Gap, 1985"')
    code, out = _audit(str(MODERN_LOG), "--scenario", str(scenario))
    assert code == 2, out
    assert "0 error(s)" not in out
    line = out.strip()
    assert "\n" not in line
    assert f"no piece of '{MODERN_LOG}' is a unit of the scenario {scenario}" in line
    pieces = int(line.split(": ")[-1].split(" piece(s)")[0])
    assert pieces > 20          # the 22 units of Quneitra Gap and its markers and chits


def test_the_same_scenario_binds_its_pieces() -> None:
    # the control of the test above: the scenario of the game binds them and is clean
    code, out = _audit(str(MODERN_LOG), "--scenario", str(MODERN / "scenario.yaml"))
    assert code == 0, out


# -- a rule that saw no unit -------------------------------------------------------------------

def test_rule_that_saw_no_unit_is_not_checked(tmp_path: Path) -> None:
    # a helicopter rule for an HQ helicopter: the game has none
    scenario = _variant(tmp_path, MODERN, "params: {subject: {tags: [helicopter]}, state: {step: reduced}}",
                        "params: {subject: {tags: [helicopter, hq]}, state: {step: reduced}}")
    code, out = _audit(str(MODERN_LOG), "--scenario", str(scenario))
    assert code == 3, out
    assert "0 error(s)" in out and "; 1 rule(s) NOT CHECKED" in out
    assert f"  NOT CHECKED heli.one_step: {NO_UNIT_MATCHED}" in out.splitlines()
    code, out = _audit(str(MODERN_LOG), "--scenario", str(scenario), "--format", "json")
    assert code == 3
    report = json.loads(out)
    assert report["not_checked"] == {"heli.one_step": NO_UNIT_MATCHED}
    assert report["complete"] is False
    assert "heli.one_step" in report["rules_checked"]        # it ran; it judged nothing


def test_rules_that_saw_units_stay_checked() -> None:
    report = audit_logs([MODERN_LOG], load_scenario(MODERN / "scenario.yaml"))
    assert report.not_checked == {}
    assert report.complete


# -- a foreign game (The Longest Day, VASSAL 2.9: no moduledata) -------------------------------

def _tld_log() -> Path:
    return shared_path("corpus", "tld", "game", "0606-1.log")


def test_foreign_game_with_its_module_binds_no_unit() -> None:
    log, module = _tld_log(), shared_path("corpus", "tld", "buildFile")
    code, out = _audit(str(log), "--scenario", str(MODERN / "scenario.yaml"), "--module", str(module))
    assert code == 2, out
    assert "0 error(s)" not in out
    assert "no piece of" in out and "is a unit of the scenario" in out


def test_foreign_game_without_its_module_uses_no_map_of_the_scenario() -> None:
    log = _tld_log()
    code, out = _audit(str(log), "--scenario", str(MODERN / "scenario.yaml"))
    assert code == 2, out
    line = out.strip()
    assert "\n" not in line
    assert f"{log} uses map(s)" in line
    assert "none of which is in the module given: 'Quneitra Gap, 1985'" in line
    assert "'Quneitra Gap'" in line           # the scenario's own map, named


def test_replay_warnings_go_to_stderr_counted_in_the_summary(tmp_path: Path) -> None:
    """The report on stdout counts the replay's warnings; the lines go to
    stderr, or stay in the report with --warnings."""
    from click.testing import CliRunner

    from vmodtool.cli import cli
    scenario = _variant(tmp_path, MODERN, 'version: "1.0"', 'version: "1.1"')
    result = CliRunner().invoke(cli, ["audit", str(MODERN_LOG), "--scenario", str(scenario)])
    assert result.exit_code == 0, result.output
    warning = f"replay: {MODERN_LOG} was saved with version 1.0 of module 'Quneitra Gap, 1985'"
    assert warning not in result.stdout and warning in result.stderr
    summary = next(line for line in result.stdout.splitlines() if " steps, " in line and "error(s)" in line)
    assert summary.endswith("; 1 replay warning(s) (on stderr)")
    kept = CliRunner().invoke(cli, ["audit", str(MODERN_LOG), "--scenario", str(scenario), "--warnings"])
    assert warning in kept.stdout and warning not in kept.stderr
    assert "; 1 replay warning(s)\n" in kept.stdout
