"""One step of a game as a picture (``vmodtool replay --step N --png``): the
maps of a :class:`~vmodtool.report.scene.Scene` stacked top to bottom, each
with its boards' images at their offsets (a grey rectangle for a board
whose image the module lacks) and its counters' image layers at the pixels
the scene computed; pieces without images as labelled boxes."""

from __future__ import annotations

import io
import warnings
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PIL import Image as PILImage

    from vmodtool.report.scene import ImageCatalog, Scene, SceneMap

__all__ = ["render_scene", "render_scene_map"]

#: space between two maps and the height of a map's title bar
_GAP = 8
_TITLE = 20


def _image(catalog: ImageCatalog, cache: dict[str, PILImage.Image | None], name: str | None
           ) -> PILImage.Image | None:
    from PIL import Image

    if not name:
        return None
    if name in cache:
        return cache[name]
    img: PILImage.Image | None = None
    data = catalog.data(name)
    if data:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                img = Image.open(io.BytesIO(data)).convert("RGBA")
        except (OSError, ValueError, SyntaxError, EOFError, Image.DecompressionBombError):
            img = None
    cache[name] = img
    return img


def render_scene_map(scene_map: SceneMap, catalog: ImageCatalog,
                     cache: dict[str, PILImage.Image | None] | None = None) -> PILImage.Image:
    """One map window as VASSAL draws it (boards, then pieces bottom → top)."""
    from PIL import Image, ImageDraw

    from vmodtool.render.fonts import load_font

    cache = {} if cache is None else cache
    width, height = max(scene_map.width, 1), max(scene_map.height, 1)
    canvas = Image.new("RGBA", (width, height), (255, 255, 255, 255))
    draw = ImageDraw.Draw(canvas)
    for board in scene_map.boards:
        img = _image(catalog, cache, board.image)
        if img is None:
            draw.rectangle((board.x, board.y, board.x + board.w - 1, board.y + board.h - 1),
                           fill=(222, 222, 210, 255), outline=(120, 120, 120, 255))
            continue
        if board.reversed:
            img = img.rotate(180)
        canvas.alpha_composite(img, (board.x, board.y))
    font = load_font("regular", 10)
    for board in scene_map.boards:
        for text, x, y in board.labels:
            draw.text((x, y - 12), text, fill=(90, 90, 90, 255), font=font, anchor="mm")
    for c in scene_map.counters:
        if c.box is not None:
            left, top, w, h = c.box
            draw.rectangle((left, top, left + w - 1, top + h - 1), fill=(250, 246, 220, 255),
                           outline=(60, 60, 60, 255))
            draw.text((left + w / 2, top + h / 2), c.label[:14], fill=(0, 0, 0, 255), font=font, anchor="mm")
            continue
        for layer in c.layers:
            img = _image(catalog, cache, layer.image)
            if img is None:
                continue
            _paste(canvas, img, layer.x, layer.y)
    return canvas


def _paste(canvas: PILImage.Image, img: PILImage.Image, x: int, y: int) -> None:
    """alpha_composite at (x, y), clipped to the canvas (Pillow refuses
    negative destinations)."""
    sx, sy = max(0, -x), max(0, -y)
    if sx >= img.width or sy >= img.height or x >= canvas.width or y >= canvas.height:
        return
    part = img.crop((sx, sy, min(img.width, canvas.width - x), min(img.height, canvas.height - y)))
    canvas.alpha_composite(part, (x + sx, y + sy))


def render_scene(scene: Scene, catalog: ImageCatalog) -> PILImage.Image:
    """Every map of the scene, each under a title bar, one below the other."""
    from PIL import Image, ImageDraw

    from vmodtool.render.fonts import load_font

    cache: dict[str, PILImage.Image | None] = {}
    parts = [(m.name, render_scene_map(m, catalog, cache)) for m in scene.maps
             if m.boards or m.counters]
    if not parts:
        return Image.new("RGB", (200, 40), (255, 255, 255))
    width = max(img.width for _, img in parts)
    height = sum(img.height + _TITLE + _GAP for _, img in parts)
    out = Image.new("RGB", (width, height), (255, 255, 255))
    draw = ImageDraw.Draw(out)
    font = load_font("regular", 12)
    y = 0
    for name, img in parts:
        draw.text((4, y + 3), f"{name} — step {scene.step}", fill=(0, 0, 0), font=font)
        y += _TITLE
        out.paste(img, (0, y), img)
        y += img.height + _GAP
    return out
