"""Key strokes as VASSAL writes them into trait definitions (``docs/vassal-format.md`` §3.1.6).

* A plain key stroke is ``keyCode,modifiers``; a *named* one is
  ``keyCode,modifiers,name``; an empty token means "no key".
* Modifiers are Java's combined old+new ``InputEvent`` masks as
  ``KeyStroke.getModifiers()`` returns them: Ctrl 130, Shift 65, Alt 520,
  Meta 260.  Reading normalises like ``AWTKeyStroke`` does, so ``128`` (the
  new-style Ctrl mask alone) and ``2`` (the old one) both read as 130.
* Legacy: a token without ``,`` is one character pressed with Ctrl (its
  character code becomes the key code, as Java widens ``char`` to ``int``).
* Key-stroke arrays (ReportState, TriggerAction, RestrictCommands) are the
  keys joined with ``,`` through a SequenceEncoder, so inner commas are
  escaped: ``70\\,130,77\\,130``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from vmodtool.vassal.sequence import decode_sequence, encode_sequence

__all__ = [
    "NamedKeyStroke",
    "SHIFT", "CTRL", "META", "ALT", "CTRL_SHIFT", "ALT_SHIFT", "NONE",
    "normalize_modifiers",
    "decode_key",
    "encode_key",
    "decode_key_list",
    "encode_key_list",
    "key",
    "check_key_name",
    "is_meant_keystroke",
    "NAMED_KEY_CODES",
]

#: combined (old | new) InputEvent masks, as VASSAL writes them
SHIFT = 65
CTRL = 130
META = 260
ALT = 520
CTRL_SHIFT = CTRL | SHIFT
ALT_SHIFT = ALT | SHIFT
NONE = 0

#: the key codes VASSAL's ``NamedKeyManager`` gives named commands
#: (U+E000…U+F8FE, and U+F8FF seen in modules): a named key's stored code is one of these (VASSAL's
#: editor writes ``57347,0,ShuffleAction``) or 0
NAMED_KEY_CODES = range(0xE000, 0xF900)

# java.awt.event.InputEvent masks
_OLD_TO_NEW = ((1, 64), (2, 128), (4, 256), (8, 512), (32, 8192))
_NEW_MASKS = 64 | 128 | 256 | 512 | 8192 | 1024 | 2048 | 4096


def normalize_modifiers(modifiers: int) -> int:
    """Map a modifier mask the way ``AWTKeyStroke.getAWTKeyStroke`` does: old
    bits gain their new twin, foreign bits are dropped, new bits gain their
    old twin (``128`` → ``130``, ``2`` → ``130``, ``64`` → ``65``)."""
    for old, new in _OLD_TO_NEW:
        if modifiers & old:
            modifiers |= new
    modifiers &= _NEW_MASKS
    for old, new in _OLD_TO_NEW:
        if modifiers & new:
            modifiers |= old
    return modifiers


@dataclass(frozen=True)
class NamedKeyStroke:
    """A key stroke: Java ``VK_`` key code, combined modifier mask and an
    optional command name.  The numeric code of a named key is re-allocated
    by VASSAL on load (§3.1.6); any code may be written."""

    key_code: int
    modifiers: int = 0
    name: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "modifiers", normalize_modifiers(self.modifiers))

    @property
    def is_named(self) -> bool:
        """True when the key carries a (non-empty) command name."""
        return bool(self.name)

    def encode(self) -> str:
        """``keyCode,modifiers`` or ``keyCode,modifiers,name``."""
        text = f"{self.key_code},{self.modifiers}"
        if self.name:
            return f"{text},{self.name}"
        return text

    def __str__(self) -> str:
        return self.encode()


def key(spec: str, modifiers: int = CTRL, name: str | None = None) -> NamedKeyStroke:
    """Convenience constructor: ``key("F")`` is Ctrl+F (``70,130``);
    ``spec`` is one letter/digit (its upper-case code) or a number."""
    code = int(spec) if spec.isdigit() and len(spec) > 1 else ord(spec.upper())
    if name is not None:
        check_key_name(name)
    return NamedKeyStroke(code, modifiers, name)


def is_meant_keystroke(key_code: int, modifiers: int) -> bool:
    """Whether ``key_code``/``modifiers`` are a key someone presses (Ctrl+F
    is ``70,130``) rather than the placeholder of a named command (0, or a
    code of :data:`NAMED_KEY_CODES` without modifiers).  A named token with
    a meant key stroke, ``70,130,Flip``, is read by VASSAL 3.7 as the named
    command alone: the keys do nothing (§3.1.6)."""
    return normalize_modifiers(modifiers) != 0 or not (key_code == 0 or key_code in NAMED_KEY_CODES)


def check_key_name(name: str) -> str:
    """Refuse a command name VASSAL cannot read back: a ``,`` (the reader
    keeps only the text up to it, §3.1.6) or a trailing backslash (§3.1.4)."""
    if "," in name:
        raise ValueError(f"named key command {name!r} contains ',', which VASSAL "
                         "splits on: only the text before it would be kept")
    if name.endswith("\\"):
        raise ValueError(f"named key command {name!r} ends with a backslash, which "
                         "would escape the delimiter after it")
    return name


def _decode_full(text: str) -> NamedKeyStroke | None:
    # NamedHotKeyConfigurer.decode: Java String.split(",") drops trailing
    # empty parts; fewer than two parts or a non-number gives no key.
    parts = text.split(",")
    while parts and parts[-1] == "":
        parts.pop()
    if len(parts) < 2:
        return None
    try:
        code = int(parts[0])
        mods = int(parts[1])
    except ValueError:
        return None
    name = parts[2] if len(parts) > 2 else None
    return NamedKeyStroke(code, mods, name or None)


def decode_key(token: str | None,
               default: NamedKeyStroke | None = None) -> NamedKeyStroke | None:
    """Read one key-stroke token as ``SequenceEncoder.nextNamedKeyStroke``:
    ``None`` (token missing) gives ``default``; ``""`` gives no key (None);
    a token without ``,`` is its first character + Ctrl."""
    if token is None:
        return default
    if token == "":
        return None
    if "," not in token:
        return NamedKeyStroke(ord(token[0]), CTRL)
    return _decode_full(token)


def encode_key(stroke: NamedKeyStroke | None) -> str:
    """Write a key stroke; ``None`` (no key) is the empty string."""
    if stroke is None:
        return ""
    if stroke.name is not None:
        check_key_name(stroke.name)
    return stroke.encode()


def decode_key_list(token: str | None) -> list[NamedKeyStroke]:
    """Read a key-stroke array (``70\\,130,77\\,130``).  Legacy arrays
    without any ``,`` are one Ctrl+character per character (§3.1.6)."""
    if not token:
        return []
    if "," not in token:
        return [NamedKeyStroke(ord(c), CTRL) for c in token]
    out: list[NamedKeyStroke] = []
    for item in decode_sequence(token, ","):
        stroke = decode_key(item)
        if stroke is not None:
            out.append(stroke)
    return out


def encode_key_list(strokes: Iterable[NamedKeyStroke | None]) -> str:
    """Write a key-stroke array: each key encoded, then ``,``-joined with
    escaping (an empty list is ``""``)."""
    return encode_sequence([encode_key(s) for s in strokes], ",") or ""
