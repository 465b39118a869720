"""The scenario's decks and hands as VASSAL components.

* Each deck is a ``VASSAL.build.module.map.DrawPile`` on the off-map
  window, centred in its box's zone or in the place the off-map layout
  gives it (:func:`vmodtool.scenario.offmap.layout_off_map`), with one
  ``VASSAL.build.widget.CardSlot`` per physical card (copies included).
  ``faceDown``, ``shuffle``, the owners (``deckRestrictAccess`` +
  ``deckOwners``, the owner side's roster name) come from the deck; a
  discard deck that a draw deck reshuffles from gets the "send to another
  deck" command (``reshufflable``, ``reshuffleTarget`` = the draw deck), and
  the draw deck fires it when it runs empty (``hotkeyOnEmpty``).
* A card piece is, outermost first: ``report;`` (its commands are logged),
  ``return;`` to its discard deck (where
  its deck has one), a Mask ``obs;`` whose mask image is the deck's back (a
  face-down deck and a hand show the back to the others), a Marker with
  ``CardId`` (copies ``id#2`` …), ``CardDeck`` (the id of the deck it starts
  in), ``CardEvent``, ``CardTrigger``, ``CardTags``, and the BasicPiece with
  the front image and the card's name.
* Each hand is a ``VASSAL.build.module.PlayerHand`` whose ``side`` is the
  side's roster name (only that side's players see into it), with a board of
  its own sized for the hand's cards and one zone over it (a card in the
  hand is "in" the hand's name).

Every component carries the full attribute set VASSAL 3.7 writes
(:mod:`vmodtool.assemble.components`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from lxml import etree

from vmodtool.assemble import components as C
from vmodtool.scenario import binding as B
from vmodtool.scenario.cards import HAND_MARGIN, CardSpec, DeckSpec, card_pixels, hand_board_size
from vmodtool.scenario.geometry import hand_zone, scenario_hands
from vmodtool.scenario.model import Scenario
from vmodtool.scenario.offmap import OFF_MAP_NAME, OffMapLayout
from vmodtool.vassal import traits as T
from vmodtool.vassal.keys import CTRL, NamedKeyStroke, key
from vmodtool.vassal.pieces import PieceDef, Trait
from vmodtool.vassal.sequence import encode_sequence

__all__ = ["add_decks", "add_hands", "card_definition", "discard_deck_of", "FLIP_CARD", "DISCARD_CARD",
           "SHUFFLE_VALUES", "hand_board_size", "HAND_MARGIN"]

# plain key strokes (Ctrl+F, Ctrl+D): a name would make VASSAL ignore the keys
# (docs/vassal-format.md §3.1.6; lint named-key-hides-keystroke)
FLIP_CARD = key("F", CTRL)
DISCARD_CARD = key("D", CTRL)
#: the deck's ``shuffle`` → VASSAL's ``DrawPile.shuffle``
SHUFFLE_VALUES = {"always": "Always", "never": "Never", "menu": "Via right-click Menu"}
REPORT_FORMAT = "$oldPieceName$ $menuCommand$ ($location$) *"
_NAMED_CODE = 57535     # the code VASSAL writes for a named key (re-allocated on load)

Gpid = Callable[[], str]


def _safe(text: str) -> str:
    return text.rstrip("\\")


def discard_deck_of(scenario: Scenario, deck: DeckSpec) -> DeckSpec | None:
    """Where the cards of ``deck`` are discarded to: the discard deck it
    reshuffles from (None: no discard deck)."""
    if deck.reshuffle_from is None:
        return None
    return next((d for d in scenario.decks if d.id == deck.reshuffle_from), None)


def _owners(scenario: Scenario, side_id: str | None) -> str:
    if side_id is None:
        return ""
    names = {s.id: s.name for s in scenario.game.sides}
    return encode_sequence([names[side_id]], ",") or ""


def card_definition(scenario: Scenario, deck: DeckSpec, card: CardSpec, copy_id: str, front: str, back: str,
                    gpid: str) -> str:
    """The CardSlot text of one physical card."""
    discard = discard_deck_of(scenario, deck)
    traits: list[Trait] = [T.ReportState.build(
        keys=[FLIP_CARD] + ([DISCARD_CARD] if discard is not None else []), report_format=REPORT_FORMAT,
        description="Report every command in the log")]
    if discard is not None:
        traits.append(T.ReturnToDeck.build(
            command="Discard", key=DISCARD_CARD, deck_id="", select_deck_prompt="Select destination",
            description=f"Discard to {discard.vassal_name}", version=2, deck_select=False,
            deck_expression=discard.vassal_name))
    traits.append(T.Obscurable.build(
        key_command=FLIP_CARD, image=back, hide_command="Flip", display_style="I",
        mask_name=_safe(deck.back or deck.name), access="player:", peek_command="Peek",
        description="Card back", auto_peek_rollover=True, deal_key=None, deal_expression="",
        state="null;"))
    traits.append(T.Marker.build(properties={
        B.CARD_ID: copy_id, B.CARD_DECK: card.deck, "CardEvent": _safe(card.event or ""),
        "CardTrigger": card.trigger, "CardTags": ",".join(sorted(card.tags))}))
    traits.append(T.BasicPiece.build(image=front, piece_name=_safe(card.name), state=f"null;0;0;{gpid};0"))
    return PieceDef.from_traits(traits).encode()


def _reshuffle_key(deck: DeckSpec) -> NamedKeyStroke:
    return NamedKeyStroke(_NAMED_CODE, 0, f"Reshuffle {deck.id}")


def _deck_place(deck: DeckSpec, layout: OffMapLayout) -> tuple[int, int]:
    """The centre of the deck's box zone, or of its own place."""
    ref, kind = (deck.zone, "box") if deck.zone is not None else (deck.id, "deck")
    zone = next(z for z in layout.zones if z.kind == kind and z.ref == ref)
    return zone.centre


def add_decks(off_map: etree._Element, scenario: Scenario, layout: OffMapLayout,
              card_images: Mapping[str, str], back_images: Mapping[str, str],
              gpid: Gpid, before: etree._Element | None = None) -> None:
    """One DrawPile per deck, children of the off-map window ``off_map``
    (inserted before ``before``, else appended)."""
    feeds = {d.reshuffle_from: d for d in scenario.decks if d.reshuffle_from}
    for deck in scenario.decks:
        x, y = _deck_place(deck, layout)
        w, h = card_pixels(deck.size)
        target = feeds.get(deck.id)
        attrs: dict[str, object] = {
            "name": deck.vassal_name, "description": f"{deck.role} deck {deck.id}",
            "owningBoard": OFF_MAP_NAME, "x": x, "y": y, "width": w, "height": h,
            "faceDown": "Always" if deck.face_down else "Never",
            # a card drawn to a hand stays masked (its drawer sees it); drawn to the map it is turned up
            "drawFaceUp": deck.draw_to == "map",
            "shuffle": SHUFFLE_VALUES[deck.shuffle],
            "allowMultiple": False, "allowSelect": deck.role != "draw",
            "reversible": False, "draw": True, "maxStack": 10,
            "shuffleFormat": f"{deck.vassal_name}: shuffled" if deck.shuffle != "never" else "",
            "deckRestrictAccess": deck.owner is not None, "deckOwners": _owners(scenario, deck.owner),
        }
        if deck.reshuffle_from is not None:
            attrs.update(hotkeyOnEmpty=True, emptyHotkey=_reshuffle_key(deck).encode())
        if target is not None:
            attrs.update(reshufflable=True, reshuffleCommand=f"Reshuffle into {target.vassal_name}",
                         reshuffleTarget=target.vassal_name, reshuffleHotkey=_reshuffle_key(target).encode(),
                         reshuffleMessage=f"{deck.vassal_name} reshuffled into {target.vassal_name}")
        pile = C.element("module.map.DrawPile", attrs)
        if before is not None:
            before.addprevious(pile)
        else:
            off_map.append(pile)
        cw, ch = card_pixels(deck.size)
        for copy_id, card in deck.copies():
            slot_gpid = gpid()
            C.add(pile, "widget.CardSlot", {"entryName": _safe(card.name), "gpid": slot_gpid,
                                            "width": cw, "height": ch},
                  text=card_definition(scenario, deck, card, copy_id, card_images[card.id],
                                       back_images[deck.id], slot_gpid))


def add_hands(root: etree._Element, scenario: Scenario, boards: Mapping[str, str],
              before: etree._Element | None = None) -> None:
    """One PlayerHand per hand (``boards``: side id → board image): the
    windows, owners and zones :mod:`vmodtool.scenario.geometry` computes."""
    for hand, window in zip(scenario.hands, scenario_hands(scenario), strict=True):
        hand_el = C.element("module.PlayerHand", {
            "mapName": window.name, "buttonName": window.name, "tooltip": window.name,
            "side": encode_sequence(list(window.sides), ",") or "", "visible": False,
            "launch": True, "markMoved": "Never", "icon": "",
            "createFormat": "", "moveToFormat": "", "moveWithinFormat": ""})
        if before is not None:
            before.addprevious(hand_el)
        else:
            root.append(hand_el)
        picker = C.add(hand_el, "module.map.BoardPicker")
        board = C.add(picker, "module.map.boardPicker.Board", {"image": boards[hand.side],
                                                               "name": window.name})
        zoned = C.add(board, "module.map.boardPicker.board.ZonedGrid")
        C.add(zoned, "module.map.boardPicker.board.mapgrid.Zone", hand_zone(scenario, hand).attributes())
        for cls in ("module.map.ForwardToKeyBuffer", "module.map.Scroller", "module.map.ForwardToChatter",
                    "module.map.MenuDisplayer", "module.map.MapCenterer", "module.map.PieceMover",
                    "module.map.KeyBufferer", "module.map.Zoomer", "module.properties.GlobalProperties",
                    "module.map.SelectionHighlighters", "module.map.HighlightLastMoved"):
            C.add(hand_el, cls)
