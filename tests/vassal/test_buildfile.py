"""BuildFile on small hand-made files: roots, VASSAL's getText, helpers,
byte-preserving edits, fresh files in VASSAL's style."""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from vmodtool.errors import FormatError, UnsafeFileError
from vmodtool.vassal.buildfile import BuildFile, java_trim

HEADER = b'<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n'

SAMPLE = HEADER + b"""<VASSAL.build.GameModule VassalVersion="3.7.0" name="Test" nextPieceSlotId="12" version="1.0">
    <VASSAL.build.module.BasicCommandEncoder/>
    <VASSAL.build.module.Map mapName="Main Map">
        <VASSAL.build.module.map.BoardPicker>
            <VASSAL.build.module.map.boardPicker.Board image="map.png" name="Main" width="800" height="600">
                <VASSAL.build.module.map.boardPicker.board.HexGrid dx="64.95" dy="75.0"/>
            </VASSAL.build.module.map.boardPicker.Board>
        </VASSAL.build.module.map.BoardPicker>
        <VASSAL.build.module.map.SetupStack name="s">
            <VASSAL.build.widget.PieceSlot entryName="A" gpid="3" height="64" width="64">+/null/piece;;;a.png;A/\tnull;0;0;3;0</VASSAL.build.widget.PieceSlot>
        </VASSAL.build.module.map.SetupStack>
    </VASSAL.build.module.Map>
    <VASSAL.build.module.PrototypesContainer>
        <VASSAL.build.module.PrototypeDefinition name="Unit">  +/null/prototype;X&#9;piece;;;;/&#9;null;0;0;;0  </VASSAL.build.module.PrototypeDefinition>
        <VASSAL.build.module.folder.PrototypeFolder name="f">
            <VASSAL.build.module.PrototypeDefinition name='Unit' description="later wins">+/null/piece;;;;B/null;0;0;;0</VASSAL.build.module.PrototypeDefinition>
        </VASSAL.build.module.folder.PrototypeFolder>
    </VASSAL.build.module.PrototypesContainer>
    <!-- a comment -->
    <VASSAL.build.module.PieceWindow name="Counters">
        <VASSAL.build.widget.CardSlot entryName="C" gpid="ext:40">+/null/piece;;;;C/null;0;0;;0</VASSAL.build.widget.CardSlot>
    </VASSAL.build.module.PieceWindow>
</VASSAL.build.GameModule>
"""  # noqa: E501  (the piece definitions are one line each, as in real buildFiles)


def _parse(data: bytes = SAMPLE) -> BuildFile:
    return BuildFile.parse(data, file="buildFile.xml")


def test_untouched_is_identical() -> None:
    assert _parse().to_bytes() == SAMPLE


@pytest.mark.parametrize("tag, legacy, extension", [
    ("VASSAL.build.GameModule", False, False),
    ("VASSAL.launch.BasicModule", True, False),
    ("VASSAL.build.module.ModuleExtension", False, True),
])
def test_root_kinds(tag: str, legacy: bool, extension: bool) -> None:
    data = f'<{tag} vassalVersion="3.7.1" version="2"><x/></{tag}>'.encode()
    buildfile = BuildFile.parse(data)
    assert buildfile.root_tag == tag
    assert buildfile.is_legacy_root is legacy
    assert buildfile.is_extension is extension
    assert buildfile.vassal_version == "3.7.1"
    assert buildfile.to_bytes() == data


def test_wrong_root_is_a_format_error() -> None:
    with pytest.raises(FormatError) as info:
        BuildFile.parse(b"<data version='1'/>", file="buildFile.xml")
    assert "VASSAL.build.GameModule" in str(info.value)
    assert "buildFile.xml" in str(info.value)


def test_bad_input() -> None:
    with pytest.raises(FormatError) as info:
        BuildFile.parse(SAMPLE[:500], file="buildFile.xml")
    assert info.value.place.startswith("line ")
    with pytest.raises(FormatError) as info:
        BuildFile.parse(SAMPLE.replace(b'name="Test"', b'name="T\xffst"'))
    assert "byte " in info.value.place
    with pytest.raises(UnsafeFileError):
        BuildFile.parse(b'<!DOCTYPE x [<!ENTITY e "e">]><VASSAL.build.GameModule/>')
    with pytest.raises(FormatError):
        BuildFile.read(Path("/nonexistent/buildFile.xml"))


def test_module_facts() -> None:
    buildfile = _parse()
    assert buildfile.name == "Test"
    assert buildfile.version == "1.0"
    assert buildfile.vassal_version == "3.7.0"
    assert buildfile.next_piece_slot_id == 12
    assert buildfile.max_gpid() == 40
    buildfile.root.set("nextPieceSlotId", "abc")
    with pytest.raises(FormatError):
        _ = buildfile.next_piece_slot_id
    del buildfile.root.attrib["nextPieceSlotId"]
    assert buildfile.next_piece_slot_id is None


def test_helpers() -> None:
    buildfile = _parse()
    assert [e.get("mapName") for e in buildfile.components("Map")] == ["Main Map"]
    assert buildfile.components("VASSAL.build.module.Map")[0].get("mapName") == "Main Map"
    slots = buildfile.piece_slots()
    assert [(s.kind, s.entry_name, s.gpid) for s in slots] == [
        ("PieceSlot", "A", "3"), ("CardSlot", "C", "ext:40")]
    assert slots[0].definition == "+/null/piece;;;a.png;A/\tnull;0;0;3;0"
    assert buildfile.prototypes() == {"Unit": "+/null/piece;;;;B/null;0;0;;0"}
    (board,) = buildfile.boards()
    assert (board.name, board.image, board.width, board.height) == ("Main", "map.png", 800, 600)
    assert board.grid_kind == "HexGrid" and board.grid.get("dx") == "64.95"
    (map_entry,) = buildfile.maps()
    assert map_entry.name == "Main Map" and map_entry.boards == (board,)
    assert buildfile.line_of(slots[0].element) == 11
    assert buildfile.original_span(etree.Element("x")) is None


def test_text_is_builder_gettext() -> None:
    buildfile = _parse()
    first = buildfile.components("PrototypeDefinition")[0]
    # character references are text; the result is Java-trimmed
    assert buildfile.text_of(first) == "+/null/prototype;X\tpiece;;;;/\tnull;0;0;;0"
    data = (b"<VASSAL.build.GameModule><VASSAL.build.widget.PieceSlot>\n  +/a"
            b"<![CDATA[ignored by VASSAL]]>b&amp;c<!--x-->d\r\n  </VASSAL.build.widget.PieceSlot>"
            b"</VASSAL.build.GameModule>")
    cdata = BuildFile.parse(data)
    assert cdata.piece_slots()[0].definition == "+/ab&cd"
    assert java_trim("\x00\x1f a \x01") == "a"


def test_attribute_edit_changes_only_that_attribute() -> None:
    buildfile = _parse()
    definition = buildfile.components("PrototypeDefinition")[1]
    definition.set("description", 'x "q" & <t>\t')
    out = buildfile.to_bytes()
    assert out == SAMPLE.replace(b"description=\"later wins\"",
                                 b'description="x &quot;q&quot; &amp; &lt;t&gt;&#9;"')
    definition.set("name", "It's")  # single quotes are kept
    assert b"name='It&apos;s'" in buildfile.to_bytes()
    assert BuildFile.parse(buildfile.to_bytes()).components(
        "PrototypeDefinition")[1].get("name") == "It's"


def test_attribute_add_and_remove() -> None:
    buildfile = _parse()
    slot = buildfile.piece_slots()[0].element
    slot.set("extra", "1")
    del slot.attrib["height"]
    out = buildfile.to_bytes()
    assert out == SAMPLE.replace(b'gpid="3" height="64" width="64">',
                                 b'gpid="3" width="64" extra="1">')


def test_text_edit_keeps_character_reference_style() -> None:
    buildfile = _parse()
    prototype = buildfile.components("PrototypeDefinition")[0]
    prototype.text = "+/null/prototype;Y\tpiece;;;;/\tnull;0;0;;0"
    out = buildfile.to_bytes()
    assert b">+/null/prototype;Y&#9;piece;;;;/&#9;null;0;0;;0</" in out
    slot = buildfile.piece_slots()[0].element
    slot.text = "+/null/piece;;;b.png;B/\tnull;0;0;3;0"
    assert b">+/null/piece;;;b.png;B/\tnull;0;0;3;0</" in buildfile.to_bytes()


def test_insert_append_remove_keep_indentation() -> None:
    buildfile = _parse()
    window = buildfile.components("PieceWindow")[0]
    etree.SubElement(window, "VASSAL.build.widget.PieceSlot", entryName="N", gpid="13").text = "+/x"
    out = buildfile.to_bytes()
    assert (b'</VASSAL.build.widget.CardSlot>\n'
            b'        <VASSAL.build.widget.PieceSlot entryName="N" gpid="13">+/x'
            b'</VASSAL.build.widget.PieceSlot>\n    </VASSAL.build.module.PieceWindow>') in out
    window.remove(window[0])
    out = buildfile.to_bytes()
    assert (b'<VASSAL.build.module.PieceWindow name="Counters">\n'
            b'        <VASSAL.build.widget.PieceSlot entryName="N"') in out
    window.remove(window[0])
    assert b'<VASSAL.build.module.PieceWindow name="Counters"/>\n' in buildfile.to_bytes()


def test_new_children_under_empty_element() -> None:
    buildfile = _parse()
    encoder = buildfile.components("BasicCommandEncoder")[0]
    child = etree.SubElement(encoder, "a.B", x="1")
    etree.SubElement(child, "a.C")
    out = buildfile.to_bytes()
    assert (b"    <VASSAL.build.module.BasicCommandEncoder>\n"
            b'        <a.B x="1">\n'
            b"            <a.C/>\n"
            b"        </a.B>\n"
            b"    </VASSAL.build.module.BasicCommandEncoder>\n") in out
    assert BuildFile.parse(out).to_bytes() == out


def test_comment_kept_and_editable() -> None:
    buildfile = _parse()
    comment = [n for n in buildfile.root if n.tag is etree.Comment][0]
    assert buildfile.to_bytes().count(b"<!-- a comment -->") == 1
    comment.text = " changed "
    assert b"<!-- changed -->" in buildfile.to_bytes()


def test_flat_file_gets_flat_layout() -> None:
    data = b"<VASSAL.build.GameModule>\n<a/>\n<b/>\n</VASSAL.build.GameModule>\n"
    buildfile = BuildFile.parse(data)
    etree.SubElement(buildfile.root, "c")
    assert buildfile.to_bytes() == b"<VASSAL.build.GameModule>\n<a/>\n<b/>\n<c/>\n</VASSAL.build.GameModule>\n"


def test_move_element() -> None:
    buildfile = _parse()
    slot = buildfile.piece_slots()[0].element
    window = buildfile.components("PieceWindow")[0]
    window.insert(0, slot)
    out = buildfile.to_bytes()
    moved = BuildFile.parse(out)
    assert [s.entry_name for s in moved.piece_slots()] == ["A", "C"]
    assert moved.piece_slots()[0].element.getparent().tag.endswith("PieceWindow")
    assert b'<VASSAL.build.module.map.SetupStack name="s"/>' in out


def test_new_buildfile_in_vassal_style() -> None:
    buildfile = BuildFile.new(attributes=[("name", "Gen"), ("version", "1.0"),
                                          ("nextPieceSlotId", "2")])
    root = buildfile.root
    etree.SubElement(root, "VASSAL.build.module.BasicCommandEncoder")
    roster = etree.SubElement(root, "VASSAL.build.module.PlayerRoster")
    etree.SubElement(roster, "entry").text = "Blue & Red"
    slot = etree.SubElement(root, "VASSAL.build.widget.PieceSlot", entryName="U", gpid="1")
    slot.text = "+/null/piece;;;u.png;U/\tnull;0;0;1;0"
    expected = (
        b'<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n'
        b'<VASSAL.build.GameModule name="Gen" version="1.0" nextPieceSlotId="2">\n'
        b"    <VASSAL.build.module.BasicCommandEncoder/>\n"
        b"    <VASSAL.build.module.PlayerRoster>\n"
        b"        <entry>Blue &amp; Red</entry>\n"
        b"    </VASSAL.build.module.PlayerRoster>\n"
        b'    <VASSAL.build.widget.PieceSlot entryName="U" gpid="1">'
        b"+/null/piece;;;u.png;U/\tnull;0;0;1;0</VASSAL.build.widget.PieceSlot>\n"
        b"</VASSAL.build.GameModule>\n")
    assert buildfile.to_bytes() == expected
    reparsed = BuildFile.parse(expected)
    assert reparsed.piece_slots()[0].definition == slot.text
    assert reparsed.to_bytes() == expected
    assert BuildFile.new().to_bytes() == HEADER + b"<VASSAL.build.GameModule/>\n"


def test_write_and_read(tmp_path: Path) -> None:
    buildfile = _parse()
    buildfile.root.set("version", "2.0")
    target = tmp_path / "buildFile.xml"
    buildfile.write(target)
    assert BuildFile.read(target).version == "2.0"


def test_attribute_escapes_are_the_references_one_character_at_a_time() -> None:
    """The writer's attribute escaping (a regex test, then one translate)
    against its definition: & < > TAB LF CR and the quote as references."""
    import random

    from vmodtool.vassal.xmlspans import escape_attribute as _escape_attribute

    def by_definition(value: str, quote: str) -> str:
        value = value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        value = value.replace("\t", "&#9;").replace("\n", "&#10;").replace("\r", "&#13;")
        return value.replace('"', "&quot;") if quote == '"' else value.replace("'", "&apos;")

    rng = random.Random(5)
    for _ in range(20_000):
        value = "".join(rng.choice("ab&<>\t\n\r\"'Ж;# ") for _ in range(rng.randrange(12)))
        for quote in ('"', "'"):
            assert _escape_attribute(value, quote) == by_definition(value, quote), (value, quote)
    assert _escape_attribute("plain Ж text") == "plain Ж text"


def test_span_writer_copies_untouched_bytes_of_any_xml() -> None:
    """The byte-span index and writer BuildFile delegates to work on their
    own: untouched = the same bytes; one attribute changed = only its value
    rewritten, the odd quoting and spacing elsewhere kept."""
    from lxml import etree

    from vmodtool.vassal.xmlspans import SpanWriter, indent_unit, index_nodes

    data = ("<?xml version='1.0'?>\n<root  a='1'>\n  <child b=\"x\"   c='Ж'/><!-- note -->\n"
            "  <other>text &amp; more</other>\n</root>\n").encode()
    root = etree.fromstring(data)
    records = index_nodes(root, data, "test.xml")
    unit = indent_unit(root, records, data)
    assert unit == "  "
    assert SpanWriter(root, records, data, "utf-8", unit, None).to_bytes() == data
    root[0].set("b", "y")
    assert SpanWriter(root, records, data, "utf-8", unit, None).to_bytes() == data.replace(b'b="x"', b'b="y"')
