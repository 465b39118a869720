"""Plug-ins are code: a scenario cannot make ``vmodtool audit`` run Python.

A hostile scenario ships ``evil.py`` beside it and names its own folder in
``plugins: {paths: ["."]}``.  Without ``--trust-scenario-plugins`` or
``--plugins DIR`` nothing is imported (the file ``evil.py`` writes at import
does not appear, no module of it is loaded), the rule is reported NOT
CHECKED and the exit code is 3, not the all-clear 0.  With consent it runs.
A plug-in that is not a rule — or does not import, or whose constructor
raises — is bad input: exit 2 and one line naming the file and the class.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from vmodtool.audit.game import audit_logs
from vmodtool.cli import cli
from vmodtool.scenario import load_scenario

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
LOG = EXAMPLES / "modern-tactical" / "logs" / "game-1.vlog"       # audits clean: exit 0 without plug-ins

RULE = '''
  - id: house.evil
    ref: ["H1"]
    kind: plugin
    plugin: "evil:Evil"
    severity: error

plugins:
  paths: ["."]
'''

#: a plug-in that leaves a file behind when it is imported and finds one
#: error at the end of the game
EVIL = '''
from pathlib import Path
Path({marker!r}).write_text("imported", encoding="utf-8")


class Evil:
    subscribes = frozenset({{"game_end"}})

    def __init__(self, ctx):
        self.ctx = ctx

    def check(self, state, event):
        return [self.ctx.violation(event, {message!r})]
'''


def invoke(*args: object) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``vmodtool ARGS``."""
    try:
        runner = CliRunner(mix_stderr=False)          # Click 8.1
    except TypeError:
        runner = CliRunner()                          # Click 8.2+: always apart
    result = runner.invoke(cli, [str(a) for a in args], prog_name="vmodtool")
    return result.exit_code, result.stdout, result.stderr


def hostile(folder: Path, plugin: str | None = None) -> Path:
    """A copy of the modern-tactical scenario in ``folder`` whose rules end
    with a plug-in rule ``evil:Evil`` from its own folder, ``evil.py``
    (the one above, or ``plugin``)."""
    folder.mkdir(parents=True, exist_ok=True)
    text = (EXAMPLES / "modern-tactical" / "scenario.yaml").read_text(encoding="utf-8")
    assert "\nplugins:" not in text and text.rstrip().endswith("severity: warning")
    path = folder / "scenario.yaml"
    path.write_text(text.rstrip() + "\n" + RULE, encoding="utf-8")
    source = plugin if plugin is not None else EVIL.format(marker=str(folder / "PWNED"),
                                                          message="the scenario's own plug-in ran")
    (folder / "evil.py").write_text(source, encoding="utf-8")
    return path


def loaded_from(folder: Path) -> list[str]:
    """Modules in ``sys.modules`` whose file is under ``folder``."""
    return [name for name, m in list(sys.modules.items())
            if str(folder) in str(getattr(m, "__file__", None) or "")]


# -- consent ----------------------------------------------------------------------

def test_without_consent_nothing_is_imported_and_the_rule_is_not_checked(tmp_path):
    scenario = hostile(tmp_path / "scenario")
    code, out, err = invoke("audit", LOG, "--scenario", scenario)
    assert not (tmp_path / "scenario" / "PWNED").exists()
    assert loaded_from(tmp_path) == []
    assert code == 3, out + err
    summary = next(x for x in out.splitlines() if x.startswith("1 log(s),"))
    assert "1 rule(s) NOT CHECKED" in summary                      # the summary line says so
    (line,) = [x for x in out.splitlines() if "house.evil" in x]
    assert line.startswith("  NOT CHECKED house.evil: plug-in evil:Evil not imported")
    assert "--trust-scenario-plugins" in line and "--plugins DIR" in line
    assert "plug-in ran" not in out


def test_the_json_report_lists_the_rule_not_checked(tmp_path):
    scenario = hostile(tmp_path / "scenario")
    code, out, _ = invoke("audit", LOG, "--scenario", scenario, "--format", "json")
    report = json.loads(out)
    assert code == 3 and not (tmp_path / "scenario" / "PWNED").exists()
    assert list(report["not_checked"]) == ["house.evil"]
    assert "house.evil" not in report["rules_checked"]
    assert report["complete"] is False and report["schema"] == "vmodtool-audit/1"


def test_the_library_imports_nothing_by_default(tmp_path):
    scenario = load_scenario(hostile(tmp_path / "scenario"))
    report = audit_logs([LOG], scenario)
    assert not (tmp_path / "scenario" / "PWNED").exists() and loaded_from(tmp_path) == []
    assert set(report.not_checked) == {"house.evil"} and not report.complete and report.errors == []


def test_trusting_the_scenario_runs_its_plugins(tmp_path):
    scenario = hostile(tmp_path / "scenario")
    code, out, err = invoke("audit", LOG, "--scenario", scenario, "--trust-scenario-plugins")
    assert (tmp_path / "scenario" / "PWNED").read_text(encoding="utf-8") == "imported"
    assert code == 1, out + err
    assert "the scenario's own plug-in ran [house.evil, H1]" in out
    assert "NOT CHECKED" not in out.split("PBEM integrity")[0]     # (the integrity checks say their own)


def test_plugins_dir_imports_only_from_that_folder(tmp_path):
    scenario = hostile(tmp_path / "scenario")
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "evil.py").write_text(EVIL.format(marker=str(mine / "MINE"), message="my reviewed copy ran"),
                                  encoding="utf-8")
    code, out, err = invoke("audit", LOG, "--scenario", scenario, "--plugins", mine)
    assert code == 1, out + err
    assert "my reviewed copy ran" in out
    assert (mine / "MINE").exists()
    assert not (tmp_path / "scenario" / "PWNED").exists()
    assert loaded_from(tmp_path / "scenario") == []


def test_plugins_dir_without_the_module_leaves_the_scenarios_untouched(tmp_path):
    scenario = hostile(tmp_path / "scenario")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    code, out, _ = invoke("audit", LOG, "--scenario", scenario, "--plugins", elsewhere)
    assert code == 3 and "NOT CHECKED house.evil" in out
    assert not (tmp_path / "scenario" / "PWNED").exists() and loaded_from(tmp_path) == []


def test_a_check_that_raises_is_a_rule_failure_and_not_all_clear(tmp_path):
    scenario = hostile(tmp_path / "scenario", '''
class Evil:
    subscribes = frozenset({"game_end"})

    def __init__(self, ctx):
        pass

    def check(self, state, event):
        raise KeyError("boom")
''')
    code, out, err = invoke("audit", LOG, "--scenario", scenario, "--trust-scenario-plugins")
    assert code == 3, out + err
    assert "rule house.evil failed at step" in out and "KeyError: 'boom'" in out


# -- a plug-in that is not a rule: bad input, one line -----------------------------------

NOT_RULES = {
    "not a class": ("Evil = 42\n", "class Evil", "is not a class: it is of type int"),
    "no class": ("class Other:\n    pass\n", "the module has no class 'Evil'",
                 "(plug-in evil:Evil of rule house.evil)"),
    "no check": ('''
class Evil:
    subscribes = frozenset({"move"})

    def __init__(self, ctx):
        pass
''', "class Evil (rule house.evil)", "not a rule: it has no check(state, event) method"),
    "check not callable": ('''
class Evil:
    subscribes = frozenset({"move"})
    check = 3

    def __init__(self, ctx):
        pass
''', "class Evil (rule house.evil)", "its check is of type int, not a method"),
    "subscribes a string": ('''
class Evil:
    subscribes = "move"

    def __init__(self, ctx):
        pass

    def check(self, state, event):
        return []
''', "class Evil (rule house.evil)", "its subscribes is of type str, not a set of event kinds"),
    "subscribes not kinds": ('''
class Evil:
    subscribes = [1]

    def __init__(self, ctx):
        pass

    def check(self, state, event):
        return []
''', "class Evil (rule house.evil)", "its subscribes holds 1, not an event kind"),
    "constructor raises": ('''
class Evil:
    subscribes = frozenset({"move"})

    def __init__(self, ctx):
        raise ValueError("needs a param\\nsecond line")

    def check(self, state, event):
        return []
''', "class Evil (rule house.evil)", "the constructor raised ValueError: needs a param"),
    "constructor exits": ('''
import sys


class Evil:
    def __init__(self, ctx):
        sys.exit(0)
''', "class Evil (rule house.evil)", "the constructor raised SystemExit"),
    "syntax error": ("class Evil:\n    def check(self, state, event)\n        return []\n",
                     "line 2", "failed to import: SyntaxError: "),
    "import error": ("import no_such_module_of_vmodtool_tests\n", "line 1",
                     "failed to import: ModuleNotFoundError: No module named 'no_such_module_of_vmodtool_tests'"),
    "raises at import": ("\n\nraise RuntimeError('half written')\n", "line 3",
                         "failed to import: RuntimeError: half written"),
}


@pytest.mark.parametrize("case", sorted(NOT_RULES))
def test_a_plugin_that_is_not_a_rule_is_one_line_and_exit_2(tmp_path, case):
    source, place, what = NOT_RULES[case]
    scenario = hostile(tmp_path / "scenario", source)
    code, out, err = invoke("audit", LOG, "--scenario", scenario, "--trust-scenario-plugins")
    assert code == 2, out + err
    (line,) = err.splitlines()
    evil = str(tmp_path / "scenario" / "evil.py")
    assert line.startswith(f"vmodtool: error: {evil}: {place}"), line
    assert what in line and ("evil:Evil" in line or "class Evil" in line), line
    assert "Traceback" not in out + err


def test_a_plugin_error_stops_before_any_log_is_read(tmp_path):
    scenario = hostile(tmp_path / "scenario", "Evil = None\n")
    broken_log = tmp_path / "broken.vlog"
    broken_log.write_bytes(b"not a log")
    code, _, err = invoke("audit", broken_log, "--scenario", scenario, "--trust-scenario-plugins")
    assert code == 2 and "evil.py" in err and "broken.vlog" not in err


def test_the_report_keys_are_the_documented_ones(tmp_path):
    """docs/audit-report.md's first table lists every key of the JSON report
    (``not_checked`` and ``complete`` included), no more."""
    import re
    doc = (Path(__file__).resolve().parents[2] / "docs" / "audit-report.md").read_text(encoding="utf-8")
    table = doc.split("\n\n| key |", 1)[1].split("\n\n", 1)[0]
    documented = re.findall(r"^\| `([a-z_]+)` \|", table, flags=re.M)
    report = audit_logs([LOG], load_scenario(hostile(tmp_path / "scenario")), integrity=True).as_json()
    keys = list(report)
    assert "rule_sources" not in keys           # (present only when a rule is not built in: after bound)
    keys.insert(keys.index("bound") + 1, "rule_sources")
    assert "played_scenario" not in keys        # (present only for a file of several scenarios: before integrity)
    keys.insert(keys.index("integrity"), "played_scenario")
    assert documented == keys
