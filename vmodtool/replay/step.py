"""One replay step: what the replay hands every consumer (and keeps, for
one that walks the game again: :func:`vmodtool.replay.visitor.walk_step`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from vmodtool.replay.engine_core import ReplayWarning
from vmodtool.replay.events import ChatEvent, DiceEvent, Event

__all__ = ["Step"]


@dataclass
class Step:
    """One replay step.

    ``number`` counts from 1 over the whole chain; ``file``/``file_step``
    say where it comes from; ``player``/``side`` are the mover's display name
    and side (never the VASSAL password); ``undo`` marks a step that undoes
    an earlier one (``undoes`` is that step's number, ``undo_kind``
    ``"bracket"`` for VASSAL's UNDO brackets or ``"inverse"`` for a step
    whose moves exactly reverse the previous step's, as older versions
    logged undo); ``undone_by`` is set on the step an undo reversed."""

    number: int
    file: str | None
    file_step: int
    index: int
    player: str | None = None
    side: str | None = None
    events: list[Event] = field(default_factory=list)
    warnings: list[ReplayWarning] = field(default_factory=list)
    undo: bool = False
    undo_kind: str | None = None
    undoes: int | None = None
    undone_by: int | None = None
    commands: int = 0
    #: the stacks the step's commands touched, as they are after it: stack
    #: key (its id, or ``@…`` for one without) -> member piece ids bottom ->
    #: top; the first step of each file lists every stack (the file's saved
    #: state sets them all).  Lets a consumer follow stack order without
    #: replaying again.
    stacks: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False)
    _moves: tuple[tuple[str, ...], ...] = field(default=(), repr=False)

    @property
    def chat_lines(self) -> list[str]:
        """The raw text of every chat/report/dice line the step logged."""
        return [e.message for e in self.events
                if isinstance(e, (ChatEvent, DiceEvent)) and e.message]

    @property
    def dice_lines(self) -> list[str]:
        """The raw text of every dice report the step logged."""
        return [e.message for e in self.events if isinstance(e, DiceEvent) and e.message]

    @property
    def rolled(self) -> bool:
        """Whether the step rolled dice (a dice report, or VASSAL's own
        dice results without one)."""
        return any(isinstance(e, DiceEvent) for e in self.events)

    @property
    def only_talk(self) -> bool:
        """Whether every event of the step is a chat line or a dice roll
        (leaving it out changes no piece, property or tracker)."""
        return all(e.kind in ("chat", "dice") for e in self.events)

    def record(self) -> dict[str, object]:
        return {"step": self.number, "file": self.file, "file_step": self.file_step,
                "player": self.player, "side": self.side, "undo": self.undo,
                "undo_kind": self.undo_kind, "undoes": self.undoes, "undone_by": self.undone_by,
                "events": [e.record() for e in self.events],
                "warnings": [w.message for w in self.warnings]}
