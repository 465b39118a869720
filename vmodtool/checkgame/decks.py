"""Decks of cards (check ``decks``, ``docs/check-game.md`` "Decks"): decks
searched or put in order by hand, shuffles per deck and player, and undone
shuffles.

A deck's order is the game's secret: VASSAL shuffles it, and a player who
looks through it or arranges it by hand (the replay's
:class:`~vmodtool.replay.events.DeckOrderEvent`: cards taken out and put back
elsewhere, or drawn from other than the top of a deck that does not draw at
random) knows what the others do not.  Such a step is SUSPICIOUS, a
reorder by one of the deck's menu commands (reverse, sort: the log shows it
to everyone) a note, and a reorder undone afterwards a note (a search stays
SUSPICIOUS: the undo puts the order back, not what the player saw).  A shuffle is
never suspicious; an undone shuffle (the deck's new order taken back) is a
note, and shuffles are counted per deck and player.

No scenario is needed: decks are named as VASSAL names them (the
``DrawPile``).  A game with no deck — no ``DrawPile`` in the module given and
no deck in the logs — is NOT CHECKED (said in the section), never an
all-clear.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from vmodtool.checkgame.model import NOTE, SUSPICIOUS, Finding, GameRecord, Section
from vmodtool.replay.events import (
    CardDrawEvent,
    CardPlayEvent,
    CardReturnEvent,
    DeckFaceEvent,
    DeckOrderEvent,
    DeckRef,
    DeckShuffleEvent,
)

if TYPE_CHECKING:
    from vmodtool.replay.game import Step

__all__ = ["section", "module_decks", "BY_HAND"]

#: the ``how`` of a reorder no menu command made
BY_HAND = "by hand"
_DECK_EVENTS = (CardDrawEvent, CardPlayEvent, CardReturnEvent, DeckShuffleEvent, DeckOrderEvent, DeckFaceEvent)


def module_decks(record: GameRecord) -> list[str]:
    """The names of the module's decks (its ``DrawPile`` components), when
    a module was given."""
    module = record.module
    if module is None:
        return []
    names: list[str] = []
    for element in module.buildfile.root.iter():
        if isinstance(element.tag, str) and element.tag.rsplit(".", 1)[-1] == "DrawPile":
            name = element.get("name") or ""
            if name not in names:
                names.append(name)
    return names


def _saved_decks(record: GameRecord) -> int:
    """How many decks the replayed game holds (``deck;`` pieces of the
    replay's state: the saved games' decks)."""
    engine = getattr(record.replay, "engine", None)
    pieces = getattr(getattr(engine, "state", None), "pieces", None) or {}
    return sum(1 for obj in pieces.values() if str(getattr(obj, "type", "")).startswith("deck;"))


def _deck_of(event: Any) -> DeckRef | None:
    deck = getattr(event, "deck", None)
    return deck if isinstance(deck, DeckRef) else None


def _who(step: Step, player: str | None) -> str:
    name = player or step.player
    if name and step.side:
        return f"{name} ({step.side})"
    return name or "an unnamed player"


def _undone(step: Step, record: GameRecord) -> str:
    if not step.undone_by:
        return ""
    by = step.undone_by
    file_step = record.steps[by - 1].file_step if 0 < by <= len(record.steps) else by
    return f" (undone at step {file_step})"


def section(record: GameRecord) -> Section:
    out = Section("decks", "Decks: searched, reordered and shuffled")
    in_module = module_decks(record)
    seen: dict[str, DeckRef] = {}                   # deck label -> its last reference
    shuffles: dict[str, Counter[str]] = {}          # deck label -> player -> shuffles
    reshuffles: Counter[str] = Counter()            # deck label -> reshuffles (from another deck)
    orders = 0
    draws = 0
    for step in record.steps:
        if step.undo:
            continue                # an undo step's events take back the step it undoes
        for event in step.events:
            if not isinstance(event, _DECK_EVENTS):
                continue
            deck = _deck_of(event)
            if deck is None:
                continue
            label = deck.label()
            seen[label] = deck
            player = getattr(event, "player", None) or step.player
            if isinstance(event, CardDrawEvent):
                draws += 1
            elif isinstance(event, DeckShuffleEvent):
                if step.undone_by:
                    out.findings.append(Finding(
                        "shuffle_undone", NOTE,
                        f"{_who(step, player)} shuffled {label} ({deck.size} cards){_undone(step, record)}: "
                        "the new order was taken back", step.file, step.number, step.file_step, player,
                        {"deck": deck.record(), "from_deck": event.from_deck, "undone_by": step.undone_by}))
                    continue
                shuffles.setdefault(label, Counter())[player or "unnamed"] += 1
                if event.from_deck:
                    reshuffles[label] += 1
            elif isinstance(event, DeckOrderEvent):
                orders += 1
                undone = _undone(step, record)
                by_hand = event.searched or event.how == BY_HAND
                what = "searched" if event.searched else f"put in order {event.how}"
                # an undo puts the order back, not what a search showed the player
                severity = SUSPICIOUS if event.searched or (by_hand and not undone) else NOTE
                kind = "deck_searched" if event.searched else "deck_reordered"
                why = (" without a shuffle: the player knows cards the others do not" if by_hand
                       else " with the deck's own command (the log shows it to everyone)")
                out.findings.append(Finding(
                    kind, severity, f"{_who(step, player)} {what} {label} ({deck.size} cards){why}{undone}",
                    step.file, step.number, step.file_step, player,
                    {"deck": deck.record(), "how": event.how, "searched": event.searched, "side": step.side,
                     "undone_by": step.undone_by}))
    saved = _saved_decks(record)
    if not seen and not in_module and not saved:
        # Every deck enters a game by an AddPiece (in the saved state a log
        # starts from, or in a step): with none there and none in the module,
        # the game has no deck, which is a complete answer, not a check that
        # could not look.
        out.summary.append("the game has no deck (none in the saved state or the logs"
                           + (", no DrawPile in the module)" if record.module is not None else ")"))
        out.data = {"checked": True, "decks": [], "module_decks": [], "shuffles": {}, "orders": 0,
                    "draws": 0, "suspicious": 0}
        return out
    known = sorted(set(in_module) | set(seen))
    where = (f"{len(in_module)} deck(s) in the module" if in_module
             else f"{max(saved, len(seen))} deck(s) in the logs")
    out.summary.append(f"{where}; {len(seen)} used in the logs ({draws} card(s) drawn)")
    if shuffles:
        for label in sorted(shuffles):
            by = ", ".join(f"{p} {n}" for p, n in sorted(shuffles[label].items()))
            again = f" ({reshuffles[label]} from its discard)" if reshuffles[label] else ""
            out.summary.append(f"{label} shuffled {sum(shuffles[label].values())} time(s){again}: {by}")
    else:
        out.summary.append("no deck shuffled")
    suspicious = [f for f in out.findings if f.severity == SUSPICIOUS]
    if orders:
        out.summary.append(f"{orders} deck(s) searched or reordered without a shuffle; "
                           f"{len(suspicious)} SUSPICIOUS (searched, or by hand and not undone)")
    else:
        out.summary.append("no deck searched or reordered")
    out.data = {"checked": True, "decks": known, "module_decks": in_module,
                "shuffles": {label: dict(sorted(c.items())) for label, c in sorted(shuffles.items())},
                "reshuffles": dict(sorted(reshuffles.items())), "orders": orders, "draws": draws,
                "suspicious": len(suspicious)}
    return out
