"""The bundled Marne example (issue 46): one game with three scenarios, two
map windows and the AEF extension.  Module and extension build and lint
clean, fast; a log of each scenario (``examples/marne-1918/make_logs.py``,
played with the extension) is judged as its own scenario; replay, audit,
check-game and report take ``-m marne.vmod -x AEF.vmdx``."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

from tests.cli_runner import invoke

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "marne-1918"
SCENARIO = EXAMPLE / "scenario.yaml"


def _make_logs() -> ModuleType:
    spec = importlib.util.spec_from_file_location("marne_make_logs", EXAMPLE / "make_logs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return dict(_make_logs().write_logs(tmp_path_factory.mktemp("marne-logs")))


def _args(logs: dict[str, Path]) -> list[object]:
    folder = logs["second-marne"].parent
    return ["-m", folder / "marne.vmod", "-x", folder / "AEF.vmdx"]


def test_module_and_extension_build_and_lint_clean(tmp_path: Path) -> None:
    for target in (["-o", tmp_path / "marne.vmod"], ["--extension", "AEF", "-o", tmp_path / "AEF.vmdx"]):
        code, out, err = invoke(["build", SCENARIO, *target])
        assert code == 0, err
    assert "extension 'AEF' of Marne Salient, 1918 1.0" in out
    code, out, err = invoke(["lint", tmp_path / "AEF.vmdx", "-m", tmp_path / "marne.vmod"])
    assert (code, out.strip().splitlines()[-1]) == (0, f"{tmp_path / 'AEF.vmdx'}: 0 error(s), 0 warning(s), 0 info")
    code, out, err = invoke(["lint", tmp_path / "marne.vmod"])
    assert code == 0 and " 0 error(s), 0 warning(s)" in out, out


def test_each_log_is_judged_as_its_scenario(logs: dict[str, Path]) -> None:
    expected_code = {"chateau-thierry": 0, "belleau-wood": 0, "second-marne": 3}
    for scenario_id, log in logs.items():
        code, out, err = invoke(["audit", log, "--scenario", SCENARIO, *_args(logs), "--no-integrity",
                                 "--format", "json"])
        report = json.loads(out)
        assert report["played_scenario"]["id"] == scenario_id and report["played_scenario"]["by"] == "start"
        assert report["violations"] == [], report["violations"]
        assert not any("extension" in w for w in report["replay_warnings"])      # AEF given with -x
        assert code == expected_code[scenario_id], (scenario_id, err)


def test_a_move_down_from_the_strategic_map_is_not_checked(logs: dict[str, Path]) -> None:
    # ger.inf.1 starts at Soissons on the strategic map, moves there (judged on its grid), then down to 0504
    # on the main map: no grid joins the two windows, so that move alone is NOT CHECKED
    code, out, err = invoke(["audit", logs["second-marne"], "--scenario", SCENARIO, *_args(logs), "--no-integrity",
                             "--format", "json"])
    report = json.loads(out)
    assert code == 3, err
    assert list(report["not_checked"]) == ["move.allowance"]
    assert "Marne salient (strategic): 03.03 → 0504 (step" in report["not_checked"]["move.allowance"]
    assert report["units_not_checked"] == {}


def test_replay_shows_the_second_map_and_the_extension_piece(logs: dict[str, Path]) -> None:
    code, out, err = invoke(["replay", logs["second-marne"], *_args(logs)])
    assert code == 0, err
    assert "[ger.inf.1] moved 02.01 → 03.02" in out
    assert "[ger.inf.1] moved Marne salient (strategic): 03.03 → Marne front: 0504" in out
    code, out, err = invoke(["replay", logs["chateau-thierry"], *_args(logs)])
    assert code == 0, err
    assert "26 US US infantry division [all.us.26] added at 0407" in out
    code, out, err = invoke(["replay", logs["belleau-wood"], *_args(logs)])
    assert code == 0 and "[all.tk344] moved 0104 → 0105" in out, err


def test_check_game_and_report_take_the_extension(logs: dict[str, Path], tmp_path: Path) -> None:
    for log in logs.values():
        code, out, err = invoke(["check-game", log, *_args(logs)])
        assert code == 0, err
    page = tmp_path / "belleau.html"
    code, out, err = invoke(["report", logs["belleau-wood"], *_args(logs), "--scenario", SCENARIO, "-o", page])
    assert code == 0, err
    html = page.read_text(encoding="utf-8")
    assert "[all.tk344] moved 0104 → 0105" in html and "tk344__full.png" in html    # drawn with its AEF image


def test_the_readme_commands_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shlex

    readme = (EXAMPLE / "README.md").read_text(encoding="utf-8")
    block = readme.split("## The commands\n\n```sh\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(tmp_path)
    repo = EXAMPLE.parents[1]
    ran = []
    for line in block.splitlines():
        words = [w.replace("examples/", f"{repo}/examples/", 1) for w in shlex.split(line)]
        if words[:2] == ["python", f"{repo}/examples/marne-1918/make_logs.py"]:
            assert _make_logs().main(words[2:]) == 0
        else:
            assert words[0] == "vmodtool", line
            code, out, err = invoke(words[1:])
            assert code == 0, (line, out, err)
        ran.append(words[1] if words[0] == "vmodtool" else "make_logs")
    assert ran == ["check-scenario", "build", "build", "lint", "lint", "make_logs", "replay", "audit",
                   "check-game", "report"]
