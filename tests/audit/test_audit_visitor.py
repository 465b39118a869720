"""The audit is a replay visitor (issue 41): a caller drives it beside its
own visitors in one replay pass (:func:`prepare_audit`), the integrity
check's record is made in that same pass, and the judging pass walks the
recorded steps through the visitor dispatch, where a card drawn, returned
or played is never a unit's move."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.cardgame import FR_FATE, FR_HAND, CardGame, card, card_scenario, chat, draw
from vmodtool.audit.game import audit_logs, prepare_audit
from vmodtool.audit.judge import StepJudge
from vmodtool.replay import Replay
from vmodtool.replay.events import PropertyEvent
from vmodtool.replay.game import Step
from vmodtool.replay.visitor import ReplayVisitor
from vmodtool.scenario import load_scenario

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
MT = EXAMPLES / "modern-tactical"
LOGS = [MT / "logs" / "game-1.vlog", MT / "logs" / "illegal-over-long-move.vlog"]


class _Steps(ReplayVisitor[int]):
    def __init__(self) -> None:
        self.steps = 0

    def end_step(self, step: Step) -> None:
        self.steps += 1

    def result(self) -> int:
        return self.steps


def _count_restores(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The files the replays restore (one per log and pass)."""
    restored: list[int] = []
    original = Replay._restore

    def restore(self: Replay, k: int, add_plans: object = None) -> object:
        restored.append(k)
        return original(self, k, add_plans)    # type: ignore[arg-type]
    monkeypatch.setattr(Replay, "_restore", restore)
    return restored


def test_the_audit_shares_one_pass_with_a_caller_s_visitor(monkeypatch: pytest.MonkeyPatch) -> None:
    scenario = load_scenario(MT / "scenario.yaml")
    alone = audit_logs(LOGS, scenario)
    restored = _count_restores(monkeypatch)
    replay, visitor = prepare_audit(LOGS, scenario)
    report, steps = replay.run(visitor, _Steps())
    assert restored == [0, 1]                   # one pass: each log's saved state restored once
    assert steps == report.steps == alone.steps > 0
    assert report.as_json() == alone.as_json()
    assert report.violations, "the second log's over-long move is found"


def test_integrity_is_recorded_in_the_audit_s_own_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    scenario = load_scenario(MT / "scenario.yaml")
    restored = _count_restores(monkeypatch)
    report = audit_logs(LOGS, scenario, integrity=True)
    assert restored == [0, 1]
    assert report.integrity is not None
    record = report.integrity.record
    assert len(record.steps) == report.steps and len(record.starts) == len(record.ends) == 2
    assert list(record.sides) == [s.name for s in scenario.game.sides]


def test_a_card_drawn_is_no_move_to_the_audit_and_events_keep_their_place(cc, monkeypatch) -> None:
    g = CardGame(card_scenario(cc))
    dust = card("fr_dust", "Пыль (Dust)")
    moves: list[object] = []
    made: list[tuple[str, int, int]] = []
    visit_move, cards = StepJudge.visit_move, StepJudge._cards

    def move(self: StepJudge, event: object) -> None:
        moves.append(event)
        visit_move(self, event)     # type: ignore[arg-type]

    def card_events(self: StepJudge, events: list) -> None:
        made.extend((e.kind, e.step, e.sub) for e in events)
        cards(self, events)
    monkeypatch.setattr(StepJudge, "visit_move", move)
    monkeypatch.setattr(StepJudge, "_cards", card_events)
    # the card draw is the third event of its step: the chat line and the
    # property change (no rule reads it) keep their places
    g.step("Жан", "Франция", chat("Жан", "беру карту"), PropertyEvent(name="x", new="1"),
           draw(dust, FR_FATE, 39, FR_HAND))
    g.run()
    assert moves == []
    assert made == [("card_draw", 1, 3)]
    assert g.state.hand("fr") == ("fr_dust",)
