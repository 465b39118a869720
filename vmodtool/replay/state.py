"""The game state of a replay: pieces, stacks and maps, changed exactly as
VASSAL 3.7.26 changes them (``docs/vassal-format.md`` §4.6, §4.9).

The model mirrors VASSAL's objects, quirks included, because the stacking
outcome of a move depends on them:

* a :class:`Piece` has its *own* map and position; inside a stack its
  effective map and position are the stack's (``BasicPiece.getPosition``
  defers to the parent), and the map written into its state string is its
  own map field (``BasicPiece.getState`` uses the field);
* a :class:`Stack` lists its members bottom → top;
* a :class:`MapState` holds the top-level objects (stacks and unstacked
  pieces) in the order they were added; emptied stacks stay there, as in
  VASSAL, but never take part in merges.

Piece state strings are kept as per-trait tokens (outermost first) plus the
BasicPiece state; the type string is kept raw and parsed only when a name
or a property is asked for.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator

from vmodtool.bounded import BoundedCache
from vmodtool.errors import FormatError
from vmodtool.vassal.decks import DeckState, DeckType
from vmodtool.vassal.pieces import PieceDef, Trait, java_int, split_chain, split_chain_levels, written_pairs
from vmodtool.vassal.sequence import decode_sequence, encode_sequence

__all__ = ["Piece", "Stack", "Deck", "GameObject", "MapState", "GameState", "split_nested", "type_tokens"]

UNIQUE_ID = "UniqueID"


# --------------------------------------------------------------------------
# nested TAB strings (Decorator type/state chains)

def split_nested(text: str, count: int) -> list[str]:
    """Split a nested decorator string (``t0 TAB esc(t1 TAB esc(t2 …))``)
    into ``count`` tokens, outermost first, as ``Decorator.setState`` does;
    a state with fewer levels gives fewer tokens.

    Fast path: when the text has exactly ``count - 1`` TABs, no quote, and
    the TAB after token *i* carries exactly *i* escaping backslashes, every
    TAB is a separator and the tokens are the TAB-split parts minus those
    backslashes (escaping adds one backslash per level in front of each
    delimiter and nothing else).  Anything else takes VASSAL's level-by-level
    decoding."""
    if "'" not in text:
        parts = text.split("\t")
        if len(parts) == count:
            ok = True
            for i in range(1, count - 1):
                part = parts[i]
                if not part.endswith("\\" * i) or part.endswith("\\" * (i + 1)):
                    ok = False
                    break
                parts[i] = part[:-i]
            if ok and (count < 2 or not parts[0].endswith("\\")):
                return parts
    if count < 1:
        return []
    # the first count - 1 levels read in one pass (the level-by-level
    # decoding where that cannot be done), then the still-nested rest
    out, rest = split_chain_levels(text, count - 1)
    if rest is not None:
        out.append(rest)
    return out


#: the two caches here: a process replaying game after game (a batch
#: worker) holds no more than 50,000 entries and 32 MiB of key text in each
#: (the split tokens take as much again)
_SPLIT_CACHE: BoundedCache[tuple[str, int], tuple[str, ...]] = BoundedCache(50_000)


def split_levels(text: str, count: int) -> tuple[str, ...]:
    """:func:`split_nested` as a tuple, cached: a piece's state takes few
    values over a game (a ChangePiece's old state is mostly the new state
    of the one before), so most states are split once."""
    key = (text, count)
    found = _SPLIT_CACHE.get(key)
    if found is None:
        found = _SPLIT_CACHE.remember(key, tuple(split_nested(text, count)), len(text))
    return found


_TYPE_CACHE: BoundedCache[str, tuple[str, ...]] = BoundedCache(50_000)


def type_tokens(type_text: str) -> tuple[str, ...]:
    """The per-trait type tokens of a type chain (cached: many pieces share
    one type)."""
    found = _TYPE_CACHE.get(type_text)
    if found is not None:
        return found
    if "'" not in type_text and "\\" not in type_text:
        toks = type_text.split("\t")
    else:
        toks = split_chain(type_text)       # every level, in one pass where it can be
    return _TYPE_CACHE.remember(type_text, tuple(toks), len(type_text))


def _split_basic(state: str) -> tuple[str, int, int]:
    """Map id and position of a BasicPiece (or stack) state."""
    if "\\" not in state and "'" not in state:
        toks = state.split(";", 3)
    else:
        toks = decode_sequence(state, ";")
    map_id = toks[0] if toks else "null"
    x = java_int(toks[1]) if len(toks) > 1 else None
    y = java_int(toks[2]) if len(toks) > 2 else None
    return map_id, x or 0, y or 0


# --------------------------------------------------------------------------
# objects

class Piece:
    """A game piece (decorator chain around a BasicPiece).

    ``type`` is the raw type chain; ``levels`` the decorator state tokens
    (outermost first, the BasicPiece's excluded); ``basic`` the BasicPiece
    state token.  ``map``/``x``/``y`` are the piece's own fields; use
    :attr:`current_map` and :attr:`position` for where it is.

    ``_state`` is the whole state string the levels were (or will be)
    split from, None once a level changed: while it is set, equal ``_state``
    means equal levels."""

    __slots__ = ("id", "type", "ntraits", "_levels", "_state", "basic", "map", "x", "y",
                 "parent", "_def", "__weakref__")
    is_stack = False

    def __init__(self, piece_id: str | None, type_text: str) -> None:
        self.id = piece_id
        self.type = type_text
        self.ntraits = len(type_tokens(type_text))
        self._levels: list[str] | None = []
        self._state: str | None = None
        self.basic = "null;0;0"
        self.map: MapState | None = None
        self.x = 0
        self.y = 0
        self.parent: Stack | None = None
        self._def: PieceDef | None = None

    @classmethod
    def fresh(cls, piece_id: str | None, type_text: str, ntraits: int, state: str, basic: str,
              x: int, y: int) -> Piece:
        """A new piece, off every map, with a whole state that splits on its
        TABs (what ``__init__`` then :meth:`set_raw_state` and setting the
        BasicPiece state ``basic`` at x, y give, without parsing again)."""
        p = cls.__new__(cls)
        p.id = piece_id
        p.type = type_text
        p.ntraits = ntraits
        p._levels = None
        p._state = state
        p.basic = basic
        p.map = None
        p.x = x
        p.y = y
        p.parent = None
        p._def = None
        return p

    # -- where ------------------------------------------------------------
    @property
    def current_map(self) -> MapState | None:
        parent = self.parent
        return parent.map if parent is not None else self.map

    # -- trait states -------------------------------------------------------
    @property
    def levels(self) -> list[str]:
        """The decorator state tokens, outermost first (split on first use
        after a whole state was set)."""
        levels = self._levels
        if levels is None:
            levels = list(split_levels(self._state or "", self.ntraits)[:-1])
            while len(levels) < self.ntraits - 1:
                levels.append("")
            self._levels = levels
        return levels

    def set_raw_state(self, state: str) -> str | None:
        """Take a whole state string when every TAB in it separates two
        trait levels (the usual case); the levels are split on demand.
        Returns the BasicPiece state token, or None when the state needs the
        full decoding."""
        n = self.ntraits
        if state.count("\t") != n - 1 or "'" in state:
            return None
        self._state = state
        self._levels = None
        self._def = None
        return state[state.rfind("\t") + 1:] if n > 1 else state

    def levels_key(self) -> str | tuple[str, ...]:
        """Something equal for equal decorator states (cheap when the raw
        state is still whole)."""
        if self._levels is None and self._state is not None:
            return self._state[: self._state.rfind("\t") + 1]
        return tuple(self.levels)

    @property
    def position(self) -> tuple[int, int]:
        parent = self.parent
        if parent is not None:
            return parent.x, parent.y
        return self.x, self.y

    # -- state ------------------------------------------------------------
    def state_string(self) -> str:
        """The piece's full state as VASSAL's ``getState`` writes it."""
        tokens = list(self.levels)
        tokens.append(self.basic_state_string())
        text = tokens[-1]
        for token in reversed(tokens[:-1]):
            text = encode_sequence([token, text], "\t") or ""
        return text

    def basic_state_string(self) -> str:
        """``BasicPiece.getState``: own map field, effective position, gpid,
        persistent properties (always with their count, as 3.4+ writes)."""
        toks = decode_sequence(self.basic, ";")
        x, y = self.position
        gpid = toks[3] if len(toks) > 3 else ""
        props = _props(toks)
        out: list[str] = [self.map.name if self.map is not None else "null", str(x), str(y),
                          gpid, str(len(props) // 2)]
        out.extend(props)
        return encode_sequence(out, ";") or ""

    def persistent_properties(self) -> dict[str, str]:
        props = _props(decode_sequence(self.basic, ";"))
        return {props[i]: props[i + 1] for i in range(0, len(props) - 1, 2)}

    def definition(self) -> PieceDef:
        """The piece as a :class:`PieceDef` (type and current states),
        cached until the state changes."""
        if self._def is None:
            types = type_tokens(self.type)
            states = list(self.levels) + [self.basic]
            traits = [Trait(t, states[i] if i < len(states) else "")
                      for i, t in enumerate(types)]
            self._def = PieceDef.from_traits(traits, self.id)
        return self._def

    @property
    def name(self) -> str:
        """The piece's name; ``""`` when its trait chain cannot be decoded
        (the engine warned about it, with the step, when the piece entered
        the game)."""
        try:
            return self.definition().name
        except FormatError:
            return ""

    def get_property(self, key: str) -> str | None:
        """One property, ``None`` when absent or when the trait chain cannot
        be decoded."""
        try:
            return self.definition().get_property(key)
        except FormatError:
            return None

    def definition_problem(self) -> str | None:
        """Why the trait chain cannot be decoded (or None)."""
        try:
            _ = self.definition().name
        except FormatError as exc:
            return str(exc)
        return None

    @property
    def unit_id(self) -> str | None:
        return self.get_property("UnitId")

    @property
    def no_stack(self) -> bool:
        """VASSAL's ``NO_STACK`` property: an ``immob;`` trait whose stacking
        option is not ``L`` (or a deck)."""
        if "immob;" not in self.type:
            return self.type.endswith("deck;") or self.type.startswith("deck;")
        for tok in type_tokens(self.type):
            if tok.startswith("immob;"):
                fields = decode_sequence(tok, ";")
                stacking = fields[3] if len(fields) > 3 else "R"
                return not stacking.startswith("L")
        return False

    def __repr__(self) -> str:
        return f"Piece({self.id!r})"


def _props(toks: list[str]) -> list[str]:
    if len(toks) <= 4:
        return []
    count = java_int(toks[4]) or 0
    written = written_pairs(toks)
    out: list[str] = []
    for i in range(min(max(count, 0), written)):
        k = 5 + 2 * i
        out.append(toks[k])
        out.append(toks[k + 1] if k + 1 < len(toks) else "")
    if count > written:
        # every pair past the tokens is ("", ""): one key of VASSAL's property
        # map, kept once (a damaged count of 2**31 would be a list of 2**32)
        out += ["", ""]
    return out


class Stack:
    """A stack: members bottom → top, its map and position, its layer."""

    __slots__ = ("id", "members", "map", "x", "y", "layer", "__weakref__")
    is_stack = True
    parent = None

    def __init__(self, stack_id: str | None) -> None:
        self.id = stack_id
        self.members: list[Piece] = []
        self.map: MapState | None = None
        self.x = 0
        self.y = 0
        self.layer = -1

    @property
    def current_map(self) -> MapState | None:
        return self.map

    @property
    def position(self) -> tuple[int, int]:
        return self.x, self.y

    def set_map(self, m: MapState | None) -> None:
        """``Stack.setMap``: also sets each member's own map field."""
        self.map = m
        for member in self.members:
            member.map = m

    # -- Stack.java operations ---------------------------------------------
    def remove(self, p: Piece) -> None:
        members = self.members
        for i in range(len(members)):
            if members[i] is p:
                del members[i]
                break
        p.parent = None

    def insert_child(self, child: Piece, index: int) -> None:
        if child.parent is not None:
            child.parent.remove(child)
        elif child.map is not None:
            child.map.remove(child)
        child.parent = self
        child.map = self.map  # BasicPiece.setParent: the map follows the parent
        index = max(0, min(index, len(self.members)))
        self.members.insert(index, child)

    def insert(self, p: Piece, pos: int) -> None:
        pos = max(0, min(pos, len(self.members)))
        try:
            index = self.members.index(p)
        except ValueError:
            self.insert_child(p, pos)
            return
        if pos > index:
            self.members.insert(pos + 1, p)
            del self.members[index]
        else:
            del self.members[index]
            self.members.insert(pos, p)

    def state_string(self) -> str:
        out: list[str] = [self.map.name if self.map is not None else "null",
                          str(self.x), str(self.y)]
        out += [m.id or "null" for m in self.members]
        out.append(f"@@{self.layer}")
        return encode_sequence(out, ";") or ""

    def __repr__(self) -> str:
        return f"Stack({self.id!r}, {len(self.members)} pieces)"


class Deck(Stack):
    """A VASSAL Deck (``counters/Deck.java``, a Stack): its cards are its
    members bottom → top (the top card last, the one a plain draw takes from
    a deck that does not shuffle); ``type`` is the raw ``deck;`` type,
    ``deck_type`` its fields; ``face_down`` the state's flag."""

    __slots__ = ("type", "deck_type", "face_down")

    def __init__(self, deck_id: str | None, type_text: str) -> None:
        super().__init__(deck_id)
        self.type = type_text
        self.deck_type = DeckType.parse(type_text)
        self.face_down = self.deck_type.initially_face_down

    @property
    def name(self) -> str:
        return self.deck_type.name

    def state_string(self) -> str:
        """``Deck.getState``."""
        return DeckState(self.map.name if self.map is not None else None, self.x, self.y,
                         self.face_down, tuple(m.id or "null" for m in self.members)).encode()

    def __repr__(self) -> str:
        return f"Deck({self.id!r}, {self.name!r}, {len(self.members)} cards)"


#: what a map holds at top level and the game registers by id
GameObject = Piece | Stack

_MISSING = object()


def _point(x: int, y: int) -> Hashable:
    """The key of a map point in :class:`MapState`'s index: one int (x
    above, y's 32 bits below: no object for the GC to track) when y is a
    Java int, else the (x, y) tuple."""
    return (x << 32) | (y & 0xFFFFFFFF) if -0x80000000 <= y < 0x80000000 else (x, y)


class MapState:
    """A map: its name (= id) and its top-level objects in drawing order."""

    __slots__ = ("name", "pieces", "stacking", "known", "_at", "_key", "_seq", "_next")

    def __init__(self, name: str, *, stacking: bool = True, known: bool = True) -> None:
        self.name = name
        self.pieces: dict[GameObject, None] = {}
        self.stacking = stacking
        self.known = known
        # top-level objects by point, so that a drop finds the stack at its
        # point without scanning the whole map (the engine calls relocate()
        # whenever a top-level object's x/y change): ``_key`` holds each
        # one's point as last indexed, ``_at`` the objects by point, built
        # from ``_key`` on the first at() (a saved state adds and removes
        # thousands of objects that no drop looks for) and kept from then on
        # (a point is one int when y fits 32 bits, else an (x, y) tuple: an
        # int is no object the GC tracks)
        self._at: dict[Hashable, dict[GameObject, None]] | None = None
        self._key: dict[GameObject, Hashable] = {}
        # drawing order without scanning the map: a number per top-level
        # object, increasing in the order of ``pieces``
        self._seq: dict[GameObject, int] = {}
        self._next = 0

    def _index(self, obj: GameObject) -> None:
        x, y = obj.x, obj.y
        key: Hashable = (x << 32) | (y & 0xFFFFFFFF) if -0x80000000 <= y < 0x80000000 else (x, y)  # _point
        self._key[obj] = key
        at = self._at
        if at is not None:
            bucket = at.get(key)
            if bucket is None:
                at[key] = {obj: None}
            else:
                bucket[obj] = None

    def _unindex(self, obj: GameObject) -> None:
        key = self._key.pop(obj, None)
        if key is not None and self._at is not None:
            bucket = self._at.get(key)
            if bucket is not None:
                bucket.pop(obj, None)
                if not bucket:
                    del self._at[key]

    def _points(self) -> dict[Hashable, dict[GameObject, None]]:
        at = self._at
        if at is None:
            at = self._at = {}
            for obj, key in self._key.items():
                bucket = at.get(key)
                if bucket is None:
                    at[key] = {obj: None}
                else:
                    bucket[obj] = None
        return at

    @property
    def stamp(self) -> tuple[int, int]:
        """Changes whenever a top-level object is added here or taken off
        (equal stamps: the same top-level objects as then)."""
        return self._next, len(self.pieces)

    def in_drawing_order(self, objs: Iterable[GameObject]) -> list[GameObject]:
        """Those of ``objs`` that are top-level here, bottom first (the order
        of :attr:`pieces`, without scanning the map)."""
        seq = self._seq
        return sorted((o for o in objs if o in seq), key=seq.__getitem__)

    def relocate(self, obj: GameObject) -> None:
        """Re-index ``obj`` after its x/y (or its members) changed, if it is
        top-level here."""
        if obj in self.pieces:
            self._unindex(obj)
            self._index(obj)

    def at(self, x: int, y: int) -> list[GameObject]:
        """Top-level objects exactly at (x, y), in drawing order."""
        points = self._points()
        key = _point(x, y)
        bucket = points.get(key)
        if not bucket:
            return []
        if len(bucket) == 1:
            return list(bucket)
        # Empty stacks left behind by earlier moves (VASSAL keeps them on the
        # map) take no part in a drop: drop them from the index, or a point
        # visited often would collect them all.  A stack that gets members
        # again is re-indexed by relocate()/add().
        empties = [o for o in bucket if isinstance(o, Stack) and not o.members
                   and not isinstance(o, Deck)]
        for o in empties:
            self._unindex(o)
        bucket = points.get(key)
        if not bucket:
            return []
        if len(bucket) == 1:
            return list(bucket)
        return sorted(bucket, key=self._seq.__getitem__)

    def remove(self, obj: GameObject) -> None:
        if self.pieces.pop(obj, _MISSING) is not _MISSING:
            self._unindex(obj)
            del self._seq[obj]

    def add_new(self, obj: GameObject) -> None:
        """:meth:`add` for an object on no map and in no stack whose map
        field (and a stack's members' map fields) the caller has set to
        this map: what :meth:`add` then does, without its checks."""
        self.pieces[obj] = None
        self._seq[obj] = self._next
        self._next += 1
        self._index(obj)

    def add(self, obj: GameObject) -> None:
        """``Map.addPiece``: take the object out of its stack and its other
        map, put it on top of this map."""
        if obj in self.pieces:
            self.relocate(obj)      # its x/y may have changed
            return
        parent = obj.parent
        if parent is not None and isinstance(obj, Piece):
            parent.remove(obj)
        own = obj.map
        if own is not None and own is not self:
            own.remove(obj)
        if isinstance(obj, Stack):
            obj.set_map(self)
        else:
            obj.map = self
        self.pieces[obj] = None
        self._seq[obj] = self._next
        self._next += 1
        self._index(obj)

    def __repr__(self) -> str:
        return f"MapState({self.name!r}, {len(self.pieces)} top-level)"


class GameState:
    """Registered pieces and stacks by id, maps by id, global properties,
    turn trackers and the roster."""

    def __init__(self) -> None:
        self.pieces: dict[str, GameObject] = {}
        self.maps: dict[str, MapState] = {}
        self.global_properties: dict[tuple[str | None, str], str] = {}
        self.turns: dict[str, str] = {}
        self.boards: dict[str, list[tuple[str, bool, int, int]]] = {}
        #: whether any Deck was registered (the replay looks for card
        #: events only then, or when the module has hands)
        self.has_decks = False
        self._new_ids = 0

    def new_id(self) -> str:
        """An id for a stack VASSAL would create with a fresh timestamp id
        (replay-generated; the log's own ``+/`` usually replaces it)."""
        self._new_ids += 1
        return f"replay-{self._new_ids}"

    def register(self, obj: GameObject) -> str:
        """Register by id (a fresh one when it has none); returns the id."""
        if obj.id is None:
            obj.id = self.new_id()
        if isinstance(obj, Deck):
            self.has_decks = True
        self.pieces[obj.id] = obj
        return obj.id

    def get(self, piece_id: str | None) -> GameObject | None:
        return self.pieces.get(piece_id) if piece_id is not None else None

    def decks(self) -> Iterator[Deck]:
        """Registered decks, in registration order."""
        for obj in self.pieces.values():
            if isinstance(obj, Deck):
                yield obj

    def game_pieces(self) -> Iterator[Piece]:
        """Registered non-stack pieces, in registration order."""
        for obj in self.pieces.values():
            if isinstance(obj, Piece):
                yield obj
