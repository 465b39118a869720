"""VASSAL's ``SequenceEncoder``: the one escaping scheme of every VASSAL format.

Trait fields (``;``), lists (``,``), sub-fields (``:``, ``|``, ``=``),
decorator nesting (TAB), the AddPiece command (``/``) and the command stream
(ESC) all use it (``docs/vassal-format.md`` §3.1):

* tokens are joined with the delimiter; an empty or ``None`` token adds
  nothing after its separator;
* every delimiter inside a token gets one backslash in front; nothing else is
  escaped (backslashes are *not* doubled), so nesting grows linearly;
* a token that starts with a backslash, or starts *and* ends with ``'``, is
  wrapped in one more pair of ``'``;
* decoding splits at every delimiter *not* preceded by a backslash, drops the
  backslash of each escaped delimiter and strips one outer pair of ``'``.

The known hazard is copied, not fixed (§3.1.4): a token ending in a backslash
escapes the delimiter that follows it, exactly as in VASSAL.  Writers should
call :func:`check_token` on values they did not make themselves.

Decoding is built on ``str.split`` so that a many-megabyte command stream is
split at C speed; only the (rare) escaped delimiters are handled in Python.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from types import EllipsisType
from typing import overload

__all__ = [
    "SequenceEncoder",
    "SequenceDecoder",
    "encode_sequence",
    "decode_sequence",
    "quote_token",
    "unquote_token",
    "check_token",
    "java_double",
    "digits_value",
]

Token = str | int | float | bool | None

#: characters that can occur in Java's String.valueOf of a number or boolean;
#: only with one of these as delimiter does VASSAL escape primitive values.
_UGLY = "-.0123456789EINaefilnrstuy"


def digits_value(text: str) -> int | None:
    """The value of decimal digits (any Unicode ones, as ``Character.digit``
    reads them) after an optional sign; None when more than 10 of them are
    significant (beyond any 32-bit value: Python's ``int()`` of text refuses
    the longest, past ``sys.get_int_max_str_digits``)."""
    digits = text.lstrip("+-")
    if len(digits) > 10:
        first = next((i for i, c in enumerate(digits) if int(c)), len(digits))  # (leading zeros do not count)
        if len(digits) - first > 10:
            return None
        text = text[:len(text) - len(digits)] + (digits[first:] or "0")
    return int(text)


def java_double(value: float) -> str:
    """Format a float the way Java's ``String.valueOf(double)`` does:
    ``1.0``, ``93.90000000000086``, ``5.0E-5``, ``1.0E7``, ``NaN``,
    ``Infinity``."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0.0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    mag = abs(value)
    if 1e-3 <= mag < 1e7:
        text = repr(value)
        if "e" in text or "E" in text:  # repr never does this in range, but be safe
            text = f"{value:.17f}".rstrip("0")
        if "." not in text:
            text += ".0"
        if text.endswith("."):
            text += "0"
        return text
    # computerized scientific notation with the shortest round-tripping digits
    for ndigits in range(17):
        text = f"{value:.{ndigits}e}"
        if float(text) == value:
            break
    mant, _, exp = text.partition("e")
    if "." not in mant:
        mant += ".0"
    return f"{mant}E{int(exp)}"


@overload
def _token_text(value: None) -> None: ...
@overload
def _token_text(value: str | int | float | bool) -> str: ...
def _token_text(value: Token) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return java_double(value)
    return value


def quote_token(token: str, delim: str) -> str:
    """Escape one token for delimiter ``delim`` (rules 3 and 4 of §3.1.1)."""
    if not token:
        return ""
    escaped = token.replace(delim, "\\" + delim) if delim in token else token
    if token[0] == "\\" or (token[0] == "'" and token[-1] == "'"):
        return "'" + escaped + "'"
    return escaped


def unquote_token(token: str) -> str:
    """Strip one outer pair of ``'`` as VASSAL's decoder does."""
    if len(token) > 1 and token[0] == "'" and token[-1] == "'":
        return token[1:-1]
    return token


def check_token(token: str, what: str = "value") -> str:
    """Refuse a value that would corrupt a sequence (§3.1.4): one that ends
    with a backslash escapes the delimiter after it.  Returns the token."""
    if token.endswith("\\"):
        raise ValueError(
            f"{what} {token!r} ends with a backslash, which VASSAL would read as an "
            "escaped delimiter and merge with the next field")
    return token


class SequenceEncoder:
    """Build a delimited string token by token, exactly as VASSAL does.

    >>> SequenceEncoder(";").append("a").append("").append(3).value
    'a;;3'
    """

    __slots__ = ("delim", "_parts", "_ugly")

    def __init__(self, delim: str, first: Token | EllipsisType = ...) -> None:
        if len(delim) != 1:
            raise ValueError("a SequenceEncoder delimiter is one character")
        self.delim = delim
        self._parts: list[str] | None = None
        self._ugly = delim in _UGLY
        if not isinstance(first, EllipsisType):  # ``...``: no first token
            self.append(first)

    def append(self, value: Token) -> SequenceEncoder:
        if self._parts is None:
            self._parts = []
        if isinstance(value, (bool, int, float)) and not self._ugly:
            self._parts.append(_token_text(value))  # primitives are never escaped
            return self
        text = _token_text(value)
        self._parts.append(quote_token(text, self.delim) if text else "")
        return self

    def extend(self, values: Iterable[Token]) -> SequenceEncoder:
        for value in values:
            self.append(value)
        return self

    @property
    def value(self) -> str | None:
        """The encoded string, or ``None`` when nothing was appended."""
        if self._parts is None:
            return None
        return self.delim.join(self._parts)

    def __str__(self) -> str:
        return self.value or ""


def encode_sequence(tokens: Iterable[Token], delim: str) -> str | None:
    """Encode ``tokens`` with ``delim``; ``None`` for an empty iterable."""
    return SequenceEncoder(delim).extend(tokens).value


def decode_sequence(text: str | None, delim: str) -> list[str]:
    """Split ``text`` into its tokens, exactly as VASSAL's Decoder does.

    ``None`` has no tokens; ``""`` has one (``""``); a trailing delimiter
    gives a last empty token (``"a;b;"`` → ``["a", "b", ""]``).
    """
    if text is None:
        return []
    parts = text.split(delim)
    if len(parts) == 1:
        return [unquote_token(text)]
    if "\\" + delim not in text:
        if "'" not in text:
            return parts            # nothing quoted (the common case)
        return [unquote_token(p) for p in parts]
    # Merge the pieces around escaped delimiters.  Pieces are released as
    # they are consumed so that splitting a huge token needs about one extra
    # copy of it, not two.
    out: list[str] = []
    parts.reverse()
    seg: list[str] = [parts.pop()]
    while parts:
        part = parts.pop()
        last = seg[-1]
        if last and last[-1] == "\\":
            # escaped delimiter: drop the backslash, keep the delimiter
            seg[-1] = last[:-1]
            seg.append(part)
        else:
            out.append(unquote_token(seg[0] if len(seg) == 1 else delim.join(seg)))
            seg = [part]
    out.append(unquote_token(seg[0] if len(seg) == 1 else delim.join(seg)))
    return out


class SequenceDecoder:
    """Token-by-token reader with VASSAL's "next token or default" semantics,
    as trait readers use it: a missing trailing field takes its default.

    >>> d = SequenceDecoder("a;;3", ";")
    >>> d.next(), d.next("x"), d.next_int(0), d.next("gone")
    ('a', '', 3, 'gone')
    """

    __slots__ = ("_tokens", "_pos", "_text", "delim")

    def __init__(self, text: str | None, delim: str) -> None:
        self._text = text
        self.delim = delim
        self._tokens = decode_sequence(text, delim)
        self._pos = 0

    def has_more(self) -> bool:
        return self._pos < len(self._tokens)

    def next(self, default: str | None = None) -> str | None:
        if self._pos < len(self._tokens):
            tok = self._tokens[self._pos]
            self._pos += 1
            return tok
        return default

    def next_int(self, default: int) -> int:
        tok = self.next(None)
        if tok is None or tok == "":
            return default
        try:
            return int(tok.strip())
        except ValueError:
            return default

    def next_float(self, default: float) -> float:
        tok = self.next(None)
        if tok is None or tok == "":
            return default
        try:
            return float(tok)
        except ValueError:
            return default

    def next_bool(self, default: bool) -> bool:
        tok = self.next(None)
        if tok is None or tok == "":
            return default
        return tok.lower() == "true"

    def remaining(self) -> list[str]:
        rest = self._tokens[self._pos:]
        self._pos = len(self._tokens)
        return rest

    def __iter__(self) -> Iterator[str]:
        while self._pos < len(self._tokens):
            tok = self._tokens[self._pos]
            self._pos += 1
            yield tok


def join_tokens(tokens: Sequence[str], delim: str) -> str | None:
    """Alias of :func:`encode_sequence` for string tokens (readability)."""
    return encode_sequence(tokens, delim)
