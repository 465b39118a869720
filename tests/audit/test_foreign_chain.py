"""Auditing a chain of logs of a foreign module (The Longest Day, VASSAL 2.9)
with an empty rule set: no crash, no rule hit, only the chain's continuity
findings."""

from importlib import resources

from tests.conftest import shared_files, shared_path
from vmodtool.audit.game import audit_logs
from vmodtool.replay import load_board_sizes
from vmodtool.scenario import load_scenario


def test_tld_chain_with_no_rules(tmp_path):
    logs = shared_files("corpus", "tld/game/*.log")
    if not logs:
        shared_path("corpus", "tld", "game")          # skips when absent
    starter = resources.files("vmodtool").joinpath("data/starter/scenario.yaml").read_text("utf-8")
    text = (starter.replace("{{id}}", "foreign").replace("{{title}}", "Foreign")
            .replace("{{path}}", "scenario.yaml"))
    text = text[:text.index("rules:")] + "rules: []\n"
    path = tmp_path / "scenario.yaml"
    path.write_text(text, encoding="utf-8")
    scenario = load_scenario(path)
    report = audit_logs(logs, scenario, module=shared_path("corpus", "tld", "buildFile"),
                        board_sizes=load_board_sizes(shared_path("corpus", "tld", "board-sizes.json")))
    assert report.violations == []
    assert report.rules_checked == []
    assert report.rule_failures == []
    assert report.steps == 10148
    assert len(report.chain_differences) == 3220
    # no unit of the scenario is in the foreign game: its pieces are ignored, and said so
    assert any("not units or markers of the scenario" in w for w in report.replay_warnings)
