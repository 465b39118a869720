"""`vmodtool import` on a module with predefined setups proposes one
scenario per setup, each set-up read from its save through the binding;
the audit then picks the scenario a log starts from (issue 46)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.conftest import shared_path
from vmodtool.assemble.builder import build_module_file
from vmodtool.audit.game import audit_logs
from vmodtool.cli import cli
from vmodtool.scenario import load_scenario
from vmodtool.scenario.import_setups import predefined_setups
from vmodtool.scenario.model import SetupBox, SetupStack
from vmodtool.vassal.gamewriter import GameWriter, Player
from vmodtool.vassal.module import Module
from vmodtool.vassal.savefile import SavedGame

MARNE = Path(__file__).resolve().parents[2] / "examples" / "marne-1918" / "scenario.yaml"


@pytest.fixture(scope="module")
def marne(tmp_path_factory):
    folder = tmp_path_factory.mktemp("marne")
    out = folder / "marne.vmod"
    build_module_file(MARNE, out, jobs=1)
    imported = folder / "imported.yaml"
    result = CliRunner().invoke(cli, ["import", str(out), "-o", str(imported)])
    assert result.exit_code == 0, result.output
    return load_scenario(MARNE), out, imported


def _hexes(setup):
    """The stacks on the main map (import reads another map window as a box)."""
    return sorted((e.hex, len(e.units)) for e in setup if isinstance(e, SetupStack) and e.map is None)


def _boxed(setup):
    return sum(len(e.units) for e in setup if isinstance(e, SetupBox) or e.map is not None)


def test_predefined_setups_are_read_with_their_menu(marne):
    _, out, _ = marne
    with Module.open(out) as module:
        entries = predefined_setups(module)
    assert [(e.name, e.menu, e.file) for e in entries] == [
        ("Château-Thierry, 31 May", "Marne Salient, 1918", "chateau-thierry.vsav"),
        ("Belleau Wood, 6 June", "Marne Salient, 1918", "belleau-wood.vsav"),
        ("Second Marne, 15 July", "Marne Salient, 1918", "second-marne.vsav")]


def test_import_proposes_each_setup_where_its_save_puts_the_units(marne):
    original, out, imported = marne
    scenario = load_scenario(imported, module=out)
    assert [(s.id, s.name, s.menu) for s in scenario.scenarios] == [
        (s.id, s.name, s.menu) for s in original.scenarios]
    for mine, theirs in zip(scenario.scenarios, original.scenarios, strict=True):
        assert _hexes(mine.setup) == _hexes(theirs.setup), mine.id
        assert _boxed(mine.setup) == _boxed(theirs.setup), mine.id


def test_the_audit_picks_the_imported_scenario_a_log_starts_from(marne, tmp_path):
    _, out, imported = marne
    scenario = load_scenario(imported, module=out)
    players = [Player("pw-a", "Fritz", "German Empire"), Player("pw-b", "Tom", "Allies")]
    for named in scenario.scenarios:
        writer = GameWriter(Module.open(out), players=players)
        with zipfile.ZipFile(out) as archive:
            writer.restore(SavedGame.from_bytes(archive.read(f"{named.id}.vsav"), file=f"{named.id}.vsav"))
        writer.snapshot()
        writer.chat("my move", player="Fritz")
        log = tmp_path / f"{named.id}.vlog"
        log.write_bytes(writer.to_bytes(key=0x21, date_saved="1767225600000"))
        report = audit_logs([log], scenario, module=out)
        assert report.played_scenario["id"] == named.id
        assert report.played_scenario["scores"][0]["score"] == 1.0


def test_a_missing_setups_folder_is_a_located_error(marne, tmp_path):
    _, out, _ = marne
    result = CliRunner().invoke(cli, ["import", str(out), "--setups", str(tmp_path / "nope")])
    assert result.exit_code == 2 and "--setups" in result.output and "Traceback" not in result.output


def test_a_setup_whose_save_is_missing_is_noted_not_guessed(tmp_path):
    buildfile = shared_path("corpus", "pog", "buildFile.xml")
    result = CliRunner().invoke(cli, ["import", str(buildfile), "--setups", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "'Classic Map - Campaign Scenario': not proposed" in result.output
    assert "scenarios:" not in result.output.split("warning:")[0]


@pytest.fixture(scope="module")
def tld(tmp_path_factory):
    corpus = shared_path("corpus", "tld")
    out = tmp_path_factory.mktemp("tld") / "tld.yaml"
    result = CliRunner().invoke(cli, ["import", str(corpus / "buildFile"), "--board-sizes",
                                      str(corpus / "board-sizes.json"), "--setups", str(corpus / "scenarios"),
                                      "-o", str(out)])
    assert result.exit_code == 0, result.output
    return corpus, out


def test_tld_campaign_is_proposed_from_its_save(tld):
    corpus, out = tld
    scenario = load_scenario(out, module=corpus / "buildFile")
    campaign = scenario.find_named("Campaign Game")
    assert campaign is not None and campaign.id == "campaign"
    placed = {u: e.hex for e in campaign.setup if isinstance(e, SetupStack) for u in e.units}
    assert placed["4/1255"] == "9529" and placed["II/711/711"] == "9330"
    text = out.read_text("utf-8")
    assert "# not bound (" in text          # pieces the binding does not know are listed, not guessed


def test_tld_the_audit_picks_the_campaign_for_its_first_log_and_refuses_mid_game(tld):
    corpus, out = tld
    runner = CliRunner()
    first = runner.invoke(cli, ["audit", str(corpus / "game" / "0606-1.log"), "--scenario", str(out)])
    assert "scenario: Campaign Game (chosen by the log's starting positions" in first.output
    later = runner.invoke(cli, ["audit", str(corpus / "game" / "0609-2.log"), "--scenario", str(out)])
    assert later.exit_code == 2 and "cannot tell which scenario" in later.output
