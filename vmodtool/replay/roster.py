"""The players of a replay: who a VASSAL player id (its password, never
printed) is, by display name and side."""

from __future__ import annotations

from dataclasses import dataclass, field

from vmodtool.vassal.commands import Redactor

__all__ = ["Roster"]


@dataclass
class Roster:
    """Players by id (the VASSAL password, never printed): display name and
    side.  ``label`` gives what may be printed for an id."""

    redactor: Redactor = field(default_factory=Redactor)
    players: dict[str, tuple[str, str | None]] = field(default_factory=dict)

    def add(self, player_id: str, name: str, side: str | None) -> None:
        if player_id:
            self.players[player_id] = (name, side)
            self.redactor.learn(player_id, name or None)

    def who(self, player_id: str | None) -> tuple[str | None, str | None]:
        """(display name, side) for a player id; an id without a roster entry
        gets a stable ``player-N`` label."""
        if not player_id:
            return None, None
        found = self.players.get(player_id)
        if found is not None:
            return found
        return self.redactor.label(player_id), None

    def by_name(self, name: str) -> tuple[str | None, str | None]:
        for pname, side in self.players.values():
            if pname == name:
                return pname, side
        return None, None

