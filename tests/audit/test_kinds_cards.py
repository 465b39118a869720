"""Cards in the audit (``docs/seed-rules.md`` §4.10, §5.5 rows "hand limit",
"card window", "card source"): the replay's deck events become card events
through the real game adapter, the audit state keeps the hands and deck
sizes, and each card kind is silent on a legal game and catches its seeded
illegal game exactly once."""

from __future__ import annotations

import pytest

from tests.audit.cardgame import (
    FR_DISCARD,
    FR_FATE,
    FR_HAND,
    FR_PLAY,
    IT_FATE,
    IT_HAND,
    POOL,
    CardGame,
    card,
    card_scenario,
    clock,
    discard,
    draw,
    order,
    play,
    shuffle,
    spec,
)
from vmodtool.audit.api import Annotation
from vmodtool.audit.game import Initial
from vmodtool.audit.judge import StepJudge


@pytest.fixture(scope="module")
def cards(cc):
    return card_scenario(cc)


DUST, ELAN, DEPLOY = card("fr_dust", "Пыль (Dust)"), card("fr_elan", "Порыв (Élan)"), card("fr_deploy")
FIRE = [card(cid, "Огонь (Fire)") for cid in ("fr_fire", "fr_fire#2", "fr_fire#3")]
LUCK = card("pool_luck", "Случай")


# -- card events ----------------------------------------------------------------------

def test_deck_events_become_card_events_and_the_state_follows(cards):
    g = CardGame(cards)
    fuoco = [card("", "Fuoco", pid=f"it-{k}", built=False) for k in (1, 2)]   # a module's cards, by name
    g.step(None, None, clock(1, "fr", "orders"))
    g.step("Жан", "Франция", draw(DUST, FR_FATE, 39, FR_HAND), draw(FIRE[0], FR_FATE, 38, FR_HAND))
    g.step("Марко", "Италия", draw(fuoco[0], IT_FATE, 29, IT_HAND), draw(fuoco[1], IT_FATE, 28, IT_HAND))
    g.step("Жан", "Франция", play(DUST, FR_HAND, to=(cards.map.name, "0304")),
           discard(FIRE[0], FR_HAND, FR_DISCARD, 1))
    g.step("Марко", "Италия", shuffle(FR_FATE, 40, from_deck=FR_DISCARD), order(IT_FATE, 28, searched=True))
    assert g.run() == []
    assert g.seen == [
        ("card_draw", "fr_dust", "fr_fate", "fr_fate", "hand:fr", None, "fr"),
        ("card_draw", "fr_fire", "fr_fate", "fr_fate", "hand:fr", None, "fr"),
        ("card_draw", "it_fire", "it_fate", "it_fate", "hand:it", None, "it"),
        ("card_draw", "it_fire#2", "it_fate", "it_fate", "hand:it", None, "it"),
        ("card_play", "fr_dust", None, "hand:fr", None, "0304", "fr"),
        ("card_event", "fr_dust", None, None, None, None, "fr"),
        ("card_discard", "fr_fire", "fr_discard", "hand:fr", "fr_discard", None, "fr"),
        ("deck_shuffle", None, "fr_fate", "fr_discard", "fr_fate", None, "it"),
        ("deck_order", None, "it_fate", "it_fate", "it_fate", None, "it"),
    ]
    st = g.state
    assert st.hand("fr") == () and st.hand("it") == ("it_fire", "it_fire#2")
    assert (st.deck_size("fr_fate"), st.deck_size("fr_discard"), st.deck_size("it_fate")) == (40, 0, 28)
    assert st.deck_size("pool") is None
    assert st.card_place("fr_dust") == "0304" and st.card_place("fr_fire") == "fr_discard"
    # a card is never a unit, nor an unknown piece
    assert g.game.unknown_pieces == set()


def test_card_event_carries_the_event_annotation(cards):
    g = CardGame(cards)
    events = []
    g.step(None, None, clock(1, "fr", "orders"))
    g.step("Жан", "Франция", draw(ELAN, FR_FATE, 39, FR_HAND))        # Élan fires when drawn
    g.step("Жан", "Франция", play(ELAN, FR_HAND, deck=FR_PLAY, size=1))   # … not when played
    dispatch = g.engine.dispatch

    def keep(state, event):
        if event.kind == "card_event":
            events.append(event)
        dispatch(state, event)
    g.engine.dispatch = keep
    g.run()
    assert len(events) == 1
    ev = events[0]
    assert (ev.step, ev.text, ev.card, ev.deck, ev.player, ev.side) == (2, "Élan", "fr_elan", "fr_fate", "Жан", "fr")
    assert ev.annotation == Annotation("event", {"name": "Élan", "side": "fr", "card": "fr_elan",
                                                 "trigger": "draw"}, 2, "Жан")


def test_a_card_laid_face_up_on_a_discard_pile_is_discarded_not_played(cards):
    """The replay sees a public play; the scenario's deck role says the pile
    is a discard pile: ``card_discard``, and a play-triggered event does not
    fire."""
    g = CardGame(cards)
    g.step("Жан", "Франция", draw(DUST, FR_FATE, 39, FR_HAND))
    g.step("Жан", "Франция", play(DUST, FR_HAND, deck=FR_DISCARD, size=1))
    g.run()
    assert [(k, c) for k, c, *_ in g.seen] == [("card_draw", "fr_dust"), ("card_discard", "fr_dust")]
    assert g.state.deck_size("fr_discard") == 1 and g.state.card_place("fr_dust") == "fr_discard"
    assert g.state.hand("fr") == ()


def test_a_return_without_a_hand_named_is_a_discard_when_the_audit_had_it_in_hand(cards):
    g = CardGame(cards)
    g.step("Жан", "Франция", draw(FIRE[1], FR_FATE, 30, FR_HAND))
    g.step("Жан", "Франция", discard(FIRE[1], None, FR_DISCARD, 1))
    g.step("Жан", "Франция", draw(FIRE[2], FR_FATE, 29, None, to=(cards.map.name, "0305")))
    g.step("Жан", "Франция", discard(FIRE[2], None, FR_DISCARD, 2))     # from the map: no hand event
    g.run()
    kinds = [(k, c) for k, c, *_ in g.seen]
    assert kinds == [("card_draw", "fr_fire#2"), ("card_discard", "fr_fire#2"), ("card_draw", "fr_fire#3")]
    assert g.state.deck_size("fr_discard") == 2


def test_cards_moved_as_plain_pieces_and_in_the_saved_game_are_followed(cards, monkeypatch):
    from vmodtool.replay.events import MoveEvent, Place, RemoveEvent

    g = CardGame(cards)
    g.game._initial = Initial([(FIRE[0], Place(FR_HAND, 5, 5), ("@a", 0)),
                               (FIRE[1], Place("Колоды", 1, 1, FR_FATE), ("@b", 0)),
                               (DUST, Place(IT_HAND, 5, 5), ("@c", 0))], set(), {})
    seen = []
    end_step = StepJudge.end_step

    def watch(self, step):
        end_step(self, step)
        seen.append((g.state.hand("fr"), g.state.hand("it"), g.state.card_place("fr_fire#2")))
    monkeypatch.setattr(StepJudge, "end_step", watch)
    # Fog of War: a card taken from the Italian hand into the French one by a plain drag
    g.step("Жан", "Франция", MoveEvent(piece=DUST, source=Place(IT_HAND, 5, 5), target=Place(FR_HAND, 6, 6)))
    g.step("Жан", "Франция", RemoveEvent(piece=FIRE[0], source=Place(FR_HAND, 5, 5)))
    g.run()
    assert seen == [(("fr_fire", "fr_dust"), (), "fr_fate"), (("fr_dust",), (), "fr_fate")]
    assert g.seen == []                # plain moves are no card events


# -- hand_limit -----------------------------------------------------------------------

def _draws(g, *refs, start=39):
    return [draw(r, FR_FATE, start - i, FR_HAND) for i, r in enumerate(refs)]


def test_hand_limit_is_silent_on_a_legal_game(cards):
    g = CardGame(cards, spec("cards.hand", "hand_limit"))
    g.step("Жан", "Франция", *_draws(g, DUST, FIRE[0], FIRE[1]))          # 3 = the hand's size
    g.step("Жан", "Франция", play(DUST, FR_HAND, deck=FR_PLAY, size=1), *_draws(g, FIRE[2], start=36))
    assert g.run() == []
    assert g.engine.not_checked == {}


def test_hand_limit_catches_a_hand_over_its_size_once(cards):
    g = CardGame(cards, spec("cards.hand", "hand_limit"))
    g.step("Жан", "Франция", *_draws(g, DUST, FIRE[0], FIRE[1]))
    over = g.step("Жан", "Франция", *_draws(g, FIRE[2], start=36))          # the 4th card
    g.step("Жан", "Франция", *_draws(g, ELAN, start=35))                     # still over: not again
    found = g.run()
    assert [(v.rule_id, v.step, v.player, v.side) for v in found] == [("cards.hand", over, "Жан", "fr")]
    assert found[0].message == ("Франция's hand holds 4 cards after the change; the limit is 3 "
                                "(the last card to come in: «Огонь (Fire)»)")
    assert found[0].evidence["card"] == "fr_fire#3"


def test_hand_limit_at_the_step_end_lets_a_step_discard_down(cards):
    rule = spec("cards.hand", "hand_limit", {"side": "fr"}, check_at="step_end")
    g = CardGame(cards, rule)
    g.step("Жан", "Франция", *_draws(g, DUST, FIRE[0], FIRE[1], FIRE[2]),
           discard(FIRE[0], FR_HAND, FR_DISCARD, 1))                        # 4 during the step, 3 at its end
    assert g.run() == []
    g = CardGame(cards, rule)
    over = g.step("Жан", "Франция", *_draws(g, DUST, FIRE[0], FIRE[1], FIRE[2]))
    found = g.run()
    assert [(v.step, v.evidence["held"]) for v in found] == [(over, 4)]
    assert "at the end of the step" in found[0].message


def test_hand_limit_max_overrides_the_hand_size(cards):
    g = CardGame(cards, spec("cards.hand", "hand_limit", {"side": "fr", "max": 1}))
    g.step("Жан", "Франция", *_draws(g, DUST))
    two = g.step("Жан", "Франция", *_draws(g, FIRE[0], start=38))
    assert [v.step for v in g.run()] == [two]


def test_an_undone_draw_over_the_limit_is_withdrawn(cards):
    g = CardGame(cards, spec("cards.hand", "hand_limit"))
    g.step("Жан", "Франция", *_draws(g, DUST, FIRE[0], FIRE[1]))
    g.step("Жан", "Франция", *_draws(g, FIRE[2], start=36), undone_by=3)
    g.step("Жан", "Франция", discard(FIRE[2], FR_HAND, FR_FATE, 37))   # (the undo puts it back)
    g.steps[-1].undo = True
    found = g.run()
    assert [(v.step, v.withdrawn_by_undo) for v in found] == [(2, True)]


# -- card_window ----------------------------------------------------------------------

DUST_RULE = {"events": ["Dust"], "phasing_side": "own"}


def test_card_window_is_silent_on_a_legal_game(cards):
    g = CardGame(cards, spec("cards.dust", "card_window", DUST_RULE))
    g.step(None, None, clock(1, "fr", "orders"))
    g.step("Жан", "Франция", draw(DUST, FR_FATE, 39, FR_HAND), draw(FIRE[0], FR_FATE, 38, FR_HAND))
    g.step("Жан", "Франция", play(DUST, FR_HAND, deck=FR_PLAY, size=1))      # in its owner's turn
    g.step(None, None, clock(1, "it", "orders"))
    g.step("Жан", "Франция", play(FIRE[0], FR_HAND, deck=FR_PLAY, size=2))   # not a Dust card
    assert g.run() == []


def test_card_window_catches_dust_out_of_its_owners_turn(cards):
    g = CardGame(cards, spec("cards.dust", "card_window", DUST_RULE))
    g.step(None, None, clock(1, "fr", "orders"))
    g.step("Жан", "Франция", draw(DUST, FR_FATE, 39, FR_HAND))
    g.step(None, None, clock(1, "it", "orders"))
    bad = g.step("Жан", "Франция", play(DUST, FR_HAND, deck=FR_PLAY, size=1))
    found = g.run()
    assert [(v.rule_id, v.step, v.player, v.side, v.phasing_side) for v in found] == [
        ("cards.dust", bad, "Жан", "fr", "it")]
    assert found[0].message == ("«Пыль (Dust)» played by Жан (Франция) in turn 1: in Италия's turn, but it may "
                                "be played only in its owner's turn (Франция)")


def test_card_window_by_tag_and_phase(cards):
    rule = spec("cards.weather", "card_window", {"card_tags": ["weather"], "phases": ["orders"]})
    g = CardGame(cards, rule)
    g.step(None, None, clock(1, "fr", "discard"))
    g.step("Жан", "Франция", draw(DUST, FR_FATE, 39, FR_HAND), draw(FIRE[0], FR_FATE, 38, FR_HAND))
    g.step("Жан", "Франция", play(FIRE[0], FR_HAND, deck=FR_PLAY, size=1))   # no tag: any phase
    bad = g.step("Жан", "Франция", play(DUST, FR_HAND, deck=FR_PLAY, size=2))
    found = g.run()
    assert [v.step for v in found] == [bad]
    assert "in the Сброс, but it may be played only in the Приказы и действия" in found[0].message


def test_card_window_does_not_guess_an_unknown_turn(cards):
    g = CardGame(cards, spec("cards.dust", "card_window", DUST_RULE))
    g.step("Жан", "Франция", draw(DUST, FR_FATE, 39, FR_HAND), play(DUST, FR_HAND, deck=FR_PLAY, size=1))
    found = g.run()
    assert [(v.severity, v.evidence.get("not_judged")) for v in found] == [("info", 1)]


# -- card_source ----------------------------------------------------------------------

def test_card_source_is_silent_on_a_legal_game(cards):
    g = CardGame(cards, spec("cards.source", "card_source"))
    g.step("Жан", "Франция", draw(DUST, FR_FATE, 39, FR_HAND), draw(LUCK, POOL, 1, FR_HAND))
    g.step("Жан", "Франция", discard(DUST, FR_HAND, FR_DISCARD, 1), shuffle(FR_FATE, 39, from_deck=FR_DISCARD))
    g.step("Марко", "Италия", draw(card("it_fire"), IT_FATE, 29, IT_HAND))
    # a reshuffle the replay reports card by card: from the discard deck into the draw deck
    g.step("Жан", "Франция", draw(FIRE[0], FR_DISCARD, 0, None, to=("Колоды", FR_FATE)))
    assert g.run() == []
    assert g.seen[-1] == ("card_draw", "fr_fire", "fr_discard", "fr_discard", "fr_fate", None, "fr")


def test_card_source_judges_a_draw_onto_the_map(cards):
    g = CardGame(cards, spec("cards.source", "card_source"))
    bad = g.step("Марко", "Италия", draw(FIRE[0], FR_FATE, 38, None, to=(cards.map.name, "0304")))
    assert [(v.step, v.side, v.hexes) for v in g.run()] == [(bad, "it", ("0304",))]


def test_card_source_catches_a_draw_from_the_opponents_deck(cards):
    g = CardGame(cards, spec("cards.source", "card_source"))
    g.step("Жан", "Франция", draw(DUST, FR_FATE, 39, FR_HAND))
    bad = g.step("Марко", "Италия", draw(FIRE[0], FR_FATE, 38, IT_HAND))
    found = g.run()
    assert [(v.rule_id, v.step, v.player, v.side) for v in found] == [("cards.source", bad, "Марко", "it")]
    assert found[0].message == ("Марко (Италия) drew «Огонь (Fire)» from Судьба Франции (Франция's deck); "
                                "Италия draws from Судьба Италии, Общая колода")


def test_card_source_catches_a_draw_from_a_discard_deck(cards):
    g = CardGame(cards, spec("cards.source", "card_source", {"allow_shared": False}))
    g.step("Жан", "Франция", draw(DUST, FR_FATE, 39, FR_HAND), discard(DUST, FR_HAND, FR_DISCARD, 1))
    bad = g.step("Жан", "Франция", draw(DUST, FR_DISCARD, 0, FR_HAND))
    shared = g.step("Жан", "Франция", draw(LUCK, POOL, 1, FR_HAND))
    found = g.run()
    assert [(v.step, v.evidence["deck_role"]) for v in found] == [(bad, "discard"), (shared, "draw")]
    assert "(a discard deck)" in found[0].message and "(a shared deck)" in found[1].message


# -- no cards seen ----------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["hand_limit", "card_window", "card_source"])
def test_a_game_without_card_events_is_not_checked(cards, kind):
    params = DUST_RULE if kind == "card_window" else {}
    g = CardGame(cards, spec("cards.rule", kind, params))
    g.step(None, None, clock(1, "fr", "orders"))
    assert g.run() == []
    assert "no card was drawn, played or discarded" in g.engine.not_checked["cards.rule"]


def test_a_hand_limit_without_any_limit_is_not_checked(cc):
    from dataclasses import replace

    from vmodtool.scenario.cards import HandSpec
    scenario = replace(card_scenario(cc), hands=(HandSpec("fr", FR_HAND),))
    g = CardGame(scenario, spec("cards.hand", "hand_limit"))
    g.step("Жан", "Франция", draw(DUST, FR_FATE, 39, FR_HAND))
    g.run()
    assert "no hand has a size limit" in g.engine.not_checked["cards.hand"]


def test_a_real_log_without_deck_events_leaves_the_card_rules_not_checked(cards, cc, tmp_path):
    """No false clean: a real log of the example's module in which nobody
    touches a card, audited with the card scenario and its card rules: every
    other rule runs as before, the card rules are NOT CHECKED and the report
    is not complete."""
    from dataclasses import replace

    from tests.audit.helpers import built_module
    from vmodtool.audit import audit_logs
    from vmodtool.vassal.gamewriter import GameWriter, Player

    module, sizes = built_module(cc)
    w = GameWriter(module, players=[Player("it-1", "Марио", "Италия"), Player("fr-1", "Жан", "Франция")],
                   board_sizes=sizes)
    w.snapshot()                          # the saved state the log starts from
    w.move(w.find(UnitId="it.sq_line.2"), "0803", map_name=cc.map.name, player="Марио")
    w.move(w.find(UnitId="fr.ldr.1"), "0403", map_name=cc.map.name, player="Жан")
    log = tmp_path / "no-cards.vlog"
    log.write_bytes(w.to_bytes())
    rules = (spec("cards.hand", "hand_limit"), spec("cards.dust", "card_window", DUST_RULE),
             spec("cards.source", "card_source"))
    plain = audit_logs([log], cards)
    report = audit_logs([log], replace(cards, rules=cards.rules + rules))
    assert report.steps == 2
    assert [v.as_dict() for v in report.violations] == [v.as_dict() for v in plain.violations]
    assert sorted(set(report.not_checked) - set(plain.not_checked)) == ["cards.dust", "cards.hand", "cards.source"]
    assert not report.complete


def test_a_copy_of_the_state_keeps_its_own_hands(cards):
    from tests.audit.helpers import setup_state

    state = setup_state(cards)
    state.place_card("fr_dust", "hand:fr")
    state.deck_sizes["fr_fate"] = 39
    snap = state.copy()
    state.place_card("fr_dust", "fr_discard")
    state.place_card("fr_fire", "hand:fr")
    state.deck_sizes["fr_fate"] = 38
    assert (snap.hand("fr"), snap.deck_size("fr_fate"), snap.card_place("fr_dust")) == (("fr_dust",), 39, "hand:fr")
    assert (state.hand("fr"), state.deck_size("fr_fate")) == (("fr_fire",), 38)
