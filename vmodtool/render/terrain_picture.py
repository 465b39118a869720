"""A picture to check ``vmodtool terrain`` at a glance: the board image with
each hex tinted by the terrain type it was given, the hexside features it
found drawn over their hexsides, and the hexes of low confidence outlined
in red (the ones to look at first)."""

from __future__ import annotations

import math
from collections.abc import Mapping

from PIL import Image, ImageDraw

from vmodtool.scenario import model as M

__all__ = ["terrain_picture", "MAX_PICTURE_WIDTH"]

#: the picture is drawn at most this wide (a print-resolution board is reduced)
MAX_PICTURE_WIDTH = 3000
_PALETTE = ("#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666666")
_LOW = (220, 20, 20, 255)


def _rgb(colour: str | None, fallback: str) -> tuple[int, int, int]:
    text = (colour or fallback).lstrip("#")
    try:
        return int(text[0:2], 16), int(text[2:4], 16), int(text[4:6], 16)
    except (ValueError, IndexError):
        return _rgb(None, fallback) if colour else (128, 128, 128)


def terrain_picture(board: Image.Image, scenario: M.Scenario, hexes: Mapping[str, tuple[str, float]],
                    hexsides: Mapping[str, list[tuple[str, str, float]]], *, scale: float,
                    low: float) -> Image.Image:
    """The board (RGB, ``scale`` image pixels per board pixel) with the
    derived terrain drawn over it."""
    factor = min(1.0, MAX_PICTURE_WIDTH / max(board.width, 1))
    if factor < 1.0:
        board = board.resize((max(1, round(board.width * factor)), max(1, round(board.height * factor))),
                             Image.Resampling.BILINEAR)
    s = scale * factor
    hmap = scenario.map
    grid = hmap.grid
    inner = grid.grid.dy / 2 * s
    radius = inner * 2 / math.sqrt(3)
    rotation = 0.0 if not grid.grid.sideways else 30.0
    types = list(hmap.terrain_types)
    overlay = Image.new("RGBA", board.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(overlay)
    for label, (name, confidence) in hexes.items():
        x, y = grid.centres[label]
        kind = hmap.terrain_types.get(name)
        fallback = _PALETTE[types.index(name) % len(_PALETTE)] if name in types else "#888888"
        fill = _rgb(kind.fill if kind is not None else None, fallback)
        corners = [(x * s + radius * 0.92 * math.cos(math.radians(60 * k + rotation)),
                    y * s + radius * 0.92 * math.sin(math.radians(60 * k + rotation))) for k in range(6)]
        draw.polygon(corners, fill=(*fill, 150))
        if confidence < low:
            draw.polygon(corners, outline=_LOW, width=max(2, round(inner / 8)))
    for type_id, sides in hexsides.items():
        htype = hmap.hexside_types.get(type_id)
        colour = (*_rgb(htype.stroke if htype else None, "#202020"), 255)
        width = max(2, round(inner / 6))
        for a, b, _ in sides:
            (ax, ay), (bx, by) = grid.centres[a], grid.centres[b]
            mx, my = (ax + bx) / 2 * s, (ay + by) / 2 * s
            if htype is not None and (htype.drawn_as == "centre_line" or htype.symbol):
                # across the side, centre to centre (a road), or its middle (a bridge)
                span = 1.0 if htype.drawn_as == "centre_line" else 0.35
                draw.line([(mx - (bx - ax) * s / 2 * span, my - (by - ay) * s / 2 * span),
                           (mx + (bx - ax) * s / 2 * span, my + (by - ay) * s / 2 * span)],
                          fill=colour, width=width)
            else:
                length = math.hypot(bx - ax, by - ay) * s or 1.0
                ux, uy = -(by - ay) * s / length, (bx - ax) * s / length
                half = radius / 2
                draw.line([(mx - ux * half, my - uy * half), (mx + ux * half, my + uy * half)],
                          fill=colour, width=width)
    return Image.alpha_composite(board.convert("RGBA"), overlay).convert("RGB")
