"""VASSAL piece definitions: ``+/id/type/state`` split into a trait chain.

A piece is a chain of traits (decorators) around one basic piece
(``docs/vassal-format.md`` §3.2): the type string is ``myType(outer)`` TAB
``type(inner)`` with the inner part escaped one level deeper, the state string
nests the same way, and PieceSlot / PrototypeDefinition text and the AddPiece
command body are ``+/`` + SequenceEncoder('/') of ``[id or null, type, state]``.

:class:`PieceDef` splits such text exactly as VASSAL's ``BasicCommandEncoder``
and ``Decorator.setState`` do (first TAB token = this trait, second token =
the inner piece, recursively), keeps every trait's raw ``type``/``state``
tokens, and re-encodes an untouched definition to the identical original
string.  Typed access to the fields of a trait is in
:mod:`vmodtool.vassal.traits`; :meth:`PieceDef.name` and
:meth:`PieceDef.properties` evaluate the piece as VASSAL does without a game
(no map, no player, prototypes unresolved).

Also here: the states of the non-trait basic types, :class:`BasicPieceState`
(``mapId;x;y;gpid;n;k1;v1…``, §3.3) and :class:`StackState`
(``mapId;x;y;id1;…;idN;@@layer``, §4.6).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice, repeat
from math import isqrt
from operator import getitem
from typing import TYPE_CHECKING, cast

from vmodtool.bounded import BoundedCache
from vmodtool.errors import FormatError, PathLike
from vmodtool.vassal.sequence import SequenceEncoder, decode_sequence, digits_value, encode_sequence, unquote_token

if TYPE_CHECKING:  # traits imports this module
    from vmodtool.vassal.traits import TraitView

__all__ = [
    "Trait",
    "PieceDef",
    "BasicPieceState",
    "StackState",
    "parse_basic_state",
    "parse_stack_state",
    "type_prefix",
    "BASIC_PREFIXES",
]

#: prefixes of the non-trait (innermost) types: BasicPiece, Stack, Deck (§3.2)
BASIC_PREFIXES = ("piece;", "stack", "deck;")

_INT_RE = re.compile(r"[+-]?[0-9]+\Z")


def type_prefix(type_text: str) -> str:
    """The prefix VASSAL looks a trait up by: the text up to and including
    the first ``;``, or the whole text when it has none (``stack``), §3.2."""
    i = type_text.find(";")
    return type_text[: i + 1] if i >= 0 else type_text


def java_int(token: str | None) -> int | None:
    """``Integer.parseInt`` or ``None`` (no whitespace, optional sign)."""
    if token is not None and len(token) < 10 and token.isascii() and token.isdigit():
        return int(token)           # the common case: a small non-negative number
    if token is None or not _INT_RE.match(token):
        return None
    value = digits_value(token)
    if value is None or not -(2 ** 31) <= value < 2 ** 31:
        return None
    return value


# --------------------------------------------------------------------------
# TAB-nested chains (``t0 TAB esc(t1 TAB esc(t2 …))``, §3.2)
#
# VASSAL splits such a chain one level at a time: the first TAB token is this
# trait, the second the inner rest, which is decoded again.  Done literally
# that re-splits (and copies) the whole remaining string at every level:
# quadratic in the depth, and PoG pieces have 60–160 levels.  The readers
# below do the same in one pass over the original text.  Escaping adds one
# backslash in front of every TAB per level and touches nothing else, so a
# TAB preceded by a run of exactly ``r`` backslashes in the original text is
# a separator at level ``r`` and an escaped TAB at every level above it; the
# outer quotes VASSAL strips from a token (§3.1.1) are never TABs or
# backslashes, so they only move the ends of the current level.  Text in
# which some TAB would end a level early (a third token at some level, which
# VASSAL drops) is detected by counting and read by the literal algorithm.


def _unescape_tabs(text: str, times: int) -> str:
    """``text`` with ``times`` escaping backslashes removed in front of each
    TAB (every TAB in it has at least that many)."""
    if times and "\t" in text:
        # one replacement per TAB: the leftmost match of ``times`` backslashes
        # + TAB is the one that ends at the TAB
        text = text.replace("\\" * times + "\t", "\t")
    return text


_RUNS: list[str] = [""]
_CUTS: list[slice] = [slice(None)]
#: runs this long and longer are made for the call, not kept (hostile text)
_KEEP_RUNS = 1024


def _runs(n: int) -> list[str]:
    """Runs of 0 … n backslashes (at least)."""
    if n >= _KEEP_RUNS:
        return ["\\" * k for k in range(n + 1)]
    while len(_RUNS) <= n:
        _RUNS.append("\\" * len(_RUNS))
        _CUTS.append(slice(None, -len(_CUTS)))
    return _RUNS


def _cuts(n: int) -> list[slice]:
    """The slices that drop 0 … n trailing characters (at least)."""
    if n >= _KEEP_RUNS:
        return [slice(None)] + [slice(None, -k) for k in range(1, n + 1)]
    _runs(n)
    return _CUTS


def _deepest(text: str) -> int:
    """A bound on the levels a chain in ``text`` can reach: level ``k`` ends
    with ``k`` backslashes of its own, so ``k`` levels need ``k(k-1)/2``
    of them (this keeps the runs made linear in the text)."""
    return isqrt(2 * len(text)) + 2


def _cut(parts: list[str], cuts: Iterable[slice]) -> list[str]:
    """Each part cut by its slice (in C)."""
    return cast("list[str]", list(map(getitem, parts, cuts)))


def _exact_runs(parts: list[str], count: int, size: int) -> bool:
    """Whether each of the first ``count`` parts (of a text of ``size``
    characters) ends with a run of exactly as many backslashes as its index
    (part ``k`` ends level ``k``): a plain nesting with no TAB inside a
    level's token, checked in C."""
    if count * (count - 1) // 2 > size:
        return False
    runs = _runs(count + 1)
    return all(map(str.endswith, parts[:count], runs)) and \
        not any(map(str.endswith, parts[:count], islice(runs, 1, None)))


def _rest_of(parts: list[str], level: int) -> str | None:
    """The text after the separator of level ``level - 1``, from the parts
    after it (each but the last ends with at least ``level`` backslashes,
    which it loses; None when one does not)."""
    if len(parts) == 1:
        return parts[0]
    if level:
        head = parts[:-1]
        if not all(map(str.endswith, head, repeat(_runs(level)[level]))):
            return None
        parts = _cut(head, repeat(_cuts(level)[level])) + parts[-1:]
    return "\t".join(parts)


def _chain_split(text: str, levels: int) -> tuple[list[str], str | None] | None:
    """:func:`_chain_linear` from one split at the TABs: a TAB after a run
    of exactly ``k`` backslashes ends level ``k``, one after a longer run is
    a TAB inside the token of that level (it loses ``k + 1`` backslashes);
    None for a shorter run, and for quoted text that ends with a quote
    (there a level's rest, which always ends where the text ends, may lose
    its quotes).  Elsewhere quotes only make each token lose its own."""
    if "'" not in text:
        return _split_tabs(text, levels)
    if text.endswith("'"):
        return None
    found = _split_tabs(text, levels)
    if found is None:
        return None
    tokens, rest = found
    return [unquote_token(t) for t in tokens], rest


def _split_tabs(text: str, levels: int) -> tuple[list[str], str | None] | None:
    parts = text.split("\t")
    last = len(parts) - 1
    count = min(last, levels)
    if _exact_runs(parts, count, len(text)):    # no TAB inside a token (states, most types)
        tokens = _cut(parts[:count], _cuts(count))
        if count < levels:                  # no inner part after the last level: its token is the rest
            tokens.append(parts[last])
            return tokens, None
        rest = _rest_of(parts[count:], count)
        return None if rest is None else (tokens, rest)
    runs = _runs(min(last + 1, _deepest(text)))
    tokens = []
    pending: list[str] = []         # the pieces of this level's token before its inner TABs
    level = i = 0
    while i < last and level < levels:
        part = parts[i]
        i += 1
        if part.endswith(runs[level + 1]):
            pending.append(part[:len(part) - level - 1])
            continue
        if level and not part.endswith(runs[level]):
            return None
        if level:
            part = part[:-level]
        if pending:
            pending.append(part)
            part = "\t".join(pending)
            pending = []
        tokens.append(part)
        level += 1
    if level < levels:              # no inner part after this level: the rest is its token
        pending.append(parts[last])
        tokens.append("\t".join(pending))
        return tokens, None
    rest = _rest_of(parts[i:], level)
    return None if rest is None else (tokens, rest)


def chain_rest(text: str, levels: int) -> tuple[int, str | None]:
    """``(len(tokens), rest)`` of :func:`split_chain_levels`, without
    making the tokens when the chain is a plain nesting: where the
    innermost trait's state is, for whoever needs nothing else of it."""
    if "'" not in text:
        parts = text.split("\t")
        last = len(parts) - 1
        count = min(last, levels)
        if _exact_runs(parts, count, len(text)):
            if count < levels:
                return count + 1, None
            rest = _rest_of(parts[count:], count)
            if rest is not None:
                return count, rest
    tokens, rest = split_chain_levels(text, levels)
    return len(tokens), rest


def _chain_linear(text: str, levels: int) -> tuple[list[str], str | None] | None:
    """At most ``levels`` levels of a chain: (the first token of each level,
    the rest after the last one or None when a level had no inner part);
    None when the text is not a plain nesting (the caller decodes it
    literally)."""
    found = _chain_split(text, levels)
    if found is not None:
        return found
    find, count = text.find, text.count
    tokens: list[str] = []
    start, end, k = 0, len(text), 0
    sep = "\t"                     # k backslashes + TAB: the separator of level k
    while k < levels:
        p = find(sep, start, end)
        while p > 0 and text[p - 1] == "\\":      # a longer run: a TAB escaped at this level
            p = find(sep, p + 1, end)
        deeper = "\\" + sep
        stop = end if p < 0 else p
        tabs = count("\t", start, stop)
        if tabs and tabs != count(deeper, start, stop):
            return None             # a TAB with fewer backslashes ended an outer level
        token = text[start:stop]
        if tabs:
            token = _unescape_tabs(token, k + 1)
        tokens.append(unquote_token(token))
        if p < 0:
            return tokens, None
        start = p + k + 1
        k += 1
        sep = deeper
        if end - start >= 2 and text[start] == "'" and text[end - 1] == "'":
            start += 1
            end -= 1
    tabs = count("\t", start, end)
    if tabs and k and tabs != count(sep, start, end):
        return None
    return tokens, _unescape_tabs(text[start:end], k)


def _chain_literal(text: str, levels: int) -> tuple[list[str], str | None]:
    """:func:`_chain_linear` the way VASSAL does it, level by level."""
    tokens: list[str] = []
    rest: str | None = text
    while len(tokens) < levels:
        assert rest is not None
        toks = decode_sequence(rest, "\t")
        tokens.append(toks[0])
        rest = toks[1] if len(toks) > 1 else None
        if rest is None:
            break
    return tokens, rest


def split_chain_levels(text: str, levels: int) -> tuple[list[str], str | None]:
    """The first ``levels`` levels of a TAB-nested chain as
    ``Decorator.setState`` reads them: the first token of each level
    (outermost first) and the still-nested rest after them, or ``None`` for
    the rest when the chain has fewer levels (the tokens then end with the
    last level's whole text)."""
    found = _chain_linear(text, levels)
    return found if found is not None else _chain_literal(text, levels)


#: the keys a type cache keeps at most (it is emptied then)
_TYPE_CACHE_SIZE = 20000


def split_chain(text: str) -> list[str]:
    """Every level of a TAB-nested chain (a piece's type string): the
    per-trait tokens, outermost first."""
    return split_chain_levels(text, len(text) + 1)[0]


def _check_fields(text: str, file: PathLike | None, place: str | None, fields: Sequence[str] | None
                  ) -> Sequence[str]:
    """The ``/`` fields of ``+/id/type/state`` (at least three)."""
    if not isinstance(text, str) or not text.startswith("+/"):
        raise FormatError("a piece definition starts with '+/' (AddPiece)",
                          file=file, place=place)
    parts = decode_sequence(text, "/")[1:] if fields is None else fields
    if len(parts) < 3:
        what = "type" if len(parts) < 2 else "state"
        raise FormatError(f"piece definition has no {what} after '+/id/'",
                          file=file, place=place)
    return parts


def _type_chain(type_text: str) -> list[str]:
    """:func:`split_chain` of a piece's type, cached (pieces of one kind
    share one type string)."""
    types = _TYPE_CACHE.get(type_text)
    if types is None:
        types = split_chain(type_text)
        _TYPE_CACHE.remember(type_text, types, len(type_text))
    return types


#: the characters of keys a type cache keeps at most (it is emptied then)
_SHAPES_CHARS = 32 * 1024 * 1024

#: type chains already measured: (traits, the innermost trait's prefix)
_SHAPE_CACHE: BoundedCache[str, tuple[int, str]] = BoundedCache(_TYPE_CACHE_SIZE, _SHAPES_CHARS)
#: type chains already split (pieces of one kind share one type string)
_TYPE_CACHE: BoundedCache[str, list[str]] = BoundedCache(_TYPE_CACHE_SIZE, _SHAPES_CHARS)


def _type_shape(type_text: str) -> tuple[int, str]:
    """``(len(chain), type_prefix(chain[-1]))`` of :func:`split_chain` of
    a piece's type, cached, without making the tokens when the chain is a
    nesting VASSAL wrote (TABs inside tokens included)."""
    shape = _SHAPE_CACHE.get(type_text)
    if shape is None:
        shape = _measure_chain(type_text) or _shape_of(_type_chain(type_text))
        _SHAPE_CACHE.remember(type_text, shape, len(type_text))
    return shape


def _shape_of(types: list[str]) -> tuple[int, str]:
    return len(types), type_prefix(types[-1])


def _measure_chain(text: str) -> tuple[int, str] | None:
    """:func:`_type_shape` by the walk of :func:`_split_tabs` without its
    tokens; None where that walk would not decide (or the innermost token's
    prefix would need its pieces joined)."""
    if text.endswith("'"):
        return None                 # a rest may lose its quotes
    parts = text.split("\t")
    last = len(parts) - 1
    if _exact_runs(parts, last, len(text)):
        return last + 1, type_prefix(parts[last])
    runs = _runs(min(last + 1, _deepest(text)))
    level = start = 0
    for i in range(last):
        part = parts[i]
        if part.endswith(runs[level + 1]):
            continue                # a TAB inside this level's token
        if level and not part.endswith(runs[level]):
            return None
        level += 1
        start = i + 1
    first = parts[start]            # the innermost token starts with this piece
    if ";" not in first or first[:1] == "'":
        return None
    return level + 1, type_prefix(first)


def written_fields(text: str) -> tuple[str, str] | None:
    """The type field as written (its ``/`` still escaped) and the state
    field of ``+/id/type/state`` when they can be cut out without decoding
    the fields: the id and the state hold no ``/`` (they end at the first
    and the last one), nothing at their ends is quoted and the state holds
    no quote.  None otherwise.  Whether the type holds an unescaped ``/``
    (a fourth field) is for :func:`basic_state_written` to check."""
    i = text.find("/", 2)
    j = text.rfind("/")
    if not (2 <= i < j and text[i - 1] != "\\" and text[j - 1] != "\\" and text[:2] == "+/"):
        return None
    written = text[i + 1:j]
    state = text[j + 1:]
    if written[:1] == "'" or written[-1:] == "'" or "'" in state:
        return None
    return written, state


#: type fields as written -> the shape of their chain (None: not decided here)
_WRITTEN_SHAPES: BoundedCache[str, tuple[int, str] | None] = BoundedCache(_TYPE_CACHE_SIZE, _SHAPES_CHARS)


def _written_shape(written: str) -> tuple[int, str] | None:
    """:func:`_type_shape` of the type field ``written`` decodes to.
    Decoding only drops the backslash of each ``\\/`` (the field is one
    token, unquoted): no backslash in front of a TAB goes, so the chain's
    levels are those of the text as written."""
    shape: tuple[int, str] | None
    try:
        return _WRITTEN_SHAPES[written]
    except KeyError:
        pass
    pieces = written.split("/")
    if len(pieces) > 1 and not all(map(str.endswith, pieces[:-1], repeat("\\"))):
        shape = None                # a '/' not escaped: more fields than three
    else:
        shape = _measure_chain(written)
        if shape is not None and "\\" in shape[1]:
            shape = None            # the prefix itself would change
    _WRITTEN_SHAPES.remember(written, shape, len(written))
    return shape


def basic_state_written(written: str, state: str) -> BasicPieceState | None:
    """:meth:`PieceDef.basic_state_of` from :func:`written_fields`, without
    decoding the type: the BasicPiece state, or None when this cannot
    decide or the piece is not readable (then ``basic_state_of`` gives the
    answer and its error)."""
    shape = _written_shape(written)
    if shape is None:
        return None
    count, prefix = shape
    if prefix != "piece;":
        return None
    found, rest = chain_rest(state, count - 1)
    if rest is None:
        return None
    try:
        return parse_basic_state(rest, place=f"trait {count} (piece;)")
    except FormatError:
        return None


def _no_state(found: int, types: list[str], file: PathLike | None, place: str | None) -> FormatError:
    where = f"trait {found + 1} ({type_prefix(types[found])})"
    return FormatError(
        f"no state for this trait: the state has {found} level(s) for "
        f"{len(types)} trait(s)", file=file,
        place=f"{place}, {where}" if place else where)


def _split_definition(text: str, file: PathLike | None, place: str | None, fields: Sequence[str] | None
                      ) -> tuple[str, list[str], list[str], str]:
    """The id token, the per-trait type tokens, the decorators' state tokens
    and the basic piece's state of ``+/id/type/state`` (see
    :meth:`PieceDef.parse`, which raises what this raises)."""
    parts = _check_fields(text, file, place, fields)
    id_token, state_text = parts[0], parts[2]
    types = _type_chain(parts[1])
    last = len(types) - 1
    levels, rest = split_chain_levels(state_text, last)
    if rest is None:
        raise _no_state(len(levels), types, file, place)
    _check_basic(types, file, place)
    return id_token, types, levels, rest


def _check_basic(types: list[str], file: PathLike | None, place: str | None) -> None:
    _check_basic_prefix(len(types), type_prefix(types[-1]), file, place)


def _check_basic_prefix(count: int, prefix: str, file: PathLike | None, place: str | None) -> None:
    if prefix not in BASIC_PREFIXES:
        where = f"trait {count} ({prefix})"
        raise FormatError(
            "the innermost trait is not a basic piece (piece;, stack or deck;)",
            file=file, place=f"{place}, {where}" if place else where)


class Trait:
    """One trait of a piece (or its innermost basic piece), as raw text.

    ``type`` is the trait's own type token (prefix included, e.g.
    ``emb2;Flip;128;…``) and ``state`` its own state token, both exactly as
    VASSAL hands them to the trait (one escaping level removed).  ``innermost``
    says whether it is the basic piece at the bottom of the chain, which picks
    VASSAL's class table (basic pieces or decorators)."""

    __slots__ = ("type", "state", "innermost", "_prefix")

    def __init__(self, type: str, state: str = "", *, innermost: bool = False) -> None:
        if not isinstance(type, str) or not isinstance(state, str):
            raise TypeError("a trait's type and state are strings")
        self.type = type
        self.state = state
        self.innermost = innermost
        self._prefix: str | None = None

    @property
    def prefix(self) -> str:
        """The lookup prefix (``emb2;``, ``mark;``, ``piece;``, ``stack`` …)."""
        if self._prefix is None:
            self._prefix = type_prefix(self.type)
        return self._prefix

    @property
    def java_class(self) -> str:
        """The full Java class VASSAL builds for this trait
        (``VASSAL.counters.Embellishment``); an unknown decorator prefix is
        VASSAL's dummy ``VASSAL.counters.Marker`` (its raw text is kept)."""
        from vmodtool.vassal.traits import java_class_for
        return java_class_for(self)

    @property
    def known(self) -> bool:
        """False for a prefix VASSAL does not know (it makes a dummy Marker)."""
        from vmodtool.vassal.traits import is_known_prefix
        return is_known_prefix(self.prefix, self.innermost)

    def view(self) -> TraitView:
        """Typed read access to the fields of this trait
        (:class:`vmodtool.vassal.traits.TraitView` subclass)."""
        from vmodtool.vassal.traits import view_of
        return view_of(self)

    def with_state(self, state: str) -> Trait:
        """A copy of this trait with another state token."""
        return Trait(self.type, state, innermost=self.innermost)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Trait):
            return NotImplemented
        return (self.type, self.state, self.innermost) == (other.type, other.state,
                                                           other.innermost)

    def __hash__(self) -> int:
        return hash((self.type, self.state, self.innermost))

    def __repr__(self) -> str:
        return f"Trait({self.type!r}, {self.state!r}{', innermost=True' if self.innermost else ''})"


def _nest(tokens: Sequence[str]) -> str:
    """Nest per-trait tokens (outermost first) with TAB as VASSAL does:
    ``t0 TAB escape(t1 TAB escape(t2 …))``."""
    text = tokens[-1]
    for token in reversed(tokens[:-1]):
        text = SequenceEncoder("\t").append(token).append(text).value or ""
    return text


class PieceDef:
    """A piece definition: optional id and its trait chain, outermost first,
    the basic piece (``piece;``/``stack``/``deck;``) last.

    Build one with :meth:`parse` (keeps the original text, so :meth:`encode`
    returns it unchanged) or :meth:`from_traits` (encodes from the traits)."""

    __slots__ = ("id", "traits", "_raw", "_views", "_name")

    def __init__(self, traits: Sequence[Trait], id: str | None = None,
                 *, raw: str | None = None) -> None:
        if not traits:
            raise FormatError("a piece has at least its basic piece")
        self.id = id
        self.traits: tuple[Trait, ...] = tuple(traits)
        self._raw = raw
        self._views: list[TraitView] | None = None
        self._name: str | None = None

    # ------------------------------------------------------------------ parse
    @classmethod
    def parse(cls, text: str, *, file: PathLike | None = None, place: str | None = None,
              fields: Sequence[str] | None = None) -> PieceDef:
        """Split ``+/id/type/state`` into the trait chain, exactly as
        ``BasicCommandEncoder.decode`` + ``Decorator.setState`` do.

        Raises :class:`FormatError` (with ``place`` such as ``"trait 3
        (emb2;)"``) for text without ``+/``, a missing type or state, a chain
        without a basic piece, or a state with fewer levels than traits.
        ``fields`` are the ``/`` fields of ``text`` when the caller has them
        split already (:attr:`vmodtool.vassal.commands.AddPiece.fields`)."""
        id_token, types, levels, rest = _split_definition(text, file, place, fields)
        traits = [Trait(types[i], state) for i, state in enumerate(levels)]
        traits.append(Trait(types[-1], rest, innermost=True))
        return cls(traits, None if id_token == "null" else id_token, raw=text)

    @staticmethod
    def basic_state_of(text: str, *, fields: Sequence[str] | None = None) -> BasicPieceState:
        """``PieceDef.parse(text).basic_state()`` without building the trait
        chain (the same checks, the same errors): where a piece is, for
        whoever needs nothing else of it."""
        parts = _check_fields(text, None, None, fields)
        count, prefix = _type_shape(parts[1])
        found, rest = chain_rest(parts[2], count - 1)
        if rest is None:
            raise _no_state(found, _type_chain(parts[1]), None, None)
        _check_basic_prefix(count, prefix, None, None)
        if prefix != "piece;":
            raise FormatError("the basic type is not a BasicPiece", place=f"trait {count} ({prefix})")
        return parse_basic_state(rest, place=f"trait {count} (piece;)")

    @classmethod
    def from_traits(cls, traits: Sequence[Trait], id: str | None = None) -> PieceDef:
        """A new definition from traits (outermost first, basic piece last).
        The last trait is marked innermost; it must be a basic type."""
        if not traits:
            raise FormatError("a piece needs at least its basic piece")
        items = list(traits)
        last = items[-1]
        if type_prefix(last.type) not in BASIC_PREFIXES:
            raise FormatError("the last trait must be a basic piece (piece;, stack or deck;)",
                              place=f"trait {len(items)} ({type_prefix(last.type)})")
        items = [t if not t.innermost else Trait(t.type, t.state) for t in items[:-1]]
        items.append(Trait(last.type, last.state, innermost=True))
        return cls(items, id)

    # ----------------------------------------------------------------- encode
    @property
    def type(self) -> str:
        """The whole nested type string (outermost first)."""
        return _nest([t.type for t in self.traits])

    @property
    def state(self) -> str:
        """The whole nested state string (outermost first)."""
        return _nest([t.state for t in self.traits])

    def encode(self) -> str:
        """The ``+/id/type/state`` text: the original text when parsed and
        untouched, else :meth:`encode_computed`."""
        if self._raw is not None:
            return self._raw
        return self.encode_computed()

    def encode_computed(self) -> str:
        """Encode from the traits as ``GameModule.encode(new AddPiece(p))``
        does (for a parsed definition this equals the original text except
        where the original was not VASSAL's own encoding)."""
        return "+/" + (encode_sequence(
            [self.id if self.id is not None else "null", self.type, self.state], "/") or "")

    @property
    def is_untouched(self) -> bool:
        """True when :meth:`encode` returns the parsed original text."""
        return self._raw is not None

    # ----------------------------------------------------------------- access
    @property
    def basic(self) -> Trait:
        """The innermost trait (BasicPiece, Stack or Deck)."""
        return self.traits[-1]

    @property
    def decorators(self) -> tuple[Trait, ...]:
        """All traits but the basic piece, outermost first."""
        return self.traits[:-1]

    def __iter__(self) -> Iterator[Trait]:
        return iter(self.traits)

    def __len__(self) -> int:
        return len(self.traits)

    def views(self) -> list[TraitView]:
        """Typed views of all traits, outermost first (cached)."""
        if self._views is None:
            from vmodtool.vassal.traits import view_of
            self._views = [view_of(t) for t in self.traits]
        return self._views

    def find(self, what: str) -> list[TraitView]:
        """Views of the traits whose prefix (``"emb2;"``) or Java class
        (full ``VASSAL.counters.Marker`` or short ``Marker``) is ``what``."""
        if what.endswith(";"):
            # a prefix: no Java class ends so; the traits alone tell, and no
            # view is built when none matches (a saved piece's long chain)
            at = [i for i, t in enumerate(self.traits) if t.prefix == what]
            if not at:
                return []
            views = self.views()
            return [views[i] for i in at]
        out: list[TraitView] = []
        for view in self.views():
            cls = view.java_class
            if view.trait.prefix == what or cls == what or cls.rsplit(".", 1)[-1] == what:
                out.append(view)
        return out

    @property
    def name(self) -> str:
        """The piece name, as VASSAL's ``getName()`` of the outermost trait
        (see :func:`vmodtool.vassal.traits.piece_name`)."""
        if self._name is None:
            from vmodtool.vassal.traits import piece_name
            self._name = piece_name(self)
        return self._name

    def get_property(self, key: str) -> str | None:
        """One property as VASSAL's ``getProperty`` on the outermost trait
        would answer it without a game; ``None`` when no trait defines it."""
        from vmodtool.vassal.traits import piece_property
        return piece_property(self, key)

    def properties(self) -> dict[str, str]:
        """The properties a rules checker reads, by name
        (see :func:`vmodtool.vassal.traits.piece_properties`)."""
        from vmodtool.vassal.traits import piece_properties
        return piece_properties(self)

    def basic_state(self) -> BasicPieceState:
        """The BasicPiece state (map, position, gpid, persistent properties)."""
        if self.basic.prefix != "piece;":
            raise FormatError("the basic type is not a BasicPiece",
                              place=f"trait {len(self.traits)} ({self.basic.prefix})")
        return parse_basic_state(self.basic.state,
                                 place=f"trait {len(self.traits)} (piece;)")

    def stack_state(self) -> StackState:
        """The state of a ``stack`` definition (map, position, members, layer)."""
        if self.basic.prefix != "stack":
            raise FormatError("this definition is not a stack",
                              place=f"trait {len(self.traits)} ({self.basic.prefix})")
        return parse_stack_state(self.basic.state)

    # -------------------------------------------------------------- modifying
    def with_traits(self, traits: Sequence[Trait]) -> PieceDef:
        """A new (not untouched) definition with the same id."""
        return PieceDef.from_traits(traits, self.id)

    def replace_trait(self, index: int, trait: Trait) -> PieceDef:
        """A new definition with trait ``index`` (0 = outermost) replaced."""
        items = list(self.traits)
        items[index] = trait
        return self.with_traits(items)

    def with_id(self, id: str | None) -> PieceDef:
        """A new definition with another id (``None`` is written ``null``)."""
        return PieceDef.from_traits(self.traits, id)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PieceDef):
            return NotImplemented
        return self.id == other.id and self.traits == other.traits

    def __hash__(self) -> int:
        return hash((self.id, self.traits))

    def __repr__(self) -> str:
        return f"PieceDef(id={self.id!r}, traits={[t.prefix for t in self.traits]!r})"


# --------------------------------------------------------------------- states
@dataclass
class BasicPieceState:
    """A BasicPiece state ``mapId;x;y;gpid;n;k1;v1;…`` (§3.3).

    ``map`` is ``None`` for ``null``; ``properties`` are the persistent
    properties in order (empty for 3.2–3.3 states, which end after the gpid;
    ``has_count`` tells whether the count field was present)."""

    map: str | None = None
    x: int = 0
    y: int = 0
    gpid: str = ""
    properties: dict[str, str] = field(default_factory=dict)
    has_count: bool = True

    def encode(self) -> str:
        """Write the state as ``BasicPiece.getState`` does."""
        enc = SequenceEncoder(";")
        enc.append(self.map if self.map is not None else "null")
        enc.append(self.x).append(self.y).append(self.gpid)
        if self.has_count or self.properties:
            enc.append(len(self.properties))
            for key, value in self.properties.items():
                enc.append(key).append(value)
        return enc.value or ""


def written_pairs(toks: Sequence[str]) -> int:
    """How many of a BasicPiece state's property pairs (after ``map;x;y;
    gpid;count``) have their key written: the rest, up to the count, are
    ``("", "")``."""
    return max(0, (len(toks) - 4) // 2)


def parse_basic_state(text: str, *, place: str | None = None) -> BasicPieceState:
    """Read a BasicPiece state.  Unlike VASSAL (which silently reads 0), a
    non-integer x, y or property count is a :class:`FormatError`."""
    toks = decode_sequence(text, ";")
    map_id = toks[0] if toks else "null"
    coords = []
    for i, what in ((1, "x"), (2, "y")):
        tok = toks[i] if i < len(toks) else None
        if tok is None or tok == "":
            coords.append(0)
            continue
        value = java_int(tok)
        if value is None:
            raise FormatError(f"BasicPiece state {what} is not an integer: {tok!r}",
                              place=place)
        coords.append(value)
    gpid = toks[3] if len(toks) > 3 else ""
    props: dict[str, str] = {}
    has_count = len(toks) > 4
    if has_count:
        count = java_int(toks[4]) if toks[4] != "" else 0
        if count is None or count < 0:
            raise FormatError(f"BasicPiece state property count is not an integer: "
                              f"{toks[4]!r}", place=place)
        # every pair past the tokens is ("", ""): read once, not up to 2**31 times
        # (a count as large as a damaged file holds; VASSAL itself loops)
        for i in range(min(count, written_pairs(toks) + 1)):
            key = toks[5 + 2 * i] if 5 + 2 * i < len(toks) else ""
            prop_value = toks[6 + 2 * i] if 6 + 2 * i < len(toks) else ""
            props[key] = prop_value
    return BasicPieceState(None if map_id == "null" else map_id, coords[0], coords[1],
                           gpid, props, has_count)


@dataclass
class StackState:
    """A Stack state ``mapId;x;y;id1;…;idN;@@layer`` (§4.6).

    ``map`` is ``None`` for ``null`` (then there is no x/y), ``members`` the
    piece ids bottom to top, ``layer`` the ``@@`` layer (3.4.8+) or ``None``."""

    map: str | None
    x: int = 0
    y: int = 0
    members: list[str] = field(default_factory=list)
    layer: int | None = None

    def encode(self) -> str:
        """Write the state as ``Stack.getState`` does."""
        enc = SequenceEncoder(";")
        if self.map is None:
            enc.append("null")
        else:
            enc.append(self.map).append(self.x).append(self.y)
        for member in self.members:
            enc.append(member)
        if self.layer is not None:
            enc.append(f"@@{self.layer}")
        return enc.value or ""


def parse_stack_state(text: str, *, place: str | None = None) -> StackState:
    """Read a Stack state; raises :class:`FormatError` for a non-integer
    position or layer."""
    toks = decode_sequence(text, ";")
    map_id = toks[0]
    i = 1
    x = y = 0
    if map_id != "null":
        for what in ("x", "y"):
            tok = toks[i] if i < len(toks) else ""
            value = java_int(tok)
            if value is None:
                raise FormatError(f"stack state {what} is not an integer: {tok!r}",
                                  place=place)
            if what == "x":
                x = value
            else:
                y = value
            i += 1
    members: list[str] = []
    layer: int | None = None
    for tok in toks[i:]:
        if tok.startswith("@@"):
            value = java_int(tok[2:])
            if value is None:
                raise FormatError(f"stack layer is not an integer: {tok!r}", place=place)
            layer = value
        elif tok != "":
            members.append(tok)
    return StackState(None if map_id == "null" else map_id, x, y, members, layer)
