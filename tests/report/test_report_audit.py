"""``vmodtool report --scenario``: the game is replayed once, for the page
and the audit alike, and the page lists what ``audit`` finds, on the
positions the audit reads (its module's, or the scenario's without one)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.report.conftest import ROOT, SCENARIO
from vmodtool.audit.game import audit_logs
from vmodtool.replay import game as replay_game
from vmodtool.report.game import write_game_report
from vmodtool.scenario import load_scenario
from vmodtool.vassal import savefile

LOG = ROOT / "examples" / "modern-tactical" / "logs" / "illegal-over-long-move.vlog"


def _page(path: Path) -> dict[str, object]:
    found = re.search(r'<script type="application/json" id="game-data">(.*?)</script>',
                      path.read_text(encoding="utf-8"), re.S)
    assert found is not None
    data: dict[str, object] = json.loads(found.group(1))
    return data


def _counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How often a log is read and a replay is run from here on."""
    counts = {"read": 0, "replayed": 0}
    read, steps = savefile.SavedGame.read, replay_game.Replay._steps

    def counting_read(*args, **kwargs):
        counts["read"] += 1
        return read(*args, **kwargs)

    def counting_steps(self, *args, **kwargs):
        counts["replayed"] += 1
        return steps(self, *args, **kwargs)
    monkeypatch.setattr(savefile.SavedGame, "read", staticmethod(counting_read))
    monkeypatch.setattr(replay_game.Replay, "_steps", counting_steps)
    return counts


@pytest.mark.parametrize("with_module", [True, False], ids=["module", "scenario-positions"])
def test_the_report_audits_the_game_it_replayed(module: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                with_module: bool) -> None:
    given = module if with_module else None
    expected = audit_logs([LOG], load_scenario(SCENARIO), module=given).violations
    assert expected, "the example game breaks some rule"
    counts = _counted(monkeypatch)
    out = tmp_path / "game.html"
    write_game_report([LOG], out, module=given, scenario=SCENARIO)
    assert counts == {"read": 1, "replayed": 1}
    page = _page(out)
    findings = page["findings"]
    assert isinstance(findings, list)
    audited = [(f["kind"], f["step"], f["message"]) for f in findings if f["source"] == "audit"]
    assert audited == [(v.rule_id, v.step, v.message) for v in expected]
    # the move list names hexes as the audit reads them, with or without the module
    steps = page["steps"]
    assert isinstance(steps, list)
    lines = [line for s in steps for line in s["lines"]]
    assert any(re.search(r"\] moved \d{4} → \d{4}$", line) for line in lines)
    assert not any(re.search(r"moved \(\d+,\d+\)", line) for line in lines)


def test_a_report_without_a_scenario_replays_once(module: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    counts = _counted(monkeypatch)
    out = tmp_path / "game.html"
    write_game_report([LOG], out, module=module)
    assert counts == {"read": 1, "replayed": 1}
    findings = _page(out)["findings"]
    assert isinstance(findings, list) and not [f for f in findings if f["source"] == "audit"]


def test_without_m_the_scenarios_module_file_draws_the_page(module: Path, tmp_path: Path) -> None:
    # a scenario naming its module (module.file): the audit reads that module,
    # and the page draws its boards and pieces as with -m
    import shutil

    shutil.copy(module, tmp_path / "game.vmod")
    text = SCENARIO.read_text(encoding="utf-8")
    at = text.index("\nmap:")
    (tmp_path / "scenario.yaml").write_text(text[:at] + "\nmodule:\n  file: game.vmod\n" + text[at:],
                                            encoding="utf-8")
    out = tmp_path / "page.html"
    result = write_game_report([LOG], out, scenario=tmp_path / "scenario.yaml")
    with_m = tmp_path / "with-m.html"
    write_game_report([LOG], with_m, module=module, scenario=SCENARIO)
    page, expected = _page(out), _page(with_m)
    names = [str(i).split("/", 1)[1] for i in page["images"]]           # type: ignore[attr-defined]
    assert names and names == [str(i).split("/", 1)[1] for i in expected["images"]]  # type: ignore[attr-defined]
    assert page["findings"] == expected["findings"] and page["steps"] == expected["steps"]
    assert result.missing_images == []
