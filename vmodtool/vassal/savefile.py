"""Saved games (``.vsav``) and logs (``.vlog``), old ``.sav``/``.log`` too
(``docs/vassal-format.md`` §4.1, §4.4, §4.7).

A save is a zip whose ``savedGame`` entry holds the encoded command text,
usually with ``savedata`` and ``moduledata`` beside it.  Some files are not
zips at all: then the whole file is the ``savedGame`` content (§4.1).  A file
that starts like a zip but cannot be read as one is reported as a damaged zip,
never mistaken for a bare stream.

:class:`SavedGame` keeps every entry's bytes, so rewriting a file changes
only the command text, in the file's own encoding.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Union

from vmodtool.errors import FormatError, UnsafeFileError, VmodError
from vmodtool.fileio import atomic_write, not_what_expected
from vmodtool.vassal.archive import DEFAULT_LIMITS, Archive, ArchiveLimits, build_zip, is_zip_data, read_head
from vmodtool.vassal.commands import (
    Command,
    CommandGroup,
    EndSave,
    LogEntry,
    Node,
    PlayerAdd,
    Redactor,
    UnknownCommand,
    VersionCheck,
    classify,
    leaves,
    parse_commands,
)
from vmodtool.vassal.obfuscation import (
    DecodedText,
    Encoding,
    decode_saved_game,
    encode_saved_game,
)

__all__ = ["SavedGame", "Player"]

PathLike = Union[str, "os.PathLike[str]"]
SAVED_GAME = "savedGame"


@dataclass(frozen=True)
class Player:
    """A roster entry: display name and side (``None``: observer).  The
    player id (the password) is deliberately not kept here."""

    name: str
    side: str | None


@dataclass
class SavedGame:
    """A decoded save or log.

    ``container`` is ``"zip"`` or ``"raw"``; ``entries`` every zip entry's
    bytes in archive order (``savedGame`` included, as stored); ``decoded``
    the command text and its encoding.  ``commands`` is the parsed tree
    (parsed on first use).
    """

    decoded: DecodedText
    container: str = "zip"
    entries: dict[str, bytes] = field(default_factory=dict)
    file: str | None = None
    _tree: Node | None = field(default=None, repr=False)

    # -- reading ------------------------------------------------------------
    @classmethod
    def read(cls, path: PathLike, *, limits: ArchiveLimits = DEFAULT_LIMITS,
             max_plaintext: int | None = None, max_ratio: float | None = None) -> SavedGame:
        """Read a save or log from ``path`` (zip or bare command stream).

        ``max_plaintext`` and ``max_ratio`` bound the decoded command text
        (:func:`~vmodtool.vassal.obfuscation.decode_saved_game`; default:
        ``VMODTOOL_MAX_PLAINTEXT``, ``VMODTOOL_MAX_RATIO`` or
        :data:`~vmodtool.vassal.obfuscation.DEFAULT_MAX_PLAINTEXT`)."""
        file = os.fspath(path)
        head = read_head(path)
        if not head:
            # VASSAL writes no save or log of 0 bytes (even an empty game is
            # a zip with its savedGame entry): this is no game to check
            raise FormatError("an empty file (0 bytes), not a VASSAL save or log", file=file)
        if not is_zip_data(head):
            try:
                with open(path, "rb") as fh:
                    decoded = decode_saved_game(fh, file=file, entry=None, max_plaintext=max_plaintext,
                                                max_ratio=max_ratio, size=os.fstat(fh.fileno()).st_size)
                return cls(decoded=decoded, container="raw", entries={}, file=file)._checked()
            except UnsafeFileError:
                raise
            except FormatError as exc:
                raise not_what_expected(exc, path, "a VASSAL save or log",
                                        own=("vassal-stream", "xz")) from None
        with Archive.open(path, limits=limits) as arc:
            return cls._from_archive(arc, file, max_plaintext, max_ratio)

    @classmethod
    def from_bytes(cls, data: bytes, *, file: PathLike | None = None,
                   limits: ArchiveLimits = DEFAULT_LIMITS,
                   max_plaintext: int | None = None, max_ratio: float | None = None) -> SavedGame:
        name = os.fspath(file) if file is not None else None
        if not is_zip_data(data[:4]):
            decoded = decode_saved_game(data, file=name, entry=None, max_plaintext=max_plaintext,
                                        max_ratio=max_ratio)
            return cls(decoded=decoded, container="raw", entries={}, file=name)._checked()
        with Archive(data, file=name, limits=limits) as arc:
            return cls._from_archive(arc, name, max_plaintext, max_ratio)

    @classmethod
    def _from_archive(cls, arc: Archive, file: str | None, max_plaintext: int | None,
                      max_ratio: float | None) -> SavedGame:
        if SAVED_GAME not in arc:
            listed = ", ".join(arc.files()[:8]) or "no entries"
            raise FormatError(f"not a VASSAL save or log: the archive has no '{SAVED_GAME}' entry "
                              f"(it has {listed})", file=file)
        with arc.open_entry(SAVED_GAME) as stream:
            decoded = decode_saved_game(stream, file=file, max_plaintext=max_plaintext, max_ratio=max_ratio,
                                        size=arc.size(SAVED_GAME))
        entries: dict[str, bytes] = {}
        for name in arc.names():
            if name == SAVED_GAME:
                entries[name] = b""  # re-encoded from the text on write
            elif not name.endswith("/"):
                entries[name] = arc.read(name, max_size=64 * 1024 * 1024)
        return cls(decoded=decoded, container="zip", entries=entries, file=file)._checked()

    def _checked(self) -> SavedGame:
        """Refuse text that is not a command stream: VASSAL starts every
        save and log with ``begin_save``; garbage here means a wrong key or
        a file that is not a save at all."""
        text = self.decoded.text
        if text.startswith("begin_save") or not text:
            return self
        first = text.split("\x1b", 1)[0]
        if classify(first) is UnknownCommand:
            where = f"entry {SAVED_GAME}" if self.container == "zip" else None
            sample = text[:24].encode("unicode_escape").decode("ascii")
            raise FormatError(
                "the decoded text does not start with a VASSAL command (expected 'begin_save'; "
                f"found '{sample}'): the obfuscation key is wrong or the file is damaged",
                file=self.file, place=where)
        return self

    # -- contents -----------------------------------------------------------
    @property
    def text(self) -> str:
        """The decoded command text."""
        return self.decoded.text

    @property
    def commands(self) -> Node:
        """The command tree (§4.3)."""
        if self._tree is None:
            try:
                self._tree = parse_commands(self.decoded.text)
            except FormatError as exc:
                where = f"entry {SAVED_GAME}" if self.container == "zip" else None
                raise exc.located(file=self.file, place=where) from None
        return self._tree

    def top_level(self) -> tuple[Node, ...]:
        tree = self.commands
        return tree.children if isinstance(tree, CommandGroup) else (tree,)

    def restore_part(self) -> tuple[Node, ...]:
        """The top-level nodes from ``begin_save`` through ``end_save`` (the
        state the file starts from)."""
        nodes = self.top_level()
        for i, node in enumerate(nodes):
            if isinstance(node, EndSave):
                return nodes[: i + 1]
        return tuple(n for n in nodes if _first_leaf(n) is not None
                     and not isinstance(_first_leaf(n), LogEntry))

    def log_steps(self) -> list[tuple[int, Node]]:
        """The replay steps of a log: each top-level node whose first leaf is
        a ``LOG`` entry (§4.7), with its top-level index."""
        steps = []
        for i, node in enumerate(self.top_level()):
            if isinstance(_first_leaf(node), LogEntry):
                steps.append((i, node))
        return steps

    @property
    def is_log(self) -> bool:
        return bool(self.log_steps())

    def players(self) -> list[Player]:
        """Roster entries of the restore part, duplicates removed (3.6/3.7
        saves repeat them, §4.4)."""
        seen: dict[tuple[str, str | None], Player] = {}
        for node in self.restore_part():
            for _, cmd in leaves(node):
                if isinstance(cmd, PlayerAdd):
                    player = Player(cmd.name, cmd.side)
                    seen.setdefault((player.name, player.side), player)
        return list(seen.values())

    def redactor(self) -> Redactor:
        """A :class:`Redactor` that knows every player id of this file."""
        return Redactor().learn_from(self.commands)

    def metadata_xml(self, entry: str) -> bytes | None:
        """The raw bytes of ``savedata`` / ``moduledata`` (or None)."""
        return self.entries.get(entry) or None

    def version_checks(self) -> dict[str, str]:
        """VASSAL 2.x ``CHECK`` versions: ``{"vassal": "2.9.8", "module": "0.0"}``."""
        found: dict[str, str] = {}
        for node in self.top_level()[:4]:
            for _, cmd in leaves(node):
                if isinstance(cmd, VersionCheck) and cmd.version:
                    found.setdefault(cmd.subject, cmd.version)
        return found

    # -- writing ------------------------------------------------------------
    def to_bytes(self, text: str | None = None, *, encoding: Encoding | None = None,
                 key: int | None = None) -> bytes:
        """The file's bytes with ``text`` (default: the current text) as its
        command text, in the file's own encoding, key and hex case unless
        told otherwise; other entries are kept byte for byte.  A bare stream
        stays bare."""
        text = self.decoded.text if text is None else text
        enc = encoding or self.decoded.encoding
        payload = encode_saved_game(
            text, enc, key=self.decoded.key if key is None and encoding is None else key,
            hex_case=self.decoded.hex_case or "lower", header=self.decoded.header or None)
        if self.container == "raw":
            return payload
        entries = dict(self.entries) if self.entries else {SAVED_GAME: b""}
        entries[SAVED_GAME] = payload
        return build_zip(entries)

    def write(self, path: PathLike, text: str | None = None, *, encoding: Encoding | None = None,
              key: int | None = None) -> None:
        """Write atomically to ``path`` (never over the file it was read from)."""
        if self.file and Path(path).resolve() == Path(self.file).resolve():
            raise VmodError("refusing to overwrite the input file; choose another path", file=path)
        atomic_write(path, self.to_bytes(text, encoding=encoding, key=key))


def _first_leaf(node: Node) -> Command | None:
    while isinstance(node, CommandGroup):
        if not node.children:
            return None
        node = node.children[0]
    return node if isinstance(node, Command) else None
