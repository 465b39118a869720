"""The transition step between two logs of a merged chain: the commands
VASSAL itself executes when it loads the next log's save, limited to what
differs between the state the merged log is in and that saved state
(``docs/vassal-format.md`` §4.4, §4.7).

Every piece the next log starts differently (moved, restacked, changed,
added) is removed and added again from that log's own ``+/`` text, removed
pieces are removed, the stacks and decks they stand in are set to their
saved states (``D/`` when the stack exists, its ``+/`` when not); new
roster entries, global properties and turn trackers are the next log's
restore commands."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from vmodtool.replay.chain import ChainDifference
from vmodtool.replay.engine import ReplayEngine
from vmodtool.replay.state import Deck, GameObject, GameState, Piece, Stack
from vmodtool.step_notes import NOTE_MARK
from vmodtool.vassal.commands import (
    ESC,
    AddPiece,
    ChangePiece,
    Command,
    GlobalPropertySet,
    Node,
    PlayerAdd,
    RemovePiece,
    TurnState,
    leaf_commands,
)
from vmodtool.vassal.sequence import encode_sequence

__all__ = ["transition_commands", "MERGE_MARK", "NOTE_MARK"]

#: the chat line of a transition step starts so
MERGE_MARK = "* [merge] "

#: who joined so far: (player id, name, side)
RosterSeen = set[tuple[str, str, "str | None"]]


class _Restore(NamedTuple):
    """A saved state's restore commands by what they set: AddPieces by
    id, global properties by (container, name), turn trackers by id (each
    its command text), roster entries in order."""

    adds: dict[str, AddPiece]
    properties: dict[tuple[str | None, str], str]
    turns: dict[str, str]
    players: list[PlayerAdd]


def restore_leaves(game_nodes: Sequence[Node]) -> list[Command]:
    """The leaf commands of a saved state's restore part."""
    return [cmd for node in game_nodes for cmd in leaf_commands(node)]


def _restore_by_kind(restore: Sequence[Command]) -> _Restore:
    found = _Restore({}, {}, {}, [])
    for cmd in restore:
        if isinstance(cmd, AddPiece):
            text = cmd.text
            end = text.find("/", 2)
            if end > 2 and "\\" not in text[2:end]:       # the id, without decoding the fields
                found.adds[text[2:end]] = cmd
            elif cmd.piece_id:
                found.adds[cmd.piece_id] = cmd
        elif isinstance(cmd, GlobalPropertySet):
            found.properties[(cmd.container, cmd.name)] = cmd.text
        elif isinstance(cmd, TurnState):
            found.turns[cmd.tracker_id] = cmd.text
        elif isinstance(cmd, PlayerAdd):
            found.players.append(cmd)
    return found


def transition_commands(before: ReplayEngine, after: ReplayEngine, diffs: Sequence[ChainDifference],
                        restore: Sequence[Command], roster_seen: RosterSeen) -> list[str]:
    """The commands that turn ``before`` (a log's end) into ``after`` (the
    next log's saved state, whose restore leaves are ``restore``)."""
    saved = _restore_by_kind(restore)
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
            add = saved.adds.get(pid)
            out.append(add.text if add is not None else AddPiece.build(pid, piece.type, piece.state_string()).text)
    out += _container_commands(old, new, gone, saved.adds)
    for cmd in saved.players:
        seen = (cmd.player_id, cmd.name, cmd.side)
        if seen not in roster_seen:
            roster_seen.add(seen)
            out.append(cmd.text)
    out += _value_commands(before.state, after.state, saved)
    return out


def _container_commands(old: Mapping[str, GameObject], new: Mapping[str, GameObject], gone: set[str],
                        adds: Mapping[str, AddPiece]) -> list[str]:
    """Every stack and deck as the next log saved it (VASSAL may have given
    a stack another id, and the next log's steps name the new one), and
    the stacks of the previous log that are gone (empty by now)."""
    out: list[str] = []
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
    for sid, obj in old.items():
        if type(obj) is Stack and obj.members and sid not in new and not sid.startswith("replay-"):
            out.append(RemovePiece.build(sid).text)
    return out


def _value_commands(before: GameState, after: GameState, saved: _Restore) -> list[str]:
    """The global properties and turn trackers that differ, as the next
    log's restore commands set them (made up when it has none)."""
    out: list[str] = []
    for key, value in after.global_properties.items():
        if before.global_properties.get(key) != value:
            container, name = key
            out.append(saved.properties.get(key) or encode_sequence(
                ["MutableProperty", name, before.global_properties.get(key) or "", value,
                 container or "Module"], "\t") or "")
    for tracker, value in after.turns.items():
        if before.turns.get(tracker) != value:
            out.append(saved.turns.get(tracker) or f"TURN{tracker}\t{value}")
    return out


def _container_type(obj: Stack) -> str:
    return obj.type if isinstance(obj, Deck) else "stack"


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


def counts(diffs: Sequence[ChainDifference]) -> str:
    """``3 moved, 1 added`` (or ``no difference``)."""
    order = ("moved", "added", "removed", "changed", "restacked", "property", "turn")
    found = {k: sum(1 for d in diffs if d.kind == k) for k in order}
    parts = [f"{n} {k}" for k, n in found.items() if n]
    return ", ".join(parts) if parts else "no difference"


def log_step(commands: Sequence[str]) -> str:
    """One step of a log: each command a ``LOG`` entry."""
    entries = ["LOG\t" + c for c in commands]
    return entries[0] if len(entries) == 1 else encode_sequence(entries, ESC) or ""


def chat_step(message: str) -> str:
    return log_step(["CHAT" + message])


def note_text(text: str) -> str:
    return NOTE_MARK + html.escape(" ".join(text.split()), quote=False)


def transition_line(label: str, diffs: Sequence[ChainDifference]) -> str:
    """The chat line a transition step starts with."""
    return f"{MERGE_MARK}{html.escape(label, quote=False)}: {counts(diffs)} *"
