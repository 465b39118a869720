"""The counter art that ships with the templates (``counters/art.yaml``:
vehicle, weapon and figure silhouettes as vector shapes), drawn with
Pillow at 4× and box-reduced, like the NATO symbols."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw

from vmodtool.render.nato import SUPERSAMPLE
from vmodtool.scenario.templates import TemplateError, art_file, art_library

__all__ = ["render_art", "art_names"]

RGB = tuple[int, int, int]


def art_names() -> list[str]:
    return sorted(art_library())


def _shape_problem(name: str, index: int, shape: Any) -> TemplateError:
    return TemplateError(f"art {name!r}, shape {index + 1}: expected poly, rect, ellipse or line "
                         f"with numbers, found {shape!r}", file=art_file())


def _draw(draw: ImageDraw.ImageDraw, name: str, entry: Mapping[str, Any], scale: float, ox: float, oy: float,
          ink: RGB, fill: RGB) -> None:
    for i, shape in enumerate(entry.get("shapes") or []):
        if not isinstance(shape, dict):
            raise _shape_problem(name, i, shape)
        colour = fill if shape.get("colour") == "fill" else ink
        try:
            if "poly" in shape:
                draw.polygon([(ox + x * scale, oy + y * scale) for x, y in shape["poly"]], fill=colour)
            elif "rect" in shape:
                x0, y0, x1, y1 = shape["rect"]
                draw.rectangle((ox + x0 * scale, oy + y0 * scale, ox + x1 * scale, oy + y1 * scale), fill=colour)
            elif "ellipse" in shape:
                x0, y0, x1, y1 = shape["ellipse"]
                draw.ellipse((ox + x0 * scale, oy + y0 * scale, ox + x1 * scale, oy + y1 * scale), fill=colour)
            elif "line" in shape:
                x0, y0, x1, y1 = shape["line"]
                draw.line((ox + x0 * scale, oy + y0 * scale, ox + x1 * scale, oy + y1 * scale), fill=colour,
                          width=max(1, round(float(shape.get("width", 2)) * scale)))
            else:
                raise _shape_problem(name, i, shape)
        except (TypeError, ValueError):
            raise _shape_problem(name, i, shape) from None


@lru_cache(maxsize=1024)
def render_art(name: str, w: int, h: int, ink: RGB, fill: RGB) -> tuple[Image.Image, int, int]:
    """Art ``name`` fitted (aspect kept, centred) into a ``w`` × ``h`` box:
    an RGBA image and its offset in the box."""
    entry = art_library().get(name)
    if not isinstance(entry, dict):
        raise TemplateError(f"unknown counter art {name!r}; the art is: {', '.join(art_names())}",
                            file=art_file())
    try:
        vw, vh = (float(v) for v in entry.get("view", (100, 100)))
    except (TypeError, ValueError):
        raise TemplateError(f"art {name!r}: view must be [width, height]", file=art_file()) from None
    scale = min(max(1, w) / vw, max(1, h) / vh)
    pw, ph = max(1, round(vw * scale)), max(1, round(vh * scale))
    ss = SUPERSAMPLE
    big = Image.new("RGBA", (pw * ss, ph * ss), ink + (0,))
    _draw(ImageDraw.Draw(big), name, entry, scale * ss, 0.0, 0.0, ink, fill)
    small = big.reduce(ss)
    return small, (w - pw) // 2, (h - ph) // 2
