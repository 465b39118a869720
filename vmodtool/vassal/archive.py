"""Zip archives (``.vmod``, ``.vext``/``.vmdx``, ``.vsav``, ``.vlog``) read
safely (``docs/vassal-format.md`` §1.1, §4.1).

Every archive is untrusted: entry names that are absolute or climb out of
their folder are refused, and decompression is bounded both by size and by
compression ratio, so a zip bomb stops before it fills memory.  Damaged and
truncated archives give a :class:`~vmodtool.errors.FormatError` naming the
file and the entry.
"""

from __future__ import annotations

import io
import os
import re
import struct
import sys
import zipfile
import zlib
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Union

from vmodtool.errors import FormatError, UnsafeFileError

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

__all__ = ["Archive", "ArchiveLimits", "DEFAULT_LIMITS", "EntryStream", "is_zip_data", "read_head",
           "build_zip"]

PathLike = Union[str, "os.PathLike[str]"]

_DRIVE = re.compile(r"^[A-Za-z]:")


@dataclass(frozen=True)
class ArchiveLimits:
    """Bounds on what one archive may make us decompress.

    ``max_entry_size``: the largest uncompressed entry accepted (real saves
    reach ~465 MB of hex text; 2 GiB leaves room).  ``max_ratio``: the largest
    uncompressed/compressed ratio accepted for entries over
    ``ratio_floor`` bytes (hex text deflates about 3:1 and images about 1:1;
    bombs reach 1000:1).  ``max_total``: all entries together.
    """

    max_entry_size: int = 2 * 1024 ** 3
    max_ratio: float = 200.0
    ratio_floor: int = 1024 * 1024
    max_total: int = 8 * 1024 ** 3
    max_entries: int = 200_000


#: the limits used when a caller gives none
DEFAULT_LIMITS = ArchiveLimits()


def is_zip_data(head: bytes) -> bool:
    """Whether the first bytes of a file look like a zip archive."""
    return head[:2] == b"PK"


def read_head(path: PathLike, size: int = 4) -> bytes:
    """The first ``size`` bytes of a file (to sniff its kind); a file that
    cannot be opened is a :class:`FormatError` naming it."""
    try:
        with open(path, "rb") as fh:
            return fh.read(size)
    except OSError as exc:
        raise FormatError(f"cannot open: {exc.strerror}", file=path) from None


def _check_name(name: str) -> str | None:
    """Why an entry name is unsafe, or None."""
    if "\x00" in name:
        return "contains a NUL character"
    norm = name.replace("\\", "/")
    if norm.startswith("/") or _DRIVE.match(norm):
        return "is an absolute path"
    if any(part == ".." for part in norm.split("/")):
        return "climbs out of the archive with '..'"
    return None


class Archive:
    """A zip archive opened for safe reading.

    >>> with Archive.open("game.vsav") as arc:      # doctest: +SKIP
    ...     data = arc.read("savedGame")
    """

    def __init__(self, source: IO[bytes] | bytes, *, file: PathLike | None = None,
                 limits: ArchiveLimits = DEFAULT_LIMITS) -> None:
        self.file = os.fspath(file) if file is not None else None
        self.limits = limits
        stream = io.BytesIO(source) if isinstance(source, (bytes, bytearray)) else source
        try:
            self._zip = zipfile.ZipFile(stream)
        except zipfile.BadZipFile as exc:
            raise FormatError(f"not a readable zip archive ({exc}); the file may be truncated",
                              file=self.file) from None
        except (OSError, ValueError, EOFError, NotImplementedError) as exc:
            raise FormatError(f"the zip archive is damaged ({exc})", file=self.file) from None
        infos = self._zip.infolist()
        if len(infos) > limits.max_entries:
            raise UnsafeFileError(f"the archive has {len(infos)} entries, more than the "
                                  f"{limits.max_entries} accepted", file=self.file)
        self._infos: dict[str, zipfile.ZipInfo] = {}
        total = 0
        for info in infos:
            # zipfile cuts a name at its first NUL (``filename``); the name as
            # stored is ``orig_filename``, and a NUL in it is a disguise
            if "\x00" in info.orig_filename:
                raise UnsafeFileError(
                    f"refusing an archive whose entry {info.orig_filename!r} contains a NUL "
                    f"character (zip readers cut the name there, to {info.filename!r})",
                    file=self.file, place=f"entry at byte {info.header_offset}")
            why = _check_name(info.filename)
            if why:
                raise UnsafeFileError(f"refusing an archive whose entry {info.filename!r} {why}",
                                      file=self.file)
            if info.filename in self._infos:
                raise FormatError(f"the archive has two entries named {info.filename!r}; "
                                  "which one VASSAL would read is undefined", file=self.file)
            self._infos[info.filename] = info
            total += info.file_size
        if total > limits.max_total:
            raise UnsafeFileError(f"the archive would expand to {total} bytes, more than the "
                                  f"{limits.max_total} accepted", file=self.file)

    @classmethod
    def open(cls, path: PathLike, *, limits: ArchiveLimits = DEFAULT_LIMITS) -> Archive:
        try:
            stream = open(path, "rb")
        except OSError as exc:
            raise FormatError(f"cannot open: {exc.strerror}", file=path) from None
        try:
            return cls(stream, file=path, limits=limits)
        except BaseException:
            stream.close()
            raise

    def close(self) -> None:
        fp = self._zip.fp
        self._zip.close()
        if fp is not None:
            try:
                fp.close()
            except OSError:
                pass  # closing a file opened for reading loses nothing

    def __enter__(self) -> Archive:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- queries ------------------------------------------------------------
    def names(self) -> list[str]:
        """Entry names in archive order (directories included)."""
        return list(self._infos)

    def files(self) -> list[str]:
        """Entry names that are files, in archive order."""
        return [n for n in self._infos if not n.endswith("/")]

    def __contains__(self, name: str) -> bool:
        return name in self._infos

    def info(self, name: str) -> zipfile.ZipInfo:
        try:
            return self._infos[name]
        except KeyError:
            raise FormatError(f"the archive has no entry {name!r}", file=self.file) from None

    def size(self, name: str) -> int:
        return self.info(name).file_size

    # -- reading ------------------------------------------------------------
    def _check_bounds(self, info: zipfile.ZipInfo, max_size: int | None) -> None:
        limit = self.limits.max_entry_size if max_size is None else max_size
        if info.file_size > limit:
            raise UnsafeFileError(f"entry is {info.file_size} bytes uncompressed, more than the "
                                  f"{limit} accepted", file=self.file, place=f"entry {info.filename}")
        if info.file_size > self.limits.ratio_floor:
            ratio = info.file_size / max(1, info.compress_size)
            if ratio > self.limits.max_ratio:
                raise UnsafeFileError(
                    f"entry expands {ratio:.0f}:1 (to {info.file_size} bytes), past the "
                    f"{self.limits.max_ratio:.0f}:1 accepted; this looks like a zip bomb",
                    file=self.file, place=f"entry {info.filename}")

    def open_entry(self, name: str, *, max_size: int | None = None) -> EntryStream:
        """A bounded binary stream of one entry's uncompressed bytes.  Damage
        found while reading raises :class:`FormatError`."""
        info = self.info(name)
        self._check_bounds(info, max_size)
        try:
            raw = self._zip.open(info)
        except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError, RuntimeError) as exc:
            raise FormatError(f"cannot read entry ({exc})", file=self.file,
                              place=f"entry {name}") from None
        return EntryStream(raw, self.file, name)

    def read(self, name: str, *, max_size: int | None = None) -> bytes:
        """One entry's bytes (bounded, CRC-checked)."""
        with self.open_entry(name, max_size=max_size) as stream:
            return stream.read()


class EntryStream(io.RawIOBase):
    """One archive entry's bytes (:meth:`Archive.open_entry`): wraps a
    ZipExtFile so that every damage shows as FormatError."""

    def __init__(self, raw: IO[bytes], file: str | None, name: str) -> None:
        self._raw = raw
        self._file = file
        self._name = name
        self._pos = 0

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        try:
            data = self._raw.read(n)
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, RuntimeError) as exc:
            raise FormatError(f"the entry is damaged or truncated ({exc})", file=self._file,
                              place=f"entry {self._name}, byte {self._pos}") from None
        self._pos += len(data)
        return data

    def readinto(self, buf: WriteableBuffer) -> int:
        with memoryview(buf) as view:
            data = self.read(len(view))
            view[:len(data)] = data
        return len(data)

    def close(self) -> None:
        try:
            self._raw.close()
        finally:
            super().close()


#: entries that are compressed already: deflating them again costs time for nothing
_STORED_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".zip", ".vsav", ".vlog", ".xz")


def build_zip(entries: dict[str, bytes], *,
              date_time: tuple[int, int, int, int, int, int] = (1980, 1, 1, 0, 0, 0), compress_level: int = 9) -> bytes:
    """The bytes of a zip archive with fixed timestamps and the given entry
    order, so that the same entries always give the same bytes; the caller
    writes them atomically.  Text entries are DEFLATED (as VASSAL writes);
    images and other compressed files are STORED, which VASSAL reads as
    well (§1.1).

    The archive is laid out here, header by header, to exactly the bytes
    :mod:`zipfile` writes for the same entries (``_zipfile_build_zip``; the
    tests hold the two equal), without its per-entry file-object machinery
    (a module of 8,000 images spent a fifth of its warm build there); an
    archive that needs ZIP64 records is written by :mod:`zipfile` itself."""
    names: list[tuple[str, bytes, int]] = []
    total = 0
    for name, data in entries.items():
        why = _check_name(name)
        if why:
            raise ValueError(f"entry name {name!r} {why}")
        # the name as ZipInfo keeps it: cut at a NUL (refused above), os.sep as '/'
        if os.sep != "/":
            name = name.replace(os.sep, "/")
        try:
            raw, flags = name.encode("ascii"), 0
        except UnicodeEncodeError:
            raw, flags = name.encode("utf-8"), _UTF8_FLAG
        names.append((name, raw, flags))
        total += len(data) + len(raw)
    if len(entries) >= 0xFFFF or total + 100 * (len(entries) + 1) >= _NO_ZIP64_BELOW:
        return _zipfile_build_zip(entries, date_time=date_time, compress_level=compress_level)
    dosdate = (date_time[0] - 1980) << 9 | date_time[1] << 5 | date_time[2]
    dostime = date_time[3] << 11 | date_time[4] << 5 | (date_time[5] // 2)
    system = 0 if sys.platform == "win32" else 3
    out: list[bytes] = []
    central: list[bytes] = []
    offset = 0
    pack = struct.pack
    for (name, raw, flags), data in zip(names, entries.values(), strict=True):
        crc = zlib.crc32(data)
        if name.lower().endswith(_STORED_SUFFIXES):
            method, body = zipfile.ZIP_STORED, data
        else:
            method = zipfile.ZIP_DEFLATED
            packer = zlib.compressobj(compress_level, zlib.DEFLATED, -15)
            body = packer.compress(data) + packer.flush()
        header = pack(_LOCAL, b"PK\x03\x04", 20, 0, flags, method, dostime, dosdate, crc,
                      len(body), len(data), len(raw), 0)
        out += (header, raw, body)
        central += (pack(_CENTRAL, b"PK\x01\x02", 20, system, 20, 0, flags, method, dostime, dosdate, crc,
                         len(body), len(data), len(raw), 0, 0, 0, 0, _EXTERNAL_ATTR, offset), raw)
        offset += len(header) + len(raw) + len(body)
    directory = b"".join(central)
    out += (directory, pack(_END, b"PK\x05\x06", 0, 0, len(names), len(names), len(directory), offset, 0))
    return b"".join(out)


#: zipfile's header layouts (local file header, central directory entry, end record)
_LOCAL = "<4s2B4HL2L2H"
_CENTRAL = "<4s4B4HL2L5H2L"
_END = "<4s4H2LH"
_UTF8_FLAG = 0x800
_EXTERNAL_ATTR = 0o644 << 16
#: an archive this large (or with offsets past it) needs ZIP64 records: zipfile writes those
_NO_ZIP64_BELOW = int(((1 << 31) - 1) / 1.05)


def _zipfile_build_zip(entries: dict[str, bytes], *,
                       date_time: tuple[int, int, int, int, int, int] = (1980, 1, 1, 0, 0, 0),
                       compress_level: int = 9) -> bytes:
    """:func:`build_zip` by :mod:`zipfile` (for archives that need ZIP64,
    and the reference the tests hold :func:`build_zip` to)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=compress_level) as zf:
        for name, data in entries.items():
            why = _check_name(name)
            if why:
                raise ValueError(f"entry name {name!r} {why}")
            info = zipfile.ZipInfo(name, date_time=date_time)
            stored = name.lower().endswith(_STORED_SUFFIXES)
            info.compress_type = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
            info.external_attr = _EXTERNAL_ATTR
            if stored:
                zf.writestr(info, data, compress_type=zipfile.ZIP_STORED)
            else:
                zf.writestr(info, data, compress_type=zipfile.ZIP_DEFLATED,
                            compresslevel=compress_level)
    return buf.getvalue()
