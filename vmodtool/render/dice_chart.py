"""The dice histograms of ``vmodtool check-game --dice-chart``: one row per
player, one panel per die type, a bar per face with the fair die's
expected count drawn across (bundled fonts, so any player name renders)."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Protocol

from PIL import Image, ImageDraw

from vmodtool.render.fonts import load_font

__all__ = ["dice_chart_png", "ChartGroup"]

PANEL_W = 360
PANEL_H = 220
MARGIN = 16
HEADER = 34
_BAR = (70, 110, 180)
_EXPECTED = (200, 40, 40)
_TEXT = (20, 20, 20)
_AXIS = (120, 120, 120)


class ChartGroup(Protocol):
    """What a panel shows (``vmodtool.checkgame.dice.DiceGroup``)."""

    player: str | None
    sides: int
    rolls: int
    faces: list[int]

    @property
    def counts(self) -> list[int]: ...

    @property
    def mean(self) -> float | None: ...


def dice_chart_png(groups: Sequence[ChartGroup], title: str = "Dice") -> bytes:
    """A PNG: a row of histograms per player (in order of first roll)."""
    players: list[str | None] = []
    for g in groups:
        if g.player not in players:
            players.append(g.player)
    rows = [[g for g in groups if g.player == p] for p in players] or [[]]
    columns = max(1, max(len(r) for r in rows))
    width = MARGIN + columns * (PANEL_W + MARGIN)
    height = HEADER + len(rows) * (PANEL_H + MARGIN) + MARGIN
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    draw.text((MARGIN, 8), title if groups else f"{title}: no dice rolled", fill=_TEXT, font=load_font("bold", 16))
    for i, row in enumerate(rows):
        for j, group in enumerate(row):
            _panel(draw, group, MARGIN + j * (PANEL_W + MARGIN), HEADER + i * (PANEL_H + MARGIN))
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def _panel(draw: ImageDraw.ImageDraw, group: ChartGroup, x0: int, y0: int) -> None:
    font = load_font("regular", 11)
    small = load_font("condensed", 10)
    counts = group.counts
    total = len(group.faces)
    expected = total / len(counts) if counts else 0.0
    mean = group.mean
    label = f"{group.player or 'unknown player'} — d{group.sides}: {group.rolls} roll(s), {total} dice"
    if mean is not None:
        label += f", mean {mean:.2f}"
    draw.rectangle((x0, y0, x0 + PANEL_W, y0 + PANEL_H), outline=_AXIS)
    draw.text((x0 + 6, y0 + 4), label, fill=_TEXT, font=font)
    if not counts and total:            # (a die of too many sides to count face by face)
        draw.text((x0 + 6, y0 + 24), "faces not counted one by one", fill=_TEXT, font=small)
        return
    top, bottom = y0 + 24, y0 + PANEL_H - 20
    left, right = x0 + 8, x0 + PANEL_W - 8
    peak = max([*counts, expected, 1.0]) * 1.08
    n = max(1, len(counts))
    slot = (right - left) / n
    for k, count in enumerate(counts):
        bx0 = left + k * slot + slot * 0.15
        bx1 = left + (k + 1) * slot - slot * 0.15
        by = bottom - (bottom - top) * count / peak
        if count:
            draw.rectangle((bx0, by, bx1, bottom), fill=_BAR)
        if n <= 20:
            draw.text(((bx0 + bx1) / 2, bottom + 2), str(k + 1), fill=_TEXT, font=small, anchor="ma")
            if count:
                draw.text(((bx0 + bx1) / 2, by - 1), str(count), fill=_TEXT, font=small, anchor="mb")
    draw.line((left, bottom, right, bottom), fill=_AXIS)
    ey = bottom - (bottom - top) * expected / peak
    draw.line((left, ey, right, ey), fill=_EXPECTED, width=1)
