"""The off-map window: the scenario's boxes (dead piles, cups, air boxes …)
and tracks (turn record, casualty, replacement points) laid out on one board,
each a VASSAL ``Zone`` named after it, so that a piece's location reads
"German dead pile" or "Turn Record 3" in the log (``docs/vassal-format.md``
§5.1: a point inside a zone takes the zone's ``locationFormat``)."""

from __future__ import annotations

import io
from dataclasses import dataclass

from PIL import Image, ImageDraw

from vmodtool.render.fonts import load_font
from vmodtool.scenario.model import Scenario

__all__ = ["OffMapZone", "OffMapLayout", "layout_off_map", "draw_off_map"]

BOX_W, BOX_H = 300, 190
SPACE = 84
GAP = 24
MARGIN = 24
TITLE = 34
PER_ROW = 4


@dataclass(frozen=True)
class OffMapZone:
    """One zone: ``name`` is the location VASSAL reports, ``kind`` ``box``
    or ``track``, ``ref`` the box or track id (with the space for tracks)."""

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
    height = max(y + MARGIN - GAP, 2 * MARGIN + TITLE)
    return OffMapLayout(tuple(zones), (width, height))


def _hex(colour: str, default: tuple[int, int, int]) -> tuple[int, int, int]:
    try:
        return (int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16))
    except (TypeError, ValueError, IndexError):
        return default


def draw_off_map(scenario: Scenario, layout: OffMapLayout) -> bytes:
    """The off-map board image (PNG bytes): a labelled frame per box, a row
    of numbered squares per track."""
    w, h = layout.size
    img = Image.new("RGB", (w, h), (236, 232, 218))
    draw = ImageDraw.Draw(img)
    title_font = load_font("bold", 18)
    small = load_font("condensed-bold", 16)
    sides = {s.id: s for s in scenario.game.sides}
    seen_tracks = set()
    for zone in layout.zones:
        x, y, zw, zh = zone.rect
        if zone.kind == "box":
            box = scenario.box(zone.ref)
            fill = _hex(sides[box.side].fill, (220, 220, 220)) if box.side in sides else (226, 222, 208)
            draw.rounded_rectangle((x, y, x + zw, y + zh), radius=10, fill=fill, outline=(60, 60, 60),
                                   width=3)
            draw.text((x + 4, y - TITLE + 6), zone.title, font=title_font, fill=(30, 30, 30))
        else:
            track_id = zone.ref.split(":", 1)[0]
            if track_id not in seen_tracks:
                seen_tracks.add(track_id)
                track = next(t for t in scenario.tracks if t.id == track_id)
                draw.text((x + 4, y - TITLE + 6), track.name, font=title_font, fill=(30, 30, 30))
            draw.rectangle((x, y, x + zw, y + zh), fill=(250, 248, 240), outline=(60, 60, 60), width=2)
            draw.text((x + 6, y + 4), zone.title, font=small, fill=(90, 90, 90))
    buf = io.BytesIO()
    img.save(buf, "PNG", optimize=True)
    return buf.getvalue()
