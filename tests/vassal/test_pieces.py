"""PieceDef parsing/encoding, basic and stack states, bad input."""

from __future__ import annotations

import pytest

from vmodtool.errors import FormatError
from vmodtool.vassal.pieces import BasicPieceState, PieceDef, StackState, Trait, parse_basic_state, parse_stack_state

# docs/vassal-format.md §3.5 worked example
EMB = ("emb2;Flip;128;F;;128;;;128;;;;1;false;0;0;us-1inf-back.png;+ (reduced);true;Step;;;"
       "false;;1;1;false;70,130;;;Flip side;1.0;;true")
SLOT = (f"+/null/{EMB}\tmark;MovementFactor\\\tpiece;;;us-1inf-front.png;1st Inf Div"
        "/-1\t4\\\tnull;0;0;12;0")


def test_parse_worked_example():
    p = PieceDef.parse(SLOT)
    assert p.id is None
    assert [t.prefix for t in p.traits] == ["emb2;", "mark;", "piece;"]
    assert [t.java_class for t in p.traits] == [
        "VASSAL.counters.Embellishment", "VASSAL.counters.Marker", "VASSAL.counters.BasicPiece"]
    assert p.traits[0].type == EMB and p.traits[0].state == "-1"
    assert p.traits[1].type == "mark;MovementFactor" and p.traits[1].state == "4"
    assert p.basic.state == "null;0;0;12;0" and p.basic.innermost
    assert p.name == "1st Inf Div"
    assert p.encode() == SLOT == p.encode_computed()
    assert p.type.count("\t") == 2


def test_flipped_name_and_properties():
    p = PieceDef.parse(SLOT.replace("/-1\t", "/1\t"))
    assert p.name == "1st Inf Div (reduced)"
    props = p.properties()
    assert props["MovementFactor"] == "4"
    assert props["Step_Active"] == "true" and props["Step_Level"] == "1"
    assert props["Step_Name"] == "(reduced)"
    assert props["BasicName"] == "1st Inf Div"
    assert props["PieceName"] == "1st Inf Div (reduced)"
    assert p.get_property("Nope") is None


def test_addpiece_in_save_with_id_and_map():
    text = SLOT.replace("+/null/", "+/1712345678901/").replace(
        "null;0;0;12;0", "Main Map;261;178;12;1;UniqueID;1712345678901")
    p = PieceDef.parse(text)
    assert p.id == "1712345678901"
    st = p.basic_state()
    assert (st.map, st.x, st.y, st.gpid) == ("Main Map", 261, 178, "12")
    assert st.properties == {"UniqueID": "1712345678901"}
    assert st.encode() == p.basic.state
    assert p.get_property("CurrentMap") == "Main Map"
    assert p.encode() == text


def test_untouched_keeps_raw_even_if_not_vassal_encoding():
    # an escaped slash VASSAL would not write is kept as given
    text = "+/null/piece;;;a.png;A\\/B/null;0;0;;0"
    p = PieceDef.parse(text)
    assert p.basic.type == "piece;;;a.png;A/B"
    assert p.encode() == text
    assert p.name == "A/B"


def test_from_traits_and_modification():
    p = PieceDef.parse(SLOT)
    q = p.replace_trait(1, Trait("mark;MovementFactor", "6"))
    assert not q.is_untouched
    assert q.encode().endswith("/-1\t6\\\tnull;0;0;12;0")
    assert q.get_property("MovementFactor") == "6"
    assert PieceDef.parse(q.encode()) == q
    assert p.with_id("42").encode().startswith("+/42/emb2;")


def test_unknown_prefix_is_dummy_marker_kept_raw():
    text = "+/null/custom;x;y\tpiece;;;;N/st\tnull;0;0;;0"
    p = PieceDef.parse(text)
    assert p.traits[0].java_class == "VASSAL.counters.Marker"
    assert not p.traits[0].known
    assert p.traits[0].view().encode_type() == "custom;x;y"
    assert p.encode() == text and p.name == "N"


def test_stack_and_deck_definitions():
    p = PieceDef.parse("+/123/stack/Main Map;100;200;a1;a2;a3;@@2")
    assert p.basic.java_class == "VASSAL.counters.Stack"
    s = p.stack_state()
    assert s == StackState("Main Map", 100, 200, ["a1", "a2", "a3"], 2)
    assert s.encode() == "Main Map;100;200;a1;a2;a3;@@2"
    assert parse_stack_state("Main Map;1;2;x") == StackState("Main Map", 1, 2, ["x"], None)
    assert parse_stack_state("null;x;y") == StackState(None, 0, 0, ["x", "y"], None)
    d = PieceDef.parse("+/9/deck;Deck;true/null;0;0")
    assert d.basic.java_class == "VASSAL.counters.Deck"
    assert d.name == ""


def test_basic_state_forms():
    assert parse_basic_state("null;0;0;12") == BasicPieceState(None, 0, 0, "12", {}, False)
    assert parse_basic_state("null;0;0;12").encode() == "null;0;0;12"
    st = parse_basic_state("Map;5;-6;7;2;OldX;1;OldY;2")
    assert st.properties == {"OldX": "1", "OldY": "2"} and st.y == -6
    assert st.encode() == "Map;5;-6;7;2;OldX;1;OldY;2"


@pytest.mark.parametrize("text, words", [
    ("piece;;;;/null;0;0;;0", "starts with '+/'"),
    ("+/null", "no type"),
    ("+/null/piece;;;;", "no state"),
    ("+/null/mark;A\tdelete;Delete;68,130;/1\t", "not a basic piece"),
    ("+/null/mark;A\tpiece;;;;/1", "no state for this trait"),
])
def test_bad_input(text, words):
    with pytest.raises(FormatError) as err:
        PieceDef.parse(text)
    assert words in str(err.value)


def test_missing_state_level_place():
    text = "+/null/mark;A\temb2;;\\\tpiece;;;;/1"
    with pytest.raises(FormatError) as err:
        PieceDef.parse(text, place="PieceSlot 3")
    assert "trait 2 (emb2;)" in str(err.value) and "PieceSlot 3" in str(err.value)


def test_bad_coordinates_and_short_basic():
    with pytest.raises(FormatError, match="x is not an integer"):
        PieceDef.parse("+/null/piece;;;;N/Map;1x;2;;0").basic_state()
    with pytest.raises(FormatError, match="stack state y"):
        parse_stack_state("Map;1;z;a")
    with pytest.raises(FormatError, match="BasicPiece type"):
        _ = PieceDef.parse("+/null/piece;;/null;0;0;;0").name
    with pytest.raises(FormatError):
        PieceDef.from_traits([Trait("mark;A", "1")])


def test_find_by_prefix_builds_no_view_when_no_trait_matches():
    """A saved piece's chain is long (its prototypes expanded): asking it
    for a trait it has not (``prototype;``) reads the traits' prefixes, not
    a typed view of each; a match is the same view :meth:`views` holds."""
    basic = Trait("piece;;;i.png;Corps", "")
    piece = PieceDef.from_traits([Trait("mark;Side", "AP"), Trait("prototype;Unit", ""), basic], "p1")
    plain = PieceDef.from_traits([Trait("mark;Side", "AP"), basic], "p2")
    assert plain.find("prototype;") == [] and plain._views is None
    found = piece.find("prototype;")
    assert [v.trait.prefix for v in found] == ["prototype;"] and found[0] is piece.views()[1]
    assert [v.trait.prefix for v in piece.find("UsePrototype")] == ["prototype;"]
