"""A game on two map windows with an extension piece, written by
``GameWriter``: the replay names every location by its map, as VASSAL
does; the audit judges the hexes of both windows (the extension's piece
too) and says NOT CHECKED, never clean nor guilty, for a move between
the windows, which no grid measures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.assemble.extension_fixture import STRATEGIC_MAP, two_map_scenario
from tests.cli_runner import invoke
from vmodtool.assemble.builder import build_extension_file, build_module_file
from vmodtool.vassal.extension import open_extended
from vmodtool.vassal.gamewriter import GameWriter, Player

MAIN = "Main Map"
SETUP_RULE = """  - id: setup.exact
    ref: ["starter 0.1"]
    kind: setup_conformity
    params: {tolerance: exact}
    check_at: step_end
"""


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path, Path]:
    folder = tmp_path_factory.mktemp("mapsgame")
    scenario = two_map_scenario(folder)
    text = scenario.read_text(encoding="utf-8")
    scenario.write_text(text.replace("rules:\n", "rules:\n" + SETUP_RULE, 1), encoding="utf-8")
    module, extension = folder / "two-maps.vmod", folder / "Guards.vmdx"
    build_module_file(scenario, module, jobs=1)
    build_extension_file(scenario, "Guards", extension, jobs=1)
    with open_extended(str(module), [str(extension)]) as loaded:
        w = GameWriter(loaded, players=[Player("p1", "Аня", "Blue"), Player("p2", "Bob", "Red")])
        w.snapshot()
        w.report("TT|1|Blue|Movement Phase")
        guard = w.add(w.palette_slot(UnitId="blue.guard"), "0101", MAIN, player="Аня")
        w.move(guard, "0201", map_name=MAIN, player="Аня")                           # 1 hex: legal
        w.move(w.find(UnitId="blue.inf.1"), "03.03", map_name=STRATEGIC_MAP, player="Аня")
        w.move(w.find(UnitId="blue.inf.1"), "01.01", map_name=STRATEGIC_MAP, player="Аня")
        w.move(w.find(UnitId="red.inf.2"), "05.04", map_name=STRATEGIC_MAP, player="Bob")
        w.move(w.find(UnitId="blue.tank"), "0804", map_name=MAIN, player="Аня")      # 6 hexes: a tank has 8 MP
        log = folder / "two-maps.vlog"
        log.write_bytes(w.to_bytes())
    return scenario, module, extension, log


def test_replay_names_each_location_by_its_map(game: tuple[Path, Path, Path, Path]) -> None:
    _, module, extension, log = game
    code, out, err = invoke(["replay", log, "-m", module, "-x", extension])
    assert code == 0, err
    assert f"[blue.inf.1] moved Main Map: 0203 → {STRATEGIC_MAP}: 03.03" in out
    assert "[blue.inf.1] moved 03.03 → 01.01" in out
    assert "[red.inf.2] moved 04.02 → 05.04" in out                 # set up on the strategic map
    assert "Г Tank company [blue.guard] moved 0101 → 0201" in out
    code, out, err = invoke(["replay", log, "-m", module, "-x", extension, "--step", "0", "--format", "jsonl"])
    assert code == 0, err
    where = {r["unit_id"]: (r["map"], r["location"]) for r in map(json.loads, out.splitlines())
             if r.get("type") == "piece"}
    assert where["red.inf.2"] == (STRATEGIC_MAP, "04.02") and where["red.tank"] == (MAIN, "0704")
    assert "blue.guard" not in where                                 # dragged out of the extension later


@pytest.mark.parametrize("with_module", [True, False])
def test_audit_judges_both_windows_and_says_what_it_could_not(game: tuple[Path, Path, Path, Path],
                                                               with_module: bool) -> None:
    scenario, module, extension, log = game
    args = ["audit", log, "--scenario", scenario, "--format", "json"]
    if with_module:
        args += ["-m", module, "-x", extension]
    code, out, err = invoke(args)
    report = json.loads(out)
    assert code == 3, err                          # nothing wrong found, but not everything judged
    assert report["violations"] == []              # red.inf.2 set up on the strategic map, as its setup says
    # the rules judge both windows; only the move from the main map onto the strategic one is measured on no grid
    assert list(report["not_checked"]) == ["move.allowance"]
    reason = report["not_checked"]["move.allowance"]
    assert reason.startswith("1 move(s) not judged between map windows") and f"0203 → {STRATEGIC_MAP}: 03.03" in reason


def test_check_game_and_report_read_the_game_with_its_extension(game: tuple[Path, Path, Path, Path],
                                                                 tmp_path: Path) -> None:
    scenario, module, extension, log = game
    code, out, err = invoke(["check-game", log, "-m", module, "-x", extension, "--format", "json"])
    assert code in (0, 3), err
    assert json.loads(out)["steps"] == 7
    page = tmp_path / "game.html"
    code, out, err = invoke(["report", log, "-m", module, "-x", extension, "--scenario", scenario, "-o", page])
    assert code == 0, err
    assert out.startswith(f"{page}: 7 steps, ")
    assert STRATEGIC_MAP in page.read_text(encoding="utf-8")
