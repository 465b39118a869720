"""Hardened XML parsing for untrusted VASSAL files.

Every XML file vmodtool reads (``buildFile.xml``, ``moduledata``,
``savedata`` …) may come from a stranger's module, so it is parsed with
:func:`parse_xml`, which

* never loads a DTD, never resolves an external entity and never touches the
  network;
* refuses, with :class:`~vmodtool.errors.UnsafeFileError`, any document whose
  DOCTYPE declares entities (external entities read local files, nested
  internal ones are the "billion laughs" bomb) or names an external DTD
  (some lxml option combinations open it even with ``load_dtd=False``) —
  before the parser sees it;
* refuses documents larger than a sane limit and, through libxml2's own
  limits, absurdly deep nesting or gigantic text nodes;
* checks UTF-8 itself so that a bad byte is reported with its byte offset;
* turns every parser complaint into a :class:`~vmodtool.errors.FormatError`
  naming the file, line and column and what the parser expected.  No lxml
  exception ever leaves this module.

VASSAL's files never contain a DOCTYPE, so refusing entity declarations
costs nothing on real files.
"""

from __future__ import annotations

import codecs
import re

from lxml import etree

from vmodtool.errors import FormatError, PathLike, UnsafeFileError

__all__ = ["MAX_XML_BYTES", "parse_xml", "declared_encoding", "check_utf8"]

#: Largest XML document accepted (bytes).  Real buildFiles are a few MB.
MAX_XML_BYTES = 256 * 1024 * 1024

_XML_DECL = re.compile(
    rb"^(?:\xef\xbb\xbf)?<\?xml\s[^>]*?\bencoding\s*=\s*[\"']([A-Za-z0-9._:-]+)[\"']")
_LOCATION_SUFFIX = re.compile(r",\s*line \d+,\s*column \d+\s*$")
_UTF8_NAMES = {"utf-8", "utf8"}


def _new_parser() -> etree.XMLParser:
    """An lxml parser that resolves nothing and loads nothing."""
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        attribute_defaults=False,
        huge_tree=False,
        recover=False,
        remove_blank_text=False,
        remove_comments=False,
        remove_pis=False,
        strip_cdata=False,
    )


def declared_encoding(data: bytes) -> str:
    """The document's encoding as a lower-case Python codec name:
    from a byte-order mark, else the XML declaration, else ``utf-8``."""
    if data.startswith(codecs.BOM_UTF8):
        return "utf-8"
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    if data.startswith(b"\x00<") or data.startswith(b"<\x00"):
        return "utf-16"
    match = _XML_DECL.match(data[:512])
    if match is None:
        return "utf-8"
    name = match.group(1).decode("ascii").lower()
    try:
        return codecs.lookup(name).name
    except LookupError:
        return name


def _line_column(data: bytes, offset: int) -> tuple[int, int]:
    """1-based line and column (in bytes) of ``offset``."""
    line = data.count(b"\n", 0, offset) + 1
    column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return line, column


def check_utf8(data: bytes, *, file: PathLike | None = None) -> None:
    """Raise :class:`FormatError` naming the byte offset (and line) of the
    first byte sequence in ``data`` that is not valid UTF-8."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as err:
        line, column = _line_column(data, err.start)
        bad = data[err.start:err.start + 1].hex().upper()
        raise FormatError(
            f"invalid UTF-8 (byte 0x{bad}: {err.reason}); the file must be UTF-8 "
            "encoded as its XML declaration says",
            file=file, place=f"byte {err.start} (line {line}, column {column})") from None


def _prolog_text(data: bytes, encoding: str) -> str:
    """The document as text for the DOCTYPE scan (markup is ASCII, so a
    single-byte decoding is exact for every ASCII-compatible encoding)."""
    if encoding.startswith("utf-16"):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            return ""
    return data.decode("latin-1")


_PROLOG_SKIP = re.compile(r"\A(?:\ufeff|\u00ef\u00bb\u00bf)?(?:\s+|<\?.*?\?>|<!--.*?-->)*", re.S)


_EXTERNAL_ID = re.compile(r"<!DOCTYPE\s+[^\s\[>]+\s+(?:SYSTEM|PUBLIC)\b")


def _refuse_entity_declarations(data: bytes, encoding: str,
                                file: PathLike | None) -> None:
    """Raise :class:`UnsafeFileError` when the DOCTYPE (which can only stand
    in the prolog) declares any entity or parameter entity."""
    text = _prolog_text(data, encoding)
    skipped = _PROLOG_SKIP.match(text)  # always matches: every part is optional
    start = skipped.end() if skipped else 0
    if not text.startswith("<!DOCTYPE", start):
        return
    end = text.find("]>", start)
    if end < 0:
        end = text.find(">", start)
    doctype = text[start:] if end < 0 else text[start:end + 2]
    line = text.count("\n", 0, start) + 1
    if _EXTERNAL_ID.match(doctype):
        raise UnsafeFileError(
            "the DOCTYPE refers to an external DTD; VASSAL files have no DTD, so "
            "the file was refused rather than let the parser open it",
            file=file, place=f"line {line}")
    if "<!ENTITY" in doctype:
        raise UnsafeFileError(
            "the DOCTYPE declares entities (external entity or entity expansion "
            "attack); VASSAL files never declare entities, so the file was refused",
            file=file, place=f"line {line}")


def _refuse_parsed_entities(root: etree._Element, file: PathLike | None) -> None:
    """Second line of defence: no DTD the parser saw may hold entities."""
    docinfo = root.getroottree().docinfo
    for dtd in (docinfo.internalDTD, docinfo.externalDTD):
        if dtd is not None and any(True for _ in dtd.iterentities()):
            raise UnsafeFileError("the DTD declares entities; the file was refused",
                                  file=file)


def _syntax_error(err: Exception, data: bytes, file: PathLike | None) -> FormatError:
    """A :class:`FormatError` for an lxml parse error."""
    message = getattr(err, "msg", None) or str(err) or type(err).__name__
    message = _LOCATION_SUFFIX.sub("", message.strip())
    position = getattr(err, "position", None)
    place = None
    if position and position[0]:
        place = f"line {position[0]}, column {position[1]}"
    elif lineno := getattr(err, "lineno", None):
        place = f"line {lineno}"
    return FormatError(f"malformed XML: {message}", file=file, place=place)


def parse_xml(data: bytes, *, file: PathLike | None = None,
              max_bytes: int = MAX_XML_BYTES) -> etree._Element:
    """Parse untrusted XML ``data`` and return its root element.

    ``file`` only names the source in error messages.  Raises
    :class:`UnsafeFileError` for entity declarations or oversized input and
    :class:`FormatError` for anything malformed (with line and column, or
    the byte offset of invalid UTF-8).
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError("parse_xml wants bytes")
    data = bytes(data)
    if len(data) > max_bytes:
        raise UnsafeFileError(
            f"XML document of {len(data)} bytes is larger than the limit of "
            f"{max_bytes} bytes", file=file)
    encoding = declared_encoding(data)
    _refuse_entity_declarations(data, encoding, file)
    if encoding in _UTF8_NAMES or encoding == "utf-8":
        check_utf8(data, file=file)
    try:
        root = etree.fromstring(data, _new_parser())
    except etree.XMLSyntaxError as err:
        raise _syntax_error(err, data, file) from None
    except (etree.LxmlError, ValueError, LookupError) as err:
        raise FormatError(f"unreadable XML: {err}", file=file) from None
    _refuse_parsed_entities(root, file)
    return root
