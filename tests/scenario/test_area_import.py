"""`vmodtool import` of a module whose main map is regions and zones
(issue 42 item 3): an area map with the spaces VASSAL names and a
connection graph marked as a proposal; and the proposal itself."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.conftest import shared_path
from vmodtool.cli import cli
from vmodtool.replay.positions import Positions
from vmodtool.scenario.adjacency import propose_connections
from vmodtool.scenario.loader import load_scenario
from vmodtool.scenario.locations import Space, spaces_of_board
from vmodtool.vassal.grid import board_from_element
from vmodtool.vassal.module import Module

AREA_MODULES = [("almoravid", "buildFile.xml"), ("flashpoint-scs", "buildFile.xml"), ("hannibal", "buildFile"),
                ("imperial-struggle", "buildFile.xml"), ("nevsky", "buildFile.xml"), ("pog", "buildFile.xml")]
#: the name each module's row has in the guide's table of what import proposes
GUIDE_ROWS = {"almoravid": "Almoravid", "flashpoint-scs": "Flashpoint: South China Sea",
              "hannibal": "Hannibal: Rome vs Carthage", "imperial-struggle": "Imperial Struggle",
              "nevsky": "Nevsky", "pog": "Paths of Glory"}
GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guide" / "area-maps.md"


def test_the_proposal_joins_near_spaces_of_one_zone_without_crossing_lines() -> None:
    # a 3×3 lattice (100 px apart) in one zone, a far space, and a box zone
    lattice = [Space(f"s{r}{c}", (c * 100, r * 100), "region", "land") for r in range(3) for c in range(3)]
    far = Space("far", (5000, 5000), "region", "land")
    box = [Space("b1", (110, 0), "region", "box"), Space("b2", (210, 0), "region", "box")]
    pairs = propose_connections([*lattice, far, *box, Space("zone", (0, 0), "zone", None)])
    # the lattice's orthogonal neighbours; no diagonal (the square's other
    # corners lie on its circle, not inside: Gabriel keeps both diagonals out
    # only when a point is strictly inside, so a perfect square keeps them)
    orthogonal = {("s00", "s01"), ("s01", "s02"), ("s10", "s11"), ("s11", "s12"), ("s20", "s21"), ("s21", "s22"),
                  ("s00", "s10"), ("s10", "s20"), ("s01", "s11"), ("s11", "s21"), ("s02", "s12"), ("s12", "s22")}
    assert orthogonal <= set(pairs)
    assert not any("far" in p for p in pairs)                 # beyond the distance cut
    assert ("b1", "b2") in pairs                              # a zone of its own
    assert not any(("b1" in p or "b2" in p) and any(n.startswith("s") for n in p) for p in pairs)
    assert not any("zone" in p for p in pairs)                # a gridless zone is a box, not joined
    assert pairs == sorted(pairs) and all(a < b for a, b in pairs)


@pytest.mark.parametrize("folder,name", AREA_MODULES, ids=[f for f, _ in AREA_MODULES])
def test_import_of_an_area_module_passes_check_scenario(folder: str, name: str, tmp_path: Path) -> None:
    source = shared_path("corpus", folder, name)
    out = tmp_path / "scenario.yaml"
    result = CliRunner().invoke(cli, ["import", str(source), "-o", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text("utf-8")
    assert "connections_proposed: true" in text and "PROPOSED" in text
    # the guide's table says what import proposes, and that the module encodes no adjacency
    counts = re.search(r"an area map of (\d+) spaces; its (\d+) connections are a PROPOSAL", result.output)
    assert counts is not None, result.output
    row = f"| {GUIDE_ROWS[folder]} | {int(counts[1]):,} | {int(counts[2]):,} | 0 |"
    assert row in GUIDE.read_text("utf-8"), row
    checked = CliRunner().invoke(cli, ["check-scenario", str(out)])
    assert checked.exit_code == 0, checked.output
    assert "(proposed)" in checked.output
    scenario = load_scenario(out)
    areas = scenario.map.areas
    assert areas is not None and areas.proposed and len(areas.spaces) > 30
    # the main window is the map, not a box "Map"
    assert all(b.module_map != scenario.map.module_map or b.module_zone for b in scenario.boxes)
    # every space is the name VASSAL's own map gives its point (a board
    # of any size at least as large as its regions: named alike)
    module = Module.open(source)
    board = scenario.map.module_board or ""
    positions = Positions(module, {board: (20000, 20000)})
    assert positions.set_boards(scenario.map.name, [(board, False, 0, 0)]) is None
    entry = next(e for e in module.buildfile.maps() if e.name == scenario.map.name)
    ex, ey = int(entry.element.get("edgeWidth") or 0), int(entry.element.get("edgeHeight") or 0)
    board_entry = next(b for b in entry.boards if b.name == board)
    own = spaces_of_board(board_from_element(board_entry.element, 20000, 20000))
    assert set(own) <= set(areas.spaces)          # (and the names only the window's other boards give)
    wrong = [(n, s.point) for n, s in own.items()
             if s.point is not None and positions.location(scenario.map.name, s.point[0] + ex, s.point[1] + ey) != n]
    assert wrong == []
