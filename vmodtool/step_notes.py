"""Notes on the steps of a game, as ``vmodtool merge --notes`` writes them
into a merged log and ``vmodtool report --notes`` shows them beside the
steps: the notes file (one note a line, ``STEP: text`` or ``LOG:STEP:
text``), the step addresses it uses (``N`` over the whole chain of logs,
``LOG:N`` within one log) and where an address falls in a chain.

A notes file is untrusted text: read bounded (16 MiB), UTF-8, every
problem located by file and line."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Union

from vmodtool.errors import FormatError, VmodError

__all__ = ["NOTE_MARK", "StepAddress", "Note", "read_notes", "read_user_text"]

PathLike = Union[str, "os.PathLike[str]"]

#: a note's chat line in a merged log starts so (``[note] text``)
NOTE_MARK = "[note] "

_LIMIT = 16 * 1024 * 1024


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

    def resolve(self, files: Sequence[str], per_file: Sequence[int]) -> tuple[int, int]:
        """(log index, step within that log) of this address in a chain of
        ``files`` with ``per_file`` steps each (step 0 of a log: before
        its first step); ``VmodError`` (not located: the caller knows
        where the address was written) for a step or log that does not
        exist."""
        if self.log is None:
            total = 0
            for k, n in enumerate(per_file):
                if self.step <= total + n:
                    return k, self.step - total
                total += n
            raise VmodError(f"step {self.step} is beyond the chain's {total} steps")
        if isinstance(self.log, int):
            k = self.log - 1
            if not 0 <= k < len(files):
                raise VmodError(f"log {self.log} is not one of the {len(files)} logs")
        else:
            matches = [i for i, f in enumerate(files) if Path(f).name == self.log or Path(f).stem == self.log]
            if len(matches) != 1:
                raise VmodError(f"{'no' if not matches else 'more than one'} log named {self.log!r}")
            k = matches[0]
        if self.step > per_file[k]:
            raise VmodError(f"{Path(files[k]).name} has {per_file[k]} steps, not {self.step}")
        return k, self.step

    def chain_step(self, files: Sequence[str], per_file: Sequence[int]) -> int:
        """The step number over the whole chain (as ``replay`` numbers
        steps) this address names; step 0 of a later log is the last step
        of the log before it (the board that log starts from)."""
        k, step = self.resolve(files, per_file)
        return sum(per_file[:k]) + step


@dataclass(frozen=True)
class Note:
    """One note of a notes file: the step it is about, its text, and where
    it was written (``file``, 1-based ``line``)."""

    address: StepAddress
    text: str
    file: str | None = None
    line: int | None = None

    @property
    def place(self) -> str | None:
        return f"line {self.line}" if self.line is not None else None


def read_user_text(path: PathLike, file: str, what: str) -> str:
    """A user's text file (a notes file, an edit list): at most 16 MiB,
    UTF-8 (a BOM allowed); one located error otherwise."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read(_LIMIT + 1)
    except OSError as exc:
        raise VmodError(f"cannot read the {what}: {exc.strerror}", file=file) from None
    if len(raw) > _LIMIT:
        raise FormatError(f"the {what} is larger than 16 MiB", file=file)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FormatError(f"not UTF-8 text ({exc.reason})", file=file, place=f"byte {exc.start}") from None


_NOTE_LINE = re.compile(r"^\s*((?:[^:\s][^:]*:)?\s*\d+)\s*:\s?(.*)$")


def read_notes(path: PathLike) -> list[Note]:
    """A notes file: one note a line, ``STEP: text`` or ``LOG:STEP: text``
    (``#`` starts a comment line; blank lines are skipped)."""
    file = os.fspath(path)
    text = read_user_text(path, file, "notes file")
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = _NOTE_LINE.match(line)
        if m is None or not m.group(2).strip():
            raise FormatError("expected 'STEP: text' or 'LOG:STEP: text'", file=file, place=f"line {n}")
        out.append(Note(StepAddress.parse(m.group(1), file=file, place=f"line {n}"), m.group(2).strip(), file, n))
    return out
