"""A river typed by its banks (the hexes on each side of it, in any order) is
the river typed as hexside pairs and as a path; a bank hex with no side on
the river, or on both banks, is an error at that hex; a river of pieces that
do not meet is a warning at its entry's file:line."""

from __future__ import annotations

from pathlib import Path

from tests.scenario.test_loader import BASE, STARTER_RIVER, line_of, write
from vmodtool.scenario import check_scenario, load_scenario

REPO = Path(__file__).resolve().parents[2]
BANKS = '      banks: [["0401", "0402"], ["0503", "0501", "0502"]]\n'


def _sides(scenario):
    return sorted((h.type, h.a, h.b) for h in scenario.map.hexsides)


def test_a_river_typed_by_its_banks_is_the_river_typed_as_pairs_and_as_a_path(tmp_path):
    assert STARTER_RIVER in BASE
    as_pairs = load_scenario(write(tmp_path, BASE, "pairs.yaml"))
    as_banks = load_scenario(write(tmp_path, BASE.replace(STARTER_RIVER, BANKS), "banks.yaml"))
    as_path = load_scenario(write(tmp_path, BASE.replace(
        STARTER_RIVER, '      path: ["0501", "0401", "0502", "0402", "0503"]\n'), "path.yaml"))
    assert _sides(as_banks) == _sides(as_pairs) == _sides(as_path)
    assert len([h for h in as_pairs.map.hexsides if h.type == "river"]) == 4
    assert not [p for p in check_scenario(tmp_path / "banks.yaml")[1] if p.severity in ("warning", "error")]


def test_a_bank_hex_that_does_not_touch_the_river_is_an_error_at_that_hex(tmp_path):
    text = BASE.replace(STARTER_RIVER, '      banks: [["0401", "0402"],\n'
                                       '              ["0501", "0502", "0503", "0505"]]\n')
    problems = check_scenario(write(tmp_path, text))[1]
    errors = [p for p in problems if p.severity == "error"]
    assert len(errors) == 1, errors
    assert errors[0].line == line_of(text, '"0505"')
    assert "hex 0505 shares no side with a hex of the other bank" in errors[0].message


def test_a_hex_on_both_banks_is_an_error(tmp_path):
    text = BASE.replace(STARTER_RIVER, '      banks: [["0401", "0402"], ["0501", "0502", "0402"]]\n')
    errors = [p for p in check_scenario(write(tmp_path, text))[1] if p.severity == "error"]
    assert len(errors) == 1 and "hex 0402 is on both banks" in errors[0].message


def test_a_river_by_banks_in_pieces_is_a_warning_at_its_file_and_line(tmp_path):
    text = BASE.replace(STARTER_RIVER, '      banks: [["0401", "0403"], ["0501", "0503"]]\n')
    path = write(tmp_path, text)
    problems = [p for p in check_scenario(path)[1] if p.severity in ("warning", "error")]
    assert len(problems) == 1 and problems[0].severity == "warning", problems
    assert problems[0].line == line_of(text, "- type: river")
    assert Path(problems[0].file).name == path.name
    assert "River is in 2 pieces that do not meet: 0401|0501; 0403|0503" in problems[0].message


def test_banks_that_are_not_two_lists_are_reported_by_the_schema(tmp_path):
    text = BASE.replace(STARTER_RIVER, '      banks: [["0401", "0402"]]\n')
    problems = [p for p in check_scenario(write(tmp_path, text))[1] if p.severity == "error"]
    assert problems and any("banks" in ".".join(map(str, p.path)) or "banks" in p.message for p in problems)


#: the documented river as hexside pairs: the sides between the tinted hexes
DOC_PAIRS = [("0102", "0103"), ("0103", "0202"), ("0202", "0203"), ("0203", "0303"), ("0303", "0304"),
             ("0304", "0403"), ("0402", "0503"), ("0403", "0404"), ("0403", "0503"), ("0403", "0504"),
             ("0502", "0503"), ("0502", "0602"), ("0601", "0602"), ("0602", "0702"), ("0702", "0703")]


def test_the_documented_river_by_its_banks_is_the_river_by_its_pairs():
    """docs/boards/river-banks.yaml, the river of the picture in the board
    guide: it wraps three sides of 0403, which a path of hexes can type only
    by going back over a hexside."""
    path = REPO / "docs" / "boards" / "river-banks.yaml"
    scenario = load_scenario(path)
    assert _sides(scenario) == [("river", a, b) for a, b in DOC_PAIRS]
    assert not [p for p in check_scenario(path)[1] if p.severity in ("warning", "error")]
