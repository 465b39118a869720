"""``check-game``'s decks check (``docs/check-game.md`` "Decks"): a deck
searched or put in order by hand is SUSPICIOUS (step, player, deck), a
deck's own reorder command or an undone one a note, shuffles are counted
per deck and player and never suspicious; a game with no deck is NOT
CHECKED, never an all-clear."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from click.testing import CliRunner

from tests.conftest import shared_path
from vmodtool.checkgame import CHECKS, NOTE, SUSPICIOUS, GameRecord, check_game, record_game
from vmodtool.cli import cli
from vmodtool.replay.events import CardDrawEvent, DeckOrderEvent, DeckRef, DeckShuffleEvent, PieceRef, Place
from vmodtool.replay.events import Event as ReplayEvent
from vmodtool.replay.game import Step

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DEMO_LOG = EXAMPLES / "formats" / "demo.vlog"
DEMO_MODULE = EXAMPLES / "formats" / "demo.vmod"
FATE = DeckRef("d1", "Колода судьбы", 40)
DISCARD = DeckRef("d2", "Сброс", 0)


class _Game:
    def __init__(self) -> None:
        self.steps: list[Step] = []

    def step(self, player: str, side: str, *events: ReplayEvent, undone_by: int | None = None,
             undo: bool = False) -> int:
        n = len(self.steps) + 1
        self.steps.append(Step(n, "game.vlog", n, n - 1, player, side, list(events), undone_by=undone_by, undo=undo))
        return n

    def check(self):  # type: ignore[no-untyped-def]
        record = GameRecord([Path("game.vlog")], SimpleNamespace(), self.steps)   # type: ignore[arg-type]
        return check_game(record, ["decks"]).sections[0]


def _draw(player: str) -> CardDrawEvent:
    ref = PieceRef("c1", "piece;;;;Огонь", ("null;0;0;0",))
    return CardDrawEvent(piece=ref, source=Place("Колоды", 1, 1), target=Place("Рука", 2, 2), deck=FATE,
                         hand="Рука", player=player)


def test_a_shuffled_deck_is_counted_and_not_suspicious() -> None:
    g = _Game()
    g.step("Алиса", "Франция", DeckShuffleEvent(deck=FATE, player="Алиса"), _draw("Алиса"))
    g.step("Борис", "Италия", DeckShuffleEvent(deck=FATE, player="Борис"))
    g.step("Алиса", "Франция", DeckShuffleEvent(deck=FATE, from_deck="Сброс", player="Алиса"))
    sec = g.check()
    assert sec.checked and sec.findings == []
    assert sec.data["shuffles"] == {"Колода судьбы": {"Алиса": 2, "Борис": 1}}
    assert sec.data["reshuffles"] == {"Колода судьбы": 1} and sec.data["draws"] == 1
    assert "Колода судьбы shuffled 3 time(s) (1 from its discard): Алиса 2, Борис 1" in sec.summary
    assert "no deck searched or reordered" in sec.summary


def test_a_searched_or_reordered_deck_is_suspicious() -> None:
    g = _Game()
    g.step("Алиса", "Франция", DeckShuffleEvent(deck=FATE, player="Алиса"))
    searched = g.step("Борис", "Италия", DeckOrderEvent(deck=FATE, searched=True, player="Борис"))
    by_hand = g.step("Алиса", "Франция", DeckOrderEvent(deck=DISCARD))
    sec = g.check()
    found = [(f.kind, f.severity, f.step, f.player, f.details["deck"]["name"]) for f in sec.findings]
    assert found == [("deck_searched", SUSPICIOUS, searched, "Борис", "Колода судьбы"),
                     ("deck_reordered", SUSPICIOUS, by_hand, "Алиса", "Сброс")]
    assert sec.findings[0].message == ("Борис (Италия) searched Колода судьбы (40 cards) without a shuffle: "
                                       "the player knows cards the others do not")
    assert sec.data["orders"] == 2 and sec.data["suspicious"] == 2


def test_a_menu_reorder_and_undone_ones_are_notes_but_an_undone_search_is_not() -> None:
    g = _Game()
    g.step("Алиса", "Франция", DeckOrderEvent(deck=DISCARD, how="reversed", player="Алиса"))
    g.step("Борис", "Италия", DeckOrderEvent(deck=FATE, player="Борис"), undone_by=3)
    g.step("Борис", "Италия", DeckOrderEvent(deck=FATE, player="Борис"), undo=True)   # (the undo's inverse)
    g.step("Борис", "Италия", DeckShuffleEvent(deck=FATE, player="Борис"), undone_by=5)
    g.step("Борис", "Италия", undo=True)
    g.step("Борис", "Италия", DeckOrderEvent(deck=FATE, searched=True, player="Борис"), undone_by=7)
    g.step("Борис", "Италия", undo=True)
    sec = g.check()
    assert [(f.kind, f.severity, f.step) for f in sec.findings] == [
        ("deck_reordered", NOTE, 1), ("deck_reordered", NOTE, 2), ("shuffle_undone", NOTE, 4),
        ("deck_searched", SUSPICIOUS, 6)]
    assert "(undone at step 3)" in sec.findings[1].message
    assert "(undone at step 7)" in sec.findings[3].message     # what the search showed stays seen
    assert sec.data["shuffles"] == {}          # an undone shuffle is not counted


def test_a_game_without_decks_says_so_and_is_checked() -> None:
    """No deck in the module, the saved state or the logs is a complete
    answer (every deck enters by an AddPiece): the section says the game has
    none, and a deckless game's check-game is not 'not checked' (exit 0)."""
    result = check_game(record_game([DEMO_LOG], module=DEMO_MODULE))
    assert [s.name for s in result.sections] == list(CHECKS)
    sec = result.sections[-1]
    assert sec.name == "decks" and sec.checked and sec.findings == []
    assert sec.summary == ["the game has no deck (none in the saved state or the logs, no DrawPile in the module)"]
    out = CliRunner().invoke(cli, ["check-game", str(DEMO_LOG), "--check", "decks", "--format", "json"])
    assert out.exit_code == 0, out.output
    section = json.loads(out.output)["sections"][0]
    assert section["name"] == "decks" and section["checked"] is True
    assert section["summary"] == ["the game has no deck (none in the saved state or the logs)"]


def test_a_module_with_decks_is_checked() -> None:
    save = shared_path("corpus", "pog", "Historical10-8__63fbf0b.vsav")
    module = shared_path("corpus", "pog", "buildFile.xml")
    sec = check_game(record_game([save], module=module), ["decks"]).sections[0]
    assert sec.checked and sec.findings == []
    assert sec.summary[0] == "13 deck(s) in the module; 0 used in the logs (0 card(s) drawn)"
    assert {"AP Deck", "CP Deck", "AP Discard"} <= set(sec.data["module_decks"])
    # without the module, the decks of the saved game
    sec = check_game(record_game([save]), ["decks"]).sections[0]
    assert sec.checked and sec.summary[0].startswith("13 deck(s) in the logs")


def test_the_record_counts_the_decks_the_game_ends_with():
    """The record counts the game's decks from the replay's last view (no
    reading of the engine after the pass): Combat Commander's six decks,
    none in the formats demo."""
    cc = record_game([EXAMPLES / "combat-commander" / "logs" / "game-1.vlog"])
    pieces = cc.replay.engine.state.pieces.values() if cc.replay.engine is not None else []
    assert cc.decks_at_end == sum(1 for obj in pieces if str(getattr(obj, "type", "")).startswith("deck;")) == 6
    assert record_game([DEMO_LOG], module=DEMO_MODULE).decks_at_end == 0
