"""A ``check-game`` section as a replay visitor (:class:`SectionVisitor`):
each section is driven over the steps of the game's record
(:func:`~vmodtool.replay.visitor.walk_step`, the replay's own dispatch), does
its per-event work in ``visit_<event>`` methods and gives its verdict, a
:class:`~vmodtool.checkgame.model.Section`, in :meth:`~SectionVisitor.result`.

The record is made in one replay pass
(:class:`~vmodtool.checkgame.recorder.GameRecorder`); the sections judge it
once they have seen all of it (an undo may come any number of steps after
the step it takes back), so they walk the recorded steps, all of them side
by side in one walk (:func:`run_sections`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from vmodtool.replay.visitor import ReplayVisitor, walk_step

if TYPE_CHECKING:
    from vmodtool.checkgame.model import GameRecord, Section

__all__ = ["SectionVisitor", "run_sections", "run_section"]


class SectionVisitor(ReplayVisitor["Section"]):
    """Base class of a check-game section: it reads ``record`` (the logs,
    the replay's roster, chain differences and saved games, the module)
    besides the events it visits."""

    def __init__(self, record: GameRecord) -> None:
        self.record = record


def run_sections(record: GameRecord, sections: Sequence[SectionVisitor]) -> list[Section]:
    """Walk every recorded step once through every section (in the order
    given), then ask each for its verdict."""
    for step in record.steps:
        for visitor in sections:
            walk_step(visitor, step)
    return [visitor.result() for visitor in sections]


def run_section(section: SectionVisitor) -> Section:
    """One section over its record's steps."""
    return run_sections(section.record, [section])[0]
