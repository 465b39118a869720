"""Loading the ``extensions`` section: optional counters shipped as module
extensions (``vmodtool build --extension NAME``).

Each extension names counters of the scenario, which go into the
extension's palette instead of the module's, and decks, whose DrawPiles
it adds to the off-map window.  What VASSAL cannot load is a problem
here, located: an extension with nothing in it (VASSAL fails on an empty
extension), a counter or deck that is not defined or is in two
extensions, a counter the set-up places (the module's at-start stacks
cannot hold a piece only an extension defines), and a deck without the
deck it reshuffles from or into (a DrawPile's reshuffle target is found
by name in the same game)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from vmodtool.scenario import model as M
from vmodtool.scenario.collector import ProblemCollector
from vmodtool.scenario.problems import Path

if TYPE_CHECKING:
    from vmodtool.scenario.cards import DeckSpec

__all__ = ["build_extensions", "EXTENSION_NAME_CHARS"]

#: characters an extension's name may not hold: it is the extension's file name
EXTENSION_NAME_CHARS = '/\\:*?"<>|'


def _decks(c: ProblemCollector, ep: Path, name: str, decks: Sequence[DeckSpec], owner: dict[str, str]
           ) -> list[str]:
    """An extension's ``decks``: defined, in one extension, with their reshuffle partners."""
    by_id = {d.id: d for d in decks}
    ids: list[str] = []
    for dp, _ in c.list_of(ep + ("decks",)):
        did = c.ref(dp, list(by_id), "deck")
        if did is None:
            continue
        if did in owner:
            c.err(dp, f"deck {did!r} is already in extension {owner[did]!r}")
            continue
        owner[did] = name
        ids.append(did)
    for did in ids:
        partners = {d.id for d in decks if d.reshuffle_from == did} | {by_id[did].reshuffle_from or did}
        for other in sorted(partners - set(ids)):
            c.err(ep + ("decks",), f"decks {did!r} and {other!r} are a deck and the deck it reshuffles from: "
                  "put both in the extension, or neither")
    return ids


def build_extensions(c: ProblemCollector, counters: Sequence[M.Counter],
                     setup: Sequence[object], decks: Sequence[DeckSpec] = ()) -> list[M.ExtensionSpec]:
    known = [x.id for x in counters]
    placed: dict[str, int | None] = {}
    for entry in setup:
        position = getattr(entry, "position", None)
        for uid in getattr(entry, "units", ()):
            placed.setdefault(uid, getattr(position, "line", None))
    out: list[M.ExtensionSpec] = []
    owner: dict[str, str] = {}
    deck_owner: dict[str, str] = {}
    for ep, _ in c.list_of(("extensions",)):
        name = c.text(ep + ("name",))
        if not name:
            continue
        if any(ch in EXTENSION_NAME_CHARS for ch in name) or name.strip() != name or name.startswith("."):
            c.err(ep + ("name",), f"the extension name {name!r} is its file name: no {EXTENSION_NAME_CHARS} "
                  "characters, no leading dot or surrounding spaces")
        ids: list[str] = []
        for cp, _ in c.list_of(ep + ("counters",)):
            uid = c.ref(cp, known, "counter")
            if uid is None:
                continue
            if uid in owner:
                c.err(cp, f"counter {uid!r} is already in extension {owner[uid]!r}")
                continue
            if uid in placed:
                line = placed[uid]
                c.err(cp, f"counter {uid!r} is placed by the set-up" + (f" (line {line})" if line else "")
                      + ": an extension's counters are not in the module, so its at-start stacks cannot hold them")
                continue
            owner[uid] = name
            ids.append(uid)
        deck_ids = _decks(c, ep, name, decks, deck_owner)
        if not ids and not deck_ids and not c.get(ep + ("counters",), list, []) \
                and not c.get(ep + ("decks",), list, []):
            c.err(ep, f"extension {name!r} has no counters and no decks: VASSAL fails on an empty extension")
        out.append(M.ExtensionSpec(name, tuple(ids), str(c.get(ep + ("version",), None, "1.0")),
                                   c.text(ep + ("description",), "") or "", c.pos(ep), tuple(deck_ids)))
    c.unique_ids(("extensions",), "name", "extension name")
    return out
