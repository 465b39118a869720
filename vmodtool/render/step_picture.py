"""One step of a game as a picture (``vmodtool replay --step N --png``): the
maps of a :class:`~vmodtool.replay.scene.Scene` stacked top to bottom, each
with its boards' images at their offsets (a grey rectangle for a board
whose image the module lacks) and its counters' image layers at the pixels
the scene computed; pieces without images as labelled boxes."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PIL import Image as PILImage

    from vmodtool.replay.scene import ImageCatalog, Scene, SceneMap

__all__ = ["render_scene", "render_scene_map"]

#: space between two maps and the height of a map's title bar
_GAP = 8
_TITLE = 20
#: the most bytes the picture's canvases take (each map's RGBA canvas and the
#: RGB picture, 4 bytes a pixel each): 16 million map pixels are drawn at
#: VASSAL's scale, a larger game smaller, at 1/2, 1/3 … (a 10000×10000 map at
#: 1/3), so that each image is reduced in one pass (``Image.reduce``)
PICTURE_BUDGET = 128_000_000


def picture_scale(scene: Scene) -> float:
    """The scale the scene is drawn at: 1 (VASSAL's pixels) unless its maps
    would take more than :data:`PICTURE_BUDGET`, then the largest 1/k that
    fits."""
    area = sum(max(m.width, 1) * max(m.height, 1) for m in scene.maps if m.boards or m.counters)
    if area * 8 <= PICTURE_BUDGET:
        return 1.0
    return 1 / math.ceil(math.sqrt(area * 8 / PICTURE_BUDGET))


def _image(catalog: ImageCatalog, cache: dict[str, PILImage.Image | None], name: str | None,
           scale: float, warn: Callable[[str], None] | None = None, *, keep: bool = True) -> PILImage.Image | None:
    """A module image decoded under the decode budget (a JPEG drawn smaller
    is decoded smaller) and scaled; ``None`` when absent, unreadable or
    refused by the budget (the caller draws what it draws for a missing
    image, and ``warn`` is told why).  ``keep``: cached for the next use (a
    piece's image; a board's is drawn once and not kept)."""
    from PIL import Image

    from vmodtool.images import ImageError, image_size, load_image

    if not name:
        return None
    if name in cache:
        return cache[name]
    img: PILImage.Image | None = None
    data = catalog.data(name)
    if data:
        try:
            w, h = image_size(data, file="images/" + name, convert_to="RGBA", budget=_NO_BUDGET, warn=_ignore)
            want = (max(1, round(w * scale)), max(1, round(h * scale)))
            img = load_image(data, file="images/" + name, mode="RGBA", max_size=want if scale < 1 else None,
                             warn=_ignore)
            factor = round(1 / scale)
            if factor > 1 and img.size == (w, h):
                img = img.reduce(factor)           # one pass, no intermediate copy
            elif img.size != want:                 # a JPEG decoded at 1/2, 1/4 or 1/8
                img = img.resize(want, Image.Resampling.LANCZOS)
        except ImageError as exc:
            img = None
            if warn is not None:
                warn(f"not drawn: {exc}")
    if keep or img is None:
        cache[name] = img
    return img


#: the header read for the size only: the budget is checked when decoding
_NO_BUDGET = 1 << 62


def _ignore(_message: str) -> None:
    """Pillow's warnings about a module image: the picture shows what it can."""


def render_scene_map(scene_map: SceneMap, catalog: ImageCatalog,
                     cache: dict[str, PILImage.Image | None] | None = None,
                     scale: float = 1.0, warn: Callable[[str], None] | None = None) -> PILImage.Image:
    """One map window as VASSAL draws it (boards, then pieces bottom → top),
    at ``scale`` (``cache`` holds images at that scale; ``warn`` is told of
    an image that cannot be drawn)."""
    from PIL import Image, ImageDraw

    from vmodtool.render.fonts import load_font

    def at(v: float) -> int:
        return round(v * scale)

    cache = {} if cache is None else cache
    width, height = max(at(scene_map.width), 1), max(at(scene_map.height), 1)
    canvas = Image.new("RGBA", (width, height), (255, 255, 255, 255))
    draw = ImageDraw.Draw(canvas)
    for board in scene_map.boards:
        img = _image(catalog, cache, board.image, scale, warn, keep=False)
        if img is None:
            draw.rectangle((at(board.x), at(board.y), at(board.x + board.w) - 1, at(board.y + board.h) - 1),
                           fill=(222, 222, 210, 255), outline=(120, 120, 120, 255))
            continue
        if board.reversed:
            img = img.rotate(180)
        _paste(canvas, img, at(board.x), at(board.y))
        del img
    font = load_font("regular", 10)
    for board in scene_map.boards:
        for text, x, y in board.labels:
            draw.text((at(x), at(y) - 12), text, fill=(90, 90, 90, 255), font=font, anchor="mm")
    for c in scene_map.counters:
        if c.box is not None:
            left, top, w, h = c.box
            draw.rectangle((at(left), at(top), at(left + w) - 1, at(top + h) - 1), fill=(250, 246, 220, 255),
                           outline=(60, 60, 60, 255))
            draw.text((at(left + w / 2), at(top + h / 2)), c.label[:14], fill=(0, 0, 0, 255), font=font,
                      anchor="mm")
            continue
        for layer in c.layers:
            img = _image(catalog, cache, layer.image, scale, warn)
            if img is None:
                continue
            _paste(canvas, img, at(layer.x), at(layer.y))
    return canvas


def _paste(canvas: PILImage.Image, img: PILImage.Image, x: int, y: int) -> None:
    """alpha_composite at (x, y), clipped to the canvas (Pillow refuses
    negative destinations)."""
    if x >= 0 and y >= 0 and x + img.width <= canvas.width and y + img.height <= canvas.height:
        canvas.alpha_composite(img, (x, y))        # inside: no cropped copy
        return
    sx, sy = max(0, -x), max(0, -y)
    if sx >= img.width or sy >= img.height or x >= canvas.width or y >= canvas.height:
        return
    part = img.crop((sx, sy, min(img.width, canvas.width - x), min(img.height, canvas.height - y)))
    canvas.alpha_composite(part, (x + sx, y + sy))


def render_scene(scene: Scene, catalog: ImageCatalog,
                 warn: Callable[[str], None] | None = None) -> PILImage.Image:
    """Every map of the scene, each under a title bar, one below the other,
    at :func:`picture_scale`; ``warn`` is told of each image that cannot be
    drawn (absent images excepted: a grey board shows them)."""
    from PIL import Image, ImageDraw

    from vmodtool.render.fonts import load_font

    maps = [m for m in scene.maps if m.boards or m.counters]
    if not maps:
        return Image.new("RGB", (200, 40), (255, 255, 255))
    scale = picture_scale(scene)
    width = max(max(round(m.width * scale), 1) for m in maps)
    height = sum(max(round(m.height * scale), 1) + _TITLE + _GAP for m in maps)
    font = load_font("regular", 12)
    cache: dict[str, PILImage.Image | None] = {}
    out: PILImage.Image | None = None
    y = 0
    for m in maps:
        # one map's canvas at a time; the picture is made once the first is
        # drawn (its board images decoded and let go by then)
        img = render_scene_map(m, catalog, cache, scale, warn)
        if out is None:
            out = Image.new("RGB", (width, height), (255, 255, 255))
        ImageDraw.Draw(out).text((4, y + 3), f"{m.name} — step {scene.step}", fill=(0, 0, 0), font=font)
        y += _TITLE
        out.paste(img, (0, y), img)
        y += img.height + _GAP
        del img
    assert out is not None
    return out
