"""Cards, decks and hands of a scenario (the ``decks`` and ``hands``
sections): the immutable model that build, render, print and the audit read.

A :class:`DeckSpec` is one VASSAL ``DrawPile`` (a deck on a map: a board
zone or the off-map window); its cards are :class:`CardSpec` values, each
one VASSAL piece with a front and a back.  A :class:`HandSpec` is one
``PlayerHand`` (a private window of one side).  The names a built card
carries (``CardId``, ``CardDeck``) are the binding contract of
:mod:`vmodtool.scenario.binding`, so the audit finds a card's scenario id in
any module ``vmodtool build`` made; a module made by others names its decks
(``DeckSpec.module_deck``) and hands (``HandSpec.module_map``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from vmodtool.scenario.position import Position

__all__ = ["CardSpec", "DeckSpec", "HandSpec", "CARD_SIZES", "DECK_ROLES", "SHUFFLE_OPTIONS",
           "CARD_TRIGGERS", "MAX_CARD_VALUES", "VASSAL_CARD_DPI", "card_pixels",
           "HAND_MARGIN", "hand_board_size"]

#: print sizes of a card, millimetres (width, height)
CARD_SIZES: Mapping[str, tuple[float, float]] = {
    "poker": (63.5, 88.9),
    "mini-euro": (44.0, 68.0),
}

#: resolution of the card images in a built module (a poker card is 225 × 315 px)
VASSAL_CARD_DPI = 90


def card_pixels(size: str, dpi: int = VASSAL_CARD_DPI) -> tuple[int, int]:
    """A card's size in pixels at ``dpi`` (``size`` a key of CARD_SIZES)."""
    w_mm, h_mm = CARD_SIZES[size]
    return round(w_mm / 25.4 * dpi), round(h_mm / 25.4 * dpi)


#: the space around and between the card places of a hand's board, pixels
HAND_MARGIN = 20


def hand_board_size(decks: Sequence[DeckSpec], hand: HandSpec) -> tuple[int, int]:
    """The board of a hand's window in a built module: a row of ``size``
    card places (5 without a limit) of the largest card of ``decks``."""
    sizes = [card_pixels(d.size) for d in decks] or [card_pixels("poker")]
    w = max(s[0] for s in sizes)
    h = max(s[1] for s in sizes)
    n = hand.size or 5
    return HAND_MARGIN + n * (w + HAND_MARGIN), h + 2 * HAND_MARGIN


#: what a deck is for: ``draw`` (players draw from it), ``discard`` (played or
#: discarded cards go there; a draw deck may reshuffle from it), ``play``
#: (cards played from a hand are laid there, face up)
DECK_ROLES = ("draw", "discard", "play")

#: VASSAL's ``DrawPile.shuffle`` values: always (a draw takes a random card),
#: never, or from the deck's menu
SHUFFLE_OPTIONS = ("always", "never", "menu")

#: when a card's event fires: when it is drawn, or when it is played
CARD_TRIGGERS = ("draw", "play")

#: corner values a card shows at most (top-left, top-right, bottom-left,
#: bottom-right, in the order given)
MAX_CARD_VALUES = 4


@dataclass(frozen=True)
class CardSpec:
    """One card: id (ASCII, unique in the scenario), the name shown on it and
    in reports (any script: «Пыль (Dust)»), the card text, an optional
    front image (a file beside the scenario), the event it triggers and
    when, and free tags for rule selectors.  ``count`` copies of it go
    into its deck (copies get ids ``id``, ``id#2`` …)."""

    id: str
    name: str
    deck: str                           # the deck it starts in
    text: str = ""
    image: str | None = None
    event: str | None = None            # the scenario event it fires (e.g. "Dust")
    trigger: str = "play"               # draw | play
    tags: frozenset[str] = frozenset()
    count: int = 1
    values: Mapping[str, Any] = field(default_factory=dict)   # corner values (e.g. {"d6": "3+2"})
    position: Position = Position()


@dataclass(frozen=True)
class DeckSpec:
    """One deck (VASSAL ``DrawPile``).  ``owner`` is the side that draws
    from it (``None``: shared); ``zone`` a zone (box id) of the main map
    where it lies, else the off-map window; ``face_down`` as VASSAL's
    ``faceDown`` option; ``reshuffle_from`` the id of a discard deck whose
    cards are shuffled back into this one when it is empty; ``back`` the text
    (or ``back_image``) on the back of its cards."""

    id: str
    name: str
    role: str = "draw"                  # draw | discard | play
    owner: str | None = None
    zone: str | None = None
    face_down: bool = True
    shuffle: str = "always"             # always | never | menu
    reshuffle_from: str | None = None
    draw_to: str = "hand"               # hand | map
    back: str = ""
    back_image: str | None = None
    size: str = "poker"                 # a key of CARD_SIZES
    template: str | None = None         # card template: bundled name or path (scenario/card_templates.py)
    module_deck: str | None = None      # the DrawPile's name in a module not built by us
    cards: tuple[CardSpec, ...] = ()
    position: Position = Position()
    colour: str | None = None           # the band on its cards (#rrggbb; None: the owner's fill)

    def copies(self) -> tuple[tuple[str, CardSpec], ...]:
        """Every physical card of the deck in order: (copy id, card), the
        copies of a card numbered ``id``, ``id#2`` …"""
        return tuple((card.id if n == 1 else f"{card.id}#{n}", card)
                     for card in self.cards for n in range(1, card.count + 1))

    @property
    def vassal_name(self) -> str:
        """The ``DrawPile`` name in the module: ``module_deck``, else the
        deck's name."""
        return self.module_deck or self.name


@dataclass(frozen=True)
class HandSpec:
    """One side's hand (VASSAL ``PlayerHand``, visible to that side only):
    the window's name, its size limit (``None``: no limit) and the module
    window it is in a module not built by us."""

    side: str
    name: str
    size: int | None = None
    module_map: str | None = None
    position: Position = Position()

    @property
    def vassal_name(self) -> str:
        return self.module_map or self.name
