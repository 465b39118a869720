"""Readable and JSON Lines output of a replay.

Chat, player, piece and property names come from the log: the readable
lines escape their control characters and line breaks
(:func:`~vmodtool.textsafe.escape_controls`), so each line printed is one
line of the report."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

from vmodtool.replay.chain import ChainDifference
from vmodtool.replay.engine import ReplayWarning
from vmodtool.replay.game import BoardState, PieceSnapshot, Replay, Step
from vmodtool.replay.visitor import ReplayVisitor
from vmodtool.textsafe import escape_controls as _e

__all__ = ["step_lines", "step_records", "board_lines", "board_records", "summary_lines", "text_lines",
           "jsonl_lines", "end_records", "StepCount"]


def _who(step: Step) -> str:
    if step.side and step.player:
        return f", {_e(step.side)}"
    if step.player:
        return f", {_e(step.player)}"
    return ""


def step_lines(step: Step, *, show_chat: bool = True, show_warnings: bool = True) -> Iterator[str]:
    """``step 37, Allied: 2/505 PIR moved 0812 → 0913`` — one line per event
    (and per warning, unless ``show_warnings`` is false)."""
    head = f"step {step.number}{_who(step)}"
    tags = []
    if step.undo:
        tags.append(f"undo of step {step.undoes}" if step.undoes else "undo")
    if step.undone_by is not None:
        tags.append(f"undone by step {step.undone_by}")
    tag = f" [{'; '.join(tags)}]" if tags else ""
    printed = False
    for event in step.events:
        if not show_chat and event.kind == "chat":
            continue
        printed = True
        yield f"{head}: {_e(event.text())}{tag}"
    if not printed and tag:
        yield f"{head}:{tag}"
    for warning in step.warnings if show_warnings else ():
        yield f"{head}: warning: {_e(warning.message)}"


def step_records(step: Step) -> Iterator[str]:
    rec: dict[str, object] = {"type": "step"}
    rec.update(step.record())
    yield json.dumps(rec, ensure_ascii=False)


def board_lines(board: BoardState) -> Iterator[str]:
    """The board at a step: one line per piece, grouped by map and place."""
    yield f"board after step {board.step}: {len(board.pieces)} pieces"
    for d in board.decks:
        where = f"{_e(d.map)} ({d.x},{d.y})" if d.map is not None else "not on a map"
        cards = f": {', '.join(_e(c) for c in d.cards)}" if d.cards else ""
        yield (f"  deck {_e(d.name)} on {where}: {d.count} card{'s' if d.count != 1 else ''}, "
               f"face {'down' if d.face_down else 'up'}{cards}")
    for h in board.hands:
        sides = f" ({', '.join(map(_e, h.sides))})" if h.sides else ""
        yield f"  hand {_e(h.name)}{sides}: {h.count} piece{'s' if h.count != 1 else ''}"
    by_map: dict[str | None, list[PieceSnapshot]] = {}
    for p in board.pieces:
        if p.deck is not None:
            continue        # counted on its deck's line
        by_map.setdefault(p.map, []).append(p)
    for map_name in sorted(by_map, key=lambda m: (m is None, m or "")):
        pieces = by_map[map_name]
        yield f"  {_e(map_name) if map_name is not None else '(not on a map)'}: {len(pieces)}"
        pieces.sort(key=lambda p: (p.location or "", p.y, p.x, p.stack_id or "",
                                   p.stack_index if p.stack_index is not None else -1))
        for p in pieces:
            yield _piece_line(p)
    for key, value in sorted(board.global_properties.items()):
        yield f"  property {_e(key)} = {_e(str(value))}"
    for key, value in sorted(board.turns.items()):
        yield f"  turn tracker {_e(key)} = {_e(str(value))}"


def _piece_line(p: PieceSnapshot) -> str:
    """A piece's line of :func:`board_lines`: where, its place in its
    stack, its name (none when the viewer may not see it)."""
    where = p.location if p.location not in (None, "offboard") else (
        f"hex {p.grid_cell[0]},{p.grid_cell[1]}" if p.grid_cell else
        f"{p.location + ' ' if p.location else ''}({p.x},{p.y})")
    stack = (f" [{p.stack_index + 1}/{p.stack_size}]"
             if p.stack_size and p.stack_index is not None and p.stack_size > 1 else "")
    if p.hidden:
        return f"    {_e(where)}{stack}: (hidden piece)"
    unit = f" [{p.unit_id}]" if p.unit_id and p.unit_id != p.name else ""
    return f"    {_e(where)}{stack}: {_e(p.name or p.id)}{_e(unit)}"


def board_records(board: BoardState) -> Iterator[str]:
    for d in board.decks:
        yield json.dumps({"type": "deck", "step": board.step, **d.record()}, ensure_ascii=False)
    for h in board.hands:
        yield json.dumps({"type": "hand", "step": board.step, **h.record()}, ensure_ascii=False)
    for p in board.pieces:
        rec = {"type": "piece", "step": board.step}
        rec.update(p.record())
        yield json.dumps(rec, ensure_ascii=False)
    yield json.dumps({"type": "globals", "step": board.step,
                      "global_properties": board.global_properties, "turns": board.turns},
                     ensure_ascii=False)


def summary_lines(steps: list[Step], differences: Iterable[ChainDifference],
                  warnings: Iterable[ReplayWarning], missing_sizes: list[str], *,
                  show_warnings: bool = True) -> Iterator[str]:
    differences = list(differences)
    warnings = list(warnings)
    undo = sum(1 for s in steps if s.undo)
    yield (f"{len(steps)} steps ({undo} undo), {sum(s.commands for s in steps)} commands, "
           f"{len(warnings)} warnings")
    if missing_sizes:
        yield ("boards without a known size (locations there stay in pixels; give "
               "--board-size NAME=WxH or --board-sizes FILE.json): " + ", ".join(map(_e, missing_sizes)))
    if differences:
        yield f"chain: {len(differences)} differences between the end of a log and the next"
        for d in differences:
            yield f"  {d.before_file} → {d.after_file}: {_e(d.text())}"
    for w in warnings if show_warnings else ():
        if w.step is None:
            yield f"warning: {_e(str(w))}"


def text_lines(replay: Replay, *, show_chat: bool = True) -> Iterator[str]:
    """``vmodtool replay``'s readable move list: each step's lines as it is
    replayed, then the summary (warnings go to stderr, not here)."""
    steps: list[Step] = []
    for s in replay.steps():
        steps.append(s)
        yield from step_lines(s, show_chat=show_chat, show_warnings=False)
    yield from summary_lines(steps, replay.chain_differences, replay.warnings,
                             replay.missing_board_sizes, show_warnings=False)


def jsonl_lines(replay: Replay) -> Iterator[str]:
    """``vmodtool replay --format jsonl``: a record per step as it is
    replayed, then :func:`end_records`."""
    steps = undo = 0
    for s in replay.steps():
        steps += 1
        undo += 1 if s.undo else 0
        yield from step_records(s)
    for rec in end_records(replay, steps, undo):
        yield json.dumps(rec, ensure_ascii=False)


def end_records(replay: Replay, steps: int, undo_steps: int) -> list[dict[str, object]]:
    """The records that follow the steps in the replay's JSON (``replay
    --format jsonl`` and the batch's ``replay`` task): each chain
    difference, each warning, the summary; for a replay run to its end,
    ``steps`` of them ``undo_steps`` undos."""
    records: list[dict[str, object]] = [{"type": "chain_difference", **d.record()}
                                        for d in replay.chain_differences]
    records += [{"type": "warning", **w.record()} for w in replay.warnings]
    records.append({"type": "summary", "steps": steps, "undo_steps": undo_steps,
                    "warnings": len(replay.warnings),
                    "chain_differences": len(replay.chain_differences),
                    "boards_without_size": replay.missing_board_sizes})
    return records


class StepCount(ReplayVisitor[tuple[int, int]]):
    """The steps of a replay and how many are undos: what :func:`end_records`
    counts, for a caller that keeps no step."""

    def __init__(self) -> None:
        self.steps = 0
        self.undo = 0

    def end_step(self, step: Step) -> None:
        self.steps += 1
        if step.undo:
            self.undo += 1

    def result(self) -> tuple[int, int]:
        return self.steps, self.undo
