"""BuildFile on every real buildFile of the corpus and every golden piece.

* untouched ``to_bytes()`` is the input, byte for byte (also the two
  buildFiles inside ``tour.mod`` and ``test-predefined-setups.vmod``);
* an attribute edit changes only that element's start tag, a text edit only
  that PieceSlot's text, insert/remove/move only the parent's content;
* the definition and attributes of all 6,652 golden piece entries
  (``golden/pieces/*.jsonl``, located by ``xml_index_path``) equal ours.
"""

from __future__ import annotations

import json
import zipfile
from functools import cache
from pathlib import Path

import pytest
from lxml import etree

from tests.conftest import SHARED, rel_id, shared_files, shared_path  # noqa: F401
from vmodtool.vassal.buildfile import BuildFile

pytestmark = [pytest.mark.corpus]

# (corpus-relative source as the goldens name it, zip entry or None)
_ZIPPED = {
    "vassal-tour/tour.mod": "buildFile",
    "vassal-testmods/test-predefined-setups.vmod": "buildFile.xml",
}


def _sources() -> list[str]:
    plain = [str(path.relative_to(SHARED / "corpus"))
             for path in shared_files("corpus", "*/buildFile*")]
    zipped = [name for name in _ZIPPED if (SHARED / "corpus" / name).is_file()]
    return plain + zipped


SOURCES = _sources()


@cache
def _data(source: str) -> bytes:
    path = shared_path("corpus", source)
    entry = _ZIPPED.get(source)
    if entry is None:
        return path.read_bytes()
    with zipfile.ZipFile(path) as archive:
        return archive.read(entry)


def _parse(source: str) -> tuple[bytes, BuildFile]:
    data = _data(source)
    return data, BuildFile.parse(data, file=source)


def _assert_only_span_changed(old: bytes, new: bytes, start: int, end: int) -> None:
    """Everything before ``start`` and after ``end`` (old offsets) is
    identical; only old[start:end] was replaced."""
    assert new[:start] == old[:start], "bytes before the edited span changed"
    suffix = old[end:]
    assert new.endswith(suffix), "bytes after the edited span changed"
    assert len(new) - len(suffix) >= start


def _elements(root: etree._Element) -> list[etree._Element]:
    return [node for node in root.iter() if isinstance(node.tag, str)]


def test_corpus_is_complete() -> None:
    shared_path("corpus")
    assert len(SOURCES) == 15, SOURCES


@pytest.mark.parametrize("source", SOURCES)
def test_untouched_roundtrip_is_identical(source: str) -> None:
    data, buildfile = _parse(source)
    assert buildfile.to_bytes() == data
    assert buildfile.root_tag in ("VASSAL.build.GameModule", "VASSAL.launch.BasicModule")
    assert buildfile.is_legacy_root == (buildfile.root_tag == "VASSAL.launch.BasicModule")
    assert buildfile.name


@pytest.mark.parametrize("source", SOURCES)
def test_attribute_edits_change_only_the_start_tag(source: str) -> None:
    data, buildfile = _parse(source)
    elements = _elements(buildfile.root)
    sample = elements[:: max(1, len(elements) // 10)] + [elements[-1]]
    for number, element in enumerate(sample):
        span = buildfile.original_span(element)
        assert span is not None
        # change an existing attribute (or add one when there is none)
        name = next(iter(element.attrib), None)
        old_value = element.get(name) if name else None
        if name is None:
            element.set("added", "x<&>\"\t")
        else:
            element.set(name, old_value + " & <changed>\t\"")
        element.set("vmodtoolNew", "1")
        edited = buildfile.to_bytes()
        _assert_only_span_changed(data, edited, span.start, span.start_tag_end)
        if number % 4 == 0:
            reparsed = BuildFile.parse(edited)
            assert [dict(e.attrib) for e in _elements(reparsed.root)] == \
                [dict(e.attrib) for e in _elements(buildfile.root)]
        # remove an attribute: still only the start tag
        del element.attrib["vmodtoolNew"]
        if name is None:
            del element.attrib["added"]
        else:
            del element.attrib[name]
        edited = buildfile.to_bytes()
        _assert_only_span_changed(data, edited, span.start, span.start_tag_end)
        # restoring the values gives the original bytes again
        _restore_order(element, span, data)
        assert buildfile.to_bytes() == data


def _restore_order(element: etree._Element, span, data: bytes) -> None:
    """Put the element's attributes back in their original order."""
    start_tag = data[span.start:span.start_tag_end]
    fresh = etree.fromstring(start_tag if start_tag.endswith(b"/>")
                             else start_tag[:-1] + b"/>")
    element.attrib.clear()
    for key, value in fresh.attrib.items():
        element.set(key, value)


@pytest.mark.parametrize("source", SOURCES)
def test_text_edit_changes_only_that_text(source: str) -> None:
    data, buildfile = _parse(source)
    slots = buildfile.piece_slots()
    if not slots:
        pytest.skip("no piece slots")
    for number, slot in enumerate(slots[:: max(1, len(slots) // 8)]):
        span = buildfile.original_span(slot.element)
        new_definition = slot.definition + "\tmark;x<&>"
        slot.element.text = new_definition
        edited = buildfile.to_bytes()
        _assert_only_span_changed(data, edited, span.start_tag_end, span.content_end)
        if number % 4 == 0:
            reparsed = BuildFile.parse(edited)
            assert [s.definition for s in reparsed.piece_slots()] == \
                [s.definition for s in buildfile.piece_slots()]
        slot.element.text = slot.element.text[: -len("\tmark;x<&>")]
        assert buildfile.to_bytes() == data


@pytest.mark.parametrize("source", SOURCES)
def test_insert_and_remove_change_only_the_parent_content(source: str) -> None:
    data, buildfile = _parse(source)
    parents = [e for e in _elements(buildfile.root) if len(e) >= 2][:: 7]
    for number, parent in enumerate(parents[:8]):
        span = buildfile.original_span(parent)
        # append
        new = etree.SubElement(parent, "vmodtool.test.Added", name="a&b")
        edited = buildfile.to_bytes()
        _assert_only_span_changed(data, edited, span.start_tag_end, span.content_end)
        if number % 3 == 0:
            reparsed = BuildFile.parse(edited)
            assert reparsed.components("vmodtool.test.Added")[0].get("name") == "a&b"
            assert len(_elements(reparsed.root)) == len(_elements(buildfile.root))
        parent.remove(new)
        # insert in the middle
        parent.insert(1, new)
        edited = buildfile.to_bytes()
        _assert_only_span_changed(data, edited, span.start_tag_end, span.content_end)
        assert b"<vmodtool.test.Added name=\"a&amp;b\"/>" in edited
        parent.remove(new)
        assert buildfile.to_bytes() == data
        # remove the first child
        first = parent[0]
        first_span = buildfile.original_span(first)
        second_span = buildfile.original_span(parent[1])
        tail = first.tail
        parent.remove(first)
        edited = buildfile.to_bytes()
        _assert_only_span_changed(data, edited, span.start_tag_end, span.content_end)
        assert edited == data[:first_span.start] + data[second_span.start:]
        parent.insert(0, first)
        first.tail = tail
        assert buildfile.to_bytes() == data


@pytest.mark.parametrize("source", SOURCES)
def test_removing_the_last_child_keeps_the_end_tag_line(source: str) -> None:
    data, buildfile = _parse(source)
    parents = [e for e in _elements(buildfile.root) if len(e) >= 2][:: 11][:8]
    for parent in parents:
        last, before = parent[-1], parent[-2]
        last_span = buildfile.original_span(last)
        before_span = buildfile.original_span(before)
        parent.remove(last)
        edited = buildfile.to_bytes()
        assert edited == data[:before_span.end] + data[last_span.end:]
        parent.append(last)
        assert buildfile.to_bytes() == data


@pytest.mark.parametrize("source", SOURCES)
def test_moved_element_keeps_its_bytes(source: str) -> None:
    data, buildfile = _parse(source)
    slots = buildfile.piece_slots()
    containers = [e for e in _elements(buildfile.root)[1:] if len(e) >= 1]
    if not slots or not containers:
        pytest.skip("nothing to move")
    slot = slots[len(slots) // 2].element
    target = containers[0]
    slot_span = buildfile.original_span(slot)
    target.append(slot)
    edited = buildfile.to_bytes()
    assert data[slot_span.start:slot_span.end] in edited
    reparsed = BuildFile.parse(edited)
    assert len(reparsed.piece_slots()) == len(slots)
    assert sorted(s.definition for s in reparsed.piece_slots()) == \
        sorted(s.definition for s in slots)


# ---------------------------------------------------------------- goldens
def _golden_lines() -> list[dict]:
    lines = []
    for path in shared_files("golden/pieces", "*.jsonl"):
        with open(path, encoding="utf-8") as handle:
            lines.extend(json.loads(line) for line in handle if line.strip())
    return lines


@pytest.mark.golden
def test_golden_definitions_and_attributes() -> None:
    shared_path("golden", "pieces")
    lines = _golden_lines()
    assert len(lines) == 6652
    parsed = {}
    matched = 0
    mismatches = []
    for line in lines:
        source = line["source"]
        if source not in parsed:
            parsed[source] = _parse(source)[1]
        buildfile = parsed[source]
        element = buildfile.root
        for index in line["xml_index_path"]:
            element = [child for child in element if isinstance(child.tag, str)][index]
        assert element.tag.rsplit(".", 1)[-1] == line["kind"]
        if (buildfile.text_of(element) == line["definition"]
                and dict(element.attrib) == line["attributes"]):
            matched += 1
        else:
            mismatches.append((source, line["index"]))
    assert not mismatches, mismatches[:10]
    assert matched == 6652


@pytest.mark.golden
def test_piece_slots_and_prototypes_cover_the_goldens() -> None:
    shared_path("golden", "pieces")
    by_source = {}
    for line in _golden_lines():
        by_source.setdefault(line["source"], []).append(line)
    for source in SOURCES:
        buildfile = _parse(source)[1]
        lines = by_source.get(source, [])
        slots = [line for line in lines if line["kind"] in ("PieceSlot", "CardSlot")]
        assert [(s.kind, s.entry_name, s.gpid, s.definition)
                for s in buildfile.piece_slots()] == \
            [(slot["kind"], slot["attributes"].get("entryName", ""),
              slot["attributes"].get("gpid", ""), slot["definition"]) for slot in slots], source
        prototypes = {}
        for entry in lines:
            if entry["kind"] == "PrototypeDefinition":
                prototypes[entry["attributes"].get("name", "")] = entry["definition"]
        assert buildfile.prototypes() == prototypes, source


@pytest.mark.parametrize("source", SOURCES)
def test_module_facts(source: str) -> None:
    buildfile = _parse(source)[1]
    next_id = buildfile.next_piece_slot_id
    highest = buildfile.max_gpid()
    if next_id is not None and highest is not None:
        assert next_id > highest
    for board in buildfile.boards():
        assert board.element.tag.endswith("Board")
        if board.grid is not None:
            assert board.grid_kind in ("HexGrid", "SquareGrid", "RegionGrid", "ZonedGrid")
    assert sum(len(m.boards) for m in buildfile.maps()) <= len(buildfile.boards())


def test_ids_are_readable() -> None:
    assert all(isinstance(rel_id(Path(s)), str) for s in SOURCES)
