"""The VASSAL formats of decks, hands and hidden pieces (vassal/decks.py,
docs/vassal-format.md §4.12): Deck.getType field order and
myRefreshType's defaults, Deck.getState/setState, Obscurable/Hideable
states, a module's DrawPiles and PlayerHands, DECK/DECKREPOS commands."""

from __future__ import annotations

import pytest

from tests.conftest import shared_path
from vmodtool.vassal.buildfile import BuildFile
from vmodtool.vassal.commands import DeckReposition, LoadDeck, UnknownCommand, classify, parse_commands
from vmodtool.vassal.decks import (
    DECK_FIELDS,
    NO_USER,
    DeckState,
    DeckType,
    ObscuredState,
    draw_piles,
    hands,
    hidden_by,
)
from vmodtool.vassal.savefile import SavedGame

#: the tour's Cards deck (VASSAL 1.x era: 17 fields)
TOUR_TYPE = "deck;true;0,0,0;139;90;Always;Always;false;true;false;Re-shuffle;;;Cards;;;;false"


def test_an_old_short_type_takes_myRefreshTypes_defaults():
    t = DeckType.parse(TOUR_TYPE)
    assert t.given == 17
    assert (t.name, t.face_down_option, t.shuffle_option, t.allow_multiple_draw, t.allow_select_draw) == \
        ("Cards", "Always", "Always", False, True)
    assert (t.reshuffle_command, t.draw_face_up, t.max_stack, t.shuffle_command, t.restrict_access) == \
        ("Re-shuffle", False, 10, "Shuffle", False)
    assert t.get("selectDisplayProperty") == "$BasicName$" and t.owners == ()
    # re-encoded, the given fields come first in getType order, the defaults after
    assert t.encode().startswith(TOUR_TYPE + ";false;")
    assert len(t.encode().split(";")) == 1 + len(DECK_FIELDS)


def test_a_full_type_round_trips_and_reads_its_owners():
    t = DeckType.build(deckName="Судьба", restrictAccess="true", owners="Soviets,Germans",
                       faceDownOption="MenuDefaultUp")
    again = DeckType.parse(t.encode())
    assert again == t and again.given == len(DECK_FIELDS)
    assert again.owners == ("Soviets", "Germans") and again.restrict_access
    assert not again.initially_face_down
    with pytest.raises(KeyError):
        DeckType.build(colour="red")


@pytest.mark.parametrize(("text", "state"), [
    ("Force Pool;658;94;true;11,12,13", DeckState("Force Pool", 658, 94, True, ("11", "12", "13"))),
    ("Map;625;3700;false", DeckState("Map", 625, 3700, False)),
    ("null;0;0;false", DeckState(None, 0, 0, False)),
])
def test_deck_state_as_getState_writes_it(text, state):
    assert DeckState.parse(text) == state
    assert state.encode() == text


def test_deck_state_reads_bad_fields_as_setState():
    assert DeckState.parse("Map;x;5;yes;1,,2") == DeckState("Map", 0, 5, False, ("1", "2"))


def test_obscurable_and_hideable_states():
    assert ObscuredState.parse("null") == ObscuredState(None)
    assert ObscuredState.parse("null;") == ObscuredState(None)
    masked = ObscuredState.parse("pw;|0")
    assert masked.masked and masked.by == "pw" and masked.encode() == "pw;|0"
    assert ObscuredState.masked_by("pw") == masked
    assert ObscuredState(None, "|0").encode() == "null;"        # options only when masked
    assert ObscuredState.parse(f"{NO_USER};|0").by == NO_USER
    assert hidden_by("null") is None and hidden_by("pw") == "pw"


def test_load_deck_and_deck_repos_are_typed_and_apply_nothing():
    assert classify("DECK\t") is LoadDeck
    assert classify("DECKREPOS\tsomething") is DeckReposition
    assert classify("DECKX") is UnknownCommand
    assert issubclass(LoadDeck, UnknownCommand) and LoadDeck.java_class is None
    node = parse_commands("DECK\t")
    assert isinstance(node, LoadDeck) and node.kind == "LoadDeck"


def test_pog_drawpiles_give_the_deck_types_of_its_saves():
    bf = BuildFile.read(shared_path("corpus", "pog", "buildFile.xml"))
    piles = {p.name: p for p in draw_piles(bf)}
    assert len(piles) == 13 and piles["AP Deck"].map == "Map"
    assert (piles["AP Deck"].x, piles["AP Deck"].y, piles["AP Deck"].face_down) == (200, 3700, True)
    assert piles["AP Discard"].type.reshuffle_target == "AP Deck"
    game = SavedGame.read(shared_path("corpus", "pog", "Historical10-0__12fab9b.vsav"))
    saved = {}
    for node in game.restore_part():
        for cmd in getattr(node, "children", [node]):
            text = getattr(cmd, "text", "")
            if text.startswith("+/") and "/deck;" in text[:40]:
                t = DeckType.parse(text.split("/", 2)[2].rsplit("/", 1)[0].replace("\\/", "/"))
                saved[t.name] = t
    assert saved, "the save has decks"
    # the fields a pile's attributes set (not its keys, whose codes VASSAL
    # translated, nor its DeckGlobalKeyCommands, which are child elements;
    # nor allowSelectDraw, which the module changed since the save)
    same = ("faceDownOption", "shuffleOption", "allowMultipleDraw", "reversible",
            "reshuffleTarget", "deckName", "drawFaceUp", "maxStack", "width", "height")
    for name, t in saved.items():
        assert {f: piles[name].type.get(f) for f in same} == {f: t.get(f) for f in same}, name


def test_hands_are_the_private_maps_with_their_sides():
    pog = {h.name: h for h in hands(BuildFile.read(shared_path("corpus", "pog", "buildFile.xml")))}
    assert pog["Allied Powers"].sides == ("Allied Powers", "Solitaire")
    assert pog["Allied Powers"].kind == "PlayerHand" and not pog["Allied Powers"].visible_to_all
    nevsky = {h.name: h for h in hands(BuildFile.read(shared_path("corpus", "nevsky", "buildFile.xml")))}
    assert nevsky["Russian Hand"].kind == "PrivateMap" and nevsky["Russian Hand"].owned_by("Russians")
    assert not nevsky["Russian Hand"].owned_by("Teutons") and not nevsky["Russian Hand"].owned_by(None)
