"""What a board image shows in each hex and along each hexside, as numbers.

Everything here is measured in *image* pixels of a board image whose hexes
lie where the scenario's grid puts them (``MapGrid.centres``, board pixels),
scaled by ``scale`` (1 for the VASSAL board, 3–4 for a print-resolution
scan of the same board).  A hex is described by the colours of a disc about
its centre, away from its edges (where neighbours, contours and hexside
features are drawn) and from its number; a hexside by two thin bands:
*along* the side (a river, a wall) and *across* it on the line joining the
two centres (a road, a railway, a bridge).

Colours are compared in CIE L*a*b* (D65), where equal distances are about
equally visible: the medians and quartiles of L*, a*, b* over the sampled
pixels, so that a symbol, a number or a line crossing the disc moves the
quartiles (texture) rather than the median (the ground colour).

The image is read once as 8-bit RGB; each hex and hexside converts only its
own few hundred pixels, so memory is the image plus a constant, whatever the
board's size.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["HexFrame", "srgb_to_lab", "hex_features", "side_bands", "crossing_bands", "CROSSING_ROWS",
           "HEX_FEATURES", "SLICES", "SLICE_POINTS"]

FloatArray = npt.NDArray[np.float64]

#: per hex: L*, a*, b* medians, then their 10th and 90th percentiles, and the
#: share of pixels far from the median colour (symbols, lines: texture)
HEX_FEATURES = 10

# the disc sampled in a hex, as a share of the inner radius (half the
# across-flats size): clear of the edges and of the hex number above the centre
_DISC = 0.55
# the hex number sits above the centre from about 0.55 to 0.95 of the inner radius
_NUMBER_BAND = (-0.98, -0.45)
# a pixel this far (ΔE) from a region's median colour counts as texture
_TEXTURE_DELTA = 18.0
# hexes measured at once (a chunk's points as L*a*b*: about 10 MB)
_CHUNK = 1000


@dataclass(frozen=True)
class HexFrame:
    """Where the hexes are in an image: each label's centre (board pixels),
    the inner radius of a hex (board pixels: half the across-flats size,
    VASSAL's ``dy`` / 2) and the image's scale over board pixels."""

    centres: Mapping[str, tuple[float, float]]
    inner_radius: float
    scale: float = 1.0


# 8-bit sRGB → linear light, one entry per value
_LINEAR = np.where(np.arange(256) / 255.0 <= 0.04045, np.arange(256) / 255.0 / 12.92,
                   ((np.arange(256) / 255.0 + 0.055) / 1.055) ** 2.4).astype(np.float32)
_TO_XYZ = (np.array([[0.4124564, 0.3575761, 0.1804375],
                     [0.2126729, 0.7151522, 0.0721750],
                     [0.0193339, 0.1191920, 0.9503041]]) / np.array([[0.95047], [1.0], [1.08883]])
           ).T.astype(np.float32)


def srgb_to_lab(rgb: npt.NDArray[np.uint8]) -> npt.NDArray[np.float32]:
    """CIE L*a*b* (D65) of 8-bit sRGB pixels, shape (..., 3) → (..., 3), as
    float32 (a board's bands are millions of pixels)."""
    xyz = _LINEAR[rgb] @ _TO_XYZ
    eps = np.float32(216 / 24389)
    f = np.where(xyz > eps, np.cbrt(xyz), (np.float32(24389 / 27) * xyz + 16) / 116)
    lab = np.empty(xyz.shape, dtype=np.float32)
    lab[..., 0] = 116 * f[..., 1] - 16
    lab[..., 1] = 500 * (f[..., 0] - f[..., 1])
    lab[..., 2] = 200 * (f[..., 1] - f[..., 2])
    return lab


def _describe(lab: npt.NDArray[np.float32]) -> FloatArray:
    """The ten numbers of each region's pixels: ``lab`` (regions, points, 3)
    in L*a*b*, NaN where a point is left out (sorted per channel, NaN last:
    the quantiles are read by position, for every region at once)."""
    ordered = np.sort(lab, axis=1)
    counts = np.maximum((~np.isnan(lab[..., 0])).sum(axis=1), 1)
    rows = np.arange(len(lab))

    def quantile(q: float) -> FloatArray:
        at = np.floor(q * (counts - 1) + 0.5).astype(np.int64)
        return np.asarray(ordered[rows, at, :], dtype=np.float64)

    median, low, high = quantile(0.5), quantile(0.1), quantile(0.9)
    with np.errstate(invalid="ignore"):
        far = np.square(lab - median[:, None, :].astype(np.float32)).sum(axis=2) > _TEXTURE_DELTA ** 2
    share = far.sum(axis=1) / counts * 100.0
    return np.asarray(np.concatenate([median, low, high, share[:, None]], axis=1), dtype=np.float64)


def _disc_offsets(radius: float) -> tuple[FloatArray, FloatArray]:
    """Offsets (image pixels) of a hex's sample points: a disc of ``radius``
    less the hex number's band, at most about 700 points."""
    step = max(1.0, radius / 15.0)
    r = np.arange(-radius, radius + step / 2, step)
    dx, dy = np.meshgrid(r, r)
    keep = (dx * dx + dy * dy <= radius * radius)
    inner = radius / _DISC
    keep &= ~((dy > _NUMBER_BAND[0] * inner) & (dy < _NUMBER_BAND[1] * inner) & (np.abs(dx) < 0.45 * inner))
    return dx[keep], dy[keep]


def hex_features(image: npt.NDArray[np.uint8], frame: HexFrame, labels: Sequence[str],
                 lines: Mapping[str, Sequence[str]] | None = None) -> FloatArray:
    """An array (len(labels), HEX_FEATURES): what each hex shows.  ``lines``:
    label → the neighbours a line (a road found on the board) runs to from
    the hex's centre; the pixels along it are left out, so a road across a
    clear hex does not make it look like scrub."""
    radius = _DISC * frame.inner_radius * frame.scale
    ox, oy = _disc_offsets(radius)
    half_width = 0.16 * frame.inner_radius * frame.scale
    h, w = image.shape[:2]
    out = np.empty((len(labels), HEX_FEATURES))
    for start in range(0, len(labels), _CHUNK):
        chunk = labels[start:start + _CHUNK]
        centres = np.array([frame.centres[label] for label in chunk], dtype=np.float64) * frame.scale
        xs = centres[:, :1] + ox[None, :]
        ys = centres[:, 1:] + oy[None, :]
        inside = (xs >= 0) & (xs <= w - 1) & (ys >= 0) & (ys <= h - 1)
        keep = inside.copy()
        for row, label in enumerate(chunk):
            towards = []
            for other in (lines or {}).get(label, ()):
                ux = frame.centres[other][0] * frame.scale - centres[row, 0]
                uy = frame.centres[other][1] * frame.scale - centres[row, 1]
                towards.append((ux, uy))
                norm = math.hypot(ux, uy) or 1.0
                t = (ox * ux + oy * uy) / norm
                off = np.abs(ox * uy - oy * ux) / norm
                keep[row] &= ~((t > -half_width) & (off < half_width))
            keep[row] &= ~_near_bends(ox, oy, towards, half_width)
            if keep[row].sum() < len(ox) // 4:
                keep[row] = inside[row]
        ix = np.clip(np.rint(xs).astype(np.int64), 0, w - 1)
        iy = np.clip(np.rint(ys).astype(np.int64), 0, h - 1)
        lab = srgb_to_lab(image[iy, ix])
        lab[~keep] = np.nan
        out[start:start + len(chunk)] = _describe(lab)
    return out


def _near_bends(ox: FloatArray, oy: FloatArray, towards: Sequence[tuple[float, float]],
                half_width: float) -> npt.NDArray[np.bool_]:
    """The sample offsets within ``half_width`` of a road that bends in the
    hex as a curve (vmodtool's boards, and most printed maps, round a road's
    turn: from the middle of one side to the middle of the other about the
    centre, a quadratic Bézier with the centre as its control point), for
    every two of the directions ``towards`` the hexes the road runs to."""
    near = np.zeros(ox.shape, dtype=bool)
    ts = np.linspace(0.0, 1.0, 13)
    for i, (ax, ay) in enumerate(towards):
        for bx, by in towards[i + 1:]:
            px = (1 - ts) ** 2 * ax / 2 + ts ** 2 * bx / 2
            py = (1 - ts) ** 2 * ay / 2 + ts ** 2 * by / 2
            d2 = (ox[:, None] - px[None, :]) ** 2 + (oy[:, None] - py[None, :]) ** 2
            near |= d2.min(axis=1) < half_width * half_width
    return near


#: a hexside band is sampled on a fixed lattice: this many slices along its
#: length, this many points across each slice, whatever the image's scale
SLICES = 24
SLICE_POINTS = 11


def _side_axes(frame: HexFrame, sides: Sequence[tuple[str, str]]) -> tuple[FloatArray, FloatArray]:
    """Each hexside's midpoint and the unit vector from its first hex's
    centre to its second's, in image pixels."""
    ca = np.array([frame.centres[a] for a, _ in sides], dtype=np.float64) * frame.scale
    cb = np.array([frame.centres[b] for _, b in sides], dtype=np.float64) * frame.scale
    joint = cb - ca
    return (ca + cb) / 2, joint / np.maximum(np.hypot(joint[:, 0], joint[:, 1]), 1e-9)[:, None]


def _pixels_at(image: npt.NDArray[np.uint8], xs: FloatArray, ys: FloatArray) -> npt.NDArray[np.uint8]:
    """The image's pixels nearest the points (clamped to the image)."""
    h, w = image.shape[:2]
    ix = np.clip(np.rint(xs).astype(np.int64), 0, w - 1)
    iy = np.clip(np.rint(ys).astype(np.int64), 0, h - 1)
    return np.asarray(image[iy, ix], dtype=np.uint8)


def side_bands(image: npt.NDArray[np.uint8], frame: HexFrame, sides: Sequence[tuple[str, str]], kind: str,
               ) -> npt.NDArray[np.uint8]:
    """The RGB pixels of each hexside's band, shape (len(sides), SLICES,
    SLICE_POINTS, 3): ``kind`` ``along`` the side (a river, a wall: its middle
    stretch, and a fifth of a hex to either side of it, so a river drawn with
    a wave is inside), ``across`` it on the line joining the two centres (a
    road: the stretch between the two hex numbers' reach), or ``patch``, a
    square about the side's midpoint (a bridge's symbol)."""
    inner = frame.inner_radius * frame.scale
    half_side = inner / math.sqrt(3)
    if not sides:
        return np.empty((0, SLICES, SLICE_POINTS, 3), dtype=np.uint8)
    mid, unit = _side_axes(frame, sides)
    if kind == "along":
        along, half_length, half_width = np.stack([-unit[:, 1], unit[:, 0]], axis=1), 0.6 * half_side, 0.2 * inner
    elif kind == "across":
        along, half_length, half_width = unit, 0.4 * inner, 0.12 * inner
    else:
        along, half_length, half_width = unit, 0.35 * inner, 0.35 * inner
    across = np.stack([-along[:, 1], along[:, 0]], axis=1)
    t = np.linspace(-half_length, half_length, SLICES)[None, :, None]
    s = np.linspace(-half_width, half_width, SLICE_POINTS)[None, None, :]
    xs = mid[:, 0, None, None] + t * along[:, 0, None, None] + s * across[:, 0, None, None]
    ys = mid[:, 1, None, None] + t * along[:, 1, None, None] + s * across[:, 1, None, None]
    return _pixels_at(image, xs, ys)


#: a crossing band: rows parallel to the hexside, this far (inner radii) into
#: each hex, each sampled this many points along the side
CROSSING_ROWS = (0.2, 0.3, 0.4, 0.5)
CROSSING_POINTS = 97
#: how far a crossing band reaches along the side from its middle (inner radii)
CROSSING_REACH = 1.5


def crossing_bands(image: npt.NDArray[np.uint8], frame: HexFrame, sides: Sequence[tuple[str, str]],
                   ) -> npt.NDArray[np.uint8]:
    """The RGB pixels of rows parallel to each hexside, shape (len(sides),
    2 × len(CROSSING_ROWS), CROSSING_POINTS, 3): the rows in the first hex
    (farthest first), then those in the second (nearest first), each
    reaching :data:`CROSSING_REACH` inner radii along the side from the
    line joining the centres.  A road that crosses the side anywhere near its
    middle, at any angle up to 60° from square, crosses every row of both
    hexes: how it runs further inside the hexes does not matter."""
    inner = frame.inner_radius * frame.scale
    rows = len(CROSSING_ROWS) * 2
    if not sides:
        return np.empty((0, rows, CROSSING_POINTS, 3), dtype=np.uint8)
    mid, unit = _side_axes(frame, sides)
    along = np.stack([-unit[:, 1], unit[:, 0]], axis=1)
    offsets = np.array([-s for s in reversed(CROSSING_ROWS)] + list(CROSSING_ROWS)) * inner
    t = np.linspace(-CROSSING_REACH * inner, CROSSING_REACH * inner, CROSSING_POINTS)
    s = offsets[None, :, None]
    tt = t[None, None, :]
    xs = mid[:, 0, None, None] + s * unit[:, 0, None, None] + tt * along[:, 0, None, None]
    ys = mid[:, 1, None, None] + s * unit[:, 1, None, None] + tt * along[:, 1, None, None]
    return _pixels_at(image, xs, ys)
