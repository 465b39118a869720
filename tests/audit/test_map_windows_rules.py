"""Rules judge units on every map window (issue 46 item 2), on the Marne
example's strategic window (``maps``): a location is (window, label), so
stacking counts each window's hexes, a move within the window is measured
on its own grid, a move between windows is NOT CHECKED (the scenario does
not say how its windows connect), and set-up entries on the window are
read.  The logs are written with ``GameWriter`` from the *Second Marne*
predefined setup (the German reserve at Soissons, 02.01 of the window)."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from tests.cli_runner import invoke
from vmodtool.fileio import atomic_write
from vmodtool.vassal.extension import open_extended
from vmodtool.vassal.gamewriter import GameWriter

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "marne-1918"
SCENARIO = EXAMPLE / "scenario.yaml"
SALIENT = "Marne salient (strategic)"


def _make_logs() -> ModuleType:
    spec = importlib.util.spec_from_file_location("marne_make_logs_windows", EXAMPLE / "make_logs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ML = _make_logs()


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    result: tuple[Path, Path] = ML.build(tmp_path_factory.mktemp("marne-windows"))
    return result


def _audit(built: tuple[Path, Path], name: str, play: Callable[[GameWriter], None]) -> tuple[int, dict[str, object]]:
    module, extension = built
    log = module.parent / f"{name}.vlog"
    with open_extended(str(module), [str(extension)]) as loaded:
        w = GameWriter(loaded, players=ML.PLAYERS)
        ML._start(w, module, "second-marne")
        play(w)
        atomic_write(log, w.to_bytes(key=ML.KEY, date_saved=ML.DATE_SAVED))
    code, out, err = invoke(["audit", log, "--scenario", SCENARIO, "-m", module, "-x", extension,
                             "--no-integrity", "--format", "json"])
    report: dict[str, object] = json.loads(out)
    assert report["played_scenario"] == {"id": "second-marne", "by": "start"} or \
        dict(report["played_scenario"])["id"] == "second-marne", err          # type: ignore[call-overload]
    return code, report


def _rules(report: dict[str, object]) -> list[str]:
    return sorted(str(v["rule_id"]) for v in report["violations"])            # type: ignore[attr-defined]


def test_a_clean_game_on_both_windows_is_clean(built: tuple[Path, Path]) -> None:
    def play(w: GameWriter) -> None:
        ML._phase(w, 1, ML.GER, "Movement Phase")
        reserve = w.find(UnitId="ger.inf.1")
        w.move(reserve, "03.02", map_name=ML.SALIENT, player="Fritz")        # 1 MP on the window
        w.move(reserve, "03.03", map_name=ML.SALIENT, player="Fritz")        # 2 MP of 4
        w.move(w.find(UnitId="ger.inf8.2"), "1004", map_name=ML.MAIN, player="Fritz")
        ML._phase(w, 1, ML.GER, "Combat Phase")
    code, report = _audit(built, "clean", play)
    assert (code, report["violations"], report["not_checked"]) == (0, [], {})
    assert report["units_not_checked"] == {}


def test_an_over_stack_on_the_second_window_is_flagged(built: tuple[Path, Path]) -> None:
    def play(w: GameWriter) -> None:
        ML._phase(w, 1, ML.GER, "Movement Phase")
        for uid in ("ger.inf8.1", "ger.storm.2", "ger.inf.2"):              # 3 more beside the reserve at 02.01
            w.move(w.find(UnitId=uid), "02.01", map_name=ML.SALIENT, player="Fritz")
        ML._phase(w, 1, ML.GER, "Combat Phase")
    code, report = _audit(built, "overstack", play)
    assert code == 1
    assert _rules(report) == ["stack.limit"]
    (v,) = report["violations"]                                                # type: ignore[misc]
    assert v["hexes"] == [f"{SALIENT}: 02.01"] and "4" in v["message"], v
    # the moves from the main map onto the window are measured on no grid
    assert list(report["not_checked"]) == ["move.allowance"]                  # type: ignore[call-overload]
    assert "3 move(s) not judged between map windows" in report["not_checked"]["move.allowance"]  # type: ignore[index]


def test_a_move_within_the_window_over_the_allowance_is_flagged(built: tuple[Path, Path]) -> None:
    def play(w: GameWriter) -> None:
        ML._phase(w, 1, ML.GER, "Movement Phase")
        reserve = w.find(UnitId="ger.inf.1")
        w.move(reserve, "05.01", map_name=ML.SALIENT, player="Fritz")        # 3 MP
        w.move(reserve, "05.04", map_name=ML.SALIENT, player="Fritz")        # 3 more: 6 of 4
        ML._phase(w, 1, ML.GER, "Combat Phase")
    code, report = _audit(built, "overmove", play)
    assert (code, _rules(report), report["not_checked"]) == (1, ["move.allowance"], {})
    (v,) = report["violations"]                                                # type: ignore[misc]
    assert v["hexes"] == [f"{SALIENT}: 05.01", f"{SALIENT}: 05.04"], v
    assert v["message"].endswith("it spent 6 MP, has 4"), v["message"]


def test_a_move_between_windows_is_not_checked(built: tuple[Path, Path]) -> None:
    def play(w: GameWriter) -> None:
        ML._phase(w, 1, ML.GER, "Movement Phase")
        w.move(w.find(UnitId="ger.inf.1"), "0504", map_name=ML.MAIN, player="Fritz")   # Soissons → the front
        ML._phase(w, 1, ML.GER, "Combat Phase")
    code, report = _audit(built, "between", play)
    assert (code, report["violations"]) == (3, [])
    assert list(report["not_checked"]) == ["move.allowance"]                  # type: ignore[call-overload]
    why = report["not_checked"]["move.allowance"]                             # type: ignore[index]
    assert f"{SALIENT}: 02.01 → 0504" in why and "the scenario does not say how its windows connect" in why


def test_a_unit_set_up_elsewhere_on_the_window_breaks_the_setup(built: tuple[Path, Path]) -> None:
    def play(w: GameWriter) -> None:
        w.move(w.find(UnitId="ger.inf.1"), "01.04", map_name=ML.SALIENT, player="Fritz")
        w.snapshot()                        # the game starts with the reserve at Meaux, not Soissons
        ML._phase(w, 1, ML.GER, "Movement Phase")
    code, report = _audit(built, "setup", play)
    assert "setup.match" in _rules(report), report
    v = next(v for v in report["violations"] if v["rule_id"] == "setup.match")  # type: ignore[attr-defined]
    assert f"{SALIENT}: 02.01" in v["message"] and f"{SALIENT}: 01.04" in v["message"], v["message"]
