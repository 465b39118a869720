"""Cards in the audit: which VASSAL piece is which scenario card, which deck
and window are which scenario deck and hand, and the replay's deck events
made audit events (``docs/seed-rules.md`` §4.10).

Identity follows the build/audit contract of :mod:`vmodtool.scenario.binding`:
a card ``vmodtool build`` made carries its scenario id in ``CardId``
(copies ``id#2`` …); a card of another module is the one whose BasicPiece
name is a :class:`~vmodtool.scenario.cards.CardSpec` name (its copies get
the copy ids in the order the game shows them).  A deck is the ``DrawPile``
named :attr:`DeckSpec.vassal_name <vmodtool.scenario.cards.DeckSpec.vassal_name>`,
a hand the window named :attr:`HandSpec.vassal_name
<vmodtool.scenario.cards.HandSpec.vassal_name>`; in the audit a hand is the
place ``hand:<side id>``.

:class:`CardFeed` applies each deck event of the replay to the
:class:`~vmodtool.audit.state.AuditState` (hands, deck sizes, where each card
is) and returns the audit events it makes (one method per deck event, which
the judging visitor, :class:`~vmodtool.audit.judge.StepJudge`, calls): ``card_draw``, ``card_play``,
``card_discard``, ``deck_shuffle``, ``deck_order`` and ``card_event`` (a
card whose scenario entry names an ``event`` drawn or played, by its
``trigger``), the last with an ``event`` :class:`~vmodtool.audit.api.Annotation`
as a typed ``#event`` line gives, so plug-ins written for the chat
annotation see a card's event the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vmodtool.audit.api import Annotation, Event
from vmodtool.audit.binding import read_property
from vmodtool.audit.state import HAND_PREFIX, AuditState
from vmodtool.replay.events import (
    CardDrawEvent,
    CardPlayEvent,
    CardReturnEvent,
    DeckOrderEvent,
    DeckRef,
    DeckShuffleEvent,
    PieceRef,
    Place,
)
from vmodtool.scenario.binding import CARD_ID
from vmodtool.scenario.cards import CardSpec, DeckSpec, HandSpec
from vmodtool.scenario.model import Scenario

__all__ = ["CardTable", "CardFeed", "copy_ids", "base_id", "hand_place"]


def copy_ids(card: CardSpec) -> list[str]:
    """The scenario ids of a card's copies: ``id``, ``id#2`` … ``id#count``."""
    return [card.id] + [f"{card.id}#{k}" for k in range(2, max(card.count, 1) + 1)]


def base_id(card_id: str) -> str:
    """The card entry's id of a copy id (``dust#2`` → ``dust``)."""
    head, sep, tail = card_id.rpartition("#")
    return head if sep and tail.isdigit() else card_id


def hand_place(side: str) -> str:
    """The audit's place of a side's hand (``hand:<side id>``)."""
    return f"{HAND_PREFIX}{side}"


#: the names of the pieces seen, by their traits (see :func:`piece_name`)
_NAMES: dict[tuple[str, tuple[str, ...], str | None], str] = {}
_NAMES_MAX = 100000


def piece_name(ref: PieceRef) -> str:
    """A piece's name (:attr:`PieceRef.name`), read once per distinct trait
    chain: the name is a function of the chain's types and states alone,
    and of the piece's id only through a ``PieceUID`` the chain names (a
    Label's name format).  Pieces repeat their chains across the steps of a
    game and the games of a batch; reading a name decodes the chain and
    walks it."""
    type_text, states = ref.type_text, ref.states
    key = (type_text, states,
           ref.id if "PieceUID" in type_text or any("PieceUID" in s for s in states) else None)
    found = _NAMES.get(key)
    if found is None:
        if len(_NAMES) >= _NAMES_MAX:
            _NAMES.clear()
        found = _NAMES[key] = ref.name
    return found


class CardTable:
    """The scenario's cards, decks and hands, and the game's pieces, decks
    and windows matched to them (each VASSAL piece once)."""

    def __init__(self, scenario: Scenario) -> None:
        self.decks: dict[str, DeckSpec] = {d.id: d for d in scenario.decks}
        self.hands: dict[str, HandSpec] = {h.side: h for h in scenario.hands}
        #: card id (every copy) -> its entry
        self.cards: dict[str, CardSpec] = {}
        #: a card's printed name -> the ids of its copies (several entries may share a name)
        self._by_name: dict[str, list[str]] = {}
        for deck in scenario.decks:
            for card in deck.cards:
                for cid in copy_ids(card):
                    self.cards[cid] = card
                    self._by_name.setdefault(card.name, []).append(cid)
        self._deck_by_name: dict[str, str] = {}
        for deck in scenario.decks:
            self._deck_by_name.setdefault(deck.vassal_name, deck.id)
        for deck in scenario.decks:
            self._deck_by_name.setdefault(deck.name, deck.id)
        self._hand_by_name: dict[str, str] = {}
        for hand in scenario.hands:
            self._hand_by_name.setdefault(hand.vassal_name, hand.side)
            self._hand_by_name.setdefault(hand.name, hand.side)
        self._piece_card: dict[str, str | None] = {}     # VASSAL piece id -> card id (None: not a card)
        self._named: set[str] = set()                   # copy ids given to pieces by their name

    def __bool__(self) -> bool:
        return bool(self.decks or self.hands)

    # -- look-ups ---------------------------------------------------------------------
    def card_of(self, ref: PieceRef) -> str | None:
        """The scenario card id of a piece (None: not a card of the scenario)."""
        pid = ref.id
        if pid is not None and pid in self._piece_card:
            return self._piece_card[pid]
        found: str | None = None
        value = read_property(ref, CARD_ID)
        if value and value in self.cards:
            found = value
        elif value and base_id(value) in self.cards:
            found = base_id(value)
        elif self._by_name:
            ids = self._by_name.get(piece_name(ref))
            if ids:
                found = next((c for c in ids if c not in self._named), ids[0])
                self._named.add(found)
        if pid is not None:
            self._piece_card[pid] = found
        return found

    def deck_of(self, deck: DeckRef | None) -> str | None:
        """The scenario deck id of a replay deck (None: not a deck of the scenario)."""
        if deck is None:
            return None
        return self._deck_by_name.get(deck.name)

    def deck_named(self, name: str | None) -> str | None:
        return self._deck_by_name.get(name) if name else None

    def hand_side(self, window: str | None) -> str | None:
        """The side whose hand a window is (None: not a hand of the scenario)."""
        return self._hand_by_name.get(window) if window else None

    def name(self, card_id: str | None) -> str:
        """A card's scenario name (its id when it is not a card of the scenario)."""
        if card_id is None:
            return "a card"
        card = self.cards.get(card_id)
        return card.name if card is not None else card_id

    def owner(self, card_id: str) -> str | None:
        """The side that owns a card: its home deck's ``owner``."""
        card = self.cards.get(card_id)
        deck = self.decks.get(card.deck) if card is not None else None
        return deck.owner if deck is not None else None


#: (hex, box) of a replay place, as the game adapter reads it
PlaceReader = Callable[[Place | None], tuple[str | None, str | None]]


class CardFeed:
    """Turns the replay's deck events into audit events, keeping the audit
    state's hands, deck sizes and card places up to date."""

    def __init__(self, table: CardTable, place: PlaceReader) -> None:
        self.table = table
        self.place = place

    def initial(self, state: AuditState, ref: PieceRef, where: Place) -> None:
        """A piece of the saved state a log starts from: a card in a hand
        window is in that side's hand, one in a deck (VASSAL names a place
        in a deck by the deck) in that deck."""
        self.moved(state, ref, where)

    def moved(self, state: AuditState, ref: PieceRef, where: Place | None) -> None:
        """A card moved, added or (``where`` None) removed by a plain piece
        command (no deck involved: a card passed from a hand to another, or
        laid on the map without a play): its place follows, no event."""
        card = self.table.card_of(ref)
        if card is None:
            return
        if where is None or where.map is None:
            state.place_card(card, None)
            return
        side = self.table.hand_side(where.map)
        deck = self.table.deck_named(where.location)
        if side is not None:
            state.place_card(card, hand_place(side))
        elif deck is not None:
            state.place_card(card, deck)
        else:
            hex_id, box = self.place(where)
            state.place_card(card, hex_id or box or where.map)

    def shuffled(self, state: AuditState, ev: DeckShuffleEvent, n: int, sub: int, player: str | None,
                 side: str | None) -> list[Event]:
        """A deck shuffled (or refilled from another): its size, a ``deck_shuffle``."""
        deck = self.table.deck_of(ev.deck)
        if deck is None:
            return []
        state.deck_sizes[deck] = ev.deck.size
        source = self.table.deck_named(ev.from_deck)
        if source is not None:
            state.deck_sizes[source] = 0
        return [self._event(state, "deck_shuffle", n, sub, ev.player or player, side, deck=deck,
                            from_box=source, to_box=deck, text=source or ev.from_deck)]

    def ordered(self, state: AuditState, ev: DeckOrderEvent, n: int, sub: int, player: str | None,
                side: str | None) -> list[Event]:
        """A deck searched or reordered: a ``deck_order``."""
        deck = self.table.deck_of(ev.deck)
        if deck is None:
            return []
        state.deck_sizes[deck] = ev.deck.size
        return [self._event(state, "deck_order", n, sub, ev.player or player, side, deck=deck,
                            from_box=deck, to_box=deck, text="searched" if ev.searched else ev.how,
                            changes={"searched": (False, ev.searched)})]

    # -- the kinds -----------------------------------------------------------------------
    def _event(self, state: AuditState, kind: str, n: int, sub: int, player: str | None, side: str | None,
               **kw: Any) -> Event:
        return Event(kind, n, sub, player=player, side=side, turn=state.turn, phase=state.phase, **kw)

    def _hand(self, window: str | None, side: str | None) -> str | None:
        """The side of a hand window: the scenario's hand of that name, else
        (a window the scenario does not name) the mover's side."""
        return self.table.hand_side(window) or side

    def _fired(self, state: AuditState, card: str | None, trigger: str, deck: str | None, n: int, sub: int,
               player: str | None, side: str | None) -> list[Event]:
        spec = self.table.cards.get(card) if card is not None else None
        if spec is None or not spec.event or spec.trigger != trigger:
            return []
        note = Annotation("event", {"name": spec.event, "side": side, "card": card, "trigger": trigger},
                          n, player)
        return [self._event(state, "card_event", n, sub, player, side, card=card, deck=deck,
                            text=spec.event, annotation=note)]

    def drawn(self, state: AuditState, ev: CardDrawEvent, n: int, sub: int, player: str | None,
              side: str | None) -> list[Event]:
        deck = self.table.deck_of(ev.deck)
        card = self.table.card_of(ev.piece)
        if deck is None and card is None:
            return []
        if deck is not None:
            state.deck_sizes[deck] = ev.deck.size
        who = ev.player or player
        to_hex = to_box = None
        drawer = side
        if ev.hand is not None:
            drawer = self._hand(ev.hand, side)
            to_box = hand_place(drawer) if drawer is not None else None
        else:
            # into another deck (VASSAL names a place in a deck by the deck), or onto the map
            to_box = self.table.deck_named(ev.target.location if ev.target is not None else None)
            if to_box is None:
                to_hex, to_box = self.place(ev.target)
        if card is not None:
            state.place_card(card, to_box or to_hex)
        out = [self._event(state, "card_draw", n, sub, who, drawer, card=card, deck=deck, from_box=deck,
                           to_box=to_box, to_hex=to_hex)]
        return out + self._fired(state, card, "draw", deck, n, sub, who, drawer)

    def played(self, state: AuditState, ev: CardPlayEvent, n: int, sub: int, player: str | None,
               side: str | None) -> list[Event]:
        card = self.table.card_of(ev.piece)
        deck = self.table.deck_of(ev.deck)
        if card is None:
            return []
        who = ev.player or player
        by = self._hand(ev.from_hand, side)
        spec = self.table.decks.get(deck) if deck is not None else None
        if spec is not None and spec.role == "discard":
            # laid face up on a discard pile: everyone sees it, but it is
            # discarded, not played (a card is played onto the map or a
            # deck whose role is ``play``; docs/seed-rules.md §4.10)
            if ev.deck is not None:
                state.deck_sizes[spec.id] = ev.deck.size
            state.place_card(card, spec.id)
            if by is None:
                return []
            return [self._event(state, "card_discard", n, sub, who, by, card=card, deck=spec.id,
                                from_box=hand_place(by), to_box=spec.id)]
        to_hex = to_box = None
        if deck is not None and ev.deck is not None:
            state.deck_sizes[deck] = ev.deck.size
            to_box = deck
        else:
            to_hex, to_box = self.place(ev.target)
        state.place_card(card, to_box or to_hex)
        out = [self._event(state, "card_play", n, sub, who, by, card=card, deck=deck,
                           from_box=hand_place(by) if by is not None else None, to_box=to_box, to_hex=to_hex)]
        return out + self._fired(state, card, "play", deck, n, sub, who, by)

    def returned(self, state: AuditState, ev: CardReturnEvent, n: int, sub: int, player: str | None,
                 side: str | None) -> list[Event]:
        card = self.table.card_of(ev.piece)
        deck = self.table.deck_of(ev.deck)
        if deck is not None:
            state.deck_sizes[deck] = ev.deck.size
        if card is None:
            return []
        was = state.card_place(card)
        by: str | None = None
        if ev.from_hand is not None:
            by = self._hand(ev.from_hand, side)
        elif was is not None and was.startswith(HAND_PREFIX):
            by = was[len(HAND_PREFIX):]          # the replay did not say, the audit knows
        state.place_card(card, deck)
        if by is None:
            return []                   # from a map (a played card cleared away): no hand event
        return [self._event(state, "card_discard", n, sub, ev.player or player, by, card=card, deck=deck,
                            from_box=hand_place(by), to_box=deck)]
