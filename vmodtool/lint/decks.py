"""Lint of decks and hands: 'send to another deck' targets, Return to Deck
traits naming a deck, and the sides hands and decks are restricted to."""

from __future__ import annotations

import re

from lxml import etree

from vmodtool.errors import VmodError
from vmodtool.lint.codes import registrar
from vmodtool.lint.context import LintRun, short_tag
from vmodtool.vassal.pieces import PieceDef
from vmodtool.vassal.sequence import decode_sequence

__all__ = ["check_decks"]


register = registrar(__name__)

register("unknown-reshuffle-target", "error",
         "a DrawPile's reshuffleTarget ('send to another deck') names no DrawPile: the "
         "command moves nothing")
register("unknown-return-deck", "error",
         "a Return to Deck trait (return;) names a deck that no DrawPile has: VASSAL "
         "reports 'Deck Not Found' when it is used")
register("unknown-owner-side", "warning",
         "a PlayerHand/PrivateMap side or a restricted DrawPile's owner is not a "
         "side of the PlayerRoster: no player can open the hand or draw from the deck")


def check_decks(run: LintRun) -> None:
    """Deck and hand references: 'send to another deck' targets, Return
    to Deck traits naming a deck, and the sides hands and decks are
    restricted to."""
    bf = run.bf
    piles = bf.components("module.map.DrawPile")
    names = {p.get("name", "") for p in piles}
    for pile in piles:
        target = pile.get("reshuffleTarget", "")
        if target and target not in names:
            run.add("unknown-reshuffle-target", f"deck {pile.get('name', '')!r} sends its cards to "
                    f"{target!r}, which is no DrawPile of the module", pile)
    rosters = bf.components("module.PlayerRoster")
    sides = {entry.text or "" for r in rosters for entry in r if short_tag(entry.tag) == "entry"}
    if rosters and sides:
        restricted = [(e, e.get("side", "")) for e in bf.components("module.PlayerHand")
                      + bf.components("module.PrivateMap")]
        restricted += [(p, p.get("deckOwners", "")) for p in piles if p.get("deckRestrictAccess") == "true"]
        for element, value in restricted:
            unknown = [v for v in decode_sequence(value, ",") if v and v not in sides]
            if unknown:
                label = element.get("mapName") or element.get("name")
                run.add("unknown-owner-side", f"{short_tag(element.tag)} {label!r}"
                        f" is restricted to {', '.join(map(repr, unknown))}, not a side of the "
                        "PlayerRoster", element)
    for slot in bf.piece_slots():
        _check_return_traits(run, slot.element, slot.definition, names)
    for element in bf.components("PrototypeDefinition"):
        if element.get("name", "") in run.used_prototypes:   # an unused one sends nothing anywhere
            _check_return_traits(run, element, bf.text_of(element), names)


def _check_return_traits(run: LintRun, element: etree._Element, text: str, names: set[str]) -> None:
    if "return;" not in text:
        return
    reported: set[str] = set()
    try:
        piece = PieceDef.parse(text)
    except VmodError:
        return          # check_pieces reports it
    for trait in piece.traits:
        if trait.prefix != "return;":
            continue
        toks = decode_sequence(trait.type[len("return;"):], ";")
        deck_id = toks[2] if len(toks) > 2 else ""
        version = int(toks[5]) if len(toks) > 5 and toks[5].isdigit() else 0
        select = (toks[6] != "false" if len(toks) > 6 else True) if version >= 2 else not deck_id
        target = (toks[7] if len(toks) > 7 else "") if version >= 2 else deck_id
        if select or not target or "$" in target or "{" in target:
            continue        # chosen by the player, or computed in the game
        if target not in names and not re.fullmatch(r"Deck\d+", target) and target not in reported:
            reported.add(target)
            run.add("unknown-return-deck", f"a Return to Deck trait sends the piece to {target!r}, "
                    "which is no DrawPile of the module", element)
