"""What ``vmodtool check-game`` finds: the game as replayed once
(:class:`GameRecord`), and each check's :class:`Section` of
:class:`Finding` s (``docs/check-game.md``).

The checks need no scenario and work on any module's logs: chain
continuity between logs, undos, dice, off-turn and hidden actions, decks.  Each is
a :class:`~vmodtool.checkgame.visitor.SectionVisitor` in its own module of this
package (walked over the record's steps, its ``Section`` its result);
:func:`vmodtool.checkgame.check_game` runs them all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from vmodtool.findings import Finding as BaseFinding

if TYPE_CHECKING:
    from vmodtool.replay.game import Replay, Step
    from vmodtool.vassal.module import Module

__all__ = ["Finding", "Section", "GameRecord", "SUSPICIOUS", "NOTE"]

#: a finding a player should look at (exit 1)
SUSPICIOUS = "suspicious"
#: a fact worth knowing that proves nothing (module updated, a gap explained)
NOTE = "note"


@dataclass(frozen=True)
class Finding(BaseFinding):
    """One thing found.  ``kind`` is a stable code (``reroll``,
    ``restarted_log``, ``undo``, ``logs_out_of_order``, ``missing_log``,
    ``moved_between_logs``, ``module_updated``, ``off_turn_move``,
    ``hidden_move``, ``dice_unlikely`` …); ``message`` one readable line in
    the module's names (pieces, hex labels, layer levels); ``log``/``step``
    where (``step`` counts over the whole chain, ``file_step`` in the log);
    ``player`` the display name (never a password); ``details`` data for
    JSON.  ``file_step`` 0 is the log's saved state (before its first
    step; ``step`` then counts the chain steps played before it).
    ``folded`` holds the repeats of one cause this finding stands for (a
    restarted log's differences …): one finding, ``count`` of them, listed
    one by one only on request (``check-game -v``).

    A :class:`vmodtool.findings.Finding`: its ``code`` is ``kind``."""

    kind: str
    severity: str
    message: str
    log: str | None = None
    step: int | None = None
    file_step: int | None = None
    player: str | None = None
    details: dict[str, Any] = field(default_factory=dict)
    folded: tuple[Finding, ...] = ()

    #: the check-game report's keys for a finding (``docs/check-game.md``)
    RECORD: ClassVar[tuple[tuple[str, str], ...]] = (
        ("kind", "kind"), ("severity", "severity"), ("message", "message"), ("log", "log"),
        ("log_step", "file_step"), ("step", "step"), ("file_step", "file_step"), ("player", "player"),
        ("details", "details"), ("count", "count"), ("folded", "folded"))
    RECORD_OMIT_EMPTY: ClassVar[frozenset[str]] = frozenset({"folded"})

    @property
    def code(self) -> str:
        """The stable code (:attr:`kind`)."""
        return self.kind

    @property
    def log_step(self) -> int | None:
        """The step within :attr:`log` (the name a player quotes)."""
        return self.file_step

    @property
    def count(self) -> int:
        """How many findings of one cause this one stands for."""
        return 1 + len(self.folded)


@dataclass
class Section:
    """What one check found: a title, a few summary lines (the screen's
    top), its findings, and the data the JSON report carries (counts,
    tables).  ``checked`` is False when the check could not look at the game
    (said in ``summary``: never an all-clear then)."""

    name: str
    title: str
    summary: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)
    checked: bool = True

    @property
    def suspicious(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == SUSPICIOUS]

    def record(self) -> dict[str, Any]:
        return {"name": self.name, "title": self.title, "checked": self.checked, "summary": self.summary,
                "findings": [f.record() for f in self.findings], "data": self.data}


@dataclass
class GameRecord:
    """A game's logs replayed once: every step (in order over the chain),
    the replay (its chain differences, warnings, games, roster and module
    positions) and the module when one was given."""

    logs: Sequence[Path]
    replay: Replay
    steps: list[Step]
    module: Module | None = None
    #: per log, captured while replaying (for the ``chain`` check): the
    #: saved state it starts from and the state it ends in, as piece id ->
    #: (map, x, y), and where the mover's board had pieces that an unlogged
    #: stack's move left elsewhere (``Engine.ghosts``) at its end
    starts: list[dict[str, tuple[str | None, int, int]]] = field(default_factory=list)
    ends: list[dict[str, tuple[str | None, int, int]]] = field(default_factory=list)
    ghosts: list[dict[str, tuple[str | None, int, int]]] = field(default_factory=list)
    #: the user's dice report patterns (``check-game --dice-pattern``)
    dice_patterns: Sequence[str] = ()
    #: the game's sides when a scenario names them (inside ``audit``),
    #: besides those the logs record
    sides: Sequence[str] = ()
    #: how many decks the game holds where the replay ends (its saved
    #: games' decks and those added since)
    decks_at_end: int = 0

