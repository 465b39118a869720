"""Where the texts and markers of a board go: boxes, and labels placed
clear of everything else.

Everything a board draws that a reader must see is recorded as a
:class:`Drawn` box (board pixels) in a :class:`BoxIndex`: hex numbers,
place names, objective markers and their VP figures, bridges, the pieces
of a river or wall along a hexside, centre dots, texture symbols.  Hex
numbers are fixed (they have priority); bridges shrink to stay clear of
them; place names take the first *candidate position* around their hex
whose box touches nothing recorded, then smaller type, then an
abbreviation; objective markers then take the first free place in their
hex, always at one size: where none is free, a place name in the way is
placed again around the marker (a :class:`Trial` first), then a star may
lie over a bridge; texture symbols are laid last, around the boxes of
texts, markers and bridges.  A label or marker that fits nowhere is drawn
at its first place and reported (:attr:`Placed.clear` False).

The index is the board's own record of what it drew, so a test (or a
caller) can check that no text box meets another box
(:meth:`BoxIndex.conflicts`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Box", "Drawn", "BoxIndex", "Trial", "Placed", "PlacementWarning", "TEXT_KINDS", "KEEP_OUT_KINDS",
           "place_text", "abbreviations", "located_warnings", "LABEL_CANDIDATES", "intersects", "union"]

Box = tuple[float, float, float, float]
Point = tuple[float, float]

#: the kinds of box that are text
TEXT_KINDS = frozenset({"number", "label", "vp"})
#: what texture symbols keep out of: texts, markers and bridges
KEEP_OUT_KINDS = frozenset({"number", "label", "vp", "objective", "bridge"})


def intersects(a: Box, b: Box) -> bool:
    """Whether two boxes overlap (boxes that only touch do not)."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def union(boxes: Iterable[Box]) -> Box:
    x0 = y0 = float("inf")
    x1 = y1 = float("-inf")
    for b in boxes:
        x0, y0, x1, y1 = min(x0, b[0]), min(y0, b[1]), max(x1, b[2]), max(y1, b[3])
    return x0, y0, x1, y1


@dataclass(frozen=True)
class Drawn:
    """One recorded box: ``kind`` (number, label, vp, objective, bridge,
    hexside, dot, symbol), ``owner`` (the hex, or the two hexes of a side,
    it belongs to) and ``box`` in board pixels."""

    kind: str
    owner: str
    box: Box


class BoxIndex:
    """Boxes bucketed on a square grid of ``cell`` board pixels."""

    def __init__(self, cell: float) -> None:
        self.cell = max(1.0, float(cell))
        self.items: list[Drawn] = []
        self._cells: dict[tuple[int, int], list[int]] = {}

    def _keys(self, box: Box) -> Iterator[tuple[int, int]]:
        c = self.cell
        for i in range(int(box[0] // c), int(box[2] // c) + 1):
            for j in range(int(box[1] // c), int(box[3] // c) + 1):
                yield i, j

    def add(self, kind: str, owner: str, box: Box) -> Drawn:
        item = Drawn(kind, owner, box)
        self._insert(item)
        return item

    def _insert(self, item: Drawn) -> None:
        box = item.box
        n = len(self.items)
        self.items.append(item)
        c = self.cell
        cells = self._cells
        for i in range(int(box[0] // c), int(box[2] // c) + 1):
            for j in range(int(box[1] // c), int(box[3] // c) + 1):
                found = cells.get((i, j))
                if found is None:
                    cells[(i, j)] = [n]
                else:
                    found.append(n)

    def discard(self, drawn: Iterable[Drawn]) -> None:
        """Forget the recorded boxes ``drawn`` (the very records :meth:`add`
        returned): a text taken up to be placed again."""
        gone = {id(d) for d in drawn}
        kept = [item for item in self.items if id(item) not in gone]
        self.items = []
        self._cells = {}
        for item in kept:
            self._insert(item)

    def hits(self, box: Box, kinds: frozenset[str] | None = None) -> list[Drawn]:
        """The recorded boxes of ``kinds`` (all when None) that ``box`` overlaps."""
        seen: set[int] = set()
        out = []
        for key in self._keys(box):
            for n in self._cells.get(key, ()):
                if n in seen:
                    continue
                seen.add(n)
                item = self.items[n]
                if (kinds is None or item.kind in kinds) and intersects(box, item.box):
                    out.append(item)
        return out

    def blocked(self, box: Box, kinds: frozenset[str] | None = None) -> bool:
        c = self.cell
        for i in range(int(box[0] // c), int(box[2] // c) + 1):
            for j in range(int(box[1] // c), int(box[3] // c) + 1):
                for n in self._cells.get((i, j), ()):
                    item = self.items[n]
                    if (kinds is None or item.kind in kinds) and intersects(box, item.box):
                        return True
        return False

    def conflicts(self, kinds: frozenset[str] = TEXT_KINDS) -> list[tuple[Drawn, Drawn]]:
        """Every pair of overlapping boxes of which one is of ``kinds``
        (a text), except a text and the marker or dot of its own hex
        (an objective's VP figure sits by its star by design)."""
        out = []
        for n, item in enumerate(self.items):
            if item.kind not in kinds:
                continue
            for other in self.hits(item.box):
                if other is item or (other.kind in kinds and self.items.index(other) < n):
                    continue
                if item.kind == "vp" and other.kind == "objective" and other.owner == item.owner:
                    continue
                out.append((item, other))
        return out


class Trial:
    """A :class:`BoxIndex` seen with the records ``left_out`` taken away and
    ``added`` laid on it, for a placement tried before it is made (a place
    name moved aside for an objective marker); the index is not changed."""

    def __init__(self, base: BoxIndex, left_out: Iterable[Drawn] = (), added: Iterable[Drawn] = ()) -> None:
        self.base = base
        self.left_out = {id(d) for d in left_out}
        self.added = list(added)

    def blocked(self, box: Box, kinds: frozenset[str] | None = None) -> bool:
        for item in self.added:
            if (kinds is None or item.kind in kinds) and intersects(box, item.box):
                return True
        return any(id(item) not in self.left_out for item in self.base.hits(box, kinds))


@dataclass(frozen=True)
class Placed:
    """Where a text went: its text (perhaps abbreviated), anchor point,
    PIL anchor, type size (board pixels), box, and whether that box is
    clear of everything it had to avoid."""

    text: str
    at: Point
    anchor: str
    size: float
    box: Box
    clear: bool


#: candidate places of a place name around its hex centre, in hex sizes
#: (across the flats) and PIL anchors, the first the one a designer
#: expects: under the centre dot, then lower, above the dot, beside it,
#: then straddling the hex's lower side
LABEL_CANDIDATES: tuple[tuple[float, float, str], ...] = (
    (0.0, 0.27, "mm"), (0.0, 0.37, "mm"), (0.0, 0.17, "mm"), (0.0, 0.22, "mm"), (0.0, -0.17, "mm"),
    (0.06, 0.0, "lm"), (-0.06, 0.0, "rm"), (0.07, 0.27, "lm"), (-0.07, 0.27, "rm"),
    (0.0, 0.5, "mm"), (0.07, -0.17, "lm"), (-0.07, -0.17, "rm"), (0.0, 0.62, "mm"),
    (0.45, 0.27, "mm"), (-0.45, 0.27, "mm"), (0.45, -0.1, "mm"), (-0.45, -0.1, "mm"), (0.0, 0.75, "mm"),
)


def abbreviations(text: str) -> list[str]:
    """Shorter forms of a place name, longest first: the last words cut to
    their initial ("Villers-Bretonneux" → "Villers-B."), then the first
    word alone."""
    parts = re.split(r"([\s\-]+)", text.strip())
    words = [i for i in range(0, len(parts), 2) if parts[i]]
    out: list[str] = []
    for k in range(len(words) - 1, 0, -1):
        cut = list(parts)
        for i in words[k:]:
            if len(cut[i]) > 2:
                cut[i] = cut[i][0] + "."
        form = "".join(cut)
        if form != text and form not in out:
            out.append(form)
    if len(words) == 1 and len(text) > 6:
        out.append(text[:4] + ".")
    return out


def place_text(text: str, centre: Point, unit: float, index: BoxIndex | Trial, avoid: frozenset[str],
               measure: Callable[[Point, str, float, str], Box], size: float,
               candidates: Sequence[tuple[float, float, str]] = LABEL_CANDIDATES,
               sizes: Sequence[float] = (1.0, 0.85, 0.72, 0.62), inside: Box | None = None,
               abbreviate: bool = True) -> Placed:
    """The first candidate place (then a smaller type, then an
    abbreviation) where ``text`` meets no recorded box of ``avoid`` and
    stays in ``inside``; the first candidate when none is free (``clear``
    False).  ``measure(at, text, size, anchor)`` is the text's box."""
    first: Placed | None = None
    for form in [text, *(abbreviations(text) if abbreviate else [])]:
        for factor in sizes:
            for a, b, anchor in candidates:
                at = (centre[0] + a * unit, centre[1] + b * unit)
                box = measure(at, form, size * factor, anchor)
                if first is None:
                    first = Placed(form, at, anchor, size * factor, box, False)
                if inside is not None and not (inside[0] <= box[0] and inside[1] <= box[1]
                                               and box[2] <= inside[2] and box[3] <= inside[3]):
                    continue
                if not index.blocked(box, avoid):
                    return Placed(form, at, anchor, size * factor, box, True)
    assert first is not None
    return first


@dataclass(frozen=True)
class PlacementWarning:
    """A place name or marker that found no free place on the board:
    ``entry`` the path of its scenario entry (``("map", "labels", 3)``),
    ``message`` what happened, without the place (:func:`located_warnings`
    adds it)."""

    entry: tuple[str | int, ...]
    message: str


def located_warnings(path: str | os.PathLike[str] | None, notes: Sequence[PlacementWarning]) -> list[str]:
    """Each warning as one line led by ``file:line:column`` of its entry in
    the scenario file ``path`` (the file alone when the entry cannot be
    found there, ``the scenario`` without a file); the file is read once,
    and not at all without warnings."""
    if not notes:
        return []
    if path is None:
        return [f"the scenario: {note.message}" for note in notes]
    from vmodtool.errors import VmodError
    from vmodtool.scenario.source import Document, load_document

    doc: Document | None
    try:
        doc = load_document(Path(path))
    except (OSError, VmodError):
        doc = None
    out = []
    for note in notes:
        line, column = doc.where(note.entry) if doc is not None else (None, None)
        out.append(f"{path}:{line}:{column}: {note.message}" if line else f"{path}: {note.message}")
    return out
