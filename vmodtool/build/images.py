"""The images of a generated module: every counter face (``vmodtool
counters``' renderer), marker counters and activation chits, overlays for
status layers, and the board (``vmodtool board``, or the scenario's own
board image) — collected into a :class:`~vmodtool.build.module.ModuleImages`.
"""

from __future__ import annotations

import io
import tempfile
from pathlib import Path
from typing import Callable, Optional

from PIL import Image, ImageDraw

from vmodtool.build.module import ModuleImages
from vmodtool.render.board import module_board_image
from vmodtool.render.counters import counter_style, render_all, resolution_px
from vmodtool.render.fonts import load_font
from vmodtool.scenario.model import Scenario

__all__ = ["render_module_images"]

Progress = Callable[[str, int, int], None]


def _png(image: Image.Image) -> bytes:
    buf = io.BytesIO()
    image.save(buf, "PNG", optimize=False, compress_level=6)
    return buf.getvalue()


def _overlay(text: str, px: int) -> bytes:
    """A status layer drawn over a unit: a band across the lower third with
    the marker's name, transparent elsewhere."""
    img = Image.new("RGBA", (px, px), (0, 0, 0, 0))
    draw = ImageDraw.Draw(img)
    top, bottom = int(px * 0.36), int(px * 0.64)
    draw.rectangle((0, top, px - 1, bottom), fill=(250, 245, 220, 225), outline=(120, 20, 20, 255),
                   width=max(1, px // 40))
    size = max(6, int(px * 0.16))
    font = load_font("condensed-bold", size)
    while size > 6 and draw.textlength(text, font=font) > px * 0.92:
        size -= 1
        font = load_font("condensed-bold", size)
    draw.text((px / 2, (top + bottom) / 2), text, font=font, fill=(120, 20, 20, 255), anchor="mm")
    return _png(img)


def _plain_chit(text: str, px: int) -> bytes:
    img = Image.new("RGB", (px, px), (245, 245, 240))
    draw = ImageDraw.Draw(img)
    draw.rectangle((0, 0, px - 1, px - 1), outline=(0, 0, 0), width=max(1, px // 30))
    font = load_font("condensed-bold", max(6, int(px * 0.2)))
    draw.multiline_text((px / 2, px / 2), text.replace(" ", "\n"), font=font, fill=(0, 0, 0),
                        anchor="mm", align="center")
    return _png(img)


def render_module_images(scenario: Scenario, *, jobs: Optional[int] = None,
                         cache_dir: Optional[Path] = None,
                         progress: Optional[Progress] = None) -> ModuleImages:
    """Render (or take from ``cache_dir``) every image the module needs."""
    style = counter_style(scenario)
    px = resolution_px(style, "vassal")
    images = ModuleImages(counter_size=(px, px))
    with tempfile.TemporaryDirectory(prefix="vmodtool-counters-") as tmp:
        out = Path(cache_dir) if cache_dir is not None else Path(tmp)

        def counters_progress(done: int, total: int) -> None:
            if progress:
                progress("counters", done, total)

        manifest = render_all(scenario, out, resolutions=("vassal",), jobs=jobs,
                              cache=cache_dir is not None, progress=counters_progress)
        for entry in manifest.entries:
            name = Path(entry.path).name
            images.files[name] = (manifest.out_dir / entry.path).read_bytes()
            if entry.counter.startswith("marker."):
                images.marker[entry.counter[len("marker."):]] = name
            elif entry.counter.startswith("chit."):
                images.chit[entry.counter[len("chit."):]] = name
            else:
                images.unit[(entry.counter, entry.face)] = name
    # End Turn chits: the scenario's end-turn marker kind, or a plain chit
    if any(getattr(e, "chits", ()) and "end_turn" in e.chits for e in scenario.setup):
        end_kind = next((k for k in images.marker if "end_turn" in k), None)
        if end_kind is not None:
            images.chit["end_turn"] = images.marker[end_kind]
        else:
            images.files["chit-end-turn.png"] = _plain_chit("End Turn", px)
            images.chit["end_turn"] = "chit-end-turn.png"
    for kind in scenario.markers.values():
        if kind.representation == "layer":
            name = f"layer-{kind.id}.png"
            images.files[name] = _overlay(kind.text or kind.name, px)
            images.layer[kind.id] = name
    if progress:
        progress("board", 0, 1)
    board = module_board_image(scenario)
    images.files["board.png"] = _png(board.convert("RGB"))
    images.board, images.board_size = "board.png", board.size
    if progress:
        progress("board", 1, 1)
    return images
