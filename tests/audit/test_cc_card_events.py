"""The Combat Commander plug-ins (``examples/combat-commander/rules/cc_events.py``,
``docs/seed-rules.md`` §2.1, §4.10) open their event window on a card's
``card_event`` as they do on a typed ``#event`` line: a drawn «Порыв (Élan)»
must move the drawer's Surrender marker one space up, a played «Развёртывание
(Deploy)» opens the Deploy window; the player's announcement of the same
event inside the window does not open it again."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.audit.cardgame import FR_FATE, FR_HAND, CardGame, card, card_scenario, chat, clock, draw, play
from tests.audit.helpers import EXAMPLES
from vmodtool.replay.events import AddEvent, MoveEvent, PieceRef, Place

RULES = EXAMPLES / "combat-commander" / "rules"
OFF_MAP = "Вне карты"


@pytest.fixture(scope="module")
def cards(cc):
    return card_scenario(cc)


def _plugin(scenario, rule_id):
    return replace(next(r for r in scenario.rules if r.id == rule_id), check_at="event")


def _track(scenario, track_id: str, space: int) -> Place:
    track = next(t for t in scenario.tracks if t.id == track_id)
    return Place(OFF_MAP, 100 + space, 100, f"{track.name} {track.spaces[space - 1]}")


SURRENDER = PieceRef("surrender-fr", "mark;MarkerKind\tpiece;;;;Сдача", ("surrender", "null;0;0;0"))
ELAN = card("fr_elan", "Порыв (Élan)")


def _elan_game(cards, spaces: int, *, announce: bool = False) -> CardGame:
    g = CardGame(cards, _plugin(cards, "event.elan"), plugin_folders=[RULES])
    g.step(None, None, clock(1, "fr", "orders"))
    g.step("Жан", "Франция", AddEvent(piece=SURRENDER, target=_track(cards, "fr_casualties", 6)))
    g.step("Жан", "Франция", draw(ELAN, FR_FATE, 39, FR_HAND))                  # the card's event
    moved = [MoveEvent(piece=SURRENDER, source=_track(cards, "fr_casualties", 6),
                       target=_track(cards, "fr_casualties", 6 + spaces))]
    if announce:
        moved.insert(0, chat("Жан", "#event Élan fr"))
    g.step("Жан", "Франция", *moved)
    return g


def test_a_drawn_elan_card_opens_the_elan_window(cards):
    g = _elan_game(cards, 1)
    assert g.run() == [] and g.engine.failures == []
    assert g.state.track_position("fr_casualties", "surrender") == 7


def test_a_drawn_elan_card_catches_the_marker_moved_two_spaces(cards):
    g = _elan_game(cards, 2)
    found = g.run()
    assert [(v.rule_id, v.step, v.evidence.get("before"), v.evidence.get("after")) for v in found] == [
        ("event.elan", 4, 6, 8)]
    assert "from 6 to 7" in found[0].message


def test_the_announcement_of_the_cards_event_does_not_reopen_the_window(cards):
    # the chat line in the window's second step would otherwise restart it
    # there, with the marker already moved: the wrong move would be missed
    g = _elan_game(cards, 2, announce=True)
    assert [(v.rule_id, v.step) for v in g.run()] == [("event.elan", 4)]


def test_without_the_card_nothing_opens(cards):
    g = CardGame(cards, _plugin(cards, "event.elan"), plugin_folders=[RULES])
    g.step("Жан", "Франция", AddEvent(piece=SURRENDER, target=_track(cards, "fr_casualties", 6)))
    g.step("Жан", "Франция", draw(card("fr_fire", "Огонь (Fire)"), FR_FATE, 39, FR_HAND))   # no event
    g.step("Жан", "Франция", MoveEvent(piece=SURRENDER, source=_track(cards, "fr_casualties", 6),
                                       target=_track(cards, "fr_casualties", 8)))
    assert g.run() == []


def test_a_played_deploy_card_opens_the_deploy_window(cards):
    deploy = card("fr_deploy", "Развёртывание (Deploy)")
    g = CardGame(cards, _plugin(cards, "event.deploy"), plugin_folders=[RULES])
    g.step(None, None, clock(1, "fr", "orders"))
    g.step("Жан", "Франция", draw(deploy, FR_FATE, 39, FR_HAND))          # fires when played, not drawn
    played = g.step("Жан", "Франция", play(deploy, FR_HAND, to=(cards.map.name, "0304")))
    for _ in range(3):
        g.step("Жан", "Франция")                                          # the window's 4 steps, nothing done
    found = g.run()
    assert [(v.rule_id, v.step, v.severity) for v in found] == [("event.deploy", played + 3, "info")]
    assert found[0].message.startswith("Deploy announced but no Squad was replaced")
