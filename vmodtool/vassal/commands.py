"""The command stream of saves and logs: a typed command tree
(``docs/vassal-format.md`` §4.3-§4.8).

The decoded ``savedGame`` text is a tree of commands joined by ESC with the
:mod:`~vmodtool.vassal.sequence` escaping.  :func:`parse_commands` splits it
exactly as VASSAL's ``GameModule.decode`` does: a token equal to the text it
came from is a *leaf* (one :class:`Command`), any other token is a
:class:`CommandGroup` of the sub-trees of its tokens.  Each leaf is typed by
its prefix (table §4.5); its fields are decoded lazily, on first access, so a
large save costs one small object per command.  Unknown commands (from custom
module code, or VASSAL 2.x ``CHECK`` lines) are kept verbatim as
:class:`UnknownCommand`.

``encode()`` gives the original text back for any parsed tree (checked on
every corpus file), and encodes trees built in Python the way VASSAL would.

Player ids are VASSAL "passwords" (§4.10): :class:`PlayerAdd`,
:class:`MovePiece` and a few others expose them as ``player_id`` but their
``record()`` (what ``vmodtool dump`` prints) goes through a
:class:`Redactor` that never shows them.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Iterator, Sequence
from itertools import compress
from operator import not_
from typing import TYPE_CHECKING, Any, ClassVar, TypeAlias

from vmodtool.errors import FormatError
from vmodtool.vassal.sequence import Token, decode_sequence, encode_sequence, unquote_token

__all__ = [
    "ESC", "Node", "Command", "CommandGroup", "parse_commands", "classify", "MAX_DEPTH",
    "NullCommand", "BeginSave", "EndSave", "AddPiece", "RemovePiece", "ChangePiece", "MovePiece",
    "Chat", "LogEntry", "Undo", "PlayerAdd", "PlayerRemove", "SetBoards", "GlobalPropertySet",
    "MutableProperty", "TurnState", "SetupStackMarker", "NoteCommand", "UnknownCommand", "VersionCheck",
    "SpecialDiceResults", "LoadDeck", "DeckReposition",
    "Redactor", "walk", "leaves", "leaf_commands", "tree_to_json", "REDACTED",
]

ESC = "\x1b"
REDACTED = "<redacted>"
_BOARD_PICKER = re.compile(r"[^\t]*?BoardPicker\t")


class Node:
    """A node of the command tree: a leaf :class:`Command` or a
    :class:`CommandGroup`; both give their exact text with ``encode()``."""

    __slots__ = ()

    @property
    def is_leaf(self) -> bool:
        return isinstance(self, Command)

    if TYPE_CHECKING:
        # declared for the type checker only: both subclasses define it, and a
        # class-level abstract method would make every isinstance() of the hot
        # parsing paths go through ABCMeta (measured 10-15% slower parsing)
        def encode(self) -> str:
            """The node's exact text."""
            ...


class Command(Node):
    """One leaf command; ``text`` is its exact text.  Subclasses decode
    their fields lazily from it."""

    __slots__ = ("text", "_fields")
    #: the command kind, as printed by ``vmodtool dump``
    kind: ClassVar[str] = "Command"
    #: the Java class VASSAL 3.7.26 decodes this leaf to (None: no encoder)
    java_class: ClassVar[str | None] = None

    def __init__(self, text: str) -> None:
        self.text = text
        # decoded tokens, cached (a LogEntry keeps its inner command here)
        self._fields: list[Any] | None = None

    def encode(self) -> str:
        return self.text

    def __repr__(self) -> str:
        text = self.text if len(self.text) < 60 else self.text[:57] + "..."
        return f"{type(self).__name__}({text!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Command) and type(other) is type(self) and other.text == self.text

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.text))

    def record(self, redactor: Redactor | None = None) -> dict[str, object]:
        """The command as a JSON-ready dict (``kind``, ``text`` and decoded
        fields), with player ids redacted."""
        redactor = redactor or Redactor()
        rec: dict[str, object] = {"kind": self.kind}
        rec.update(self._record_fields(redactor))
        rec["text"] = redactor.scrub(self.text)
        return rec

    def _record_fields(self, redactor: Redactor) -> dict[str, object]:
        return {}

    def summary(self, redactor: Redactor | None = None) -> str:
        """A one-line human description (player ids redacted)."""
        redactor = redactor or Redactor()
        fields = self._record_fields(redactor)
        if not fields:
            text = redactor.scrub(self.text)
            return text if len(text) <= 100 else text[:97] + "..."
        return " ".join(f"{k}={_short(v)}" for k, v in fields.items())


def _short(value: object, limit: int = 60) -> str:
    text = str(value)
    text = text.replace("\t", "\\t").replace(ESC, "\\e").replace("\n", "\\n")
    return text if len(text) <= limit else text[:limit - 3] + "..."


class CommandGroup(Node):
    """A token that was split further: its children are the sub-trees of its
    tokens, in order.  VASSAL executes the first child and appends the others
    as its sub-commands."""

    __slots__ = ("children",)

    def __init__(self, children: Sequence[Node]) -> None:
        self.children: tuple[Node, ...] = tuple(children)

    def encode(self) -> str:
        return encode_sequence([c.encode() for c in self.children], ESC) or ""

    def __repr__(self) -> str:
        return f"CommandGroup({len(self.children)} children)"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CommandGroup) and other.children == self.children

    def __hash__(self) -> int:
        return hash(self.children)

    def __iter__(self) -> Iterator[Node]:
        return iter(self.children)

    def __len__(self) -> int:
        return len(self.children)

    def __getitem__(self, index: int) -> Node:
        return self.children[index]


# --------------------------------------------------------------------------
# leaf kinds

class NullCommand(Command):
    """The empty leaf: a no-op (also the version-check node of saves)."""
    kind = "Null"
    java_class = "VASSAL.command.NullCommand"
    __slots__ = ()


class BeginSave(Command):
    """``begin_save``: reset the game before a restore."""
    kind = "BeginSave"
    java_class = "VASSAL.build.module.GameState$SetupCommand"
    __slots__ = ()


class EndSave(Command):
    """``end_save``: start the game after a restore."""
    kind = "EndSave"
    java_class = "VASSAL.build.module.GameState$SetupCommand"
    __slots__ = ()


def _slash_fields(text: str) -> list[str]:
    """The ``/`` fields of ``X/body``: the fields of the whole text but its
    first (the prefix ``X`` ends at an unescaped ``/``), without copying the
    body first."""
    if text[1:2] == "/" and text[:1] != "\\":
        return decode_sequence(text, "/")[1:]
    return decode_sequence(text[2:], "/")


#: the type field of ``+/id/type/state`` as written (escaped) -> its decoded
#: token, or None when it is more than one token: pieces of one kind share
#: one type, decoded once, and their fields share the one string
_ADD_TYPES: dict[str, str | None] = {}
_ADD_TYPES_CHARS = [0]
_ADD_TYPES_LIMIT = 32 * 1024 * 1024      # characters of keys kept at most


def _add_fields(text: str) -> list[str]:
    """:func:`_slash_fields` of ``+/id/type/state``.  When neither the id
    nor the state holds a ``/`` (every real piece), the fields end at the
    first and the last ``/`` of the text, and only the type, looked up as
    written, may need decoding."""
    i = text.find("/", 2)
    j = text.rfind("/")
    if not (2 <= i < j and text[i - 1] != "\\" and text[j - 1] != "\\" and text[:2] == "+/"):
        return _slash_fields(text)
    raw = text[i + 1:j]
    try:
        type_ = _ADD_TYPES[raw]
    except KeyError:
        tokens = decode_sequence(raw, "/")
        type_ = tokens[0] if len(tokens) == 1 else None
        if _ADD_TYPES_CHARS[0] > _ADD_TYPES_LIMIT:
            _ADD_TYPES.clear()
            _ADD_TYPES_CHARS[0] = 0
        _ADD_TYPES[raw] = type_
        _ADD_TYPES_CHARS[0] += len(raw)
    if type_ is None:
        return _slash_fields(text)
    piece_id, state = text[2:i], text[j + 1:]
    if "'" in piece_id:
        piece_id = unquote_token(piece_id)
    if "'" in state:
        state = unquote_token(state)
    return [piece_id, type_, state]


class _SlashCommand(Command):
    """A command whose body after the two-character prefix is a ``/`` sequence."""
    __slots__ = ()

    def _split(self) -> list[str]:
        return _slash_fields(self.text)

    def _field(self, index: int) -> str | None:
        if self._fields is None:
            self._fields = self._split()
        fields = self._fields
        return fields[index] if index < len(fields) else None

    @property
    def fields(self) -> list[str]:
        """The raw ``/``-separated fields after the prefix (decoded once)."""
        if self._fields is None:
            self._fields = self._split()
        return self._fields


def _none_if_null(value: str | None) -> str | None:
    return None if value in (None, "null") else value


class AddPiece(_SlashCommand):
    """``+/id/type/state``: create a piece or stack (§4.6).  ``type`` is the
    full trait chain (``stack`` for a stack), ``state`` its state."""
    kind = "AddPiece"
    java_class = "VASSAL.command.AddPiece"
    __slots__ = ()

    def _split(self) -> list[str]:
        return _add_fields(self.text)

    @classmethod
    def build(cls, piece_id: str | None, type_: str, state: str) -> AddPiece:
        return cls("+/" + (encode_sequence([piece_id or "null", type_, state], "/") or ""))

    @property
    def piece_id(self) -> str | None:
        return _none_if_null(self._field(0))

    @property
    def type(self) -> str:
        return self._field(1) or ""

    @property
    def state(self) -> str:
        return self._field(2) or ""

    @property
    def is_stack(self) -> bool:
        return self.type == "stack"

    def _record_fields(self, redactor: Redactor) -> dict[str, object]:
        type_ = self.type
        if self.is_stack:
            return {"id": self.piece_id, "stack": redactor.scrub(self.state)}
        return {"id": self.piece_id, "type": type_, "state": redactor.scrub(self.state)}

    def summary(self, redactor: Redactor | None = None) -> str:
        redactor = redactor or Redactor()
        if self.is_stack:
            return f"id={self.piece_id} stack {_short(self.state, 80)}"
        inner = self.type.rsplit("\t", 1)[-1]
        return f"id={self.piece_id} {_short(inner, 80)}"


class RemovePiece(Command):
    """``-/id``: remove a piece or stack."""
    kind = "RemovePiece"
    java_class = "VASSAL.command.RemovePiece"
    __slots__ = ()

    @classmethod
    def build(cls, piece_id: str) -> RemovePiece:
        return cls("-/" + piece_id)

    @property
    def piece_id(self) -> str:
        return self.text[2:]

    def _record_fields(self, redactor: Redactor) -> dict[str, object]:
        return {"id": self.piece_id}


class ChangePiece(_SlashCommand):
    """``D/id/newState[/oldState]``: replace a piece's whole state."""
    kind = "ChangePiece"
    java_class = "VASSAL.command.ChangePiece"
    __slots__ = ()

    @classmethod
    def build(cls, piece_id: str, new_state: str, old_state: str | None = None) -> ChangePiece:
        tokens = [piece_id, new_state] + ([old_state] if old_state is not None else [])
        return cls("D/" + (encode_sequence(tokens, "/") or ""))

    @property
    def piece_id(self) -> str:
        return self._field(0) or ""

    @property
    def new_state(self) -> str:
        return self._field(1) or ""

    @property
    def old_state(self) -> str | None:
        return self._field(2)

    def _record_fields(self, redactor: Redactor) -> dict[str, object]:
        rec: dict[str, object] = {"id": self.piece_id, "new_state": redactor.scrub(self.new_state)}
        if self.old_state is not None:
            rec["old_state"] = redactor.scrub(self.old_state)
        return rec


class MovePiece(_SlashCommand):
    """``M/id/newMap/newX/newY/newUnder/oldMap/oldX/oldY/oldUnder/playerId``
    (§4.6).  Coordinates are map pixels; ``player_id`` is the mover's
    password-like id and is never printed."""
    kind = "MovePiece"
    java_class = "VASSAL.command.MovePiece"
    __slots__ = ()

    @classmethod
    def build(cls, piece_id: str, new_map: str | None, new_x: int, new_y: int,
              new_under: str | None, old_map: str | None, old_x: int, old_y: int,
              old_under: str | None, player_id: str) -> MovePiece:
        tokens: list[Token] = [piece_id, new_map or "null", new_x, new_y, new_under or "null",
                  old_map or "null", old_x, old_y, old_under or "null", player_id]
        return cls("M/" + (encode_sequence(tokens, "/") or ""))

    def _int(self, index: int) -> int:
        value = self._field(index)
        try:
            return int(value) if value else 0
        except ValueError:
            return 0

    @property
    def piece_id(self) -> str:
        return self._field(0) or ""

    @property
    def new_map(self) -> str | None:
        return _none_if_null(self._field(1))

    @property
    def new_position(self) -> tuple[int, int]:
        return self._int(2), self._int(3)

    @property
    def new_under(self) -> str | None:
        return _none_if_null(self._field(4))

    @property
    def old_map(self) -> str | None:
        return _none_if_null(self._field(5))

    @property
    def old_position(self) -> tuple[int, int]:
        return self._int(6), self._int(7)

    @property
    def old_under(self) -> str | None:
        return _none_if_null(self._field(8))

    @property
    def player_id(self) -> str | None:
        return _none_if_null(self._field(9))

    def _record_fields(self, redactor: Redactor) -> dict[str, object]:
        return {"id": self.piece_id, "from_map": self.old_map, "from": list(self.old_position),
                "to_map": self.new_map, "to": list(self.new_position), "under": self.new_under,
                "player": redactor.label(self.player_id)}

    def record(self, redactor: Redactor | None = None) -> dict[str, object]:
        redactor = redactor or Redactor()
        rec: dict[str, object] = {"kind": self.kind}
        rec.update(self._record_fields(redactor))
        fields = list(self._fields or _slash_fields(self.text))
        if len(fields) > 9:
            fields[9] = REDACTED
        rec["text"] = "M/" + (encode_sequence(fields, "/") or "")
        return rec


class Chat(Command):
    """``CHAT<html>``: a line in the chat window (user chat, ReportState
    reports ``* …``, dice ``** …``)."""
    kind = "Chat"
    java_class = "VASSAL.build.module.Chatter$DisplayText"
    __slots__ = ()

    @property
    def message(self) -> str:
        return self.text[4:]

    def _record_fields(self, redactor: Redactor) -> dict[str, object]:
        return {"message": self.message}


class LogEntry(Command):
    """``LOG<TAB><command>``: a logged command, replayed by Step (§4.7).
    ``logged`` is the decoded inner leaf, or ``None`` for ``LOG<TAB>null``
    (a command VASSAL had no encoder for; a no-op)."""
    kind = "Log"
    java_class = "VASSAL.build.module.BasicLogger$LogCommand"
    __slots__ = ()

    @property
    def logged(self) -> Command | None:
        if self._fields is None:
            inner = self.text[4:]
            if inner == "null":
                self._fields = [None]
            else:
                cmd = object.__new__(_TWO.get(inner[:2]) or classify(inner))   # as the parser makes leaves
                cmd.text = inner
                cmd._fields = None
                self._fields = [cmd]
        logged: Command | None = self._fields[0]
        return logged

    def record(self, redactor: Redactor | None = None) -> dict[str, object]:
        logged = self.logged
        rec: dict[str, object] = {"kind": self.kind}
        rec["logged"] = logged.record(redactor) if logged is not None else None
        return rec

    def summary(self, redactor: Redactor | None = None) -> str:
        logged = self.logged
        if logged is None:
            return "null"
        return f"{logged.kind} {logged.summary(redactor)}"


class Undo(Command):
    """``UNDO<TAB>true|false``: the brackets around an undone step."""
    kind = "Undo"
    java_class = "VASSAL.build.module.BasicLogger$UndoCommand"
    __slots__ = ()

    @property
    def in_progress(self) -> bool:
        return self.text[5:] == "true"

    def _record_fields(self, redactor: Redactor) -> dict[str, object]:
        return {"in_progress": self.in_progress}


class _TabCommand(Command):
    """A command whose text is a TAB sequence (the prefix is token 0)."""
    __slots__ = ()

    def _tokens(self) -> list[str]:
        if self._fields is None:
            self._fields = decode_sequence(self.text, "\t")
        return self._fields

    def _tok(self, index: int) -> str | None:
        tokens = self._tokens()
        return tokens[index] if index < len(tokens) else None


class PlayerAdd(_TabCommand):
    """``PLAYER<TAB>id<TAB>name<TAB>side``: a roster entry.  ``player_id``
    is the player's password; ``side`` ``<observer>`` means no side."""
    kind = "Player"
    java_class = "VASSAL.build.module.PlayerRoster$Add"
    __slots__ = ()

    @property
    def player_id(self) -> str:
        return self._tok(1) or ""

    @property
    def name(self) -> str:
        return self._tok(2) or ""

    @property
    def side(self) -> str | None:
        side = self._tok(3)
        return None if side in (None, "", "<observer>") else side

    def _record_fields(self, redactor: Redactor) -> dict[str, object]:
        return {"name": self.name, "side": self.side}

    def record(self, redactor: Redactor | None = None) -> dict[str, object]:
        redactor = redactor or Redactor()
        rec: dict[str, object] = {"kind": self.kind}
        rec.update(self._record_fields(redactor))
        tokens = list(self._tokens())
        if len(tokens) > 1:
            tokens[1] = REDACTED
        rec["text"] = encode_sequence(tokens, "\t")
        return rec


class PlayerRemove(_TabCommand):
    """``PYREMOVE<TAB>id`` (3.6+)."""
    kind = "PlayerRemove"
    java_class = "VASSAL.build.module.PlayerRoster$Remove"
    __slots__ = ()

    @property
    def player_id(self) -> str:
        return self._tok(1) or ""

    def _record_fields(self, redactor: Redactor) -> dict[str, object]:
        return {"player": redactor.label(self.player_id)}

    def record(self, redactor: Redactor | None = None) -> dict[str, object]:
        redactor = redactor or Redactor()
        return {"kind": self.kind, "player": redactor.label(self.player_id),
                "text": "PYREMOVE\t" + REDACTED}


class SetBoards(_TabCommand):
    """``<mapId>BoardPicker<TAB>board<TAB>col<TAB>row…``: the boards of a map
    and their slots (``board/rev`` marks a reversed board)."""
    kind = "SetBoards"
    java_class = "VASSAL.build.module.map.BoardPicker$SetBoards"
    __slots__ = ()

    @property
    def map_id(self) -> str:
        head = self._tok(0) or ""
        return head[: -len("BoardPicker")] if head.endswith("BoardPicker") else head

    @property
    def boards(self) -> list[tuple[str, bool, int, int]]:
        """(board name, reversed, column, row) per board."""
        tokens = self._tokens()[1:]
        out = []
        for i in range(0, len(tokens) - 2, 3):
            name = tokens[i]
            reverse = name.endswith("/rev")
            if reverse:
                name = name[:-4]
            try:
                col, row = int(tokens[i + 1]), int(tokens[i + 2])
            except ValueError:
                col = row = 0
            out.append((name, reverse, col, row))
        return out

    def _record_fields(self, redactor: Redactor) -> dict[str, object]:
        return {"map": self.map_id,
                "boards": [{"board": b, "reversed": r, "col": c, "row": w}
                           for b, r, c, w in self.boards]}


class GlobalPropertySet(Command):
    """``GlobalProperty<TAB>;name;value;container``: a global property's
    value restored from a save."""
    kind = "GlobalProperty"
    java_class = "VASSAL.build.module.properties.GlobalProperty$SetGlobalProperty"
    __slots__ = ()

    def _tok(self, index: int) -> str | None:
        if self._fields is None:
            self._fields = decode_sequence(self.text, ";")
        return self._fields[index] if index < len(self._fields) else None

    @property
    def name(self) -> str:
        return self._tok(1) or ""

    @property
    def value(self) -> str:
        return self._tok(2) or ""

    @property
    def container(self) -> str | None:
        return self._tok(3) or None

    def _record_fields(self, redactor: Redactor) -> dict[str, object]:
        return {"name": self.name, "value": self.value, "container": self.container}


class MutableProperty(_TabCommand):
    """``MutableProperty<TAB>name<TAB>old<TAB>new<TAB>container``: a change
    of a global property (also dice ``_result``/``_total``)."""
    kind = "MutableProperty"
    java_class = "VASSAL.build.module.properties.ChangePropertyCommand"
    __slots__ = ()

    @property
    def name(self) -> str:
        return self._tok(1) or ""

    @property
    def old_value(self) -> str:
        return self._tok(2) or ""

    @property
    def new_value(self) -> str:
        return self._tok(3) or ""

    @property
    def container(self) -> str | None:
        return self._tok(4) or None

    def _record_fields(self, redactor: Redactor) -> dict[str, object]:
        return {"name": self.name, "old": self.old_value, "new": self.new_value,
                "container": self.container}


class TurnState(Command):
    """``TURN<trackerId><TAB><state>``: the turn tracker's state (§4.8)."""
    kind = "Turn"
    java_class = "VASSAL.build.module.turn.TurnTracker$SetTurn"
    __slots__ = ()

    @property
    def tracker_id(self) -> str:
        return self.text[4:].split("\t", 1)[0]

    @property
    def state(self) -> str:
        parts = self.text[4:].split("\t", 1)
        return parts[1] if len(parts) > 1 else ""

    def _record_fields(self, redactor: Redactor) -> dict[str, object]:
        return {"tracker": self.tracker_id, "state": self.state}


class SetupStackMarker(Command):
    """``SETUP_STACK<TAB>``: "not a new game" (SetupStacks are skipped)."""
    kind = "SetupStack"
    java_class = "VASSAL.build.module.NewGameIndicator$MarkGameNotNew"
    __slots__ = ()


class NoteCommand(_TabCommand):
    """``NOTES``/``PNOTES``/``PNOTE``/``SNOTE``: scenario, public, private
    and secret notes."""
    kind = "Notes"
    __slots__ = ()

    @property
    def note_kind(self) -> str:
        return self.text.split("\t", 1)[0]

    @property
    def note(self) -> str:
        parts = self.text.split("\t", 1)
        return parts[1] if len(parts) > 1 else ""

    def _record_fields(self, redactor: Redactor) -> dict[str, object]:
        return {"note_kind": self.note_kind, "text_length": len(self.note)}


class ScenarioNotes(NoteCommand):
    java_class = "VASSAL.build.module.NotesWindow$SetScenarioNote"
    __slots__ = ()


class PublicNotes(NoteCommand):
    java_class = "VASSAL.build.module.NotesWindow$SetPublicNote"
    __slots__ = ()


class PrivateNote(NoteCommand):
    java_class = "VASSAL.build.module.PrivateNotesController$SetPrivateNote"
    __slots__ = ()


class SecretNote(NoteCommand):
    java_class = "VASSAL.build.module.SecretNotesController$SetSecretNote"
    __slots__ = ()


class StartupGlobalKey(_TabCommand):
    """``SGKC<TAB>id<TAB>applied``."""
    kind = "StartupGlobalKey"
    java_class = "VASSAL.build.module.StartupGlobalKeyCommand$UpdateStartupGlobalKeyCommand"
    __slots__ = ()


class ClockControl(Command):
    kind = "ClockControl"
    java_class = "VASSAL.build.module.ChessClockControl$UpdateClockControlCommand"
    __slots__ = ()


class ClockTimer(Command):
    kind = "ClockTimer"
    java_class = "VASSAL.build.module.chessclockcontrol.ChessClock$UpdateTimerCommand"
    __slots__ = ()


class SpecialDiceResults(_TabCommand):
    """``SHOW_RESULTS<TAB>button<TAB>face index…``: a SpecialDiceButton roll
    (the faces are indexes into the button's dice faces)."""
    kind = "SpecialDice"
    java_class = "VASSAL.build.module.SpecialDiceButton$ShowResults"
    __slots__ = ()

    @property
    def button(self) -> str:
        return self._tok(1) or ""

    @property
    def results(self) -> list[int]:
        out = []
        for tok in self._tokens()[2:]:
            # other tokens are not die results (nor is a number longer than VASSAL writes one)
            if tok.lstrip("-").isdecimal() and len(tok) <= 20:
                out.append(int(tok))
        return out

    def _record_fields(self, redactor: Redactor) -> dict[str, object]:
        return {"button": self.button, "results": self.results}


class UnknownCommand(Command):
    """A leaf no standard encoder recognises (custom module code, VASSAL 2.x
    ``CHECK``, VASL ``bd`` …): kept verbatim, never fatal."""
    kind = "Unknown"
    java_class = None
    __slots__ = ()

    @property
    def prefix(self) -> str:
        m = re.match(r"[^\t/;]*[\t/;]?", self.text)
        text = m.group(0) if m else self.text
        return text[:40]

    def _record_fields(self, redactor: Redactor) -> dict[str, object]:
        return {"prefix": self.prefix}


class VersionCheck(UnknownCommand):
    """``CHECK<TAB>runningVassalVersion<2.9.8<TAB>ALERT…`` (VASSAL 2.x saves):
    a version test that 3.x no longer decodes; it tells which VASSAL and
    module version wrote the file."""
    kind = "VersionCheck"
    __slots__ = ()
    _TEST = re.compile(r"CHECK\t(runningVassalVersion|version)<([^\t]*)")

    @property
    def subject(self) -> str:
        m = self._TEST.match(self.text)
        return ("vassal" if m.group(1) == "runningVassalVersion" else "module") if m else ""

    @property
    def version(self) -> str | None:
        m = self._TEST.match(self.text)
        return m.group(2) if m else None

    def _record_fields(self, redactor: Redactor) -> dict[str, object]:
        return {"subject": self.subject, "version": self.version}


class LoadDeck(UnknownCommand):
    """``DECK<TAB>``: ``Deck.LoadDeckCommand``, the head of a *saved deck
    file* (``Deck.saveDeck``: this prefix, then an ``AddPiece`` per card).
    Only the deck being loaded decodes it, while it reads such a file
    (``Deck.loadDeck``); what that deck then sends and logs is the cards'
    ``AddPiece`` commands and the deck's own ``ChangePiece``.  In a save or
    a log nothing decodes it: VASSAL drops it, and so does the replay
    (§4.12)."""
    kind = "LoadDeck"
    __slots__ = ()


class DeckReposition(UnknownCommand):
    """``DECKREPOS<TAB>…``: ``GameRefresher.COMMAND_PREFIX``.  In VASSAL
    3.7.26 ``GameRefresher`` registers as a command encoder but its
    ``encode`` and ``decode`` return null: no such command is written, and
    one found in a file (from an older refresher) is decoded by nobody and
    dropped, as the replay drops it (§4.12).  What repositions decks in
    3.7.26 is the refresher's ordinary ``AddPiece``/``ChangePiece``
    commands."""
    kind = "DeckReposition"
    __slots__ = ()


_PREFIXES: list[tuple[str, type[Command]]] = [
    ("LOG\t", LogEntry),
    ("CHAT", Chat),
    ("UNDO\t", Undo),
    ("PLAYER\t", PlayerAdd),
    ("PYREMOVE\t", PlayerRemove),
    ("GlobalProperty\t", GlobalPropertySet),
    ("MutableProperty\t", MutableProperty),
    ("SETUP_STACK\t", SetupStackMarker),
    ("NOTES\t", ScenarioNotes),
    ("PNOTES\t", PublicNotes),
    ("PNOTE\t", PrivateNote),
    ("SNOTE\t", SecretNote),
    ("SGKC\t", StartupGlobalKey),
    ("CLOCKCONTROL", ClockControl),
    ("CLOCK\t", ClockTimer),
    ("TURN", TurnState),
    ("CHECK\t", VersionCheck),
    ("SHOW_RESULTS\t", SpecialDiceResults),
    ("DECKREPOS\t", DeckReposition),
    ("DECK\t", LoadDeck),
]
_TWO = {"+/": AddPiece, "D/": ChangePiece, "M/": MovePiece}


#: the prefixes of :data:`_PREFIXES` by their first two characters, in
#: table order (no two prefixes of different heads can match one text)
_BY_HEAD: dict[str, tuple[tuple[str, type[Command]], ...]] = {}
for _prefix, _cls in _PREFIXES:
    _BY_HEAD[_prefix[:2]] = (*_BY_HEAD.get(_prefix[:2], ()), (_prefix, _cls))
del _prefix, _cls


#: the leaf kinds that carry no player id (exact types: a subclass of one
#: that does is still asked)
_LEAF_KINDS: list[type] = [cls for _, cls in _PREFIXES] + list(_TWO.values()) + [
    RemovePiece, NullCommand, BeginSave, EndSave, SetBoards, UnknownCommand, type(None)]
_NO_PLAYER_ID: frozenset[type] = frozenset(_LEAF_KINDS) - {PlayerAdd, PlayerRemove, MovePiece, LogEntry}


def classify(text: str) -> type[Command]:
    """The command class of one leaf's text (table §4.5)."""
    head = text[:2]
    cls = _TWO.get(head)
    if cls is not None:
        return cls
    candidates = _BY_HEAD.get(head)
    if candidates is not None:
        for prefix, prefix_cls in candidates:
            if text.startswith(prefix):
                return prefix_cls
    elif head == "-/":
        return RemovePiece
    elif not text:
        return NullCommand
    if text == "begin_save":
        return BeginSave
    if text == "end_save":
        return EndSave
    if "BoardPicker\t" in text[:300] and _BOARD_PICKER.match(text):
        return SetBoards
    return UnknownCommand


def _is_quoted(token: str) -> bool:
    return len(token) > 1 and token[0] == "'" and token[-1] == "'"


#: the deepest nesting of groups accepted.  Real saves nest at most 4 deep;
#: VASSAL's own (recursive) decoder would overflow its Java stack somewhere
#: past a few thousand, and each level costs a copy of the text.
MAX_DEPTH = 100


def parse_commands(text: str) -> Node:
    """Split command text into its tree, exactly as VASSAL does (§4.3).

    Iterative (an explicit stack, no recursion); text nested more than
    :data:`MAX_DEPTH` groups deep is a :class:`FormatError` naming the
    top-level command (0-based) it is in."""
    if ESC not in text and not _is_quoted(text):
        return classify(text)(text)
    return _parse_unquoted(text)


def _too_deep(command: int) -> FormatError:
    return FormatError(
        f"the commands are nested more than {MAX_DEPTH} groups deep (real saves nest at "
        "most 4; VASSAL's parser would overflow its stack): the file is damaged or hostile",
        place=f"command {command}")


def _parse_unquoted(text: str) -> CommandGroup:
    """:func:`_parse_group` for text in which no token starts with a quote
    (every real file), in one pass over the ESCs of the original text.

    Each decoding level drops one backslash in front of every escaped ESC
    and touches nothing else, so an ESC after a run of exactly ``r``
    backslashes separates the children of a group at depth ``r`` (the root
    is at depth 0): deeper groups are never cut out of the text and split
    again, and every leaf is one slice of the text, the ``r`` backslashes
    of the separator after it left out (a leaf holds no ESC, so nothing else
    in it was escaped).  Only quotes could move a token's ends: a leaf that
    starts with one (classified unknown or as SetBoards, the two kinds
    without a fixed prefix) sends the whole text to :func:`_parse_group`.

    The garbage collector is paused meanwhile: the tree has no cycles, and
    each collection would walk the whole tree built so far (a third of the
    time on a log of 100,000 commands)."""
    paused = gc.isenabled()
    gc.disable()
    try:
        return _split_unquoted(text) or _parse_group(text)
    finally:
        if paused:
            gc.enable()


def _split_unquoted(text: str) -> CommandGroup | None:
    find = text.find
    two = _TWO.get
    new = object.__new__    # each leaf's slots set here, as Command.__init__ does (its call
    #                         was a fifth of the time)
    root: list[Node] = []
    stack = [root]          # the children of each open group, the root first
    top = 0                 # the depth of the innermost open group
    children = root
    start = 0
    while True:
        p = find(ESC, start)
        if p < 0:
            leaf = text[start:]
        elif text[p - 1] != "\\" or p == start:
            leaf = text[start:p]
            run = 0
        elif p - 1 == start or text[p - 2] != "\\":
            leaf = text[start:p - 1]
            run = 1
        else:
            run = p - start - len(text[start:p].rstrip("\\"))
            leaf = text[start:p - run]
        cls = two(leaf[:2]) or classify(leaf)
        if (cls is UnknownCommand or cls is SetBoards) and leaf[:1] == "'":
            return None
        node = new(cls)
        node.text = leaf
        node._fields = None
        if p < 0:
            children.append(node)
            while top:
                group = CommandGroup(stack.pop())
                top -= 1
                stack[top].append(group)
            return CommandGroup(root)
        if run > top:                       # the leaf opens groups down to depth ``run``
            if run >= MAX_DEPTH:
                raise _too_deep(len(root))
            while top < run:
                children = []
                stack.append(children)
                top += 1
            children.append(node)
        else:
            children.append(node)
            while top > run:                # the separator closes the groups below depth ``run``
                group = CommandGroup(stack.pop())
                top -= 1
                stack[top].append(group)
            children = stack[top]
        start = p + 1


def _parse_group(text: str) -> CommandGroup:
    # one frame per open group: its children so far and its tokens still to
    # read (reversed, so that pop() takes the next one and releases it)
    tokens = decode_sequence(text, ESC)
    del text
    tokens.reverse()
    stack: list[tuple[list[Node], list[str]]] = [([], tokens)]
    while True:
        children, pending = stack[-1]
        if not pending:
            group = CommandGroup(children)
            stack.pop()
            if not stack:
                return group
            stack[-1][0].append(group)
            continue
        token = pending.pop()  # released once split: big tokens are not held twice
        if ESC not in token and not _is_quoted(token):
            children.append(classify(token)(token))
            continue
        if len(stack) >= MAX_DEPTH:
            raise _too_deep(len(stack[0][0]))
        sub = decode_sequence(token, ESC)
        del token
        sub.reverse()
        stack.append(([], sub))


# --------------------------------------------------------------------------
# traversal

Path = tuple[int, ...]


def walk(node: Node, path: Path = ()) -> Iterator[tuple[Path, Node]]:
    """Every node with its path of child indexes from the root, in document
    order (groups before their children)."""
    stack: list[tuple[Path, Node]] = [(path, node)]
    while stack:
        p, n = stack.pop()
        yield p, n
        if isinstance(n, CommandGroup):
            for i in range(len(n.children) - 1, -1, -1):
                stack.append((p + (i,), n.children[i]))


def leaves(node: Node) -> Iterator[tuple[Path, Command]]:
    """Every leaf command with its path, in document order."""
    for p, n in walk(node):
        if isinstance(n, Command):
            yield p, n


def leaf_commands(node: Node) -> list[Command]:
    """Every leaf command, in document order, as a list: what the replay
    and the redactor read for each step (no paths, no generator frames —
    :func:`leaves` costs several times as much per leaf)."""
    if isinstance(node, Command):
        return [node]
    if not isinstance(node, CommandGroup):
        raise TypeError(f"not a command tree node: {node!r}")
    out: list[Command] = []
    if _flat(node.children):
        out.extend(node.children)    # type: ignore[arg-type]
        return out
    append = out.append
    stack = [iter(node.children)]
    while stack:
        for child in stack[-1]:
            if isinstance(child, CommandGroup):
                if _flat(child.children):
                    out.extend(child.children)    # type: ignore[arg-type]
                    continue
                stack.append(iter(child.children))
                break
            if isinstance(child, Command):  # always, when not a group
                append(child)
        else:
            stack.pop()
    return out


#: whether each class met in :func:`_flat` is a leaf command class
_IS_LEAF_CLASS: dict[type, bool] = {}


def _flat(children: tuple[Node, ...]) -> bool:
    """Whether a long run of children (a saved state's thousands of
    AddPieces in one group) holds leaf commands only: the classes are
    gathered in C, and the run is then taken whole."""
    if len(children) < 16:
        return False
    for cls in set(map(type, children)):
        leaf = _IS_LEAF_CLASS.get(cls)
        if leaf is None:
            leaf = _IS_LEAF_CLASS[cls] = issubclass(cls, Command) and not issubclass(cls, CommandGroup)
        if not leaf:
            return False
    return True


JsonTree: TypeAlias = str | list["JsonTree"]


def tree_to_json(node: Node) -> JsonTree:
    """The tree as nested lists of leaf strings (the golden ``tree`` form)."""
    if isinstance(node, Command):
        return node.text
    if isinstance(node, CommandGroup):
        return [tree_to_json(c) for c in node.children]
    raise TypeError(f"not a command tree node: {node!r}")


# --------------------------------------------------------------------------
# redaction of player ids

class Redactor:
    """Replaces player ids (VASSAL passwords) by stable labels.

    A roster entry teaches it the display name for an id; ids seen without a
    roster entry become ``player-1``, ``player-2``… in order of appearance.
    ``scrub`` removes known ids from raw command text, at token boundaries.
    """

    def __init__(self) -> None:
        self._labels: dict[str, str] = {}
        self._pattern: re.Pattern[str] | None = None

    def learn(self, player_id: str | None, name: str | None = None) -> None:
        if not player_id:
            return
        if name:
            self._labels[player_id] = name
        elif player_id not in self._labels:
            self._labels[player_id] = f"player-{len(self._labels) + 1}"
        self._pattern = None

    def learn_from(self, node: Node) -> Redactor:
        """Learn every roster entry and mover id in a tree."""
        # one walk; the roster's names are learnt before the bare mover ids
        # (which get "player-N" labels only when the roster does not name them)
        movers = []
        silent = _NO_PLAYER_ID
        commands = leaf_commands(node)
        # the leaves of a kind without a player id left out in C (most of a
        # saved state's: its AddPieces), before the loop looks at the rest
        for cmd in compress(commands, map(not_, map(silent.__contains__, map(type, commands)))):
            inner = cmd.logged if isinstance(cmd, LogEntry) else cmd
            if type(inner) in silent:
                continue
            if isinstance(inner, PlayerAdd):
                self.learn(inner.player_id, inner.name or None)
            elif isinstance(inner, (MovePiece, PlayerRemove)):
                movers.append(inner.player_id)
        for player_id in movers:
            self.learn(player_id)
        return self

    def label(self, player_id: str | None) -> str | None:
        if not player_id:
            return None
        if player_id not in self._labels:
            self.learn(player_id)
        return self._labels[player_id]

    def scrub(self, text: str) -> str:
        if not self._labels or not text:
            return text
        if self._pattern is None:
            ids = sorted(self._labels, key=len, reverse=True)
            bound = r"[\t;/,:|\x1b\\]"
            self._pattern = re.compile(
                rf"(?:(?<={bound})|^)(?:{'|'.join(re.escape(i) for i in ids)})(?={bound}|$)")
        return self._pattern.sub(REDACTED, text)
