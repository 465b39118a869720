"""What a piece looks like in its current state: the images VASSAL 3.7.26
draws for it, bottom to top, each centred on the piece's position (plus a
Layer's own offset), as the decorators' ``draw`` methods do
(``docs/vassal-format.md`` §3.4):

* ``BasicPiece.draw``: its image, centred;
* ``Embellishment.draw`` (Layer, ``emb2;``): the inner piece, then the image
  of the current level when the layer is active (``value > 0``), offset by
  the layer's ``x_off``/``y_off`` (drawn *under* the inner piece only while
  selected, which a picture of a game never is);
* ``Obscurable.draw`` (Mask, ``obs;``): a piece masked to the viewer shows
  the mask image (or, without one, nothing of the piece) instead of itself;
* ``Hideable.draw`` (Invisible, ``hide;``): a piece hidden to the viewer
  draws nothing.

Rotation, labels and other drawn decorations are not modelled: a picture
shows the piece's images unrotated (:attr:`Appearance.approximate` says
when a trait that would change the picture was met).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from vmodtool.errors import FormatError
from vmodtool.vassal.pieces import PieceDef
from vmodtool.vassal.traits import view_of

__all__ = ["Appearance", "ImageLayer", "piece_appearance"]

#: traits that draw something this model leaves out (rotation, text, shapes)
_APPROXIMATE = ("rotate;", "label;", "AreaOfEffect;", "footprint;", "nonRect")


@dataclass(frozen=True)
class ImageLayer:
    """One image drawn: its name in the module and its centre's offset from
    the piece's position, pixels."""

    image: str
    dx: int = 0
    dy: int = 0


@dataclass(frozen=True)
class Appearance:
    """The images of a piece bottom → top; ``masked``/``hidden`` when the
    viewer sees the mask (or nothing) instead of the piece; ``approximate``
    when a trait draws what this model leaves out."""

    layers: tuple[ImageLayer, ...]
    masked: bool = False
    hidden: bool = False
    approximate: bool = False

    @property
    def images(self) -> list[str]:
        return [layer.image for layer in self.layers]


def piece_appearance(piece: PieceDef, *, sees: Callable[[str], bool] | None = None) -> Appearance:
    """The images ``piece`` draws.  ``sees(player_id)`` tells whether the
    viewer sees through a mask or invisibility set by that player (default:
    never, as an observer); a trait chain that cannot be decoded draws
    nothing."""
    try:
        traits = list(piece.traits)
    except FormatError:
        return Appearance(())
    layers: list[ImageLayer] = []
    approximate = masked = hidden = False
    # innermost (BasicPiece, last) first: each decorator draws over what is inside it
    for trait in reversed(traits):
        prefix = trait.prefix
        try:
            if prefix == "piece;":
                image = view_of(trait).image
                if image:
                    layers.append(ImageLayer(image))
            elif prefix in ("emb2;", "emb;"):
                layer = view_of(trait)
                value = layer.raw_value()
                names = list(layer.image_names)
                if 0 < value <= len(names) and names[value - 1]:
                    layers.append(ImageLayer(names[value - 1], int(layer.x_off or 0), int(layer.y_off or 0)))
            elif prefix == "obs;":
                obscurable = view_of(trait)
                by = obscurable.obscured_by
                if by is not None and not (sees is not None and sees(by)):
                    # what is inside the mask is drawn as the mask; outer layers still draw
                    mask = obscurable.image
                    layers = [ImageLayer(mask)] if mask else []
                    masked = True
            elif prefix == "hide;":
                by = view_of(trait).hidden_by
                if by is not None and not (sees is not None and sees(by)):
                    layers = []
                    hidden = True
            elif prefix.startswith(_APPROXIMATE):
                approximate = True
        except (FormatError, ValueError, IndexError):
            approximate = True
    return Appearance(tuple(layers), masked=masked, hidden=hidden, approximate=approximate)
