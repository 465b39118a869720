"""Decks and cards in the replay: a deck's state (``Deck.setState``), where a
moving card came from and the event its move is (drawn, returned, played,
moved between hands), a deck reordered or shuffled, and the reshuffle of a
deck into another.  A part of the replay engine (:class:`Decks` is mixed
into :class:`~vmodtool.replay.engine.ReplayEngine`)."""

from __future__ import annotations

import html
import re
from typing import NamedTuple

from vmodtool.replay.engine_stacking import _merge_stack_state
from vmodtool.replay.engine_visibility import Visibility
from vmodtool.replay.events import (
    CardDrawEvent,
    CardPlayEvent,
    CardReturnEvent,
    DeckFaceEvent,
    DeckOrderEvent,
    DeckRef,
    DeckShuffleEvent,
    MoveEvent,
    Place,
)
from vmodtool.replay.state import (
    Deck,
    MapState,
    Piece,
    Stack,
)
from vmodtool.vassal.decks import ALWAYS, DeckState, HandDef

__all__ = ["Decks", "CardOrigin"]


class CardOrigin(NamedTuple):
    """Where a moving piece was: its deck and index there (top = last),
    the hand (private map) it was on, whether the viewer could see it."""

    deck: Deck | None
    position: int
    hand: HandDef | None
    visible: bool



class Decks(Visibility):
    """Deck states and the card events of moves from, to and between decks
    and hands."""

    @staticmethod
    def deck_ref(d: Deck) -> DeckRef:
        return DeckRef(d.id, d.name, len(d.members))

    @staticmethod
    def count_on(m: MapState | None) -> int:
        """The pieces on a map outside its decks (a hand's card count)."""
        if m is None:
            return 0
        n = 0
        for obj in m.pieces:
            if isinstance(obj, Deck):
                continue
            n += len(obj.members) if isinstance(obj, Stack) else 1
        return n

    def card_origin(self, p: Piece) -> CardOrigin:
        parent = p.parent
        deck = parent if isinstance(parent, Deck) else None
        index = -1
        if deck is not None:
            for i, member in enumerate(deck.members):
                if member is p:
                    index = i
                    break
        return CardOrigin(deck, index, self.hand_of(p.current_map), self.visible(p))

    def card_event(self, p: Piece, before: Place, origin: CardOrigin, stack_id: str | None,
                   player: str | None) -> None:
        """The event of a piece moving from/to a deck or a hand (else a plain
        move)."""
        parent = p.parent
        new_deck = parent if isinstance(parent, Deck) else None
        old_deck = origin.deck
        target = self.place_of(p)
        ref = self.ref(p)
        who = self._mover_name(player)
        hand = self.hand_of(p.current_map)
        if old_deck is not None and old_deck is not new_deck and new_deck is None:
            visible = self.visible(p)
            if visible:
                ref = self.seen_ref(p, ref)
            self.events.append(CardDrawEvent(
                piece=ref, source=before, target=target, stack_id=stack_id,
                deck=self.deck_ref(old_deck), hand=hand.name if hand is not None else None,
                hand_count=self.count_on(p.current_map) if hand is not None else None,
                player=who, visible=visible))
            if origin.position != len(old_deck.members) and old_deck.deck_type.shuffle_option != ALWAYS:
                # not the top card (the deck had len+1 cards, its top at len)
                self.events.append(DeckOrderEvent(deck=self.deck_ref(old_deck), how="searched",
                                                  searched=True, player=who))
            return
        if new_deck is not None and old_deck is not new_deck:
            if origin.visible or self.visible(p):
                ref = self.seen_ref(p, ref)
            if origin.hand is not None and not new_deck.face_down and self.hand_of(new_deck.map) is None:
                self.events.append(CardPlayEvent(
                    piece=self.seen_ref(p, ref), source=before, target=target, stack_id=stack_id,
                    from_hand=origin.hand.name, deck=self.deck_ref(new_deck), player=who,
                    hand_count=self.count_on(self.state.maps.get(origin.hand.name))))
            else:
                if old_deck is not None:
                    self.deck_to_deck = True
                self.events.append(CardReturnEvent(
                    piece=ref, source=before, target=target, stack_id=stack_id,
                    deck=self.deck_ref(new_deck),
                    from_hand=origin.hand.name if origin.hand is not None else None,
                    player=who, visible=origin.visible or self.visible(p)))
            return
        if origin.hand is not None and hand is None and self.masked_by(p) is None:
            self.events.append(CardPlayEvent(
                piece=ref, source=before, target=target, stack_id=stack_id,
                from_hand=origin.hand.name, player=who,
                hand_count=self.count_on(self.state.maps.get(origin.hand.name))))
            return
        # inside private windows the viewer cannot open (a card rearranged in
        # another side's hand, or passed between two such): not named
        viewer = self.viewer
        unseen = (origin.hand is not None and not viewer.sees_hand(origin.hand)
                  and hand is not None and not viewer.sees_hand(hand))
        if not unseen and (origin.hand is not None or hand is not None) and self.visible(p):
            ref = self.seen_ref(p, ref)     # (a card its hand's side masked: that side sees it)
        self.events.append(MoveEvent(piece=ref, source=before, target=target, stack_id=stack_id,
                                     visible=not unseen))

    def on_deck_change(self, d: Deck, new: str, old: str | None) -> None:
        """``ChangePiece`` of a deck: ``Stack.mergeState`` (Deck does not
        override it) when the deck changed since ``old``, then
        ``Deck.setState``; a face change or a new order is an event."""
        before_ids = [m.id for m in d.members]
        before_face = d.face_down
        if old is not None and old != d.state_string():
            new = _merge_stack_state(d, new, old)
        self.deck_set_state(d, new)
        if self.in_restore:
            return
        if d.face_down != before_face:
            self.events.append(DeckFaceEvent(deck=self.deck_ref(d), face_down=d.face_down))
        after_ids = [m.id for m in d.members]
        if after_ids != before_ids:
            how = "by hand" if sorted(map(str, after_ids)) == sorted(map(str, before_ids)) else "contents set"
            ev = DeckOrderEvent(deck=self.deck_ref(d), how=how, player=self._mover_name(None))
            self.events.append(ev)
            if how == "by hand":
                self.reordered.append((d, ev))

    def deck_set_state(self, d: Deck, state: str) -> None:
        """``Deck.setState``: position, map, face-down flag, then
        ``setContents`` (``removeAll`` and each listed card inserted in
        order; a card no longer listed keeps its parent pointer, as
        ``Stack.removeAll`` leaves it)."""
        ds = DeckState.parse(state)
        d.x, d.y = ds.x, ds.y
        new_map = self.map_for(ds.map) if ds.map is not None else None
        if new_map is not d.map:
            if new_map is not None:
                new_map.add(d)
            else:
                if d.map is not None:
                    d.map.remove(d)
                d.set_map(None)
        elif d.map is not None:
            d.map.relocate(d)
        d.face_down = ds.face_down
        d.members.clear()
        pieces = self.state.pieces
        for card_id in ds.cards:
            child = pieces.get(card_id)
            if child is None:
                self.warn(f"deck {d.id} ({d.name}) lists unknown piece {card_id}")
                continue
            if isinstance(child, Stack):
                self.warn(f"deck {d.id} ({d.name}) lists stack {card_id} as a card (ignored)")
                continue
            d.insert_child(child, len(d.members))

    def finish_step(self, chat_lines: list[str]) -> None:
        """At the end of a step: a deck reordered in it was shuffled when
        the step reports the deck's shuffle (its ``shuffleMsgFormat``) —
        a reshuffle when cards came in from another deck first.  A deck
        emptied into its reshuffle target (``Deck.sendToDeck``) whose target
        draws at random (shuffleOption Always: no ``D/`` needed) is a
        reshuffle too."""
        sent: dict[str, tuple[str, DeckRef]] = {}      # target deck id -> (source name, target)
        for e in self.events:
            if isinstance(e, CardReturnEvent) and e.source.map is not None and e.deck.id is not None:
                source = self._deck_at(e.source)
                if source is not None and source.deck_type.reshuffle_target == e.deck.name:
                    sent[e.deck.id] = (source.name, e.deck)
        for d, ev in self.reordered:
            if not _reports_shuffle(d, chat_lines):
                continue
            origin = sent.pop(d.id or "", None)
            from_deck = origin[0] if origin else None
            earlier = self.sent_into.pop(d.id or "", None)
            if from_deck is None and earlier is not None and self.step_number is not None and \
                    earlier[1] == self.step_number - 1:
                from_deck = earlier[0]
            shuffle = DeckShuffleEvent(deck=ev.deck, from_deck=from_deck, player=ev.player)
            self.events[self.events.index(ev)] = shuffle
        for deck_id, (source_name, _) in sent.items():
            self.sent_into[deck_id] = (source_name, self.step_number)
            target = self.state.get(deck_id)
            source = next((o for o in self.state.decks() if o.name == source_name), None)
            if isinstance(target, Deck) and target.deck_type.shuffle_option == ALWAYS and \
                    source is not None and not source.members:
                self.events.append(DeckShuffleEvent(deck=self.deck_ref(target), from_deck=source_name,
                                                    player=self._mover_name(None)))
        self.reordered = []

    def _deck_at(self, place: Place) -> Deck | None:
        for o in self.state.decks():
            if o.map is not None and o.map.name == place.map and (o.x, o.y) == (place.x, place.y):
                return o
        return None


def _reports_shuffle(d: Deck, lines: list[str]) -> bool:
    """Whether a chat line is the deck's shuffle report: ``Deck.shuffle``
    logs ``* `` + its ``shuffleMsgFormat`` ($deckName$ and $commandName$
    filled in; other properties matched loosely); an empty format logs no
    report, and then a line naming the deck and a shuffle counts."""
    fmt = d.deck_type.shuffle_format
    name = d.name
    if fmt:
        parts = re.split(r"\$([^$]*)\$", fmt)
        pattern = ""
        for i, part in enumerate(parts):
            if i % 2 == 0:
                pattern += re.escape(part)
            elif part == "deckName":
                pattern += re.escape(name)
            elif part == "commandName":
                pattern += re.escape(d.deck_type.shuffle_command)
            else:
                pattern += ".*?"
        rx = re.compile(r"^\*\s?" + pattern + r"\s*$")
        if any(rx.match(html.unescape(line)) for line in lines):
            return True
    lowered = name.lower()
    return any("shuffl" in line.lower() and lowered in line.lower() for line in lines)

