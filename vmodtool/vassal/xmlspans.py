"""Byte-preserving XML: where every node of a parsed document is in its
bytes, and the writer that copies the bytes of what did not change.

``docs/vassal-format.md`` §2.  :func:`index_nodes` scans the bytes with a
small tokenizer and records the byte span of every node inside the root
element (start tag, content, end tag; comments and processing instructions
too) with a snapshot of its state (tag, attributes, text, tail, children).
:class:`SpanWriter` compares the tree with the snapshots: an unchanged
subtree is copied from the original bytes, a changed element keeps the bytes
of everything that still holds and only the rest is re-serialised, escaping
like VASSAL's serializer.  :class:`~vmodtool.vassal.buildfile.BuildFile` is
the module file built on it.
"""

from __future__ import annotations

import re

from lxml import etree

from vmodtool.errors import FormatError

__all__ = ["NodeRecord", "SpanWriter", "index_nodes", "indent_unit", "line_indent", "node_changed", "is_blank",
           "escape_text", "escape_attribute", "XML_DECLARATION", "ELEMENT", "COMMENT", "PI", "DEFAULT_INDENT"]

#: The declaration VASSAL's serializer writes (followed by a newline).
XML_DECLARATION = b'<?xml version="1.0" encoding="UTF-8" standalone="no"?>'

DEFAULT_INDENT = "    "
_XML_SPACE = " \t\r\n"

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

ELEMENT, COMMENT, PI = 0, 1, 2


def is_blank(text: str | None) -> bool:
    """True for ``None`` and whitespace-only text (XML whitespace)."""
    return not text or not text.strip(_XML_SPACE)


def escape_text(text: str, tab_as_reference: bool = False) -> str:
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


def escape_attribute(value: str, quote: str = '"') -> str:
    """Escape an attribute value (TAB/LF/CR as character references so that
    attribute normalisation cannot turn them into spaces)."""
    if _PLAIN_ATTRIBUTE.fullmatch(value):
        return value                   # most values: nothing to escape
    return value.translate(_ATTRIBUTE_ESCAPES["\"" if quote == "\"" else "'"])


class NodeRecord:
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


def index_nodes(root: etree._Element, data: bytes, file: str | None) -> dict[etree._Element, NodeRecord]:
    """Tokenize ``data`` (the bytes ``root`` was parsed from), match the
    tokens to the lxml nodes in document order and snapshot every node:
    each node's record."""
    spans: list[NodeRecord] = []
    stack: list[NodeRecord] = []
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
                    record = NodeRecord(COMMENT, start, end)
                    spans.append(record)
            elif data.startswith(b"<![CDATA[", start):
                if stack:
                    stack[-1].has_cdata = True
        elif second == 0x3F:  # '?': processing instruction
            if stack:
                spans.append(NodeRecord(PI, start, end))
        else:
            if seen_root and not stack:
                break
            seen_root = True
            record = NodeRecord(ELEMENT, start, end)
            spans.append(record)
            if data[end - 2] == 0x2F:  # '/>'
                record.self_closing = True
                if not stack:
                    break
            else:
                stack.append(record)
    nodes = list(root.iter())
    if len(nodes) != len(spans):
        raise FormatError(
            f"cannot index the XML: {len(spans)} nodes found by the byte scan, "
            f"{len(nodes)} by the parser", file=file)
    records: dict[etree._Element, NodeRecord] = {}
    for node, record in zip(nodes, spans, strict=True):  # lengths checked above
        expected = ELEMENT if isinstance(node.tag, str) else (
            COMMENT if isinstance(node, etree._Comment) else PI)
        if expected != record.kind:
            raise FormatError("cannot index the XML: byte scan and parser disagree "
                              f"at byte {record.start}", file=file)
        _snapshot(node, record)
        records[node] = record
    return records

def _snapshot(node: etree._Element, record: NodeRecord) -> None:
    """Store the node's current state in ``record``."""
    record.tag = node.tag
    record.text = node.text
    record.tail = node.tail
    if record.kind == ELEMENT:
        record.attrs = tuple(node.attrib.items())
        record.children = tuple(node)

def indent_unit(root: etree._Element, records: dict[etree._Element, NodeRecord], data: bytes) -> str:
    """The indentation of the root's first child (``""`` for flat files,
    4 spaces when the root has no children)."""
    children = records[root].children
    if not children:
        return DEFAULT_INDENT
    return line_indent(data, records[children[0]].start)

def line_indent(data: bytes, offset: int) -> str:
    """Spaces/TABs between the previous newline and ``offset`` (``""``
    when anything else stands there)."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    prefix = data[line_start:offset]
    if prefix.strip(b" \t"):
        return ""
    return prefix.decode("ascii")


def node_changed(node: etree._Element, record: NodeRecord) -> bool:
    """Did the node's own tag, attributes, text or children change?"""
    if node.tag != record.tag or node.text != record.text:
        return True
    if record.kind != ELEMENT:
        return False
    if len(node) != len(record.children) or tuple(node) != record.children:
        return True
    return tuple(node.attrib.items()) != record.attrs


class SpanWriter:
    """Writes a tree back to bytes against the records of the bytes it was
    parsed from (:func:`index_nodes`): the original bytes of every node that
    did not change, only the rest serialised (in VASSAL's style, indented by
    ``indent_unit``); with no original bytes, the whole tree afresh."""

    def __init__(self, root: etree._Element, records: dict[etree._Element, NodeRecord], original: bytes | None,
                 encoding: str, indent_unit: str, file: str | None) -> None:
        self.root = root
        self.records = records
        self.original = original
        self.encoding = encoding
        self.indent_unit = indent_unit
        self.file = file

    def to_bytes(self) -> bytes:
        """The tree as bytes: the original bytes where nothing changed; a
        fresh file in VASSAL's style when there are no original bytes."""
        out: list[bytes] = []
        if self.original is None:
            out.append(XML_DECLARATION + b"\n")
            self._emit_new(self.root, out, "")
            out.append(b"\n")
            return b"".join(out)
        data = self.original
        dirty = self._dirty_nodes()
        record = self.records[self.root]
        out.append(data[:record.start])
        self._emit(self.root, out, dirty, "")
        out.append(data[record.end:])
        return b"".join(out)

    def _dirty_nodes(self) -> set[etree._Element]:
        """Nodes whose bytes must be rebuilt (changed nodes and all their
        ancestors; a changed tail makes the parent dirty)."""
        dirty: set[etree._Element] = set()
        records = self.records
        for node in self.root.iter():
            record = records.get(node)
            marked: etree._Element | None
            if record is None or node_changed(node, record):
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
        return text.encode(self.encoding, "xmlcharrefreplace")

    def _emit(self, node: etree._Element, out: list[bytes], dirty: set[etree._Element], indent: str) -> None:
        """Append the bytes of ``node`` (without its tail); ``indent`` is
        the indentation of its line, used for new content only."""
        record = self.records.get(node)
        if record is None:
            self._emit_new(node, out, indent, dirty)
            return
        data = self.original
        assert data is not None
        if node not in dirty:
            out.append(data[record.start:record.end])
            return
        if record.kind != ELEMENT:
            self._emit_new(node, out, indent, dirty)
            return
        own_indent = line_indent(data, record.start)
        children = list(node)
        sibling_ws, closing_ws = self._layout(record, own_indent)
        text = node.text
        # an element left without content is written self-closing when it
        # was (or when all its children were removed)
        empty = not children and (
            (not text and record.self_closing)
            or (is_blank(text) and bool(record.children)))
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
            end = (self.records[original_children[0]].start if original_children
                   else record.content_end)
            out.append(data[record.stag_end:end])
        else:
            out.append(self._boundary(text, count == 0, sibling_ws, closing_ws, tab_refs))
        for index, child in enumerate(children):
            self._emit(child, out, dirty, child_indent)
            last = index == count - 1
            following = None if last else children[index + 1]
            origin = position.get(child)
            child_record = self.records.get(child)
            if (origin is not None and child_record is not None
                    and child.tail == child_record.tail):
                if last and origin == len(original_children) - 1:
                    out.append(data[child_record.end:record.content_end])
                    continue
                if (not last and origin + 1 < len(original_children)
                        and original_children[origin + 1] is following):
                    out.append(data[child_record.end:self.records[following].start])
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
        if is_blank(text):
            return self._encode(closing_ws if closing else sibling_ws)
        assert text is not None
        return self._encode(escape_text(text, tab_refs))

    def _layout(self, record: NodeRecord, own_indent: str) -> tuple[str, str]:
        """(whitespace before a child, whitespace before the end tag) used
        by the original content of an element, or derived from its
        indentation."""
        sibling_ws = "\n" + own_indent + self.indent_unit
        closing_ws = "\n" + own_indent
        if record.children:
            if record.text and is_blank(record.text):
                sibling_ws = record.text
            last_tail = self.records[record.children[-1]].tail
            if last_tail and is_blank(last_tail):
                closing_ws = last_tail
        return sibling_ws, closing_ws

    def _start_tag(self, node: etree._Element, record: NodeRecord, *, self_closing: bool) -> bytes:
        """The start tag: original bytes where tag and attributes are
        unchanged; otherwise each unchanged attribute keeps its bytes."""
        data = self.original
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
            old_raw = {match.group(2).decode(self.encoding): match
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
                        quote + escape_attribute(value, quote) + quote))
                else:
                    pieces.append(self._encode(f' {name}="{escape_attribute(value)}"'))
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
            f' {name}="{escape_attribute(value)}"' for name, value in node.attrib.items())
        children = list(node)
        if not children and not node.text:
            out.append(self._encode(head + "/>"))
            return
        out.append(self._encode(head + ">"))
        sibling_ws = "\n" + indent + self.indent_unit
        closing_ws = "\n" + indent
        if not children:
            out.append(self._encode(escape_text(node.text or "")))
        else:
            out.append(self._boundary(node.text, False, sibling_ws, closing_ws))
            for index, child in enumerate(children):
                if dirty is not None and child in self.records:
                    self._emit(child, out, dirty, indent + self.indent_unit)
                else:
                    self._emit_new(child, out, indent + self.indent_unit, dirty)
                out.append(self._boundary(child.tail, index == len(children) - 1,
                                          sibling_ws, closing_ws))
        out.append(self._encode(f"</{node.tag}>"))
