"""Area maps and no false clean (issue 42), on the real Paths of Glory
module and saves (../shared; skipped without it).

The reference is the replay's own count: each save is replayed with the
module, every piece bound by the scenario's binding, and the units are
counted per location name VASSAL gives their place; the audit's findings
must be exactly the locations that count more units than the limit."""

from __future__ import annotations

import collections
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.conftest import EXAMPLES, shared_files, shared_path
from vmodtool.audit.binding import PieceBinder
from vmodtool.cli import cli
from vmodtool.replay import Replay
from vmodtool.replay.events import PieceRef, Place
from vmodtool.replay.visitor import BoardView, LogStart, ReplayVisitor
from vmodtool.scenario.from_module import scenario_from_module
from vmodtool.scenario.loader import load_scenario
from vmodtool.scenario.locations import spaces_of_board
from vmodtool.scenario.problems import ScenarioProblems
from vmodtool.vassal.grid import board_from_element
from vmodtool.vassal.module import Module

EXAMPLE = EXAMPLES / "paths-of-glory" / "scenario.yaml"


def shared_path_or_none(*parts: str) -> Path | None:
    """A corpus folder, or None without ../shared (for parametrisation)."""
    found = shared_files("corpus", f"{parts[0]}/*")
    return found[0].parent if found else None
POG_SAVES = shared_files("corpus/pog", "*.vsav")


def _write_example(path: Path, text: str, example: Path = EXAMPLE.parent) -> None:
    """An example's scenario text at ``path``, with the data files it names
    beside it (Paths of Glory's connections.csv)."""
    path.write_text(text, encoding="utf-8")
    for data in example.glob("*.csv"):
        (path.parent / data.name).write_bytes(data.read_bytes())


def _with_limit(tmp_path: Path, limit: int, per_side: bool = True) -> Path:
    text = EXAMPLE.read_text(encoding="utf-8")
    text = text.replace("params: {limit: 3, count: units, per_side: true}",
                        f"params: {{limit: {limit}, count: units, per_side: {str(per_side).lower()}}}")
    assert f"limit: {limit}," in text
    path = tmp_path / "scenario.yaml"
    _write_example(path, text)
    return path


def _audit(save: Path, scenario: Path, module: Path) -> tuple[int, dict]:
    result = CliRunner().invoke(cli, ["audit", str(save), "--scenario", str(scenario), "-m", str(module),
                                      "--format", "json"])
    return result.exit_code, json.loads(result.output)


class _SavedPieces(ReplayVisitor[list[tuple[PieceRef, Place]]]):
    """The pieces of the first file's saved state and where they are."""

    def __init__(self) -> None:
        self.pieces: list[tuple[PieceRef, Place]] = []

    def begin_log(self, log: LogStart, initial: BoardView) -> None:
        if log.index == 0:
            self.pieces.extend((p.ref, p.place) for p in initial.pieces())

    def result(self) -> list[tuple[PieceRef, Place]]:
        return self.pieces


def _replay_counts(save: Path, scenario_path: Path, module_path: Path, per_side: bool, any_map: bool = False
                   ) -> collections.Counter[tuple[str, str | None]]:
    """(location, side) → units there in the saved position, from the replay
    (VASSAL's location names) and the scenario's binding alone."""
    module = Module.open(module_path)
    scenario = load_scenario(scenario_path, module=module)
    sizes = dict(scenario.module.board_sizes) if scenario.module is not None else {}
    replay = Replay.open([save], module=module, board_sizes=sizes)
    (pieces,) = replay.run(_SavedPieces())
    binder = PieceBinder(scenario, module)
    counts: collections.Counter[tuple[str, str | None]] = collections.Counter()
    for ref, place in pieces:
        bound = binder.bind(ref)
        if bound.unit is None or place.location is None or place.location == "offboard":
            continue
        if not any_map and place.map != "Map":
            continue
        side = ref.get_property("Side") if per_side else None
        where = f"{place.map}: {place.location}" if any_map else place.location
        counts[(where, side.lower() if side else None)] += 1
    return counts


def test_historical_10_8_with_a_limit_of_one_flags_every_overstack_the_replay_shows(tmp_path: Path) -> None:
    save = shared_path("corpus", "pog", "Historical10-8__63fbf0b.vsav")
    module = shared_path("corpus", "pog", "buildFile.xml")
    scenario = _with_limit(tmp_path, 1)
    code, report = _audit(save, scenario, module)
    assert code == 1, report
    assert report["steps"] == 0                          # a save is audited as a position
    found = {(v["hexes"][0], v["evidence"]["side_counted"]) for v in report["violations"]}
    # the three: two French corps in Belfort, two Romanian in Bucharest, GE1 and GE2 in Liège
    assert {("Belfort", "ap"), ("Bucharest", "ap"), ("Liege", "cp")} <= found
    counts = _replay_counts(save, scenario, module, per_side=True)
    boxed = {"RB_AH", "RB_FR", "RB_GE", "RB_IT", "RB_RU", "RB_SB", "RB_BR", "RB_TU", "RB_US", "RB_BE", "RB_GR",
             "RB_RO", "RB_MN", "RB_BU"}   # the reserve boxes' spaces: boxes here, not stacking spaces
    expected = {key for key, n in counts.items() if n > 1 and key[0] not in boxed}
    assert found == expected
    assert report["units_not_checked"] == {} and report["not_checked"] == {}


@pytest.mark.parametrize("save", POG_SAVES, ids=lambda p: p.name)
def test_the_example_with_the_real_limit_on_every_corpus_save(save: Path, tmp_path: Path) -> None:
    """Three combat units a space (rule 10.1.1): the saves' set-ups keep it,
    and every unit stands in a space or box some rule judged."""
    module = shared_path("corpus", "pog", "buildFile.xml")
    code, report = _audit(save, EXAMPLE, module)
    counts = _replay_counts(save, EXAMPLE, module, per_side=True)
    over = {key for key, n in counts.items() if n > 3 and not key[0].startswith("RB_")}
    assert over == set()
    assert code == 0, report
    assert report["violations"] == [] and report["not_checked"] == {} and report["units_not_checked"] == {}


def test_the_classic_board_fits_in_the_size_the_example_gives_it() -> None:
    """The Classic map's image is not in the corpus: the example gives it
    the Deluxe map's size, which must hold every space and zone of it."""
    module = Module.open(shared_path("corpus", "pog", "buildFile.xml"))
    entry = next(e for e in module.buildfile.maps() if e.name == "Map")
    board = next(b for b in entry.boards if b.name == "Classic Map")
    spaces = spaces_of_board(board_from_element(board.element, 5100, 4200))
    assert len(spaces) > 400
    xs = [s.point[0] for s in spaces.values() if s.point]
    ys = [s.point[1] for s in spaces.values() if s.point]
    assert 0 <= min(xs) and max(xs) < 5100 and 0 <= min(ys) and max(ys) < 4200
    zones = board.element.iter("VASSAL.build.module.map.boardPicker.board.mapgrid.Zone")
    for zone in zones:
        for vertex in (zone.get("path") or "").split(";"):
            x, y = (int(v) for v in vertex.split(","))
            assert x < 5100 and y < 4200


def test_without_the_area_map_the_audit_says_which_units_it_did_not_look_at(tmp_path: Path) -> None:
    """The issue's false clean: the main window taken as one box "Map" (what
    `vmodtool import` proposed) judged no unit's space and printed 0 errors,
    exit 0.  Now every rule reading places is NOT CHECKED, exit 3."""
    save = shared_path("corpus", "pog", "Historical10-8__63fbf0b.vsav")
    module = shared_path("corpus", "pog", "buildFile.xml")
    text = _with_limit(tmp_path, 1).read_text(encoding="utf-8")
    text = text.replace("  from_module: Map                     # the module's main window",
                        "  from_module: Preferences  # not the main window:")
    text = text.replace("  spaces:", "  spaces_unused:").replace("  connection_types:", "  ct_unused:")
    text = text.replace("  connections:", "  conn_unused:")
    head, rest = text.split("\nboxes:\n", 1)
    head = head.split("  spaces_unused:")[0]
    text = head + "\nboxes:\n  - {id: main, name: Map, role: holding, module: {map: Map}}\n" + "\n".join(
        line for line in rest.splitlines() if "zone:" not in line) + "\n"
    path = tmp_path / "as_box.yaml"
    path.write_text(text, encoding="utf-8")
    code, report = _audit(save, path, module)
    assert code == 3, report
    assert "stack.three" in report["not_checked"]
    assert "Map: Belfort" in report["units_not_checked"].values()
    assert len(report["units_not_checked"]) > 100
    result = CliRunner().invoke(cli, ["audit", str(save), "--scenario", str(path), "-m", str(module)])
    summary = next(line for line in result.output.splitlines() if line.startswith("1 log(s)"))
    assert "unit(s) NOT CHECKED" in summary and "0 error(s)" in summary


#: a movement rule for the example: rule 11.1.2, every space costs 1 MP
MOVE_RULE = """\
  - id: move.mp
    kind: movement_allowance
    params: {allowance: {factor: move}, costs: {land: {default: 1}}}
"""


def _with_movement(tmp_path: Path, proposed: bool = False) -> Path:
    text = EXAMPLE.read_text(encoding="utf-8")
    assert "    tags: [ground]\n" in text
    text = text.replace("    tags: [ground]\n", "    tags: [ground]\n    movement_class: land\n") + MOVE_RULE
    if proposed:
        text = text.replace("\n  connections_csv:", "\n  connections_proposed: true\n  connections_csv:")
    path = tmp_path / "scenario.yaml"
    _write_example(path, text)
    return path


@pytest.mark.parametrize("save", POG_SAVES, ids=lambda p: p.name)
def test_a_movement_rule_on_paths_of_glory_flags_nothing_it_cannot_prove(save: Path, tmp_path: Path) -> None:
    """The saves are positions (0 steps): no move to judge, none flagged;
    the rule ran (it is not NOT CHECKED: there was nothing it could not
    look at)."""
    module = shared_path("corpus", "pog", "buildFile.xml")
    path = _with_movement(tmp_path)
    try:
        load_scenario(path, module=module)
    except ScenarioProblems as exc:          # (the kind's own params: the schema says which)
        pytest.fail("\n".join(str(p) for p in exc.problems))
    code, report = _audit(save, path, module)
    assert report["steps"] == 0
    assert [v for v in report["violations"] if v["rule_id"] == "move.mp"] == []
    assert "move.mp" in report["rules_checked"] and "move.mp" not in report["not_checked"]
    assert code == 0, report


def test_on_proposed_connections_the_movement_rule_is_not_checked(tmp_path: Path) -> None:
    save = shared_path("corpus", "pog", "Historical10-8__63fbf0b.vsav")
    module = shared_path("corpus", "pog", "buildFile.xml")
    code, report = _audit(save, _with_movement(tmp_path, proposed=True), module)
    assert code == 3, report
    assert "proposal" in report["not_checked"]["move.mp"]
    assert "move.mp" not in report["rules_checked"]


def test_moves_on_the_typed_lines_of_paths_of_glory(tmp_path: Path) -> None:
    """Moves fed to the rule on the example's real map (every printed line
    typed, not declared complete): a move along a line is judged legal; one
    to a region that is no printed space (France: no line is typed for it),
    or one longer than the allowance by the typed lines (Liege → Berlin),
    is NOT CHECKED, never flagged."""
    from dataclasses import replace

    from tests.audit.harness import Game
    from tests.audit.helpers import rule
    from vmodtool.scenario.model import Counter
    module = shared_path("corpus", "pog", "buildFile.xml")
    scenario = load_scenario(_with_movement(tmp_path), module=module)
    scenario = replace(scenario, counters=tuple(Counter(f"u{i}", "combat_unit", "ap") for i in range(3)))
    g = Game(scenario, rule(scenario, "move.mp"))
    for uid, space in (("u0", "Nancy"), ("u1", "Paris"), ("u2", "Liege")):
        g.place(uid, space)
    g.step(("move", "u0", "Belfort"))
    g.step(("move", "u1", "France"))
    g.step(("move", "u2", "Berlin"))
    g.clock("game_end")
    assert [v for v in g.violations if v.severity != "info"] == []
    (info,) = g.violations
    assert info.evidence["moves_not_judged"] == 2
    assert "no connection is typed for France" in info.message
    assert "Liege → Berlin" in info.message and "MP by the typed lines" in info.message


def _corpus_games() -> list[tuple[Path, Path]]:
    """(module, game) for every corpus save or log whose module is in the corpus."""
    out = []
    for folder in shared_files("corpus", "*/buildFile*") + shared_files("corpus", "*/*.mod"):
        for game in sorted(folder.parent.rglob("*")):
            if game.suffix in (".vsav", ".vlog", ".log") and game.is_file():
                out.append((folder, game))
    return out


CORPUS_GAMES = _corpus_games()


@pytest.mark.parametrize("module_path,game", CORPUS_GAMES, ids=[f"{g.parent.name}/{g.name}" for _, g in CORPUS_GAMES])
def test_no_corpus_game_is_clean_while_a_place_holds_more_units_than_the_limit(module_path: Path, game: Path,
                                                                                tmp_path: Path) -> None:
    """The scenario `vmodtool import` proposes, with one stacking rule over all
    units (limit 1, sides together): the audit ends "0 errors", exit 0, only
    if no location of the replay holds two units."""
    import re
    with Module.open(module_path) as module:
        text = scenario_from_module(module, module_file=str(module_path)).text
    text = re.sub(r"(?m)^rules: \[\].*$",
                  "rules:\n  - {id: stack.one, kind: stacking, params: {limit: 1, per_side: false}}", text)
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(cli, ["audit", str(game), "--scenario", str(scenario), "-m", str(module_path),
                                      "--format", "json"])
    if result.exit_code == 2:
        pytest.skip(f"no audit: {result.output.strip().splitlines()[-1][:160]}")    # (claims nothing)
    assert result.exit_code in (0, 1, 3), result.output
    if result.exit_code != 0:
        return
    report = json.loads(result.output)
    assert report["complete"] and not report["units_not_checked"]
    counts = _replay_counts(game, scenario, module_path, per_side=False, any_map=True)
    crowded = {key: n for key, n in counts.items() if n > 1}
    assert not crowded, f"0 errors, exit 0, while the replay shows {crowded}"


#: the bundled examples that bind a corpus module: (example folder, corpus folder, module file)
BOUND = [("the-longest-day", "tld", "buildFile"), ("paths-of-glory", "pog", "buildFile.xml"),
         ("ragnarok", "ragnarok", "buildFile.xml")]
BOUND_GAMES = [(example, folder / name, game) for example, corpus, name in BOUND
               for folder in [shared_path_or_none(corpus)] if folder is not None
               for game in sorted(folder.rglob("*")) if game.suffix in (".vsav", ".vlog", ".log")]


@pytest.mark.parametrize("example,module_path,game", BOUND_GAMES,
                         ids=[f"{e}/{g.name}" for e, _, g in BOUND_GAMES])
def test_no_corpus_game_audited_with_its_example_is_clean_while_over_the_limit(example: str, module_path: Path,
                                                                               game: Path, tmp_path: Path) -> None:
    """The examples' own bindings, their rules replaced by one stacking
    rule over all units (limit 1, sides together)."""
    text = (EXAMPLES / example / "scenario.yaml").read_text(encoding="utf-8")
    text = text.split("\nrules:\n", 1)[0] + (
        "\nrules:\n  - {id: stack.one, kind: stacking, params: {limit: 1, per_side: false}}\n")
    scenario = tmp_path / "scenario.yaml"
    _write_example(scenario, text, EXAMPLES / example)
    result = CliRunner().invoke(cli, ["audit", str(game), "--scenario", str(scenario), "-m", str(module_path),
                                      "--format", "json"])
    assert result.exit_code in (0, 1, 3), result.output
    if result.exit_code != 0:
        return
    report = json.loads(result.output)
    assert report["complete"] and not report["units_not_checked"]
    counts = _replay_counts(game, scenario, module_path, per_side=False, any_map=True)
    crowded = {key: n for key, n in counts.items() if n > 1}
    assert not crowded, f"0 errors, exit 0, while the replay shows {crowded}"
