"""A chain of logs as one log (``vmodtool merge``): the first log's saved
state, then every step of every log in order, and at each boundary one
labelled *transition* step that makes the state equal to the saved state
the next log starts from (``docs/vassal-format.md`` §4.4, §4.7).

A transition step is a chat line ``* [merge] …`` followed by the commands
VASSAL itself executes when it loads a save: every piece the next log
starts differently (moved, restacked, changed, added) is removed and added
again from that log's own ``+/`` text, removed pieces are removed, the
stacks and decks they stand in are set to their saved states (``D/`` when
the stack exists, its ``+/`` when not), new roster entries, global
properties and turn trackers are the next log's restore commands.  So the
final state of the merged log is the last log's end, and nothing done
between two logs is lost without a trace.

Editing on the way (:class:`MergeOptions`): undone steps and their undos
dropped, chat lines dropped by a pattern, steps deleted or annotated by an
edit list, notes inserted as chat lines ``[note] …``.  A dice report is
never dropped silently: every one dropped is counted in the summary, and
``keep_dice`` keeps them (a dropped step's dice lines stay as a chat step).

The chain's own check (:mod:`vmodtool.checkgame.chain`) runs on the
same replay first: logs out of order or missing stop the merge unless
forced.
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

from vmodtool.errors import FormatError, VmodError
from vmodtool.replay.chain import ChainDifference, compare_states
from vmodtool.replay.engine import Engine
from vmodtool.replay.events import DiceEvent
from vmodtool.replay.game import Replay, Step
from vmodtool.replay.state import Deck, Piece, Stack
from vmodtool.vassal.commands import (
    ESC,
    AddPiece,
    ChangePiece,
    Chat,
    Command,
    CommandGroup,
    EndSave,
    GlobalPropertySet,
    LogEntry,
    Node,
    PlayerAdd,
    RemovePiece,
    TurnState,
    leaf_commands,
    parse_commands,
)
from vmodtool.vassal.sequence import decode_sequence, encode_sequence

__all__ = ["MergeOptions", "StepAddress", "Edit", "MergedStep", "MergeResult", "merge_logs",
           "read_edits", "read_notes", "final_save_text", "MERGE_MARK", "NOTE_MARK"]

PathLike = Union[str, "os.PathLike[str]"]

#: the chat line of a transition step starts so
MERGE_MARK = "* [merge] "
#: a note's chat line starts so
NOTE_MARK = "[note] "
#: the chain findings that stop a merge unless forced
STOPPING = ("logs_out_of_order", "missing_log")
_MAX_EDITS = 100_000


@dataclass(frozen=True)
class StepAddress:
    """A step: ``step`` over the whole chain (``log`` None) or ``step`` of
    one log (``log`` its 1-based index or its file name); step 0 is the
    start (before the first step)."""

    step: int
    log: int | str | None = None

    @classmethod
    def parse(cls, text: str, *, file: str | None = None, place: str | None = None) -> StepAddress:
        text = text.strip()
        log: int | str | None = None
        head, sep, tail = text.rpartition(":")
        if sep:
            log = int(head) if head.strip().isdigit() else head.strip()
            text = tail.strip()
            if log == "":
                raise FormatError(f"a step address {text!r} with an empty log part", file=file, place=place)
        if not text.isdigit():
            raise FormatError(f"not a step address (N or LOG:N): {text!r}", file=file, place=place)
        return cls(int(text), log)

    def label(self) -> str:
        return f"{self.log}:{self.step}" if self.log is not None else str(self.step)


@dataclass(frozen=True)
class Edit:
    """One entry of an edit list: ``delete`` the step or ``annotate`` it
    with ``text`` (a note before it)."""

    address: StepAddress
    action: str
    text: str = ""


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
    """The merged command text and what was done."""

    text: str
    steps: list[MergedStep]
    summary: list[str]
    #: the chain's replay (its steps) and its last engine (the final state)
    replay: Replay
    chain_steps: list[Step]
    chain_findings: list[str]
    dropped_dice: int = 0

    @property
    def final_engine(self) -> Engine:
        assert self.replay.engine is not None
        return self.replay.engine


# --------------------------------------------------------------------------------------
# edit lists and notes

def read_edits(path: PathLike) -> list[Edit]:
    """An edit list (YAML or JSON): a list of ``{step: N | "LOG:N",
    delete: true}`` or ``{step: …, note: text}`` entries."""
    file = os.fspath(path)
    data = _load_yaml(path, file)
    if isinstance(data, dict) and "edits" in data:
        data = data["edits"]
    if not isinstance(data, list):
        raise FormatError("an edit list is a list of entries ({step: N, delete: true} or "
                          "{step: N, note: text})", file=file)
    if len(data) > _MAX_EDITS:
        raise FormatError(f"more than {_MAX_EDITS} edits", file=file)
    out = []
    for i, entry in enumerate(data, 1):
        place = f"entry {i}"
        if not isinstance(entry, dict) or "step" not in entry:
            raise FormatError("an entry needs 'step' and 'delete: true' or 'note: text'", file=file, place=place)
        address = StepAddress.parse(str(entry["step"]), file=file, place=place)
        unknown = set(entry) - {"step", "delete", "note"}
        if unknown:
            raise FormatError(f"unknown key(s) {', '.join(sorted(map(str, unknown)))} (step, delete, note)",
                              file=file, place=place)
        if entry.get("delete") is True:
            out.append(Edit(address, "delete"))
        if "note" in entry:
            if not isinstance(entry["note"], str) or not entry["note"].strip():
                raise FormatError("'note' must be a text", file=file, place=place)
            out.append(Edit(address, "annotate", entry["note"].strip()))
        if entry.get("delete") is not True and "note" not in entry:
            raise FormatError("an entry needs 'delete: true' or 'note: text'", file=file, place=place)
    return out


def _read_text(path: PathLike, file: str, what: str) -> str:
    limit = 16 * 1024 * 1024
    try:
        with open(path, "rb") as fh:
            raw = fh.read(limit + 1)
    except OSError as exc:
        raise VmodError(f"cannot read the {what}: {exc.strerror}", file=file) from None
    if len(raw) > limit:
        raise FormatError(f"the {what} is larger than 16 MiB", file=file)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FormatError(f"not UTF-8 text ({exc.reason})", file=file, place=f"byte {exc.start}") from None


def _edit_loader() -> type:
    """``yaml.SafeLoader`` without YAML 1.1's base-60 numbers: ``step: 2:5``
    is log 2, step 5 (the text ``"2:5"``), never the number 125."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if tag not in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
    Loader.add_implicit_resolver("tag:yaml.org,2002:int", re.compile(r"^[-+]?[0-9]+$"), list("-+0123456789"))
    return Loader


def _load_yaml(path: PathLike, file: str) -> object:
    import yaml
    text = _read_text(path, file, "edit list")
    try:
        return yaml.load(text, Loader=_edit_loader())  # noqa: S506 - a SafeLoader with fewer resolvers
    except RecursionError:
        raise FormatError("not an edit list: nested too deep", file=file) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        place = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else None
        problem = getattr(exc, "problem", None) or "not YAML or JSON"
        raise FormatError(f"not a YAML/JSON edit list: {problem}", file=file, place=place) from None


_NOTE_LINE = re.compile(r"^\s*((?:[^:\s][^:]*:)?\s*\d+)\s*:\s?(.*)$")


def read_notes(path: PathLike) -> list[Edit]:
    """A notes file: one note a line, ``STEP: text`` or ``LOG:STEP: text``
    (``#`` starts a comment line; blank lines are skipped)."""
    file = os.fspath(path)
    text = _read_text(path, file, "notes file")
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = _NOTE_LINE.match(line)
        if m is None or not m.group(2).strip():
            raise FormatError("expected 'STEP: text' or 'LOG:STEP: text'", file=file, place=f"line {n}")
        out.append(Edit(StepAddress.parse(m.group(1), file=file, place=f"line {n}"), "annotate",
                        m.group(2).strip()))
    return out


# --------------------------------------------------------------------------------------
# the transition between two logs

def _restore_leaves(game_nodes: Sequence[Node]) -> list[Command]:
    return [cmd for node in game_nodes for cmd in leaf_commands(node)]


def _container_type(obj: Stack) -> str:
    return obj.type if isinstance(obj, Deck) else "stack"


def transition_commands(before: Engine, after: Engine, diffs: Sequence[ChainDifference],
                        restore: Sequence[Command], roster_seen: set[tuple[str, str, str | None]]
                        ) -> list[str]:
    """The commands that turn ``before`` (a log's end) into ``after`` (the
    next log's saved state, whose restore leaves are ``restore``)."""
    adds: dict[str, AddPiece] = {}
    properties: dict[tuple[str | None, str], str] = {}
    turns: dict[str, str] = {}
    players: list[PlayerAdd] = []
    for cmd in restore:
        if isinstance(cmd, AddPiece):
            text = cmd.text
            end = text.find("/", 2)
            if end > 2 and "\\" not in text[2:end]:       # the id, without decoding the fields
                adds[text[2:end]] = cmd
            elif cmd.piece_id:
                adds[cmd.piece_id] = cmd
        elif isinstance(cmd, GlobalPropertySet):
            properties[(cmd.container, cmd.name)] = cmd.text
        elif isinstance(cmd, TurnState):
            turns[cmd.tracker_id] = cmd.text
        elif isinstance(cmd, PlayerAdd):
            players.append(cmd)
    old, new = before.state.pieces, after.state.pieces
    removed: dict[str, None] = {}
    touched: dict[str, None] = {}
    for d in diffs:
        pid = d.piece.id if d.piece is not None else None
        if not pid:
            continue
        if d.kind == "removed":
            removed[pid] = None
        elif d.kind in ("moved", "restacked", "changed", "added"):
            touched[pid] = None
    out: list[str] = []
    gone = set(removed)
    for pid in list(removed) + [p for p in touched if p in old]:
        if isinstance(old.get(pid), Piece):
            out.append(RemovePiece.build(pid).text)
            gone.add(pid)
    for pid in touched:
        piece = new.get(pid)
        if isinstance(piece, Piece):
            add = adds.get(pid)
            out.append(add.text if add is not None else AddPiece.build(pid, piece.type, piece.state_string()).text)
    # every stack and deck as the next log saved it: VASSAL may have given
    # a stack another id, and the next log's steps name the new one
    for sid, obj in new.items():
        if not isinstance(obj, Stack) or sid.startswith("replay-") or not (obj.members or isinstance(obj, Deck)):
            continue
        was = old.get(sid)
        if isinstance(was, Stack) and _same_container(was, obj) and not any(m.id in gone for m in obj.members):
            continue
        add = adds.get(sid)
        if isinstance(was, Stack):
            out.append(ChangePiece.build(sid, add.state if add is not None else obj.state_string()).text)
        else:
            out.append(add.text if add is not None else
                       AddPiece.build(sid, _container_type(obj), obj.state_string()).text)
    # the stacks of the previous log that are gone (empty by now)
    for sid, obj in old.items():
        if type(obj) is Stack and obj.members and sid not in new and not sid.startswith("replay-"):
            out.append(RemovePiece.build(sid).text)
    for cmd in players:
        seen = (cmd.player_id, cmd.name, cmd.side)
        if seen not in roster_seen:
            roster_seen.add(seen)
            out.append(cmd.text)
    for key, value in after.state.global_properties.items():
        if before.state.global_properties.get(key) != value:
            container, name = key
            out.append(properties.get(key) or encode_sequence(
                ["MutableProperty", name, before.state.global_properties.get(key) or "", value,
                 container or "Module"], "\t") or "")
    for tracker, value in after.state.turns.items():
        if before.state.turns.get(tracker) != value:
            out.append(turns.get(tracker) or f"TURN{tracker}\t{value}")
    return out


def _same_container(a: Stack, b: Stack) -> bool:
    """Whether two stacks (or decks) hold the same state: place, layer,
    member ids in order (what ``state_string`` writes, without writing it)."""
    if type(a) is not type(b) or a.x != b.x or a.y != b.y or a.layer != b.layer:
        return False
    if (a.map.name if a.map is not None else None) != (b.map.name if b.map is not None else None):
        return False
    ma, mb = a.members, b.members
    if len(ma) != len(mb) or any(x.id != y.id for x, y in zip(ma, mb, strict=True)):
        return False
    return not isinstance(a, Deck) or a.state_string() == b.state_string()


def _counts(diffs: Sequence[ChainDifference]) -> str:
    order = ("moved", "added", "removed", "changed", "restacked", "property", "turn")
    counts = {k: sum(1 for d in diffs if d.kind == k) for k in order}
    parts = [f"{n} {k}" for k, n in counts.items() if n]
    return ", ".join(parts) if parts else "no difference"


def _log_step(commands: Sequence[str]) -> str:
    entries = ["LOG\t" + c for c in commands]
    return entries[0] if len(entries) == 1 else encode_sequence(entries, ESC) or ""


def _chat_step(message: str) -> str:
    return _log_step(["CHAT" + message])


def _note_text(text: str) -> str:
    return NOTE_MARK + html.escape(" ".join(text.split()), quote=False)


# --------------------------------------------------------------------------------------
# editing one step

def _dice_lines(step: Step) -> set[str]:
    return {e.message for e in step.events if isinstance(e, DiceEvent) and e.message}


def _has_dice(step: Step) -> bool:
    return any(isinstance(e, DiceEvent) for e in step.events)


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


def _resolve(address: StepAddress, files: Sequence[str], per_file: list[int], where: str) -> tuple[int, int]:
    """(log index, file step) of an address (file step 0: before the first)."""
    if address.log is None:
        total = 0
        for k, n in enumerate(per_file):
            if address.step <= total + n:
                return k, address.step - total
            total += n
        raise VmodError(f"{where}: step {address.step} is beyond the chain's {total} steps")
    if isinstance(address.log, int):
        k = address.log - 1
        if not 0 <= k < len(files):
            raise VmodError(f"{where}: log {address.log} is not one of the {len(files)} logs")
    else:
        matches = [i for i, f in enumerate(files) if Path(f).name == address.log or Path(f).stem == address.log]
        if len(matches) != 1:
            raise VmodError(f"{where}: {'no' if not matches else 'more than one'} log named {address.log!r}")
        k = matches[0]
    if address.step > per_file[k]:
        raise VmodError(f"{where}: {Path(files[k]).name} has {per_file[k]} steps, not {address.step}")
    return k, address.step


def merge_logs(paths: Sequence[PathLike], options: MergeOptions | None = None, *,
               notes: Sequence[Edit] = (), module: Any = None,
               board_sizes: dict[str, tuple[int, int]] | None = None) -> MergeResult:
    """Merge the logs of one game (in the order given) into one log's
    command text; ``VmodError`` for a log that cannot be read, a log of
    another module, or (unless ``options.force``) logs out of order or
    missing."""
    from vmodtool.checkgame import check_game
    from vmodtool.checkgame.chain import Capture
    from vmodtool.checkgame.model import GameRecord

    options = options or MergeOptions()
    if not paths:
        raise VmodError("no logs to merge")
    files = [os.fspath(p) for p in paths]
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

    capture = Capture()
    restore_nodes = [g.restore_part() for g in games]
    head = [n.encode() for n in restore_nodes[0]]
    if not any(isinstance(c, EndSave) for c in _restore_leaves(restore_nodes[0])):
        raise VmodError("the first log has no saved state (begin_save … end_save) to start from",
                        file=files[0])
    chain_steps = list(replay.steps(on_restore=capture.on_restore))
    capture.finish(replay.engine)
    record = GameRecord([Path(f) for f in files], replay, chain_steps, replay.positions.module,
                        capture.starts, capture.ends, capture.ghosts)
    chain = check_game(record, ["chain"]).sections[0]
    stopping = [f for f in chain.findings if f.kind in STOPPING]
    findings = [f.message for f in stopping]
    if stopping and not options.force:
        raise VmodError(f"{stopping[0].message} (merge them in the order that fits, or give --force)",
                        file=stopping[0].log or files[0])

    # the steps by (log, file step)
    per_file = [len(g.log_steps()) for g in games]
    by_file: list[list[Step]] = []
    start = 0
    for n in per_file:                   # the replay yields each log's steps in turn
        by_file.append(chain_steps[start:start + n])
        start += n
    deletes: set[tuple[int, int]] = set()
    notes_at: dict[tuple[int, int], list[str]] = {}
    for edit in list(options.edits) + list(notes):
        where = f"edit {edit.address.label()}"
        k, n = _resolve(edit.address, files, per_file, where)
        if edit.action == "delete":
            if n == 0:
                raise VmodError(f"{where}: step 0 is the start, not a step to delete")
            deletes.add((k, n))
        else:
            notes_at.setdefault((k, n), []).append(edit.text)

    dropped: dict[str, int] = {"undone": 0, "undo": 0, "chat": 0, "dice": 0, "deleted": 0, "dice_kept": 0}
    undone_pairs: set[int] = set()
    if options.drop_undone:
        for undo in chain_steps:
            if undo.undo and undo.undoes is not None:
                undone_pairs.add(undo.number)
                undone_pairs.add(undo.undoes)

    out_steps: list[MergedStep] = []
    texts: list[str] = []
    # the merged log replayed while it is written: each transition is made
    # against the merged state itself (dropped steps that did not cancel
    # exactly are set right there, in the open)
    merged = Replay(games, replay.positions, files, properties=replay.properties,
                    hands=list(replay.hands.values()))
    plans: dict[str, Any] = {}          # AddPiece texts parsed once (each log's saved state repeats most)
    engine = merged.restore(0, plans)
    history: list[Step] = []
    roster_seen: set[tuple[str, str, str | None]] = {
        (c.player_id, c.name, c.side) for c in _restore_leaves(restore_nodes[0]) if isinstance(c, PlayerAdd)}
    transition_diffs: dict[int, list[ChainDifference]] = {}

    def add(kind: str, text: str, file: str | None, file_step: int | None = None,
            number: int | None = None, note: str = "", node: Node | None = None) -> None:
        texts.append(text)
        out_steps.append(MergedStep(kind, file, file_step, number, note))
        n = len(texts)
        history.append(merged.apply_step(engine, node if node is not None else parse_commands(text), n, history))

    def transition(k: int, target: Engine, label: str) -> None:
        diffs = compare_states(engine.state, target.state, engine.place_of, target.place_of, Engine.ref,
                               files[k - 1], files[k] if k < len(files) else None)
        transition_diffs[k] = diffs
        leaves = _restore_leaves(restore_nodes[k]) if k < len(files) else []
        commands = transition_commands(engine, target, diffs, leaves, roster_seen)
        line = f"{MERGE_MARK}{html.escape(label, quote=False)}: {_counts(diffs)} *"
        add("transition", _log_step(["CHAT" + line] + commands), files[min(k, len(files) - 1)])

    deleted_with_state = 0
    for k, game in enumerate(games):
        name = Path(files[k]).name
        if k > 0:
            transition(k, merged.restore(k, plans),
                       f"{Path(files[k - 1]).name} → {name}: between the logs (the state {name} starts from)")
        for text in notes_at.get((k, 0), []):
            add("note", _chat_step(_note_text(text)), files[k], 0, None, text)
        steps = by_file[k]
        for file_step, (_, node) in enumerate(game.log_steps(), 1):
            s: Step | None = steps[file_step - 1] if file_step - 1 < len(steps) else None
            for text in notes_at.get((k, file_step), []):
                add("note", _chat_step(_note_text(text)), files[k], file_step, None, text)
            if s is None:
                add("step", node.encode(), files[k], file_step, node=node)
                continue
            drop_kind = None
            if (k, file_step) in deletes:
                drop_kind = "deleted"
                if any(e.kind not in ("chat", "dice") for e in s.events):
                    deleted_with_state += 1
            elif s.number in undone_pairs:
                drop_kind = "undo" if s.undo else "undone"
            if drop_kind is not None:
                dropped[drop_kind] += 1
                if _has_dice(s):
                    lines = sorted(_dice_lines(s))
                    if options.keep_dice and lines:
                        dropped["dice_kept"] += len(lines)
                        add("step", _log_step(["CHAT" + m for m in lines]), files[k], file_step, s.number)
                    else:
                        dropped["dice"] += max(1, len(lines))
                continue
            if options.drop_chat is not None:
                counts = {"chat": 0, "dice": 0}
                kept = _without_chat(node, options.drop_chat, _dice_lines(s), options.keep_dice, counts)
                dropped["chat"] += counts["chat"]
                dropped["dice"] += counts["dice"]
                if kept is None:
                    continue
                node = kept
            add("step", node.encode(), files[k], file_step, s.number, node=node)
    final = replay.engine
    assert final is not None
    end_fix = compare_states(engine.state, final.state, engine.place_of, final.place_of, Engine.ref,
                             files[-1], None)
    if end_fix:
        transition(len(files), final, f"end of {Path(files[-1]).name}: the state the logs end in "
                                      "(dropped steps did not cancel exactly)")
    text = encode_sequence(head + texts, ESC) or ""

    summary = [f"{len(files)} log(s), {len(chain_steps)} steps → {sum(1 for s in out_steps if s.kind == 'step')} "
               f"steps, {sum(1 for s in out_steps if s.kind == 'transition')} transition step(s), "
               f"{sum(1 for s in out_steps if s.kind == 'note')} note(s)"]
    for k in range(1, len(files)):
        summary.append(f"  {Path(files[k - 1]).name} → {Path(files[k]).name}: "
                       f"{_counts(transition_diffs.get(k, []))}")
    if end_fix:
        summary.append(f"  end of {Path(files[-1]).name}: {_counts(end_fix)} set right by a last "
                       "transition step (dropped steps did not cancel exactly)")
    if findings:
        summary.append("chain: " + "; ".join(findings) + " (merged anyway: --force)")
    if options.drop_undone:
        summary.append(f"dropped {dropped['undone']} undone step(s) and {dropped['undo']} undo(s)")
    if options.drop_chat is not None:
        summary.append(f"dropped {dropped['chat']} chat line(s) matching {options.drop_chat.pattern!r}")
    if dropped["deleted"]:
        summary.append(f"deleted {dropped['deleted']} step(s) by the edit list"
                       + (f"; {deleted_with_state} of them changed the game: the next transition "
                          "step sets the state right" if deleted_with_state else ""))
    if dropped["dice"]:
        summary.append(f"DICE DROPPED: {dropped['dice']} dice report(s) are not in the merged log "
                       "(--keep-dice keeps them)")
    if dropped["dice_kept"]:
        summary.append(f"kept {dropped['dice_kept']} dice report(s) of dropped steps as chat lines")
    return MergeResult(text, out_steps, summary, replay, chain_steps, findings, dropped["dice"])


# --------------------------------------------------------------------------------------
# the final position as a save

def final_save_text(engine: Engine, template: Sequence[Node]) -> str:
    """A save's command text (§4.4) holding ``engine``'s state: the
    template's restore part (the last log's) with every piece, stack and
    deck as they stand, the global properties and turn trackers at their
    values, and every roster entry."""
    pieces: list[str] = [""]
    containers: list[str] = []
    for pid, obj in engine.state.pieces.items():
        if isinstance(obj, Deck):
            containers.append(AddPiece.build(pid, obj.type, obj.state_string()).text)
        elif isinstance(obj, Stack):
            if obj.members:
                containers.append(AddPiece.build(pid, "stack", obj.state_string()).text)
        else:
            pieces.append(AddPiece.build(pid, obj.type, _piece_state(obj)).text)
    pieces_text = encode_sequence(pieces + containers, ESC) or ""
    props = engine.state.global_properties
    turns = engine.state.turns
    # a restore part written as one nested group (GameWriter's, §4.7): its children
    while len(template) == 1 and isinstance(template[0], CommandGroup) and template[0].children:
        template = template[0].children
    top: list[str] = []
    placed = False
    roster_done: set[str] = set()
    for node in template:
        leaves = leaf_commands(node)
        if any(isinstance(c, AddPiece) for c in leaves):
            if not placed:
                top.append(pieces_text)
                placed = True
            continue
        if isinstance(node, EndSave):
            if not placed:
                top.insert(min(2, len(top)), pieces_text)
                placed = True
            for pid, (name, side) in _roster(engine).items():
                if pid not in roster_done:
                    top.append(encode_sequence(["PLAYER", pid, name, side or "<observer>"], "\t") or "")
            top.append(node.encode())
            continue
        if isinstance(node, GlobalPropertySet) and (node.container, node.name) in props:
            top.append(encode_sequence(["GlobalProperty\t", node.name, props[(node.container, node.name)],
                                        node.container or ""], ";") or "")
            continue
        if isinstance(node, TurnState) and node.tracker_id in turns:
            top.append(f"TURN{node.tracker_id}\t{turns[node.tracker_id]}")
            continue
        if isinstance(node, PlayerAdd):
            roster_done.add(node.player_id)
        top.append(node.encode())
    return encode_sequence(top, ESC) or ""


def _piece_state(p: Piece) -> str:
    """The piece's whole state as its own VASSAL wrote it: the BasicPiece
    token keeps its format (VASSAL 2.x/3.2 ``map;x;y;gpid`` without a
    property count, §4.11), with the map and the position where the piece
    stands now."""
    toks = decode_sequence(p.basic, ";")
    while len(toks) < 3:
        toks.append("")
    m = p.current_map
    x, y = p.position
    toks[0:3] = [m.name if m is not None else "null", str(x), str(y)]
    text = encode_sequence(toks, ";") or ""
    for token in reversed(p.levels):
        text = encode_sequence([token, text], "\t") or ""
    return text


def _roster(engine: Engine) -> dict[str, tuple[str, str | None]]:
    return {pid: (entry[0], entry[1]) for pid, entry in engine.roster.players.items()}
