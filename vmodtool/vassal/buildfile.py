"""A VASSAL ``buildFile.xml`` as an editable lxml tree that writes back
byte-identical when untouched.

``docs/vassal-format.md`` §2.  :meth:`BuildFile.parse` reads the bytes with
:func:`~vmodtool.vassal.safexml.parse_xml` and, with a small tokenizer of its
own, indexes the byte span of every node inside the root element (start tag,
content, end tag; comments and processing instructions too) and snapshots
each node's state (tag, attributes, text, tail, children).  :attr:`root` is an
ordinary lxml element: walk it and edit it with the lxml API.

:meth:`BuildFile.to_bytes` compares the tree with the snapshots.  A subtree
that did not change is copied from the original bytes; a changed element
keeps the original bytes of everything that still holds (an unchanged start
tag, each unchanged attribute with its quoting, unchanged text and the
whitespace between siblings that are still neighbours) and re-serialises only
the rest, escaping like VASSAL's serializer.  Whitespace-only text next to an
inserted, removed or moved node is treated as layout: it is regenerated with
the indentation of the siblings (4 spaces per level in VASSAL's files), so an
appended element lands on its own line and the end tag stays in place.
Moved elements keep their own bytes (their inner indentation is not
re-computed).

Piece definitions are the text content of ``PieceSlot``/``CardSlot``/
``PrototypeDefinition`` elements, read like VASSAL's ``Builder.getText``:
the element's direct text nodes joined — CDATA sections ignored — and
trimmed the way Java's ``String.trim`` does (every char ≤ U+0020).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from lxml import etree

from vmodtool.errors import FormatError, PathLike
from vmodtool.vassal.pieces import java_int
from vmodtool.vassal.safexml import declared_encoding, parse_xml

__all__ = [
    "BuildFile",
    "PieceSlotEntry",
    "MapEntry",
    "BoardEntry",
    "ByteSpan",
    "GAME_MODULE_TAG",
    "LEGACY_MODULE_TAG",
    "EXTENSION_TAG",
    "ROOT_TAGS",
    "XML_DECLARATION",
    "vassal_text",
    "java_trim",
]

GAME_MODULE_TAG = "VASSAL.build.GameModule"
LEGACY_MODULE_TAG = "VASSAL.launch.BasicModule"
EXTENSION_TAG = "VASSAL.build.module.ModuleExtension"
ROOT_TAGS = (GAME_MODULE_TAG, LEGACY_MODULE_TAG, EXTENSION_TAG)

#: The declaration VASSAL's serializer writes (followed by a newline).
XML_DECLARATION = b'<?xml version="1.0" encoding="UTF-8" standalone="no"?>'

_SLOT_KINDS = ("PieceSlot", "CardSlot")
_PROTOTYPE = "PrototypeDefinition"
_BOARD = "VASSAL.build.module.map.boardPicker.Board"
_MAP_KINDS = ("VASSAL.build.module.Map", "VASSAL.build.module.PrivateMap",
              "VASSAL.build.module.PlayerHand", "VASSAL.build.widget.WidgetMap")
_DEFAULT_INDENT = "    "
_XML_SPACE = " \t\r\n"
_JAVA_SPACE = "".join(chr(code) for code in range(0x21))

# One markup token: comment, CDATA, PI, DOCTYPE, end tag or start tag.
# Attribute values may hold '>' but never '<', so the scan is exact on any
# document lxml accepted.
_MARKUP = re.compile(
    rb"<(?:!--.*?-->"
    rb"|!\[CDATA\[.*?\]\]>"
    rb"|\?.*?\?>"
    rb"|!DOCTYPE(?:[^\[>]*\[.*?\])?[^>]*>"
    rb"|/[^>]*>"
    rb"|[^\s/>!?][^\s/>]*(?:[^>\"']+|\"[^\"]*\"|'[^']*')*>)",
    re.S)
_ATTRIBUTE = re.compile(rb"(\s+)([^\s=/>]+)(\s*=\s*)(\"[^\"]*\"|'[^']*')")
_TAG_NAME = re.compile(rb"<([^\s/>]+)")
_CDATA = re.compile(rb"<!\[CDATA\[.*?\]\]>", re.S)
_REFERENCE = re.compile(r"&(#[0-9]+|#x[0-9a-fA-F]+|amp|lt|gt|quot|apos);")
_PREDEFINED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}

_ELEMENT, _COMMENT, _PI = 0, 1, 2


def java_trim(text: str) -> str:
    """``String.trim()``: strip every char ≤ U+0020 from both ends."""
    return text.strip(_JAVA_SPACE)


def vassal_text(element: etree._Element) -> str:
    """``Builder.getText`` on an lxml element parsed *without* CDATA
    sections: direct text nodes joined, Java-trimmed.  (Use
    :meth:`BuildFile.text_of` for elements of a parsed file: it also
    honours CDATA sections, which VASSAL skips.)"""
    parts = [element.text or ""]
    parts.extend(child.tail or "" for child in element)
    return java_trim("".join(parts))


def _short_name(tag: object) -> str:
    """Class name without its package (``VASSAL.build.widget.PieceSlot`` →
    ``PieceSlot``)."""
    return tag.rsplit(".", 1)[-1] if isinstance(tag, str) else ""


def _is_blank(text: str | None) -> bool:
    """True for ``None`` and whitespace-only text (XML whitespace)."""
    return not text or not text.strip(_XML_SPACE)


def _escape_text(text: str, tab_as_reference: bool = False) -> str:
    """Escape character data the way VASSAL's (JDK) serializer does."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = text.replace("\r", "&#13;")
    if tab_as_reference:
        text = text.replace("\t", "&#9;")
    return text


_ATTRIBUTE_REFERENCES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "\t": "&#9;", "\n": "&#10;", "\r": "&#13;"}
#: what each quote's attribute value escapes, one character at a time (the
#: references replace characters, never each other's text)
_ATTRIBUTE_ESCAPES = {q: str.maketrans({**_ATTRIBUTE_REFERENCES, q: ref})
                      for q, ref in (('"', "&quot;"), ("'", "&apos;"))}
_PLAIN_ATTRIBUTE = re.compile("[^&<>\t\n\r\"']*")


def _escape_attribute(value: str, quote: str = '"') -> str:
    """Escape an attribute value (TAB/LF/CR as character references so that
    attribute normalisation cannot turn them into spaces)."""
    if _PLAIN_ATTRIBUTE.fullmatch(value):
        return value                   # most values: nothing to escape
    return value.translate(_ATTRIBUTE_ESCAPES["\"" if quote == "\"" else "'"])


def _decode_raw_text(raw: str) -> str:
    """Character data as the parser delivers it: line ends normalised,
    then references replaced."""
    raw = raw.replace("\r\n", "\n").replace("\r", "\n")

    def replace(match: re.Match[str]) -> str:
        ref = match.group(1)
        if ref.startswith("#x"):
            return chr(int(ref[2:], 16))
        if ref.startswith("#"):
            return chr(int(ref[1:]))
        return _PREDEFINED[ref]

    return _REFERENCE.sub(replace, raw)


class _Record:
    """Where one original node is in the bytes, and its state at parse time."""

    __slots__ = ("kind", "start", "stag_end", "content_end", "end", "self_closing",
                 "has_cdata", "tag", "attrs", "text", "tail", "children")

    def __init__(self, kind: int, start: int, stag_end: int) -> None:
        self.kind = kind
        self.start = start
        self.stag_end = stag_end
        self.content_end = stag_end
        self.end = stag_end
        self.self_closing = False
        self.has_cdata = False
        self.tag: object = None
        self.attrs: tuple[tuple[str, str], ...] = ()
        self.text: str | None = None
        self.tail: str | None = None
        self.children: tuple[etree._Element, ...] = ()


class ByteSpan(NamedTuple):
    """Where a node of the original file is: ``start`` (its ``<``),
    ``start_tag_end``, ``content_end`` (start of the end tag) and ``end``
    (one past its last byte).  Comments, processing instructions and
    self-closing elements have ``start_tag_end == content_end == end``."""

    start: int
    start_tag_end: int
    content_end: int
    end: int


@dataclass(frozen=True)
class PieceSlotEntry:
    """One ``PieceSlot``/``CardSlot`` (kind is the class short name)."""

    element: etree._Element
    kind: str
    entry_name: str
    gpid: str
    definition: str


@dataclass(frozen=True)
class BoardEntry:
    """One ``Board``: its attributes, its grid element (HexGrid, SquareGrid,
    RegionGrid, ZonedGrid or ``None``) and the map element holding it."""

    element: etree._Element
    name: str
    image: str
    width: int | None
    height: int | None
    grid: etree._Element | None
    map_element: etree._Element | None

    @property
    def grid_kind(self) -> str | None:
        """Short class name of the grid (``HexGrid`` …) or ``None``."""
        return _short_name(self.grid.tag) if self.grid is not None else None


@dataclass(frozen=True)
class MapEntry:
    """One map window (``Map``, ``PrivateMap``, ``PlayerHand``,
    ``WidgetMap``) with its boards."""

    element: etree._Element
    class_name: str
    name: str
    boards: tuple[BoardEntry, ...]


def _int_or_none(value: str | None) -> int | None:
    """Parse a Java int attribute; ``None`` when absent or not an integer."""
    if value is None:
        return None
    try:
        return int(value.strip())
    except ValueError:
        return None


class BuildFile:
    """A parsed ``buildFile.xml`` (or legacy ``buildFile``, or an extension's).

    Edit :attr:`root` with lxml and call :meth:`to_bytes`; only the bytes of
    what changed are re-written.
    """

    def __init__(self, root: etree._Element, *, original: bytes | None = None,
                 file: PathLike | None = None) -> None:
        """Wrap ``root``; use :meth:`parse`, :meth:`read` or :meth:`new`."""
        self._root = root
        self._original = original
        self.file: str | None = os.fspath(file) if file is not None else None
        self._records: dict[etree._Element, _Record] = {}
        self._encoding = "utf-8"
        self._indent_unit = _DEFAULT_INDENT
        if root.tag not in ROOT_TAGS:
            raise FormatError(
                f"root element is <{self.root_tag}>, expected one of "
                + ", ".join(f"<{tag}>" for tag in ROOT_TAGS), file=file, place="root element")
        if original is not None:
            self._encoding = declared_encoding(original)
            if self._encoding.startswith("utf-16"):
                raise FormatError("buildFile is UTF-16; only UTF-8 (or another "
                                  "ASCII-compatible encoding) is supported", file=file)
            self._index(original)

    # ------------------------------------------------------------ creation
    @classmethod
    def parse(cls, data: bytes, *, file: PathLike | None = None) -> BuildFile:
        """Parse buildFile bytes (``file`` names them in errors)."""
        root = parse_xml(data, file=file)
        return cls(root, original=bytes(data), file=file)

    @classmethod
    def read(cls, path: PathLike) -> BuildFile:
        """Read and parse a buildFile from disk."""
        try:
            data = Path(path).read_bytes()
        except OSError as err:
            raise FormatError(f"cannot read file: {err.strerror}", file=path) from None
        return cls.parse(data, file=path)

    @classmethod
    def new(cls, root_tag: str = GAME_MODULE_TAG,
            attributes: Sequence[tuple[str, str]] | None = None) -> BuildFile:
        """A fresh buildFile with an empty root element; attributes are
        written in the order given.  :meth:`to_bytes` serialises it in
        VASSAL's style."""
        root = etree.Element(root_tag)
        for name, value in attributes or ():
            root.set(name, value)
        return cls(root)

    # ------------------------------------------------------------ indexing
    def _index(self, data: bytes) -> None:
        """Tokenize ``data``, match the tokens to the lxml nodes in document
        order and snapshot every node."""
        spans: list[_Record] = []
        stack: list[_Record] = []
        seen_root = False
        for match in _MARKUP.finditer(data):
            start, end = match.span()
            second = data[start + 1]
            if second == 0x2F:  # '/': end tag
                if not stack:
                    break
                record = stack.pop()
                record.content_end = start
                record.end = end
                if not stack:
                    break
            elif second == 0x21:  # '!': comment, CDATA or DOCTYPE
                if data.startswith(b"<!--", start):
                    if stack:
                        record = _Record(_COMMENT, start, end)
                        spans.append(record)
                elif data.startswith(b"<![CDATA[", start):
                    if stack:
                        stack[-1].has_cdata = True
            elif second == 0x3F:  # '?': processing instruction
                if stack:
                    spans.append(_Record(_PI, start, end))
            else:
                if seen_root and not stack:
                    break
                seen_root = True
                record = _Record(_ELEMENT, start, end)
                spans.append(record)
                if data[end - 2] == 0x2F:  # '/>'
                    record.self_closing = True
                    if not stack:
                        break
                else:
                    stack.append(record)
        nodes = list(self._root.iter())
        if len(nodes) != len(spans):
            raise FormatError(
                f"cannot index the XML: {len(spans)} nodes found by the byte scan, "
                f"{len(nodes)} by the parser", file=self.file)
        records = self._records
        for node, record in zip(nodes, spans, strict=True):  # lengths checked above
            expected = _ELEMENT if isinstance(node.tag, str) else (
                _COMMENT if isinstance(node, etree._Comment) else _PI)
            if expected != record.kind:
                raise FormatError("cannot index the XML: byte scan and parser disagree "
                                  f"at byte {record.start}", file=self.file)
            self._snapshot(node, record)
            records[node] = record
        self._indent_unit = self._detect_indent_unit(data)

    @staticmethod
    def _snapshot(node: etree._Element, record: _Record) -> None:
        """Store the node's current state in ``record``."""
        record.tag = node.tag
        record.text = node.text
        record.tail = node.tail
        if record.kind == _ELEMENT:
            record.attrs = tuple(node.attrib.items())
            record.children = tuple(node)

    def _detect_indent_unit(self, data: bytes) -> str:
        """The indentation of the root's first child (``""`` for flat files,
        4 spaces when the root has no children)."""
        children = self._records[self._root].children
        if not children:
            return _DEFAULT_INDENT
        return self._line_indent(data, self._records[children[0]].start)

    @staticmethod
    def _line_indent(data: bytes, offset: int) -> str:
        """Spaces/TABs between the previous newline and ``offset`` (``""``
        when anything else stands there)."""
        line_start = data.rfind(b"\n", 0, offset) + 1
        prefix = data[line_start:offset]
        if prefix.strip(b" \t"):
            return ""
        return prefix.decode("ascii")

    def original_span(self, node: etree._Element) -> ByteSpan | None:
        """The byte span ``node`` had in the parsed bytes (``None`` for a
        node that was not there, or a file made with :meth:`new`)."""
        record = self._records.get(node)
        if record is None:
            return None
        return ByteSpan(record.start, record.stag_end, record.content_end, record.end)

    def line_of(self, node: etree._Element) -> int | None:
        """1-based line of ``node`` in the parsed bytes (``None`` if new)."""
        record = self._records.get(node)
        if record is None or self._original is None:
            return None
        return self._original.count(b"\n", 0, record.start) + 1

    # ------------------------------------------------------------ module facts
    @property
    def root(self) -> etree._Element:
        """The root element (edit it and its descendants freely)."""
        return self._root

    @property
    def root_tag(self) -> str:
        """The root element's tag, one of :data:`ROOT_TAGS`."""
        return str(self._root.tag)

    @property
    def is_legacy_root(self) -> bool:
        """True for the deprecated ``VASSAL.launch.BasicModule`` root."""
        return self.root_tag == LEGACY_MODULE_TAG

    @property
    def is_extension(self) -> bool:
        """True for an extension's ``VASSAL.build.module.ModuleExtension``."""
        return self.root_tag == EXTENSION_TAG

    @property
    def name(self) -> str:
        """Root ``name`` (modules) — ``""`` when absent."""
        name: str = self._root.get("name", "")
        return name

    @property
    def version(self) -> str:
        """Root ``version``."""
        version: str = self._root.get("version", "")
        return version

    @property
    def vassal_version(self) -> str:
        """Root ``VassalVersion`` (``vassalVersion`` on extensions)."""
        value: str | None = self._root.get("VassalVersion")
        if value is None:
            value = self._root.get("vassalVersion", "")
        return value

    @property
    def next_piece_slot_id(self) -> int | None:
        """Root ``nextPieceSlotId`` as VASSAL's ``Integer.parseInt`` reads it;
        ``None`` when absent.  Raises :class:`FormatError` when malformed
        (VASSAL aborts loading such a module)."""
        value = self._root.get("nextPieceSlotId")
        if value is None:
            return None
        number = java_int(value)
        if number is None:
            raise FormatError(f"nextPieceSlotId {value!r} is not an integer (VASSAL "
                              "refuses to load the module)", file=self.file,
                              place="root attribute nextPieceSlotId")
        return number

    # ------------------------------------------------------------ queries
    def components(self, class_name_or_suffix: str) -> list[etree._Element]:
        """Elements, in document order, whose tag is ``class_name_or_suffix``
        or ends with ``.`` + it (``"PieceSlot"`` matches
        ``VASSAL.build.widget.PieceSlot``)."""
        suffix = "." + class_name_or_suffix
        return [element for element in self._root.iter()
                if isinstance(element.tag, str)
                and (element.tag == class_name_or_suffix or element.tag.endswith(suffix))]

    def text_of(self, element: etree._Element) -> str:
        """The element's text exactly as VASSAL's ``Builder.getText`` reads
        it: direct text nodes joined (CDATA skipped) and Java-trimmed."""
        record = self._records.get(element)
        if (record is not None and record.has_cdata and self._original is not None
                and not self._changed(element, record)
                and all(child in self._records and child.tail == self._records[child].tail
                        for child in element)):
            return java_trim(self._raw_direct_text(element, record))
        return vassal_text(element)

    def _raw_direct_text(self, element: etree._Element, record: _Record) -> str:
        """Direct character data of an unchanged element from the original
        bytes, CDATA sections removed."""
        assert self._original is not None
        data = self._original
        pieces: list[bytes] = []
        position = record.stag_end
        for child in record.children:
            child_record = self._records[child]
            pieces.append(data[position:child_record.start])
            position = child_record.end
        pieces.append(data[position:record.content_end])
        raw = _CDATA.sub(b"", b"".join(pieces)).decode(self._encoding)
        return _decode_raw_text(raw)

    def piece_slots(self) -> list[PieceSlotEntry]:
        """Every ``PieceSlot`` and ``CardSlot`` in document order."""
        slots = []
        for element in self._root.iter():
            kind = _short_name(element.tag)
            if kind in _SLOT_KINDS:
                slots.append(PieceSlotEntry(
                    element=element, kind=kind,
                    entry_name=element.get("entryName", ""),
                    gpid=element.get("gpid", ""),
                    definition=self.text_of(element)))
        return slots

    def prototypes(self) -> dict[str, str]:
        """Prototype name → definition, in document order; as in VASSAL's
        ``PrototypesContainer`` a later definition of a name replaces an
        earlier one."""
        definitions: dict[str, str] = {}
        for element in self.components(_PROTOTYPE):
            definitions[element.get("name", "")] = self.text_of(element)
        return definitions

    def boards(self) -> list[BoardEntry]:
        """Every ``Board`` element in document order."""
        entries = []
        for element in self._root.iter(_BOARD):
            grid = next((child for child in element
                         if isinstance(child.tag, str) and child.tag.endswith("Grid")), None)
            map_element = next((ancestor for ancestor in element.iterancestors()
                                if ancestor.tag in _MAP_KINDS), None)
            entries.append(BoardEntry(
                element=element, name=element.get("name", ""),
                image=element.get("image", ""),
                width=_int_or_none(element.get("width")),
                height=_int_or_none(element.get("height")),
                grid=grid, map_element=map_element))
        return entries

    def maps(self) -> list[MapEntry]:
        """Every map window (``Map``, ``PrivateMap``, ``PlayerHand``,
        ``WidgetMap``) in document order, with the boards below it."""
        boards = self.boards()
        entries = []
        for element in self._root.iter(*_MAP_KINDS):
            entries.append(MapEntry(
                element=element, class_name=str(element.tag),
                name=element.get("mapName", ""),
                boards=tuple(board for board in boards if board.map_element is element)))
        return entries

    def max_gpid(self) -> int | None:
        """The largest numeric ``gpid`` of any PieceSlot/CardSlot (for an
        extension's ``<id>:<n>`` form, ``n``); ``None`` when there is none.
        ``nextPieceSlotId`` must be greater than this."""
        best: int | None = None
        for element in self._root.iter():
            if _short_name(element.tag) not in _SLOT_KINDS:
                continue
            number = element.get("gpid", "").rsplit(":", 1)[-1].strip()
            if number.isascii() and number.isdigit() and len(number) <= 20:   # (what VASSAL writes)
                value = int(number)
                best = value if best is None or value > best else best
        return best

    # ------------------------------------------------------------ writing
    def to_bytes(self) -> bytes:
        """The buildFile as bytes: the original bytes where nothing changed;
        a fresh file in VASSAL's style for :meth:`new`."""
        out: list[bytes] = []
        if self._original is None:
            out.append(XML_DECLARATION + b"\n")
            self._emit_new(self._root, out, "")
            out.append(b"\n")
            return b"".join(out)
        data = self._original
        dirty = self._dirty_nodes()
        record = self._records[self._root]
        out.append(data[:record.start])
        self._emit(self._root, out, dirty, "")
        out.append(data[record.end:])
        return b"".join(out)

    def _changed(self, node: etree._Element, record: _Record) -> bool:
        """Did the node's own tag, attributes, text or children change?"""
        if node.tag != record.tag or node.text != record.text:
            return True
        if record.kind != _ELEMENT:
            return False
        if len(node) != len(record.children) or tuple(node) != record.children:
            return True
        return tuple(node.attrib.items()) != record.attrs

    def _dirty_nodes(self) -> set[etree._Element]:
        """Nodes whose bytes must be rebuilt (changed nodes and all their
        ancestors; a changed tail makes the parent dirty)."""
        dirty: set[etree._Element] = set()
        records = self._records
        for node in self._root.iter():
            record = records.get(node)
            marked: etree._Element | None
            if record is None or self._changed(node, record):
                marked = node
            elif node.tail != record.tail:
                marked = node.getparent()
            else:
                continue
            while marked is not None and marked not in dirty:
                dirty.add(marked)
                marked = marked.getparent()
        return dirty

    def _encode(self, text: str) -> bytes:
        """Text in the document's encoding (unencodable chars as references)."""
        return text.encode(self._encoding, "xmlcharrefreplace")

    def _emit(self, node: etree._Element, out: list[bytes], dirty: set[etree._Element], indent: str) -> None:
        """Append the bytes of ``node`` (without its tail); ``indent`` is
        the indentation of its line, used for new content only."""
        record = self._records.get(node)
        if record is None:
            self._emit_new(node, out, indent, dirty)
            return
        data = self._original
        assert data is not None
        if node not in dirty:
            out.append(data[record.start:record.end])
            return
        if record.kind != _ELEMENT:
            self._emit_new(node, out, indent, dirty)
            return
        own_indent = self._line_indent(data, record.start)
        children = list(node)
        sibling_ws, closing_ws = self._layout(record, own_indent)
        text = node.text
        # an element left without content is written self-closing when it
        # was (or when all its children were removed)
        empty = not children and (
            (not text and record.self_closing)
            or (_is_blank(text) and bool(record.children)))
        out.append(self._start_tag(node, record, self_closing=empty))
        if empty:
            return
        tab_refs = b"&#9;" in data[record.stag_end:record.content_end]
        child_indent = sibling_ws.rsplit("\n", 1)[-1]
        original_children = record.children
        position = {child: index for index, child in enumerate(original_children)}
        count = len(children)
        # text before the first child (or the whole text)
        if text == record.text and (
                (count and original_children and children[0] is original_children[0])
                or (not count and not original_children)):
            end = (self._records[original_children[0]].start if original_children
                   else record.content_end)
            out.append(data[record.stag_end:end])
        else:
            out.append(self._boundary(text, count == 0, sibling_ws, closing_ws, tab_refs))
        for index, child in enumerate(children):
            self._emit(child, out, dirty, child_indent)
            last = index == count - 1
            following = None if last else children[index + 1]
            origin = position.get(child)
            child_record = self._records.get(child)
            if (origin is not None and child_record is not None
                    and child.tail == child_record.tail):
                if last and origin == len(original_children) - 1:
                    out.append(data[child_record.end:record.content_end])
                    continue
                if (not last and origin + 1 < len(original_children)
                        and original_children[origin + 1] is following):
                    out.append(data[child_record.end:self._records[following].start])
                    continue
            out.append(self._boundary(child.tail, last, sibling_ws, closing_ws, tab_refs))
        if record.self_closing or node.tag != record.tag:
            out.append(b"</" + self._encode(str(node.tag)) + b">")
        else:
            out.append(data[record.content_end:record.end])

    def _boundary(self, text: str | None, closing: bool, sibling_ws: str,
                  closing_ws: str, tab_refs: bool = False) -> bytes:
        """Bytes of text between nodes at a boundary that is not original:
        whitespace-only text is layout, anything else is escaped as is."""
        if _is_blank(text):
            return self._encode(closing_ws if closing else sibling_ws)
        assert text is not None
        return self._encode(_escape_text(text, tab_refs))

    def _layout(self, record: _Record, own_indent: str) -> tuple[str, str]:
        """(whitespace before a child, whitespace before the end tag) used
        by the original content of an element, or derived from its
        indentation."""
        sibling_ws = "\n" + own_indent + self._indent_unit
        closing_ws = "\n" + own_indent
        if record.children:
            if record.text and _is_blank(record.text):
                sibling_ws = record.text
            last_tail = self._records[record.children[-1]].tail
            if last_tail and _is_blank(last_tail):
                closing_ws = last_tail
        return sibling_ws, closing_ws

    def _start_tag(self, node: etree._Element, record: _Record, *, self_closing: bool) -> bytes:
        """The start tag: original bytes where tag and attributes are
        unchanged; otherwise each unchanged attribute keeps its bytes."""
        data = self._original
        assert data is not None
        original = data[record.start:record.stag_end]
        body_end = len(original) - (2 if record.self_closing else 1)
        attrs = tuple(node.attrib.items())
        if node.tag == record.tag and attrs == record.attrs:
            body = original[:body_end]
        else:
            name_match = _TAG_NAME.match(original)
            assert name_match is not None
            tag_bytes = (name_match.group(0) if node.tag == record.tag
                         else b"<" + self._encode(str(node.tag)))
            pieces = [tag_bytes]
            old_values = dict(record.attrs)
            old_raw = {match.group(2).decode(self._encoding): match
                       for match in _ATTRIBUTE.finditer(original, name_match.end(), body_end)}
            last_end = name_match.end()
            for match in old_raw.values():
                last_end = max(last_end, match.end())
            for name, value in attrs:
                raw = old_raw.get(name)
                if raw is not None and old_values.get(name) == value:
                    pieces.append(raw.group(0))
                elif raw is not None:
                    quote = raw.group(4)[:1].decode("ascii")
                    pieces.append(raw.group(1) + raw.group(2) + raw.group(3) + self._encode(
                        quote + _escape_attribute(value, quote) + quote))
                else:
                    pieces.append(self._encode(f' {name}="{_escape_attribute(value)}"'))
            pieces.append(original[last_end:body_end])
            body = b"".join(pieces)
        if self_closing:
            return body + b"/>"
        return body.rstrip(b" \t\r\n") + b">" if record.self_closing else body + b">"

    def _emit_new(self, node: etree._Element, out: list[bytes], indent: str,
                  dirty: set[etree._Element] | None = None) -> None:
        """Serialise a node that is not in the original bytes in VASSAL's
        style: attributes in the order given, children indented one level
        deeper than ``indent``."""
        if isinstance(node, etree._Comment):
            out.append(self._encode(f"<!--{node.text or ''}-->"))
            return
        if isinstance(node, etree._ProcessingInstruction):
            target = node.target
            body = f" {node.text}" if node.text else ""
            out.append(self._encode(f"<?{target}{body}?>"))
            return
        if not isinstance(node.tag, str):
            raise FormatError(f"cannot write node {node!r}", file=self.file)
        head = "<" + node.tag + "".join(
            f' {name}="{_escape_attribute(value)}"' for name, value in node.attrib.items())
        children = list(node)
        if not children and not node.text:
            out.append(self._encode(head + "/>"))
            return
        out.append(self._encode(head + ">"))
        sibling_ws = "\n" + indent + self._indent_unit
        closing_ws = "\n" + indent
        if not children:
            out.append(self._encode(_escape_text(node.text or "")))
        else:
            out.append(self._boundary(node.text, False, sibling_ws, closing_ws))
            for index, child in enumerate(children):
                if dirty is not None and child in self._records:
                    self._emit(child, out, dirty, indent + self._indent_unit)
                else:
                    self._emit_new(child, out, indent + self._indent_unit, dirty)
                out.append(self._boundary(child.tail, index == len(children) - 1,
                                          sibling_ws, closing_ws))
        out.append(self._encode(f"</{node.tag}>"))

    def write(self, path: PathLike) -> None:
        """Write :meth:`to_bytes` to ``path``."""
        Path(path).write_bytes(self.to_bytes())

    def __iter__(self) -> Iterator[etree._Element]:
        """Iterate over the root's direct children."""
        return iter(self._root)

    def __repr__(self) -> str:
        return f"<BuildFile {self.root_tag} name={self.name!r} file={self.file!r}>"
