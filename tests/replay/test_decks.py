"""Deck operations written with GameWriter as VASSAL 3.7.26 logs them
(PieceMover.movedPiece → Deck.pieceRemoved, MovePiece.createMergeFinder,
Deck.shuffle/sendToDeck/setContentsFaceDown, Obscurable/Hideable key
events) and read back by the replay, per viewer (docs/vassal-format.md
§4.12)."""

from __future__ import annotations

import json

import pytest

from vmodtool.replay import Replay
from vmodtool.replay.events import (
    CardDrawEvent,
    CardPlayEvent,
    CardReturnEvent,
    DeckFaceEvent,
    DeckOrderEvent,
    DeckShuffleEvent,
    HideEvent,
    MaskEvent,
)
from vmodtool.replay.output import board_lines, board_records
from vmodtool.replay.viewer import Viewer
from vmodtool.vassal.gamewriter import GameWriter, Player
from vmodtool.vassal.module import Module

CARDS = ["Пыль (Dust)", "Rain", "Mud", "Snow", "Frost"]
B = "VASSAL.build."


def _card(name: str, gpid: int) -> str:
    return (f'<{B}widget.CardSlot entryName="{name}" gpid="{gpid}">+/null/obs;70,130;back.png;Face down;P;?'
            f'\tpiece;;;c{gpid}.png;{name}/null\tnull;0;0;{gpid};0</{B}widget.CardSlot>')


def _buildfile_text(shuffle_format: str = "$deckName$ shuffled") -> str:
    cards = "".join(_card(n, i + 1) for i, n in enumerate(CARDS))
    return f'''<?xml version="1.0" encoding="UTF-8"?>
<{B}GameModule name="Deck test" version="1.0" VassalVersion="3.7.26">
  <{B}module.PlayerRoster><entry>Soviets</entry><entry>Germans</entry></{B}module.PlayerRoster>
  <{B}module.Map mapName="Table">
    <{B}module.map.BoardPicker>
      <{B}module.map.boardPicker.Board name="Felt" image="felt.png" width="800" height="600"/>
    </{B}module.map.BoardPicker>
    <{B}module.map.StackMetrics/>
    <{B}module.map.DrawPile name="Fate" x="100" y="100" faceDown="Always" shuffle="Never" drawFaceUp="false"
        shuffleFormat="{shuffle_format}" reshufflable="false">{cards}</{B}module.map.DrawPile>
    <{B}module.map.DrawPile name="Fate Discard" x="300" y="100" faceDown="Never" shuffle="Never"
        reshufflable="true" reshuffleCommand="Reshuffle" reshuffleTarget="Fate"
        reshuffleMessage="$deckName$ goes back"/>
  </{B}module.Map>
  <{B}module.PlayerHand mapName="Soviets Hand" side="Soviets"/>
  <{B}module.PlayerHand mapName="Germans Hand" side="Germans"/>
  <{B}module.PieceWindow name="Pieces"><{B}widget.PieceSlot entryName="Scout" gpid="20">{SCOUT}</{B}widget.PieceSlot>
  </{B}module.PieceWindow>
</{B}GameModule>
'''


SCOUT = "+/null/hide;72,130;Hide;255,255,255\tpiece;;;scout.png;Scout/null\tnull;0;0;20;0"
PLAYERS = [Player("pw-sami", "Sami", "Soviets"), Player("pw-hans", "Hans", "Germans")]


@pytest.fixture
def module(tmp_path):
    folder = tmp_path / "mod"
    folder.mkdir()
    (folder / "buildFile.xml").write_text(_buildfile_text(), encoding="utf-8")
    with Module.open(folder) as m:
        yield m


def _writer(module: Module) -> GameWriter:
    w = GameWriter(module, players=PLAYERS, board_sizes={"Felt": (800, 600)})
    w.snapshot()
    return w


OBSERVER = Viewer()


def _replay(tmp_path, w: GameWriter, module: Module, viewer: Viewer = OBSERVER):
    path = tmp_path / "game.vlog"
    path.write_bytes(w.to_bytes(date_saved="1"))
    replay = Replay.open(path, module=module, board_sizes={"Felt": (800, 600)}, viewer=viewer)
    return replay, list(replay.steps())


def _events(steps, kind):
    return [e for s in steps for e in s.events if isinstance(e, kind)]


def test_draw_to_hand_masks_the_card_for_the_drawer_and_counts_the_hand(module, tmp_path):
    w = _writer(module)
    top = w.decks["Fate"].members[-1]
    w.draw("Fate", "Soviets Hand", 50, 50, player="Sami")
    text = w.text()
    assert "D/" + top in text          # Deck.pieceRemoved: OBSCURED_TO_OTHERS -> the drawer's id
    assert "pw-sami;|0" in text
    for viewer, visible in ((Viewer(), False), (Viewer.of_side("Soviets"), True),
                            (Viewer.of_side("Germans"), False), (Viewer("referee"), True)):
        _, steps = _replay(tmp_path, w, module, viewer)
        (draw,) = _events(steps, CardDrawEvent)
        assert (draw.deck.name, draw.deck.size, draw.hand, draw.hand_count, draw.player) == \
            ("Fate", 4, "Soviets Hand", 1, "Sami")
        assert draw.visible is visible
        rec = json.dumps(steps[0].record(), ensure_ascii=False)
        assert ("Frost" in rec) is visible and ("Frost" in draw.text()) is visible
        assert "pw-sami" not in rec and "pw-sami" not in draw.text()
    assert not _events(steps, MaskEvent)     # the draw's mask is part of the draw


def test_draw_to_map_and_play_from_hand(module, tmp_path):
    w = _writer(module)
    card = w.draw("Fate", "Soviets Hand", 50, 50, player="Sami")
    w.mask(card, False, player="Sami")
    w.to_deck(card, "Fate Discard", player="Sami")           # unmasked onto a face-up deck: a play
    other = w.draw("Fate", "Table", 500, 400, player="Hans")
    _, steps = _replay(tmp_path, w, module)
    (play,) = _events(steps, CardPlayEvent)
    assert (play.piece.name, play.from_hand, play.deck.name) == ("Frost", "Soviets Hand", "Fate Discard")
    assert play.text() == "Sami played Frost onto Fate Discard"
    draw = _events(steps, CardDrawEvent)[-1]
    assert (draw.piece.id, draw.hand, draw.target.map, draw.visible) == (other, None, "Table", False)
    assert "1 card" in draw.text() and "Snow" not in draw.text()


def test_play_from_hand_to_the_table(module, tmp_path):
    w = _writer(module)
    card = w.draw("Fate", "Soviets Hand", 50, 50, player="Sami")
    w.mask(card, False, player="Sami")
    w._move_to(card, "Table", 400, 300, "Sami", chat=False)
    _, steps = _replay(tmp_path, w, module)
    (play,) = _events(steps, CardPlayEvent)
    assert (play.piece.name, play.from_hand, play.hand_count) == ("Frost", "Soviets Hand", 0)


def test_discard_and_return_to_a_face_down_deck(module, tmp_path):
    w = _writer(module)
    a = w.draw("Fate", "Table", 500, 400, player="Hans")
    w.to_deck(a, "Fate Discard", player="Hans")
    b = w.draw("Fate", "Soviets Hand", 50, 50, player="Sami")
    w.to_deck(b, "Fate", player="Sami")
    replay, steps = _replay(tmp_path, w, module)
    ret = _events(steps, CardReturnEvent)
    assert [(e.deck.name, e.deck.size, e.from_hand) for e in ret] == [("Fate Discard", 1, None),
                                                                       ("Fate", 4, "Soviets Hand")]
    assert ret[1].visible is False and "1 card" in ret[1].text()
    board = replay.snapshot(len(steps))
    assert {d.name: (d.count, d.face_down) for d in board.decks} == {"Fate": (4, True),
                                                                     "Fate Discard": (1, False)}
    fate = next(d for d in board.decks if d.name == "Fate")
    assert fate.cards is None


def test_shuffle_with_its_report_and_reorder_by_hand(module, tmp_path):
    w = _writer(module)
    w.shuffle("Fate", seed=3)
    order = list(w.decks["Fate"].members)
    w.reorder("Fate", order[1:] + order[:1])
    replay, steps = _replay(tmp_path, w, module)
    (shuffle,) = _events(steps, DeckShuffleEvent)
    assert (shuffle.deck.name, shuffle.deck.size, shuffle.from_deck) == ("Fate", 5, None)
    (order_ev,) = _events(steps, DeckOrderEvent)
    assert (order_ev.how, order_ev.searched) == ("by hand", False)
    deck = next(replay.engine.state.decks())
    assert [m.id for m in deck.members] == w.decks["Fate"].members


def test_reshuffle_sends_the_discards_back_then_shuffles(module, tmp_path):
    w = _writer(module)
    for _ in range(2):
        c = w.draw("Fate", "Table", 500, 400, player="Hans")
        w.to_deck(c, "Fate Discard", player="Hans")
    w.reshuffle("Fate Discard", seed=1, player="Hans")
    replay, steps = _replay(tmp_path, w, module)
    send, shuffle_step = steps[-2], steps[-1]      # sendToDeck, then the shuffle of a Never-shuffle deck
    assert [e.text() for e in send.events if e.kind == "chat"] == ["chat: * Fate Discard goes back"]
    assert len([e for e in send.events if isinstance(e, CardReturnEvent)]) == 2
    shuffles = [e for e in shuffle_step.events if isinstance(e, DeckShuffleEvent)]
    assert [(e.deck.name, e.from_deck, e.deck.size) for e in shuffles] == [("Fate", "Fate Discard", 5)]
    decks = {d.name: d.count for d in replay.snapshot(len(steps)).decks}
    assert decks == {"Fate": 5, "Fate Discard": 0}


def test_reshuffle_into_a_deck_that_always_shuffles_logs_no_shuffle(tmp_path):
    folder = tmp_path / "always"
    folder.mkdir()
    (folder / "buildFile.xml").write_text(_buildfile_text().replace('shuffle="Never" drawFaceUp', 'shuffle="Always" '
                                                                    'drawFaceUp'), encoding="utf-8")
    with Module.open(folder) as module:
        w = _writer(module)
        c = w.draw("Fate", "Table", 500, 400, card=w.decks["Fate"].members[-1], player="Hans")
        w.to_deck(c, "Fate Discard", player="Hans")
        w.reshuffle("Fate Discard", player="Hans")
        assert "D/" not in w.steps[-1]          # Deck.sendToDeck moves the cards, nothing more
        _, steps = _replay(tmp_path, w, module)
    shuffles = [e for e in steps[-1].events if isinstance(e, DeckShuffleEvent)]
    assert [(e.deck.name, e.from_deck) for e in shuffles] == [("Fate", "Fate Discard")]


def test_a_face_up_deck_in_a_hand_is_the_hands_own(tmp_path):
    """A DrawPile on a private map (Nevsky's plan decks): a card put on it
    from the hand is not played for all to see; only the hand's side sees
    which card it is."""
    folder = tmp_path / "plans"
    folder.mkdir()
    plans = f'<{B}module.map.DrawPile name="Plans" x="200" y="200" faceDown="Never" shuffle="Never"/>'
    text = _buildfile_text().replace(f'<{B}module.PlayerHand mapName="Soviets Hand" side="Soviets"/>',
                                     f'<{B}module.PlayerHand mapName="Soviets Hand" side="Soviets">{plans}'
                                     f'</{B}module.PlayerHand>')
    (folder / "buildFile.xml").write_text(text, encoding="utf-8")
    with Module.open(folder) as module:
        w = _writer(module)
        w.set_face("Fate", False)
        card = w.draw("Fate", "Soviets Hand", 50, 50, player="Sami")
        w.to_deck(card, "Plans", player="Sami")
        for viewer, visible in ((Viewer(), False), (Viewer.of_side("Soviets"), True)):
            replay, steps = _replay(tmp_path, w, module, viewer)
            assert not _events(steps, CardPlayEvent)
            (ret,) = _events(steps, CardReturnEvent)
            assert (ret.deck.name, ret.from_hand, ret.visible) == ("Plans", "Soviets Hand", visible)
            plans_deck = next(d for d in replay.snapshot(len(steps)).decks if d.name == "Plans")
            assert (plans_deck.cards == ["Frost"]) is visible and plans_deck.count == 1


def test_face_up_and_down(module, tmp_path):
    w = _writer(module)
    w.set_face("Fate", False)
    w.set_face("Fate", True)
    _, steps = _replay(tmp_path, w, module)
    assert [e.face_down for e in _events(steps, DeckFaceEvent)] == [False, True]


def test_mask_and_unmask_per_viewer(module, tmp_path):
    w = _writer(module)
    card = w.draw("Fate", "Table", 500, 400, player="Sami")     # masked by Sami
    w.mask(card, False, player="Sami")
    w.mask(card, True, player="Sami")
    for viewer, visible in ((Viewer(), False), (Viewer.of_side("Soviets"), True), (Viewer("referee"), True)):
        _, steps = _replay(tmp_path, w, module, viewer)
        masks = _events(steps, MaskEvent)
        assert [(m.masked, m.by, m.side) for m in masks] == [(False, "Sami", "Soviets"),
                                                             (True, "Sami", "Soviets")]
        assert masks[0].visible and masks[1].visible is visible
        assert ("Frost" in json.dumps(masks[1].record(), ensure_ascii=False)) is visible


def test_unmasking_in_a_hand_tells_only_the_hands_side(module, tmp_path):
    w = _writer(module)
    card = w.draw("Fate", "Soviets Hand", 50, 50, player="Sami")
    w.mask(card, False, player="Sami")
    for viewer, visible in ((Viewer(), False), (Viewer.of_side("Soviets"), True)):
        _, steps = _replay(tmp_path, w, module, viewer)
        (unmask,) = _events(steps, MaskEvent)
        assert not unmask.masked and unmask.visible is visible
        assert ("Frost" in unmask.text() + json.dumps(unmask.record(), ensure_ascii=False)) is visible


def _plain_moves(steps):
    """The steps' plain moves (not the card events, which are moves too)."""
    from vmodtool.replay.events import MoveEvent
    return [e for s in steps for e in s.events if type(e) is MoveEvent]


@pytest.mark.parametrize("masked", [True, False], ids=["masked", "unmasked"])
def test_a_card_rearranged_in_a_hand_is_named_only_to_who_may_open_it(module, tmp_path, masked):
    """A card moved inside a hand (a plain MovePiece on the PlayerHand's
    map), masked or not: the hand's side and a referee see which card, an
    observer and the other side only that a card moved (text and record)."""
    w = _writer(module)
    card = w.draw("Fate", "Soviets Hand", 50, 50, player="Sami")
    if not masked:
        w.mask(card, False, player="Sami")
    w._move_to(card, "Soviets Hand", 200, 80, "Sami", chat=False)
    for viewer, visible in ((Viewer(), False), (Viewer.of_side("Germans"), False),
                            (Viewer.of_side("Soviets"), True), (Viewer("referee"), True)):
        _, steps = _replay(tmp_path, w, module, viewer)
        (move,) = _plain_moves(steps)
        assert move.visible is visible and move.piece.id == card      # (the audit still knows the piece)
        rec = json.dumps(move.record(), ensure_ascii=False)
        assert ("Frost" in move.text()) is visible and ("Frost" in rec) is visible, (viewer, move.text())
        assert move.text().startswith("1 card moved") is not visible
        assert ("Frost" in json.dumps(steps[-1].record(), ensure_ascii=False)) is visible


def test_a_card_passed_between_hands_is_named_to_either_hands_side(module, tmp_path):
    w = _writer(module)
    card = w.draw("Fate", "Soviets Hand", 50, 50, player="Sami")
    w.mask(card, False, player="Sami")
    w._move_to(card, "Germans Hand", 60, 60, "Sami", chat=False)
    for viewer, visible in ((Viewer(), False), (Viewer.of_side("Germans"), True),
                            (Viewer.of_side("Soviets"), True)):
        _, steps = _replay(tmp_path, w, module, viewer)
        (move,) = _plain_moves(steps)
        assert move.visible is visible and ("Frost" in move.text()) is visible


def test_a_card_deleted_from_a_hand_is_named_only_to_its_side(module, tmp_path):
    from vmodtool.replay.events import RemoveEvent
    w = _writer(module)
    card = w.draw("Fate", "Soviets Hand", 50, 50, player="Sami")
    w.mask(card, False, player="Sami")
    w.remove(card, player="Sami")
    for viewer, visible in ((Viewer(), False), (Viewer.of_side("Soviets"), True)):
        _, steps = _replay(tmp_path, w, module, viewer)
        (gone,) = _events(steps, RemoveEvent)
        assert gone.visible is visible
        assert ("Frost" in gone.text() + json.dumps(gone.record(), ensure_ascii=False)) is visible


def test_a_card_on_the_table_is_named_to_all_as_before(module, tmp_path):
    w = _writer(module)
    card = w.draw("Fate", "Soviets Hand", 50, 50, player="Sami")
    w.mask(card, False, player="Sami")
    w._move_to(card, "Table", 400, 300, "Sami", chat=False)        # played (a CardPlayEvent): public now
    w._move_to(card, "Table", 500, 300, "Sami", chat=False)
    _, steps = _replay(tmp_path, w, module, Viewer())
    moves = _plain_moves(steps)
    assert len(moves) == 1 and all(m.visible and "Frost" in m.text() for m in moves)


def test_a_card_changed_in_a_hand_is_named_only_to_its_side(tmp_path):
    """A ChangePiece of a card in a hand (a layer of its own switched):
    the observer reads only that a card there changed, not which nor how."""
    from vmodtool.replay.events import ChangeEvent
    from vmodtool.vassal.pieces import PieceDef, Trait

    def layered(name: str, gpid: int) -> str:
        card = PieceDef.parse(_card(name, gpid).split(">", 1)[1].split("<", 1)[0])
        flip = Trait("emb2;Flip;128;F;;128;;;128;;;;1;false;0;0;flip.png;;true;Flip", "1")
        return (f'<{B}widget.CardSlot entryName="{name}" gpid="{gpid}">'
                f'{PieceDef.from_traits([flip, *card.traits]).encode()}</{B}widget.CardSlot>')

    text = _buildfile_text()
    for i, name in enumerate(CARDS):
        text = text.replace(_card(name, i + 1), layered(name, i + 1))
    folder = tmp_path / "mod"
    folder.mkdir()
    (folder / "buildFile.xml").write_text(text, encoding="utf-8")
    with Module.open(folder) as module:
        w = _writer(module)
        card = w.draw("Fate", "Soviets Hand", 50, 50, player="Sami")
        w.mask(card, False, player="Sami")
        w.set_layer(card, "Flip", -1, player="Sami", report=False)
        for viewer, visible in ((Viewer(), False), (Viewer.of_side("Soviets"), True)):
            _, steps = _replay(tmp_path, w, module, viewer)
            (change,) = _events(steps, ChangeEvent)
            rec = json.dumps(change.record(), ensure_ascii=False)
            assert change.visible is visible and ("Frost" in change.text() + rec) is visible
            assert bool(change.record()["changes"]) is visible


def test_hide_and_show(module, tmp_path):
    w = _writer(module)
    slot = next(s for s in w.slots if s.entry_name == "Scout")
    pid = w._new_piece(slot.definition, "Table", 200, 200, slot.gpid)
    w.snapshot()
    w.hide(pid, True, player="Hans")
    w.hide(pid, False, player="Hans")
    for viewer, visible in ((Viewer(), False), (Viewer.of_side("Germans"), True)):
        _, steps = _replay(tmp_path, w, module, viewer)
        hides = _events(steps, HideEvent)
        assert [(h.hidden, h.by, h.side) for h in hides] == [(True, "Hans", "Germans"),
                                                             (False, "Hans", "Germans")]
        assert ("Scout" in hides[0].text()) is visible


def test_search_draws_from_other_than_the_top(module, tmp_path):
    w = _writer(module)
    bottom = w.decks["Fate"].members[0]
    w.draw("Fate", "Soviets Hand", 50, 50, card=bottom, player="Sami")
    w.draw("Fate", "Soviets Hand", 60, 50, player="Sami")      # the top: no search
    _, steps = _replay(tmp_path, w, module)
    searched = _events(steps, DeckOrderEvent)
    assert [(e.searched, e.deck.name) for e in searched] == [(True, "Fate")]
    assert [e.hand_count for e in _events(steps, CardDrawEvent)] == [1, 2]


def test_board_shows_decks_and_hands_by_viewer(module, tmp_path):
    w = _writer(module)
    w.draw("Fate", "Soviets Hand", 50, 50, player="Sami")
    w.set_face("Fate Discard", False)
    for viewer, named in ((Viewer(), False), (Viewer.of_side("Soviets"), True), (Viewer("referee"), True)):
        replay, steps = _replay(tmp_path, w, module, viewer)
        board = replay.snapshot(len(steps))
        text = "\n".join(board_lines(board))
        assert "deck Fate on Table (100,100): 4 cards, face down" in text
        assert "hand Soviets Hand (Soviets): 1 piece" in text
        assert ("Rain" in text) is viewer.referee        # a face-down deck's cards: the referee's only
        assert ("Frost" in text) is named
        records = [json.loads(r) for r in board_records(board)]
        hand = next(r for r in records if r["type"] == "hand" and r["name"] == "Soviets Hand")
        assert hand["count"] == 1
        frost = next(r for r in records if r["type"] == "piece" and r["map"] == "Soviets Hand")
        assert (frost["name"] == "Frost") is named


def test_step_zero_counts_decks(module, tmp_path):
    w = _writer(module)
    replay = Replay.open(_save(tmp_path, w), module=module, board_sizes={"Felt": (800, 600)})
    board = replay.state_at(0)
    assert [(d.name, d.count, d.face_down, d.cards) for d in board.decks] == \
        [("Fate", 5, True, None), ("Fate Discard", 0, False, [])]


def _save(tmp_path, w):
    path = tmp_path / "start.vsav"
    path.write_bytes(w.to_bytes(date_saved="1"))
    return path


def test_a_whole_card_game_ends_where_vassal_puts_its_pieces(module, tmp_path):
    """Every deck operation in one log; the final places are those VASSAL
    3.7.26 itself reported stepping through this same log (the local
    vassal-check harness, ``--positions``): Rain in the Germans' hand at
    (40,40), three cards in Fate at (100,100), Frost on the table."""
    w = _writer(module)
    a = w.draw("Fate", "Soviets Hand", 50, 50, player="Sami")
    for x in (500, 520):
        c = w.draw("Fate", "Table", x, 400, player="Hans")
        w.to_deck(c, "Fate Discard", player="Hans")
    w.shuffle("Fate", seed=2)
    w.reshuffle("Fate Discard", seed=5, player="Hans")
    w.set_face("Fate", False)
    w.draw("Fate", "Germans Hand", 40, 40, card=w.decks["Fate"].members[0], player="Hans")
    w.mask(a, False, player="Sami")
    w._move_to(a, "Table", 300, 300, "Sami", chat=False)
    replay, steps = _replay(tmp_path, w, module, Viewer("referee"))
    board = replay.snapshot(len(steps))
    places = sorted((p.map, p.x, p.y, p.name, p.deck) for p in board.pieces if p.map is not None)
    assert places == [("Germans Hand", 40, 40, "Rain", None),
                      ("Table", 100, 100, "Mud", "Fate"), ("Table", 100, 100, "Snow", "Fate"),
                      ("Table", 100, 100, "Пыль (Dust)", "Fate"), ("Table", 300, 300, "Frost", None)]
    assert [m.id for m in next(replay.engine.state.decks()).members] == w.decks["Fate"].members
    assert not replay.warnings


def test_a_draw_that_changes_no_mask_logs_no_change(module, tmp_path):
    """ChangeTracker logs nothing when the state did not change: a card
    drawn from a face-up deck stays unmasked, so only its move is logged."""
    w = _writer(module)
    w.set_face("Fate", False)
    before = len(w.steps)
    w.draw("Fate", "Table", 400, 300, player="Sami")
    assert "D/" not in w.steps[before]
    _, steps = _replay(tmp_path, w, module)
    (draw,) = _events(steps, CardDrawEvent)
    assert draw.visible and draw.piece.name == "Frost"
