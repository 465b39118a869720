"""Apply VASSAL commands to a :class:`~vmodtool.replay.state.GameState`, as
VASSAL 3.7.26's ``AddPiece``/``RemovePiece``/``ChangePiece``/``MovePiece``
``executeCommand`` do (with ``StackMetrics.merge``, ``Map.placeAt``,
``Map.addPiece`` and ``Stack``'s own bookkeeping), producing typed events.

Problems in the data (unknown pieces or maps, malformed states, global
properties the module does not define) become warnings carrying the step
number; the replay always goes on.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from vmodtool.replay.engine_adds import Adding
from vmodtool.replay.engine_core import ReplayWarning
from vmodtool.replay.engine_decks import CardOrigin
from vmodtool.replay.engine_stacking import _keep_unique_id as _keep_unique_id  # (re-exported)
from vmodtool.replay.engine_stacking import _merge_stack_state
from vmodtool.replay.events import (
    BoardsEvent,
    ChangeEvent,
    ChatEvent,
    DiceEvent,
    Event,
    MoveEvent,
    Place,
    PlayerEvent,
    PropertyEvent,
    RemoveEvent,
    TurnEvent,
    UnknownEvent,
)
from vmodtool.replay.roster import Roster
from vmodtool.replay.state import (
    Deck,
    GameObject,
    Piece,
    Stack,
)
from vmodtool.vassal.commands import (
    AddPiece,
    BeginSave,
    ChangePiece,
    Chat,
    Command,
    GlobalPropertySet,
    LogEntry,
    MovePiece,
    MutableProperty,
    PlayerAdd,
    PlayerRemove,
    RemovePiece,
    SetBoards,
    SpecialDiceResults,
    TurnState,
    Undo,
    UnknownCommand,
    VersionCheck,
)

__all__ = ["ReplayEngine", "Engine", "ReplayWarning", "Roster"]

_CHAT_NAME = re.compile(r"^(?:&lt;|<)(.+?)(?:&gt;|>) - ")
#: a dice report in DiceButton's default format (``** $name$ = $result$ ***
#: <$playerName$>``, VASSAL 2.x to 3.7) with the chat's ``*`` prefix: the
#: button, the comma list of dice and the roller's name
_DICE_REPORT = re.compile(r"^\*{2,3} (.+?) = (\d+(?:,\d+)*) \*\*\* (?:&lt;|<)([^<>]+?)(?:&gt;|>)\s*$")


class ReplayEngine(Adding):
    """One game state and the rules VASSAL applies to it: the command
    semantics here, with its parts mixed in: :class:`~.engine_adds.Adding`
    (AddPiece), :class:`~.engine_decks.Decks` (decks and card events),
    :class:`~.engine_visibility.Visibility` (what the viewer sees),
    :class:`~.engine_stacking.Stacking` (piece and stack states, stacking)
    and :class:`~.engine_core.EngineCore` (the state and shared helpers)."""

    # --------------------------------------------------------------- dispatch
    def apply(self, cmd: Command) -> None:
        """Execute one leaf command (a ``LOG`` entry's logged command is
        unwrapped; ``LOG<TAB>null`` and empty leaves do nothing)."""
        if isinstance(cmd, LogEntry):
            inner = cmd.logged
            if inner is None:
                return
            cmd = inner
        self.execute(cmd)

    def execute(self, cmd: Command) -> None:
        """Execute one command that is not a ``LOG`` entry."""
        kind = type(cmd)
        handler = _HANDLERS.get(kind)
        if handler is None:
            for base, fn in _HANDLERS_BY_BASE:
                if isinstance(cmd, base):
                    handler = fn
                    break
        if handler is not None:
            try:
                handler(self, cmd)
            except (ValueError, IndexError, KeyError) as exc:
                self.warn(f"{cmd.kind} could not be applied ({exc}): {self._short(cmd)}")

    def apply_all(self, commands: Iterable[Command]) -> None:
        """:meth:`apply` each command (a saved state's thousands of
        AddPieces go to :meth:`on_add` directly; while restoring, a piece or
        a stack whose AddPiece was planned before is made here from its
        plan, as :meth:`_add_fresh_piece` and :meth:`_add_fresh_stack` would
        make it, without their calls: a chain's saved states repeat most of
        the previous log's AddPieces)."""
        on_add = self.on_add
        apply = self.apply
        plans = self.add_plans
        get_plan = plans.get
        game = self.state
        pieces = game.pieces
        maps = game.maps
        fresh = Piece.fresh
        for cmd in commands:
            if type(cmd) is AddPiece:
                plan = get_plan(cmd.text) if self.in_restore else None
                if plan is not None and plan[1] is not None:
                    if plan[0] is None:
                        _, piece_id, type_text, ntraits, state, basic, map_id, x, y = plan
                        piece = fresh(piece_id, type_text, ntraits, state, basic, x, y)
                        pieces[piece_id] = piece          # GameState.register
                        if map_id is not None:
                            m = maps.get(map_id)
                            if m is None:
                                m = self.map_for(map_id)
                            if m is not None:
                                piece.map = m
                                m.add_new(piece)
                        continue
                    if self._restore_stack(plan):
                        continue
                try:
                    on_add(cmd)
                except (ValueError, IndexError, KeyError) as exc:
                    self.warn(f"{cmd.kind} could not be applied ({exc}): {self._short(cmd)}")
            else:
                apply(cmd)

    def on_remove(self, cmd: RemovePiece) -> None:
        target = self.state.get(cmd.piece_id)
        if target is None:
            self.warn(f"RemovePiece of unknown piece {cmd.piece_id}{self._gone(cmd.piece_id)}")
            return
        if target.id is not None:
            self.removed_at[target.id] = self.step_number
        if self.ghosts and target.id is not None:
            self.ghosts.pop(target.id, None)
        if isinstance(target, Piece) and not self.in_restore:
            self.events.append(RemoveEvent(piece=self.ref(target), source=self.place_of(target),
                                           visible=not self.hands or self.sees_map(target.current_map)))
        m = target.current_map
        if isinstance(target, Stack) and target.members and m is not None and not self.in_restore:
            # VASSAL 3.7 takes the pieces still in a removed stack off the map
            # with it (an old-style undo of the stack's AddPiece); the VASSAL
            # that wrote the log may have kept them where the stack was
            for member in target.members:
                self.ghosts[member.id or ""] = (m.name, target.x, target.y)
        if m is not None:
            m.remove(target)
            if isinstance(target, Stack):
                target.set_map(None)
            else:
                target.map = None
        if isinstance(target, Piece) and target.parent is not None:
            target.parent.remove(target)
        if target.id is not None and self.state.pieces.get(target.id) is target:
            del self.state.pieces[target.id]

    def on_change(self, cmd: ChangePiece) -> None:
        f = cmd.fields
        piece_id = f[0] if f and f[0] else ""
        target = self.state.pieces.get(piece_id)
        if target is None:
            self.warn(f"ChangePiece of unknown piece {piece_id}")
            return
        if len(f) < 2:
            self.warn(f"ChangePiece without a new state (truncated?): {self._short(cmd)}")
            return
        new = f[1] or ""
        old = f[2] if len(f) > 2 else None
        if isinstance(target, Deck):
            self.on_deck_change(target, new, old)
            return
        if isinstance(target, Stack):
            if old is not None and old != target.state_string():
                new = _merge_stack_state(target, new, old)
            self.stack_set_state(target, new)
            return
        before = self.ref(target) if not self.in_restore else None
        place = self.place_of(target) if before is not None else None
        if old is None:
            self.piece_set_state(target, new)
        else:
            self.piece_merge_state(target, new, old)
        if before is not None:
            after = self.ref(target)
            if after.states != before.states:
                new_place = self.place_of(target)
                # (a piece in a private window the viewer cannot open is not named)
                seen = not self.hands or self.sees_map(target.current_map)
                if place is not None and new_place != place:
                    self.events.append(MoveEvent(piece=after, source=place, target=new_place,
                                                 visible=seen or self.viewer.sees_hand(
                                                     self.hands.get(place.map or ""))))
                if ("obs;" in target.type or "hide;" in target.type) and \
                        not self.mask_events(target, before, after, new_place):
                    return
                self.events.append(ChangeEvent(before=before, after=after, place=new_place, visible=seen))

    def on_move(self, cmd: MovePiece) -> None:
        # the fields read once (MovePiece's properties decode them one by one)
        f = cmd.fields
        if len(f) < 9:
            self.warn(f"MovePiece with missing fields (truncated?): {self._short(cmd)}")
            return
        piece_id = f[0] or ""
        piece = self.state.pieces.get(piece_id)
        if piece is None:
            self.unlogged_stack_move(cmd)
            return
        is_stack = isinstance(piece, Stack)
        if self.ghosts:
            for p in (piece.members if is_stack else [piece]):     # type: ignore[union-attr]
                self.ghosts.pop(p.id or "", None)
        player = f[9] if len(f) > 9 and f[9] != "null" else None
        if player:
            self.player_ids.append(player)
        movers: list[Piece] = piece.members[:] if is_stack else [piece]     # type: ignore[union-attr,list-item]
        place_of = self.place_of
        befores = [place_of(p) for p in movers] if not self.in_restore else None
        # where each mover came from when a deck or a hand is involved: (its
        # deck, its index there, the hand it was on, whether the viewer saw it)
        cards: list[CardOrigin] | None = None
        if befores is not None and (self.hands or self.state.has_decks):
            cards = [self.card_origin(p) for p in movers]
        self._place_moved(cmd, piece, f)
        if befores is not None:
            self._move_events(cmd, piece, movers, befores, cards, player)

    def _place_moved(self, cmd: MovePiece, piece: GameObject, f: list[str]) -> None:
        """``MovePiece.executeCommand``'s placement: onto the piece it is
        moved under (when there still), else merged by the merge finder or
        placed (a stack of its own when the map stacks); off its map when
        moved to none."""
        new_map_id = f[1]
        new_map = self.map_for(new_map_id) if new_map_id != "null" else None
        if new_map is not None:
            pos = cmd.new_position
            under_id = f[4] if f[4] != "null" else None
            if under_id is not None:
                under = self.state.get(under_id)
                if (under is not None and under.position == pos
                        and under.current_map is new_map):
                    self.merge(new_map, under, piece)
                elif not self.merge_finder(new_map, piece, pos):
                    self.stack_or_place(piece, new_map, pos)
            else:
                if not self.merge_finder(new_map, piece, pos):
                    self.stack_or_place(piece, new_map, pos)
                if piece.parent is not None:
                    piece.parent.insert(piece, 0)
        else:
            old_map_id = cmd.old_map
            old_map = self.state.maps.get(old_map_id) if old_map_id is not None else None
            if old_map is not None:
                old_map.remove(piece)

    def _move_events(self, cmd: MovePiece, piece: GameObject, movers: list[Piece], befores: list[Place],
                     cards: list[CardOrigin] | None, player: str | None) -> None:
        """The events of a move: each mover's (a card's when a deck or a
        hand is involved), from where it was (the command's own origin for
        a mover that was off all maps)."""
        stack_id = piece.id if piece.is_stack else None
        old_map_id = cmd.old_map
        for i, before in enumerate(befores):
            if before.map is None and old_map_id is not None:
                # off all maps now (e.g. its stack was removed by an undo):
                # the command's own origin is where it came from
                ox, oy = cmd.old_position
                loc, cell = self.positions.locate(old_map_id, ox, oy)
                befores[i] = Place(old_map_id, ox, oy, loc, cell)
        if cards is not None:
            for k, (p, before) in enumerate(zip(movers, befores, strict=True)):
                self.card_event(p, before, cards[k], stack_id, player)
        else:
            append = self.events.append
            ref = self.ref
            place_of = self.place_of
            for p, before in zip(movers, befores, strict=True):
                append(MoveEvent(piece=ref(p), source=before, target=place_of(p), stack_id=stack_id))

    def unlogged_stack_move(self, cmd: MovePiece) -> None:
        """A MovePiece naming an id no command created.  VASSAL gives a
        stack it makes while executing a move (a piece dropped where no
        stack is, as an old-style undo does) a fresh id on the mover's
        machine and logs no ``+/`` for it; a later move of that whole stack
        names the id.  VASSAL replaying the log does not know the id and
        ignores the move, as the replay does; on the mover's board the
        stack moved.  When the move's origin holds exactly one stack (one the
        replay created itself, ``replay-N``, or one the saved state names by
        another id), its members are that stack:
        :attr:`ghosts` keeps where they are on the mover's board (until a
        logged command moves them), so that a next log saved on the mover's
        machine is not read as pieces moved between the logs."""
        piece_id = cmd.piece_id or ""
        members = self.ghost_stacks.get(piece_id)
        where = "the mover's board"
        if members is None:
            old_map_id = cmd.old_map
            m = self.state.maps.get(old_map_id) if old_map_id is not None else None
            x, y = cmd.old_position
            found = [o for o in (m.at(x, y) if m is not None else [])
                     if isinstance(o, Stack) and o.members]
            if piece_id in self.removed_at or len(found) != 1:
                gone = self._gone(piece_id) or f" (no stack at its origin {cmd.old_map} {x},{y})"
                self.warn(f"MovePiece of unknown piece {cmd.piece_id}{gone}: ignored, as VASSAL "
                          "ignores it")
                return
            members = [p.id or "" for p in found[0].members]
            self.ghost_stacks[piece_id] = members
            where = f"{self.place_of(found[0]).label()}"
        new_map = cmd.new_map
        nx, ny = cmd.new_position
        for pid in members:
            self.ghosts[pid] = (new_map, nx, ny)
        names = ", ".join(p.name for p in (self.state.get(i) for i in members) if isinstance(p, Piece))
        if new_map is not None:
            loc, cell = self.positions.locate(new_map, nx, ny)
            target = Place(new_map, nx, ny, loc, cell).label()
        else:
            target = "nowhere"
        self.warn(f"MovePiece of stack {piece_id}, which VASSAL created on the mover's machine without "
                  f"logging it ({names} at {where}): VASSAL replaying the log ignores the move, "
                  f"as the replay does; on the mover's board the pieces went to {target}")

    def _gone(self, piece_id: str | None) -> str:
        """Why an id is unknown when an earlier command removed it."""
        if piece_id is None or piece_id not in self.removed_at:
            return ""
        step = self.removed_at[piece_id]
        return (f" (removed at step {step}; VASSAL ignores a command naming a removed piece)"
                if step is not None else " (removed in the saved state)")


    # ------------------------------------------------------------ the rest
    def on_chat(self, cmd: Chat) -> None:
        if self.in_restore:
            return
        message = cmd.message
        if message.startswith("** ") or message.startswith("*** "):
            last = self.events[-1] if self.events else None
            if isinstance(last, DiceEvent) and not last.message:
                last.message = message
            else:
                m = _DICE_REPORT.match(message)
                self.events.append(DiceEvent(message=message, button=m.group(1) if m else None,
                                             results=[int(v) for v in m.group(2).split(",")] if m else None))
        else:
            self.events.append(ChatEvent(message=message))

    def on_dice(self, cmd: SpecialDiceResults) -> None:
        if not self.in_restore:
            self.events.append(DiceEvent(button=cmd.button, results=cmd.results))

    def _undefined_property(self, cmd: MutableProperty | GlobalPropertySet) -> bool:
        """True (after a warning) when the module does not define the
        property: VASSAL decodes such a command as null and drops it."""
        if self.properties is None or self.properties.defines(cmd.name, cmd.container):
            return False
        where = f"container {cmd.container!r}" if cmd.container else "any container"
        self.warn(f"{cmd.kind} names global property {cmd.name!r}, which the module does not "
                  f"define in {where}; VASSAL drops the command (not applied)")
        return True

    def on_mutable(self, cmd: MutableProperty) -> None:
        if self._undefined_property(cmd):
            return
        key = (cmd.container, cmd.name)
        old = self.state.global_properties.get(key)
        self.state.global_properties[key] = cmd.new_value
        if not self.in_restore:
            self.events.append(PropertyEvent(name=cmd.name, old=cmd.old_value if old is None
                                             else old, new=cmd.new_value,
                                             container=cmd.container))

    def on_global(self, cmd: GlobalPropertySet) -> None:
        if self._undefined_property(cmd):
            return
        name, container = cmd.name, cmd.container
        if "\t" in name:
            # a ZoneProperty's id (name, zone, board, map): the zone's
            # property, under the container id its changes name (``map:zone``)
            parts = name.split("\t")
            if len(parts) == 4:
                name, container = parts[0], f"{parts[3]}:{parts[1]}"
        key = (container, name)
        old = self.state.global_properties.get(key)
        self.state.global_properties[key] = cmd.value
        if not self.in_restore and old != cmd.value:
            self.events.append(PropertyEvent(name=name, old=old, new=cmd.value, container=container))

    def on_turn(self, cmd: TurnState) -> None:
        old = self.state.turns.get(cmd.tracker_id)
        self.state.turns[cmd.tracker_id] = cmd.state
        if not self.in_restore and old != cmd.state:
            self.events.append(TurnEvent(tracker=cmd.tracker_id, old=old, new=cmd.state))

    def on_player(self, cmd: PlayerAdd) -> None:
        known = cmd.player_id in self.roster.players
        self.roster.add(cmd.player_id, cmd.name, cmd.side)
        if not self.in_restore and not known:
            self.events.append(PlayerEvent(name=cmd.name, side=cmd.side))

    def on_player_remove(self, cmd: PlayerRemove) -> None:
        name, side = self.roster.who(cmd.player_id)
        if not self.in_restore:
            self.events.append(PlayerEvent(name=name or "", side=side, joined=False))

    def on_boards(self, cmd: SetBoards) -> None:
        boards = cmd.boards
        self.state.boards[cmd.map_id] = boards
        if self.positions.has_module and not self.positions.knows_map(cmd.map_id):
            self.warn_once(("map", cmd.map_id), f"map {cmd.map_id!r} is not in the module; "
                           "its pieces are tracked in pixels")
        problem = self.positions.set_boards(cmd.map_id, boards)
        if problem:
            self.warn_once(("boards", cmd.map_id, problem),
                           f"map {cmd.map_id!r}: {problem}; its locations stay in pixels")
        if not self.in_restore:
            self.events.append(BoardsEvent(map=cmd.map_id, boards=boards))

    def on_undo(self, cmd: Undo) -> None:
        self.undo_brackets += 1 if cmd.in_progress else 0

    def on_unknown(self, cmd: UnknownCommand) -> None:
        if isinstance(cmd, VersionCheck):
            return
        self.unknown_commands += 1
        if not self.in_restore:
            self.events.append(UnknownEvent(prefix=cmd.prefix,
                                            command=self._short(cmd)))

    def on_begin(self, cmd: BeginSave) -> None:
        pass

    def chat_player(self, events: list[Event]) -> tuple[str | None, str | None]:
        """A step's player when it has no move: the name in a user chat line
        ``<Name> - text`` or in a dice report in the default format
        (``*** 2d6 = 3,5 *** <Name>``) if it is a roster name."""
        for ev in events:
            if isinstance(ev, (ChatEvent, DiceEvent)):
                dice = isinstance(ev, DiceEvent)
                m = (_DICE_REPORT if dice else _CHAT_NAME).match(ev.message)
                if m:
                    name, side = self.roster.by_name(m.group(3 if dice else 1))
                    if name is not None:
                        return name, side
        return None, None



_Handler = Callable[[ReplayEngine, Any], None]
_HANDLERS: dict[type[Command], _Handler] = {
    AddPiece: ReplayEngine.on_add,
    RemovePiece: ReplayEngine.on_remove,
    ChangePiece: ReplayEngine.on_change,
    MovePiece: ReplayEngine.on_move,
    Chat: ReplayEngine.on_chat,
    SpecialDiceResults: ReplayEngine.on_dice,
    MutableProperty: ReplayEngine.on_mutable,
    GlobalPropertySet: ReplayEngine.on_global,
    TurnState: ReplayEngine.on_turn,
    PlayerAdd: ReplayEngine.on_player,
    PlayerRemove: ReplayEngine.on_player_remove,
    SetBoards: ReplayEngine.on_boards,
    Undo: ReplayEngine.on_undo,
    UnknownCommand: ReplayEngine.on_unknown,
    VersionCheck: ReplayEngine.on_unknown,
    BeginSave: ReplayEngine.on_begin,
}
#: handlers by base class, for subclasses without their own entry (notes,
#: null commands, end_save and the set-up marker do nothing)
_HANDLERS_BY_BASE: list[tuple[type[Command], _Handler]] = [(UnknownCommand, ReplayEngine.on_unknown)]


#: the engine's old name, kept for one release: the audit has an ``Engine``
#: of its own (its rule dispatch), so the replay's is ``ReplayEngine``
Engine = ReplayEngine
