"""The replay's JSON is built in one place (``replay/output.py``): ``vmodtool
replay --format jsonl`` and the batch's ``replay`` task end with the same
records, the batch counting the steps with a visitor instead of keeping
them."""

from __future__ import annotations

import json
from pathlib import Path

from vmodtool.replay import Replay
from vmodtool.replay.output import StepCount, end_records, jsonl_lines, step_records, text_lines

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "examples" / "formats"


def _open() -> Replay:
    return Replay.open([DEMO / "demo.vlog"], module=DEMO / "demo.vmod")


def test_jsonl_is_step_records_then_end_records() -> None:
    lines = list(jsonl_lines(_open()))
    replay = _open()
    steps = []
    want = []
    for s in replay.steps():           # each step recorded as it is replayed (a later undo marks it after)
        steps.append(s)
        want += step_records(s)
    assert steps
    want += [json.dumps(r, ensure_ascii=False)
             for r in end_records(replay, len(steps), sum(1 for s in steps if s.undo))]
    assert lines == want
    summary = json.loads(lines[-1])
    assert summary["type"] == "summary" and summary["steps"] == len(steps)


def test_the_batch_counts_with_a_visitor_what_the_command_counts() -> None:
    counted = _open()
    ((steps, undo),) = counted.run(StepCount())
    walked = _open()
    all_steps = list(walked.steps())
    assert (steps, undo) == (len(all_steps), sum(1 for s in all_steps if s.undo))
    assert end_records(counted, steps, undo) == end_records(walked, len(all_steps), undo)


def test_text_lines_end_with_the_summary() -> None:
    lines = list(text_lines(_open(), show_chat=False))
    steps = list(_open().steps())
    assert lines[-1].startswith(f"{len(steps)} steps (") or any(
        line.startswith(f"{len(steps)} steps (") for line in lines)
    assert not any(": chat" in line for line in lines)


def test_a_step_says_what_it_holds_without_its_reader_testing_event_types() -> None:
    """What ``vmodtool merge`` asks of a step it may drop (outside the
    replay layer no module tests event types)."""
    steps = {s.number: s for s in _open().steps()}
    chat, roll = steps[2], steps[4]
    assert chat.only_talk and not chat.rolled and chat.dice_lines == []
    assert roll.rolled and not roll.only_talk                 # the roll set global properties too
    assert roll.dice_lines == ["*** 2d6 = 3,5 *** &lt;Борис&gt;"]
    assert not any(s.only_talk for s in steps.values() if any(e.kind == "move" for e in s.events))
