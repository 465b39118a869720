"""The grid module against VASSAL 3.7.26's own answers (``shared/golden/hexgrid``).

For every golden configuration: attribute read-back, the name and snap of
every lattice point (and forced snap where given), every edge sample, every
``hexes`` entry (centre or BadCoords, raw column/row, name and forced snap
at the centre); for the zoned real boards also the bare hex grid
(``grid_lattice``, ``edge_grid_samples``) and the whole board built from the
corpus buildFile (``lattice``, ``edge_samples``, ``board_locations``).

Run ``python -m tests.vassal.test_grid_golden`` for a table of match counts.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import SHARED, rel_id, shared_files
from vmodtool.vassal.grid import Board, HexGrid, LocationError, board_from_element

pytestmark = [pytest.mark.golden, pytest.mark.corpus]

GOLDEN_FILES = [p for p in shared_files("golden/hexgrid", "*.json") if p.name != "index.json"]

#: check name → (matched, total)
Counts = dict[str, list[int]]


def _tally(counts: Counts, check: str, ok: bool) -> None:
    entry = counts.setdefault(check, [0, 0])
    entry[0] += ok
    entry[1] += 1


def _find_board_element(source: Path, map_name: str, board_name: str):
    from lxml import etree

    tree = etree.parse(str(source))
    found = None
    for element in tree.iter():
        if not isinstance(element.tag, str) or not element.tag.endswith("boardPicker.Board"):
            continue
        if element.get("name") != board_name:
            continue
        owners = [a for a in element.iterancestors() if a.get("mapName") is not None]
        if owners and owners[0].get("mapName") == map_name:
            found = element
    return found


def _lattice_points(lattice: dict):
    step = lattice["step"]
    for j in range(lattice["y_count"]):
        y = lattice["y_start"] + j * step
        for i in range(lattice["x_count"]):
            yield lattice["x_start"] + i * step, y


def _check_lattice(counts: Counts, prefix: str, target, lattice: dict, answers: dict,
                   failures: list[str]) -> None:
    names = answers["locationName"]
    snaps = answers["snapTo_xy"]
    forced = answers.get("forcedSnapTo_xy")
    location_name = target.location_name
    snap_to = target.snap_to
    for index, (x, y) in enumerate(_lattice_points(lattice)):
        name = location_name(x, y)
        ok = name == names[index]
        _tally(counts, prefix + "name", ok)
        sx, sy = snap_to(x, y)
        ok_snap = sx == snaps[2 * index] and sy == snaps[2 * index + 1]
        _tally(counts, prefix + "snap", ok_snap)
        if forced is not None:
            fx, fy = snap_to(x, y, True)
            ok_forced = fx == forced[2 * index] and fy == forced[2 * index + 1]
            _tally(counts, prefix + "forced_snap", ok_forced)
            ok_snap = ok_snap and ok_forced
        if (not ok or not ok_snap) and len(failures) < 10:
            failures.append(f"{prefix}({x},{y}): name {name!r} vs {names[index]!r}, "
                            f"snap {(sx, sy)} vs {snaps[2 * index:2 * index + 2]}")


def _check_edges(counts: Counts, prefix: str, target, samples: list,
                 failures: list[str]) -> None:
    for sample in samples:
        x, y = sample[0], sample[1]
        name = target.location_name(x, y)
        snap = list(target.snap_to(x, y))
        ok = name == sample[2]
        ok_snap = snap == sample[3:5]
        _tally(counts, prefix + "name", ok)
        _tally(counts, prefix + "snap", ok_snap)
        if len(sample) > 5:
            ok_forced = list(target.snap_to(x, y, True)) == sample[5:7]
            _tally(counts, prefix + "forced_snap", ok_forced)
            ok_snap = ok_snap and ok_forced
        if (not ok or not ok_snap) and len(failures) < 10:
            failures.append(f"{prefix}{sample}: got {name!r} {snap}")


def _locate(target, name: str) -> list[int] | None:
    try:
        return list(target.get_location(name))
    except LocationError:
        return None


def check_golden_file(path: Path) -> tuple[Counts, list[str]]:
    """All checks of one golden file: (counts per check, first failures)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    counts: Counts = {}
    failures: list[str] = []
    derived = data["derived"]
    grid = HexGrid.from_attributes(data["xml_grid_attributes"],
                                   data["xml_numbering_attributes"],
                                   tuple(derived["container_size"]))
    got = grid.attribute_strings()
    _tally(counts, "grid_attributes", got == data["grid_attributes"])
    if got != data["grid_attributes"]:
        failures.append(f"grid_attributes {got} vs {data['grid_attributes']}")
    if data["numbering_attributes"] is None:
        _tally(counts, "numbering_attributes", grid.numbering is None)
    else:
        got_n = grid.numbering.attribute_strings() if grid.numbering else None
        _tally(counts, "numbering_attributes", got_n == data["numbering_attributes"])
    _tally(counts, "derived", (grid.dx, grid.dy, [grid.x0, grid.y0], grid.sideways)
           == (derived["dx"], derived["dy"], derived["origin"], derived["sideways"]))
    if "maxRows" in derived:
        _tally(counts, "derived", (grid.max_rows, grid.max_columns)
               == (derived["maxRows"], derived["maxColumns"]))

    zoned = data["board"]["grid_class"].endswith("ZonedGrid")
    lattice = data["lattice"]
    if zoned:
        _check_lattice(counts, "grid_lattice.", grid, lattice, data["grid_lattice"], failures)
        _check_edges(counts, "edge_grid_samples.", grid, data["edge_grid_samples"], failures)
    else:
        board = Board(data["board"]["name"], data["board"]["width"], data["board"]["height"], grid)
        _check_lattice(counts, "lattice.", board, lattice, lattice, failures)
        _check_edges(counts, "edge_samples.", board, data["edge_samples"], failures)

    for hexagon in data["hexes"]:
        centre = _locate(grid, hexagon["name"])
        ok = centre == hexagon["center"]
        _tally(counts, "hexes.center", ok)
        if not ok and len(failures) < 10:
            failures.append(f"hex {hexagon}: got {centre}")
        if centre is None:
            continue
        _tally(counts, "hexes.raw_col_row",
               list(grid.raw_column_row(*centre)) == hexagon["raw_col_row"])
        _tally(counts, "hexes.name_at_center",
               grid.location_name(*centre) == hexagon.get("name_at_center", hexagon["name"]))
        _tally(counts, "hexes.snap_at_center",
               list(grid.snap_to(*centre, True)) == hexagon.get("snap_at_center", centre))

    if zoned:
        meta = data["meta"]
        element = _find_board_element(SHARED / "corpus" / meta["source"], meta["map"],
                                      data["board"]["name"])
        if element is None:
            failures.append(f"board {data['board']['name']!r} not found in {meta['source']}")
            _tally(counts, "board.found", False)
            return counts, failures
        board = board_from_element(element, data["board"]["width"], data["board"]["height"])
        _check_lattice(counts, "board.lattice.", board, lattice, lattice, failures)
        _check_edges(counts, "board.edge_samples.", board, data["edge_samples"], failures)
        for entry in data["board_locations"]:
            point = _locate(board, entry["name"])
            ok = point == entry["location"]
            _tally(counts, "board_locations", ok)
            if not ok and len(failures) < 10:
                failures.append(f"board location {entry}: got {point}")
    return counts, failures


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=rel_id)
def test_golden_hexgrid(path: Path) -> None:
    counts, failures = check_golden_file(path)
    summary = ", ".join(f"{k} {a}/{b}" for k, (a, b) in sorted(counts.items()))
    assert all(a == b for a, b in counts.values()), summary + "\n" + "\n".join(failures)


def test_golden_files_present() -> None:
    if not GOLDEN_FILES:
        pytest.skip("shared golden data not available")
    assert len(GOLDEN_FILES) >= 45


def main() -> int:
    """Print the match counts of every check over all golden files."""
    totals: Counter = Counter()
    matched: Counter = Counter()
    bad = 0
    for path in GOLDEN_FILES:
        counts, failures = check_golden_file(path)
        for check, (a, b) in counts.items():
            matched[check] += a
            totals[check] += b
        if failures:
            bad += 1
            print(path.name, *failures[:3], sep="\n  ")
    for check in sorted(totals):
        print(f"{check:32s} {matched[check]:>8d} / {totals[check]:<8d}")
    print(f"files: {len(GOLDEN_FILES)}, with mismatches: {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
