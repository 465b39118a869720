"""SequenceEncoder/Decoder: VASSAL's exact escaping (docs/vassal-format.md §3.1)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vmodtool.vassal.sequence import (
    SequenceDecoder,
    SequenceEncoder,
    check_token,
    decode_sequence,
    encode_sequence,
    java_double,
)


@pytest.mark.parametrize("tokens, delim, expected", [
    (["a", ""], ";", "a;"),
    (["", "b"], ";", ";b"),
    (["x,y", "z"], ",", "x\\,y,z"),
    (["\\x"], ";", "'\\x'"),
    (["'q'"], ";", "''q''"),
    (["'"], ";", "'''"),
    ([""], ";", ""),
    ([], ";", None),
])
def test_encode_examples_from_the_spec(tokens, delim, expected):
    assert encode_sequence(tokens, delim) == expected


def test_nesting_grows_linearly():
    inner = encode_sequence(["x,y", "z"], ",")
    assert encode_sequence(["A", inner], ",") == "A,x\\\\,y\\,z"
    assert decode_sequence(decode_sequence("A,x\\\\,y\\,z", ",")[1], ",") == ["x,y", "z"]


@pytest.mark.parametrize("text, expected", [
    ("a;b;", ["a", "b", ""]),
    ("", [""]),
    ("a\\;b", ["a;b"]),
    ("a\\\\;;b", ["a\\;", "b"]),
    ("'x';y", ["x", "y"]),
    ("'", ["'"]),
    ("''", [""]),
])
def test_decode_examples(text, expected):
    assert decode_sequence(text, ";") == expected


def test_none_has_no_tokens():
    assert decode_sequence(None, ";") == []


def test_trailing_backslash_hazard_is_copied_not_fixed():
    # docs §3.1.4: a token ending in a backslash swallows the next delimiter
    assert encode_sequence(["a\\", "b"], ";") == "a\\;b"
    assert decode_sequence("a\\;b", ";") == ["a;b"]
    with pytest.raises(ValueError):
        check_token("a\\")


def test_primitives_are_written_like_java():
    enc = SequenceEncoder(";").append(12).append(-1).append(1.0).append(True).append(5e-5)
    assert enc.value == "12;-1;1.0;true;5.0E-5"
    assert java_double(93.90000000000086) == "93.90000000000086"
    assert java_double(1e7) == "1.0E7"
    assert java_double(64.0) == "64.0"


def test_decoder_defaults_for_missing_fields():
    d = SequenceDecoder("a;;3;x", ";")
    assert d.next() == "a"
    assert d.next("dflt") == ""
    assert d.next_int(0) == 3
    assert d.next_int(7) == 7  # not an int -> default
    assert d.next("gone") == "gone"
    assert d.next_bool(True) is True


_delims = st.sampled_from([";", ",", "\t", "/", "\x1b", ":", "|"])
_text = st.text(alphabet=st.sampled_from(list("ab;,\t/\x1b:|\\' ж")), max_size=12)


def _safe(token: str) -> bool:
    return not token.endswith("\\")


@settings(max_examples=400, deadline=None)
@given(st.lists(_text.filter(_safe), max_size=6), _delims)
def test_roundtrip_flat(tokens, delim):
    encoded = encode_sequence(tokens, delim)
    assert decode_sequence(encoded, delim) == tokens


_nested = st.recursive(
    _text.filter(_safe),
    lambda children: st.lists(children, min_size=1, max_size=4),
    max_leaves=20,
)


def _encode_tree(node, delims):
    if isinstance(node, str):
        return node
    return encode_sequence([_encode_tree(c, delims[1:] or delims) for c in node], delims[0]) or ""


def _decode_tree(text, shape, delims):
    if isinstance(shape, str):
        return text
    tokens = decode_sequence(text, delims[0])
    return [_decode_tree(t, s, delims[1:] or delims) for t, s in zip(tokens, shape, strict=False)]


@settings(max_examples=300, deadline=None)
@given(st.lists(_nested, min_size=1, max_size=4), st.lists(_delims, min_size=1, max_size=3))
def test_roundtrip_nested(tree, delims):
    # decode(encode(x)) == x for nested token lists, with backslashes, quotes,
    # delimiters and empty strings (tokens never end with a backslash, the
    # documented hazard)
    encoded = _encode_tree(tree, delims)
    assert _decode_tree(encoded, tree, delims) == tree
