"""A deck's commands applied as VASSAL 3.7.26 applies them, from raw logs
without a module: ``+/`` of a ``deck;`` (Deck.setState), ``D/`` of a deck
(Stack.mergeState then Deck.setState/setContents), drops onto a deck
(MovePiece.createMergeFinder), LoadDeck/DeckReposition dropped."""

from __future__ import annotations

from tests.replay.test_engine import ESC, game, log, move, piece
from vmodtool.replay import Replay
from vmodtool.replay.events import CardDrawEvent, CardReturnEvent, DeckFaceEvent, DeckOrderEvent, UnknownEvent
from vmodtool.replay.state import Deck
from vmodtool.vassal.commands import AddPiece, ChangePiece

DECK_TYPE = "deck;true;0,0,0;60;90;Always;Never;false;true;false;;;;Колода"


def deck(did, state):
    return AddPiece.build(did, DECK_TYPE, state).text


def cards():
    return [piece(f"c{i}", "Main Map", 0, 0, f"C{i}") for i in range(1, 4)]


def members(replay, did):
    d = replay.engine.state.get(did)
    assert isinstance(d, Deck)
    return [m.id for m in d.members]


def test_a_deck_takes_its_cards_off_the_map_bottom_to_top():
    r = Replay([game(cards() + [deck("d1", "Main Map;500;500;true;c1,c2,c3")], [])])
    list(r.steps())
    assert members(r, "d1") == ["c1", "c2", "c3"]
    d = r.engine.state.get("d1")
    assert d.name == "Колода" and d.face_down and d.state_string() == "Main Map;500;500;true;c1,c2,c3"
    c1 = r.engine.state.get("c1")
    assert c1.position == (500, 500) and c1.current_map.name == "Main Map"
    assert all(o is d or o.id not in ("c1", "c2", "c3") for o in r.engine.state.maps["Main Map"].pieces)


def test_a_deck_change_sets_order_and_face():
    new = "Main Map;500;500;false;c3,c1,c2"
    r = Replay([game(cards() + [deck("d1", "Main Map;500;500;true;c1,c2,c3")],
                     [log(ChangePiece.build("d1", new, "Main Map;500;500;true;c1,c2,c3").text)])])
    (step,) = list(r.steps())
    assert members(r, "d1") == ["c3", "c1", "c2"]
    assert [type(e) for e in step.events] == [DeckFaceEvent, DeckOrderEvent]
    assert step.events[1].how == "by hand"


def test_a_stale_deck_change_goes_through_stack_merge_state():
    """Deck inherits Stack.mergeState: with an old state that is not the
    deck's, its member ids not in the new or old token lists are put back
    after the token they followed — here before the face token, which
    Deck.setState then reads as "not face down" (VASSAL's own quirk)."""
    r = Replay([game(cards() + [deck("d1", "Main Map;500;500;true;c1,c2,c3")],
                     [log(ChangePiece.build("d1", "Main Map;500;500;true;c2", "Main Map;1;1;true;c2").text)])])
    list(r.steps())
    d = r.engine.state.get("d1")
    assert d.face_down is False
    assert members(r, "d1") == []        # the ids landed where the face and card list were


def test_a_piece_dropped_on_an_empty_deck_joins_it_and_a_draw_leaves_it():
    steps = [log(move("c4", "Main Map", (500, 500), "Main Map", (0, 0))),
             log(move("c4", "Main Map", (100, 100), "Main Map", (500, 500)))]
    r = Replay([game([piece("c4", "Main Map", 0, 0, "C4"), deck("d1", "Main Map;500;500;false")], steps)])
    s1, s2 = list(r.steps())
    assert isinstance(s1.events[0], CardReturnEvent) and s1.events[0].deck.size == 1
    assert isinstance(s2.events[0], CardDrawEvent) and s2.events[0].deck.size == 0
    assert members(r, "d1") == []
    assert s2.events[0].visible            # face up, onto a public map


def test_load_deck_and_deck_repos_are_dropped():
    r = Replay([game(cards() + [deck("d1", "Main Map;500;500;true;c1,c2,c3")],
                     [log("DECK\t"), log("DECKREPOS\tx")])])
    steps = list(r.steps())
    assert [e.prefix for s in steps for e in s.events if isinstance(e, UnknownEvent)] == ["DECK\t", "DECKREPOS\t"]
    assert members(r, "d1") == ["c1", "c2", "c3"]
    assert ESC not in str(steps)
