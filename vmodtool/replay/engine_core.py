"""The part of the replay engine every concern shares: the game state, the
step's bookkeeping (its events, warnings, movers, undo brackets) and the
helpers that name a piece and its place.  The engine
(:class:`~vmodtool.replay.engine.ReplayEngine`) adds VASSAL's command
semantics on top of it, with visibility (:mod:`.engine_visibility`), decks
(:mod:`.engine_decks`), piece and stack states (:mod:`.engine_stacking`)
and AddPieces (:mod:`.engine_adds`) as their own parts."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

from vmodtool.replay.events import (
    DeckOrderEvent,
    Event,
    PieceRef,
    Place,
)
from vmodtool.replay.positions import Positions
from vmodtool.replay.properties import ModuleProperties
from vmodtool.replay.roster import Roster
from vmodtool.replay.state import (
    Deck,
    GameObject,
    GameState,
    MapState,
    Piece,
)
from vmodtool.replay.viewer import OBSERVER, Viewer
from vmodtool.vassal.commands import (
    Command,
)
from vmodtool.vassal.decks import HandDef

__all__ = ["EngineCore", "ReplayWarning"]

_NOWHERE = Place(None)


@dataclass
class ReplayWarning:
    """A problem met while replaying: the file, the step (``None`` for the
    saved state a file starts from) and what happened."""

    file: str | None
    step: int | None
    message: str

    def __str__(self) -> str:
        where = f"step {self.step}" if self.step is not None else "saved state"
        return f"{self.file or '-'}: {where}: {self.message}"

    def record(self) -> dict[str, object]:
        return {"file": self.file, "step": self.step, "message": self.message}



class EngineCore:
    """One game state, what the step being applied produced so far, and the
    helpers every part of the engine uses."""

    def __init__(self, positions: Positions, roster: Roster, *, file: str | None = None,
                 properties: ModuleProperties | None = None, viewer: Viewer = OBSERVER,
                 hands: Mapping[str, HandDef] | None = None,
                 add_plans: dict[str, Any] | None = None) -> None:
        """``properties``: the global properties of the module (when one is
        given), so that a command naming another one is dropped and reported
        as VASSAL drops it.  ``viewer``: who watches (which cards events
        name); ``hands``: the module's private maps by name; ``add_plans``:
        AddPiece texts parsed so far (:func:`_plan_add`), shared by the
        engines of a chain's logs."""
        self.add_plans: dict[str, Any] = add_plans if add_plans is not None else {}
        self.positions = positions
        self.viewer = viewer
        self.hands: Mapping[str, HandDef] = hands or {}
        #: decks whose order a ``D/`` changed in this step, with the event
        #: (a shuffle report later in the step makes it a shuffle)
        self.reordered: list[tuple[Deck, DeckOrderEvent]] = []
        #: cards went from a deck into another in this step (a reshuffle?)
        self.deck_to_deck = False
        #: target deck id -> (the deck sent into it, the step): a shuffle of
        #: the target in the next step completes the reshuffle
        self.sent_into: dict[str, tuple[str, int | None]] = {}
        self.roster = roster
        self.properties = properties
        self.state = GameState()
        self.file = file
        self.step_number: int | None = None
        self.warnings: list[ReplayWarning] = []
        self.events: list[Event] = []
        self.player_ids: list[str] = []
        self.undo_brackets = 0
        self.unknown_commands = 0
        self.in_restore = True
        #: pieces whose place on the board of the VASSAL that wrote the log
        #: may differ from the replay's: moved by an unlogged stack's move
        #: (:meth:`unlogged_stack_move`) or left where a removed stack that
        #: still held them was; piece id -> (map, x, y) there, until a logged
        #: command moves or removes the piece
        self.ghosts: dict[str, tuple[str | None, int, int]] = {}
        #: unlogged stacks' ids -> their members
        self.ghost_stacks: dict[str, list[str]] = {}
        #: ids removed so far -> the step that removed them
        self.removed_at: dict[str, int | None] = {}
        for name in positions.map_names():
            self.state.maps[name] = MapState(name, stacking=positions.stacking(name))

    # ------------------------------------------------------------------ util
    def warn(self, message: str) -> None:
        self.warnings.append(ReplayWarning(self.file, self.step_number, message))

    def map_for(self, map_id: str) -> MapState | None:
        """``Map.getMapById``.  Without a module every map id is accepted;
        with one, a map the module lacks is reported (once per replay) and
        created anyway, so that its pieces stay tracked."""
        m = self.state.maps.get(map_id)
        if m is not None:
            return m
        m = MapState(map_id, known=not self.positions.has_module)
        self.state.maps[map_id] = m
        if self.positions.has_module:
            self.warn_once(("map", map_id),
                           f"map {map_id!r} is not in the module; its pieces are tracked "
                           "in pixels")
        return m

    def warn_once(self, key: Hashable, message: str) -> None:
        reported = self.positions.reported
        if key not in reported:
            reported.add(key)
            self.warn(message)

    def place_of(self, obj: GameObject) -> Place:
        parent = obj.parent
        if parent is not None:
            m = parent.map
            if m is None:
                return _NOWHERE
            return self.positions.place(m.name, parent.x, parent.y)
        m = obj.map
        if m is None:
            return _NOWHERE
        return self.positions.place(m.name, obj.x, obj.y)

    @staticmethod
    def ref(p: Piece) -> PieceRef:
        levels = p._levels
        return PieceRef(p.id, p.type, (*(levels if levels is not None else p.levels), p.basic))

    def _short(self, cmd: Command) -> str:
        text = self.roster.redactor.scrub(cmd.text)
        return text if len(text) <= 80 else text[:77] + "..."

    def _mover_name(self, player: str | None) -> str | None:
        if player:
            return self.roster.who(player)[0]
        return self.roster.who(self.player_ids[-1])[0] if self.player_ids else None
