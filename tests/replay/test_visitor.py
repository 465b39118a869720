"""The replay's visitor seam: one pass drives any number of visitors, a
subtype's method falls back to its base's, a visitor sees the board only
through a BoardView, and a recorded step walks again through the same
dispatch."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from vmodtool.replay import Replay
from vmodtool.replay.events import CardDrawEvent, CardReturnEvent, ChatEvent, Event, MoveEvent
from vmodtool.replay.game import Step
from vmodtool.replay.visitor import BoardView, LogStart, ReplayVisitor, visit_method, walk_step

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CC_LOG = EXAMPLES / "combat-commander" / "logs" / "game-1.vlog"
MT_CHAIN = [EXAMPLES / "modern-tactical" / "logs" / "game-1.vlog",
            EXAMPLES / "modern-tactical" / "logs" / "game-2-withdrawn.vlog"]


class Calls(ReplayVisitor[list[str]]):
    """Every call, in order, by name (events by their class)."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def begin_log(self, log: LogStart, initial: BoardView) -> None:
        self.calls.append(f"begin_log {log.index} {Path(log.file or '').name} {log.steps_before}")

    def begin_step(self, step: Step) -> None:
        self.calls.append(f"begin_step {step.number}")

    def visit_event(self, event: Event) -> None:
        self.calls.append(type(event).__name__)

    def end_step(self, step: Step) -> None:
        self.calls.append(f"end_step {step.number}")

    def end_log(self, log: LogStart, final: BoardView) -> None:
        self.calls.append(f"end_log {log.index}")

    def result(self) -> list[str]:
        return self.calls


class Moves(ReplayVisitor[Counter[str]]):
    """Overrides only visit_move: card draws and returns reach it too."""

    def __init__(self) -> None:
        self.seen: Counter[str] = Counter()

    def visit_move(self, event: MoveEvent) -> None:
        self.seen[type(event).__name__] += 1

    def result(self) -> Counter[str]:
        return self.seen


class Draws(Moves):
    """Overrides visit_card_draw as well: draws no longer reach visit_move."""

    def visit_card_draw(self, event: CardDrawEvent) -> None:
        self.seen["draw"] += 1


def expected_calls(replay: Replay) -> list[str]:
    """The calls a visitor must get, from the step iterator itself."""
    out: list[str] = []
    file_index = -1
    for step in replay.steps():
        k = replay.files.index(step.file) if step.file in replay.files else 0
        while file_index < k:
            if file_index >= 0:
                out.append(f"end_log {file_index}")
            file_index += 1
            out.append(f"begin_log {file_index} {Path(replay.files[file_index]).name} "
                       f"{replay.log_starts[file_index]}")
        out.append(f"begin_step {step.number}")
        out.extend(type(e).__name__ for e in step.events)
        out.append(f"end_step {step.number}")
    out.append(f"end_log {file_index}")
    return out


def test_one_pass_drives_every_visitor_in_order_over_a_chain():
    replay = Replay.open(MT_CHAIN)
    first, second = replay.run(Calls(), Calls())
    assert first == second == expected_calls(Replay.open(MT_CHAIN))
    assert first[0].startswith("begin_log 0 game-1.vlog 0")
    assert sum(c.startswith("begin_log") for c in first) == 2


def test_a_card_draw_falls_back_to_visit_move_unless_the_visitor_takes_it():
    replay_events = [e for s in Replay.open(CC_LOG).steps() for e in s.events]
    kinds = Counter(type(e).__name__ for e in replay_events if isinstance(e, MoveEvent))
    assert kinds["CardDrawEvent"] and kinds["CardReturnEvent"] and kinds["MoveEvent"]
    (moves,) = Replay.open(CC_LOG).run(Moves())
    assert moves == kinds
    (draws,) = Replay.open(CC_LOG).run(Draws())
    assert draws["draw"] == kinds["CardDrawEvent"] and "CardDrawEvent" not in draws
    assert draws["CardReturnEvent"] == kinds["CardReturnEvent"]


def test_visit_method_of_a_subclass_is_its_nearest_base():
    class Later(CardReturnEvent):
        pass
    assert visit_method(CardDrawEvent) == "visit_card_draw"
    assert visit_method(Later) == "visit_card_return"
    assert visit_method(ChatEvent) == "visit_chat"


def test_a_recorded_step_walks_again_through_the_same_dispatch():
    replay = Replay.open(CC_LOG)
    steps = list(replay.steps())
    again = Calls()
    for step in steps:
        walk_step(again, step)
    live = [c for c in Replay.open(CC_LOG).run(Calls())[0] if "_log" not in c]
    assert again.calls == live


def test_board_view_at_the_start_is_the_saved_state():
    class Start(ReplayVisitor[list[tuple[str, str | None, int, int]]]):
        def __init__(self) -> None:
            self.seen: list[tuple[str, str | None, int, int]] = []

        def begin_log(self, log: LogStart, initial: BoardView) -> None:
            if log.index == 0:
                self.seen = [(p.ref.id or "", p.place.map, p.place.x, p.place.y) for p in initial.pieces()]
                assert {pid: (m, x, y) for pid, m, x, y in self.seen} == initial.positions()

        def result(self) -> list[tuple[str, str | None, int, int]]:
            return self.seen
    (seen,) = Replay.open(MT_CHAIN).run(Start())
    truth = Replay.open(MT_CHAIN).initial_state()
    assert seen == [(p.id, p.map, p.x, p.y) for p in truth.pieces]


def test_until_stops_the_pass_and_still_ends_the_log():
    (calls,) = Replay.open(MT_CHAIN).run(Calls(), until=3)
    assert calls[-2:] == ["end_step 3", "end_log 0"]


def test_a_visitor_must_define_its_result():
    class NoResult(ReplayVisitor[int]):
        pass
    with pytest.raises(TypeError, match="abstract method 'result'|abstract method result"):
        NoResult()  # type: ignore[abstract]
