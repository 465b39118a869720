"""A game played with a module and its extension (``-m game.vmod -x
Guards.vmdx``): a piece dragged out of the extension's palette is replayed
with its hexes and judged by the scenario's rules like any unit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.assemble.extension_fixture import guard_scenario
from tests.cli_runner import invoke
from vmodtool.assemble.builder import build_extension_file, build_module_file
from vmodtool.errors import VmodError
from vmodtool.vassal.extension import open_extended
from vmodtool.vassal.gamewriter import GameWriter, Player
from vmodtool.vassal.module import Module

MAP = "Main Map"


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path, Path]:
    folder = tmp_path_factory.mktemp("extgame")
    scenario = guard_scenario(folder)
    module, extension = folder / "guards.vmod", folder / "Guards.vmdx"
    build_module_file(scenario, module, jobs=1)
    build_extension_file(scenario, "Guards", extension, jobs=1)
    with open_extended(str(module), [str(extension)]) as loaded:
        w = GameWriter(loaded, players=[Player("p1", "Аня", "Blue"), Player("p2", "Bob", "Red")])
        w.snapshot()
        w.report("TT|1|Blue|Movement Phase")
        guard = w.add(w.palette_slot(UnitId="red.guard"), "0701", MAP, player="Bob")
        w.move(guard, "0106", map_name=MAP, player="Bob")                    # 8 hexes; an infantry has 4 MP
        w.move(w.find(UnitId="blue.inf.1"), "0303", map_name=MAP, player="Аня")
        log = folder / "guards.vlog"
        log.write_bytes(w.to_bytes())
    return scenario, module, extension, log


def test_the_saved_state_registers_the_extension_as_vassal_does(game: tuple[Path, Path, Path, Path]) -> None:
    from vmodtool.vassal.savefile import SavedGame

    text = SavedGame.read(game[3]).text
    # ModuleExtension.getRestoreCommand (RegCmd): its file name without suffix and its version
    assert "SETUP_STACK\t\\\x1bEXT\tGuards\t1.1\\\x1bend_save" in text     # (one level of nesting)


def test_the_extension_piece_exists_only_with_the_extension(game: tuple[Path, Path, Path, Path]) -> None:
    _, module, _, _ = game
    with Module.open(module) as alone, pytest.raises(VmodError, match="0 palette slots"):
        GameWriter(alone).palette_slot(UnitId="red.guard")


def test_replay_names_the_extension_piece_and_its_hexes(game: tuple[Path, Path, Path, Path]) -> None:
    _, module, extension, log = game
    code, out, err = invoke(["replay", log, "-m", module, "-x", extension])
    assert code == 0, err
    assert "step 2: G Infantry company [red.guard] added at 0701" in out
    assert "step 3, Red: G Infantry company [red.guard] moved 0701 → 0106" in out
    code, _, err = invoke(["replay", log, "-x", extension])
    assert code == 2 and "needs the module it extends (-m)" in err
    code, _, err = invoke(["replay", log, "-m", module, "-x", module])
    assert code == 2 and "a module, not an extension" in err


def test_audit_judges_the_extension_piece(game: tuple[Path, Path, Path, Path]) -> None:
    scenario, module, extension, log = game
    code, out, err = invoke(["audit", log, "--scenario", scenario, "-m", module, "-x", extension])
    assert code == 1, err
    (line,) = [x for x in out.splitlines() if x.startswith("ERROR")]
    assert "G Infantry company (red.guard) moved 0701 → 0106: needs 8 MP" in line and "[move.allowance" in line
    assert "bound: 7 unit(s), 0 marker(s), 0 ignored, 0 not bound" in out


def test_audit_says_when_the_games_extension_is_not_given(game: tuple[Path, Path, Path, Path]) -> None:
    scenario, module, extension, log = game
    code, out, err = invoke(["audit", log, "--scenario", scenario, "-m", module, "--format", "json"])
    report = json.loads(out)
    assert any("saved with the extension 'Guards' (version 1.1) loaded; it is not given (-x Guards.vmdx)" in w
               for w in report["replay_warnings"]), report["replay_warnings"]
    code, out, err = invoke(["audit", log, "--scenario", scenario, "-m", module, "-x", extension, "--format", "json"])
    assert not any("extension" in w for w in json.loads(out)["replay_warnings"])
