"""Decks, hands and hidden pieces in VASSAL's formats (pure;
``docs/vassal-format.md`` §4.12).

* :class:`DeckType` — a ``deck;`` type (``Deck.getType``, VASSAL 3.7.26):
  its fields by name in that order; a shorter (older) type takes, for each
  missing field, the default ``Deck.myRefreshType`` reads.
* :class:`DeckState` — ``Deck.getState``: ``mapId;x;y;faceDown;id1,id2,…``
  (cards bottom → top, the top card last; no card list for an empty deck).
* :class:`ObscuredState`, :func:`hidden_by` — the states of ``obs;``
  (``Obscurable.myGetState``: the masking player's id or ``null``, then the
  ObscurableOptions) and ``hide;`` (``Hideable.myGetState``: the hiding
  player's id or ``null``).  Player ids are VASSAL passwords: print them only
  through :class:`~vmodtool.vassal.commands.Redactor` or a roster.
* :class:`DrawPileDef`, :class:`HandDef`, :func:`draw_piles`, :func:`hands` —
  the module side: each ``DrawPile`` (the buildFile component that makes a
  Deck at the start of a game, ``DrawPile.makeDeck``) and each private map
  (``PrivateMap``/``PlayerHand``) with the sides that may open it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from vmodtool.vassal.sequence import decode_sequence, encode_sequence

if TYPE_CHECKING:
    from vmodtool.vassal.buildfile import BuildFile

__all__ = ["DECK_ID", "NO_USER", "DECK_FIELDS", "DeckType", "DeckState", "ObscuredState",
           "hidden_by", "DrawPileDef", "HandDef", "draw_piles", "hands", "ALWAYS", "NEVER",
           "USE_MENU", "USE_MENU_UP"]

DECK_ID = "deck;"
#: ``Deck.NO_USER``: the dummy player id a face-down deck masks its cards with
NO_USER = "nobody"
ALWAYS = "Always"
NEVER = "Never"
USE_MENU = "Via right-click Menu"
USE_MENU_UP = "MenuDefaultUp"

#: the fields of a ``deck;`` type in ``Deck.getType`` order, with the
#: default ``Deck.myRefreshType`` uses when an older type stops short (keys
#: default to no key, written as an empty token; localised defaults are the
#: English resource strings)
DECK_FIELDS: tuple[tuple[str, str], ...] = (
    ("drawOutline", "true"), ("outlineColor", "0,0,0"), ("width", "40"), ("height", "40"),
    ("faceDownOption", ALWAYS), ("shuffleOption", ALWAYS), ("allowMultipleDraw", "true"),
    ("allowSelectDraw", "true"), ("reversible", "true"), ("reshuffleCommand", ""),
    ("reshuffleTarget", ""), ("reshuffleMsgFormat", ""), ("deckName", "deck"),
    ("shuffleMsgFormat", ""), ("reverseMsgFormat", ""), ("faceDownMsgFormat", ""),
    ("drawFaceUp", "false"), ("persistable", "false"), ("shuffleKey", ""), ("reshuffleKey", ""),
    ("maxStack", "10"), ("countExpressions", ""), ("expressionCounting", "false"),
    ("globalCommands", ""), ("hotkeyOnEmpty", "false"), ("emptyKey", ""),
    ("selectDisplayProperty", "$BasicName$"), ("selectSortProperty", ""), ("restrictOption", "false"),
    ("restrictExpression", ""), ("shuffleCommand", "Shuffle"), ("reverseCommand", "Reverse"),
    ("reverseKey", ""), ("drawMultipleMessage", "Draw multiple cards"),
    ("drawSpecificMessage", "Draw specific cards"), ("faceUpMessage", "Face up"),
    ("faceDownMessage", "Face down"), ("faceUpKey", ""), ("faceUpMsgFormat", ""), ("faceFlipKey", ""),
    ("faceDownKey", ""), ("saveMessage", "Save Deck"), ("saveKey", ""), ("saveReport", "Deck Saved"),
    ("loadMessage", "Load Deck"), ("loadKey", ""), ("loadReport", "Deck Loaded"),
    ("restrictAccess", "false"), ("owners", ""),
)
_FIELD_NAMES = tuple(name for name, _ in DECK_FIELDS)
_DEFAULTS = dict(DECK_FIELDS)


def _bool(text: str, default: bool) -> bool:
    """``SequenceEncoder.Decoder.nextBoolean``: ``"true"`` is true, an empty
    token takes the default, anything else is false."""
    if text == "":
        return default
    return text == "true"


def _int(text: str, default: int) -> int:
    try:
        return int(text.strip())
    except ValueError:
        return default


@dataclass(frozen=True)
class DeckType:
    """A Deck's type: ``fields`` by name (every name of :data:`DECK_FIELDS`;
    a field the text did not have holds its default) and ``given``, how
    many fields the text had."""

    fields: Mapping[str, str]
    given: int = len(DECK_FIELDS)

    @classmethod
    def parse(cls, text: str) -> DeckType:
        """A ``deck;…`` type (the ``deck`` token itself is skipped, as
        ``myRefreshType`` skips it)."""
        toks = decode_sequence(text, ";")[1:]
        values = {name: (toks[i] if i < len(toks) else default)
                  for i, (name, default) in enumerate(DECK_FIELDS)}
        return cls(values, min(len(toks), len(DECK_FIELDS)))

    @classmethod
    def build(cls, **values: str) -> DeckType:
        """A full type from field values (the others take their defaults)."""
        unknown = set(values) - set(_FIELD_NAMES)
        if unknown:
            raise KeyError(f"not a Deck type field: {', '.join(sorted(unknown))}")
        return cls({name: values.get(name, default) for name, default in DECK_FIELDS})

    def encode(self) -> str:
        """``Deck.getType`` (all fields)."""
        return DECK_ID + (encode_sequence([self.fields[n] for n in _FIELD_NAMES], ";") or "")

    def get(self, name: str) -> str:
        return self.fields[name]

    # -- the fields the replay reads -------------------------------------------------
    @property
    def name(self) -> str:
        return self.fields["deckName"]

    @property
    def face_down_option(self) -> str:
        return self.fields["faceDownOption"]

    @property
    def shuffle_option(self) -> str:
        return self.fields["shuffleOption"]

    @property
    def allow_multiple_draw(self) -> bool:
        return _bool(self.fields["allowMultipleDraw"], True)

    @property
    def allow_select_draw(self) -> bool:
        return _bool(self.fields["allowSelectDraw"], True)

    @property
    def reshuffle_command(self) -> str:
        return self.fields["reshuffleCommand"]

    @property
    def reshuffle_target(self) -> str:
        return self.fields["reshuffleTarget"]

    @property
    def reshuffle_format(self) -> str:
        return self.fields["reshuffleMsgFormat"]

    @property
    def shuffle_format(self) -> str:
        return self.fields["shuffleMsgFormat"]

    @property
    def shuffle_command(self) -> str:
        return self.fields["shuffleCommand"]

    @property
    def face_down_format(self) -> str:
        return self.fields["faceDownMsgFormat"]

    @property
    def face_up_format(self) -> str:
        return self.fields["faceUpMsgFormat"]

    @property
    def draw_face_up(self) -> bool:
        return _bool(self.fields["drawFaceUp"], False)

    @property
    def max_stack(self) -> int:
        return _int(self.fields["maxStack"], 10)

    @property
    def restrict_access(self) -> bool:
        return _bool(self.fields["restrictAccess"], False)

    @property
    def owners(self) -> tuple[str, ...]:
        """The sides that may use a deck of restricted access
        (``StringArrayConfigurer``: a ``,`` sequence)."""
        raw = self.fields["owners"]
        return tuple(t for t in decode_sequence(raw, ",") if t) if raw else ()

    @property
    def initially_face_down(self) -> bool:
        """``Deck.setFaceDownOption``: face down unless Never or MenuDefaultUp."""
        return self.face_down_option not in (NEVER, USE_MENU_UP)


@dataclass(frozen=True)
class DeckState:
    """``Deck.getState``/``setState``: map id (``None`` for ``null``),
    position, face-down flag, card ids bottom → top."""

    map: str | None
    x: int
    y: int
    face_down: bool
    cards: tuple[str, ...] = ()

    @classmethod
    def parse(cls, text: str) -> DeckState:
        """As ``Deck.setState`` reads it: a bad coordinate is 0, a face-down
        token other than ``true`` is false, empty ids are skipped (VASSAL
        finds no piece for them)."""
        toks = decode_sequence(text, ";")
        map_id = toks[0] if toks else "null"
        x = _int(toks[1], 0) if len(toks) > 1 else 0
        y = _int(toks[2], 0) if len(toks) > 2 else 0
        face_down = len(toks) > 3 and toks[3] == "true"
        cards: tuple[str, ...] = ()
        if len(toks) > 4:
            cards = tuple(t for t in decode_sequence(toks[4], ",") if t)
        return cls(None if map_id == "null" else map_id, x, y, face_down, cards)

    def encode(self) -> str:
        """``Deck.getState``: the card list only when the deck holds cards."""
        out = [self.map if self.map is not None else "null", str(self.x), str(self.y),
               "true" if self.face_down else "false"]
        ids = encode_sequence(self.cards, ",")
        if ids is not None:
            out.append(ids)
        return encode_sequence(out, ";") or ""


@dataclass(frozen=True)
class ObscuredState:
    """An ``obs;`` trait's state: ``by`` is the masking player's id (a
    password; :data:`NO_USER` for a card of a face-down deck), ``None`` when
    not masked; ``options`` the ObscurableOptions (``override|count|ids…``)."""

    by: str | None
    options: str = ""

    @classmethod
    def parse(cls, text: str) -> ObscuredState:
        """``Obscurable.mySetState``."""
        toks = decode_sequence(text, ";")
        token = toks[0] if toks and toks[0] != "" else "null"
        by = None if token == "null" else token
        return cls(by, (toks[1] if len(toks) > 1 else "") if by is not None else "")

    @property
    def masked(self) -> bool:
        return self.by is not None

    def encode(self) -> str:
        """``Obscurable.myGetState``: no options when not masked."""
        return encode_sequence([self.by if self.by is not None else "null",
                                self.options if self.by is not None else ""], ";") or ""

    @classmethod
    def masked_by(cls, player_id: str) -> ObscuredState:
        """What ``setProperty(OBSCURED_TO_OTHERS, true)`` sets: the current
        player's id and the default ObscurableOptions (no override, nobody
        else allowed: ``|0``)."""
        return cls(player_id, "|0")


def hidden_by(state: str) -> str | None:
    """``Hideable.mySetState``: the hiding player's id, ``None`` for ``null``."""
    return None if state in ("null", "") else state


# --------------------------------------------------------------------------
# the module side

_P = "VASSAL.build.module."
#: DrawPile attribute -> Deck type field (``DrawPile.setAttribute``, 3.7.26)
_DRAWPILE_FIELDS: dict[str, str] = {
    "draw": "drawOutline", "color": "outlineColor", "width": "width", "height": "height",
    "faceDown": "faceDownOption", "shuffle": "shuffleOption", "allowMultiple": "allowMultipleDraw",
    "allowSelect": "allowSelectDraw", "reversible": "reversible", "reshuffleCommand": "reshuffleCommand",
    "reshuffleTarget": "reshuffleTarget", "reshuffleMessage": "reshuffleMsgFormat", "name": "deckName",
    "shuffleFormat": "shuffleMsgFormat", "reverseFormat": "reverseMsgFormat",
    "faceDownFormat": "faceDownMsgFormat", "drawFaceUp": "drawFaceUp", "canSave": "persistable",
    "shuffleHotkey": "shuffleKey", "reshuffleHotkey": "reshuffleKey", "maxStack": "maxStack",
    "countExpressions": "countExpressions", "expressionCounting": "expressionCounting",
    "hotkeyOnEmpty": "hotkeyOnEmpty", "emptyHotkey": "emptyKey",
    "selectDisplayProperty": "selectDisplayProperty", "selectSortProperty": "selectSortProperty",
    "restrictOption": "restrictOption", "restrictExpression": "restrictExpression",
    "shuffleCommand": "shuffleCommand", "reverseCommand": "reverseCommand", "reverseHotkey": "reverseKey",
    "drawMultipleMessage": "drawMultipleMessage", "drawSpecificMessage": "drawSpecificMessage",
    "faceUpMessage": "faceUpMessage", "faceDownMessage": "faceDownMessage", "faceUpHotkey": "faceUpKey",
    "faceUpReportFormat": "faceUpMsgFormat", "faceFlipHotkey": "faceFlipKey",
    "faceDownHotkey": "faceDownKey", "saveMessage": "saveMessage", "saveHotkey": "saveKey",
    "saveReportFormat": "saveReport", "loadMessage": "loadMessage", "loadHotkey": "loadKey",
    "loadReportFormat": "loadReport", "deckRestrictAccess": "restrictAccess", "deckOwners": "owners",
}


@dataclass(frozen=True)
class DrawPileDef:
    """A ``DrawPile`` of a module: its name, the map window it is on, its
    position and the Deck type it gives its deck (``DrawPile.getDeckType``:
    the attributes mapped onto the Deck fields)."""

    name: str
    map: str
    x: int
    y: int
    type: DeckType
    attributes: Mapping[str, str] = field(default_factory=dict, repr=False)

    @property
    def face_down(self) -> bool:
        return self.type.initially_face_down

    @property
    def shuffle_option(self) -> str:
        return self.type.shuffle_option

    @property
    def owners(self) -> tuple[str, ...]:
        return self.type.owners if self.type.restrict_access else ()


@dataclass(frozen=True)
class HandDef:
    """A private map window (``PrivateMap``, ``PlayerHand``): its name, the
    sides that may open it (``side``) and whether everyone may look
    (``visible``)."""

    name: str
    kind: str
    sides: tuple[str, ...]
    visible_to_all: bool = False

    def owned_by(self, side: str | None) -> bool:
        return side is not None and side in self.sides


def draw_piles(buildfile: BuildFile) -> list[DrawPileDef]:
    """The module's DrawPiles in document order (each on the nearest
    enclosing map window)."""
    maps = {m.element: m.name for m in buildfile.maps()}
    out: list[DrawPileDef] = []
    for el in buildfile.components("map.DrawPile"):
        parent = el.getparent()
        while parent is not None and parent not in maps:
            parent = parent.getparent()
        attrs = {str(k): str(v) for k, v in el.attrib.items()}
        values = {f: attrs[a] for a, f in _DRAWPILE_FIELDS.items() if a in attrs}
        if attrs.get("reshufflable", "true") == "false":
            # DrawPile.setAttribute(RESHUFFLABLE, false): no send-to-deck command
            values["reshuffleCommand"] = ""
        out.append(DrawPileDef(name=attrs.get("name", ""), map=maps.get(parent, "") if parent is not None else "",
                               x=_int(attrs.get("x", "0"), 0), y=_int(attrs.get("y", "0"), 0),
                               type=DeckType.build(**values), attributes=attrs))
    return out


def hands(buildfile: BuildFile) -> list[HandDef]:
    """The module's private map windows (PlayerHand is a PrivateMap)."""
    out: list[HandDef] = []
    for m in buildfile.maps():
        tag = m.class_name
        if not tag.endswith(("PrivateMap", "PlayerHand")):
            continue
        raw = m.element.get("side", "")
        sides = tuple(t for t in decode_sequence(raw, ",") if t) if raw else ()
        out.append(HandDef(m.name, tag.rsplit(".", 1)[-1], sides,
                           m.element.get("visible", "false") == "true"))
    return out
