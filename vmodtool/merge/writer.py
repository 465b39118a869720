"""A chain of logs as one log (``vmodtool merge``): the first log's saved
state, then every step of every log in order, and at each boundary one
labelled *transition* step (:mod:`vmodtool.merge.transition`) that makes
the state equal to the saved state the next log starts from
(``docs/vassal-format.md`` §4.4, §4.7).  So the final state of the merged
log is the last log's end, and nothing done between two logs is lost
without a trace.

Editing on the way (:class:`MergeOptions`): undone steps and their undos
dropped, chat lines dropped by a pattern, steps deleted or annotated by an
edit list, notes inserted as chat lines ``[note] …``.  A dice report is
never dropped silently: every one dropped is counted in the summary, and
``keep_dice`` keeps them (a dropped step's dice lines stay as a chat step).

The chain's own check (:mod:`vmodtool.checkgame.chain`) runs on the
same replay first, as a visitor of its one pass: logs out of order or
missing stop the merge unless forced.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

from vmodtool.errors import VmodError
from vmodtool.gc_policy import relaxed_gc
from vmodtool.merge.edits import Edit
from vmodtool.merge.transition import (
    chat_step,
    counts,
    log_step,
    note_text,
    restore_leaves,
    transition_commands,
    transition_line,
)
from vmodtool.replay.chain import ChainDifference, compare_states
from vmodtool.replay.engine import ReplayEngine
from vmodtool.replay.game import Replay, Step
from vmodtool.step_notes import Note
from vmodtool.vassal.commands import (
    ESC,
    Chat,
    Command,
    CommandGroup,
    EndSave,
    LogEntry,
    Node,
    PlayerAdd,
    leaf_commands,
    parse_commands,
)
from vmodtool.vassal.sequence import encode_sequence

__all__ = ["MergeOptions", "MergedStep", "MergeResult", "merge_logs"]

PathLike = Union[str, "os.PathLike[str]"]

#: the chain findings that stop a merge unless forced
STOPPING = ("logs_out_of_order", "missing_log")


@dataclass
class MergeOptions:
    """How to edit while merging: ``drop_undone`` leaves out undone steps
    and their undos, ``drop_chat`` the chat lines it finds, ``keep_dice``
    keeps every dice report, ``edits`` deletes or annotates steps,
    ``force`` merges a chain whose check failed."""

    drop_undone: bool = False
    drop_chat: re.Pattern[str] | None = None
    keep_dice: bool = False
    edits: list[Edit] = field(default_factory=list)
    force: bool = False


@dataclass
class MergedStep:
    """A step of the merged log: ``kind`` ``step`` (from log ``file``,
    its step ``file_step``, chain step ``number``), ``transition`` (before
    the first step of ``file``) or ``note`` (``text``)."""

    kind: str
    file: str | None
    file_step: int | None = None
    number: int | None = None
    text: str = ""


@dataclass
class MergeResult:
    """The merged command text and what was done: the chain's replay (its
    steps) and the state the chain ends in (``final_engine``)."""

    text: str
    steps: list[MergedStep]
    summary: list[str]
    replay: Replay
    chain_steps: list[Step]
    chain_findings: list[str]
    final_engine: ReplayEngine
    dropped_dice: int = 0


# --------------------------------------------------------------------------------------
# editing one step

def _dice_lines(step: Step) -> set[str]:
    return set(step.dice_lines)


def _without_chat(node: Node, drop: re.Pattern[str], dice: set[str], keep_dice: bool,
                  counts: dict[str, int]) -> Node | None:
    """The step without the chat lines ``drop`` matches (None when nothing
    but chat was in it); dice lines are kept with ``keep_dice``, else
    counted."""
    def inner_chat(cmd: Command) -> Chat | None:
        inner = cmd.logged if isinstance(cmd, LogEntry) else cmd
        return inner if isinstance(inner, Chat) else None

    def walk(n: Node, root: bool) -> Node | None:
        if isinstance(n, CommandGroup):
            kids = []
            for i, child in enumerate(n.children):
                kept = walk(child, root and i == 0)
                if kept is not None:
                    kids.append(kept)
            return CommandGroup(kids) if kids else None
        assert isinstance(n, Command)
        chat = inner_chat(n)
        if chat is None or not drop.search(chat.message):
            return n
        if chat.message in dice:
            if keep_dice:
                return n
            counts["dice"] += 1
        counts["chat"] += 1
        # the root of a step stays a step's root: VASSAL's own no-op in its place
        return LogEntry("LOG\tnull") if root else None

    kept = walk(node, True)
    if kept is None:
        return None
    if not any(not (isinstance(c, LogEntry) and c.logged is None) for c in leaf_commands(kept)):
        return None
    return kept


# --------------------------------------------------------------------------------------
# the merge

def _module_name(entries: dict[str, bytes], file: str | None) -> str | None:
    data = entries.get("moduledata")
    if not data:
        return None
    from vmodtool.vassal.metadata import ModuleMetadata
    try:
        return ModuleMetadata.parse(data, file=file).name or None
    except VmodError:
        return None


def merge_logs(paths: Sequence[PathLike], options: MergeOptions | None = None, *,
               notes: Sequence[Note] = (), module: Any = None,
               board_sizes: dict[str, tuple[int, int]] | None = None) -> MergeResult:
    """Merge the logs of one game (in the order given) into one log's
    command text; ``VmodError`` for a log that cannot be read, a log of
    another module, or (unless ``options.force``) logs out of order or
    missing."""
    options = options or MergeOptions()
    if not paths:
        raise VmodError("no logs to merge")
    files = [os.fspath(p) for p in paths]
    replay = _open_logs(files, module, board_sizes)
    restore_nodes = [g.restore_part() for g in replay.games]
    if not any(isinstance(c, EndSave) for c in restore_leaves(restore_nodes[0])):
        raise VmodError("the first log has no saved state (begin_save … end_save) to start from",
                        file=files[0])
    chain_steps, findings = _checked_chain(replay, files, options.force)
    per_file = [len(g.log_steps()) for g in replay.games]
    deletes, notes_at = _edit_targets(list(options.edits) + [Edit.of_note(n) for n in notes], files, per_file)
    # the merged log is replayed while it is written: a replay's many
    # long-lived objects need no cycle collection meanwhile (as Replay.run)
    with relaxed_gc():
        log = _MergedLog(replay, files, options, restore_nodes, deletes, notes_at)
        log.undone_pairs = _undone_pairs(chain_steps) if options.drop_undone else set()
        start = 0
        for k, n in enumerate(per_file):      # the replay yields each log's steps in turn
            log.write_log(k, chain_steps[start:start + n])
            start += n
        final = _chain_end(replay, log.plans)
    engine = log.engine
    end_fix = compare_states(engine.state, final.state, engine.place_of, final.place_of, ReplayEngine.ref,
                             files[-1], None)
    if end_fix:
        log.transition(len(files), final, f"end of {Path(files[-1]).name}: the state the logs end in "
                                          "(dropped steps did not cancel exactly)")
    head = [n.encode() for n in restore_nodes[0]]
    text = encode_sequence(head + log.texts, ESC) or ""
    summary = log.summary(len(chain_steps), findings, end_fix)
    return MergeResult(text, log.steps, summary, replay, chain_steps, findings, final, log.dropped["dice"])


def _open_logs(files: list[str], module: Any, board_sizes: dict[str, tuple[int, int]] | None) -> Replay:
    """The chain's replay: logs (not saves) of one module."""
    replay = Replay.open(files, module=module, board_sizes=board_sizes)
    games = replay.games
    for k, game in enumerate(games):
        if not game.is_log:
            raise VmodError("this is a save, not a log: merge takes the logs of one game", file=files[k])
    first_module = _module_name(games[0].entries, files[0])
    for k, game in enumerate(games[1:], 1):
        name = _module_name(game.entries, files[k])
        if first_module and name and name != first_module:
            raise VmodError(f"a log of module {name!r}, but {Path(files[0]).name} is of {first_module!r}: "
                            "not a log of this game", file=files[k])
    return replay


def _checked_chain(replay: Replay, files: list[str], force: bool) -> tuple[list[Step], list[str]]:
    """Replay the chain once (its steps) and check it (check-game's
    ``chain`` section): logs out of order or missing stop the merge unless
    ``force``; their messages."""
    from vmodtool.checkgame import check_game
    from vmodtool.checkgame.recorder import GameRecorder

    (record,) = replay.run(GameRecorder([Path(f) for f in files], replay, replay.positions.module))
    chain = check_game(record, ["chain"]).sections[0]
    stopping = [f for f in chain.findings if f.kind in STOPPING]
    if stopping and not force:
        raise VmodError(f"{stopping[0].message} (merge them in the order that fits, or give --force)",
                        file=stopping[0].log or files[0])
    return record.steps, [f.message for f in stopping]


def _edit_targets(edits: Sequence[Edit], files: list[str], per_file: list[int]
                  ) -> tuple[set[tuple[int, int]], dict[tuple[int, int], list[str]]]:
    """The steps to delete and the notes before steps, by (log, file step)."""
    deletes: set[tuple[int, int]] = set()
    notes_at: dict[tuple[int, int], list[str]] = {}
    for edit in edits:
        where = edit.place or f"edit {edit.address.label()}"
        try:
            k, n = edit.address.resolve(files, per_file)
        except VmodError as exc:
            raise exc.located(file=edit.file, place=where) from None
        if edit.action == "delete":
            if n == 0:
                raise VmodError("step 0 is the start, not a step to delete", file=edit.file, place=where)
            deletes.add((k, n))
        else:
            notes_at.setdefault((k, n), []).append(edit.text)
    return deletes, notes_at


def _undone_pairs(chain_steps: Sequence[Step]) -> set[int]:
    """The chain steps that are undos, and the steps they undid."""
    pairs: set[int] = set()
    for undo in chain_steps:
        if undo.undo and undo.undoes is not None:
            pairs.add(undo.number)
            pairs.add(undo.undoes)
    return pairs


def _chain_end(replay: Replay, plans: dict[str, Any]) -> ReplayEngine:
    """The state the chain ends in: the last log's saved state and its
    steps, applied again through the replay's public API."""
    k = len(replay.games) - 1
    engine = replay.restore(k, plans)
    history: list[Step] = []
    for file_step, (index, node) in enumerate(replay.games[k].log_steps(), 1):
        history.append(replay.apply_step(engine, node, file_step, history, index=index))
    return engine


class _MergedLog:
    """The merged log as it is written, replayed while it is written: each
    transition is made against the merged state itself (dropped steps that
    did not cancel exactly are set right there, in the open)."""

    def __init__(self, replay: Replay, files: list[str], options: MergeOptions,
                 restore_nodes: Sequence[Sequence[Node]], deletes: set[tuple[int, int]],
                 notes_at: dict[tuple[int, int], list[str]]) -> None:
        self.replay = replay
        self.games = replay.games
        self.files = files
        self.options = options
        self.restore_nodes = restore_nodes
        self.deletes = deletes
        self.notes_at = notes_at
        self.undone_pairs: set[int] = set()
        self.steps: list[MergedStep] = []
        self.texts: list[str] = []
        self.merged = Replay(self.games, replay.positions, files, properties=replay.properties,
                             hands=list(replay.hands.values()))
        #: AddPiece texts parsed once (each log's saved state repeats most)
        self.plans: dict[str, Any] = {}
        self.engine = self.merged.restore(0, self.plans)
        self.history: list[Step] = []
        self.roster_seen: set[tuple[str, str, str | None]] = {
            (c.player_id, c.name, c.side) for c in restore_leaves(restore_nodes[0]) if isinstance(c, PlayerAdd)}
        self.transition_diffs: dict[int, list[ChainDifference]] = {}
        self.dropped: dict[str, int] = {"undone": 0, "undo": 0, "chat": 0, "dice": 0, "deleted": 0,
                                        "dice_kept": 0}
        self.deleted_with_state = 0

    def add(self, kind: str, text: str, file: str | None, file_step: int | None = None,
            number: int | None = None, note: str = "", node: Node | None = None) -> None:
        self.texts.append(text)
        self.steps.append(MergedStep(kind, file, file_step, number, note))
        n = len(self.texts)
        self.history.append(self.merged.apply_step(self.engine, node if node is not None else parse_commands(text),
                                                   n, self.history))

    def transition(self, k: int, target: ReplayEngine, label: str) -> None:
        files, engine = self.files, self.engine
        diffs = compare_states(engine.state, target.state, engine.place_of, target.place_of, ReplayEngine.ref,
                               files[k - 1], files[k] if k < len(files) else None)
        self.transition_diffs[k] = diffs
        leaves = restore_leaves(self.restore_nodes[k]) if k < len(files) else []
        commands = transition_commands(engine, target, diffs, leaves, self.roster_seen)
        self.add("transition", log_step(["CHAT" + transition_line(label, diffs)] + commands),
                 files[min(k, len(files) - 1)])

    def write_log(self, k: int, steps: list[Step]) -> None:
        """Log ``k``: its transition (after the first), notes, its steps."""
        files = self.files
        name = Path(files[k]).name
        if k > 0:
            self.transition(k, self.merged.restore(k, self.plans),
                            f"{Path(files[k - 1]).name} → {name}: between the logs (the state {name} starts from)")
        self._notes(k, 0)
        for file_step, (_, node) in enumerate(self.games[k].log_steps(), 1):
            s: Step | None = steps[file_step - 1] if file_step - 1 < len(steps) else None
            self._notes(k, file_step)
            if s is None:
                self.add("step", node.encode(), files[k], file_step, node=node)
            else:
                self._write_step(k, file_step, node, s)

    def _notes(self, k: int, file_step: int) -> None:
        for text in self.notes_at.get((k, file_step), []):
            self.add("note", chat_step(note_text(text)), self.files[k], file_step, None, text)

    def _write_step(self, k: int, file_step: int, node: Node, s: Step) -> None:
        """A step of the chain, unless deleted or dropped as undone; without
        the chat lines ``drop_chat`` matches."""
        options = self.options
        drop_kind = None
        if (k, file_step) in self.deletes:
            drop_kind = "deleted"
            if not s.only_talk:
                self.deleted_with_state += 1
        elif s.number in self.undone_pairs:
            drop_kind = "undo" if s.undo else "undone"
        if drop_kind is not None:
            self._drop(k, file_step, s, drop_kind)
            return
        if options.drop_chat is not None:
            found = {"chat": 0, "dice": 0}
            kept = _without_chat(node, options.drop_chat, _dice_lines(s), options.keep_dice, found)
            self.dropped["chat"] += found["chat"]
            self.dropped["dice"] += found["dice"]
            if kept is None:
                return
            node = kept
        self.add("step", node.encode(), self.files[k], file_step, s.number, node=node)

    def _drop(self, k: int, file_step: int, s: Step, drop_kind: str) -> None:
        """A step left out: counted, its dice reports counted (or kept as a
        chat step with ``keep_dice``)."""
        self.dropped[drop_kind] += 1
        if s.rolled:
            lines = sorted(_dice_lines(s))
            if self.options.keep_dice and lines:
                self.dropped["dice_kept"] += len(lines)
                self.add("step", log_step(["CHAT" + m for m in lines]), self.files[k], file_step, s.number)
            else:
                self.dropped["dice"] += max(1, len(lines))

    def summary(self, chain_steps: int, findings: list[str], end_fix: list[ChainDifference]) -> list[str]:
        files, options, dropped, out_steps = self.files, self.options, self.dropped, self.steps
        lines = [f"{len(files)} log(s), {chain_steps} steps → {sum(1 for s in out_steps if s.kind == 'step')} "
                 f"steps, {sum(1 for s in out_steps if s.kind == 'transition')} transition step(s), "
                 f"{sum(1 for s in out_steps if s.kind == 'note')} note(s)"]
        for k in range(1, len(files)):
            lines.append(f"  {Path(files[k - 1]).name} → {Path(files[k]).name}: "
                         f"{counts(self.transition_diffs.get(k, []))}")
        if end_fix:
            lines.append(f"  end of {Path(files[-1]).name}: {counts(end_fix)} set right by a last "
                         "transition step (dropped steps did not cancel exactly)")
        if findings:
            lines.append("chain: " + "; ".join(findings) + " (merged anyway: --force)")
        if options.drop_undone:
            lines.append(f"dropped {dropped['undone']} undone step(s) and {dropped['undo']} undo(s)")
        if options.drop_chat is not None:
            lines.append(f"dropped {dropped['chat']} chat line(s) matching {options.drop_chat.pattern!r}")
        return lines + self._dropped_lines()

    def _dropped_lines(self) -> list[str]:
        dropped = self.dropped
        lines = []
        if dropped["deleted"]:
            lines.append(f"deleted {dropped['deleted']} step(s) by the edit list"
                         + (f"; {self.deleted_with_state} of them changed the game: the next transition "
                            "step sets the state right" if self.deleted_with_state else ""))
        if dropped["dice"]:
            lines.append(f"DICE DROPPED: {dropped['dice']} dice report(s) are not in the merged log "
                         "(--keep-dice keeps them)")
        if dropped["dice_kept"]:
            lines.append(f"kept {dropped['dice_kept']} dice report(s) of dropped steps as chat lines")
        return lines
