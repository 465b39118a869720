"""Writing saves and logs of a module: the at-start state of a module's
SetupStacks, then logged steps (moves, flips, chat, dice, turn reports,
undo) encoded exactly the way VASSAL encodes them (``docs/vassal-format.md``
§4.4, §4.7, §4.8).

Used to make the example game logs and test logs of generated modules, and
by anyone who wants to script a save.  Every piece that enters the game is a
PieceSlot of the module (a SetupStack's at the start, a palette slot when
:meth:`GameWriter.add` drags one in), expanded as VASSAL's ``PieceCloner``
does (§3.6): every ``prototype;`` trait is replaced by the prototype's traits
with their states, ``cmt;`` traits are dropped, so the file needs no module
to be decoded.  Dice rolls are the module's DiceButtons' own reports and
property changes.

The archive holds what VASSAL's ``GameState.saveGame`` writes (§4.1):
``savedGame``, ``savedata`` (the module's version, the saving VASSAL's
version, the date, the optional comment) and ``moduledata`` — a byte copy of
the module's own ``moduledata``, or, for a module without one, the metadata
VASSAL makes from the module (``ModuleMetaData(GameModule)``).
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from vmodtool.errors import VmodError
from vmodtool.vassal.archive import build_zip
from vmodtool.vassal.buildfile import PieceSlotEntry
from vmodtool.vassal.commands import (
    AddPiece,
    BeginSave,
    ChangePiece,
    CommandGroup,
    MovePiece,
    Node,
    PlayerAdd,
    RemovePiece,
)
from vmodtool.vassal.decks import ObscuredState
from vmodtool.vassal.gamepieces import (
    ESC,
    GameDeck,
    GamePieces,
    GameStack,
    P,
    PlacedPiece,
    Player,
    expand_prototypes,
)
from vmodtool.vassal.metadata import MODULE_ENTRY, SAVE_ENTRY, ModuleMetadata, SaveMetadata, now_millis
from vmodtool.vassal.module import Module
from vmodtool.vassal.obfuscation import encode_saved_game
from vmodtool.vassal.pieces import PieceDef
from vmodtool.vassal.savefile import SavedGame
from vmodtool.vassal.sequence import encode_sequence
from vmodtool.vassal.traits import view_of

__all__ = ["expand_prototypes", "GameWriter", "Player", "PlacedPiece", "module_metadata",
           "DiceButtonSpec"]

@dataclass
class DiceButtonSpec:
    """What a ``DiceButton`` of the module does when pressed (the attributes
    ``DiceButton.DR`` reads; keeping dice is not modelled)."""

    name: str
    n_dice: int
    n_sides: int
    plus: int
    add_to_total: int
    report_total: bool
    sort_dice: bool
    report_format: str
    #: the container of its ``_result``/``_total``/``_keep``/``_summary``
    #: properties (``Module``, or the map name for a button on a map's toolbar)
    container: str

    @classmethod
    def from_element(cls, element: Any, container: str = "Module") -> DiceButtonSpec:
        def number(key: str, default: int) -> int:
            try:
                return int(element.get(key, str(default)).strip())
            except ValueError:
                return default
        return cls(name=element.get("name", ""), n_dice=number("nDice", 2), n_sides=number("nSides", 6),
                   plus=number("plus", 0), add_to_total=number("addToTotal", 0),
                   report_total=element.get("reportTotal", "false") == "true",
                   sort_dice=element.get("sortDice", "false") == "true",
                   report_format=element.get("reportFormat",
                                             "** $name$ = $result$ *** &lt;$PlayerName$&gt;"),
                   container=container)

    #: the properties a DiceButton adds to its container and their values
    #: before the first roll (``DiceButton.addTo``, VASSAL 3.7.26)
    def initial_values(self) -> dict[str, str]:
        return {f"{self.name}_result": "1", f"{self.name}_total": "0",
                f"{self.name}_keep": "0", f"{self.name}_summary": ""}


_FORMAT_VARIABLE = re.compile(r"\$([^$\s]+)\$")


def module_metadata(module: Module, *, vassal_version: str, date_saved: str) -> bytes:
    """The ``moduledata`` entry VASSAL puts into a save of ``module``
    (``AbstractMetaData.copyModuleMetadata``): the module's own entry byte
    for byte, or, when the module has none, ``ModuleMetaData(GameModule)``:
    name, version, description, ``ModuleOther1/2`` of the buildFile root and
    the saving VASSAL's version."""
    if module.moduledata is not None:
        return module.moduledata
    root = module.buildfile.root
    return ModuleMetadata(name=module.buildfile.name, version=module.buildfile.version,
                          vassal_version=vassal_version, date_saved=date_saved,
                          description=root.get("description", ""),
                          extra1=root.get("ModuleOther1", ""),
                          extra2=root.get("ModuleOther2", "")).to_bytes()


def _restore_with_roster(restore: Sequence[Node], players: Sequence[Player]) -> str:
    """A save's restore part (§4.4) as one ``begin_save … end_save``
    command, its roster entries replaced by ``players``."""
    roster = [encode_sequence(["PLAYER", p.password, p.name, p.side], "\t") or ""
              for p in players]
    entries: list[Node] = []
    for node in restore:            # a log's restore part is one nested begin_save … end_save
        nested = isinstance(node, CommandGroup) and bool(node.children) and \
            isinstance(node.children[0], BeginSave)
        entries.extend(node.children if isinstance(node, CommandGroup) and nested else (node,))
    kept: list[str] = []
    for node in entries:
        if isinstance(node, PlayerAdd):
            kept.extend(roster)
            roster = []
        else:
            kept.append(node.encode())
    if roster:                               # a save without a roster: before its end_save
        kept[-1:-1] = roster
    return encode_sequence(kept, ESC) or ""


@dataclass(frozen=True)
class _UndoMove:
    """Undo a move: the piece goes back to ``(map, x, y)``."""
    piece_id: str
    map: str | None
    x: int
    y: int


@dataclass(frozen=True)
class _UndoMoves:
    """Undo a drag of several pieces moved one by one."""
    moves: tuple[_UndoMove, ...]


@dataclass(frozen=True)
class _UndoStack:
    """Undo a drag of a whole stack."""
    stack_id: str
    map: str
    x: int
    y: int


@dataclass(frozen=True)
class _UndoChange:
    """Undo a trait change: the piece's state goes back to ``old_state``."""
    piece_id: str
    old_state: str


_Undoable = _UndoMove | _UndoMoves | _UndoStack | _UndoChange


class GameWriter(GamePieces):
    """A game of a module, written as VASSAL writes it: the steps logged
    (moves, flips, chat, dice, turns, undo, decks) over the state of
    :class:`~vmodtool.vassal.gamepieces.GamePieces`.

    >>> w = GameWriter(Module.open("game.vmod"), players=[Player("pw", "Alice", "Blue")])  # doctest: +SKIP
    >>> w.move("1700000000003", "0504", player="Alice")                                      # doctest: +SKIP
    >>> w.write("game.vlog")                                                                 # doctest: +SKIP
    """

    def __init__(self, module: Module, *, players: Sequence[Player] = (),
                 board_sizes: Mapping[str, tuple[int, int]] | None = None,
                 first_id: int = 1700000000000, vassal_version: str | None = None,
                 boards: Mapping[str, str] | None = None) -> None:
        """``vassal_version`` is the VASSAL that "saves" the game (written to
        ``savedata``; VASSAL writes its own version there): by default the
        version the module declares, so that the save matches the VASSAL
        release the module is made for.  ``boards`` (map name → board name)
        chooses the board of a map with several (default: its first)."""
        super().__init__(module, players=players, board_sizes=board_sizes, first_id=first_id, boards=boards)
        self.vassal_version = vassal_version or module.buildfile.vassal_version or "3.7.0"
        self.dice_buttons: dict[str, DiceButtonSpec] = {}
        self.global_values: dict[tuple[str, str], str] = {}   # (container, name) -> value
        for m in module.buildfile.maps():
            for el in m.element.iter(P + "module.DiceButton"):
                self._add_dice_button(DiceButtonSpec.from_element(el, m.name))
        for el in module.buildfile.root:
            if el.tag == P + "module.DiceButton":
                self._add_dice_button(DiceButtonSpec.from_element(el))
        self.steps: list[str] = []
        self._undo: list[_Undoable] = []

    @classmethod
    def from_save(cls, module: Module, saved: SavedGame, *, players: Sequence[Player] = (),
                  board_sizes: Mapping[str, tuple[int, int]] | None = None,
                  vassal_version: str | None = None) -> GameWriter:
        """A game that goes on from a save of ``module``: its pieces, stacks
        and decks are the save's (:meth:`GamePieces.load_saved_state`) and the
        log starts from the save's own restore part, every other entry kept
        as the save has it (boards, global properties, turn, notes …) except
        its roster, which is ``players`` (a save's player ids are its
        players' passwords: never copied into a new file)."""
        writer = cls(module, players=players, board_sizes=board_sizes, vassal_version=vassal_version)
        restore = saved.restore_part()
        writer.load_saved_state(restore)
        writer._initial = _restore_with_roster(restore, writer.players)
        writer.steps = []
        return writer

    def _add_dice_button(self, spec: DiceButtonSpec) -> None:
        self.dice_buttons.setdefault(spec.name, spec)
        for name, value in spec.initial_values().items():
            self.global_values.setdefault((spec.container, name), value)

    # -- steps -----------------------------------------------------------------------------
    def _log(self, *commands: str) -> None:
        entries = ["LOG\t" + c for c in commands]
        self.steps.append(entries[0] if len(entries) == 1 else encode_sequence(entries, ESC) or "")

    def move(self, piece_id: str, location: str, *, map_name: str | None = None,
             player: str | None = None, chat: bool = True) -> None:
        """Drag a piece to a location (hex label or zone name) of a map; it
        joins the top of any stack there, as VASSAL's drop does."""
        p = self.pieces[piece_id]
        target_map = map_name or p.map
        if target_map not in self.geometry:
            raise VmodError(f"no map {target_map!r}")
        x, y = self.point(target_map, location)
        self._move_to(piece_id, target_map, x, y, player, chat)

    def _move_to(self, piece_id: str, map_name: str, x: int, y: int, player: str | None,
                 chat: bool, undoable: bool = True) -> None:
        p = self.pieces[piece_id]
        who = self._player(player)
        old = (p.map, p.x, p.y)
        from_name = self.location(piece_id) if p.map else "offboard"
        old_under = self._leave_stack(piece_id)
        target = next((s for s in self.stacks.values()
                       if s.map == map_name and (s.x, s.y) == (x, y)), None)
        under = target.members[-1] if target is not None else None
        move = MovePiece.build(piece_id, map_name, x, y, under, old[0], old[1], old[2], old_under,
                               who.password)
        commands = [move.text]
        if target is None:
            target = GameStack(self.new_id(), map_name, x, y, [])
            self.stacks[target.id] = target
            target.members.append(piece_id)
            commands.append(self._stack_command(target))
        else:
            target.members.append(piece_id)
        p.map, p.x, p.y = map_name, x, y
        if chat:
            commands.append(f"CHAT* {self._name(piece_id)} moves {from_name} -> {self.location(piece_id)} *")
        self._log(*commands)
        if undoable:
            self._undo.append(_UndoMove(piece_id, old[0], old[1], old[2]))

    def move_stack(self, piece_ids: Sequence[str], location: str, *, map_name: str | None = None,
                   player: str | None = None, chat: bool = True) -> None:
        """Drag several pieces to a location in ONE step, as VASSAL logs a
        drag of a selection: when ``piece_ids`` are all the members of one
        stack and the target is empty, the stack itself moves (one
        ``MovePiece`` of the stack); otherwise each piece is moved in turn
        (bottom first) and joins the top of the target stack.  One undo
        reverses the whole drag."""
        ids = list(piece_ids)
        if not ids:
            raise VmodError("move_stack needs at least one piece")
        first = self.pieces[ids[0]]
        target_map = map_name or first.map
        if target_map not in self.geometry:
            raise VmodError(f"no map {target_map!r}")
        x, y = self.point(target_map, location)
        who = self._player(player)
        stack = self.stack_of(ids[0])
        target = next((s for s in self.stacks.values()
                       if s.map == target_map and (s.x, s.y) == (x, y)), None)
        names = ", ".join(self._name(pid) for pid in ids)
        from_name = self.location(ids[0]) if first.map else "offboard"
        if stack is not None and stack.members == ids and target is None:
            old = (stack.map, stack.x, stack.y)
            move = MovePiece.build(stack.id, target_map, x, y, None, old[0], old[1], old[2], None,
                                   who.password)
            stack.map, stack.x, stack.y = target_map, x, y
            for pid in ids:
                p = self.pieces[pid]
                p.map, p.x, p.y = target_map, x, y
            commands = [move.text]
            if chat:
                commands.append(f"CHAT* {names} move {from_name} -> {location} *")
            self._log(*commands)
            self._undo.append(_UndoStack(stack.id, *old))
            return
        before = len(self.steps)
        undo_marks = len(self._undo)
        for pid in ids:
            self._move_to(pid, target_map, x, y, player, chat=False)
        parts: list[str] = []
        for text in self.steps[before:]:
            parts.extend(text.split(ESC) if ESC in text else [text])
        del self.steps[before:]
        moved = tuple(u for u in self._undo[undo_marks:] if isinstance(u, _UndoMove))
        del self._undo[undo_marks:]
        if chat:
            parts.append(f"LOG\tCHAT* {names} move {from_name} -> {location} *")
        self.steps.append(encode_sequence(parts, ESC) or "")
        self._undo.append(_UndoMoves(moved))

    def set_layer(self, piece_id: str, layer_prefix: str, value: int, *,
                  player: str | None = None, menu: str = "", report: bool = True) -> None:
        """Set the state of the ``n``-th Embellishment whose layer name is
        ``layer_prefix`` (Layer ``value``: level, negative = inactive)."""
        p = self.pieces[piece_id]
        traits = list(p.piece.traits)
        for i, trait in enumerate(traits):
            if trait.prefix == "emb2;" and view_of(trait).layer_name == layer_prefix:
                old_state = p.piece.state
                traits[i] = trait.with_state(str(value))
                new_piece = PieceDef.from_traits(traits, id=p.piece.id)
                p.piece = new_piece
                commands = [ChangePiece.build(piece_id, new_piece.state, old_state).text]
                if report:
                    commands.append(f"CHAT* {self._name(piece_id)} {menu or layer_prefix} "
                                    f"({self.location(piece_id)}) *")
                self._log(*commands)
                self._undo.append(_UndoChange(piece_id, old_state))
                return
        raise VmodError(f"piece {self._name(piece_id)!r} has no layer {layer_prefix!r}")

    def remove(self, piece_id: str, *, player: str | None = None) -> None:
        stack = self.stack_of(piece_id)
        if stack is not None:
            stack.members.remove(piece_id)
            if not stack.members:
                del self.stacks[stack.id]
        name = self._name(piece_id)
        del self.pieces[piece_id]
        self._log(RemovePiece.build(piece_id).text, f"CHAT* {name} deleted *")

    def add(self, slot: PieceSlotEntry, location: str, map_name: str, *,
            player: str | None = None) -> str:
        """Drag a new piece out of one of the module's PieceSlots (see
        :meth:`palette_slot`) onto a location: the piece is the slot's own
        definition, expanded, with the slot's gpid."""
        if not any(s.element is slot.element for s in self.slots):
            raise VmodError(f"the piece slot {slot.entry_name!r} is not a slot of this module",
                            file=self.module.file)
        x, y = self.point(map_name, location)
        pid = self._new_piece(slot.definition, None, 0, 0, slot.gpid)
        self._warn_missing_prototypes()
        p = self.pieces[pid]
        p.map, p.x, p.y = map_name, x, y
        commands = [self._add_command(pid)]
        target = next((s for s in self.stacks.values()
                       if s.map == map_name and (s.x, s.y) == (x, y)), None)
        if target is None:
            target = GameStack(self.new_id(), map_name, x, y, [])
            self.stacks[target.id] = target
        target.members.append(pid)
        commands.append(self._stack_command(target))
        commands.append(f"CHAT* {p.piece.name} created in {location} *")
        self._log(*commands)
        return pid

    def chat(self, text: str, *, player: str | None = None) -> None:
        who = self._player(player)
        self._log(f"CHAT&lt;{who.name}&gt; - {text}")

    def dice(self, button: str, values: Sequence[int], *, player: str | None = None) -> None:
        """A press of the module's DiceButton ``button`` whose dice came up
        ``values`` (each die's face, ``plus`` already added), logged as
        ``DiceButton.DR`` does in VASSAL 3.7.26: the report line in the
        button's own format, then its ``_result``, ``_total``, ``_keep`` and
        ``_summary`` property changes."""
        spec = self.dice_buttons.get(button)
        if spec is None:
            raise VmodError(f"the module has no DiceButton named {button!r}", file=self.module.file)
        if len(values) != spec.n_dice:
            raise VmodError(f"DiceButton {button!r} rolls {spec.n_dice} dice, not {len(values)}")
        who = self._player(player)
        kept = sorted(values) if spec.sort_dice else list(values)
        total = spec.add_to_total + sum(kept)
        result = str(total) if spec.report_total else ",".join(str(v) for v in kept)
        counts = Counter(kept)
        summary = ", ".join(f"{v} x{counts[v]}" for v in sorted(counts))
        variables = {"name": spec.name, "result": result, "PlayerName": who.name,
                     "nDice": str(spec.n_dice), "nSides": str(spec.n_sides), "plus": str(spec.plus),
                     "addToTotal": str(spec.add_to_total), "numericalTotal": str(total),
                     "keepCount": str(len(kept)), "summary": summary}
        variables.update({f"result{i}": str(v) for i, v in enumerate(kept, 1)})
        text = _FORMAT_VARIABLE.sub(lambda m: variables.get(m.group(1), ""), spec.report_format)
        commands = []
        if text:
            commands.append("CHAT" + ("*" + text if text.startswith("*") else "* " + text))
        for suffix, value in (("result", result), ("total", str(total)), ("keep", str(len(kept))),
                              ("summary", summary)):
            key = (spec.container, f"{spec.name}_{suffix}")
            old = self.global_values.get(key, "")
            self.global_values[key] = value
            commands.append(encode_sequence(["MutableProperty", key[1], old, value, spec.container],
                                            "\t") or "")
        self._log(*commands)

    def report(self, text: str) -> None:
        """A module report line (e.g. the turn tracker's ``* TT|2|…``)."""
        self._log(f"CHAT* {text}")

    def set_turn(self, state: str, *, tracker: str = "TurnTracker0",
                 report: str | None = None) -> None:
        """The turn tracker moved to ``state`` (§4.8: ``TURN<id>⟨TAB⟩<state>``,
        with the tracker's chat report when ``report`` is given).  Before
        :meth:`snapshot` it only sets the state the log starts from."""
        self.turn_states[tracker] = state
        if self._initial:                       # the log has started
            commands = [f"TURN{tracker}\t{state}"]
            if report is not None:
                commands.append(f"CHAT* {report}")
            self._log(*commands)

    def undo(self, *, player: str | None = None) -> None:
        """Undo the last move or layer change (UNDO brackets, §4.7)."""
        if not self._undo:
            raise VmodError("nothing to undo")
        last = self._undo.pop()
        before = len(self.steps)
        if isinstance(last, _UndoMove):
            self._move_back(last, player)
        elif isinstance(last, _UndoMoves):
            for undone in reversed(last.moves):
                self._move_back(undone, player)
            parts: list[str] = []
            for text in self.steps[before:]:
                parts.extend(text.split(ESC) if ESC in text else [text])
            del self.steps[before:]
            self.steps.append(encode_sequence(parts, ESC) or "")
        elif isinstance(last, _UndoStack):
            sid, map_name, x, y = last.stack_id, last.map, last.x, last.y
            stack = self.stacks[sid]
            who = self._player(player)
            move = MovePiece.build(sid, map_name, x, y, None, stack.map, stack.x, stack.y, None,
                                   who.password)
            stack.map, stack.x, stack.y = map_name, x, y
            for pid in stack.members:
                p = self.pieces[pid]
                p.map, p.x, p.y = map_name, x, y
            self._log(move.text)
        else:
            pid, old_state = last.piece_id, last.old_state
            p = self.pieces[pid]
            current = p.piece.state
            p.piece = PieceDef.parse(AddPiece.build(pid, p.piece.type, old_state).text)
            self._log(ChangePiece.build(pid, old_state, current).text)
        inverse = self.steps.pop(before)
        inner = inverse.split(ESC) if ESC in inverse else [inverse]
        self.steps.append(encode_sequence(["LOG\tUNDO\ttrue"] + inner + ["LOG\tUNDO\tfalse"], ESC)
                          or "")

    def _move_back(self, move: _UndoMove, player: str | None) -> None:
        if move.map is None:
            raise VmodError("cannot undo the move of a piece that came from off all maps")
        self._move_to(move.piece_id, move.map, move.x, move.y, player, chat=False, undoable=False)


    # -- decks, hands and masks (docs/vassal-format.md §4.12) ----------------------------
    def _report(self, deck: GameDeck, fmt: str, command_name: str) -> str | None:
        """``Deck.reportCommand``: ``* `` + the format with $deckName$ and
        $commandName$ filled in; no chat for an empty result."""
        text = fmt.replace("$deckName$", deck.name).replace("$commandName$", command_name)
        text = _FORMAT_VARIABLE.sub("", text)
        return f"CHAT* {text}" if text else None

    def draw(self, deck_name: str, map_name: str, x: int, y: int, *, card: str | None = None,
             player: str | None = None) -> str:
        """Drag a card out of a deck onto a map (a player's hand window or
        any map) at (x, y): the top card, or ``card`` (a search, "Draw
        specific cards").  As PieceMover logs it (``movedPiece`` →
        ``Deck.pieceRemoved``): the card's ``OBSCURED_TO_OTHERS`` set to
        ``faceDown && !drawFaceUp`` (its ``obs;`` state becomes the drawer's
        id with the default options, or ``null``: a ``D/`` when that
        changes), then its ``M/`` and the ``+/`` of the stack it starts.
        Returns the card's id."""
        d = self.deck(deck_name)
        if not d.members:
            raise VmodError(f"deck {deck_name!r} is empty")
        if map_name not in self.map_names:
            raise VmodError(f"no map {map_name!r}")
        pid = card if card is not None else d.members[-1]
        if pid not in d.members:
            raise VmodError(f"piece {pid} is not in deck {deck_name!r}")
        who = self._player(player)
        commands: list[str] = []
        if self._has_trait(pid, "obs;"):
            masked = d.face_down and not d.pile.type.draw_face_up
            state = ObscuredState.masked_by(who.password) if masked else ObscuredState(None)
            change = self._trait_state(pid, "obs;", state.encode())
            if change is not None:
                commands.append(change)
        old_map, ox, oy, old_under = self._take(pid)
        under, extra = self._land(pid, map_name, x, y)
        commands.append(MovePiece.build(pid, map_name, x, y, under, old_map, ox, oy, old_under,
                                        who.password).text)
        commands.extend(extra)
        p = self.pieces[pid]
        p.map, p.x, p.y = map_name, x, y
        self._log(*commands)
        return pid

    def to_deck(self, piece_id: str, deck_name: str, *, player: str | None = None) -> None:
        """Drop a piece onto a deck (discard, return a card): its ``M/`` to
        the deck's point, the deck's top card as new-under
        (``StackMetrics.merge``; none for an empty deck)."""
        d = self.deck(deck_name)
        who = self._player(player)
        old_map, ox, oy, old_under = self._take(piece_id)
        under, _ = self._land(piece_id, d.map, d.x, d.y)
        p = self.pieces[piece_id]
        p.map, p.x, p.y = None, d.x, d.y
        self._log(MovePiece.build(piece_id, d.map, d.x, d.y, under, old_map, ox, oy, old_under,
                                  who.password).text)

    def _deck_change(self, d: GameDeck, mutate: Any) -> str:
        old = d.state()
        mutate()
        return ChangePiece.build(d.id, d.state(), old).text

    def shuffle(self, deck_name: str, *, seed: int = 0) -> None:
        """``Deck.shuffle``: a new order (here from ``random.Random(seed)``;
        VASSAL uses its own RNG) set by ``setContents`` — the deck's ``D/`` —
        and the report of its ``shuffleMsgFormat`` (none when empty)."""
        d = self.deck(deck_name)
        self._log(*self._shuffle_commands(d, seed))

    def _shuffle_commands(self, d: GameDeck, seed: int) -> list[str]:
        order = list(d.members)
        random.Random(seed).shuffle(order)

        def apply() -> None:
            d.members[:] = order
        commands = [self._deck_change(d, apply)]
        report = self._report(d, d.pile.type.shuffle_format, d.pile.type.shuffle_command)
        if report:
            commands.append(report)
        return commands

    def reshuffle(self, deck_name: str, *, seed: int = 0, player: str | None = None,
                  shuffle_target: bool = True) -> None:
        """The deck's reshuffle command, ``Deck.sendToDeck``, in one step:
        the ``reshuffleMsgFormat`` report (if any), then each card from the
        top down dropped on the reshuffle target (``DrawPile.addToContents``
        → ``Map.placeOrMerge``: its ``M/`` with the target's top card as
        new-under).  ``sendToDeck`` does not shuffle: a target whose
        shuffleOption is Always draws at random anyway; for another target
        ``shuffle_target`` makes the player shuffle it next (its own step,
        :meth:`shuffle`)."""
        d = self.deck(deck_name)
        target = self.deck(d.pile.type.reshuffle_target)
        who = self._player(player)
        commands: list[str] = []
        report = self._report(d, d.pile.type.reshuffle_format, d.pile.type.reshuffle_command)
        if report:
            commands.append(report)
        for pid in list(reversed(d.members)):
            old_map, ox, oy, old_under = self._take(pid)
            under, _ = self._land(pid, target.map, target.x, target.y)
            p = self.pieces[pid]
            p.map, p.x, p.y = None, target.x, target.y
            commands.append(MovePiece.build(pid, target.map, target.x, target.y, under, old_map, ox, oy,
                                            old_under, who.password).text)
        if commands:
            self._log(*commands)
        if shuffle_target and target.pile.type.shuffle_option != "Always":
            self.shuffle(target.name, seed=seed)

    def reorder(self, deck_name: str, order: Sequence[str]) -> None:
        """Put a deck's cards in another order by hand (cards taken out and
        put back): the deck's ``D/`` alone, no report."""
        d = self.deck(deck_name)
        if sorted(order) != sorted(d.members):
            raise VmodError(f"the new order of deck {deck_name!r} must hold exactly its cards")

        def apply() -> None:
            d.members[:] = list(order)
        self._log(self._deck_change(d, apply))

    def set_face(self, deck_name: str, face_down: bool) -> None:
        """``Deck.setContentsFaceDown``: the deck's ``D/`` and the face
        report (``faceDownMsgFormat`` / ``faceUpMsgFormat``)."""
        d = self.deck(deck_name)
        if d.face_down == face_down:
            return

        def apply() -> None:
            d.face_down = face_down
        commands = [self._deck_change(d, apply)]
        t = d.pile.type
        report = self._report(d, t.face_down_format if face_down else t.face_up_format,
                              t.get("faceDownMessage") if face_down else t.get("faceUpMessage"))
        if report:
            commands.append(report)
        self._log(*commands)

    def mask(self, piece_id: str, masked: bool = True, *, player: str | None = None) -> None:
        """The ``obs;`` trait's mask key (``Obscurable.myKeyEvent``): masked
        by the current player (their id, the default options ``|0``) or
        unmasked (``null``) — the piece's ``D/``."""
        who = self._player(player)
        state = ObscuredState.masked_by(who.password) if masked else ObscuredState(None)
        change = self._trait_state(piece_id, "obs;", state.encode())
        if change is None:
            raise VmodError(f"piece {piece_id} has no mask to change")
        self._log(change)

    def hide(self, piece_id: str, hidden: bool = True, *, player: str | None = None) -> None:
        """The ``hide;`` trait's key (``Hideable.myKeyEvent``): hidden by the
        current player (their id) or shown (``null``) — the piece's ``D/``."""
        who = self._player(player)
        change = self._trait_state(piece_id, "hide;", who.password if hidden else "null")
        if change is None:
            raise VmodError(f"piece {piece_id} has no invisibility to change")
        self._log(change)

    # -- output ----------------------------------------------------------------------------
    def text(self, restore: str | None = None) -> str:
        """The command text of the log (restore part + steps)."""
        return encode_sequence([restore if restore is not None else self._initial] + self.steps,
                               ESC) or ""

    def snapshot(self) -> None:
        """Fix the current state as the log's starting state (call before
        the first step)."""
        self._initial = self.restore_text()
        self.steps = []

    _initial = ""

    def to_bytes(self, *, key: int = 0x42, date_saved: str | None = None,
                 comment: str = "") -> bytes:
        """The ``.vsav``/``.vlog`` archive as ``GameState.saveGame`` writes
        it: ``savedGame`` (obfuscated with ``key``), ``savedata`` and
        ``moduledata`` (:func:`module_metadata`).  ``date_saved`` (epoch
        milliseconds) defaults to now, as in VASSAL; give a fixed value for
        reproducible files.  ``comment`` is the save's description."""
        date = now_millis() if date_saved is None else date_saved
        save = SaveMetadata(version=self.module.buildfile.version,
                            vassal_version=self.vassal_version, date_saved=date,
                            description=comment)
        entries = {"savedGame": encode_saved_game(self.text(), key=key),
                   SAVE_ENTRY: save.to_bytes(),
                   MODULE_ENTRY: module_metadata(self.module, vassal_version=self.vassal_version,
                                                 date_saved=date)}
        return build_zip(entries)
