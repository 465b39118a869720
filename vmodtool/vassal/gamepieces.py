"""The pieces, stacks and decks of a game being written, where each is, and
their ``begin_save … end_save`` encoding (``docs/vassal-format.md`` §4.4).

:class:`GamePieces` is the state half of :class:`~vmodtool.vassal.gamewriter.GameWriter`:
it places a module's SetupStacks and DrawPiles' cards at the start as VASSAL
does, looks pieces up, and moves them between stacks and decks; the writer
logs each change as VASSAL's commands.  Every piece is a PieceSlot of the
module expanded as VASSAL's ``PieceCloner`` does (§3.6,
:func:`expand_prototypes`).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from vmodtool.errors import VmodError
from vmodtool.vassal.buildfile import BoardEntry, MapEntry, PieceSlotEntry
from vmodtool.vassal.commands import AddPiece, ChangePiece, Node, TurnState, leaf_commands, leaves
from vmodtool.vassal.decks import DECK_ID, DeckState, DeckType, DrawPileDef, ObscuredState, draw_piles
from vmodtool.vassal.extension import ExtendedModule, extension_name
from vmodtool.vassal.grid import BoardPlacement, MapGeometry, board_from_element
from vmodtool.vassal.module import Module
from vmodtool.vassal.pieces import PieceDef, Trait, parse_stack_state
from vmodtool.vassal.savefile import SavedGame
from vmodtool.vassal.sequence import encode_sequence
from vmodtool.vassal.traits import view_of

__all__ = ["expand_prototypes", "GamePieces", "GameStack", "GameDeck", "Player", "PlacedPiece",
           "MissingPrototypeWarning"]

ESC = "\x1b"
P = "VASSAL.build."


def expand_prototypes(piece: PieceDef, prototypes: Mapping[str, str], *,
                      missing: set[str] | None = None, _depth: int = 0) -> PieceDef:
    """The piece with every ``prototype;`` trait replaced, recursively, by
    the prototype's traits and states (``PieceCloner``, §3.6).

    A prototype the module does not define expands to nothing, as in VASSAL
    (``UsePrototype.getExpandedInner`` falls through to the trait's inner
    piece when ``PrototypesContainer.getPrototype`` finds no definition): the
    piece simply lacks its traits.  Its name is added to ``missing`` when a
    set is given, so that the caller can say so."""
    if _depth > 20:
        raise VmodError("prototypes refer to each other in a loop")
    out: list[Trait] = []
    for trait in piece.traits:
        if trait.prefix == "prototype;":
            name = str(view_of(trait).prototype_name)
            if name not in prototypes:
                if missing is not None:
                    missing.add(name)
                continue
            proto = expand_prototypes(PieceDef.parse(prototypes[name]), prototypes, missing=missing,
                                      _depth=_depth + 1)
            out.extend(proto.traits[:-1])          # the prototype's BasicPiece is dropped
        elif trait.prefix == "cmt;":
            continue
        else:
            out.append(trait)
    return PieceDef.from_traits(out, id=piece.id)


class MissingPrototypeWarning(UserWarning):
    """A piece entering the game uses a prototype the module does not
    define: it is expanded without it, as VASSAL does (§3.6)."""


@dataclass(frozen=True)
class Player:
    """A roster entry; ``password`` is what VASSAL writes as the player id."""

    password: str
    name: str
    side: str


@dataclass
class PlacedPiece:
    """A piece of the game being written: its id, its definition (prototypes
    expanded, its current states), the map and point it is at, and the gpid
    of the slot it came from."""

    id: str
    piece: PieceDef
    map: str | None
    x: int
    y: int
    gpid: str


@dataclass
class GameStack:
    """A stack of the game being written: its id, where it is, and its pieces'
    ids, bottom → top."""
    id: str
    map: str
    x: int
    y: int
    members: list[str] = field(default_factory=list)


@dataclass
class GameDeck:
    """A DrawPile's Deck in the game: cards bottom → top."""
    id: str
    pile: DrawPileDef
    map: str
    x: int
    y: int
    face_down: bool
    members: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.pile.name

    def state(self) -> str:
        return DeckState(self.map, self.x, self.y, self.face_down, tuple(self.members)).encode()


class GamePieces:
    """The pieces, stacks and decks of a game of ``module``: the module's
    SetupStacks and DrawPiles placed as at the start, the maps' geometry,
    the roster and the turn trackers' states; :meth:`restore_text` encodes
    them as a save's restore part."""

    def __init__(self, module: Module, *, players: Sequence[Player] = (),
                 board_sizes: Mapping[str, tuple[int, int]] | None = None,
                 first_id: int = 1700000000000, boards: Mapping[str, str] | None = None) -> None:
        """``boards`` (map name → board name) chooses the board a map with
        several in its ``BoardPicker`` is played on (default: its first)."""
        self.module = module
        self.players = list(players)
        self._next_id = first_id
        self.prototypes = module.buildfile.prototypes()
        #: the prototypes pieces of the game use that the module does not
        #: define (each expanded to nothing, as in VASSAL; warned once each)
        self.missing_prototypes: set[str] = set()
        self._warned_prototypes: set[str] = set()
        self.slots = module.buildfile.piece_slots()
        sizes, missing = module.board_sizes(dict(board_sizes or {}))
        if missing:
            raise VmodError(f"board sizes unknown for {', '.join(missing)}; give them as board_sizes",
                            file=module.file)
        self.geometry: dict[str, MapGeometry] = {}
        self.board_names: dict[str, str] = {}
        self.pieces: dict[str, PlacedPiece] = {}
        self.stacks: dict[str, GameStack] = {}
        self._setup_boards: list[str] = []
        self.turn_states: dict[str, str] = {}        # tracker id -> state (saved with the game)
        #: the decks of the module's DrawPiles, by name
        self.decks: dict[str, GameDeck] = {}
        for m in module.buildfile.maps():
            if not m.boards:
                continue
            board_entry = self._chosen_board(m, (boards or {}).get(m.name))
            w, h = sizes[board_entry.name]
            board = board_from_element(board_entry.element, w, h)
            edge_w = int(m.element.get("edgeWidth", "0") or 0)
            edge_h = int(m.element.get("edgeHeight", "0") or 0)
            self.geometry[m.name] = MapGeometry([BoardPlacement(board, 0, 0)], edge_w, edge_h)
            self.board_names[m.name] = board_entry.name
            self._setup_boards.append(encode_sequence([m.name + "BoardPicker", encode_sequence([board_entry.name], "/")
                                                       or "", "0", "0"], "\t") or "")
            for stack_el in m.element:
                if stack_el.tag == P + "module.map.SetupStack":
                    self._place_setup_stack(m.name, stack_el)
        self.hand_maps = {m.name for m in module.buildfile.maps()
                          if m.class_name.endswith(("PrivateMap", "PlayerHand"))}
        self.map_names = {m.name for m in module.buildfile.maps()}
        for pile in draw_piles(module.buildfile):
            self._make_deck(pile)
        self._warn_missing_prototypes()

    def _chosen_board(self, m: MapEntry, name: str | None) -> BoardEntry:
        """The board ``name`` of map ``m`` (its first when None)."""
        if name is None:
            return m.boards[0]
        for entry in m.boards:
            if entry.name == name:
                return entry
        raise VmodError(f"map {m.name!r} has no board {name!r} (its boards: "
                        f"{', '.join(b.name for b in m.boards)})", file=self.module.file)

    # -- ids and look-ups -----------------------------------------------------------
    def new_id(self) -> str:
        value = str(self._next_id)
        self._next_id += 1
        return value

    def _player(self, name: str | None) -> Player:
        for p in self.players:
            if p.name == name:
                return p
        if name is None and self.players:
            return self.players[0]
        raise VmodError(f"no player {name!r} in the roster")

    def find(self, **properties: str) -> str:
        """The id of the one piece whose properties match, e.g.
        ``find(UnitId="syr.t72.1")``."""
        found = [pid for pid, p in self.pieces.items()
                 if all(p.piece.get_property(k) == v for k, v in properties.items())]
        if len(found) != 1:
            raise VmodError(f"{len(found)} pieces match {properties}")
        return found[0]

    def location(self, piece_id: str) -> str:
        p = self.pieces[piece_id]
        return self.geometry[p.map].location_name(p.x, p.y) if p.map in self.geometry else "offboard"

    def stack_of(self, piece_id: str) -> GameStack | None:
        for stack in self.stacks.values():
            if piece_id in stack.members:
                return stack
        return None

    def find_slots(self, **properties: str) -> list[PieceSlotEntry]:
        """The module's PieceSlots whose piece (prototypes expanded) has
        these properties, in buildFile order."""
        found = []
        for slot in self.slots:
            piece = self._expanded(slot.definition)
            if all(piece.get_property(k) == v for k, v in properties.items()):
                found.append(slot)
        self._warn_missing_prototypes()
        return found

    def palette_slot(self, **properties: str) -> PieceSlotEntry:
        """The one PieceSlot outside the SetupStacks (the palette) whose
        piece has these properties, e.g. ``palette_slot(MarkerKind="smoke")``."""
        found = [s for s in self.find_slots(**properties)
                 if (parent := s.element.getparent()) is None
                 or parent.tag != P + "module.map.SetupStack"]
        if len(found) != 1:
            raise VmodError(f"{len(found)} palette slots of the module match {properties}",
                            file=self.module.file)
        return found[0]

    def point(self, map_name: str, location: str) -> tuple[int, int]:
        return self.geometry[map_name].point_of(self.board_names[map_name], location)

    # -- the starting state ---------------------------------------------------------------
    def _place_setup_stack(self, map_name: str, el: Any) -> None:
        if el.get("useGridLocation", "true").lower() == "true":
            x, y = self.point(map_name, el.get("location", ""))
        else:
            x, y = int(el.get("x", "0")), int(el.get("y", "0"))
        members: list[str] = []
        for slot in el:
            if slot.tag != P + "widget.PieceSlot":
                continue
            text = self.module.buildfile.text_of(slot)
            members.append(self._new_piece(text, map_name, x, y, slot.get("gpid", "")))
        if members:
            sid = self.new_id()
            self.stacks[sid] = GameStack(sid, map_name, x, y, members)

    def clear_stacks(self) -> None:
        """Take every piece off the maps (the SetupStacks' pieces; the decks'
        cards stay): the empty table a predefined setup is laid out on."""
        for stack in self.stacks.values():
            for pid in stack.members:
                del self.pieces[pid]
        self.stacks.clear()

    def restore(self, saved: SavedGame) -> None:
        """Start from a saved game's state, as VASSAL does when it loads one
        (a predefined setup, or the save a log of a PBEM chain continues):
        its pieces with their ids and states, stacks, decks and turn trackers
        (:meth:`load_saved_state`); new ids follow the highest numeric id it
        holds."""
        restore = saved.restore_part()
        self.load_saved_state(restore)
        for node in restore:
            for _, cmd in leaves(node):
                if isinstance(cmd, TurnState):
                    self.turn_states[cmd.tracker_id] = cmd.state

    def place(self, definition: str, map_name: str, location: str, gpid: str) -> str:
        """Put a piece of the PieceSlot ``definition`` (with the slot's
        ``gpid``) on top of the stack at ``location`` of a map, with no
        command logged: the starting state a save records, as a designer
        lays it out before saving a predefined setup."""
        x, y = self.point(map_name, location)
        pid = self._new_piece(definition, map_name, x, y, gpid)
        target = next((s for s in self.stacks.values() if s.map == map_name and (s.x, s.y) == (x, y)), None)
        if target is None:
            target = GameStack(self.new_id(), map_name, x, y, [])
            self.stacks[target.id] = target
        target.members.append(pid)
        return pid

    def _expanded(self, definition: str) -> PieceDef:
        """A slot's piece as it enters the game (:func:`expand_prototypes`);
        a prototype the module lacks is warned of the first time it is met."""
        return expand_prototypes(PieceDef.parse(definition), self.prototypes, missing=self.missing_prototypes)

    def _warn_missing_prototypes(self) -> None:
        """One warning naming the prototypes met since the last one that the
        module does not define (the set-up's at the end of ``__init__``)."""
        new = self.missing_prototypes - self._warned_prototypes
        if new:
            self._warned_prototypes |= new
            where = f"{self.module.file}: " if self.module.file else ""
            warnings.warn(f"{where}the module does not define prototype(s) {', '.join(sorted(new))}: "
                          "pieces using them lack their traits (VASSAL expands a missing prototype to "
                          "nothing)", MissingPrototypeWarning, stacklevel=4)

    def _new_piece(self, definition: str, map_name: str | None, x: int, y: int, gpid: str) -> str:
        piece = self._expanded(definition)
        if any(t.prefix == "obs;" for t in piece.traits):
            # a piece's state is what its traits' getState write: a mask's is
            # Obscurable.myGetState's (``null;`` unmasked), whatever the slot says
            piece = PieceDef.from_traits([t.with_state(ObscuredState.parse(t.state).encode())
                                          if t.prefix == "obs;" else t for t in piece.traits], id=piece.id)
        pid = self.new_id()
        self.pieces[pid] = PlacedPiece(pid, piece, map_name, x, y, gpid)
        return pid

    def _add_command(self, pid: str) -> str:
        p = self.pieces[pid]
        basic = p.piece.basic_state()
        basic.map, basic.x, basic.y, basic.gpid = (p.map or "null"), p.x, p.y, p.gpid
        basic.properties = {"UniqueID": pid}
        traits = list(p.piece.traits)
        traits[-1] = traits[-1].with_state(basic.encode())
        piece = PieceDef.from_traits(traits)
        p.piece = piece
        return AddPiece.build(pid, piece.type, piece.state).text

    def _stack_command(self, stack: GameStack) -> str:
        state = encode_sequence([stack.map, str(stack.x), str(stack.y)] + stack.members + ["@@0"], ";")
        return AddPiece.build(stack.id, "stack", state or "").text

    def restore_text(self) -> str:
        """The ``begin_save … end_save`` part (§4.4) for the current state."""
        pieces = [""] + [self._add_command(pid) for pid in self.pieces]
        pieces += [self._stack_command(s) for s in self.stacks.values() if s.members]
        pieces += [AddPiece.build(d.id, d.pile.type.encode(), d.state()).text for d in self.decks.values()]
        top = ["begin_save", "", encode_sequence(pieces, ESC) or ""]
        for p in self.players:
            top.append(encode_sequence(["PLAYER", p.password, p.name, p.side], "\t") or "")
        top += self._setup_boards
        top += ["SETUP_STACK\t"]
        top += [f"TURN{tracker}\t{state}" for tracker, state in self.turn_states.items()]
        if isinstance(self.module, ExtendedModule):     # each extension's RegCmd, registered after the module's
            top += [encode_sequence(["EXT", extension_name(x), x.buildfile.version], "\t") or ""
                    for x in self.module.extensions]
        top += ["end_save"]
        return encode_sequence(top, ESC) or ""

    def load_saved_state(self, restore: Sequence[Node]) -> None:
        """Take the pieces, stacks and decks of a save's restore part
        (``SavedGame.restore_part``, §4.4) in place of the module's set-up:
        each piece as the save holds it (expanded, with its states), where
        its BasicPiece says it is; each stack with its members; each deck by
        its type's name (the module's DrawPile of that name, else one made
        of the deck's own type and position).  New ids continue after the
        largest id of the save."""
        self.pieces.clear()
        self.stacks.clear()
        self.decks.clear()
        piles = {pile.name: pile for pile in draw_piles(self.module.buildfile)}
        largest = self._next_id - 1
        for node in restore:
            for command in leaf_commands(node):
                if not isinstance(command, AddPiece) or command.piece_id is None:
                    continue
                pid = command.piece_id
                if pid.isdigit():
                    largest = max(largest, int(pid))
                if command.is_stack:
                    st = parse_stack_state(command.state, place=f"stack {pid}")
                    if st.map is not None and st.members:
                        self.stacks[pid] = GameStack(pid, st.map, st.x, st.y, list(st.members))
                elif command.type.startswith(DECK_ID):
                    deck_type = DeckType.parse(command.type)
                    ds = DeckState.parse(command.state)
                    pile = piles.get(deck_type.name) or DrawPileDef(deck_type.name, ds.map or "", ds.x, ds.y,
                                                                    deck_type)
                    self.decks[pile.name] = GameDeck(pid, pile, ds.map or pile.map, ds.x, ds.y, ds.face_down,
                                                     list(ds.cards))
                else:
                    piece = PieceDef.parse(command.text, place=f"piece {pid}", fields=command.fields)
                    basic = piece.basic_state()
                    self.pieces[pid] = PlacedPiece(pid, piece, basic.map, basic.x, basic.y, basic.gpid)
        self._next_id = largest + 1

    def _name(self, pid: str) -> str:
        return self.pieces[pid].piece.name

    # -- decks, hands and masks (docs/vassal-format.md §4.12) ----------------------------
    def _make_deck(self, pile: DrawPileDef) -> None:
        """``DrawPile.initializeContents``/``makeDeck``: the pile's own slots
        are its cards (bottom first), the Deck takes the pile's type and
        position, face down unless the pile says Never/MenuDefaultUp."""
        cards: list[str] = []
        for el in self.module.buildfile.components("map.DrawPile"):
            if el.get("name", "") != pile.name:
                continue
            for slot in el.iter(P + "widget.PieceSlot", P + "widget.CardSlot"):
                text = self.module.buildfile.text_of(slot)
                cards.append(self._new_piece(text, None, pile.x, pile.y, slot.get("gpid", "")))
            break
        deck = GameDeck(self.new_id(), pile, pile.map, pile.x, pile.y, pile.face_down, cards)
        self.decks[pile.name] = deck

    def deck(self, name: str) -> GameDeck:
        if name not in self.decks:
            raise VmodError(f"the module has no DrawPile named {name!r}", file=self.module.file)
        return self.decks[name]

    def _deck_of(self, piece_id: str) -> GameDeck | None:
        for d in self.decks.values():
            if piece_id in d.members:
                return d
        return None

    def _trait_state(self, piece_id: str, prefix: str, state: str) -> str | None:
        """Set the state of the piece's outermost ``prefix`` trait; returns
        the ``D/`` command (None when nothing changed, as a ChangeTracker
        logs nothing then)."""
        p = self.pieces[piece_id]
        traits = list(p.piece.traits)
        for i, trait in enumerate(traits):
            if trait.prefix == prefix:
                if trait.state == state:
                    return None
                old_state = p.piece.state
                traits[i] = trait.with_state(state)
                p.piece = PieceDef.from_traits(traits, id=p.piece.id)
                return ChangePiece.build(piece_id, p.piece.state, old_state).text
        return None

    def _has_trait(self, piece_id: str, prefix: str) -> bool:
        return any(t.prefix == prefix for t in self.pieces[piece_id].piece.traits)

    def _land(self, piece_id: str, map_name: str, x: int, y: int) -> tuple[str | None, list[str]]:
        """Where a dragged piece lands (PieceMover): the top of the stack or
        deck at the point (its id as the MovePiece's new-under), else a new
        stack of its own (the ``+/`` VASSAL logs after the move)."""
        for d in self.decks.values():
            if d.map == map_name and (d.x, d.y) == (x, y):
                under = d.members[-1] if d.members else None
                d.members.append(piece_id)
                return under, []
        target = next((st for st in self.stacks.values()
                       if st.map == map_name and (st.x, st.y) == (x, y)), None)
        if target is not None:
            under = target.members[-1]
            target.members.append(piece_id)
            return under, []
        stack = GameStack(self.new_id(), map_name, x, y, [piece_id])
        self.stacks[stack.id] = stack
        return None, [self._stack_command(stack)]

    def _take(self, piece_id: str) -> tuple[str | None, int, int, str | None]:
        """Take the piece out of its deck or stack: (old map, x, y, the piece
        below it there)."""
        p = self.pieces[piece_id]
        d = self._deck_of(piece_id)
        if d is not None:
            i = d.members.index(piece_id)
            d.members.remove(piece_id)
            return d.map, d.x, d.y, d.members[i - 1] if i > 0 else None
        return p.map, p.x, p.y, self._leave_stack(piece_id)

    def _leave_stack(self, piece_id: str) -> str | None:
        """Take the piece out of its stack (an emptied stack is gone): the
        piece that was below it there."""
        old_stack = self.stack_of(piece_id)
        if old_stack is None:
            return None
        i = old_stack.members.index(piece_id)
        old_under = old_stack.members[i - 1] if i > 0 else None
        old_stack.members.remove(piece_id)
        if not old_stack.members:
            del self.stacks[old_stack.id]
        return old_under
