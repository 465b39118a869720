"""The edit lists of ``vmodtool merge``: which steps to delete or annotate,
addressed over the whole chain (``N``) or within one log (``LOG:N``), read
as untrusted input (YAML safe loading, 16 MiB at most).  Notes files and
step addresses are :mod:`vmodtool.step_notes` (``vmodtool report`` reads
them too)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Union

from vmodtool.errors import FormatError
from vmodtool.step_notes import Note, StepAddress, read_user_text

__all__ = ["Edit", "read_edits"]

PathLike = Union[str, "os.PathLike[str]"]

_MAX_EDITS = 100_000


@dataclass(frozen=True)
class Edit:
    """One entry of an edit list: ``delete`` the step or ``annotate`` it
    with ``text`` (a note before it); ``file`` and ``place`` where it was
    written (not compared)."""

    address: StepAddress
    action: str
    text: str = ""
    file: str | None = field(default=None, compare=False)
    place: str | None = field(default=None, compare=False)

    @classmethod
    def of_note(cls, note: Note) -> Edit:
        """A notes file's note as an edit: annotate its step."""
        return cls(note.address, "annotate", note.text, note.file, note.place)


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
            out.append(Edit(address, "delete", file=file, place=place))
        if "note" in entry:
            if not isinstance(entry["note"], str) or not entry["note"].strip():
                raise FormatError("'note' must be a text", file=file, place=place)
            out.append(Edit(address, "annotate", entry["note"].strip(), file, place))
        if entry.get("delete") is not True and "note" not in entry:
            raise FormatError("an entry needs 'delete: true' or 'note: text'", file=file, place=place)
    return out


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
    text = read_user_text(path, file, "edit list")
    try:
        return yaml.load(text, Loader=_edit_loader())  # noqa: S506 - a SafeLoader with fewer resolvers
    except RecursionError:
        raise FormatError("not an edit list: nested too deep", file=file) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        place = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else None
        problem = getattr(exc, "problem", None) or "not YAML or JSON"
        raise FormatError(f"not a YAML/JSON edit list: {problem}", file=file, place=place) from None
