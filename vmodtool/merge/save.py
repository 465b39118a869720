"""The final position of a merged chain as a save's command text
(``vmodtool merge --save``, ``docs/vassal-format.md`` §4.4)."""

from __future__ import annotations

from collections.abc import Sequence

from vmodtool.replay.engine import ReplayEngine
from vmodtool.replay.state import Deck, Piece, Stack
from vmodtool.vassal.commands import (
    ESC,
    AddPiece,
    CommandGroup,
    EndSave,
    GlobalPropertySet,
    Node,
    PlayerAdd,
    TurnState,
    leaf_commands,
)
from vmodtool.vassal.sequence import decode_sequence, encode_sequence

__all__ = ["final_save_text"]


def final_save_text(engine: ReplayEngine, template: Sequence[Node]) -> str:
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


def _roster(engine: ReplayEngine) -> dict[str, tuple[str, str | None]]:
    return {pid: (entry[0], entry[1]) for pid, entry in engine.roster.players.items()}
