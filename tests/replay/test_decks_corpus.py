"""Deck and hand counts of the corpus card-game saves at step 0, as the
replay and ``inspect`` report them, pinned and cross-checked by a second
route: the card ids counted straight from the ``deck;`` AddPieces' text."""

from __future__ import annotations

import json
import re

import pytest

from tests.conftest import shared_path
from vmodtool.inspection import format_inspection, inspect_file
from vmodtool.replay import Replay, Viewer
from vmodtool.replay.events import HideEvent, MaskEvent
from vmodtool.replay.output import board_lines
from vmodtool.vassal.commands import leaf_commands
from vmodtool.vassal.savefile import SavedGame

PG = {"Allied Powers": 16, "Central Powers": 16}
PG0 = {"Allied Powers": 0, "Central Powers": 0}
HB = {"Roman Hand": 0, "Carthaginian Hand": 0}
NV = {"Teuton Hand": 11, "Russian Hand": 11, "Teuton Lords": 7, "Russian Lords": 7}
AL = {"Christian Hand": 12, "Muslim Hand": 12, "Christian Lords": 8, "Muslim Lords": 10}
#: file, module, decks, cards in them, face-down decks, hands
CASES = [
    ("pog/Classic10-5__cadea1d.vsav", "pog/buildFile.xml", 13, 145, 8, PG),
    ("pog/DeluxeHistorical10-8.vsav", "pog/buildFile.xml", 13, 145, 8, PG),
    ("pog/Historical10-0__12fab9b.vsav", "pog/buildFile.xml", 12, 130, 8, PG0),
    ("pog/Historical10-3__061791c.vsav", "pog/buildFile.xml", 13, 145, 8, PG0),
    ("pog/Historical10-8__63fbf0b.vsav", "pog/buildFile.xml", 13, 145, 8, PG),
    ("hannibal/Charles_Variant.vsav", "hannibal/buildFile", 5, 112, 2, HB),
    ("hannibal/PredifinedScenario.vsav", "hannibal/buildFile", 5, 112, 2, HB),
    ("nevsky/Scenario_Peipus_1242__b77edd5.vsav", "nevsky/buildFile.xml", 34, 84, 4, NV),
    ("nevsky/Scenario_Watland_1241.vsav", "nevsky/buildFile.xml", 34, 84, 4, NV),
    ("almoravid/ScenarioA_ToledoBeset__09f5ecb.vsav", "almoravid/buildFile.xml", 42, 110, 4, AL),
    ("almoravid/Scenario_A_Toledo_Beset__5615bf8.vsav", "almoravid/buildFile.xml", 42, 109, 4, AL),
    ("vassal-tour/tour.log", "vassal-tour/tour.mod", 3, 11, 1, {}),
]

_DECK_ADD = re.compile(r"^\+/\d+/deck;")


def _raw_card_ids(path) -> tuple[int, int]:
    """(decks, card ids) from the leaves' text alone: each deck AddPiece's
    state (after its last ``/``) ends in the comma list of its cards."""
    decks = cards = 0
    for node in SavedGame.read(path).restore_part():
        for cmd in leaf_commands(node):
            if not _DECK_ADD.match(cmd.text):
                continue
            decks += 1
            toks = cmd.text.rsplit("/", 1)[1].split(";")
            if len(toks) > 4 and toks[4]:
                cards += len(toks[4].split(","))
    return decks, cards


@pytest.mark.parametrize(("name", "module", "ndecks", "ncards", "down", "hands"), CASES,
                         ids=[c[0] for c in CASES])
def test_deck_and_hand_counts_at_step_zero(name, module, ndecks, ncards, down, hands):
    path = shared_path("corpus", name)
    mod = shared_path("corpus", module)
    sizes = {"vassal-tour/tour.mod": None}.get(module)
    board = Replay.open(path, module=mod, board_sizes=sizes).state_at(0)
    assert len(board.decks) == ndecks
    assert sum(d.count for d in board.decks) == ncards
    assert sum(1 for d in board.decks if d.face_down) == down
    assert {h.name: h.count for h in board.hands} == hands
    assert _raw_card_ids(path) == (ndecks, ncards)
    # a face-down deck's cards are never named to an observer
    text = "\n".join(board_lines(board))
    private = {h.name for h in board.hands}
    for d in board.decks:           # named to an observer: face up and not in a hand
        assert (d.cards is None) == (d.face_down or d.map in private)
    assert sum(1 for line in text.splitlines() if line.startswith("  deck ")) == ndecks
    report = inspect_file(path, module=mod)
    assert sum(d["cards"] for d in report["decks"]) == ncards
    assert {h["name"]: h["pieces"] for h in report["hands"]} == hands
    lines = list(format_inspection(report))
    assert sum(1 for line in lines if line.startswith("  deck ")) == ndecks


def test_a_concealed_vasl_piece_is_hidden_from_an_observer_only():
    path = shared_path("corpus", "vasl", "analyze-vsav_hip-concealed.vsav")
    observer = Replay.open(path).state_at(0)
    referee = Replay.open(path, viewer=Viewer("referee")).state_at(0)
    hidden = [p for p in observer.pieces if p.hidden]
    assert len(hidden) == 1 and hidden[0].record()["name"] is None and hidden[0].record()["state"] is None
    assert not any(p.hidden for p in referee.pieces)
    assert "(hidden piece)" in "\n".join(board_lines(observer))


def test_the_tours_masks_and_hides_name_no_password():
    path = shared_path("corpus", "vassal-tour", "tour.log")
    replay = Replay.open(path)
    events = [e for s in list(replay.steps()) for e in s.events if isinstance(e, (MaskEvent, HideEvent))]
    assert [(type(e).__name__, getattr(e, "masked", getattr(e, "hidden", None))) for e in events] == \
        [("MaskEvent", True), ("MaskEvent", False), ("HideEvent", True), ("HideEvent", False)]
    ids = set(replay.roster.redactor._labels)           # the player ids the log carries
    assert ids
    for e in events:
        text = e.text() + json.dumps(e.record(), ensure_ascii=False)
        assert e.by is not None and e.by.startswith("player-")
        assert not any(i and i in text for i in ids)
