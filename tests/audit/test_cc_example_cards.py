"""The Combat Commander example plays its events from Fate cards: every
event of ``game-1.vlog`` fires from the card actually played (no ``#event``
annotation is typed), and the replay shows the decks and hands as a player
of each side and a referee would see them (docs/seed-rules.md §4.10)."""

from __future__ import annotations

from pathlib import Path

import pytest

from vmodtool.audit.engine import Engine
from vmodtool.audit.game import AuditGame, scenario_positions
from vmodtool.replay import Replay, Viewer
from vmodtool.scenario import load_scenario
from vmodtool.vassal.savefile import SavedGame

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "combat-commander"
GAME = EXAMPLE / "logs" / "game-1.vlog"


@pytest.fixture(scope="module")
def cc():
    return load_scenario(EXAMPLE / "scenario.yaml")


def _replay(cc, viewer=None):
    stand = scenario_positions(cc)
    kw = {"viewer": viewer} if viewer is not None else {}
    return Replay.open([GAME], positions=stand.positions, properties=stand.properties, hands=stand.hands, **kw)


def _card_events(cc):
    game = AuditGame(cc, _replay(cc))
    bound = game.prepare()
    engine = Engine(bound, trust_scenario_plugins=True)
    seen = []
    dispatch = engine.dispatch

    def keep(state, event):
        if event.kind.startswith(("card_", "deck_")):
            seen.append(event)
        dispatch(state, event)
    engine.dispatch = keep
    game.run(engine)
    return seen, engine, game


def test_every_event_fires_from_a_card_played(cc):
    assert "#event" not in SavedGame.read(GAME).text      # nobody types an annotation
    seen, engine, _ = _card_events(cc)
    fired = [(e.text, e.card, e.side) for e in seen if e.kind == "card_event"]
    assert fired == [
        ("Dust", "it.dust", "it"), ("Deploy", "it.deploy", "it"), ("Entrench", "fr.entrench", "fr"),
        ("FieldPromotion", "it.promotion", "it"), ("Hero", "it.hero", "it"), ("Deploy", "fr.deploy", "fr"),
        ("Dust", "it.dust#2", "it"), ("Entrench", "fr.entrench#2", "fr"), ("Élan", "fr.elan", "fr")]
    # each fired from the play of that very card, in the same step
    plays = {(e.step, e.card) for e in seen if e.kind == "card_play"}
    assert all((e.step, e.card) in plays for e in seen if e.kind == "card_event")
    kinds = [e.kind for e in seen]
    assert kinds.count("card_draw") == 28 and kinds.count("card_discard") == 3
    assert engine.violations == []


def test_hands_and_decks_after_the_game(cc):
    seen, _, game = _card_events(cc)
    draws = [e for e in seen if e.kind == "card_draw"]
    assert {e.to_box for e in draws} == {"hand:it", "hand:fr"}
    assert {e.deck for e in draws} == {"it_fate", "fr_fate"}
    st = game.state
    assert sorted(st.hand("it")) == ["it.advance#2", "it.elan", "it.entrench"]
    assert sorted(st.hand("fr")) == ["fr.dust", "fr.elan#2", "fr.fog", "fr.hero"]
    # 15 Fate cards per side, 14 of each drawn (4 + 4 + 4 + 2, 5 + 5 + 3 + 1);
    # 1 and 2 discarded, 3 and 4 held, the rest played
    assert (st.deck_size("it_fate"), st.deck_size("fr_fate")) == (1, 1)
    assert (st.deck_size("it_discard"), st.deck_size("fr_discard")) == (1, 2)
    assert (st.deck_size("it_play"), st.deck_size("fr_play")) == (10, 8)


def test_the_replay_names_cards_only_to_who_may_see_them(cc):
    def lines(viewer=None):
        replay = _replay(cc, viewer)
        return [ev.text() for step in replay.steps() for ev in step.events]

    observer = lines()
    french = lines(Viewer.of_side("Франция"))
    referee = lines(Viewer("referee"))
    deal = "Марио drew 1 card from Колода судьбы (Италия) to Рука (Италия) (1 in hand) (14 left)"
    assert deal in observer and deal in french
    assert any(t.startswith("Марио drew Пыль (Dust) from Колода судьбы (Италия)") for t in referee)
    assert any(t.startswith("Жан drew Огонь (Fire) from Колода судьбы (Франция)") for t in french)
    assert not any("Огонь (Fire) from" in t for t in observer)
    # a played card is public: everyone reads its name
    assert any(t.startswith("Марио played Пыль (Dust)") for t in observer)
