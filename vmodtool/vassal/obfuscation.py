"""The encodings of a save's or log's ``savedGame`` entry (``docs/vassal-format.md`` §4.2).

VASSAL has written the command text of ``.vsav``/``.vlog`` files in several
ways over the years; a reader must sniff them all and a rewriter keeps the
file's own one:

========== ================================================================
``PLAIN``  the UTF-8 text as is (VASSAL 2.0 tour log, bare TLD ``.sav``)
``VCSK``   ``!VCSK`` + key as 2 hex digits + hex of (UTF-8 bytes XOR key);
           hex digits upper or lower case (VASSAL ≤ 3.7, 2.x upper case)
``VCSZ``   ``!VCSZ`` + key as 2 hex digits + hex of (zlib(text) XOR key)
           (an abandoned 3.8 development format)
``VOBS``   ``VOBS`` (or ``!VOBS``) + one raw key byte + raw bytes XOR key
           (vassal PR #15060, 3.8)
``VOXZ``   ``!VOXZ`` + one raw key byte + (xz(text) XOR key) (3.8 proposal)
``XZ``     an xz stream of the text (magic ``FD 37 7A 58 5A 00``)
========== ================================================================

Decoding is vectorised: ``bytes.fromhex`` and ``bytes.translate`` run in C,
and the input is processed in chunks so that the peak memory stays near two
times the plaintext (the decoded bytes and the decoded text).
"""

from __future__ import annotations

import binascii
import codecs
import enum
import functools
import io
import lzma
import os
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from vmodtool.errors import FormatError, PathLike, UnsafeFileError, VmodError

__all__ = [
    "Encoding",
    "DecodedText",
    "decode_saved_game",
    "encode_saved_game",
    "sniff_encoding",
    "DEFAULT_MAX_PLAINTEXT",
    "DEFAULT_MAX_RATIO",
    "ENV_MAX_PLAINTEXT",
    "ENV_MAX_RATIO",
    "plaintext_limits",
]

#: refuse to produce more plaintext than this (``VMODTOOL_MAX_PLAINTEXT``
#: overrides it): the largest corpus save holds 14 MB of text, so 200 MiB
#: leaves room while keeping a refused file's peak memory under 300 MB; the
#: rare real save of ~465 MB needs the variable raised.
DEFAULT_MAX_PLAINTEXT = 200 * 1024 ** 2
#: the largest plaintext/compressed ratio accepted from ``!VCSZ``, ``!VOXZ``
#: and bare xz once past :data:`RATIO_FLOOR` bytes of output
#: (``VMODTOOL_MAX_RATIO`` overrides it).  Real saves reach 26:1 with zlib and
#: 130:1 with ``xz -9e``; a stream of zeros reaches 1032:1 (zlib) and
#: 6500:1 (xz).
DEFAULT_MAX_RATIO = 500.0
#: output that is always accepted whatever the ratio (the head of a save may
#: compress better than the whole)
RATIO_FLOOR = 32 * 1024 ** 2
#: the environment variables that raise the limits
ENV_MAX_PLAINTEXT = "VMODTOOL_MAX_PLAINTEXT"
ENV_MAX_RATIO = "VMODTOOL_MAX_RATIO"

_CHUNK = 1 << 22  # 4 MiB of encoded input per step (must be even)
_IN_STEP = 1 << 14  # compressed bytes fed to a decompressor per call
_OUT_STEP = 1 << 20  # plaintext bytes asked of a decompressor per call
_HEXDIGITS = b"0123456789abcdefABCDEF"
_UPPER_HEX = b"ABCDEF"
_LOWER_HEX = b"abcdef"
_XZ_MAGIC = b"\xfd7zXZ\x00"


@functools.cache
def _xor_table(key: int) -> bytes:
    """``bytes.translate`` table that XORs every byte with ``key``: made when
    a file uses the key (one per file), not all 256 at import (3 ms of every
    start that reads a save or log)."""
    return bytes(i ^ key for i in range(256))


class BinaryReader(Protocol):
    """What the decoder reads from: an open binary file, a ``BytesIO`` or an
    archive entry stream (only ``read`` is used)."""

    def read(self, size: int = -1, /) -> bytes: ...


class Encoding(str, enum.Enum):
    """How a ``savedGame`` entry is encoded."""

    PLAIN = "plain"
    VCSK = "!VCSK"
    VCSZ = "!VCSZ"
    VOBS = "VOBS"
    VOXZ = "!VOXZ"
    XZ = "xz"


@dataclass(frozen=True)
class DecodedText:
    """The command text of a ``savedGame`` entry and how it was encoded.

    ``key`` is the XOR key (``None`` for plain/xz), ``hex_case`` the case of
    the hex digits (``"lower"``, ``"upper"`` or ``"mixed"``; ``None`` when
    the encoding is not hex), ``header`` the exact header bytes (``VOBS`` vs
    ``!VOBS``), ``plaintext_bytes`` the size of the UTF-8 text.
    """

    text: str
    encoding: Encoding
    key: int | None = None
    hex_case: str | None = None
    header: bytes = b""
    plaintext_bytes: int = 0


def sniff_encoding(head: bytes) -> Encoding:
    """The encoding of a ``savedGame`` entry from its first bytes."""
    if head.startswith(b"!VCSK"):
        return Encoding.VCSK
    if head.startswith(b"!VCSZ"):
        return Encoding.VCSZ
    if head.startswith(b"VOBS") or head.startswith(b"!VOBS"):
        return Encoding.VOBS
    if head.startswith(b"!VOXZ"):
        return Encoding.VOXZ
    if head.startswith(_XZ_MAGIC):
        return Encoding.XZ
    return Encoding.PLAIN


def _as_stream(data: bytes | bytearray | memoryview | BinaryReader) -> BinaryReader:
    if isinstance(data, (bytes, bytearray, memoryview)):
        return io.BytesIO(bytes(data) if not isinstance(data, bytes) else data)
    return data


def _read_exact(stream: BinaryReader, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        got = stream.read(n - len(buf))
        if not got:
            break
        buf += got
    return buf


def _hex_case(seen_lower: bool, seen_upper: bool) -> str:
    if seen_lower and seen_upper:
        return "mixed"
    return "upper" if seen_upper else "lower"


def _bad_hex_offset(chunk: bytes) -> int:
    """Index of the first byte of ``chunk`` that is not a hex digit."""
    for i, b in enumerate(chunk):
        if b not in _HEXDIGITS:
            return i
    return -1


def _iter_unhex(stream: BinaryReader, key: int, start: int) -> Iterator[tuple[bytes, bool, bool]]:
    """Yield (decoded bytes, has_lower, has_upper) for the hex body that
    follows the header; ``start`` is the offset of the body in the entry
    (for error messages).

    ``binascii.unhexlify`` both converts and validates (unlike
    ``bytes.fromhex`` it accepts no whitespace, as VASSAL accepts none); the
    digit case is found by searching the chunk for each letter."""
    table = _xor_table(key)
    offset = start
    carry = b""
    while True:
        chunk = stream.read(_CHUNK)
        if not chunk:
            break
        if carry:
            chunk = carry + chunk
            carry = b""
        if len(chunk) % 2:
            carry = chunk[-1:]
            chunk = chunk[:-1]
        try:
            decoded = binascii.unhexlify(chunk)
        except binascii.Error:
            bad = _bad_hex_offset(chunk)
            raise FormatError(
                f"expected a hex digit (0-9, a-f, A-F), found byte 0x{chunk[bad]:02x}",
                place=f"byte {offset + bad}") from None
        # ``in`` of one byte is a memchr: stops at the first hit, and six misses
        # cost less than one translate of the chunk (whose output, for the
        # upper-case hex of VASSAL 2.x, is a third of it)
        upper = any(c in chunk for c in _UPPER_HEX)
        lower = any(c in chunk for c in _LOWER_HEX) if upper else True
        yield decoded.translate(table), lower, upper
        offset += len(chunk)
    if carry:
        if carry not in _HEXDIGITS:
            raise FormatError(
                f"expected a hex digit (0-9, a-f, A-F), found byte 0x{carry[0]:02x}",
                place=f"byte {offset}")
        raise FormatError("odd number of hex digits: the last byte is incomplete "
                          "(the file is truncated or damaged)", place=f"byte {offset}")


@dataclass(frozen=True)
class _Limits:
    """The bounds of one decode: ``plaintext`` bytes at most, and past
    ``floor`` bytes at most ``ratio`` bytes of output per compressed byte
    consumed (checked as the stream inflates, so a bomb stops after a few
    megabytes whatever its total size)."""

    plaintext: int
    ratio: float
    floor: int = RATIO_FLOOR


_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*", re.IGNORECASE)
_UNITS = {"": 1, "k": 1024, "m": 1024 ** 2, "g": 1024 ** 3, "t": 1024 ** 4}


def _env_number(name: str, default: float, *, size: bool) -> float:
    value = os.environ.get(name)
    if value is None or not value.strip():
        return default
    match = _SIZE.fullmatch(value)
    if match is None or (not size and match.group(2)):
        example = "a number of bytes such as 600M or 2G" if size else "a number such as 2000"
        raise VmodError(f"environment variable {name}={value!r}: expected {example}")
    number = float(match.group(1)) * _UNITS[match.group(2).lower()]
    if number <= 0:
        raise VmodError(f"environment variable {name}={value!r}: expected a positive number")
    return number


def plaintext_limits(max_plaintext: int | None = None, max_ratio: float | None = None) -> tuple[int, float]:
    """The plaintext ceiling and the compression-ratio limit in force:
    the arguments when given, else ``VMODTOOL_MAX_PLAINTEXT`` /
    ``VMODTOOL_MAX_RATIO``, else the defaults.  A malformed variable is a
    :class:`VmodError`."""
    limit = max_plaintext if max_plaintext is not None else int(
        _env_number(ENV_MAX_PLAINTEXT, DEFAULT_MAX_PLAINTEXT, size=True))
    ratio = max_ratio if max_ratio is not None else _env_number(ENV_MAX_RATIO, DEFAULT_MAX_RATIO, size=False)
    return limit, ratio


def _mib(size: int) -> str:
    return f"{size / 1024 ** 2:.0f} MiB" if size >= 1024 ** 2 else f"{size} bytes"


def _too_much(limit: int) -> UnsafeFileError:
    return UnsafeFileError(
        f"refusing to decode more than {limit} bytes ({_mib(limit)}) of command text; if this "
        f"really is a save that large, raise the limit (environment variable {ENV_MAX_PLAINTEXT}, "
        f"e.g. {ENV_MAX_PLAINTEXT}=2G)", place=f"plaintext byte {limit}")


class _TextBuilder:
    """Decodes UTF-8 chunk by chunk into a list of str pieces: no growing
    byte buffer to reallocate, and each byte chunk is freed as soon as it is
    decoded, so the peak stays near twice the text size."""

    __slots__ = ("_decoder", "_parts", "size", "_limit")

    def __init__(self, limit: int) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")("strict")
        self._parts: list[str] = []
        self.size = 0
        self._limit = limit

    def add(self, chunk: bytes, final: bool = False) -> None:
        if self.size + len(chunk) > self._limit:
            raise _too_much(self._limit)
        try:
            self._parts.append(self._decoder.decode(chunk, final))
        except UnicodeDecodeError as exc:
            bad = chunk[exc.start] if exc.start < len(chunk) else 0
            raise FormatError(
                f"the decoded text is not valid UTF-8 ({exc.reason}: byte 0x{bad:02x})",
                place=f"plaintext byte {self.size + exc.start}") from None
        self.size += len(chunk)

    def text(self) -> str:
        self.add(b"", final=True)
        parts, self._parts = self._parts, []
        return parts[0] if len(parts) == 1 else "".join(parts)


def _decode_utf8(raw: bytes | bytearray) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FormatError(
            f"the decoded text is not valid UTF-8 ({exc.reason}: byte 0x{raw[exc.start]:02x})",
            place=f"plaintext byte {exc.start}") from None


def _check_size(size: int, limit: int) -> None:
    if size > limit:
        raise _too_much(limit)


def _check_inflated(size: int, consumed: int, limits: _Limits, what: str) -> None:
    _check_size(size, limits.plaintext)
    if size > limits.floor and size > limits.floor + limits.ratio * consumed:
        raise UnsafeFileError(
            f"refusing to inflate the {what}-compressed command text past {size} bytes from "
            f"{consumed} compressed bytes ({size / max(1, consumed):.0f}:1, more than the "
            f"{limits.ratio:g}:1 accepted beyond the first {_mib(limits.floor)}): this is a "
            f"decompression bomb, not a save (real saves compress less than 150:1; if this one "
            f"is real, raise the environment variable {ENV_MAX_RATIO})", place=f"compressed byte {consumed}")


def _inflate(chunks: Iterator[bytes], decomp: zlib._Decompress | lzma.LZMADecompressor,
             limits: _Limits, what: str) -> bytearray:
    """Decompress ``chunks`` with a zlib or lzma decompressor in bounded
    steps (:data:`_IN_STEP` bytes in, at most :data:`_OUT_STEP` bytes out per
    call), checking the plaintext ceiling and the running ratio after every
    step: a bomb stops with at most one step past the limit in memory.
    Input after the end of the compressed stream is ignored."""
    out = bytearray()
    consumed = 0
    try:
        for chunk in chunks:
            view = memoryview(chunk)
            for start in range(0, len(view), _IN_STEP):
                data: bytes | memoryview = view[start:start + _IN_STEP]
                fed = consumed + len(data)
                while True:
                    out += decomp.decompress(data, _OUT_STEP)
                    if isinstance(decomp, lzma.LZMADecompressor):
                        consumed = fed  # an upper bound: lzma does not say what it buffered
                        _check_inflated(len(out), consumed, limits, what)
                        if decomp.eof or decomp.needs_input:
                            break
                        data = b""
                    else:
                        data = decomp.unconsumed_tail
                        consumed = fed - len(data)
                        _check_inflated(len(out), consumed, limits, what)
                        if decomp.eof or not data:
                            break
                if decomp.eof:
                    break
            if decomp.eof:
                break
        if not isinstance(decomp, lzma.LZMADecompressor) and not decomp.eof:
            out += decomp.flush(_OUT_STEP)
            _check_inflated(len(out), consumed, limits, what)
    except (zlib.error, lzma.LZMAError, EOFError) as exc:
        raise FormatError(f"the {what}-compressed data is damaged ({exc})",
                          place=f"compressed byte {consumed}") from None
    if not decomp.eof:
        raise FormatError(f"the {what}-compressed data is truncated", place=f"compressed byte {consumed}")
    return out


def decode_saved_game(data: bytes | BinaryReader, *, file: PathLike | None = None,
                      entry: str | None = "savedGame",
                      max_plaintext: int | None = None, max_ratio: float | None = None,
                      size: int | None = None) -> DecodedText:
    """Decode a ``savedGame`` entry (bytes or a binary stream) to its text.

    Errors are :class:`FormatError` naming ``file``, the entry and the byte
    offset.  More than ``max_plaintext`` bytes of text, or compressed data
    that inflates more than ``max_ratio``:1 (past :data:`RATIO_FLOOR`
    bytes), raise :class:`UnsafeFileError`; both default to the environment
    (:func:`plaintext_limits`).  ``size``, the entry's size when known (a
    stream's length), lets an uncompressed entry that is too large be
    refused before it is read.
    """
    limit, ratio = plaintext_limits(max_plaintext, max_ratio)
    if size is None and isinstance(data, (bytes, bytearray, memoryview)):
        size = len(data)
    try:
        return _decode(_as_stream(data), _Limits(limit, ratio), size)
    except FormatError as exc:
        raise exc.located(file=file, place=f"entry {entry}" if entry else None) from None


def _refuse_early(size: int | None, body: int, per_byte: float, limits: _Limits) -> None:
    """Refuse an uncompressed entry of ``size`` bytes whose text (``body``
    bytes of header aside, ``per_byte`` text bytes per entry byte) would pass
    the ceiling, before reading it."""
    if size is not None and (size - body) * per_byte > limits.plaintext:
        text = int((size - body) * per_byte)
        raise UnsafeFileError(
            f"the entry holds {text} bytes of command text, more than the {limits.plaintext} "
            f"({_mib(limits.plaintext)}) accepted; if this really is a save that large, raise "
            f"the limit (environment variable {ENV_MAX_PLAINTEXT}, e.g. {ENV_MAX_PLAINTEXT}=2G)",
            place=f"byte {body}")


def _decode(stream: BinaryReader, limits: _Limits, size: int | None) -> DecodedText:
    limit = limits.plaintext
    head = _read_exact(stream, 6)
    enc = sniff_encoding(head)
    if enc is Encoding.PLAIN:
        _refuse_early(size, 0, 1, limits)
        raw = bytearray(head)
        while True:
            chunk = stream.read(_CHUNK)
            if not chunk:
                break
            raw += chunk
            _check_size(len(raw), limit)
        return DecodedText(_decode_utf8(raw), enc, plaintext_bytes=len(raw))
    if enc is Encoding.XZ:
        decomp = lzma.LZMADecompressor(format=lzma.FORMAT_XZ)
        raw = _inflate(_chunks(head, stream), decomp, limits, "xz")
        return DecodedText(_decode_utf8(raw), enc, header=_XZ_MAGIC, plaintext_bytes=len(raw))
    if enc in (Encoding.VCSK, Encoding.VCSZ):
        key_hex = head[5:6] + _read_exact(stream, 1)
        if len(key_hex) < 2 or key_hex.translate(None, _HEXDIGITS):
            raise FormatError(f"expected a two-digit hex key after {enc.value}, found {key_hex!r}",
                              place="byte 5")
        key = int(key_hex, 16)
        lower = upper = False
        parts = _iter_unhex(stream, key, 7)
        if enc is Encoding.VCSK:
            _refuse_early(size, 7, 0.5, limits)
            builder = _TextBuilder(limit)
            for piece, lo, up in parts:
                builder.add(piece)
                lower |= lo
                upper |= up
            return DecodedText(builder.text(), enc, key=key, hex_case=_hex_case(lower, upper),
                               header=enc.value.encode(), plaintext_bytes=builder.size)
        flags = [False, False]

        def pieces() -> Iterator[bytes]:
            for piece, lo, up in parts:
                flags[0] |= lo
                flags[1] |= up
                yield piece
        raw = _inflate(pieces(), zlib.decompressobj(), limits, "zlib")
        lower, upper = flags
        text = _decode_utf8(raw)
        return DecodedText(text, enc, key=key, hex_case=_hex_case(lower, upper),
                           header=enc.value.encode(), plaintext_bytes=len(raw))
    # raw-key formats: VOBS / !VOBS / !VOXZ
    header = b"VOBS" if head.startswith(b"VOBS") else head[:5]
    rest = head[len(header):]
    if not rest:
        rest = _read_exact(stream, 1)
    if not rest:
        raise FormatError(f"expected a key byte after {header.decode()}", place=f"byte {len(header)}")
    key = rest[0]
    table = _xor_table(key)
    first = rest[1:]
    if enc is Encoding.VOBS:
        _refuse_early(size, len(header) + 1, 1, limits)
        raw = bytearray(first.translate(table))
        while True:
            chunk = stream.read(_CHUNK)
            if not chunk:
                break
            raw += chunk.translate(table)
            _check_size(len(raw), limit)
        return DecodedText(_decode_utf8(raw), enc, key=key, header=header, plaintext_bytes=len(raw))
    xored = (c.translate(table) for c in _chunks(first, stream))
    raw = _inflate(xored, lzma.LZMADecompressor(format=lzma.FORMAT_XZ), limits, "xz")
    return DecodedText(_decode_utf8(raw), enc, key=key, header=header, plaintext_bytes=len(raw))


def _chunks(first: bytes, stream: BinaryReader) -> Iterator[bytes]:
    if first:
        yield first
    while True:
        chunk = stream.read(_CHUNK)
        if not chunk:
            return
        yield chunk


def encode_saved_game(text: str, encoding: Encoding = Encoding.VCSK, *, key: int | None = None,
                      hex_case: str | None = "lower", header: bytes | None = None) -> bytes:
    """Encode command text as a ``savedGame`` entry.

    ``!VCSK`` (what every VASSAL version reads) is the default.  ``key`` is
    chosen at random (as VASSAL does) unless given; pass the values of a
    :class:`DecodedText` to rewrite a file in its own encoding.
    """
    raw = text.encode("utf-8")
    if key is None:
        key = os.urandom(1)[0]
        if encoding in (Encoding.VOBS, Encoding.VOXZ) and key == 0:
            key = 1  # PR #15060 keys are 1-255
    if not 0 <= key <= 255:
        raise ValueError("the key is a byte value 0-255")
    table = _xor_table(key)
    if encoding is Encoding.PLAIN:
        taken = sniff_encoding(raw[:8])
        if taken is not Encoding.PLAIN:
            # every reader (VASSAL's and ours) would take it for that encoding:
            # written plain, the text could not be read back
            raise ValueError(f"a plain entry cannot begin as this text does ({raw[:8]!r}): it reads as "
                             f"{taken.value}; choose another encoding")
        return raw
    if encoding is Encoding.XZ:
        return lzma.compress(raw, format=lzma.FORMAT_XZ, preset=3)
    if encoding in (Encoding.VCSK, Encoding.VCSZ):
        body = raw if encoding is Encoding.VCSK else zlib.compress(raw, 9)
        hexed = body.translate(table).hex().encode("ascii")
        key_hex = f"{key:02x}".encode("ascii")
        if hex_case == "upper":
            hexed = hexed.upper()
            key_hex = key_hex.upper()
        magic: str = encoding.value  # mypy reads a narrowed member's value as Any
        return magic.encode("ascii") + key_hex + hexed
    if encoding is Encoding.VOBS:
        return (header or b"VOBS") + bytes([key]) + raw.translate(table)
    if encoding is Encoding.VOXZ:
        return b"!VOXZ" + bytes([key]) + lzma.compress(raw, format=lzma.FORMAT_XZ, preset=3).translate(table)
    raise ValueError(f"unknown encoding {encoding!r}")
