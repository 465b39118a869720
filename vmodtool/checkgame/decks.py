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
from typing import TYPE_CHECKING

from vmodtool.checkgame.model import NOTE, SUSPICIOUS, Finding, GameRecord, Section
from vmodtool.checkgame.visitor import SectionVisitor, run_section
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

__all__ = ["section", "DecksSection", "module_decks", "BY_HAND"]

#: the ``how`` of a reorder no menu command made
BY_HAND = "by hand"


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


class DecksSection(SectionVisitor):
    """The ``decks`` section.  Its events are the deck events (a card drawn,
    played or returned, a deck shuffled, put in order or turned face up or
    down) that name a deck, outside undo steps (an undo step's events take
    back the step it undoes): a card drawn is a deck event here, not a move."""

    def __init__(self, record: GameRecord) -> None:
        super().__init__(record)
        self.out = Section("decks", "Decks: searched, reordered and shuffled")
        self.seen: dict[str, DeckRef] = {}                  # deck label -> its last reference
        self.shuffles: dict[str, Counter[str]] = {}         # deck label -> player -> shuffles
        self.reshuffles: Counter[str] = Counter()           # deck label -> reshuffles (from another deck)
        self.orders = 0
        self.draws = 0
        self._step: Step | None = None

    def begin_step(self, step: Step) -> None:
        self._step = None if step.undo else step

    def _deck(self, deck: DeckRef | None, player: str | None) -> tuple[Step, DeckRef, str | None] | None:
        """The step, deck and player (the event's, else the step's) of a
        deck event to judge (None: an undo step's, or one that names no
        deck)."""
        step = self._step
        if step is None or deck is None:
            return None
        self.seen[deck.label()] = deck
        return step, deck, player or step.player

    def visit_card_draw(self, event: CardDrawEvent) -> None:
        if self._deck(event.deck, event.player) is not None:
            self.draws += 1

    def visit_card_play(self, event: CardPlayEvent) -> None:
        self._deck(event.deck, event.player)

    def visit_card_return(self, event: CardReturnEvent) -> None:
        self._deck(event.deck, event.player)

    def visit_deck_face(self, event: DeckFaceEvent) -> None:
        self._deck(event.deck, None)

    def visit_deck_shuffle(self, event: DeckShuffleEvent) -> None:
        found = self._deck(event.deck, event.player)
        if found is None:
            return
        step, deck, player = found
        label = deck.label()
        if step.undone_by:
            self.out.findings.append(Finding(
                "shuffle_undone", NOTE,
                f"{_who(step, player)} shuffled {label} ({deck.size} cards){_undone(step, self.record)}: "
                "the new order was taken back", step.file, step.number, step.file_step, player,
                {"deck": deck.record(), "from_deck": event.from_deck, "undone_by": step.undone_by}))
            return
        self.shuffles.setdefault(label, Counter())[player or "unnamed"] += 1
        if event.from_deck:
            self.reshuffles[label] += 1

    def visit_deck_order(self, event: DeckOrderEvent) -> None:
        found = self._deck(event.deck, event.player)
        if found is None:
            return
        step, deck, player = found
        self.orders += 1
        undone = _undone(step, self.record)
        by_hand = event.searched or event.how == BY_HAND
        what = "searched" if event.searched else f"put in order {event.how}"
        # an undo puts the order back, not what a search showed the player
        severity = SUSPICIOUS if event.searched or (by_hand and not undone) else NOTE
        kind = "deck_searched" if event.searched else "deck_reordered"
        why = (" without a shuffle: the player knows cards the others do not" if by_hand
               else " with the deck's own command (the log shows it to everyone)")
        self.out.findings.append(Finding(
            kind, severity, f"{_who(step, player)} {what} {deck.label()} ({deck.size} cards){why}{undone}",
            step.file, step.number, step.file_step, player,
            {"deck": deck.record(), "how": event.how, "searched": event.searched, "side": step.side,
             "undone_by": step.undone_by}))

    def result(self) -> Section:
        out, record = self.out, self.record
        in_module = module_decks(record)
        saved = record.decks_at_end
        if not self.seen and not in_module and not saved:
            # Every deck enters a game by an AddPiece (in the saved state a log
            # starts from, or in a step): with none there and none in the module,
            # the game has no deck, which is a complete answer, not a check that
            # could not look.
            out.summary.append("the game has no deck (none in the saved state or the logs"
                               + (", no DrawPile in the module)" if record.module is not None else ")"))
            out.data = {"checked": True, "decks": [], "module_decks": [], "shuffles": {}, "orders": 0,
                        "draws": 0, "suspicious": 0}
            return out
        known = sorted(set(in_module) | set(self.seen))
        where = (f"{len(in_module)} deck(s) in the module" if in_module
                 else f"{max(saved, len(self.seen))} deck(s) in the logs")
        out.summary.append(f"{where}; {len(self.seen)} used in the logs ({self.draws} card(s) drawn)")
        self._shuffle_lines()
        suspicious = [f for f in out.findings if f.severity == SUSPICIOUS]
        if self.orders:
            out.summary.append(f"{self.orders} deck(s) searched or reordered without a shuffle; "
                               f"{len(suspicious)} SUSPICIOUS (searched, or by hand and not undone)")
        else:
            out.summary.append("no deck searched or reordered")
        out.data = {"checked": True, "decks": known, "module_decks": in_module,
                    "shuffles": {label: dict(sorted(c.items())) for label, c in sorted(self.shuffles.items())},
                    "reshuffles": dict(sorted(self.reshuffles.items())), "orders": self.orders,
                    "draws": self.draws, "suspicious": len(suspicious)}
        return out

    def _shuffle_lines(self) -> None:
        if not self.shuffles:
            self.out.summary.append("no deck shuffled")
            return
        for label in sorted(self.shuffles):
            by = ", ".join(f"{p} {n}" for p, n in sorted(self.shuffles[label].items()))
            again = f" ({self.reshuffles[label]} from its discard)" if self.reshuffles[label] else ""
            self.out.summary.append(f"{label} shuffled {sum(self.shuffles[label].values())} time(s){again}: {by}")


def section(record: GameRecord) -> Section:
    """The ``decks`` section of one game."""
    return run_section(DecksSection(record))
