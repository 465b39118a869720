"""Several map windows (the scenario's ``maps``): loaded with located
problems, built as one VASSAL Map each (board, HexGrid and numbering as
VASSAL writes them, at-start stacks in their window), named alike by the
built module and the scenario's own geometry, drawn by ``board --map``."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from tests.assemble.extension_fixture import STRATEGIC, STRATEGIC_MAP, guard_scenario, two_map_scenario
from tests.cli_runner import invoke
from vmodtool.assemble.builder import build_module_file
from vmodtool.images import image_size
from vmodtool.lint import lint_module
from vmodtool.replay.positions import Positions
from vmodtool.scenario import load_scenario
from vmodtool.scenario.geometry import scenario_maps
from vmodtool.scenario.problems import ScenarioProblems
from vmodtool.vassal.buildfile import BuildFile
from vmodtool.vassal.module import Module

P = "VASSAL.build."


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("maps")
    scenario = two_map_scenario(folder)
    module = folder / "two-maps.vmod"
    build_module_file(scenario, module, jobs=1)
    return scenario, module


def test_each_map_is_a_vassal_map_window(built: tuple[Path, Path]) -> None:
    scenario_path, module_path = built
    scenario = load_scenario(scenario_path)
    (strategic,) = scenario.maps
    assert (strategic.id, strategic.name, len(strategic.grid.hexes)) == ("strategic", STRATEGIC_MAP, 20)
    assert strategic.terrain["02.02"] == "hills"
    with zipfile.ZipFile(module_path) as z:
        bf = BuildFile.parse(z.read("buildFile.xml"))
        board_png = z.read("images/board-strategic.png")
    maps = bf.maps()
    assert [m.name for m in maps] == ["Main Map", STRATEGIC_MAP, "Off-map"][:len(maps)]
    window = maps[1]
    (board,) = window.boards
    assert (board.name, board.image) == (STRATEGIC_MAP, "board-strategic.png")
    assert board.grid is not None and board.grid.tag == P + "module.map.boardPicker.board.HexGrid"
    # the grid's attributes (the rest VASSAL's defaults, as the main map's)
    main_grid = maps[0].boards[0].grid
    assert main_grid is not None and list(board.grid.keys()) == list(main_grid.keys())
    assert strategic.grid.grid_attributes.items() <= dict(board.grid.attrib).items()
    (numbering,) = board.grid
    assert strategic.grid.numbering_attributes.items() <= dict(numbering.attrib).items()
    assert image_size(board_png, file="board-strategic.png") == strategic.size
    # the map children VASSAL needs (PieceMover, KeyBufferer, MenuDisplayer) and its Flare, as the main map's
    def components(element: object) -> list[str]:
        return [child.tag.rsplit(".", 1)[-1] for child in element if not child.tag.endswith("SetupStack")]

    assert components(window.element) == components(maps[0].element)
    stacks = {s.get("location"): (m.name, s.get("owningBoard")) for m in maps
              for s in m.element.iter(P + "module.map.SetupStack")}
    assert stacks["04.02"] == (STRATEGIC_MAP, STRATEGIC_MAP)
    assert stacks["0704"] == ("Main Map", "Main Map")
    with Module.open(module_path) as module:
        assert [f.code for f in lint_module(module) if f.severity != "info"] == []


def test_the_module_and_the_scenario_name_both_maps_alike(built: tuple[Path, Path]) -> None:
    scenario_path, module_path = built
    scenario = load_scenario(scenario_path)
    with Module.open(module_path) as module:
        from_module = Positions(module)
        from_scenario = Positions.from_maps([(m.name, m.geometry) for m in scenario_maps(scenario)])
        for hex_map in (scenario.map, *scenario.maps):
            for label, (x, y) in list(hex_map.grid.centres.items())[::3]:
                assert from_module.location(hex_map.name, x, y) == label
                assert from_scenario.location(hex_map.name, x, y) == label


def test_board_draws_a_map_window(built: tuple[Path, Path], tmp_path: Path) -> None:
    scenario_path, _ = built
    out = tmp_path / "strategic.png"
    code, stdout, err = invoke(["board", scenario_path, "--map", "strategic", "-o", out])
    assert code == 0, err
    assert "20 hexes" in stdout and image_size(out.read_bytes(), file=str(out)) == (418, 408)
    code, _, err = invoke(["board", scenario_path, "--map", "tactical", "-o", tmp_path / "x.png"])
    assert code == 2 and "no map 'tactical'; its maps: 'main', 'strategic'" in err


def test_map_problems_are_located(tmp_path: Path) -> None:
    same = STRATEGIC.replace('name: "Стратегическая карта"', 'name: "Main Map"')
    path = guard_scenario(tmp_path / "a")
    path.write_text(path.read_text(encoding="utf-8") + same + "  - {id: x, from_module: Board, name: X}\n",
                    encoding="utf-8")
    with pytest.raises(ScenarioProblems) as caught:
        load_scenario(path)
    lines = caught.value.lines()
    assert any("maps[0].name: the map name 'Main Map' is already the map (map.name)" in x for x in lines)
    assert any("maps[1].from_module: only 'map' is taken from a module" in x for x in lines)
    wrong = two_map_scenario(tmp_path / "b")
    wrong.write_text(wrong.read_text(encoding="utf-8").replace('{map: strategic, hex: "04.02"',
                                                               '{map: strategic, hex: "0402"'), encoding="utf-8")
    with pytest.raises(ScenarioProblems, match=r"setup\[4\].hex: .*'0402'.*did you mean '04.02'"):
        load_scenario(wrong)


def test_check_scenario_counts_the_windows_and_extensions(built: tuple[Path, Path]) -> None:
    from vmodtool.scenario.summary import scenario_summary

    summary = scenario_summary(load_scenario(built[0]))
    assert summary["text"].endswith(f", 1 more map window(s) ({STRATEGIC_MAP}: 20 hexes), "
                                    "1 extension(s) (Guards: 2 counters)")
    assert (summary["maps"], summary["extensions"]) == (1, 1)


def test_a_window_with_its_own_board_image(tmp_path: Path) -> None:
    import io

    from PIL import Image

    path = two_map_scenario(tmp_path)
    art = path.parent / "strategic-art.png"
    buf = io.BytesIO()
    Image.new("RGB", (418, 408), (200, 180, 120)).save(buf, "PNG")
    art.write_bytes(buf.getvalue())
    path.write_text(path.read_text(encoding="utf-8").replace(
        '      numbering:\n        first: column\n        separator: "."\n',
        '      numbering:\n        first: column\n        separator: "."\n    board: {image: strategic-art.png}\n'),
        encoding="utf-8")
    module = tmp_path / "art.vmod"
    build_module_file(path, module, jobs=1)
    with zipfile.ZipFile(module) as z:
        assert z.read("images/board-strategic.png") == art.read_bytes()      # the designer's art, as given


def test_a_scenario_sets_up_units_on_a_map_window(tmp_path: Path) -> None:
    """A predefined setup (the ``scenarios`` section) places a unit on a
    ``maps`` window as the module's at-start stacks would."""
    import json

    path = two_map_scenario(tmp_path)
    text = path.read_text(encoding="utf-8")
    start, end = text.index("setup:"), text.index("turns:")
    scenarios = ("scenarios:\n  - id: opening\n    name: Opening\n    setup:\n"
                 '      - {hex: "0203", stack: [blue.inf.1]}\n'
                 '      - {map: strategic, hex: "05.04", stack: [red.inf.2]}\n\n')
    path.write_text(text[:start] + scenarios + text[end:], encoding="utf-8")
    module = tmp_path / "opening.vmod"
    build_module_file(path, module, jobs=1)
    with zipfile.ZipFile(module) as z:
        saved = z.read("opening.vsav")
    (tmp_path / "opening.vsav").write_bytes(saved)
    code, out, err = invoke(["replay", tmp_path / "opening.vsav", "-m", module, "--step", "0", "--format", "jsonl"])
    assert code == 0, err
    placed = {r["unit_id"]: (r["map"], r["location"]) for r in map(json.loads, out.splitlines())
              if r.get("type") == "piece"}
    assert placed == {"blue.inf.1": ("Main Map", "0203"), "red.inf.2": (STRATEGIC_MAP, "05.04")}
