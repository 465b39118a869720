"""The ``decks`` and ``hands`` sections loaded into the card model
(:mod:`vmodtool.scenario.cards`), every problem located: unknown sides,
zones and decks, a ``reshuffle_from`` that is not a discard deck, duplicate
deck and card ids, a second hand of one side, image files that do not exist.

The JSON Schema checks the structure (keys, types, the enumerations of
roles, sizes, shuffles and triggers); the functions here check the meaning
(a deck's card template: a bundled name or a template file that loads),
and read defensively what the schema has already reported (a wrong value
falls back to the default, so one mistake gives one message).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from vmodtool.scenario.cards import (
    CARD_SIZES,
    CARD_TRIGGERS,
    DECK_ROLES,
    MAX_CARD_VALUES,
    SHUFFLE_OPTIONS,
    CardSpec,
    DeckSpec,
    HandSpec,
)
from vmodtool.scenario.problems import Path

if TYPE_CHECKING:
    from vmodtool.scenario.collector import ProblemCollector

__all__ = ["build_decks", "build_hands"]


def _choice(b: ProblemCollector, path: Path, options: Iterable[str], default: str) -> str:
    value = b.text(path)
    return value if value in tuple(options) else default


def build_decks(b: ProblemCollector, sides: list[str], zones: Iterable[str]) -> list[DeckSpec]:
    """The decks with their cards.  ``zones`` are the places a deck may lie
    in: the box ids, and the zones of a map taken from a module."""
    zone_names = list(zones)
    entries = b.list_of(("decks",))
    deck_ids = [(dp, b.text(dp + ("id",))) for dp, entry in entries if isinstance(entry, dict)]
    b.unique(((dp + ("id",), did) for dp, did in deck_ids if did), "deck id")
    roles = {did: _choice(b, dp + ("role",), DECK_ROLES, "draw") for dp, did in deck_ids if did}
    card_ids: list[tuple[Path, str]] = []
    deck_names: list[tuple[Path, str]] = []
    out: list[DeckSpec] = []
    for dp, entry in entries:
        if not isinstance(entry, dict):
            continue
        did = b.text(dp + ("id",))
        if not did:
            continue
        role = roles.get(did, "draw")
        owner = b.ref(dp + ("owner",), sides, "side")
        zone = b.ref(dp + ("zone",), zone_names, "zone (a box id)")
        reshuffle = b.text(dp + ("reshuffle_from",))
        if reshuffle is not None:
            if reshuffle not in roles:
                b.ref(dp + ("reshuffle_from",), list(roles), "deck")
                reshuffle = None
            elif reshuffle == did:
                b.err(dp + ("reshuffle_from",), f"deck {did!r} cannot reshuffle from itself")
                reshuffle = None
            elif roles[reshuffle] != "discard":
                b.err(dp + ("reshuffle_from",), f"reshuffle_from names deck {reshuffle!r}, a {roles[reshuffle]} "
                                                f"deck; a deck reshuffles from a discard deck (role: discard)")
                reshuffle = None
        back_image = b.text(dp + ("back_image",))
        if back_image is not None and b.local_file(dp + ("back_image",), back_image, "card back image") is None:
            back_image = None
        face_down = b.get(dp + ("face_down",), bool, role == "draw")
        cards: list[CardSpec] = []
        for cp, card in b.list_of(dp + ("cards",)):
            if not isinstance(card, dict):
                continue
            spec = _card(b, cp, did)
            if spec is not None:
                cards.append(spec)
                card_ids.append((cp + ("id",), spec.id))
        name = b.text(dp + ("name",), did) or did
        deck_names.append((dp + ("name",), b.text(dp + ("module_deck",)) or name))
        out.append(DeckSpec(
            id=did, name=name, role=role, owner=owner, zone=zone, face_down=face_down,
            shuffle=_choice(b, dp + ("shuffle",), SHUFFLE_OPTIONS, "always" if role == "draw" else "never"),
            reshuffle_from=reshuffle, draw_to=_choice(b, dp + ("draw_to",), ("hand", "map"), "hand"),
            back=b.text(dp + ("back",), name) or "", back_image=back_image,
            size=_choice(b, dp + ("size",), CARD_SIZES, "poker"),
            template=_template(b, dp + ("template",)),
            module_deck=b.text(dp + ("module_deck",)), cards=tuple(cards), position=b.pos(dp),
            colour=b.text(dp + ("colour",))))
    b.unique(card_ids, "card id")
    b.unique(deck_names, "deck name (VASSAL finds a deck by its name)")
    return out


def _template(b: ProblemCollector, path: Path) -> str:
    """A deck's ``template``: a bundled card template or a card template
    file in the scenario's folder that loads (else an error at its line and
    the default)."""
    from vmodtool.scenario.card_templates import (
        DEFAULT_CARD_TEMPLATE,
        bundled_card_templates,
        card_template_file,
        load_card_template,
    )
    from vmodtool.scenario.templates import TemplateError, file_in_folder

    ref = b.text(path)
    if not ref:
        return DEFAULT_CARD_TEMPLATE
    if ref not in bundled_card_templates():
        b.files_read.append(b.folder / ref)     # the model cache's inputs: read, or looked for
    found = card_template_file(ref, b.folder)
    if found is not None and ref not in bundled_card_templates() and file_in_folder(b.folder, ref) is None:
        # a file, but outside the folder (``..``, an absolute path or a symbolic link)
        b.err(path, f"the card template {ref!r} must be inside the scenario's folder")
        return DEFAULT_CARD_TEMPLATE
    if found is None:
        b.err(path, f"unknown card template {ref!r}: name a bundled card template "
                    f"({', '.join(bundled_card_templates())}) or a card template file (.yaml) in the scenario's folder")
        return DEFAULT_CARD_TEMPLATE
    try:
        load_card_template(found)
    except TemplateError as exc:
        b.err(path, f"the card template {ref!r} cannot be used: {exc}")
        return DEFAULT_CARD_TEMPLATE
    return ref


def _card(b: ProblemCollector, cp: Path, deck: str) -> CardSpec | None:
    cid = b.text(cp + ("id",))
    if not cid:
        return None
    if "#" in cid:
        b.err(cp + ("id",), f"card id {cid!r} contains '#', which marks the copies of a card (id#2 …)")
        return None
    image = b.text(cp + ("image",))
    if image is not None and b.local_file(cp + ("image",), image, "card image") is None:
        image = None
    count = b.get(cp + ("count",), int, 1)
    if not b.within(cp + ("count",), count, 100, 1):
        count = 1
    values: dict[str, Any] = {}
    raw_values = b.get(cp + ("values",), dict, {})
    for key, value in list(raw_values.items())[:MAX_CARD_VALUES]:
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            values[str(key)] = value
    tags = frozenset(t for t in b.get(cp + ("tags",), list, []) if isinstance(t, str))
    return CardSpec(
        id=cid, name=b.text(cp + ("name",), cid) or cid, deck=deck, text=b.text(cp + ("text",), "") or "",
        image=image, event=b.text(cp + ("event",)), trigger=_choice(b, cp + ("trigger",), CARD_TRIGGERS, "play"),
        tags=tags, count=count, values=values, position=b.pos(cp))


def build_hands(b: ProblemCollector, sides: list[str], side_names: dict[str, str], *, taken: Iterable[str] = ()
                ) -> list[HandSpec]:
    """The hands: one per side at most, each of a side that exists, each
    window named unlike the other windows (``taken``: the map names)."""
    taken_names = set(taken)
    out: list[HandSpec] = []
    seen: dict[str, Path] = {}
    names: list[tuple[Path, str]] = []
    for hp, entry in b.list_of(("hands",)):
        if not isinstance(entry, dict):
            continue
        side = b.ref(hp + ("side",), sides, "side")
        if side is None:
            continue
        if side in seen:
            line, _ = b.doc.where(seen[side])
            b.err(hp + ("side",), f"side {side!r} already has a hand" + (f" (line {line})" if line else "")
                  + "; a side holds one hand")
            continue
        seen[side] = hp + ("side",)
        size = b.get(hp + ("size",), int)
        if size is not None and not b.within(hp + ("size",), size, 100, 1):
            size = None
        name = b.text(hp + ("name",)) or f"{side_names.get(side, side)} hand"
        if name in taken_names:
            b.err(hp + ("name",) if b.text(hp + ("name",)) else hp,
                  f"hand name {name!r} is the name of a map window; VASSAL finds windows by name")
        names.append((hp + ("name",) if b.text(hp + ("name",)) else hp, b.text(hp + ("module_map",)) or name))
        out.append(HandSpec(side=side, name=name, size=size, module_map=b.text(hp + ("module_map",)),
                            position=b.pos(hp)))
    b.unique(names, "hand name")
    return out
