"""The bounds of a scenario: every value a file can give is limited, so that
no file content can make vmodtool allocate without bound, convert a number
it cannot hold, or recurse until Python gives up.

The limits are generous for real games (the biggest hex-and-counter games
have a few thousand hexes and counters) and tight enough that a hostile file
is refused in milliseconds with a located message.  They are stated in the
JSON Schema (``maximum``, ``maxItems``, ``maxLength``) and in
``docs/scenario-format.md`` ("Limits"); the readers (:mod:`.source`) and the
model builder (:mod:`.loader`) enforce them before they convert or allocate.
"""

from __future__ import annotations

import math
import re

__all__ = [
    "MAX_FILE_BYTES", "MAX_CSV_BYTES", "MAX_DEPTH", "MAX_NODES", "MAX_ITEMS", "MAX_TEXT",
    "MAX_NUMBER_CHARS", "MAX_NUMBER", "MAX_COUNT", "MAX_COUNTERS", "MAX_CSV_ROWS", "MAX_CSV_FIELD",
    "MAX_GRID_LINES", "MAX_HEXES", "MAX_MAP_PIXELS", "MAX_TRACK_SPACES", "MAX_CHITS", "MAX_STEPS",
    "MAX_TURN", "MAX_LEADING_ZEROS", "MAX_AXIS_START", "MAX_ALPHA_START", "MAX_SEPARATOR", "MAX_COUNTER_SIZE",
    "MAX_HINT_COMPARISONS", "BAD_TEXT_CHARS",
    "scalar_problem", "text_problem", "number_text_problem",
]

# -- the document as a whole ------------------------------------------------
MAX_FILE_BYTES = 20 * 1024 * 1024   # a scenario file (YAML or TOML)
MAX_CSV_BYTES = 20 * 1024 * 1024    # a counter-mix CSV file
MAX_DEPTH = 64                      # nesting of lists and mappings
MAX_NODES = 250_000                 # values in one document (alias bombs stop here too)
MAX_ITEMS = 100_000                 # entries of one list or mapping
MAX_TEXT = 10_000                   # characters of one text (or key)

# -- numbers ----------------------------------------------------------------
MAX_NUMBER_CHARS = 32               # characters of a written number, checked before converting it
MAX_NUMBER = 10**9                  # magnitude of any number

# -- per field (the loader) -------------------------------------------------
MAX_COUNT = 10_000                  # `count` of one counter entry (or CSV row)
MAX_COUNTERS = 100_000              # counters of the whole mix, after `count` expansion
MAX_CSV_ROWS = 100_000              # rows of a counter-mix CSV
MAX_CSV_FIELD = MAX_TEXT            # characters of one CSV field
MAX_GRID_LINES = 1_000              # grid columns, and rows
MAX_HEXES = 250_000                 # columns × rows
MAX_MAP_PIXELS = 30_000             # board width and height in pixels
MAX_TRACK_SPACES = 1_000            # spaces of one track
MAX_CHITS = 100                     # activation chits of a formation, End Turn chits of a phase
MAX_STEPS = 100                     # steps of a unit type
MAX_TURN = 10_000                   # |first|, |last| turn numbers
MAX_LEADING_ZEROS = 10              # grid numbering leading zeros
MAX_AXIS_START = 1_000_000          # |start| of a numeric grid axis
MAX_ALPHA_START = 1_000             # index of the first letter label of an alphabetic axis (A = 0)
MAX_SEPARATOR = 8                   # characters of the grid numbering separator
MAX_HINT_COMPARISONS = 200_000      # names compared for "did you mean" hints, per scenario
MAX_COUNTER_SIZE = {"in": 4.0, "mm": 101.6, "px": 1000.0}   # styles.counter.size

# characters no scenario text may hold: C0 controls other than tab, line
# feed and carriage return (XML 1.0, and so a VASSAL module, cannot carry
# them), lone surrogates and the non-characters U+FFFE/U+FFFF
BAD_TEXT_CHARS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def text_problem(text: str) -> str | None:
    """Why ``text`` cannot be a scenario text, or None."""
    if len(text) > MAX_TEXT:
        return f"a text of {len(text)} characters; texts are at most {MAX_TEXT} characters"
    bad = BAD_TEXT_CHARS.search(text)
    if bad is not None:
        return (f"the text holds the control character U+{ord(bad.group()):04X} at character "
                f"{bad.start() + 1}; scenario texts cannot contain it")
    return None


def number_text_problem(raw: str) -> str | None:
    """Why the written number ``raw`` is refused before it is converted, or None."""
    if len(raw) > MAX_NUMBER_CHARS:
        return (f"a number written with {len(raw)} characters ({raw[:12]}…); numbers are at most "
                f"{MAX_NUMBER:,} in magnitude")
    return None


def scalar_problem(value: object) -> str | None:
    """Why a converted scalar is out of bounds, or None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        if abs(value) > MAX_NUMBER:
            shown = str(value) if value.bit_length() < 128 else f"a number of {value.bit_length()} bits"
            return f"{shown} is out of range; numbers are at most {MAX_NUMBER:,} in magnitude"
        return None
    if isinstance(value, float):
        if not math.isfinite(value):
            return f"{value} is not a finite number"
        if abs(value) > MAX_NUMBER:
            return f"{value:g} is out of range; numbers are at most {MAX_NUMBER:,} in magnitude"
        return None
    if isinstance(value, str):
        return text_problem(value)
    return None
