"""The small metadata files of VASSAL archives: ``moduledata`` (modules),
``savedata`` (saves and logs) and ``extensiondata`` (extensions).

``docs/vassal-format.md`` §1.3, §1.5 and §4.1.  All three are
``<data version="1">`` documents.  Reading copies VASSAL's SAX handler
(``AbstractMetaData.XMLHandler``):

* the root is not checked and unknown elements are ignored;
* an element's value is the character data since the most recent start tag,
  trimmed like Java's ``String.trim``;
* the first ``<name>``/``<description>`` is the value, every later one a
  translation keyed by its ``lang`` attribute — except that files saved by
  VASSAL before 3.6.11 swapped language and text (``isPreBug11929``), which
  is undone by looking at the ``VassalVersion`` read so far.  A file without
  ``VassalVersion`` counts as current (VASSAL assumes its own version).

Writing produces VASSAL 3.7's layout: the XML declaration with
``standalone="no"``, 2-space indentation, the elements in the order
``version, extra1, extra2, VassalVersion, dateSaved, description`` (+
translations), then ``name`` (+ translations) for modules or ``universal``
for extensions.  Translations are written the 3.6.11+ way; only metadata
whose ``vassal_version`` is older gets them swapped, as that VASSAL wrote them,
so that reading back gives the same object.  ``dateSaved`` is written as held (VASSAL writes the current
time; set :attr:`date_saved` yourself, see :func:`now_millis`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import ClassVar, TypeVar

from lxml import etree

from vmodtool.errors import PathLike
from vmodtool.vassal.safexml import parse_xml

__all__ = [
    "ModuleMetadata",
    "SaveMetadata",
    "ExtensionMetadata",
    "MODULE_ENTRY",
    "SAVE_ENTRY",
    "EXTENSION_ENTRY",
    "is_pre_translation_fix",
    "now_millis",
]

MODULE_ENTRY = "moduledata"
SAVE_ENTRY = "savedata"
EXTENSION_ENTRY = "extensiondata"

_JAVA_SPACE = "".join(chr(code) for code in range(0x21))
_TRANSLATION_FIX = (3, 6, 11)
_DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="no"?>'

_M = TypeVar("_M", bound="_Metadata")


def now_millis() -> str:
    """The current time as VASSAL writes ``dateSaved`` (epoch milliseconds)."""
    return str(int(time.time() * 1000))


def _maven_number(token: str) -> int:
    """One numeric part of a Maven version; ValueError when not a number
    (or written with a leading zero)."""
    if len(token) > 1 and token.startswith("0"):
        raise ValueError(token)
    if not token.isdigit() or not token.isascii():
        raise ValueError(token)
    value = int(token)
    if value > 2**31 - 1:
        raise ValueError(token)
    return value


def _incremental_version(version: str) -> tuple[int, int, int]:
    """(major, minor, incremental) as Maven's ``DefaultArtifactVersion``
    parses them (what VASSAL's ``truncateToIncrementalVersion`` uses):
    anything after the first ``-`` is a qualifier, and a version it cannot
    parse counts as 0.0.0."""
    main = version.split("-", 1)[0]
    if "." not in main and not main.startswith("0"):
        try:
            return (_maven_number(main), 0, 0)
        except ValueError:
            return (0, 0, 0)
    if ".." in main or main.startswith(".") or main.endswith("."):
        return (0, 0, 0)
    parts = main.split(".")
    numbers: list[int] = []
    try:
        for part in parts[:3]:
            numbers.append(_maven_number(part))
    except ValueError:
        return (0, 0, 0)
    if len(parts) > 3 and parts[3].isdigit():
        return (0, 0, 0)  # Maven falls back when the 4th part is numeric
    while len(numbers) < 3:
        numbers.append(0)
    return (numbers[0], numbers[1], numbers[2])


def is_pre_translation_fix(vassal_version: str) -> bool:
    """True when VASSAL ``vassal_version`` wrote metadata translations with
    language and text swapped (before 3.6.11, VASSAL bug 11929)."""
    return _incremental_version(vassal_version) < _TRANSLATION_FIX


def _escape(text: str) -> str:
    """Character data as VASSAL's (JDK) serializer escapes it."""
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace("\r", "&#13;"))


def _escape_attribute(value: str) -> str:
    """An attribute value, double-quoted style."""
    return (_escape(value).replace('"', "&quot;").replace("\t", "&#9;")
            .replace("\n", "&#10;"))


class _SaxReplay:
    """Replays an lxml tree as the SAX events VASSAL's handler sees:
    ``start`` clears the accumulator and records ``lang``, character data
    accumulates, ``end`` hands over the trimmed accumulator."""

    def __init__(self, on_end: Callable[[str, str, str], None]) -> None:
        self._on_end = on_end
        self._accumulator: list[str] = []
        self._language = ""

    def run(self, root: etree._Element) -> None:
        """Walk ``root`` in document order."""
        self._element(root)

    def _element(self, element: etree._Element) -> None:
        self._accumulator.clear()
        self._language = element.get("lang", "")
        self._accumulator.append(element.text or "")
        for child in element:
            if isinstance(child.tag, str):
                self._element(child)
            self._accumulator.append(child.tail or "")
        value = "".join(self._accumulator).strip(_JAVA_SPACE)
        self._on_end(str(element.tag), value, self._language)


@dataclass
class _Metadata:
    """What every metadata file holds (``AbstractMetaData``)."""

    version: str = ""
    vassal_version: str = ""
    date_saved: str = ""
    description: str = ""
    description_translations: dict[str, str] = field(default_factory=dict)
    extra1: str = ""
    extra2: str = ""
    #: the line ending :meth:`to_bytes` writes: the parsed file's (VASSAL on
    #: Windows writes ``"\r\n"``), so that a 3.7 file round-trips byte for
    #: byte; not part of what the metadata says (equality ignores it)
    line_end: str = field(default="\n", compare=False, repr=False)

    #: zip entry name of this kind of metadata
    ENTRY: ClassVar[str] = ""
    #: write ``<description>`` even when empty (modules, extensions)
    _ALWAYS_DESCRIPTION: ClassVar[bool] = True

    # ---------------------------------------------------------------- reading
    @classmethod
    def parse(cls: type[_M], data: bytes, *, file: PathLike | None = None) -> _M:
        """Read metadata bytes the way VASSAL does (tolerant; see module
        docstring).  Malformed XML raises :class:`FormatError` with line."""
        root = parse_xml(data, file=file)
        metadata = cls()
        # the first line's ending (the declaration's) is the file's
        first = data.find(b"\n")
        metadata.line_end = "\r\n" if first > 0 and data[first - 1:first] == b"\r" else "\n"
        state = {"description_seen": False, "vassal_version_seen": False}
        metadata._read(root, state)
        return metadata

    def _read(self, root: etree._Element, state: dict[str, bool]) -> None:
        """Fill ``self`` from the SAX replay of ``root``."""
        _SaxReplay(lambda tag, value, lang: self._end_element(tag, value, lang, state)).run(root)

    def _pre_fix(self, state: dict[str, bool]) -> bool:
        """Are translations read so far swapped (VASSAL < 3.6.11)?"""
        return state["vassal_version_seen"] and is_pre_translation_fix(self.vassal_version)

    def _translation(self, translations: dict[str, str], value: str, language: str,
                     state: dict[str, bool]) -> None:
        """Add one translation, undoing the pre-3.6.11 swap."""
        if self._pre_fix(state):
            language, value = value, language
        translations[language] = value

    def _end_element(self, tag: str, value: str, language: str,
                     state: dict[str, bool]) -> None:
        """``XMLHandler.endElement``."""
        if tag == "version":
            self.version = value
        elif tag == "extra1":
            self.extra1 = value
        elif tag == "extra2":
            self.extra2 = value
        elif tag == "VassalVersion":
            self.vassal_version = value
            state["vassal_version_seen"] = True
        elif tag == "description":
            if not state["description_seen"]:
                self.description = value
                state["description_seen"] = True
            else:
                self._translation(self.description_translations, value, language, state)
        elif tag == "dateSaved":
            self.date_saved = value

    # ---------------------------------------------------------------- writing
    def _elements(self) -> list[tuple[str, str, str | None]]:
        """(tag, text, lang) in VASSAL 3.7's order."""
        items: list[tuple[str, str, str | None]] = [
            ("version", self.version, None),
            ("extra1", self.extra1, None),
            ("extra2", self.extra2, None),
            ("VassalVersion", self.vassal_version, None),
            ("dateSaved", self.date_saved, None),
        ]
        if self._ALWAYS_DESCRIPTION or self.description or self.description_translations:
            items.append(("description", self.description, None))
            items.extend(self._translation_elements("description",
                                                    self.description_translations))
        items.extend(self._extra_elements())
        return items

    def _translation_elements(self, tag: str, translations: dict[str, str]
                              ) -> list[tuple[str, str, str | None]]:
        """Translation elements; swapped the way the VASSAL version being
        written did it, so that every reader understands them (files with a
        VassalVersion ≥ 3.6.11 get the correct form)."""
        swap = is_pre_translation_fix(self.vassal_version)
        return [(tag, language, text) if swap else (tag, text, language)
                for language, text in translations.items()]

    def _extra_elements(self) -> list[tuple[str, str, str | None]]:
        """Elements a subclass writes after ``description``."""
        return []

    def to_bytes(self, *, line_end: str | None = None) -> bytes:
        """The file as VASSAL 3.7 writes it, with the line ending of the file
        it was parsed from (:attr:`line_end`) unless ``line_end`` is given
        (``"\\r\\n"`` is what VASSAL writes on Windows)."""
        if line_end is None:
            line_end = self.line_end
        lines = [_DECLARATION, '<data version="1">']
        for tag, text, language in self._elements():
            lang = "" if language is None else f' lang="{_escape_attribute(language)}"'
            if text:
                lines.append(f"  <{tag}{lang}>{_escape(text)}</{tag}>")
            else:
                lines.append(f"  <{tag}{lang}/>")
        lines.append("</data>")
        return (line_end.join(lines) + line_end).encode("utf-8")

    def copy(self: _M) -> _M:
        """A deep copy (translation dicts included)."""
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        for name, value in values.items():
            if isinstance(value, dict):
                values[name] = dict(value)
        return type(self)(**values)


@dataclass
class ModuleMetadata(_Metadata):
    """``moduledata``: module name (+ translations), version, VASSAL
    version, save date, description (+ translations), extra1/extra2."""

    name: str = ""
    name_translations: dict[str, str] = field(default_factory=dict)

    ENTRY: ClassVar[str] = MODULE_ENTRY

    def _read(self, root: etree._Element, state: dict[str, bool]) -> None:
        state["name_seen"] = False
        super()._read(root, state)

    def _end_element(self, tag: str, value: str, language: str,
                     state: dict[str, bool]) -> None:
        if tag == "name":
            if not state["name_seen"]:
                self.name = value
                state["name_seen"] = True
            else:
                self._translation(self.name_translations, value, language, state)
        else:
            super()._end_element(tag, value, language, state)

    def _extra_elements(self) -> list[tuple[str, str, str | None]]:
        return [("name", self.name, None)] + self._translation_elements(
            "name", self.name_translations)


@dataclass
class SaveMetadata(_Metadata):
    """``savedata`` of a save or log: module version, VASSAL version, save
    date, the optional comment (description), extra1/extra2.  The module's
    own metadata is the archive's separate ``moduledata`` entry."""

    ENTRY: ClassVar[str] = SAVE_ENTRY
    _ALWAYS_DESCRIPTION: ClassVar[bool] = False


@dataclass
class ExtensionMetadata(_Metadata):
    """``extensiondata``: extension version, VASSAL version, save date,
    description (+ translations), extra1/extra2 and ``universal`` (the
    extension may load with any module)."""

    universal: bool = False

    ENTRY: ClassVar[str] = EXTENSION_ENTRY

    def _end_element(self, tag: str, value: str, language: str,
                     state: dict[str, bool]) -> None:
        if tag == "universal":
            self.universal = value == "true"
        else:
            super()._end_element(tag, value, language, state)

    def _extra_elements(self) -> list[tuple[str, str, str | None]]:
        return [("universal", "true" if self.universal else "false", None)]


