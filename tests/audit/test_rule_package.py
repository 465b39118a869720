"""An installed rule package (entry-point group ``vmodtool.rules``) is found,
run as a built-in kind is, and reported as coming from an entry point; one
that is not installed is not imported (examples/rule-package)."""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.audit.helpers import EXAMPLES
from vmodtool.audit.registry import ENTRY_POINT_GROUP, installed_kinds, kind_class

REPO = EXAMPLES.parent
PACKAGE = EXAMPLES / "rule-package"
#: the ww1 example's stack.limit, once more as the package's class
PACKAGE_RULE = """
  - id: stack.package
    ref: ["2.5:1"]
    kind: plugin
    plugin: "vmodtool_rule_example:Stacking"
    params: {limit: 3, count: units, per_side: true, exempt: {tags_any: [hq, aircraft]}}
    check_at: phase_end
"""


def _scenario_with_package_rule(tmp_path: Path) -> Path:
    folder = tmp_path / "ww1"
    shutil.copytree(EXAMPLES / "ww1-operational", folder)
    scenario = folder / "scenario.yaml"
    text = scenario.read_text(encoding="utf-8")
    assert "\nrules:\n" in text
    scenario.write_text(text.replace("\nrules:\n", "\nrules:\n" + PACKAGE_RULE.lstrip("\n"), 1), encoding="utf-8")
    return scenario


def _dist_info(where: Path) -> None:
    """What ``pip install`` leaves for importlib.metadata: a ``.dist-info``
    with the package's entry points (the fallback when pip cannot build
    offline), and the package."""
    info = where / "vmodtool_rule_example-1.0.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: vmodtool-rule-example\nVersion: 1.0\n",
                                   encoding="utf-8")
    (info / "entry_points.txt").write_text(
        f"[{ENTRY_POINT_GROUP}]\nexample_stacking = vmodtool_rule_example:Stacking\n", encoding="utf-8")
    shutil.copytree(PACKAGE / "src" / "vmodtool_rule_example", where / "vmodtool_rule_example")


def _install(tmp_path: Path) -> tuple[Path, list[str]]:
    """A throwaway venv with the example package installed by pip, offline
    (a copy: pip writes beside the sources); where pip cannot build it (no
    ``wheel`` here), the ``.dist-info`` pip would leave is written instead.
    The python to run, and the paths it needs for vmodtool and its
    dependencies (this interpreter's)."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)],
                   check=True, capture_output=True)
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    purelib = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                  check=True, capture_output=True, text=True).stdout.strip())
    source = tmp_path / "rule-package"
    shutil.copytree(PACKAGE, source)
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
                    "--no-build-isolation", "--no-index", "--quiet", str(source)],
                   capture_output=True, text=True, env={**os.environ, "PIP_NO_INPUT": "1"})
    if not any(purelib.glob("vmodtool_rule_example-*.dist-info/entry_points.txt")):
        _dist_info(purelib)
    return python, [str(REPO)] + [p for p in site.getsitepackages() if Path(p).is_dir()]


def test_an_installed_rule_package_is_run_and_reported_as_an_entry_point(tmp_path: Path) -> None:
    scenario = _scenario_with_package_rule(tmp_path)
    python, paths = _install(tmp_path)
    assert "vmodtool_rule_example" not in {p.name for p in Path(paths[0]).iterdir()}
    log = EXAMPLES / "ww1-operational" / "logs" / "illegal-overstack.vlog"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
    run = subprocess.run([str(python), "-m", "vmodtool", "audit", str(log), "--scenario", str(scenario),
                          "--format", "json"], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert run.returncode in (0, 1), run.stderr
    report = json.loads(run.stdout)
    assert report["rule_sources"] == {"stack.package": "entry point vmodtool-rule-example"}
    assert "stack.package" in report["rules_checked"] and "stack.package" not in report["not_checked"]
    found = {rid: [(v["step"], v["units"], v["hexes"], v["message"]) for v in report["violations"]
                   if v["rule_id"] == rid] for rid in ("stack.limit", "stack.package")}
    assert found["stack.limit"], "the log breaks the stacking limit"
    assert found["stack.package"] == found["stack.limit"]
    text = subprocess.run([str(python), "-m", "vmodtool", "audit", str(log), "--scenario", str(scenario)],
                          capture_output=True, text=True, env=env, cwd=tmp_path).stdout
    assert "1 rule(s) not built in:\n  stack.package: entry point vmodtool-rule-example\n" in text


def test_a_package_class_not_installed_is_not_imported(tmp_path: Path) -> None:
    scenario = _scenario_with_package_rule(tmp_path)
    log = EXAMPLES / "ww1-operational" / "logs" / "illegal-overstack.vlog"
    # importable, but no installed package declares it: never imported
    trap = tmp_path / "importable"
    trap.mkdir()
    (trap / "vmodtool_rule_example.py").write_text("raise SystemExit(99)\n", encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "vmodtool", "audit", str(log), "--scenario", str(scenario),
                          "--format", "json"], capture_output=True, text=True, cwd=tmp_path,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(trap)])})
    assert run.returncode == 1, run.stderr             # (the log overstacks: errors before NOT CHECKED)
    report = json.loads(run.stdout)
    assert report["not_checked"]["stack.package"].startswith(
        "plug-in vmodtool_rule_example:Stacking not imported: plug-ins are code")
    assert not report["complete"] and "rule_sources" not in report
    assert "rule_sources" not in report


def test_entry_points_are_read_from_the_metadata_and_built_ins_win(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    _dist_info(tmp_path)
    info = next(tmp_path.glob("*.dist-info"))
    # a package that claims a built-in kind's name does not replace it
    with (info / "entry_points.txt").open("a", encoding="utf-8") as out:
        out.write("stacking = vmodtool_rule_example:Stacking\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert set(installed_kinds()) >= {"example_stacking", "stacking"}
    found = kind_class("example_stacking")
    assert found is not None and str(found[1]) == "entry point vmodtool-rule-example"
    assert found[0].__module__ == "vmodtool_rule_example"
    builtin = kind_class("stacking")
    assert builtin is not None and str(builtin[1]) == "built-in"
    assert builtin[0].__module__ == "vmodtool.audit.kinds.stacking"


def test_a_package_that_does_not_import_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    info = tmp_path / "broken_rules-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-rules\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\nbroken = broken_rules:Rule\n", encoding="utf-8")
    (tmp_path / "broken_rules.py").write_text(textwrap.dedent("""\
        raise RuntimeError("no")
    """), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    from vmodtool.audit.plugins import PluginError
    with pytest.raises(PluginError, match="rule kind 'broken' of entry point broken-rules .* failed to import: "
                                          "RuntimeError: no"):
        kind_class("broken")


def test_a_plugin_folder_is_named_as_the_user_named_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from vmodtool.cli import cli
    monkeypatch.chdir(REPO)
    log = "examples/ww1-operational/logs/illegal-overstack.vlog"
    scenario = "examples/ww1-operational/scenario.yaml"
    text = CliRunner().invoke(cli, ["audit", log, "--scenario", scenario, "--plugins",
                                    "examples/ww1-operational/rules"]).output
    assert ("1 rule(s) not built in:\n"
            "  tank.breakdown_after_attack: plugin folder examples/ww1-operational/rules\n") in text
    report = json.loads(CliRunner().invoke(cli, ["audit", log, "--scenario", scenario, "--format", "json",
                                                 "--trust-scenario-plugins"]).output)
    assert report["rule_sources"] == {"tank.breakdown_after_attack": "plugin folder examples/ww1-operational/rules"}
    without = json.loads(CliRunner().invoke(cli, ["audit", log, "--scenario", scenario, "--format", "json"]).output)
    assert "rule_sources" not in without and "tank.breakdown_after_attack" in without["not_checked"]
