"""Decks and hands in the built module: DrawPile, CardSlot and PlayerHand
with VASSAL 3.7.26's full attribute sets, the card pieces' traits, lint
clean, byte-reproducible."""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from tests.conftest import shared_path
from vmodtool.assemble.builder import build_module_file
from vmodtool.assemble.components import DEFAULTS, P
from vmodtool.assemble.images import module_image_names
from vmodtool.assemble.module import assemble_module
from vmodtool.lint import lint_module
from vmodtool.scenario import binding as B
from vmodtool.scenario import load_scenario
from vmodtool.vassal.module import Module
from vmodtool.vassal.pieces import PieceDef
from vmodtool.vassal.traits import Obscurable, ReturnToDeck, piece_properties, view_of

CC = Path(__file__).parents[2] / "examples" / "combat-commander" / "scenario.yaml"

#: VASSAL 3.7.26 DrawPile.getAttributeNames()
#: (src/vassal-app/src/main/java/VASSAL/build/module/map/DrawPile.java)
DRAWPILE_NAMES = [
    "name", "description", "owningBoard", "x", "y", "width", "height", "allowMultiple", "drawMultipleMessage",
    "allowSelect", "drawSpecificMessage", "selectDisplayProperty", "selectSortProperty", "faceDown",
    "faceFlipHotkey", "faceUpMessage", "faceUpHotkey", "faceUpReportFormat", "faceDownMessage", "faceDownHotkey",
    "faceDownFormat", "drawFaceUp", "shuffle", "shuffleCommand", "shuffleFormat", "shuffleHotkey", "reversible",
    "reverseCommand", "reverseFormat", "reverseHotkey", "draw", "color", "hotkeyOnEmpty", "emptyHotkey",
    "reshufflable", "reshuffleCommand", "reshuffleMessage", "reshuffleHotkey", "reshuffleTarget", "canSave",
    "saveMessage", "saveHotkey", "saveReportFormat", "loadMessage", "loadHotkey", "loadReportFormat", "maxStack",
    "expressionCounting", "countExpressions", "restrictOption", "restrictExpression", "deckRestrictAccess",
    "deckOwners"]
#: Map.getAttributeNames() + PrivateMap's side, visible, useBoards
MAP_NAMES = [
    "mapName", "description", "markMoved", "markUnmovedText", "markUnmovedTooltip", "markUnmovedIcon",
    "markUnmovedHotkey", "markUnmovedReport", "edgeWidth", "edgeHeight", "backgroundcolor", "allowMultiple",
    "color", "thickness", "launch", "buttonName", "tooltip", "icon", "hotkey", "showKey", "hideKey",
    "onlyReportChangedLocation", "moveWithinFormat", "moveToFormat", "createFormat", "changeFormat", "moveKey"]
PLAYERHAND_NAMES = ["side", "visible", "useBoards"] + MAP_NAMES
#: PieceSlot.getAttributeNames() (CardSlot inherits them)
SLOT_NAMES = ["entryName", "width", "height", "gpid"]


@pytest.fixture(scope="module")
def cc():
    return load_scenario(CC)


@pytest.fixture(scope="module")
def built(cc, tmp_path_factory):
    out = tmp_path_factory.mktemp("decks") / "cc.vmod"
    build_module_file(CC, out, jobs=1)
    return out


def test_attribute_sets_are_vassals():
    assert sorted(DEFAULTS["module.map.DrawPile"]) == sorted(DRAWPILE_NAMES)
    # useBoards is null (not written) when the hand has a board of its own
    assert sorted(DEFAULTS["module.PlayerHand"]) == sorted(set(PLAYERHAND_NAMES) - {"useBoards"})
    assert sorted(DEFAULTS["widget.CardSlot"]) == sorted(SLOT_NAMES)


def test_defaults_match_vassals_own_rewrite_of_a_deck():
    """The attributes VASSAL writes back for a corpus deck (null name-less
    ones aside) are ours."""
    golden = etree.parse(str(shared_path("golden", "modules", "flashpoint-scs.rebuilt.xml")))
    pile = next(golden.iter(P + "module.map.DrawPile"))
    assert set(pile.attrib) == set(DRAWPILE_NAMES) - {"description", "owningBoard"}
    hand = next(golden.iter(P + "module.PlayerHand"))
    assert set(hand.attrib) == set(DEFAULTS["module.PlayerHand"]) - {"description"}


def test_decks_are_drawpiles_with_card_slots(cc, built):
    with Module.open(built) as module:
        root = module.buildfile.root
        piles = {p.get("name"): p for p in root.iter(P + "module.map.DrawPile")}
        assert set(piles) == {d.vassal_name for d in cc.decks}
        for pile in piles.values():
            assert sorted(pile.attrib) == sorted(DRAWPILE_NAMES)
            assert pile.getparent().get("mapName") == "Off-map" and pile.get("owningBoard") == "Off-map"
        fate, discard = piles["Колода судьбы (Франция)"], piles["Сброс (Франция)"]
        assert (fate.get("faceDown"), fate.get("shuffle"), fate.get("drawFaceUp")) == ("Always", "Always", "false")
        assert (fate.get("deckRestrictAccess"), fate.get("deckOwners")) == ("true", "Франция")
        assert fate.get("hotkeyOnEmpty") == "true" and fate.get("emptyHotkey") == discard.get("reshuffleHotkey")
        assert (discard.get("faceDown"), discard.get("reshufflable"), discard.get("reshuffleTarget")) == \
            ("Never", "true", "Колода судьбы (Франция)")
        slots = [s for s in fate if s.tag == P + "widget.CardSlot"]
        assert len(slots) == 15 and all(sorted(s.attrib) == sorted(SLOT_NAMES) for s in slots)
        assert len(list(discard)) == 0
        # the card pieces: CardId/CardDeck, a mask with the deck's back, return to the discard pile
        ids = []
        for slot in slots:
            piece = PieceDef.parse(module.buildfile.text_of(slot))
            props = piece_properties(piece)
            ids.append(props[B.CARD_ID])
            assert props[B.CARD_DECK] == "fr_fate"
            mask = next(view_of(t) for t in piece.traits if t.prefix == "obs;")
            assert isinstance(mask, Obscurable) and mask.image == "card-back.fr_fate.png"
            assert mask.mask_name == "Судьба · Франция" and mask.display_style == "I"
            back = next(view_of(t) for t in piece.traits if t.prefix == "return;")
            assert isinstance(back, ReturnToDeck)
            assert (back.deck_select, back.deck_expression, back.version) == (False, "Сброс (Франция)", 2)
            assert piece.basic.view().image.startswith("card.fr.")
            assert module.read_file("images/" + piece.basic.view().image)
        assert ids.count("fr.elan") == 1 and "fr.elan#2" in ids and len(set(ids)) == 15


def test_hands_are_private_to_their_side(cc, built):
    with Module.open(built) as module:
        hands = list(module.buildfile.root.iter(P + "module.PlayerHand"))
        assert [(h.get("mapName"), h.get("side"), h.get("visible")) for h in hands] == \
            [("Рука (Франция)", "Франция", "false"), ("Рука (Италия)", "Италия", "false")]
        for hand in hands:
            assert sorted(hand.attrib) == sorted(DEFAULTS["module.PlayerHand"])
            board = next(hand.iter(P + "module.map.boardPicker.Board"))
            assert module.image_size(board.get("image")) == (20 + 5 * 245, 355) or \
                module.image_size(board.get("image")) == (20 + 4 * 245, 355)


def test_gpids_of_cards_come_after_all_other_pieces(built):
    with Module.open(built) as module:
        slots = module.buildfile.piece_slots()
        cards = [int(s.gpid) for s in slots if s.kind == "CardSlot"]
        others = [int(s.gpid) for s in slots if s.kind != "CardSlot"]
        assert len(cards) == 30 and min(cards) > max(others)
        assert int(module.buildfile.root.get("nextPieceSlotId")) == max(cards) + 1


def test_lint_clean(built):
    with Module.open(built) as module:
        assert lint_module(module) == []


def test_build_is_byte_reproducible(cc, tmp_path):
    a, b = tmp_path / "a.vmod", tmp_path / "b.vmod"
    build_module_file(CC, a, jobs=1)
    build_module_file(CC, b, jobs=1)
    assert a.read_bytes() == b.read_bytes()
    # the names-only images give the same buildFile as the drawn ones
    names = assemble_module(cc, module_image_names(cc)).entries["buildFile.xml"]
    with Module.open(a) as module:
        assert module.read_file("buildFile.xml") == names


def test_a_deck_in_a_box_lies_at_the_box_zone(tmp_path):
    from tests.scenario.test_decks import DECKS, write
    from vmodtool.scenario.offmap import layout_off_map
    path = write(tmp_path, DECKS)
    scenario = load_scenario(path)
    out = tmp_path / "a.vmod"
    build_module_file(path, out, jobs=1)
    zone = next(z for z in layout_off_map(scenario).zones if z.kind == "box" and z.ref == "chit_cup")
    with Module.open(out) as module:
        pile = next(p for p in module.buildfile.root.iter(P + "module.map.DrawPile") if p.get("name") == "Shared")
        assert (int(pile.get("x")), int(pile.get("y"))) == zone.centre
        assert (pile.get("width"), pile.get("height")) == ("156", "241")       # mini-euro at 90 dpi
        assert (pile.get("shuffle"), pile.get("faceDown"), pile.get("deckRestrictAccess")) == \
            ("Via right-click Menu", "Never", "false")
        assert lint_module(module) == []
