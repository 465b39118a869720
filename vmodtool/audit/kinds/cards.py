"""Card kinds (``docs/seed-rules.md`` §3.9, §4.10): ``hand_limit`` (a side
holds more cards than its hand allows), ``card_window`` (a card played
outside the phases or the turn it may be played in) and ``card_source`` (a
card drawn from another side's deck or from a discard deck).

They read the card events the game adapter makes of the replay's deck events
(:mod:`vmodtool.audit.card_feed`) and the hands the audit state keeps.  A game in
which no card event was seen judged nothing: each kind then says so at the
end of the game (not checked), never an all-clear.  Violations name the card
by its scenario name; a hand's content is never listed (the other side could
not see it), only how many cards it held.
"""

from __future__ import annotations

from collections.abc import Iterable

from vmodtool.audit.api import Event, GameView, Rule, RuleContext, Violation
from vmodtool.audit.card_feed import CardTable, base_id
from vmodtool.audit.kinds import register
from vmodtool.audit.kinds.movement import CheapCopy
from vmodtool.audit.rulekit import phase_name, point_text, side_name
from vmodtool.audit.selectors import as_list
from vmodtool.audit.state import HAND_PREFIX

__all__ = ["HandLimit", "CardWindow", "CardSource", "CARD_KINDS"]

#: the audit events of cards (``vmodtool/audit/api.py``)
CARD_KINDS = frozenset({"card_draw", "card_play", "card_discard", "card_event", "deck_shuffle", "deck_order"})
_POINTS = frozenset({"step_end", "activation_end", "phase_end", "turn_end"})
_NO_CARDS = ("no card was drawn, played or discarded in the log (the replay reported no deck event): "
             "nothing to judge")


class _CardRule(CheapCopy, Rule):
    """What the card kinds share: the scenario's card table, whether the
    game showed any card event, and the not-checked answer when it did not."""

    _shared = ("ctx", "params", "table")

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        self.table = CardTable(ctx.scenario)
        self.seen = False

    def _end(self, state: GameView, event: Event) -> list[Violation]:
        if self.seen:
            return []
        return [self.ctx.violation(event, state, _NO_CARDS, severity="info", not_checked=True)]

    def _side(self, state: GameView, side: str | None) -> str:
        return side_name(state.scenario, side)


# --------------------------------------------------------------------------------------
# hand_limit
# --------------------------------------------------------------------------------------

@register("hand_limit")
class HandLimit(_CardRule):
    """A side's hand holds at most ``max`` cards (else its hand's ``size``
    in the scenario's ``hands``), judged after every card event
    (``check_at: event``) or at the settle point; ``side`` limits the rule
    to one side.  A hand over its limit is reported once, and again only
    after it came back within the limit."""

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        p = self.params
        self.only_side: str | None = p.get("side")
        self.max: int | None = p.get("max")
        self.check_at: str = getattr(ctx, "check_at", "event") or "event"
        self.check_in = frozenset(getattr(ctx, "check_in", ()) or ())
        point = self.check_at if self.check_at in _POINTS else None
        self.subscribes = (frozenset({point, "game_end", "setup_end"}) | CARD_KINDS if point
                           else CARD_KINDS | {"game_end", "setup_end"})
        self.point = point
        self.over: dict[str, int] = {}        # side -> the count reported (open findings)
        self.last: dict[str, str] = {}        # side -> the last card that came into its hand

    def _limits(self) -> dict[str, int]:
        limits: dict[str, int] = {}
        for side, hand in self.table.hands.items():
            if self.only_side is not None and side != self.only_side:
                continue
            limit = self.max if self.max is not None else hand.size
            if limit is not None:
                limits[side] = int(limit)
        if self.only_side is not None and self.max is not None:
            limits.setdefault(self.only_side, int(self.max))
        return limits

    def check(self, state: GameView, event: Event) -> Iterable[Violation]:
        kind = event.kind
        if kind == "setup_end":
            if not self._limits():
                return [self.ctx.violation(event, state, "no hand has a size limit (hands[].size) and the rule "
                                           "gives no max: nothing to judge", severity="info", not_checked=True)]
            return []
        if kind in CARD_KINDS:
            self.seen = True
            if kind == "card_draw" and event.card and event.to_box and event.to_box.startswith(HAND_PREFIX):
                self.last[event.to_box[len(HAND_PREFIX):]] = event.card
            if self.point is not None:
                return []
        out: list[Violation] = []
        if kind == "game_end":
            out = self._end(state, event)
        elif self.check_in and state.phase not in self.check_in:
            return []
        for side, limit in sorted(self._limits().items()):
            held = len(state.hand(side))
            if held <= limit:
                self.over.pop(side, None)
                continue
            if side in self.over:
                continue
            self.over[side] = held
            last = self.last.get(side)
            came = f" (the last card to come in: «{self.table.name(last)}»)" if last else ""
            when = point_text(self.check_at if self.point else "event")
            out.append(self.ctx.violation(
                event, state, f"{self._side(state, side)}'s hand holds {held} cards {when}; the limit is "
                f"{limit}{came}", held=held, limit=limit, hand_side=side, card=last,
                card_name=self.table.name(last) if last else None))
        return out


# --------------------------------------------------------------------------------------
# card_window
# --------------------------------------------------------------------------------------

@register("card_window")
class CardWindow(_CardRule):
    """The selected cards (``cards`` ids, ``card_tags``, ``events``; none
    given: every card) may be played only in ``phases`` and/or in the turn
    ``phasing_side`` names: ``own`` (the card's owner, the side of its home
    deck, or for a shared deck the side playing it), ``other``, or a side
    id.  Judged at each ``card_play``."""

    subscribes = frozenset(CARD_KINDS | {"game_end"})

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        p = self.params
        self.cards = frozenset(str(c) for c in as_list(p.get("cards")))
        self.tags = frozenset(str(t) for t in as_list(p.get("card_tags")))
        self.events = frozenset(str(e).casefold() for e in as_list(p.get("events")))
        self.phases = frozenset(str(x) for x in as_list(p.get("phases")))
        self.phasing: str | None = p.get("phasing_side")
        self.unknown = 0          # plays whose phase or phasing side was not known

    def selects(self, card: str) -> bool:
        spec = self.table.cards.get(card)
        if spec is None:
            return False
        if not (self.cards or self.tags or self.events):
            return True
        return (base_id(card) in self.cards or bool(spec.tags & self.tags)
                or (spec.event is not None and spec.event.casefold() in self.events))

    def check(self, state: GameView, event: Event) -> Iterable[Violation]:
        kind = event.kind
        if kind == "game_end":
            out = self._end(state, event)
            if self.unknown:
                out.append(self.ctx.violation(
                    event, state, f"{self.unknown} play(s) of the rule's cards not judged: the phase or the "
                    "phasing side was not known when they were played", severity="info", not_judged=self.unknown))
            return out
        self.seen = True
        if kind != "card_play" or event.card is None or not self.selects(event.card):
            return []
        card = event.card
        name = self.table.name(card)
        scenario = state.scenario
        wrong: list[str] = []
        if self.phases:
            if state.phase is None:
                self.unknown += 1
                return []
            if state.phase not in self.phases:
                allowed = ", ".join(phase_name(scenario, x) for x in sorted(self.phases))
                wrong.append(f"in the {phase_name(scenario, state.phase)}, but it may be played only in the {allowed}")
        owner = self.table.owner(card) or event.side
        if self.phasing is not None:
            if state.phasing_side is None or (owner is None and self.phasing in ("own", "other")):
                self.unknown += 1
                return []
            turn_of = state.phasing_side
            if self.phasing == "own":
                ok, need = turn_of == owner, f"only in its owner's turn ({self._side(state, owner)})"
            elif self.phasing == "other":
                ok = turn_of != owner
                need = f"only in the turn of its owner's opponent (not {self._side(state, owner)})"
            else:
                ok, need = turn_of == self.phasing, f"only in {self._side(state, self.phasing)}'s turn"
            if not ok:
                wrong.append(f"in {self._side(state, turn_of)}'s turn, but it may be played {need}")
        if not wrong:
            return []
        who = f"{event.player} ({self._side(state, event.side)})" if event.player else self._side(state, event.side)
        turn = f" in turn {state.turn}" if state.turn is not None else ""
        return [self.ctx.violation(
            event, state, f"«{name}» played by {who}{turn}: " + "; and ".join(wrong),
            card=card, card_name=name, owner=owner, phasing=state.phasing_side, played_in=state.phase)]


# --------------------------------------------------------------------------------------
# card_source
# --------------------------------------------------------------------------------------

@register("card_source")
class CardSource(_CardRule):
    """A side draws only from its own draw decks (``owner`` its side; a
    shared draw deck, ``owner`` none, unless ``allow_shared: false``), and
    never from a discard or play deck (unless ``allow_discard``);
    ``allow_decks`` lists decks any side may draw from.  Judged at each
    ``card_draw`` but those into another deck."""

    subscribes = frozenset(CARD_KINDS | {"game_end"})

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        p = self.params
        self.allow_shared = bool(p.get("allow_shared", True))
        self.allow_discard = bool(p.get("allow_discard", False))
        self.allow_decks = frozenset(str(d) for d in as_list(p.get("allow_decks")))

    def check(self, state: GameView, event: Event) -> Iterable[Violation]:
        kind = event.kind
        if kind == "game_end":
            return self._end(state, event)
        self.seen = True
        if kind != "card_draw" or event.deck is None or event.deck in self.allow_decks:
            return []
        if event.to_box in self.table.decks:
            return []           # into another deck (a reshuffle's card): not a draw by a side
        deck = self.table.decks.get(event.deck)
        drawer = event.side
        if event.to_box and event.to_box.startswith(HAND_PREFIX):
            drawer = event.to_box[len(HAND_PREFIX):]
        if deck is None or drawer is None:
            return []
        why: str | None = None
        if deck.role != "draw":
            if not self.allow_discard:
                why = f"a {deck.role} deck"
        elif deck.owner is None:
            if not self.allow_shared:
                why = "a shared deck"
        elif deck.owner != drawer:
            why = f"{self._side(state, deck.owner)}'s deck"
        if why is None:
            return []
        name = self.table.name(event.card) if event.card else "a card"
        card = f"«{name}»" if event.card else name
        who = f"{event.player} ({self._side(state, drawer)})" if event.player else self._side(state, drawer)
        own = [d.name for d in self.table.decks.values() if d.role == "draw" and d.owner in (drawer, None)]
        hint = f"; {self._side(state, drawer)} draws from {', '.join(own)}" if own else ""
        return [self.ctx.violation(
            event, state, f"{who} drew {card} from {deck.name} ({why}){hint}", hexes=[event.to_hex],
            card=event.card, card_name=name if event.card else None, deck=deck.id, deck_role=deck.role,
            deck_owner=deck.owner, drawer=drawer)]
