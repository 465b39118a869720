"""A game with several scenarios: the audit judges a log as the scenario
whose set-up it starts from (or the one --scenario-name names), with that
scenario's rules; when no scenario is a clear match it says so and asks.
The logs are written by GameWriter from each scenario's predefined setup,
as VASSAL starts a game from File > New Game > scenario."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from vmodtool.assemble.builder import build_module_file
from vmodtool.audit.game import audit_logs
from vmodtool.audit.scenario_choice import choose_scenario, score_scenarios
from vmodtool.cli import cli
from vmodtool.errors import VmodError
from vmodtool.scenario import load_scenario
from vmodtool.scenario.model import SetupStack
from vmodtool.vassal.gamewriter import GameWriter, Player
from vmodtool.vassal.module import Module
from vmodtool.vassal.savefile import SavedGame

MARNE = Path(__file__).resolve().parents[2] / "examples" / "marne-1918" / "scenario.yaml"
GER, ALL = "German Empire", "Allies"
PLAYERS = [Player("pw-fritz", "Fritz", GER), Player("pw-tom", "Tom", ALL)]


@pytest.fixture(scope="module")
def marne(tmp_path_factory):
    out = tmp_path_factory.mktemp("marne") / "marne.vmod"
    build_module_file(MARNE, out, jobs=1)
    return load_scenario(MARNE), out


def start_from(module_path: Path, scenario_id: str) -> GameWriter:
    """A writer whose game starts from a scenario's predefined setup."""
    module = Module.open(module_path)
    writer = GameWriter(module, players=PLAYERS)
    with zipfile.ZipFile(module_path) as archive:
        writer.restore(SavedGame.from_bytes(archive.read(f"{scenario_id}.vsav"), file=f"{scenario_id}.vsav"))
    writer.snapshot()
    return writer


def write(writer: GameWriter, path: Path) -> Path:
    path.write_bytes(writer.to_bytes(key=0x21, date_saved="1767225600000"))
    return path


def test_restore_gives_back_the_save_it_starts_from(marne):
    scenario, out = marne
    for named in scenario.scenarios:
        writer = GameWriter(Module.open(out))
        with zipfile.ZipFile(out) as archive:
            saved = SavedGame.from_bytes(archive.read(named.setup_file))
        writer.restore(saved)
        writer.snapshot()
        assert writer.text() == saved.text           # the same text, byte for byte
        assert int(writer.new_id()) > max(int(pid) for pid in writer.pieces)


@pytest.mark.parametrize("with_module", [True, False], ids=["module", "scenario-maps"])
def test_the_audit_picks_the_scenario_a_log_starts_from(marne, tmp_path, with_module):
    scenario, out = marne
    for named in scenario.scenarios:
        writer = start_from(out, named.id)
        first = next(e for e in named.setup if isinstance(e, SetupStack))
        writer.report(f"TT|{(named.turns or scenario.turns).first}|{GER}|Movement Phase")
        writer.chat("my move", player="Fritz")
        log = write(writer, tmp_path / f"{named.id}.vlog")
        report = audit_logs([log], scenario, module=out if with_module else None)
        assert report.played_scenario["id"] == named.id, first
        assert report.played_scenario["by"] == "start"
        scores = report.played_scenario["scores"]
        assert scores[0]["id"] == named.id and scores[0]["score"] == 1.0 and scores[1]["score"] < 0.5
        assert report.errors == [] and not [v for v in report.violations if v.rule_id == "setup.match"]


def _overstack(marne, tmp_path):
    """A Belleau Wood game: the Allies put three divisions into 0204."""
    _, out = marne
    writer = start_from(out, "belleau-wood")
    writer.report(f"TT|3|{ALL}|Movement Phase")
    piece = writer.find(UnitId="all.fr.2")
    writer.move(piece, "0204", player="Tom")
    writer.report(f"TT|3|{ALL}|Combat Phase")
    return write(writer, tmp_path / "wood.vlog")


def test_the_scenario_s_own_rules_judge_its_game(marne, tmp_path):
    scenario, out = marne
    log = _overstack(marne, tmp_path)
    report = audit_logs([log], scenario, module=out)
    assert report.played_scenario["id"] == "belleau-wood"
    assert "stack.limit" not in report.rules_checked and "stack.limit.wood" in report.rules_checked
    assert [(v.rule_id, v.hexes) for v in report.errors] == [("stack.limit.wood", ("0204",))]


def test_scenario_name_overrides_the_start(marne, tmp_path):
    scenario, out = marne
    log = _overstack(marne, tmp_path)
    report = audit_logs([log], scenario, module=out, scenario_name="Château-Thierry, 31 May")
    assert report.played_scenario == {"id": "chateau-thierry", "name": "Château-Thierry, 31 May", "by": "name",
                                      "scores": []}
    assert report.errors == []                       # three a hex is legal there
    assert {v.rule_id for v in report.violations} == {"setup.match"}


def test_a_start_no_scenario_matches_stops_the_audit(marne, tmp_path):
    scenario, out = marne
    writer = start_from(out, "belleau-wood")
    initial = writer.restore_text()
    # a start half of each: move Belleau Wood's Allies to where Château-Thierry sets them up
    for uid, where in (("all.hq38", "0506"), ("all.fr.2", "0505"), ("all.us.1", "0507"), ("all.marines", "0507")):
        writer.move(writer.find(UnitId=uid), where, player="Tom")
    writer.snapshot()
    assert writer.restore_text() != initial
    log = write(writer, tmp_path / "mixed.vlog")
    with pytest.raises(VmodError, match="cannot tell which scenario.*--scenario-name"):
        audit_logs([log], scenario, module=out)
    result = CliRunner().invoke(cli, ["audit", str(log), "--scenario", str(MARNE)])
    assert result.exit_code == 2
    assert "cannot tell which scenario of the game this is" in result.output
    assert "name it with --scenario-name" in result.output
    named = CliRunner().invoke(cli, ["audit", str(log), "--scenario", str(MARNE), "--scenario-name", "belleau-wood",
                                     "--no-integrity"])
    assert named.exit_code == 0, named.output
    assert "scenario: Belleau Wood, 6 June (named by --scenario-name)" in named.output


def test_an_unknown_scenario_name_is_a_located_error(marne, tmp_path):
    _, out = marne
    log = write(start_from(out, "second-marne"), tmp_path / "g.vlog")
    result = CliRunner().invoke(cli, ["audit", str(log), "--scenario", str(MARNE), "--scenario-name", "Verdun"])
    assert result.exit_code == 2
    assert "--scenario-name 'Verdun': the game has no such scenario" in result.output
    assert "belleau-wood (Belleau Wood, 6 June)" in result.output
    ww1 = MARNE.parents[1] / "ww1-operational"
    result = CliRunner().invoke(cli, ["audit", str(ww1 / "logs" / "game-1.vlog"), "--scenario",
                                      str(ww1 / "scenario.yaml"), "--scenario-name", "x"])
    assert result.exit_code == 2 and "has no 'scenarios' section" in result.output


def test_scores_and_the_clear_match_rule(marne):
    scenario, _ = marne
    wood = scenario.find_named("belleau-wood")
    start = {uid: (scenario.map.name, e.hex) for e in wood.setup if isinstance(e, SetupStack) for uid in e.units}
    best = score_scenarios(scenario, start)[0]
    assert (best.id, best.in_place, best.misplaced, best.extra) == ("belleau-wood", 8, 1, 0)   # all.fr.1 not in its box
    assert choose_scenario(scenario, start).chosen is wood
    assert choose_scenario(scenario, {}).chosen is None                       # an empty table: no guess
    # half the units where one scenario puts them, half another's: no clear best
    marne2 = scenario.find_named("second-marne")
    mixed = dict(list(start.items())[:4])
    others = [(uid, (scenario.map.name, e.hex)) for e in marne2.setup if isinstance(e, SetupStack)
              for uid in e.units if uid not in start]
    mixed.update(others[:4])
    assert len(mixed) == 8
    choice = choose_scenario(scenario, mixed)
    assert choice.chosen is None and choice.scores[0].score < 0.6


def test_the_report_audits_the_scenario_a_log_starts_from_or_the_named_one(marne, tmp_path):
    log = _overstack(marne, tmp_path)
    page = tmp_path / "wood.html"
    result = CliRunner().invoke(cli, ["report", str(log), "--scenario", str(MARNE), "-o", str(page)])
    assert result.exit_code == 0, result.output
    assert "stack.limit.wood" in page.read_text("utf-8")            # Belleau Wood's own rule found it
    named = CliRunner().invoke(cli, ["report", str(log), "--scenario", str(MARNE), "--scenario-name",
                                     "chateau-thierry", "-o", str(tmp_path / "ct.html")])
    assert named.exit_code == 0, named.output
    assert "stack.limit.wood" not in (tmp_path / "ct.html").read_text("utf-8")
