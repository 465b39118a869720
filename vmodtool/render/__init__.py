"""Rendering with Pillow: counters, NATO symbols, print sheets and map
boards, all from the scenario model.  Fonts ship with the package
(:mod:`vmodtool.render.fonts`) so that output is identical on every machine.

Modules: :mod:`~vmodtool.render.counters` (counter faces, the render cache),
:mod:`~vmodtool.render.nato` (NATO symbols), :mod:`~vmodtool.render.sheets`
(print sheets and PDF), :mod:`~vmodtool.render.cards` and
:mod:`~vmodtool.render.card_sheets` (card faces and card sheets),
:mod:`~vmodtool.render.board` (map boards, grid overlays).  Their entry points are re-exported here::

    from vmodtool.render import render_board
    render_board(scenario).save("board.png")

Names are imported on first use (PEP 562): ``import vmodtool.render.fonts``
does not draw in the rest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vmodtool._lazy import lazy_exports

if TYPE_CHECKING:
    from vmodtool.render.board import (
        BoardOptions,
        board_drawing,
        overlay_grid,
        render_board,
        render_key,
        write_board,
        write_key,
    )
    from vmodtool.render.cards import render_card_back, render_card_files, render_card_front
    from vmodtool.render.counters import (
        CounterSpec,
        CounterStyle,
        counter_specs,
        counter_style,
        render_all,
        render_contact_sheet,
        render_counter_faces,
        render_marker,
    )
    from vmodtool.render.fonts import load_font
    from vmodtool.render.nato import NATO_SIZES, NATO_SYMBOLS, check_nato, render_symbol
    from vmodtool.render.sheets import SheetOptions, layout_sheets, write_sheets

__all__ = [
    "CounterStyle", "counter_style", "CounterSpec", "counter_specs", "render_counter_faces", "render_marker",
    "render_all", "render_contact_sheet",
    "render_symbol", "check_nato", "NATO_SYMBOLS", "NATO_SIZES",
    "SheetOptions", "layout_sheets", "write_sheets",
    "BoardOptions", "board_drawing", "render_board", "write_board", "render_key", "write_key", "overlay_grid",
    "load_font", "render_card_front", "render_card_back", "render_card_files",
]

__getattr__, __dir__ = lazy_exports(globals(), {
    "vmodtool.render.counters": (
        "CounterStyle", "counter_style", "CounterSpec", "counter_specs", "render_counter_faces", "render_marker",
        "render_all", "render_contact_sheet",
    ),
    "vmodtool.render.nato": ("render_symbol", "check_nato", "NATO_SYMBOLS", "NATO_SIZES"),
    "vmodtool.render.sheets": ("SheetOptions", "layout_sheets", "write_sheets"),
    "vmodtool.render.board": (
        "BoardOptions", "board_drawing", "render_board", "write_board", "render_key", "write_key", "overlay_grid",
    ),
    "vmodtool.render.fonts": ("load_font",),
    "vmodtool.render.cards": ("render_card_front", "render_card_back", "render_card_files"),
})
