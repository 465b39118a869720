"""A card game for the card tests (``docs/seed-rules.md`` §4.10): the
Combat Commander example with Fate decks, discard decks and hands, and a
driver that feeds hand-made replay steps (the replay's deck events, as
:mod:`vmodtool.replay.events` defines them) through the real game adapter
(:class:`~vmodtool.audit.game.AuditGame`) and engine."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from vmodtool.audit.engine import Engine
from vmodtool.audit.game import AuditGame
from vmodtool.replay.events import (
    CardDrawEvent,
    CardPlayEvent,
    CardReturnEvent,
    ChatEvent,
    DeckOrderEvent,
    DeckRef,
    DeckShuffleEvent,
    PieceRef,
    Place,
)
from vmodtool.replay.events import Event as ReplayEvent
from vmodtool.replay.game import Step
from vmodtool.scenario.cards import CardSpec, DeckSpec, HandSpec
from vmodtool.scenario.model import RuleSpec, Scenario

FR_FATE, IT_FATE, FR_DISCARD, POOL = "Судьба Франции", "Fato italiano", "Сброс Франции", "Общая колода"
FR_PLAY = "Сыгранные (Франция)"
FR_HAND, IT_HAND = "Рука Франции", "Mano italiana"
DECKS_MAP = "Колоды"


def card_scenario(cc: Scenario) -> Scenario:
    """The Combat Commander example with cards: a Fate deck per side (the
    Italian one named otherwise in the module), a French discard deck, a
    French play deck (where played cards are laid), a shared pool, and a
    hand of 3 per side."""
    fr_fate = DeckSpec("fr_fate", FR_FATE, owner="fr", reshuffle_from="fr_discard", cards=(
        CardSpec("fr_dust", "Пыль (Dust)", "fr_fate", event="Dust", trigger="play",
                 tags=frozenset({"weather"})),
        CardSpec("fr_elan", "Порыв (Élan)", "fr_fate", event="Élan", trigger="draw"),
        CardSpec("fr_deploy", "Развёртывание (Deploy)", "fr_fate", event="Deploy", trigger="play"),
        CardSpec("fr_fire", "Огонь (Fire)", "fr_fate", count=3)))
    it_fate = DeckSpec("it_fate", "Судьба Италии", owner="it", module_deck=IT_FATE, cards=(
        CardSpec("it_fire", "Fuoco", "it_fate", count=4),
        CardSpec("it_dust", "Polvere (Dust)", "it_fate", event="Dust")))
    fr_discard = DeckSpec("fr_discard", FR_DISCARD, role="discard", owner="fr")
    fr_play = DeckSpec("fr_play", FR_PLAY, role="play", owner="fr", face_down=False)
    pool = DeckSpec("pool", POOL, cards=(CardSpec("pool_luck", "Случай", "pool", count=2),))
    hands = (HandSpec("fr", FR_HAND, size=3), HandSpec("it", "Рука Италии", size=3, module_map=IT_HAND))
    return replace(cc, decks=(fr_fate, it_fate, fr_discard, fr_play, pool), hands=hands)


def card(cid: str, name: str = "", *, pid: str | None = None, built: bool = True) -> PieceRef:
    """A card piece: as ``vmodtool build`` makes it (a ``CardId`` Marker),
    or (``built=False``) a module's card known only by its name."""
    pid = pid or f"piece-{cid}"
    if built:
        return PieceRef(pid, f"mark;CardId\tpiece;;;;{name or cid}", (cid, "null;0;0;0"))
    return PieceRef(pid, f"piece;;;;{name}", ("null;0;0;0",))


def _deck(name: str, size: int) -> DeckRef:
    return DeckRef(f"deck-{name}", name, size)


def draw(ref: PieceRef, deck: str, size: int, hand: str | None, *, player: str | None = None,
         to: tuple[str, str] | None = None) -> CardDrawEvent:
    """``ref`` drawn from ``deck`` (``size`` cards left) into the window
    ``hand``, or (``hand`` None) onto ``to`` = (map, location)."""
    target = Place(hand, 10, 10) if hand is not None else Place(to[0] if to else None, 5, 5,
                                                               to[1] if to else None)
    return CardDrawEvent(piece=ref, source=Place(DECKS_MAP, 1, 1, deck), target=target, deck=_deck(deck, size),
                         hand=hand, hand_count=None, player=player, visible=False)


def play(ref: PieceRef, hand: str, *, deck: str | None = None, size: int = 0, to: tuple[str, str] | None = None,
         player: str | None = None) -> CardPlayEvent:
    target = Place(DECKS_MAP, 2, 2, deck) if deck else Place(to[0] if to else DECKS_MAP, 3, 3, to[1] if to else None)
    return CardPlayEvent(piece=ref, source=Place(hand, 10, 10), target=target, from_hand=hand,
                         deck=_deck(deck, size) if deck else None, player=player)


def discard(ref: PieceRef, hand: str | None, deck: str, size: int, *, player: str | None = None) -> CardReturnEvent:
    return CardReturnEvent(piece=ref, source=Place(hand or DECKS_MAP, 10, 10), target=Place(DECKS_MAP, 1, 1, deck),
                           deck=_deck(deck, size), from_hand=hand, player=player)


def shuffle(deck: str, size: int, *, from_deck: str | None = None, player: str | None = None) -> DeckShuffleEvent:
    return DeckShuffleEvent(deck=_deck(deck, size), from_deck=from_deck, player=player)


def order(deck: str, size: int, *, searched: bool = False, how: str = "by hand",
          player: str | None = None) -> DeckOrderEvent:
    return DeckOrderEvent(deck=_deck(deck, size), how=how, searched=searched, player=player)


def clock(turn: int, side: str, phase: str) -> ChatEvent:
    """The turn tracker's report of the example's module."""
    return ChatEvent(message=f"* TT|{turn}|{side}|{phase}")


def chat(player: str, text: str) -> ChatEvent:
    return ChatEvent(message=f"<{player}> - {text}")


class CardGame:
    """Steps of replay events run through :class:`AuditGame` and an
    :class:`Engine` of the given rule entries."""

    def __init__(self, scenario: Scenario, *rules: RuleSpec, plugin_folders: Sequence[Path] = ()) -> None:
        self.scenario = scenario
        self.engine = Engine(scenario, rules=list(rules), plugin_folders=plugin_folders)
        self.game = AuditGame(scenario, SimpleNamespace(positions=None))  # type: ignore[arg-type]
        self.steps: list[Step] = []
        self.seen: list[Any] = []          # (kind, card, deck, from_box, to_box, to_hex, side) of the card events

    def step(self, player: str | None, side: str | None, *events: ReplayEvent, undone_by: int | None = None) -> int:
        n = len(self.steps) + 1
        self.steps.append(Step(n, "game.vlog", n, n - 1, player, side, list(events), undone_by=undone_by))
        return n

    def run(self) -> list[Any]:
        self.game._steps = self.steps
        dispatch = self.engine.dispatch

        def watch(state: Any, event: Any) -> None:
            if event.kind.startswith(("card_", "deck_")):
                self.seen.append((event.kind, event.card, event.deck, event.from_box, event.to_box,
                                  event.to_hex, event.side))
            dispatch(state, event)
        self.engine.dispatch = watch      # type: ignore[method-assign]
        self.engine.wants = lambda kind: True   # type: ignore[method-assign]
        self.game.run(self.engine)
        return self.engine.sorted_violations()

    @property
    def state(self) -> Any:
        return self.game.state


def spec(rule_id: str, kind: str, params: dict[str, Any] | None = None, *, check_at: str = "event",
         plugin: str | None = None) -> RuleSpec:
    return RuleSpec(rule_id, kind, params or {}, ("test",), check_at, "error", plugin=plugin)
