"""Text from untrusted files made safe to print.

Chat lines, player names, piece names and library messages come from logs
and modules anyone can write.  Printed raw, a BEL rings the terminal, a CR
or an escape sequence rewrites what the user sees (``U+009B`` is the C1 form
of ESC ``[``), a bidi override reverses the rest of a line, and an embedded
newline forges a line of its own.  Every report line, warning and error
message vmodtool prints goes through one of these two functions; they are
pure and leave printable text (Cyrillic, accents, symbols) as it is.

What is escaped, each as a visible escape:

* C0 controls ``U+0000``–``U+001F``: ``\\t``, ``\\n``, ``\\r`` and ``\\xNN``;
* DEL and the C1 controls ``U+007F``–``U+009F``: ``\\u007f`` … ``\\u009f``;
* the bidi embeddings, overrides and isolates ``U+202A``–``U+202E``,
  ``U+2066``–``U+2069``, the line and paragraph separators ``U+2028``,
  ``U+2029`` (which :meth:`str.splitlines` takes as line breaks) and lone
  surrogates (which no UTF-8 stream can encode): ``\\uNNNN``.

The ``\\uNNNN`` form is also a JSON escape of the same character, so
:func:`escape_report` may run over JSON text (which has no raw C0 controls:
``json.dumps`` escapes them) and leaves it valid JSON with the same meaning.
"""

from __future__ import annotations

import re

__all__ = ["escape_controls", "escape_report"]

#: the characters :func:`escape_controls` escapes
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
#: the same, but for tab and newline, the layout of a report
_UNSAFE_IN_REPORT = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_SHORT = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if code < 0x20:
        return _SHORT.get(char) or f"\\x{code:02x}"
    return f"\\u{code:04x}"


def escape_controls(text: str) -> str:
    """``text`` as one printable line: every control character (tab and
    newline too), DEL, C1 control and bidi override written as an escape
    (``"a\\x07b\\nc"`` → ``a\\x07b\\nc``)."""
    if _UNSAFE.search(text) is None:       # the common case: nothing to do, no copy
        return text
    return _UNSAFE.sub(_escape, text)


def escape_report(text: str) -> str:
    """Like :func:`escape_controls` but keeps tab and newline: for a block
    of report lines whose untrusted parts were escaped already (the safety
    net under every report vmodtool writes, and safe on JSON text)."""
    if _UNSAFE_IN_REPORT.search(text) is None:
        return text
    return _UNSAFE_IN_REPORT.sub(_escape, text)
