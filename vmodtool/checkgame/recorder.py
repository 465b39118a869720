"""The one replay pass of a game check, as a replay visitor: every step,
and each log's start and end state (for the ``chain`` section), kept for
the sections that judge the game once they have seen all of it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from vmodtool.checkgame.model import GameRecord
from vmodtool.replay.visitor import BoardView, LogStart, ReplayVisitor

if TYPE_CHECKING:
    from vmodtool.replay.game import Replay, Step
    from vmodtool.vassal.module import Module

__all__ = ["GameRecorder"]

Places = dict[str, tuple[str | None, int, int]]


class GameRecorder(ReplayVisitor[GameRecord]):
    """Records what a game check reads of one pass of ``replay``:
    ``replay.run(GameRecorder(logs, replay, module))`` gives the
    :class:`~vmodtool.checkgame.model.GameRecord` that
    :func:`~vmodtool.checkgame.check_game` judges.  It may share its pass
    with other visitors (the audit runs it beside its own)."""

    def __init__(self, logs: Sequence[Path], replay: Replay, module: Module | None = None, *,
                 dice_patterns: Sequence[str] = (), sides: Sequence[str] = ()) -> None:
        self.logs = list(logs)
        self.replay = replay
        self.module = module
        self.dice_patterns = tuple(dice_patterns)
        self.sides = tuple(sides)
        self.steps: list[Step] = []
        self.starts: list[Places] = []
        self.ends: list[Places] = []
        self.ghosts: list[Places] = []
        self.decks_at_end = 0

    def begin_log(self, log: LogStart, initial: BoardView) -> None:
        self.starts.append(initial.positions())

    def end_step(self, step: Step) -> None:
        self.steps.append(step)

    def end_log(self, log: LogStart, final: BoardView) -> None:
        self.ends.append(final.positions())
        self.ghosts.append(final.ghosts())
        self.decks_at_end = final.deck_count

    def result(self) -> GameRecord:
        return GameRecord(self.logs, self.replay, self.steps, self.module, self.starts, self.ends,
                          self.ghosts, dice_patterns=self.dice_patterns, sides=self.sides,
                          decks_at_end=self.decks_at_end)
