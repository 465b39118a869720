"""Reading scenario documents (YAML, TOML, CSV) into plain data **with the
position of every value**, so that validation can name the line of each
mistake.

YAML is read with PyYAML's *safe* loader in two stages: ``compose`` builds
the node tree (no object construction at all), then :func:`load_yaml` turns it
into dicts, lists and scalars itself, recording each value's line and column
and how it was written (quoted or plain), so that an unquoted ``0304`` that
YAML read as the octal number 196 can be reported as such.  Duplicate keys
are errors (PyYAML silently keeps the last), and alias expansion is bounded
(no "billion laughs").

TOML has no positions in :mod:`tomllib`; a small scan of the text maps table
headers and ``key =`` lines to line numbers, which is exact for the usual
layouts and falls back to the nearest parent key otherwise.
"""

from __future__ import annotations

import csv
import io
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path as FsPath
from typing import Any

import yaml

from vmodtool.fileio import sniff
from vmodtool.scenario.problems import Path, Problem

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = ["Document", "ValueInfo", "load_yaml", "load_toml", "load_document", "load_csv",
           "MAX_NODES", "MAX_DEPTH", "MAX_BYTES"]

MAX_NODES = 250_000     # values produced from one document (alias bombs stop here)
MAX_DEPTH = 100
MAX_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class ValueInfo:
    """Where a value was written and how: ``line``/``column`` are 1-based;
    ``raw`` is the scalar's source text, ``plain`` whether it was unquoted,
    ``tag`` the YAML type it resolved to (``int``, ``float``, ``str``…)."""

    line: int
    column: int
    raw: str | None = None
    plain: bool = False
    tag: str = ""


@dataclass
class Document:
    """A parsed document: ``data`` and the :class:`ValueInfo` of each path
    (keys of mappings are paths too, under ``path + (key,)`` with
    ``key_info``)."""

    file: str
    data: Any
    info: dict[Path, ValueInfo] = field(default_factory=dict)
    key_info: dict[Path, ValueInfo] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)

    def where(self, path: Path) -> tuple[int | None, int | None]:
        """Line and column of ``path``, or of its nearest ancestor."""
        p = tuple(path)
        while True:
            info = self.info.get(p) or self.key_info.get(p)
            if info is not None:
                return info.line, info.column
            if not p:
                return None, None
            p = p[:-1]

    def problem(self, path: Path, message: str, severity: str = "error") -> Problem:
        line, column = self.where(path)
        return Problem(message, file=self.file, line=line, column=column, path=tuple(path),
                       severity=severity)

    def is_unquoted_number(self, path: Path) -> str | None:
        """The source text when the value at ``path`` was a plain scalar that
        YAML turned into a number (e.g. ``0304``), else None."""
        info = self.info.get(tuple(path))
        if info and info.plain and info.tag in ("int", "float") and info.raw is not None:
            return info.raw
        return None


_TAGS = {
    "tag:yaml.org,2002:int": "int", "tag:yaml.org,2002:float": "float",
    "tag:yaml.org,2002:bool": "bool", "tag:yaml.org,2002:null": "null",
    "tag:yaml.org,2002:str": "str", "tag:yaml.org,2002:timestamp": "timestamp",
}


class _Builder:
    def __init__(self, loader: yaml.SafeLoader, doc: Document) -> None:
        self.loader = loader
        self.doc = doc
        self.count = 0

    def build(self, node: yaml.Node, path: Path, depth: int) -> Any:
        self.count += 1
        if self.count > MAX_NODES:
            raise _TooBig(f"the document expands to more than {MAX_NODES} values "
                          "(aliases repeated too often?)", node)
        if depth > MAX_DEPTH:
            raise _TooBig(f"the document is nested deeper than {MAX_DEPTH} levels "
                          "(a recursive alias?)", node)
        mark = node.start_mark
        if isinstance(node, yaml.ScalarNode):
            value = self.loader.construct_object(node, deep=False)
            tag = _TAGS.get(node.tag, node.tag)
            if tag == "timestamp":   # keep dates as written
                value = node.value
                tag = "str"
            self.doc.info[path] = ValueInfo(mark.line + 1, mark.column + 1, node.value,
                                            node.style is None, tag)
            return value
        self.doc.info[path] = ValueInfo(mark.line + 1, mark.column + 1)
        if isinstance(node, yaml.SequenceNode):
            return [self.build(item, path + (i,), depth + 1) for i, item in enumerate(node.value)]
        if isinstance(node, yaml.MappingNode):
            self.loader.flatten_mapping(node)  # merge keys (<<) as PyYAML does
            out: dict[Any, Any] = {}
            for key_node, value_node in node.value:
                if not isinstance(key_node, yaml.ScalarNode):
                    self.doc.problems.append(Problem(
                        "a mapping key must be a plain value, not a list or mapping",
                        file=self.doc.file, line=key_node.start_mark.line + 1,
                        column=key_node.start_mark.column + 1, path=path))
                    continue
                key = self.loader.construct_object(key_node, deep=False)
                if isinstance(key, bool) or key is None or not isinstance(key, (str, int, float)):
                    # a key is never a boolean or null in a scenario: YAML 1.1 reads
                    # `on:`, `yes:`, `no:`, `null:` as such; keep the text as written
                    key = key_node.value
                kmark = key_node.start_mark
                kinfo = ValueInfo(kmark.line + 1, kmark.column + 1, key_node.value,
                                  key_node.style is None, _TAGS.get(key_node.tag, key_node.tag))
                if key in out:
                    first = self.doc.key_info.get(path + (key,))
                    self.doc.problems.append(Problem(
                        f"duplicate key {key_node.value!r}"
                        + (f" (first at line {first.line})" if first else "")
                        + "; YAML would silently keep only the last one",
                        file=self.doc.file, line=kinfo.line, column=kinfo.column,
                        path=path + (key,)))
                self.doc.key_info[path + (key,)] = kinfo
                out[key] = self.build(value_node, path + (key,), depth + 1)
            return out
        raise _TooBig(f"unsupported YAML node {type(node).__name__}", node)


class _TooBig(Exception):
    def __init__(self, message: str, node: yaml.Node) -> None:
        super().__init__(message)
        self.node = node


def _yaml_error(file: str, exc: yaml.YAMLError) -> Problem:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    message = f"not valid YAML: {problem}" + (f" ({context})" if context else "")
    if mark is not None:
        return Problem(message, file=file, line=mark.line + 1, column=mark.column + 1)
    return Problem(message, file=file)


def load_yaml(text: str, file: str) -> Document:
    """Parse YAML text (safely) into a :class:`Document`."""
    doc = Document(file=file, data=None)
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            doc.data = None
            return doc
        doc.data = _Builder(loader, doc).build(node, (), 0)
    except yaml.YAMLError as exc:
        doc.problems.append(_yaml_error(file, exc))
    except _TooBig as exc:
        mark = exc.node.start_mark
        doc.problems.append(Problem(str(exc), file=file, line=mark.line + 1,
                                    column=mark.column + 1))
    except RecursionError:
        doc.problems.append(Problem("the document is nested too deeply", file=file))
    finally:
        loader.dispose()
    return doc


# -- TOML -------------------------------------------------------------------

_TOML_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$")
_TOML_KEY = re.compile(r'^\s*((?:[A-Za-z0-9_-]+|"[^"]*"|\'[^\']*\')'
                       r'(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"]*"|\'[^\']*\'))*)\s*=')


def _toml_keys(text: str) -> list[str]:
    parts = re.findall(r'"([^"]*)"|\'([^\']*)\'|([A-Za-z0-9_-]+)', text)
    return [a or b or c for a, b, c in parts]


def load_toml(text: str, file: str) -> Document:
    """Parse TOML text into a :class:`Document` (positions approximate, see
    the module docstring)."""
    doc = Document(file=file, data=None)
    try:
        doc.data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+), column (\d+)", str(exc))
        err_line, err_col = (int(m.group(1)), int(m.group(2))) if m else (None, None)
        doc.problems.append(Problem(f"not valid TOML: {str(exc).split(' (at ')[0]}", file=file,
                                    line=err_line, column=err_col))
        return doc
    table: Path = ()
    arrays: dict[Path, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        header = _TOML_HEADER.match(line)
        if header:
            keys = tuple(_toml_keys(header.group(2)))
            if header.group(1) == "[[":
                arrays[keys] = arrays.get(keys, -1) + 1
                table = keys + (arrays[keys],)
            else:
                table = keys
            doc.info.setdefault(table, ValueInfo(number, 1))
            continue
        key = _TOML_KEY.match(line)
        if key:
            path = table + tuple(_toml_keys(key.group(1)))
            doc.info.setdefault(path, ValueInfo(number, line.index("=") + 2))
            doc.key_info.setdefault(path, ValueInfo(number, 1))
    return doc


# -- any document -----------------------------------------------------------

def load_document(path: FsPath) -> Document:
    """Read a YAML or TOML scenario file (chosen by its extension)."""
    file = str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return Document(file=file, data=None,
                        problems=[Problem(f"cannot read the file: {exc.strerror}", file=file)])
    if len(raw) > MAX_BYTES:
        return Document(file=file, data=None, problems=[Problem(
            f"the file is larger than {MAX_BYTES // (1024 * 1024)} MB", file=file)])
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        kind = sniff(raw[:512])
        if kind is not None and kind.key not in ("text", "utf16"):
            return Document(file=file, data=None, problems=[Problem(
                f"this is {kind.phrase}, not a scenario file (YAML or TOML text)", file=file)])
        line = raw[:exc.start].count(b"\n") + 1
        return Document(file=file, data=None, problems=[Problem(
            f"the file is not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start}); "
            "save it as UTF-8", file=file, line=line)])
    if path.suffix.lower() == ".toml":
        return load_toml(text, file)
    return load_yaml(text, file)


def load_csv(path: FsPath) -> tuple[list[dict[str, str]], list[int], list[Problem]]:
    """Rows of a CSV file as dicts (header → value), the line number of each
    row, and problems (unreadable file, bad encoding)."""
    file = str(path)
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as exc:
        return [], [], [Problem(f"cannot read the counter mix CSV: {exc.strerror}", file=file)]
    except UnicodeDecodeError as exc:
        return [], [], [Problem(f"the CSV file is not UTF-8 text (offset {exc.start})", file=file)]
    reader = csv.DictReader(io.StringIO(text, newline=""))
    rows: list[dict[str, str]] = []
    lines: list[int] = []
    try:
        for row in reader:
            if not any((v or "").strip() for v in row.values() if isinstance(v, str)):
                continue
            rows.append(row)
            lines.append(reader.line_num)
    except csv.Error as exc:
        return rows, lines, [Problem(f"not a valid CSV file: {exc}", file=file,
                                     line=reader.line_num)]
    return rows, lines, []
