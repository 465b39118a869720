"""File helpers shared by every layer: atomic writes that never destroy an
input and only ever replace a regular file, what a file is by its first
bytes (for error messages), and JSON read from files as untrusted text."""

from __future__ import annotations

import codecs
import contextlib
import json
import os
import stat
from collections.abc import Collection, Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple, Union

from vmodtool.errors import FormatError, VmodError

PathLike = Union[str, "os.PathLike[str]"]


def parse_json(text: str | bytes) -> Any:
    """``json.loads`` for text from a file: JSON nested past Python's
    recursion limit is a ValueError like any other malformed JSON (the
    decoder raises RecursionError for it), so that a reader's ``except
    ValueError`` reports it and nothing crashes."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("the JSON is nested deeper than vmodtool reads") from None


def output_kind(path: PathLike, *, follow: bool = False) -> str | None:
    """What stands at ``path`` when it is not something an output may
    replace: ``"a character device"``, ``"a folder"``, ``"a symbolic link
    (to …)"`` …; ``None`` when nothing is there or it is a regular file.
    The path itself is looked at (``lstat``), or with ``follow`` what a link
    at it ends at (``/dev/stdout`` → the terminal, a character device)."""
    try:
        st = os.stat(path) if follow else os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:          # a parent is a file, a name too long, no permission
        return f"not reachable ({exc.strerror or exc})"
    mode = st.st_mode
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISLNK(mode):
        try:
            target = os.readlink(path)
        except OSError:
            target = "?"
        return f"a symbolic link (to {target})"
    kinds = ((stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"),
             (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
             (stat.S_ISSOCK, "a socket"))
    return next((phrase for test, phrase in kinds if test(mode)), "not a regular file")


def check_output_target(path: PathLike) -> None:
    """Refuse to write ``path`` when something other than a regular file is
    there.  Renaming over a device node, a FIFO or a socket would replace it
    with a regular file (``-o /dev/null`` run as root would destroy
    ``/dev/null``); a folder cannot be replaced.  A symbolic link is refused
    too: writing through it changes a file the user did not name (the
    classic planted-link attack in a shared folder), replacing it silently
    breaks the user's link; the message names the file it points to, so
    giving that name instead is one edit."""
    kind = output_kind(path)
    if kind is not None:
        hint = ""
        if kind.startswith("a symbolic link"):
            hint = f"; give the file it points to ({os.path.realpath(path)}) if that is meant"
        raise VmodError(f"refusing to write the output here: this is {kind}, and an output only "
                        f"replaces a regular file{hint}", file=path)


def atomic_write(path: PathLike, data: bytes | bytearray | memoryview | Iterable[bytes]) -> None:
    """Write ``data`` to ``path`` atomically: into a temporary file in the
    same folder (created with ``O_EXCL``, so never someone else's), flushed
    to disk, then renamed over the target.  A reader never sees a
    half-written file, an interrupted run leaves the old file intact and
    removes the temporary one.  Only a regular file (or nothing) is
    replaced: anything else at ``path`` is refused
    (:func:`check_output_target`), checked once before and once just before
    the rename.  An error of the file system is a :class:`VmodError` naming
    ``path``."""
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise VmodError(f"the output folder {folder} does not exist", file=target)
    check_output_target(target)
    with _machine_errors(target):
        import tempfile  # only when writing: reading commands start without it

        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as out:
            with _machine_errors(target):
                # mkstemp makes the file private (0600); give it the mode a normal
                # open() would (or keep the mode of the file it replaces)
                try:
                    mode = os.stat(target).st_mode & 0o7777
                except OSError:
                    umask = os.umask(0)
                    os.umask(umask)
                    mode = 0o666 & ~umask
                os.chmod(tmp, mode)
            if isinstance(data, (bytes, bytearray, memoryview)):
                with _machine_errors(target):
                    out.write(data)
            else:
                for chunk in data:          # an error making the data is raised as it is
                    with _machine_errors(target):
                        out.write(chunk)
            with _machine_errors(target):
                out.flush()
                os.fsync(out.fileno())
        check_output_target(target)     # again: the output may have been made meanwhile
        with _machine_errors(target):
            os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


@contextlib.contextmanager
def _machine_errors(target: Path) -> Iterator[None]:
    """An ``OSError`` of the file system while writing ``target`` (disk
    full, permission denied, read-only folder) as a :class:`VmodError`
    naming it: the machine's state, not a bug in vmodtool."""
    try:
        yield
    except OSError as exc:
        raise VmodError(f"cannot write the output: {exc.strerror or exc}", file=target) from None


def output_folder(place: PathLike, *names: str) -> Path:
    """The output folder ``place/names…``, made when it is not there: the
    one way every command makes or reuses a folder it writes into (a
    report's ``_files``, a build cache's ``vassal/``, a batch worker's
    files).  ``place`` is what the user named (made with its parents; a
    symbolic link the user names is followed, as for any path they give).
    Each folder of ``names`` below it is made, or reused only when it is a
    real folder: a symbolic link there (to a folder elsewhere) or anything
    else is refused with a :class:`VmodError` naming it, so that no output
    lands outside the named place.  ``names`` are folder names of the
    program's own (``"cards/vassal"`` is two), never ``..`` or absolute."""
    folder = Path(place)
    if folder.exists() and not folder.is_dir():
        raise VmodError("the output folder is not a folder: "
                        f"this is {output_kind(folder, follow=True) or 'a file'}", file=folder)
    with _machine_errors(folder):
        folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        for part in Path(name).parts:
            if part in ("", ".", "..") or Path(part).is_absolute():
                raise ValueError(f"output_folder: {name!r} is not a folder name below the place")
            folder = folder / part
            try:
                os.mkdir(folder)
            except FileExistsError:
                pass
            except OSError as exc:
                kind = output_kind(folder)
                if kind is None:
                    raise VmodError(f"cannot make the output folder: {exc.strerror or exc}", file=folder) from None
            kind = output_kind(folder)
            if kind != "a folder":
                hint = ("; an output folder is used only when it is a real folder inside "
                        f"{Path(place)}") if kind and kind.startswith("a symbolic link") else ""
                raise VmodError(f"refusing to write into this: it is {kind or 'a file'}, not a folder{hint}",
                                file=folder)
    return folder


class BoundedLine(NamedTuple):
    """One line of a :func:`bounded_lines` read: where it starts, its length
    in the file, and its bytes (``None`` when it was longer than the limit:
    it was skipped, never held); ``whole`` is False for a last line without
    its newline (a torn write)."""

    offset: int
    length: int
    data: bytes | None
    whole: bool


def bounded_lines(fh: BinaryIO, limit: int, *, block: int = 1 << 16) -> Iterator[BoundedLine]:
    """The lines of a binary file (JSON Lines, text a program wrote), none
    held past ``limit`` bytes: a longer line is read through in blocks and
    given as ``data=None`` (the caller treats it as a bad record), so that a
    400 MB line without a newline costs a block of memory, not 400 MB."""
    offset = fh.tell()
    while True:
        line = fh.readline(limit + 1)
        if not line:
            return
        if len(line) <= limit or line.endswith(b"\n"):
            yield BoundedLine(offset, len(line), line, line.endswith(b"\n"))
            offset += len(line)
            continue
        length = len(line)                   # over-long: read through to its end, keeping nothing
        del line
        whole = False
        while True:
            more = fh.readline(block)
            if not more:
                break
            length += len(more)
            if more.endswith(b"\n"):
                whole = True
                break
        yield BoundedLine(offset, length, None, whole)
        offset += length


def refuse_overwrite(output: PathLike, *inputs: PathLike) -> None:
    """Raise :class:`VmodError` when ``output`` is one of ``inputs`` or not
    something an output may replace (:func:`check_output_target`): called by
    commands before any work, so a wrong ``-o`` costs nothing."""
    out = Path(output)
    check_output_target(out)
    for item in inputs:
        src = Path(item)
        try:
            same = out.exists() and src.exists() and os.path.samefile(out, src)
        except OSError:
            same = False
        if same or out.resolve() == src.resolve():
            raise VmodError("refusing to overwrite an input file; choose another output path",
                            file=out)


# --------------------------------------------------------------------------
# what a file is, for error messages

class FileKind(NamedTuple):
    """What the first bytes of a file say it is: a short ``key`` readers
    compare (``"png"``, ``"zip"``, ``"vassal-stream"`` …) and a ``phrase``
    for messages (``"a PNG image"``)."""

    key: str
    phrase: str


#: magic numbers of the kinds of file a user may pass by mistake, in test order
_MAGIC: tuple[tuple[bytes, str, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "png", "a PNG image"),
    (b"\xff\xd8\xff", "jpeg", "a JPEG image"),
    (b"GIF87a", "gif", "a GIF image"),
    (b"GIF89a", "gif", "a GIF image"),
    (b"II*\x00", "tiff", "a TIFF image"),
    (b"MM\x00*", "tiff", "a TIFF image"),
    (b"%PDF-", "pdf", "a PDF document"),
    (b"PK\x03\x04", "zip", "a ZIP archive"),
    (b"PK\x05\x06", "zip", "a ZIP archive (empty)"),
    (b"\x1f\x8b", "gzip", "a gzip-compressed file"),
    (b"\xfd7zXZ\x00", "xz", "an xz-compressed file"),
    (b"BZh", "bzip2", "a bzip2-compressed file"),
    (b"7z\xbc\xaf\x27\x1c", "7z", "a 7-Zip archive"),
    (b"Rar!\x1a\x07", "rar", "a RAR archive"),
    (b"\x7fELF", "elf", "a program (ELF executable)"),
    (b"SQLite format 3\x00", "sqlite", "an SQLite database"),
    (b"\xca\xfe\xba\xbe", "java-class", "a Java class file"),
    (b"\xac\xed\x00\x05", "java-serialized", "serialized Java data"),
    # VASSAL's own bare command streams (savedGame encodings and plain text)
    (b"!VCSK", "vassal-stream", "a VASSAL saved game or log"),
    (b"!VCSZ", "vassal-stream", "a VASSAL saved game or log"),
    (b"!VOBS", "vassal-stream", "a VASSAL saved game or log"),
    (b"!VOXZ", "vassal-stream", "a VASSAL saved game or log"),
    (b"VOBS", "vassal-stream", "a VASSAL saved game or log"),
    (b"begin_save", "vassal-stream", "a VASSAL saved game or log"),
)
_TEXT_CONTROLS = {9, 10, 12, 13, 27}        # tab, newline, form feed, return, VASSAL's ESC


def sniff(head: bytes) -> FileKind | None:
    """What a file is from its first bytes (512 are plenty), or ``None`` when
    they match no known kind (binary data).  Pure; used on the error path of
    readers to say "this is a PNG image, not a VASSAL module"."""
    if not head:
        return FileKind("empty", "an empty file")
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return FileKind("webp", "a WebP image")
    for magic, key, phrase in _MAGIC:
        if head.startswith(magic):
            return FileKind(key, phrase)
    decoded = _text(head)
    if decoded is None:
        return None
    text, codec = decoded
    if codec != "utf-8":
        return FileKind("utf16", "UTF-16 text")
    start = text.lstrip().lower()
    if start.startswith(("<!doctype html", "<html")):
        return FileKind("html", "an HTML page")
    if start.startswith("<"):
        return FileKind("xml", "an XML document")
    if start.startswith(("{", "[")):
        return FileKind("json", "JSON text")
    return FileKind("text", "plain text")


def _text(head: bytes) -> tuple[str, str] | None:
    """The head as text and its codec (UTF-8, or UTF-16 with its byte order
    mark) when it has no control characters a text file would not have."""
    if head[:2] in (b"\xff\xfe", b"\xfe\xff"):
        codec, body = ("utf-16-le" if head[0] == 0xFF else "utf-16-be"), head[2:]
    else:
        codec, body = "utf-8", head[3:] if head.startswith(b"\xef\xbb\xbf") else head
    try:
        # not final: a character cut at the end of the head is not an error
        text = codecs.getincrementaldecoder(codec)().decode(body, final=False)
    except UnicodeDecodeError:
        return None
    if not text or any(ord(c) < 32 and ord(c) not in _TEXT_CONTROLS for c in text):
        return None
    return text, codec


def sniff_file(path: PathLike) -> FileKind | None:
    """:func:`sniff` of a file's first 512 bytes; ``None`` when it cannot be
    read (folders, missing files)."""
    try:
        with open(path, "rb") as fh:
            return sniff(fh.read(512))
    except OSError:
        return None


def not_what_expected(error: VmodError, path: PathLike, expected: str, *,
                      own: Collection[str] = ()) -> VmodError:
    """For the error path of a reader that could not read ``path`` as
    ``expected`` (``"a VASSAL module"``): when the file's first bytes show it
    is something else altogether, an error that says so (``x.vmod: this is a
    PNG image, not a VASSAL module``); otherwise ``error`` itself.  ``own``
    are the kinds the reader decodes itself (its own message says more)."""
    kind = sniff_file(path)
    if kind is None or kind.key in own:
        return error
    return FormatError(f"this is {kind.phrase}, not {expected}", file=path)
