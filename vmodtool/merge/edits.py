"""The edit lists and notes files of ``vmodtool merge``: which steps to
delete or annotate, addressed over the whole chain (``N``) or within one log
(``LOG:N``), read as untrusted input (YAML safe loading, 16 MiB at most)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Union

from vmodtool.errors import FormatError, VmodError

__all__ = ["StepAddress", "Edit", "read_edits", "read_notes"]

PathLike = Union[str, "os.PathLike[str]"]

_MAX_EDITS = 100_000


@dataclass(frozen=True)
class StepAddress:
    """A step: ``step`` over the whole chain (``log`` None) or ``step`` of
    one log (``log`` its 1-based index or its file name); step 0 is the
    start (before the first step)."""

    step: int
    log: int | str | None = None

    @classmethod
    def parse(cls, text: str, *, file: str | None = None, place: str | None = None) -> StepAddress:
        text = text.strip()
        log: int | str | None = None
        head, sep, tail = text.rpartition(":")
        if sep:
            log = int(head) if head.strip().isdigit() else head.strip()
            text = tail.strip()
            if log == "":
                raise FormatError(f"a step address {text!r} with an empty log part", file=file, place=place)
        if not text.isdigit():
            raise FormatError(f"not a step address (N or LOG:N): {text!r}", file=file, place=place)
        return cls(int(text), log)

    def label(self) -> str:
        return f"{self.log}:{self.step}" if self.log is not None else str(self.step)


@dataclass(frozen=True)
class Edit:
    """One entry of an edit list: ``delete`` the step or ``annotate`` it
    with ``text`` (a note before it)."""

    address: StepAddress
    action: str
    text: str = ""


def read_edits(path: PathLike) -> list[Edit]:
    """An edit list (YAML or JSON): a list of ``{step: N | "LOG:N",
    delete: true}`` or ``{step: …, note: text}`` entries."""
    file = os.fspath(path)
    data = _load_yaml(path, file)
    if isinstance(data, dict) and "edits" in data:
        data = data["edits"]
    if not isinstance(data, list):
        raise FormatError("an edit list is a list of entries ({step: N, delete: true} or "
                          "{step: N, note: text})", file=file)
    if len(data) > _MAX_EDITS:
        raise FormatError(f"more than {_MAX_EDITS} edits", file=file)
    out = []
    for i, entry in enumerate(data, 1):
        place = f"entry {i}"
        if not isinstance(entry, dict) or "step" not in entry:
            raise FormatError("an entry needs 'step' and 'delete: true' or 'note: text'", file=file, place=place)
        address = StepAddress.parse(str(entry["step"]), file=file, place=place)
        unknown = set(entry) - {"step", "delete", "note"}
        if unknown:
            raise FormatError(f"unknown key(s) {', '.join(sorted(map(str, unknown)))} (step, delete, note)",
                              file=file, place=place)
        if entry.get("delete") is True:
            out.append(Edit(address, "delete"))
        if "note" in entry:
            if not isinstance(entry["note"], str) or not entry["note"].strip():
                raise FormatError("'note' must be a text", file=file, place=place)
            out.append(Edit(address, "annotate", entry["note"].strip()))
        if entry.get("delete") is not True and "note" not in entry:
            raise FormatError("an entry needs 'delete: true' or 'note: text'", file=file, place=place)
    return out


def _read_text(path: PathLike, file: str, what: str) -> str:
    limit = 16 * 1024 * 1024
    try:
        with open(path, "rb") as fh:
            raw = fh.read(limit + 1)
    except OSError as exc:
        raise VmodError(f"cannot read the {what}: {exc.strerror}", file=file) from None
    if len(raw) > limit:
        raise FormatError(f"the {what} is larger than 16 MiB", file=file)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FormatError(f"not UTF-8 text ({exc.reason})", file=file, place=f"byte {exc.start}") from None


def _edit_loader() -> type:
    """``yaml.SafeLoader`` without YAML 1.1's base-60 numbers: ``step: 2:5``
    is log 2, step 5 (the text ``"2:5"``), never the number 125."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if tag not in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
    Loader.add_implicit_resolver("tag:yaml.org,2002:int", re.compile(r"^[-+]?[0-9]+$"), list("-+0123456789"))
    return Loader


def _load_yaml(path: PathLike, file: str) -> object:
    import yaml
    text = _read_text(path, file, "edit list")
    try:
        return yaml.load(text, Loader=_edit_loader())  # noqa: S506 - a SafeLoader with fewer resolvers
    except RecursionError:
        raise FormatError("not an edit list: nested too deep", file=file) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        place = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else None
        problem = getattr(exc, "problem", None) or "not YAML or JSON"
        raise FormatError(f"not a YAML/JSON edit list: {problem}", file=file, place=place) from None


_NOTE_LINE = re.compile(r"^\s*((?:[^:\s][^:]*:)?\s*\d+)\s*:\s?(.*)$")


def read_notes(path: PathLike) -> list[Edit]:
    """A notes file: one note a line, ``STEP: text`` or ``LOG:STEP: text``
    (``#`` starts a comment line; blank lines are skipped)."""
    file = os.fspath(path)
    text = _read_text(path, file, "notes file")
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = _NOTE_LINE.match(line)
        if m is None or not m.group(2).strip():
            raise FormatError("expected 'STEP: text' or 'LOG:STEP: text'", file=file, place=f"line {n}")
        out.append(Edit(StepAddress.parse(m.group(1), file=file, place=f"line {n}"), "annotate",
                        m.group(2).strip()))
    return out

