"""Numbers a damaged file holds where VASSAL wrote a small one.

Numbers longer than Python's ``int()`` reads from text (4,300 digits,
``sys.get_int_max_str_digits``) where a file holds one: VASSAL's Java reads
them as out of range (or, with leading zeros, as the small number they
are); ``int()`` raised ValueError out of the readers (exit 70).  Found by the
game fuzz (``tests/test_fuzz_games.py``): a piece's coordinate of 5,000
digits crashed inspect, replay, audit and report.  And counts as large as
a Java int (2,147,483,647 properties in a piece's state, dice in a summary),
which the readers looped to: replay and inspect hung on one such log."""

from __future__ import annotations

import sys

import pytest

from vmodtool.errors import FormatError
from vmodtool.lint.linter import _java_int_ok
from vmodtool.vassal.buildfile import BuildFile
from vmodtool.vassal.commands import parse_commands
from vmodtool.vassal.grid_common import LocationError, parse_int_attribute
from vmodtool.vassal.grid_numbering import parse_index
from vmodtool.vassal.module import version_tuple
from vmodtool.vassal.pieces import java_int
from vmodtool.vassal.sequence import digits_value

LONG = sys.get_int_max_str_digits() + 700       # past what int() reads
NINES = "9" * LONG
ZEROS_THEN_5 = "0" * LONG + "5"


def test_the_numbers_are_past_python_s_limit() -> None:
    with pytest.raises(ValueError):
        int(NINES)
    with pytest.raises(ValueError):
        int(ZEROS_THEN_5)


@pytest.mark.parametrize(("text", "value"), [
    (NINES, None), ("-" + NINES, None), (ZEROS_THEN_5, 5), ("-" + ZEROS_THEN_5, -5), ("+" + "0" * LONG, 0),
    ("2147483647", 2147483647), ("-2147483648", -2147483648), ("2147483648", None), ("-2147483649", None),
    ("00000000002147483647", 2147483647), ("99999999999", None), ("", None), ("1 ", None),
])
def test_java_int_reads_any_length(text: str, value: int | None) -> None:
    assert java_int(text) == value
    assert _java_int_ok(text) is (value is not None)


@pytest.mark.parametrize(("text", "value"), [
    (NINES, None), (ZEROS_THEN_5, 5), ("-" + ZEROS_THEN_5, -5), ("\u0660" * LONG + "\u0663", 3),
    ("12", 12), ("-" + "0" * LONG, 0),
])
def test_digits_value_reads_any_length(text: str, value: int | None) -> None:
    assert digits_value(text) == value


def test_grid_attributes_and_labels_of_any_length() -> None:
    assert parse_int_attribute("HexGrid", "dx", ZEROS_THEN_5) == 5
    with pytest.raises(FormatError, match="a 32-bit integer"):
        parse_int_attribute("HexGrid", "dx", NINES)
    assert parse_index(ZEROS_THEN_5, "N") == 5
    with pytest.raises(LocationError, match="out of Java's int range"):
        parse_index(NINES, "N")


def test_a_buildfile_s_ids_of_any_length() -> None:
    xml = (f'<VASSAL.build.GameModule name="m" version="1" nextPieceSlotId="{NINES}">'
           f'<VASSAL.build.widget.PieceSlot gpid="{NINES}" entryName="a">+/null/piece;;;a.png;a/\t'
           '</VASSAL.build.widget.PieceSlot>'
           '</VASSAL.build.GameModule>').encode()
    bf = BuildFile.parse(xml, file="buildFile.xml")
    with pytest.raises(FormatError, match="nextPieceSlotId"):
        _ = bf.next_piece_slot_id
    assert bf.max_gpid() is None        # (no id VASSAL wrote)
    fine = BuildFile.parse(xml.replace(NINES.encode(), ZEROS_THEN_5.encode()), file="buildFile.xml")
    assert fine.next_piece_slot_id == 5


def test_a_version_of_any_length() -> None:
    assert version_tuple(f"3.{NINES}")[0] == 3


def test_a_special_dice_face_of_any_length_is_no_result() -> None:
    from vmodtool.vassal.commands import SpecialDiceResults, leaf_commands

    tree = parse_commands(f"begin_save\x1bend_save\x1bLOG\tSHOW_RESULTS\tDice\t{NINES}\t3")
    rolls = [getattr(c, "logged", c) for c in leaf_commands(tree)]
    rolls = [c for c in rolls if isinstance(c, SpecialDiceResults)]
    assert len(rolls) == 1 and rolls[0].results == [3]


# -- counts as large as a damaged file holds: a loop to 2**31 hung replay and inspect --
# (found by the game fuzz: a property count of 2147483647 in a piece's state)

def test_a_property_count_past_the_tokens_reads_the_tokens_there_are() -> None:
    from vmodtool.vassal.pieces import parse_basic_state

    huge = parse_basic_state("Main;1;2;g;2147483647;k;v")
    assert huge.properties == {"k": "v", "": ""}            # every pair past the tokens is ("", "")
    assert huge.properties == parse_basic_state("Main;1;2;g;2;k;v").properties
    assert parse_basic_state("Main;1;2;g;1;k;v").properties == {"k": "v"}
    assert parse_basic_state("Main;1;2;g;2147483647;k").properties == {"k": "", "": ""}


def test_the_replay_s_property_list_and_unique_id_past_the_tokens() -> None:
    from vmodtool.replay.engine import _keep_unique_id
    from vmodtool.replay.state import _props

    assert _props(["m", "1", "2", "g", "2147483647", "k", "v"]) == ["k", "v", "", ""]
    assert _props(["m", "1", "2", "g", "2", "k", "v"]) == ["k", "v", "", ""]
    assert _props(["m", "1", "2", "g", "1", "k", "v", "x"]) == ["k", "v"]
    kept = _keep_unique_id("m;1;2;g;2147483647;UniqueID;u1", "m;3;4;g;0")
    assert "UniqueID;u1" in kept


def test_a_dice_summary_of_two_billion_dice_is_not_a_roll() -> None:
    from vmodtool.checkgame.dice import _MAX_SUMMARY_DICE, _summary_dice

    assert _summary_dice([("5", "1"), ("6", "2")]) == 3
    assert _summary_dice([("5", "2147483647")]) > _MAX_SUMMARY_DICE
    assert _summary_dice([("9" * 5000, "1")]) > _MAX_SUMMARY_DICE


def test_a_board_slot_as_large_as_a_save_gives() -> None:
    # a save's board setup names each board's (column, row): the map frame
    # summed the widths of every slot before it, 2**31 of them for a damaged one
    from vmodtool.vassal.grid_board import Board, BoardPlacement, MapGeometry

    def placed(slots):
        return [BoardPlacement(Board(f"b{c}{r}", 100 + c, 50 + r), c, r) for c, r in slots]
    slots = [(0, 0), (1, 0), (3, 0), (0, 1), (2, 1), (1, 2)]
    geometry = MapGeometry(placed(slots), 5, 7)
    width = {(c, r): 100 + c for c, r in slots}
    height = {(c, r): 50 + r for c, r in slots}
    for p in geometry.placements:               # the sums over the slots before each board
        assert p.origin == (5 + sum(width.get((c, p.row), 0) for c in range(p.column)),
                            7 + sum(height.get((p.column, r), 0) for r in range(p.row)))
    far = MapGeometry(placed([(0, 0), (2_147_483_647, 0), (0, 2_147_483_647)]))
    assert [p.origin for p in far.placements] == [(0, 0), (100, 0), (0, 50)]
