"""Who watches a replay, and so which cards and hidden pieces they may see
(``docs/vassal-format.md`` §4.12).

VASSAL shows a player the private maps (``PrivateMap``/``PlayerHand``)
whose ``side`` list holds their side, and a masked (``obs;``) or hidden
(``hide;``) piece only to the player who masked or hid it
(``PlayerAccess.currentPlayerHasAccess``: the same player id; a side shares
it when its players share the password, as a side's seat does).  The replay
takes three viewers:

* ``observer`` (the default): what anyone may see — public maps, face-up
  decks, unmasked pieces;
* a side: also that side's hands and the pieces its players masked or hid;
* ``referee``: everything (someone holding every side's password).
"""

from __future__ import annotations

from dataclasses import dataclass

from vmodtool.vassal.decks import NO_USER, HandDef

__all__ = ["Viewer", "OBSERVER", "REFEREE"]


@dataclass(frozen=True)
class Viewer:
    """``kind`` is ``observer``, ``side`` or ``referee``; ``side`` the side
    name for ``side``."""

    kind: str = "observer"
    side: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in ("observer", "side", "referee"):
            raise ValueError(f"viewer kind {self.kind!r}: expected observer, side or referee")
        if (self.kind == "side") != (self.side is not None):
            raise ValueError("a side viewer needs a side, and only a side viewer has one")

    @classmethod
    def of_side(cls, side: str) -> Viewer:
        return cls("side", side)

    @property
    def referee(self) -> bool:
        return self.kind == "referee"

    def label(self) -> str:
        return self.side if self.side is not None else self.kind

    def sees_hand(self, hand: HandDef | None) -> bool:
        """May open this private map (None: a public map)."""
        if hand is None or self.referee or hand.visible_to_all:
            return True
        return hand.owned_by(self.side)

    def sees_masked(self, by_side: str | None, by: str | None) -> bool:
        """Sees a piece masked/hidden by a player of ``by_side`` (``by`` the
        raw id: :data:`~vmodtool.vassal.decks.NO_USER` is a face-down deck's
        mask, which no player sees through)."""
        if by is None or self.referee:
            return True
        if by == NO_USER:
            return False
        return self.side is not None and by_side == self.side


OBSERVER = Viewer()
REFEREE = Viewer("referee")
