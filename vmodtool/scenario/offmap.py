"""Where the off-map window puts the scenario's boxes (dead piles, cups, air
boxes …) and tracks (turn record, casualty, replacement points): one board,
each box and track space a rectangle that becomes a VASSAL ``Zone`` named
after it, so that a piece's location reads "German dead pile" or "Turn
Record 3" in the log (``docs/vassal-format.md`` §5.1: a point inside a zone
takes the zone's ``locationFormat``).

Decks (the ``decks`` section) that lie in no box get a place of their own,
a card-sized zone named after the deck, in a row below the tracks (VASSAL
names a point in a deck's area after the deck, too).

Pure arithmetic: ``vmodtool build`` draws the board from this layout
(:func:`vmodtool.assemble.offmap.draw_off_map`) and writes its zones; the audit
reads the same zones (:mod:`vmodtool.scenario.geometry`) without building.
"""

from __future__ import annotations

from dataclasses import dataclass

from vmodtool.scenario.cards import card_pixels
from vmodtool.scenario.model import Scenario

__all__ = ["OFF_MAP_NAME", "OffMapZone", "OffMapLayout", "layout_off_map",
           "BOX_W", "BOX_H", "SPACE", "GAP", "MARGIN", "TITLE", "PER_ROW"]

#: the off-map window's map and board name
OFF_MAP_NAME = "Off-map"
BOX_W, BOX_H = 300, 190
SPACE = 84
GAP = 24
MARGIN = 24
TITLE = 34
PER_ROW = 4


@dataclass(frozen=True)
class OffMapZone:
    """One zone: ``name`` is the location VASSAL reports, ``kind`` ``box``,
    ``track`` or ``deck``, ``ref`` the box, track (with the space) or deck id."""

    name: str
    kind: str
    ref: str
    rect: tuple[int, int, int, int]       # x, y, width, height
    title: str = ""

    @property
    def path(self) -> str:
        """The Zone ``path`` attribute (polygon corners)."""
        x, y, w, h = self.rect
        return f"{x},{y};{x + w},{y};{x + w},{y + h};{x},{y + h}"

    @property
    def centre(self) -> tuple[int, int]:
        x, y, w, h = self.rect
        return x + w // 2, y + h // 2


@dataclass(frozen=True)
class OffMapLayout:
    """The off-map board (:func:`layout_off_map`): the zones of its boxes,
    track spaces and decks, and its size in pixels."""

    zones: tuple[OffMapZone, ...]
    size: tuple[int, int]


def layout_off_map(scenario: Scenario) -> OffMapLayout:
    """Place every box and track space; boxes in rows, then one row of
    squares per track (wrapping long tracks)."""
    zones: list[OffMapZone] = []
    y = MARGIN
    width = MARGIN * 2 + PER_ROW * BOX_W + (PER_ROW - 1) * GAP
    for i, box in enumerate(scenario.boxes):
        col = i % PER_ROW
        if col == 0 and i:
            y += TITLE + BOX_H + GAP
        x = MARGIN + col * (BOX_W + GAP)
        zones.append(OffMapZone(box.name, "box", box.id, (x, y + TITLE, BOX_W, BOX_H), box.name))
    if scenario.boxes:
        y += TITLE + BOX_H + GAP
    per_row = max(1, (width - 2 * MARGIN + GAP) // (SPACE + 6))
    for track in scenario.tracks:
        y0 = y
        for j, space in enumerate(track.spaces):
            col, row = j % per_row, j // per_row
            x = MARGIN + col * (SPACE + 6)
            yy = y0 + TITLE + row * (SPACE + 6)
            zones.append(OffMapZone(f"{track.name} {space}", "track", f"{track.id}:{space}",
                                    (x, yy, SPACE, SPACE), space))
        rows = max(1, (len(track.spaces) + per_row - 1) // per_row)
        y = y0 + TITLE + rows * (SPACE + 6) + GAP
    x, row_h = MARGIN, 0
    for deck in scenario.decks:
        if deck.zone is not None:
            continue                      # it lies in its box
        w, h = card_pixels(deck.size)
        w, h = w + 2 * GAP, h + 2 * GAP
        if x > MARGIN and x + w > width - MARGIN:
            x, y = MARGIN, y + TITLE + row_h + GAP
            row_h = 0
        zones.append(OffMapZone(deck.vassal_name, "deck", deck.id, (x, y + TITLE, w, h), deck.name))
        width = max(width, x + w + MARGIN)
        x += w + GAP
        row_h = max(row_h, h)
    if row_h:
        y += TITLE + row_h + GAP
    height = max(y + MARGIN - GAP, 2 * MARGIN + TITLE)
    return OffMapLayout(tuple(zones), (width, height))
