"""Player passwords and names rewritten in a save or log
(``docs/vassal-format.md`` §4.5, §4.6, §4.10; ``vmodtool anonymize``).

VASSAL writes a player's password as the player id: in the roster
(``PLAYER``, ``PYREMOVE``), as the mover of every ``M/``, in ``UNMASK``
lists, in the states of the traits that remember who masked, hid or owns a
piece (``obs;``, ``hide;``, ``restrict;``) and, in older versions, as the
sender of chat lines (``<id> - text``).  :class:`Anonymizer` replaces every
such occurrence, on the decoded text, by a new password derived from a
secret key (:class:`PasswordKey`): the same old password always gives the
same new one under one key, so a player keeps their side across the logs
of a chain, and nobody gains a side (the old password no longer opens it).

A password is replaced where it stands as a field (between the command
text's delimiters ``TAB ; / , : | ESC \\``) or as a chat sender
(``<id>``, ``&lt;id&gt;``); a password of :data:`LONG` characters or more
is also replaced wherever else it occurs (typed into a chat line, written
into a piece's label: counted apart, for the caller to warn).  Before
anything is written, :meth:`Anonymizer.check` looks for every old password
again: as a field (every length) and, for a long one, as any substring of
the decoded text and of the other archive entries; one left (in
``savedata``, or written with escapes) is an error and nothing is written.
A password is never printed.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from vmodtool.errors import FormatError, VmodError
from vmodtool.vassal.commands import (
    ESC,
    AddPiece,
    LogEntry,
    MovePiece,
    PlayerAdd,
    PlayerRemove,
    UnknownCommand,
    leaf_commands,
)
from vmodtool.vassal.decks import NO_USER, ObscuredState, hidden_by
from vmodtool.vassal.pieces import PieceDef
from vmodtool.vassal.savefile import SAVED_GAME, SavedGame

__all__ = ["PasswordKey", "Anonymizer", "AnonymizedFile", "game_passwords", "LONG"]

#: a password at least this long is also replaced inside chat lines and
#: must not occur as a substring anywhere in the output; a shorter one
#: ("me", "a") is a field only (as a substring it is in every word)
LONG = 5
#: the characters between fields of the command text, at any nesting level
_BOUND = r"[\t;/,:|\x1b\\]"
_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"
_KEY_BYTES = 32


class PasswordKey:
    """The secret new passwords are derived from (HMAC-SHA256 of the old
    one): one key, one mapping.  :meth:`random` for a single call; a key
    file keeps a chain anonymized in several calls consistent."""

    def __init__(self, secret: bytes) -> None:
        if len(secret) < 16:
            raise VmodError("the anonymization key must hold at least 16 bytes")
        self._secret = secret

    @classmethod
    def random(cls) -> PasswordKey:
        return cls(secrets.token_bytes(_KEY_BYTES))

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> PasswordKey:
        """The key of ``path`` (hex text), made and written there (mode
        0600, never over an existing file) when the file does not exist."""
        file = Path(path)
        if not file.exists():
            secret = secrets.token_bytes(_KEY_BYTES)
            try:
                fd = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except OSError as exc:
                raise VmodError(f"cannot create the key file: {exc.strerror}", file=file) from None
            with os.fdopen(fd, "w", encoding="ascii") as fh:
                fh.write(secret.hex() + "\n")
            return cls(secret)
        try:
            text = file.read_text(encoding="ascii", errors="strict").strip()
            if len(text) > 4096:
                raise ValueError
            return cls(bytes.fromhex(text))
        except (OSError, ValueError, UnicodeDecodeError):
            raise VmodError("not an anonymization key (expected the hex text vmodtool anonymize "
                            "writes with --key)", file=file) from None

    def new_password(self, old: str) -> str:
        digest = hmac.new(self._secret, old.encode("utf-8"), hashlib.sha256).digest()
        return "".join(_ALPHABET[b % len(_ALPHABET)] for b in digest[:14])


_OWNER_TRAITS = ("obs;", "hide;", "restrict;")


def _trait_owners(text: str) -> list[str]:
    """The player ids an AddPiece's masking, hiding and restricting traits
    hold (a scenario's designer may have masked pieces with a password no
    roster names)."""
    if not any(prefix in text for prefix in _OWNER_TRAITS):
        return []
    try:
        piece = PieceDef.parse(text)
    except VmodError:
        return []
    out = []
    for trait in piece.traits:
        prefix = trait.prefix
        if prefix == "obs;":
            owner = ObscuredState.parse(trait.state).by
        elif prefix == "hide;":
            owner = hidden_by(trait.state)
        elif prefix == "restrict;":
            owner = trait.state or None
        else:
            continue
        if owner and owner not in ("null", NO_USER):
            out.append(owner)
    return out


def game_passwords(game: SavedGame) -> dict[str, str]:
    """Every player id (password) of a file with its roster name (``""``
    when no roster entry names it): roster entries, removals, movers,
    ``UNMASK`` lists and the owners of masked, hidden and restricted
    pieces added."""
    found: dict[str, str] = {}
    for cmd in leaf_commands(game.commands):
        inner = cmd.logged if isinstance(cmd, LogEntry) else cmd
        if isinstance(inner, AddPiece):
            for owner in _trait_owners(inner.text):
                found.setdefault(owner, "")
        elif isinstance(inner, PlayerAdd):
            if inner.player_id:
                if inner.name or inner.player_id not in found:
                    found[inner.player_id] = inner.name
        elif isinstance(inner, (MovePiece, PlayerRemove)):
            pid = inner.player_id
            if pid:
                found.setdefault(pid, "")
        elif isinstance(inner, UnknownCommand) and inner.text.startswith("UNMASK\t"):
            for pid in inner.text.split("\t")[1:]:
                if pid:
                    found.setdefault(pid, "")
    return found


@dataclass
class AnonymizedFile:
    """What :meth:`Anonymizer.file` made: the output bytes and counts."""

    data: bytes
    passwords: int
    replaced: int
    names: dict[str, str] = field(default_factory=dict)
    #: replacements inside other text (a piece's label or definition)
    elsewhere: int = 0


class Anonymizer:
    """Rewrites the passwords (and optionally the names) of saves and
    logs under one :class:`PasswordKey`.

    ``names`` maps old display names to new ones; ``names_in_chat``
    replaces a renamed player's name also where it stands as a word in a
    chat line (the roster and chat senders are always renamed)."""

    def __init__(self, key: PasswordKey, names: Mapping[str, str] | None = None, *,
                 names_in_chat: bool = False) -> None:
        self.key = key
        self.names = dict(names or {})
        self.names_in_chat = names_in_chat

    # -- the text ------------------------------------------------------------------------
    def text(self, text: str, passwords: Iterable[str]) -> tuple[str, int, int]:
        """``text`` with every occurrence of the passwords replaced (and the
        names renamed); returns the new text, the count of replacements and,
        of those, the count inside other text (a long password in a piece's
        label or definition: replaced too, for a password must not stay)."""
        ids = sorted({p for p in passwords if p}, key=len, reverse=True)
        count = elsewhere = 0
        if ids:
            mapping = {old: self.key.new_password(old) for old in ids}
            alternation = "|".join(re.escape(i) for i in ids)
            field_re = re.compile(rf"(?:(?<={_BOUND})|^)({alternation})(?={_BOUND}|$)"
                                  rf"|(?<=<)({alternation})(?=>)|(?<=&lt;)({alternation})(?=&gt;)")

            def field_sub(m: re.Match[str]) -> str:
                nonlocal count
                count += 1
                return mapping[m.group(m.lastindex or 0)]

            text = field_re.sub(field_sub, text)
            long_ids = [i for i in ids if len(i) >= LONG]
            if long_ids:
                anywhere = re.compile("|".join(re.escape(i) for i in long_ids))
                text, n = _in_chat(text, anywhere, lambda m: mapping[m.group(0)])
                count += n
                text, elsewhere = anywhere.subn(lambda m: mapping[m.group(0)], text)
                count += elsewhere
        if self.names:
            text = self._rename(text)
        return text, count, elsewhere

    def _rename(self, text: str) -> str:
        olds = sorted((n for n in self.names if n), key=len, reverse=True)
        if not olds:
            return text
        alternation = "|".join(re.escape(n) for n in olds)
        new = self.names
        # the roster's name field, and chat senders <Name> / &lt;Name&gt;
        roster = re.compile(rf"(PLAYER\t[^\t\x1b]*\t)({alternation})(?=\t|\x1b|\\|$)")
        text = roster.sub(lambda m: m.group(1) + new[m.group(2)], text)
        sender = re.compile(rf"(?<=&lt;)({alternation})(?=&gt;)|(?<=<)({alternation})(?=>)")
        text = sender.sub(lambda m: new[m.group(m.lastindex or 0)], text)
        if self.names_in_chat:
            word = re.compile(rf"(?<!\w)(?:{alternation})(?!\w)")
            text, _ = _in_chat(text, word, lambda m: new[m.group(0)])
        return text

    # -- the check -----------------------------------------------------------------------
    def check(self, text: str, entries: Mapping[str, bytes], passwords: Iterable[str],
              file: str | None) -> None:
        """Raise :class:`FormatError` when any old password is still in the
        output (never saying which, or printing text around it)."""
        for old in passwords:
            if not old:
                continue
            if len(old) >= LONG:
                where = text.find(old)
                if where >= 0:
                    raise FormatError(
                        "a player's password is still in the decoded text after anonymizing (it "
                        "occurs inside other text, e.g. a piece's definition, or escaped); nothing "
                        "was written", file=file, place=f"entry {SAVED_GAME}, character {where}")
                raw = old.encode("utf-8")
                for name, data in entries.items():
                    if name != SAVED_GAME and raw in data:
                        raise FormatError("a player's password occurs in this entry; nothing was "
                                          "written", file=file, place=f"entry {name}")
            else:
                m = re.search(rf"(?:(?<={_BOUND})|^){re.escape(old)}(?={_BOUND}|$)"
                              rf"|(?:<|&lt;){re.escape(old)}(?:>|&gt;)", text)
                if m is not None:
                    raise FormatError("a player's password is still a field of the decoded text after "
                                      "anonymizing; nothing was written", file=file,
                                      place=f"entry {SAVED_GAME}, character {m.start()}")

    # -- a whole file --------------------------------------------------------------------
    def file(self, game: SavedGame, extra_passwords: Sequence[str] = ()) -> AnonymizedFile:
        """The anonymized bytes of ``game`` (in its own container and
        encoding), checked to hold no old password."""
        ids = game_passwords(game)
        passwords = set(ids) | {p for p in extra_passwords if p}
        clash = passwords & {self.key.new_password(p) for p in passwords}
        if clash:           # a 14-letter HMAC equal to a password: astronomically unlikely
            raise VmodError("a new password equals an old one; run again with another key",
                            file=game.file)
        text, count, elsewhere = self.text(game.text, passwords)
        self.check(text, game.entries, passwords, game.file)
        renamed = {n: self.names[n] for n in ids.values() if n in self.names}
        return AnonymizedFile(game.to_bytes(text), len(ids), count, renamed, elsewhere)


def _in_chat(text: str, pattern: re.Pattern[str],
             replace: Callable[[re.Match[str]], str]) -> tuple[str, int]:
    """Apply ``pattern`` only inside chat leaves (``CHAT…`` or
    ``LOG<TAB>CHAT…``: the text after the last ESC before a match starts
    so, backslashes of the nesting aside)."""
    count = 0

    def sub(m: re.Match[str]) -> str:
        nonlocal count
        start = text.rfind(ESC, 0, m.start()) + 1
        head = text[start:start + 12].lstrip("\\")
        if head.startswith(("CHAT", "LOG\tCHAT")):
            count += 1
            return replace(m)
        return m.group(0)

    return pattern.sub(sub, text), count
