"""The ``module`` and ``binding`` sections and ``map.from_module``: a scenario
of a game played with a module vmodtool did not describe (here the
committed demo module, whose sides are Cyrillic property values), loading,
located mistakes, and the audit through the binding."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from vmodtool.audit.game import audit_logs
from vmodtool.cli import cli
from vmodtool.scenario import check_scenario, load_scenario
from vmodtool.scenario.binding import Pattern, PatternError

FORMATS = Path(__file__).resolve().parents[2] / "examples" / "formats"
DEMO = FORMATS / "demo.vmod"
LOG = FORMATS / "demo.vlog"

SCENARIO = f"""\
schema: vmodtool/1
game:
  id: demo
  title: Демо
  sides:
    - {{id: blue, name: Синие}}
    - {{id: red, name: Красные}}
module:
  file: {DEMO}
map:
  from_module: Main Map
  terrain_types:
    clear: {{code: ".", name: Clear}}
    woods: {{code: w, name: Лес}}
  terrain: {{default: clear, hexes: {{"0604": woods}}}}
unit_types:
  battalion:
    name: Батальон
    faces:
      - {{name: full, factors: {{move: 4}}}}
      - {{name: reduced, factors: {{move: 2}}}}
markers:
  ops: {{name: Ops Complete, representation: counter}}
binding:
  sides:
    - {{side: blue, match: {{property: {{Side: Синие}}}}}}
    - {{side: red, match: {{property: {{Side: "re:Крас.*"}}}}}}
  units:
    - {{match: {{palette: "Pieces/Units", name: ["1/*", "*батальон"]}}, type: battalion}}
  markers:
    - {{match: {{name: Ops Complete}}, kind: ops}}
  faces: {{layer: Step}}
rules:
  - id: stack
    kind: stacking
    params: {{limit: 1, per_side: false}}
    check_at: step_end
"""


def write(tmp_path: Path, text: str = SCENARIO, old: str = "", new: str = "") -> Path:
    if old:
        assert old in text, old
        text = text.replace(old, new)
    path = tmp_path / "scenario.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def problems_of(path: Path, **kw: object) -> list[str]:
    _, problems = check_scenario(path, **kw)  # type: ignore[arg-type]
    return [f"{'.'.join(str(k) for k in p.path)}: {p.message}" for p in problems if p.severity == "error"]


def test_the_map_is_the_modules_grid(tmp_path: Path) -> None:
    scenario = load_scenario(write(tmp_path))
    assert scenario.map.name == "Main Map" and scenario.map.module_map == "Main Map"
    assert scenario.map.grid_spec is None
    assert {"0203", "0304", "0705", "0604", "0504"} <= set(scenario.map.hex_ids)
    assert scenario.map.terrain["0604"] == "woods"
    assert scenario.counters == ()
    assert not scenario.binding.implied and scenario.binding.faces is not None


def test_the_audit_binds_the_pieces_by_the_binding(tmp_path: Path) -> None:
    scenario = load_scenario(write(tmp_path))
    report = audit_logs([LOG], scenario)                # the module from module.file
    assert report.not_checked == {}
    assert report.violations == []                      # never two units in one hex
    assert not any("not units or markers" in w for w in report.replay_warnings)


def test_a_stacking_rule_sees_the_bound_units(tmp_path: Path) -> None:
    # both units bound to one side: with a limit of 0 every occupied hex is over it
    path = write(tmp_path, old="params: {limit: 1, per_side: false}", new="params: {limit: 0, per_side: false}")
    report = audit_logs([LOG], load_scenario(path))
    units = {u for v in report.violations for u in v.units}
    assert units == {"1/A/1-36 Inf", "1-й танковый батальон"}
    assert {v.hexes[0] for v in report.violations} >= {"0304", "0604"}


def test_faces_follow_the_layer(tmp_path: Path) -> None:
    from vmodtool.audit.engine import Engine
    from vmodtool.audit.game import AuditGame
    from vmodtool.replay import Replay
    from vmodtool.vassal.module import Module
    module = Module.open(DEMO)
    scenario = load_scenario(write(tmp_path), module=module)
    game = AuditGame(scenario, Replay.open([LOG], module=module), module)
    game.run(Engine(game.prepare(), rules=[]))
    faces = {u: s.face for u, s in game.state.units_state.items()}
    assert faces == {"1/A/1-36 Inf": 1, "1-й танковый батальон": 0}     # flipped at step 5


def test_module_given_on_the_command_line_wins(tmp_path: Path) -> None:
    path = write(tmp_path, old=f"module:\n  file: {DEMO}\n", new="")
    assert problems_of(path) == ["map.from_module: the map is taken from the module, but no module is named: "
                                 "give module.file (relative to this file) or --module"]
    assert problems_of(path, module=DEMO) == []
    result = CliRunner().invoke(cli, ["check-scenario", str(path), "-m", str(DEMO)])
    assert result.exit_code == 0 and "Демо" in result.output


@pytest.mark.parametrize("old,new,expected", [
    ("type: battalion}", "type: batalion}",
     "binding.units.0.type: unknown unit type 'batalion'; did you mean 'battalion'?"),
    ('name: ["1/*", "*батальон"]', 'name: "re:(unclosed"',
     "binding.units.0.match.name: 're:(unclosed' is not a regular expression"),
    ("  faces: {layer: Step}\n", "  faces: {layer: Step}\n  status:\n    - {marker: ops, layer: Done}\n",
     "binding.status.0.marker: marker kind 'ops' is a counter (representation: counter)"),
    ("from_module: Main Map", "from_module: Main Mop", "map.from_module: the module has no map 'Main Mop'"),
    ("  from_module: Main Map\n", "  from_module: Main Map\n  grid: {columns: 4, rows: 4}\n",
     "map.grid: map.grid cannot be given with map.from_module"),
    ("    check_at: step_end\n", "    check_at: event\n    check_in: [movement]\n",
     "rules.0.check_in.0: unknown phase"),
    ("type: battalion}", "side: blue}", "binding.units.0: a units entry needs 'type'"),
    ("      - {name: full", "      - {name: full", ""),
])
def test_mistakes_are_located(tmp_path: Path, old: str, new: str, expected: str) -> None:
    found = problems_of(write(tmp_path, old=old, new=new))
    if not expected:
        assert found == []
    else:
        assert any(p.startswith(expected) for p in found), found


def test_without_a_binding_the_counters_are_required(tmp_path: Path) -> None:
    text = SCENARIO[:SCENARIO.index("binding:")] + SCENARIO[SCENARIO.index("rules:"):]
    found = problems_of(write(tmp_path, text))
    assert any("counters" in p and "required" in p for p in found), found


def test_build_refuses_a_game_of_another_module(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["build", str(write(tmp_path)), "-o", str(tmp_path / "out.vmod")])
    assert result.exit_code == 2
    assert "map.from_module" in result.output and "does not make" in result.output
    assert not (tmp_path / "out.vmod").exists()


@pytest.mark.parametrize("pattern,value,matches", [
    ("1/A", "1/A", True), ("1/A", "1/A/1", False), ("1/*", "1/A/1", True), ("*/American/*", "Pieces/American/101",
                                                                           True),
    ("[Sherman]", "[Sherman]", True), ("A?", "AB", True), ("re:\\d+/508/82", "1/508/82", True),
    ("re:508", "1/508/82", False), ("Синие", "Синие", True), ("*", "", True),
])
def test_patterns(pattern: str, value: str, matches: bool) -> None:
    assert Pattern.parse(pattern).matches(value) is matches
    assert not Pattern.parse(pattern).matches(None)


def test_a_bad_regular_expression_is_an_error() -> None:
    with pytest.raises(PatternError):
        Pattern.parse("re:[")


def test_board_takes_the_module_on_the_command_line(tmp_path: Path) -> None:
    """Issue 40 item 15: ``board`` of a from_module scenario without
    module.file takes -m/--module, as its message says and as check-scenario
    does."""
    path = write(tmp_path, old=f"module:\n  file: {DEMO}\n", new="")
    out = tmp_path / "board.png"
    result = CliRunner().invoke(cli, ["board", str(path), "-o", str(out)])
    assert result.exit_code == 2 and "or --module" in result.output and not out.exists()
    result = CliRunner().invoke(cli, ["board", str(path), "-o", str(out), "-m", str(DEMO)])
    assert result.exit_code == 0, result.output
    assert out.is_file() and "wrote" in result.output
    result = CliRunner().invoke(cli, ["board", str(path), "-o", str(DEMO), "--module", str(DEMO)])
    assert result.exit_code == 2                   # the module is no output
