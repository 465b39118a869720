"""parse_xml on hostile and broken input: nothing is resolved, loaded or
expanded; every problem is a FormatError with a place."""

from __future__ import annotations

import pytest

from vmodtool.errors import FormatError, UnsafeFileError
from vmodtool.vassal import safexml
from vmodtool.vassal.buildfile import BuildFile
from vmodtool.vassal.safexml import parse_xml

XXE = (b'<?xml version="1.0"?>\n'
       b'<!DOCTYPE VASSAL.build.GameModule [<!ENTITY secret SYSTEM "file:///etc/passwd">]>\n'
       b'<VASSAL.build.GameModule name="&secret;">&secret;</VASSAL.build.GameModule>')

BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<lolz>&lol9;</lolz>"""


def test_external_entity_is_refused_and_never_read() -> None:
    with pytest.raises(UnsafeFileError) as info:
        parse_xml(XXE, file="buildFile.xml")
    text = str(info.value)
    assert "root:" not in text and "/bin/" not in text
    assert "buildFile.xml" in text
    with pytest.raises(UnsafeFileError) as info:
        BuildFile.parse(XXE)
    assert "root:" not in str(info.value)


def test_parameter_entity_is_refused() -> None:
    data = (b'<!DOCTYPE a [<!ENTITY % p SYSTEM "http://example.invalid/x.dtd"> %p;]>'
            b"<a/>")
    with pytest.raises(UnsafeFileError):
        parse_xml(data)


def test_billion_laughs_is_refused_before_any_expansion(monkeypatch: pytest.MonkeyPatch) -> None:
    # the bomb never reaches the XML parser, so nothing is expanded whatever the
    # machine (its speed is measured in benchmarks/bench_buildfile.py)
    def no_parser() -> None:
        raise AssertionError("the parser was asked to read an entity bomb")

    monkeypatch.setattr(safexml, "_new_parser", no_parser)
    with pytest.raises(UnsafeFileError) as info:
        parse_xml(BILLION_LAUGHS, file="bomb.xml")
    assert info.value.place == "line 2"
    assert "declares entities" in info.value.message
    assert str(info.value).startswith("bomb.xml: line 2: ")


def test_plain_doctype_is_accepted() -> None:
    root = parse_xml(b'<?xml version="1.0"?>\n<!DOCTYPE a>\n<a>x</a>')
    assert root.text == "x"


def test_external_dtd_is_refused_unread() -> None:
    for doctype in (b'<!DOCTYPE a SYSTEM "file:///etc/passwd">',
                    b'<!DOCTYPE a PUBLIC "-//x//y" "http://example.invalid/a.dtd">'):
        with pytest.raises(UnsafeFileError) as info:
            parse_xml(b'<?xml version="1.0"?>\n' + doctype + b"\n<a>x</a>")
        assert "passwd" not in info.value.message
        assert info.value.place == "line 2"


def test_doctype_inside_comment_is_not_a_doctype() -> None:
    root = parse_xml(b"<!-- <!DOCTYPE a [<!ENTITY x 'y'>]> --><a>ok</a>")
    assert root.text == "ok"


def test_truncated_xml_names_file_line_and_expectation() -> None:
    data = b'<?xml version="1.0"?>\n<a>\n  <b c="1">\n'
    with pytest.raises(FormatError) as info:
        parse_xml(data, file="buildFile.xml")
    err = info.value
    assert not isinstance(err, UnsafeFileError)
    assert err.file == "buildFile.xml"
    assert err.place is not None and err.place.startswith("line 4")
    assert "Premature end of data" in err.message


def test_mismatched_tag_message() -> None:
    with pytest.raises(FormatError) as info:
        parse_xml(b"<a>\n<b>\n</a>")
    assert info.value.place == "line 3, column 5"
    assert "mismatch" in info.value.message


def test_bad_attribute_says_what_was_expected() -> None:
    with pytest.raises(FormatError) as info:
        parse_xml(b"<a>\n  <b c=1/></a>")
    assert "expected" in info.value.message
    assert info.value.place.startswith("line 2")


def test_invalid_utf8_names_byte_offset() -> None:
    data = b'<?xml version="1.0" encoding="UTF-8"?>\n<a>caf\xe9</a>'
    with pytest.raises(FormatError) as info:
        parse_xml(data, file="x.xml")
    assert info.value.place is not None
    offset = data.index(b"\xe9")
    assert f"byte {offset}" in info.value.place
    assert "line 2" in info.value.place
    assert "UTF-8" in info.value.message


def test_declared_latin1_is_accepted() -> None:
    root = parse_xml('<?xml version="1.0" encoding="ISO-8859-1"?><a>café</a>'.encode("latin-1"))
    assert root.text == "café"


def test_empty_and_garbage() -> None:
    for data in (b"", b"not xml at all", b"<a></b>", b"\x00\x01\x02"):
        with pytest.raises(FormatError):
            parse_xml(data)


def test_excessive_depth_is_refused() -> None:
    with pytest.raises(FormatError) as info:
        parse_xml(b"<a>" * 5000 + b"</a>" * 5000)
    assert "depth" in info.value.message.lower()


def test_size_limit() -> None:
    with pytest.raises(UnsafeFileError):
        parse_xml(b"<a>" + b"x" * 2000 + b"</a>", max_bytes=1000)


def test_no_lxml_exception_escapes() -> None:
    for data in (b"<a>&undefined;</a>", b'<?xml version="1.0" encoding="no-such"?><a/>',
                 b"<a b='1' b='2'/>", b"<a>\x01</a>"):
        with pytest.raises(FormatError):
            parse_xml(data)


def test_cdata_and_comments_survive() -> None:
    root = parse_xml(b"<a><!--c--><![CDATA[x<y]]></a>")
    assert root.text is None or "x<y" in "".join(root.itertext())
