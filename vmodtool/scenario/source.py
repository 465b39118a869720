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

Every document is held to :mod:`vmodtool.scenario.limits` before a parser
can recurse or allocate past them: the file size is read no further than
the limit, YAML nesting and node counts are bounded in a pre-scan of the
event stream (or in the composer), a TOML text's bracket depth and integer
lengths are scanned before :mod:`tomllib` sees it, and every scalar is
checked (numbers by their written length before conversion).  A document
out of bounds has ``data`` None and a located problem.

TOML has no positions in :mod:`tomllib`; a small scan of the text maps table
headers and ``key =`` lines to line numbers, which is exact for the usual
layouts and falls back to the nearest parent key otherwise.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path as FsPath
from typing import Any

import yaml

from vmodtool.fileio import sniff
from vmodtool.scenario.limits import (
    BAD_TEXT_CHARS,
    MAX_CSV_BYTES,
    MAX_CSV_ROWS,
    MAX_DEPTH,
    MAX_FILE_BYTES,
    MAX_ITEMS,
    MAX_NODES,
    MAX_TEXT,
    number_text_problem,
    scalar_problem,
    text_problem,
)
from vmodtool.scenario.problems import Path, Problem

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = ["Document", "ValueInfo", "CONSTRUCTOR_ERRORS", "load_yaml", "load_toml", "load_document", "load_csv",
           "MAX_NODES", "MAX_DEPTH", "MAX_BYTES"]

MAX_BYTES = MAX_FILE_BYTES
# compose YAML with libyaml when PyYAML has it (5× faster on big files; the
# positions and the values are the same); the pure-Python loader otherwise
USE_LIBYAML = True


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
    #: sha256 of the bytes the document was parsed from ('' when not from a file)
    digest: str = ""

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


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader whose composer counts what it builds: no more
    than :data:`MAX_NODES` nodes and :data:`MAX_DEPTH` levels are composed
    (PyYAML's composer recurses once per level and keeps every node), so
    neither a deep nor a huge document gets further than the limit."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self._composed = 0
        self._depth = 0

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        self._composed += 1
        self._depth += 1
        try:
            message = (f"the document is nested deeper than {MAX_DEPTH} levels" if self._depth > MAX_DEPTH
                       else f"the document has more than {MAX_NODES} values" if self._composed > MAX_NODES
                       else None)
            if message is not None:
                event = self.peek_event()  # type: ignore[no-untyped-call]
                raise _TooBig(message, event.start_mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


_REFUSED = object()   # a scalar out of bounds (reported, never converted)


def _prescan_events(text: str) -> None:
    """Walk the YAML event stream with libyaml (fast, and not recursive) and
    raise :class:`_TooBig` at the first event past :data:`MAX_DEPTH` levels
    or :data:`MAX_NODES` values, before anything is composed: libyaml's
    composer recurses without Python's guard."""
    events = yaml.CSafeLoader(text)
    depth = count = 0
    try:
        while events.check_event():
            event = events.get_event()
            if event is None:
                break
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
                count += 1
                if depth > MAX_DEPTH:
                    raise _TooBig(f"the document is nested deeper than {MAX_DEPTH} levels", event.start_mark)
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
            elif isinstance(event, (yaml.ScalarEvent, yaml.AliasEvent)):
                count += 1
            if count > MAX_NODES:
                raise _TooBig(f"the document has more than {MAX_NODES} values", event.start_mark)
    finally:
        events.dispose()


#: what PyYAML's constructors raise, besides its own YAMLError, for an explicit
#: tag on a text it cannot read (``!!int margin``: ValueError, ``!!bool maybe``:
#: KeyError, ``!!int ""``: IndexError, ``!!timestamp nope``: AttributeError)
CONSTRUCTOR_ERRORS = (ValueError, KeyError, IndexError, AttributeError, TypeError)

#: the core schema's tags, as PyYAML resolves them
_STR, _INT, _FLOAT = "tag:yaml.org,2002:str", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"
_BOOL, _NULL = "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null"


class _Builder:
    """The document's values from its composed nodes, with where each was
    written (:class:`ValueInfo`), every scalar's text checked against the
    bounds before it is converted.  Strings, numbers, booleans and nulls
    are converted by the safe constructor's own functions, called directly
    (``construct_object`` is there for the other tags: its bookkeeping of
    every node was a third of a big scenario's load)."""

    def __init__(self, loader: Any, doc: Document) -> None:
        self.loader = loader
        self.doc = doc
        self.count = 0
        self.limits: list[Problem] = []   # values out of bounds: the document is refused
        self._int = loader.construct_yaml_int
        self._float = loader.construct_yaml_float
        self._bool = loader.construct_yaml_bool

    def out_of_bounds(self, node: yaml.Node, path: Path, message: str) -> None:
        mark = node.start_mark
        self.limits.append(Problem(message, file=self.doc.file, line=mark.line + 1,
                                   column=mark.column + 1, path=path))

    def scalar(self, node: yaml.ScalarNode, path: Path) -> Any:
        """The value of a scalar, converted only when its text is within bounds."""
        tag = node.tag
        raw = node.value
        if tag == _INT or tag == _FLOAT:
            refused = number_text_problem(raw)
            if refused is not None:
                self.out_of_bounds(node, path, refused)
                return _REFUSED
        elif len(raw) > MAX_TEXT:
            self.out_of_bounds(node, path, f"a text of {len(raw):,} characters; "
                                           f"texts are at most {MAX_TEXT:,} characters")
            return _REFUSED
        value: Any
        if tag == _STR:
            if BAD_TEXT_CHARS.search(raw) is None:
                return raw          # (most values: nothing else to check)
            value = raw
        else:
            try:
                if tag == _INT:
                    value = self._int(node)
                elif tag == _FLOAT:
                    value = self._float(node)
                elif tag == _BOOL:
                    value = self._bool(node)
                elif tag == _NULL:
                    value = None
                else:
                    value = self.loader.construct_object(node, deep=False)
            except CONSTRUCTOR_ERRORS:
                self.out_of_bounds(node, path, f"{raw!r} is not a YAML {_TAGS.get(tag, tag)}, which its tag "
                                               f"{tag.replace('tag:yaml.org,2002:', '!!')} asks for")
                return _REFUSED
        refused = scalar_problem(value)
        if refused is not None:
            self.out_of_bounds(node, path, refused)
            return _REFUSED
        return value

    def build(self, node: yaml.Node, path: Path, depth: int) -> Any:
        self.count += 1
        if self.count > MAX_NODES:
            raise _TooBig(f"the document expands to more than {MAX_NODES} values "
                          "(aliases repeated too often?)", node.start_mark)
        if depth > MAX_DEPTH:
            raise _TooBig(f"the document is nested deeper than {MAX_DEPTH} levels "
                          "(a recursive alias?)", node.start_mark)
        mark = node.start_mark
        info = self.doc.info
        if isinstance(node, yaml.ScalarNode):
            value = self.scalar(node, path)
            if value is _REFUSED:
                return None
            tag = _TAGS.get(node.tag, node.tag)
            if tag == "timestamp":   # keep dates as written
                value = node.value
                tag = "str"
            info[path] = ValueInfo(mark.line + 1, mark.column + 1, node.value, not node.style, tag)
            return value
        info[path] = ValueInfo(mark.line + 1, mark.column + 1)
        if isinstance(node, (yaml.SequenceNode, yaml.MappingNode)) and len(node.value) > MAX_ITEMS:
            self.out_of_bounds(node, path, f"{len(node.value):,} entries; a list or mapping has at most "
                                           f"{MAX_ITEMS:,}")
            return None
        depth += 1
        if isinstance(node, yaml.SequenceNode):
            build = self.build
            return [build(item, path + (i,), depth) for i, item in enumerate(node.value)]
        if isinstance(node, yaml.MappingNode):
            self.loader.flatten_mapping(node)  # merge keys (<<) as PyYAML does
            out: dict[Any, Any] = {}
            key_info = self.doc.key_info
            for key_node, value_node in node.value:
                if not isinstance(key_node, yaml.ScalarNode):
                    self.doc.problems.append(Problem(
                        "a mapping key must be a plain value, not a list or mapping",
                        file=self.doc.file, line=key_node.start_mark.line + 1,
                        column=key_node.start_mark.column + 1, path=path))
                    continue
                key = self.scalar(key_node, path)
                if key is _REFUSED:
                    continue   # reported; the document is refused
                if key.__class__ is not str and (isinstance(key, bool) or key is None
                                                 or not isinstance(key, (int, float))):
                    # a key is never a boolean or null in a scenario: YAML 1.1 reads
                    # `on:`, `yes:`, `no:`, `null:` as such; keep the text as written
                    key = key_node.value
                kmark = key_node.start_mark
                kinfo = ValueInfo(kmark.line + 1, kmark.column + 1, key_node.value,
                                  not key_node.style, _TAGS.get(key_node.tag, key_node.tag))
                key_path = path + (key,)
                if key in out:
                    first = key_info.get(key_path)
                    self.doc.problems.append(Problem(
                        f"duplicate key {key_node.value!r}"
                        + (f" (first at line {first.line})" if first else "")
                        + "; YAML would silently keep only the last one",
                        file=self.doc.file, line=kinfo.line, column=kinfo.column,
                        path=key_path))
                key_info[key_path] = kinfo
                out[key] = self.build(value_node, key_path, depth)
            return out
        raise _TooBig(f"unsupported YAML node {type(node).__name__}", node.start_mark)


class _TooBig(Exception):
    def __init__(self, message: str, mark: Any) -> None:
        super().__init__(message)
        self.mark = mark


def _line_column(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of a character offset of ``text``."""
    offset = max(0, min(offset, len(text)))
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _yaml_error(file: str, text: str, exc: yaml.YAMLError, byte_offsets: bool = False) -> Problem:
    if isinstance(exc, yaml.reader.ReaderError):
        # raised by the reader before any mark exists: locate its offset
        # (libyaml's is a byte offset of the UTF-8 text)
        offset = exc.position
        if byte_offsets:
            offset = len(text.encode("utf-8", "surrogatepass")[:offset].decode("utf-8", "ignore"))
        line, column = _line_column(text, offset)
        char = exc.character
        what = f"U+{char:04X}" if isinstance(char, int) else repr(char)
        return Problem(f"not valid YAML: the character {what} is not allowed in a YAML file",
                       file=file, line=line, column=column)
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    context = getattr(exc, "context", None)
    message = f"not valid YAML: {problem}" + (f" ({context})" if context else "")
    if mark is not None:
        return Problem(message, file=file, line=mark.line + 1, column=mark.column + 1)
    return Problem(message, file=file)


def load_yaml(text: str, file: str) -> Document:
    """Parse YAML text (safely) into a :class:`Document`; a document out of
    bounds (:mod:`.limits`) has ``data`` None and says where."""
    doc = Document(file=file, data=None)
    loader: Any = None
    fast = bool(yaml.__with_libyaml__) and USE_LIBYAML
    try:
        if fast:
            # libyaml: the event pre-scan bounds what its composer then builds
            _prescan_events(text)
            loader = yaml.CSafeLoader(text)
        else:
            loader = _Loader(text)    # the reader checks the characters here already
        node = loader.get_single_node()
        if node is None:
            doc.data = None
            return doc
        builder = _Builder(loader, doc)
        data = builder.build(node, (), 0)
        if builder.limits:
            doc.problems.extend(builder.limits)
        else:
            doc.data = data
    except yaml.YAMLError as exc:
        doc.problems.append(_yaml_error(file, text, exc, byte_offsets=fast))
    except _TooBig as exc:
        doc.problems.append(Problem(str(exc), file=file, line=exc.mark.line + 1,
                                    column=exc.mark.column + 1))
    except RecursionError:   # pragma: no cover - the composer and builder stop at MAX_DEPTH first
        doc.problems.append(Problem(f"the document is nested deeper than {MAX_DEPTH} levels", file=file))
    finally:
        if loader is not None:
            loader.dispose()
    return doc


# -- TOML -------------------------------------------------------------------

_TOML_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$")
_TOML_KEY = re.compile(r'^\s*((?:[A-Za-z0-9_-]+|"[^"]*"|\'[^\']*\')'
                       r'(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"]*"|\'[^\']*\'))*)\s*=')


def _toml_keys(text: str) -> list[str]:
    parts = re.findall(r'"([^"]*)"|\'([^\']*)\'|([A-Za-z0-9_-]+)', text)
    return [a or b or c for a, b, c in parts]


# strings and comments (skipped whole, so that their brackets do not count),
# brackets, the separators of values, and written integers
_TOML_TOKEN = re.compile(
    r'"""(?:[^\\]|\\.)*?"""{0,2}|' r"'''.*?'''{0,2}|"
    r'"(?:[^"\\\n]|\\.)*"|' r"'[^'\n]*'|"
    r"#[^\n]*|[\[{]|[\]}]|[=,]|"
    r"(?<![\w.+-])[+-]?(?:0[xob][0-9A-Fa-f_]+|\d[\d_]*)", re.S)


def _toml_prescan(text: str, file: str) -> Problem | None:
    """What puts a TOML text out of bounds before :mod:`tomllib` reads it:
    nesting deeper than :data:`MAX_DEPTH` (tomllib recurses once per level),
    more than :data:`MAX_NODES` values, or an integer too long to convert
    (Python refuses decimal texts of more than 4,300 digits; hex ones it
    converts to numbers of any size).  Stops at the first such token."""
    depth = 0
    values = 0
    for m in _TOML_TOKEN.finditer(text):
        token = m.group()
        head = token[0]
        message = None
        if head in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                message = f"the document is nested deeper than {MAX_DEPTH} levels"
        elif head in "]}":
            depth = max(0, depth - 1)
        elif head in "=,":
            values += 1
            if values > MAX_NODES:
                message = f"the document has more than {MAX_NODES} values"
        elif head not in "\"'#":
            message = number_text_problem(token)
        if message is not None:
            line, column = _line_column(text, m.start())
            return Problem(message, file=file, line=line, column=column)
    return None


def _check_tree(doc: Document) -> list[Problem]:
    """Bounds of parsed data (TOML: tomllib converts every value itself):
    depth, values, entries per list or mapping, texts and keys, numbers."""
    out: list[Problem] = []
    count = 0
    stack: list[tuple[Any, Path]] = [(doc.data, ())]
    while stack and len(out) < 20:
        value, path = stack.pop()
        count += 1
        if count > MAX_NODES:
            out.append(doc.problem(path, f"the document has more than {MAX_NODES} values"))
            break
        if len(path) > MAX_DEPTH:
            out.append(doc.problem(path, f"the document is nested deeper than {MAX_DEPTH} levels"))
            continue
        if isinstance(value, (dict, list)):
            if len(value) > MAX_ITEMS:
                out.append(doc.problem(path, f"{len(value):,} entries; a list or mapping has at most "
                                             f"{MAX_ITEMS:,}"))
                continue
            if isinstance(value, dict):
                for key, item in value.items():
                    refused = scalar_problem(key)
                    if refused is not None:
                        out.append(doc.problem(path, f"key: {refused}"))
                        continue
                    stack.append((item, path + (key,)))
            else:
                stack.extend((item, path + (i,)) for i, item in enumerate(value))
            continue
        refused = scalar_problem(value)
        if refused is not None:
            out.append(doc.problem(path, refused))
    return out


def load_toml(text: str, file: str) -> Document:
    """Parse TOML text into a :class:`Document` (positions approximate, see
    the module docstring); a document out of bounds (:mod:`.limits`) has
    ``data`` None and says where."""
    doc = Document(file=file, data=None)
    refused = _toml_prescan(text, file)
    if refused is not None:
        doc.problems.append(refused)
        return doc
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+), column (\d+)", str(exc))
        err_line, err_col = (int(m.group(1)), int(m.group(2))) if m else (None, None)
        doc.problems.append(Problem(f"not valid TOML: {str(exc).split(' (at ')[0]}", file=file,
                                    line=err_line, column=err_col))
        return doc
    except (ValueError, RecursionError) as exc:  # pragma: no cover - the pre-scan stops these first
        doc.problems.append(Problem(f"the TOML document is out of bounds: {exc}", file=file))
        return doc
    doc.data = data
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
    limits = _check_tree(doc)
    if limits:
        doc.problems.extend(limits)
        doc.data = None
    return doc


# -- any document -----------------------------------------------------------

def load_document(path: FsPath) -> Document:
    """Read a YAML or TOML scenario file (chosen by its extension)."""
    file = str(path)
    try:
        raw = _read_bounded(path, MAX_FILE_BYTES)
    except OSError as exc:
        return Document(file=file, data=None,
                        problems=[Problem(f"cannot read the file: {exc.strerror}", file=file)])
    if raw is None:
        return Document(file=file, data=None, problems=[Problem(
            f"the file is larger than {MAX_FILE_BYTES // (1024 * 1024)} MB, the limit of a scenario file",
            file=file)])
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
    doc = load_toml(text, file) if path.suffix.lower() == ".toml" else load_yaml(text, file)
    doc.digest = hashlib.sha256(raw).hexdigest()
    return doc


def _read_bounded(path: FsPath, limit: int) -> bytes | None:
    """The bytes of ``path``, or None when it has more than ``limit`` (read
    no further than that)."""
    with path.open("rb") as stream:
        raw = stream.read(limit + 1)
    return None if len(raw) > limit else raw


def load_csv(path: FsPath) -> tuple[list[dict[str, str]], list[int], list[Problem]]:
    """Rows of a CSV file as dicts (header → value), the line number of each
    row, and problems (unreadable file, bad encoding, out of bounds: more
    than :data:`MAX_CSV_ROWS` rows, a field longer than
    :data:`MAX_CSV_FIELD` characters or with a control character)."""
    file = str(path)
    try:
        raw = _read_bounded(path, MAX_CSV_BYTES)
        if raw is None:
            return [], [], [Problem(f"the counter mix CSV is larger than {MAX_CSV_BYTES // (1024 * 1024)} MB, "
                                    "the limit of a CSV file", file=file)]
        text = raw.decode("utf-8-sig")
    except OSError as exc:
        return [], [], [Problem(f"cannot read the counter mix CSV: {exc.strerror}", file=file)]
    except UnicodeDecodeError as exc:
        return [], [], [Problem(f"the CSV file is not UTF-8 text (offset {exc.start})", file=file)]
    # Python 3.10's csv module refuses a NUL outright ("line contains NUL"),
    # 3.11+ reads it: a NUL stands in as a character the text lacks while
    # the CSV is parsed, so both report the field and character it is at
    nul = None
    if "\0" in text:
        nul = next(c for c in map(chr, range(0xE000, 0xF900)) if c not in text)
        text = text.replace("\0", nul)
    reader = csv.DictReader(io.StringIO(text, newline=""))
    rows: list[dict[str, str]] = []
    lines: list[int] = []
    try:
        for row in reader:
            if len(rows) >= MAX_CSV_ROWS:
                return rows, lines, [Problem(f"more than {MAX_CSV_ROWS:,} rows; a counter mix CSV has at most "
                                             f"{MAX_CSV_ROWS:,}", file=file, line=reader.line_num)]
            for key, value in row.items():
                for part in (key, *(value if isinstance(value, list) else [value])):
                    if nul is not None and isinstance(part, str):
                        part = part.replace(nul, "\0")
                    refused = text_problem(part) if isinstance(part, str) else None
                    if refused is not None:
                        name = key.replace(nul, "\0") if nul is not None and isinstance(key, str) else key
                        column = name if isinstance(name, str) and text_problem(name) is None else "?"
                        return rows, lines, [Problem(refused, file=file, line=reader.line_num,
                                                     path=("counters", column))]
            if not any((v or "").strip() for v in row.values() if isinstance(v, str)):
                continue
            rows.append(row)
            lines.append(reader.line_num)
    except csv.Error as exc:
        return rows, lines, [Problem(f"not a valid CSV file: {exc}", file=file,
                                     line=reader.line_num)]
    return rows, lines, []
