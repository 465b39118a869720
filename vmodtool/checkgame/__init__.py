"""PBEM integrity of a played game, for any module and with no rules to
write (``vmodtool check-game``): continuity between the logs of a game,
undos and re-rolls, dice statistics per player, moves out of turn and of
hidden pieces, decks searched or reordered (``docs/check-game.md``).

:func:`record_game` replays the logs once; :func:`check_game` runs every
check over that record and returns a :class:`GameCheck` (text and JSON).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vmodtool.checkgame.model import NOTE, SUSPICIOUS, Finding, GameRecord, Section
from vmodtool.exit_codes import check_exit_code

if TYPE_CHECKING:
    from vmodtool.vassal.module import Module

__all__ = ["GameCheck", "record_game", "check_game", "CHECKS", "Finding", "Section", "GameRecord",
           "SUSPICIOUS", "NOTE", "SCHEMA"]

#: the JSON report's schema name
SCHEMA = "vmodtool-check-game/1"
#: the checks, in report order: module ``vmodtool.checkgame.<name>``, its
#: section a :class:`~vmodtool.checkgame.visitor.SectionVisitor` (and
#: ``section(record) -> Section`` to run it alone)
CHECKS = ("chain", "undo", "dice", "actions", "decks")


def record_game(logs: Sequence[Path], *, module: Module | str | Path | None = None,
                board_sizes: dict[str, tuple[int, int]] | None = None,
                dice_patterns: Sequence[str] = ()) -> GameRecord:
    """Replay the logs of one game, in the order given; ``dice_patterns``
    are regular expressions of chat lines that report dice (besides the
    module's own reports)."""
    from vmodtool.checkgame.dice_reports import user_patterns
    user_patterns(dice_patterns)            # a bad pattern is refused before replaying
    from vmodtool.replay import Replay
    from vmodtool.vassal.module import Module as ModuleType
    if module is not None and not isinstance(module, ModuleType):
        module = ModuleType.open(module)
    from vmodtool.checkgame.recorder import GameRecorder
    replay = Replay.open(list(logs), module=module, board_sizes=board_sizes)
    (record,) = replay.run(GameRecorder(logs, replay, module, dice_patterns=dice_patterns))
    return record


@dataclass
class GameCheck:
    """Every section of one game's check."""

    record: GameRecord
    sections: list[Section]

    @property
    def suspicious(self) -> list[Finding]:
        return [f for s in self.sections for f in s.suspicious]

    @property
    def complete(self) -> bool:
        """Whether every check could look at the game."""
        return all(s.checked for s in self.sections)

    @property
    def exit_code(self) -> int:
        """``vmodtool check-game``'s exit code for this check
        (:func:`vmodtool.exit_codes.check_exit_code`)."""
        return check_exit_code(found=bool(self.suspicious), complete=self.complete)

    def players(self) -> list[str]:
        seen: dict[str, str | None] = {}
        for step in self.record.steps:
            if step.player and step.player not in seen:
                seen[step.player] = step.side
        return [f"{p} ({s})" if s else p for p, s in seen.items()]

    def lines(self, *, verbose: bool = False, warnings: bool = False) -> Iterable[str]:
        """The text report: the summary first (one screen), then every
        finding; the repeats of one cause a finding stands for are counted,
        listed one by one only when ``verbose``.  The replay's warnings are
        counted in the first line, listed at the end with ``warnings``
        (``check-game`` sends them to stderr unless ``--warnings``)."""
        r = self.record
        suspicious = self.suspicious
        replay_warnings = r.replay.warnings
        yield (f"{len(r.logs)} log(s), {len(r.steps)} steps; players: {', '.join(self.players()) or 'none named'}; "
               f"{len(suspicious)} suspicious finding(s)"
               + ("" if self.complete else "; some checks could NOT look at the game")
               + (f"; {len(replay_warnings)} replay warning(s)" if replay_warnings else ""))
        for section in self.sections:
            mark = "" if section.checked else " — NOT CHECKED"
            yield ""
            yield f"{section.title}{mark}"
            for line in section.summary:
                yield f"  {line}"
        details = [f for s in self.sections for f in s.findings]
        if details:
            yield ""
            yield "Details"
            for finding in details:
                yield "  " + _finding_line(finding)
                if finding.folded and verbose:
                    yield from ("      " + _finding_line(f) for f in finding.folded)
                elif finding.folded:
                    yield f"      ({len(finding.folded)} finding(s) of this one cause folded: -v lists them)"
        if warnings and replay_warnings:
            yield ""
            yield from self.warning_lines()

    def warning_lines(self) -> list[str]:
        """The replay's warnings, one line each, placed as a player quotes
        them: the log's name, the step within it and the chain step."""
        replay = self.record.replay
        out = []
        for w in replay.warnings:
            where = "saved state"
            if w.step is not None:
                try:
                    _, file_step = replay.log_position(w.step)
                    where = f"step {file_step} (#{w.step})"
                except ValueError:
                    where = f"#{w.step}"
            out.append(f"replay: {Path(w.file).name if w.file else '-'}: {where}: {w.message}")
        return out

    def as_json(self) -> dict[str, Any]:
        r = self.record
        return {"schema": SCHEMA, "logs": [str(p) for p in r.logs], "steps": len(r.steps),
                "replay_warnings": [w.record() for w in r.replay.warnings],
                "players": self.players(), "suspicious": len(self.suspicious), "complete": self.complete,
                "sections": [s.record() for s in self.sections]}


def _finding_line(f: Finding) -> str:
    where = []
    if f.log:
        where.append(Path(f.log).name)
    if f.file_step == 0:
        where.append("start")
    elif f.file_step is not None:
        where.append(f"step {f.file_step}")
    if f.step is not None and (f.step != f.file_step or f.file_step == 0):
        where.append(f"(#{f.step})")
    who = f", {f.player}" if f.player else ""
    head = "SUSPICIOUS" if f.severity == SUSPICIOUS else "note"
    return f"{head} {' '.join(where)}{who}: {f.message}" if where or who else f"{head}: {f.message}"


def check_game(record: GameRecord, checks: Sequence[str] = CHECKS) -> GameCheck:
    """Run the checks (names of :data:`CHECKS`) over a replayed game: each
    a :class:`~vmodtool.checkgame.visitor.SectionVisitor`, all walked over
    the record's steps side by side."""
    from vmodtool.checkgame.visitor import run_sections
    visitors = []
    for name in checks:
        if name not in CHECKS:
            raise ValueError(f"unknown check {name!r} (the checks: {', '.join(CHECKS)})")
        module = importlib.import_module(f"vmodtool.checkgame.{name}")
        visitors.append(getattr(module, _VISITORS[name])(record))
    return GameCheck(record, run_sections(record, visitors))


#: each check's section visitor, a class of its module
_VISITORS = {"chain": "ChainSection", "undo": "UndoSection", "dice": "DiceSection", "actions": "ActionsSection",
             "decks": "DecksSection"}
