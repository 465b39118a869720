"""Grids a hostile or broken module can carry: cells too small or too large
for VASSAL's pixel arithmetic, and boards of millions of hexes.  Each is a
located error (a warning where the game can go on), never an exit 70 or a
hang (docs/vassal-format.md §5.8)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from vmodtool.errors import FormatError
from vmodtool.vassal.grid_common import MAX_CELL_SIZE, MIN_CELL_SIZE, check_cell_size
from vmodtool.vassal.grid_hex import MAX_HEX_POSITIONS, HexGrid
from vmodtool.vassal.grid_square import SquareGrid

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "modern-tactical"


@pytest.mark.parametrize("dx", ["1e-320", "-1e-320", "0.0009", "1e300", "-2e9", "NaN", "0", "Infinity"])
@pytest.mark.parametrize("cls", [HexGrid, SquareGrid])
def test_unusable_cell_sizes_are_format_errors(cls, dx):
    with pytest.raises(FormatError, match=rf"{cls.__name__} dx=.* cannot be used for grid geometry"):
        cls.from_attributes({"dx": dx, "dy": "64"}, {}, (1000, 1000))
    with pytest.raises(FormatError, match=rf"{cls.__name__} dy=.* cannot be used"):
        cls.from_attributes({"dx": "64", "dy": dx}, {}, (1000, 1000))


@pytest.mark.parametrize("dx", [MIN_CELL_SIZE, -MIN_CELL_SIZE, 0.5, 55.43, -55.43, MAX_CELL_SIZE, -MAX_CELL_SIZE])
def test_usable_cell_sizes_pass(dx):
    check_cell_size("HexGrid", dx, 64.0)
    grid = HexGrid.from_attributes({"dx": repr(dx), "dy": "64"}, {}, (1000, 1000))
    assert grid.dx == dx
    # (the extremes still name points: no OverflowError from the arithmetic)
    assert grid.location_name(999, 999) is not None
    assert grid.location_name(-2 ** 31, 2 ** 31 - 1) is not None
    SquareGrid.from_attributes({"dx": repr(dx), "dy": "64"}, {}, (1000, 1000)).location_name(999, 999)


def test_hex_centres_of_a_board_of_millions_of_hexes_is_refused_at_once():
    grid = HexGrid.from_attributes({"dx": "0.001", "dy": "64"}, {}, (732, 720))
    centres = grid.hex_centres()
    start = time.process_time()
    with pytest.raises(FormatError, match=r"HexGrid dx=0\.001 dy=64\.0 on a 732x720 board has [\d,]+ hex "
                                          r"positions; vmodtool lists at most 1,000,000"):
        next(centres)
    assert time.process_time() - start < 5           # (refused, not walked: the walk takes minutes)


def test_hex_centres_of_a_big_real_board_are_all_listed():
    # 250 x 250 hexes of 10 px: far more than a published map, under the bound
    grid = HexGrid.from_attributes({"dx": "10", "dy": "11.547", "x0": "0", "y0": "0"}, {}, (2500, 2887))
    centres = list(grid.hex_centres())
    assert 250 * 250 <= len(centres) < MAX_HEX_POSITIONS
    assert len({point for _, point in centres}) == len(centres)       # (each centre once)
    assert all(0 <= x < 2500 and 0 <= y < 2887 for _, (x, y) in centres)


def _example_module_with_dx(dx: str):
    pytest.importorskip("PIL")
    from tests.audit.helpers import built_module
    from vmodtool.scenario import load_scenario

    module, sizes = built_module(load_scenario(EXAMPLE / "scenario.yaml"))
    grids = [e for e in module.buildfile.root.iter() if str(e.tag).endswith("board.HexGrid")]
    assert grids
    for grid in grids:
        grid.set("dx", dx)
    return module, sizes


def test_replay_with_a_module_whose_grid_overflows_warns_and_goes_on():
    from vmodtool.replay import Replay

    module, sizes = _example_module_with_dx("1e-320")
    replay = Replay.open([EXAMPLE / "logs" / "game-1.vlog"], module=module, board_sizes=sizes)
    steps = list(replay.steps())
    assert len(steps) == 211
    found = [str(w) for w in replay.warnings if "cannot be used for grid geometry" in str(w)]
    assert found and "board 'Quneitra Gap' of map 'Quneitra Gap'" in found[0]


def test_module_map_of_millions_of_hexes_is_a_module_map_error():
    from vmodtool.scenario.module_map import ModuleMapError, find_map, module_map_grid

    module, sizes = _example_module_with_dx("0.001")
    entry = find_map(module.buildfile.maps(), "Quneitra Gap")
    with pytest.raises(ModuleMapError, match=r"board 'Quneitra Gap' of map 'Quneitra Gap': HexGrid dx=0\.001 .* "
                                             r"hex positions"):
        module_map_grid(entry, None, sizes)
