"""The one-pass reader of nested TAB chains gives what VASSAL's
level-by-level decoding gives (kept as the reference: ``_chain_literal``),
on generated text of every shape:
plain nestings, quoted and backslash-ended tokens, TABs inside tokens, and
text no encoder would write (a third token at some level, stray quotes)."""

from __future__ import annotations

import random

import pytest

from vmodtool.errors import FormatError
from vmodtool.vassal.pieces import (
    PieceDef,
    _chain_linear,
    _chain_literal,
    _chain_split,
    _nest,
    basic_state_written,
    chain_rest,
    split_chain,
    split_chain_levels,
    written_fields,
)


def _texts(seed: int, count: int) -> list[str]:
    rnd = random.Random(seed)
    out = []
    for n in range(count):
        if n % 3 == 0:      # what an encoder writes, tokens of any content
            out.append(_nest([''.join(rnd.choice("ab\t\\'") for _ in range(rnd.randint(0, 5)))
                              for _ in range(rnd.randint(1, 7))]))
        else:               # anything
            out.append(''.join(rnd.choice("a\t\\'" if n % 3 == 1 else "a\t\\")
                               for _ in range(rnd.randint(0, 16))))
    return out


@pytest.mark.parametrize("seed", range(4))
def test_chain_reader_agrees_with_level_by_level_decoding(seed: int) -> None:
    linear = splits = 0
    for text in _texts(seed, 6000):
        for levels in (0, 1, 2, 3, 5, len(text) + 1):
            expected = _chain_literal(text, levels)
            assert split_chain_levels(text, levels) == expected, (text, levels)
            split = _chain_split(text, levels)     # the split reader, where it applies
            assert split is None or split == expected, (text, levels)
            if split is not None:
                splits += 1
            assert chain_rest(text, levels) == (len(expected[0]), expected[1]), (text, levels)
            if _chain_linear(text, levels) is not None:
                linear += 1
        assert split_chain(text) == _chain_literal(text, len(text) + 1)[0]
    assert linear > 20000          # the one-pass reader took most of them
    assert splits > 15000          # and most of those were read from the split


def test_deep_chain_round_trips() -> None:
    tokens = [f"emb2;Level {i};\\t'{i}'" if i % 7 == 3 else f"mark;L{i}" for i in range(150)] + ["piece;;;x.png;Name"]
    text = _nest(tokens)
    assert split_chain(text) == tokens
    assert split_chain_levels(text, 150) == (tokens[:150], tokens[150])
    assert split_chain_levels(text, 3) == (tokens[:3], _nest(tokens[3:]))


def test_piece_parse_reports_the_missing_state_level() -> None:
    text = "+/7/" + _nest(["mark;a", "mark;b", "piece;;;x.png;N"]).replace("/", "\\/") + "/" + "s1\ts2"
    with pytest.raises(FormatError, match=r"state has 2 level\(s\) for 3 trait\(s\)"):
        PieceDef.parse(text)
    ok = PieceDef.parse("+/7/" + _nest(["mark;a", "piece;;;x.png;N"]) + "/" + _nest(["s1", "null;0;0"]))
    assert [t.state for t in ok.traits] == ["s1", "null;0;0"]


@pytest.mark.parametrize("text", [
    "+/7/" + _nest(["mark;a", "piece;;;x.png;N"]) + "/" + _nest(["s1", "Main Map;10;20;g1;0"]),
    "+/7/" + _nest(["mark;a", "piece;;;x.png;N"]) + "/s1",                  # a level short
    "+/7/" + _nest(["mark;a", "stack"]) + "/" + _nest(["s1", "Map;1;2"]),  # not a BasicPiece
    "+/7/" + _nest(["mark;a", "emb2;x"]) + "/" + _nest(["s1", "s2"]),     # no basic piece at all
    "+/7/piece;;;x.png;N",                                                  # no state
])
def test_basic_state_of_is_parse_then_basic_state(text: str) -> None:
    try:
        expected = PieceDef.parse(text).basic_state()
    except FormatError as error:
        with pytest.raises(FormatError) as raised:
            PieceDef.basic_state_of(text)
        assert str(raised.value) == str(error)
    else:
        assert PieceDef.basic_state_of(text) == expected
        assert expected.map == "Main Map"


def _piece_texts(seed: int, count: int) -> list[str]:
    """``+/id/type/state`` with type chains of every shape (TABs inside
    tokens, quotes, backslash-ended tokens, short states, escaped ``/``)."""
    rnd = random.Random(seed)
    alphabet = "ab;\t\\'/"
    out = []
    for _ in range(count):
        decorators = [rnd.choice(["mark;", "emb2;", "placemark;"]) + "".join(
            rnd.choice(alphabet) for _ in range(rnd.randint(0, 6))) for _ in range(rnd.randint(0, 5))]
        basic = rnd.choice(["piece;;;x.png;N", "stack", "deck;x", "emb2;x", "piece;"])
        type_ = _nest(decorators + [basic])
        states = ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 4)))
                  for _ in range(len(decorators) + rnd.choice([0, 0, 0, 1, -1]))]
        states.append(rnd.choice(["Main Map;10;20;g1;0", "null;0;0;g;1;k;v", "m;x;1", "a;1;2;3;1;k"]))
        state = _nest(states)
        def esc(t: str) -> str:
            return t.replace("/", "\\/")
        out.append(f"+/{rnd.randint(0, 9)}/{esc(type_)}/{esc(state)}")
    return out


@pytest.mark.parametrize("seed", range(3))
def test_basic_state_of_agrees_with_parse_on_every_shape(seed: int) -> None:
    from vmodtool.vassal.commands import AddPiece
    from vmodtool.vassal.sequence import decode_sequence

    outcomes = set()
    written_read = 0
    for text in _piece_texts(seed, 3000):
        fields = AddPiece(text).fields
        assert fields == decode_sequence(text[2:], "/"), text
        written = written_fields(text)
        quick = None
        if written is not None:     # the fields as written: the same state, the same kind of type
            assert written[1] == fields[2], text
            assert (written[0] == "stack") == (fields[1] == "stack"), text
            assert written[0].startswith("deck;") == fields[1].startswith("deck;"), text
            quick = basic_state_written(*written)
        try:
            expected = PieceDef.parse(text).basic_state()
        except FormatError as error:
            assert quick is None, text
            for given in (None, fields):
                with pytest.raises(FormatError) as raised:
                    PieceDef.basic_state_of(text, fields=given)
                assert str(raised.value) == str(error), text
            outcomes.add(str(error).split(":")[0][:30])
        else:
            assert PieceDef.basic_state_of(text) == expected, text
            assert PieceDef.basic_state_of(text, fields=fields) == expected, text
            assert quick is None or quick == expected, text
            written_read += quick is not None
            outcomes.add("ok")
    assert "ok" in outcomes and len(outcomes) >= 4, outcomes      # states read and each error met
    assert written_read > 100                                      # most read from the fields as written


@pytest.mark.parametrize("text", [
    "+/7/mark;a/b\tpiece;;;x.png;N/s1\tMain Map;1;2;g;0",       # a '/' not escaped: four fields
    "+/7/'mark;a\tpiece;;;x.png;N'/s1\tMain Map;1;2;g;0",       # a quoted type
    "+/7/mark;a\tpiece;;;x.png;N/'s1\tMain Map;1;2;g;0'",       # a quoted state
    "+/7/mark\\/a\tpiece;;;x\\/y.png;N/s1\tMain Map;1;2;g;0",   # escaped '/' in the type only
    "+/7/mark;a\t\\'piece;;;x.png;N/s1\tMain Map;1;2;g;0",
])
def test_fields_as_written_decide_only_what_decoding_would(text: str) -> None:
    from vmodtool.vassal.commands import AddPiece

    fields = AddPiece(text).fields
    written = written_fields(text)
    quick = basic_state_written(*written) if written is not None else None
    try:
        expected = PieceDef.basic_state_of(text, fields=fields)
    except FormatError:
        assert quick is None
    else:
        assert quick is None or quick == expected
    if len(fields) != 3:
        assert quick is None


@pytest.mark.parametrize("text", ["\t" * 200_000 + "piece;", "a\\\t" * 50_000, "\\" * 100_000 + "\t" * 1000])
def test_backslash_runs_made_stay_linear_in_the_text(text: str) -> None:
    # a run of k backslashes per level: made up to the deepest level the text
    # can reach (k levels need k(k-1)/2 of its characters), never one per TAB
    import tracemalloc

    from vmodtool.vassal.pieces import _type_shape

    tracemalloc.start()
    try:
        split_chain(text)
        _type_shape(text)
        chain_rest(text, 5000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 40 * len(text) + 4 * 1024 * 1024, peak
