"""Replay VASSAL logs step by step: who did what to which unit, from which
hex to which hex, and the whole board at every step.

Public API: :class:`Replay` (open logs, iterate :class:`Step`s, ``state_at``,
``chain_differences``), the event types of :mod:`vmodtool.replay.events`,
:class:`ReplayWarning`, :class:`Positions`, :func:`load_board_sizes` and
:class:`Viewer` (who watches: which cards are named).
"""

from vmodtool.replay.chain import ChainDifference
from vmodtool.replay.engine import ReplayWarning
from vmodtool.replay.events import (
                                    AddEvent,
                                    BoardsEvent,
                                    ChangeEvent,
                                    ChatEvent,
                                    DiceEvent,
                                    Event,
                                    MoveEvent,
                                    PieceRef,
                                    Place,
                                    PlayerEvent,
                                    PropertyEvent,
                                    RemoveEvent,
                                    TurnEvent,
                                    UnknownEvent,
)
from vmodtool.replay.game import BoardState, PieceSnapshot, Replay, Step
from vmodtool.replay.positions import Positions, load_board_sizes
from vmodtool.replay.viewer import Viewer
from vmodtool.replay.visitor import BoardView, LogStart, PieceOnBoard, ReplayVisitor, walk_step

__all__ = [
    "Replay", "Step", "BoardState", "PieceSnapshot", "ChainDifference", "ReplayWarning",
    "Positions", "load_board_sizes", "Event", "MoveEvent", "AddEvent", "RemoveEvent",
    "ChangeEvent", "ChatEvent", "DiceEvent", "PropertyEvent", "TurnEvent", "PlayerEvent",
    "BoardsEvent", "UnknownEvent", "PieceRef", "Place", "Viewer",
    "ReplayVisitor", "BoardView", "LogStart", "PieceOnBoard", "walk_step",
]
