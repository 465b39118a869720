"""The audit without ``--module`` (issue 14): it reads the scenario's maps,
zones, turn tracker and global properties as the module ``vmodtool build``
makes has them, without importing the build layer, and judges every
example log as it does with that module."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from vmodtool.assemble.builder import build_module_file
from vmodtool.audit.game import audit_logs
from vmodtool.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
SYSTEMS = ("modern-tactical", "ww1-operational", "combat-commander")

#: audits every log of one example without a module, in a fresh interpreter,
#: and prints the reports and the vmodtool modules that were imported
_CHILD = """
import json, sys
from pathlib import Path
from vmodtool.audit.game import audit_logs
from vmodtool.scenario import load_scenario
folder = Path(sys.argv[1])
scenario = load_scenario(folder / "scenario.yaml")
reports = {}
for log in sorted((folder / "logs").glob("*.vlog")):
    try:
        reports[log.name] = audit_logs([log], scenario).as_json()
    except Exception as exc:          # a refused log: compared by its message
        reports[log.name] = {"error": type(exc).__name__ + ": " + str(exc)}
print(json.dumps({"reports": reports,
                  "modules": sorted(m for m in sys.modules if m.startswith(("vmodtool", "PIL")))}))
"""


def _audit_with_module(folder: Path, module: Path) -> dict[str, object]:
    scenario = load_scenario(folder / "scenario.yaml")
    reports: dict[str, object] = {}
    for log in sorted((folder / "logs").glob("*.vlog")):
        try:
            reports[log.name] = audit_logs([log], scenario, module=module).as_json()
        except Exception as exc:  # noqa: BLE001 (the same shape as the child's)
            reports[log.name] = {"error": type(exc).__name__ + ": " + str(exc)}
    return json.loads(json.dumps(reports))


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_audit_without_a_module_imports_no_build_and_judges_as_with_the_built_module(system, tmp_path):
    folder = EXAMPLES / system
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", _CHILD, str(folder)], capture_output=True, text=True,
                          env=env, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr
    child = json.loads(done.stdout)
    assert "vmodtool.audit.game" in child["modules"]
    assert not [m for m in child["modules"] if m.startswith(("vmodtool.assemble", "vmodtool.render", "PIL"))]

    module = tmp_path / f"{system}.vmod"
    build_module_file(folder / "scenario.yaml", module, jobs=1)
    with_module = _audit_with_module(folder, module)
    without = child["reports"]
    assert sorted(without) == sorted(with_module) and len(without) >= 10
    judged = 0
    for name, report in with_module.items():
        assert without[name] == report, f"{system}/{name}: the audit without a module differs"
        judged += "error" not in report
    assert judged == len(with_module)           # every example log is audited, none refused
    assert any(r["violations"] for r in with_module.values())      # (and the illegal ones found)


def test_a_log_of_turn_commands_dice_and_properties_replays_as_with_the_built_module(tmp_path):
    """What the example logs do not exercise: ``TURN`` commands without a
    chat report (the clock reads the tracker), the dice button's property
    changes, a property the module does not define (VASSAL drops it), moves
    into the off-map window and onto a map the module lacks."""
    from tests.audit.helpers import built_module
    from tests.audit.test_tracker_time import tracker_state
    from vmodtool.audit.game import scenario_positions
    from vmodtool.replay import Replay
    from vmodtool.scenario.offmap import OFF_MAP_NAME
    from vmodtool.vassal.gamewriter import GameWriter, Player
    from vmodtool.vassal.sequence import encode_sequence

    folder = EXAMPLES / "modern-tactical"
    scenario = load_scenario(folder / "scenario.yaml")
    module, sizes = built_module(scenario)
    w = GameWriter(module, players=[Player("p1", "Avi", "Israel Defense Forces"),
                                    Player("p2", "Sami", "Syrian Arab Army")], board_sizes=sizes)
    cav = next(pid for pid, p in w.pieces.items() if p.piece.get_property("UnitId") == "syr.cav.1")
    w.set_turn(tracker_state(2, 1))
    w.snapshot()
    w.move(cav, "0905", player="Sami")                       # too far, in the Action Phase
    w.dice("2d6", [3, 4], player="Sami")
    w._log(encode_sequence(["MutableProperty", "NoSuchProperty", "", "1", "Module"], "\t") or "")
    w.set_turn(tracker_state(3, 0))
    w.move(cav, "Syrian eliminated", map_name=OFF_MAP_NAME, player="Sami")
    w._log(f"M/{cav}/Nowhere/10/10/null/{OFF_MAP_NAME}/0/0/null/p2")
    path = tmp_path / "written.vlog"
    path.write_bytes(w.to_bytes())

    built = tmp_path / "modern-tactical.vmod"
    build_module_file(folder / "scenario.yaml", built, jobs=1)
    positions, properties, _hands = scenario_positions(scenario)
    ours = Replay.open([path], positions=positions, properties=properties)
    theirs = Replay.open([path], module=built)
    ours_steps, theirs_steps = list(ours.steps()), list(theirs.steps())
    assert [s.record() for s in ours_steps] == [s.record() for s in theirs_steps]
    assert [w_.message for w_ in ours.warnings] == [w_.message for w_ in theirs.warnings]
    assert any("NoSuchProperty" in w_.message for w_ in ours.warnings)
    assert any("'Nowhere' is not in the module" in w_.message for w_ in ours.warnings)
    assert ours.snapshot().global_properties == theirs.snapshot().global_properties
    assert ours.snapshot().global_properties.get("Module:2d6_total") == "7"
    assert [p.record() for p in ours.snapshot().pieces] == [p.record() for p in theirs.snapshot().pieces]

    without = audit_logs([path], scenario).as_json()
    assert without == audit_logs([path], scenario, module=built).as_json()
    # the long move, dated by the tracker's state alone
    assert [(v["step"], v["turn"], v["phase"]) for v in without["violations"]
            if v["rule_id"] == "move.ground"] == [(1, 2, "action")]
