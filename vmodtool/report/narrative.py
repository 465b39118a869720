"""The report's narrative column: the notes a reader of a series replay
reads beside the steps.  Two sources, one column: a notes file
(``vmodtool report --notes FILE``, the file ``vmodtool merge --notes``
reads), each note placed at the chain step it names, and a merged log's
own notes (the ``[note] text`` chat lines ``merge`` wrote), read from the
replay as it runs by :class:`NoteReader`, a visitor of the same pass as
the frames."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vmodtool.errors import VmodError
from vmodtool.replay.visitor import ReplayVisitor
from vmodtool.step_notes import NOTE_MARK, Note

if TYPE_CHECKING:
    from vmodtool.replay.events import ChatEvent
    from vmodtool.replay.game import Replay, Step

__all__ = ["StepNote", "NoteReader", "placed_notes", "narrative_records"]


@dataclass(frozen=True)
class StepNote:
    """A note shown beside step ``step`` (0: the saved state); ``source``
    ``"notes"`` (a notes file) or ``"log"`` (a merged log's note line)."""

    step: int
    text: str
    source: str

    def record(self) -> dict[str, Any]:
        return {"step": self.step, "text": self.text, "source": self.source}


def placed_notes(notes: Iterable[Note], replay: Replay) -> list[StepNote]:
    """A notes file's notes at the chain steps they name (``N`` over the
    chain, ``LOG:N`` within a log; step 0 of a later log is shown with the
    last step of the log before it, the board it starts from).  A note
    naming a step or log the game does not have is a ``VmodError`` located
    at its line, raised before the game is replayed."""
    files = [str(f) for f in replay.files]
    per_file: list[int] | None = None
    out = []
    for note in notes:
        if per_file is None:
            per_file = [len(g.log_steps()) for g in replay.games]
        try:
            step = note.address.chain_step(files, per_file)
        except VmodError as exc:
            raise exc.located(file=note.file, place=note.place) from None
        out.append(StepNote(step, note.text, "notes"))
    return out


class NoteReader(ReplayVisitor[list[StepNote]]):
    """The notes a merged log holds: each chat line ``[note] text`` (as the
    chat window shows it, HTML entities decoded) at the step it is."""

    def __init__(self) -> None:
        self.notes: list[StepNote] = []
        self._step = 0

    def begin_step(self, step: Step) -> None:
        self._step = step.number

    def visit_chat(self, event: ChatEvent) -> None:
        shown = event.display
        if shown.startswith(NOTE_MARK) and shown[len(NOTE_MARK):].strip():
            self.notes.append(StepNote(self._step, shown[len(NOTE_MARK):].strip(), "log"))

    def result(self) -> list[StepNote]:
        return self.notes


def narrative_records(*sources: Sequence[StepNote]) -> list[dict[str, Any]]:
    """The column's entries as the page reads them, by step (a step's
    notes in the order their sources are given, each source in its own
    order)."""
    notes = [n for source in sources for n in source]
    notes.sort(key=lambda n: n.step)        # stable: a step's notes stay in order
    return [n.record() for n in notes]
