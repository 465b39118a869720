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
from vmodtool.vassal.xmlspans import (
    DEFAULT_INDENT,
    XML_DECLARATION,
    NodeRecord,
    SpanWriter,
    indent_unit,
    index_nodes,
    node_changed,
)

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


_SLOT_KINDS = ("PieceSlot", "CardSlot")
_PROTOTYPE = "PrototypeDefinition"
_BOARD = "VASSAL.build.module.map.boardPicker.Board"
_MAP_KINDS = ("VASSAL.build.module.Map", "VASSAL.build.module.PrivateMap",
              "VASSAL.build.module.PlayerHand", "VASSAL.build.widget.WidgetMap")
_JAVA_SPACE = "".join(chr(code) for code in range(0x21))
_CDATA = re.compile(rb"<!\[CDATA\[.*?\]\]>", re.S)
_REFERENCE = re.compile(r"&(#[0-9]+|#x[0-9a-fA-F]+|amp|lt|gt|quot|apos);")
_PREDEFINED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}



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
        self._records: dict[etree._Element, NodeRecord] = {}
        self._encoding = "utf-8"
        self._indent_unit = DEFAULT_INDENT
        if root.tag not in ROOT_TAGS:
            raise FormatError(
                f"root element is <{self.root_tag}>, expected one of "
                + ", ".join(f"<{tag}>" for tag in ROOT_TAGS), file=file, place="root element")
        if original is not None:
            self._encoding = declared_encoding(original)
            if self._encoding.startswith("utf-16"):
                raise FormatError("buildFile is UTF-16; only UTF-8 (or another "
                                  "ASCII-compatible encoding) is supported", file=file)
            self._records = index_nodes(root, original, self.file)
            self._indent_unit = indent_unit(root, self._records, original)

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
                and not node_changed(element, record)
                and all(child in self._records and child.tail == self._records[child].tail
                        for child in element)):
            return java_trim(self._raw_direct_text(element, record))
        return vassal_text(element)

    def _raw_direct_text(self, element: etree._Element, record: NodeRecord) -> str:
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
        return SpanWriter(self._root, self._records, self._original, self._encoding, self._indent_unit,
                          self.file).to_bytes()

    def write(self, path: PathLike) -> None:
        """Write :meth:`to_bytes` to ``path``."""
        Path(path).write_bytes(self.to_bytes())

    def __iter__(self) -> Iterator[etree._Element]:
        """Iterate over the root's direct children."""
        return iter(self._root)

    def __repr__(self) -> str:
        return f"<BuildFile {self.root_tag} name={self.name!r} file={self.file!r}>"
