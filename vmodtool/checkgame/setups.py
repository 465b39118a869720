"""Which of the module's predefined set-ups a file starts as (the
``chain`` section's evidence that files are set-ups of different
scenarios, ``docs/guide/check-game.md``).

A game started from a predefined set-up (*File → New Game → …*) is the
set-up's saved game loaded as it is: its pieces keep the set-up file's ids
and places.  A file whose saved state holds exactly the pieces of one
set-up at exactly its places is that set-up, unplayed; a file that holds
anything else is not identified (a game in progress, a set-up changed by
a start-up action): the evidence is an exact match or none.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from vmodtool.errors import VmodError
from vmodtool.replay.visitor import BoardView, LogStart, ReplayVisitor
from vmodtool.vassal.setups import PredefinedSetupDef, predefined_setups

if TYPE_CHECKING:
    from vmodtool.checkgame.model import GameRecord

__all__ = ["Setup", "module_setups", "setup_of"]

Places = dict[str, tuple[str | None, int, int]]

#: a set-up file larger than this (bytes, as stored in the module) is not
#: read: the check compares positions, it does not unpack what it cannot
#: bound (the largest corpus set-up is 2 MB)
MAX_SETUP_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class Setup:
    """One predefined set-up and the pieces it starts a game with
    (piece id -> map, x, y)."""

    definition: PredefinedSetupDef
    places: Places


class _StartPlaces(ReplayVisitor[Places]):
    """The saved state's piece places, read as the replay restores it."""

    def __init__(self) -> None:
        self.places: Places = {}

    def begin_log(self, log: LogStart, initial: BoardView) -> None:
        self.places = initial.positions()

    def result(self) -> Places:
        return self.places


def module_setups(record: GameRecord) -> list[Setup]:
    """The module's predefined set-ups that load a file it holds, each
    restored as the replay restores a save (the game's own module
    positions); none without a module, or with a bare buildFile (its
    set-up files are not there).  A set-up file that cannot be read is
    left out: it identifies nothing."""
    module = record.module
    if module is None:
        return []
    from vmodtool.replay.game import Replay
    from vmodtool.vassal.savefile import SavedGame
    out = []
    for definition in predefined_setups(module.buildfile):
        try:
            data = module.read_file(definition.file)
            if data is None or len(data) > MAX_SETUP_BYTES:
                continue
            where = f"{module.file}!{definition.file}"
            game = SavedGame.from_bytes(data, file=where)
            replay = Replay([game], positions=record.replay.positions, files=[where],
                            properties=record.replay.properties)
            (places,) = replay.run(_StartPlaces())
        except VmodError:
            continue
        if places:
            out.append(Setup(definition, places))
    return out


def setup_of(places: Places, setups: list[Setup]) -> Setup | None:
    """The set-up whose pieces are exactly ``places`` (the first in menu
    order when two set-ups are the same), None when none is."""
    if not places:
        return None
    return next((s for s in setups if s.places == places), None)
