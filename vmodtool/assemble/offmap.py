"""The off-map window's board image: the scenario's boxes (dead piles, cups,
air boxes …), tracks (turn record, casualty, replacement points) and the
places of its decks drawn
where :func:`vmodtool.scenario.offmap.layout_off_map` puts them (the layout,
pure, lives in the scenario layer so that the audit reads the same zones
without the renderer; its names are re-exported here)."""

from __future__ import annotations

import io

from vmodtool.scenario.model import Scenario
from vmodtool.scenario.offmap import (
    BOX_H,
    BOX_W,
    GAP,
    MARGIN,
    OFF_MAP_NAME,
    PER_ROW,
    SPACE,
    TITLE,
    OffMapLayout,
    OffMapZone,
    layout_off_map,
)

__all__ = ["OffMapZone", "OffMapLayout", "layout_off_map", "draw_off_map", "OFF_MAP_NAME",
           "BOX_W", "BOX_H", "SPACE", "GAP", "MARGIN", "TITLE", "PER_ROW"]


def _hex(colour: str, default: tuple[int, int, int]) -> tuple[int, int, int]:
    try:
        return (int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16))
    except (TypeError, ValueError, IndexError):
        return default


def draw_off_map(scenario: Scenario, layout: OffMapLayout) -> bytes:
    """The off-map board image (PNG bytes): a labelled frame per box, a row
    of numbered squares per track."""
    from PIL import Image, ImageDraw  # drawn only for a scenario with boxes or tracks

    from vmodtool.render.fonts import load_font

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
        elif zone.kind == "deck":
            draw.rounded_rectangle((x, y, x + zw, y + zh), radius=12, fill=(46, 92, 64), outline=(40, 40, 40),
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
