"""Label every hex and hexside from a few labelled ones.

**Hexes** — nearest labelled neighbour: each feature is scaled by its spread
over the whole board (a robust one: the median absolute deviation, so a few
odd hexes do not flatten it), and a hex takes the class of the labelled hex
nearest to it.  Its *confidence* is the margin between the nearest class and
the next: ``1 − d_best / d_next`` (0: as near to two classes, 1: on a
sample).  Few samples per class suffice when classes differ in colour, which
is what a printed map is designed for.

**Hexside features** — rare, so each feature type is a detector rather than
a class: every hexside's distance to the nearest sample of the feature,
then a threshold that splits the board's distances in two (Otsu's, on their
logarithms: the many plain hexsides far from the samples, the few features
near them).  The confidence of a hexside is how far its distance lies from
the threshold, on the same scale.

**Suggestions** — the hexes whose labels would teach the classifier most:
the least confident ones, each unlike the ones already chosen (uncertainty
sampling with a diversity step), so a user labels a handful of hexes for a
whole map.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from vmodtool.terrain.features import CROSSING_ROWS, srgb_to_lab

__all__ = ["Scaler", "HexClassifier", "FeatureDetector", "SymbolDetector", "CrossingDetector",
           "grow_lines", "otsu_threshold", "suggest"]

FloatArray = npt.NDArray[np.floating[Any]]


#: how much more a hex's ground colour counts than its texture
MEDIAN_WEIGHT = 3.0


@dataclass(frozen=True)
class Scaler:
    """Per-feature centre and robust spread over a population of feature rows."""

    centre: FloatArray
    spread: FloatArray

    @classmethod
    def fit(cls, rows: FloatArray) -> Scaler:
        rows = np.nan_to_num(rows)
        centre = np.median(rows, axis=0)
        mad = np.median(np.abs(rows - centre), axis=0) * 1.4826
        std = rows.std(axis=0)
        # a feature nearly constant over the board (most hexes clear) has a MAD
        # of 0: fall back to its standard deviation, then to 1
        spread = np.where(mad > 1e-6, mad, np.where(std > 1e-6, std, 1.0))
        return cls(centre, spread)

    def __call__(self, rows: FloatArray) -> FloatArray:
        scaled = (np.nan_to_num(rows) - self.centre) / self.spread
        if scaled.shape[1] >= 3:
            # the ground colour (the medians) says more than the texture: a
            # road, a place name or a marker across a hex moves the quartiles
            scaled[:, :3] *= MEDIAN_WEIGHT
        return np.asarray(scaled, dtype=np.float64)


@dataclass
class HexClassifier:
    """1-nearest-neighbour over scaled features, with a margin confidence."""

    samples: FloatArray          # (n, f) scaled
    sample_classes: list[str]
    classes: list[str]

    @classmethod
    def fit(cls, scaled: FloatArray, labels: Mapping[int, str]) -> HexClassifier:
        rows = sorted(labels)
        names = [labels[i] for i in rows]
        return cls(scaled[rows], names, sorted(set(names)))

    def class_distances(self, scaled: FloatArray) -> FloatArray:
        """(n, classes): each row's distance to the nearest sample of each class."""
        d = np.linalg.norm(scaled[:, None, :] - self.samples[None, :, :], axis=2)
        out = np.full((len(scaled), len(self.classes)), np.inf)
        for j, name in enumerate(self.classes):
            cols = [k for k, c in enumerate(self.sample_classes) if c == name]
            out[:, j] = d[:, cols].min(axis=1)
        return out

    def predict(self, scaled: FloatArray) -> tuple[list[str], FloatArray]:
        """Each row's class and confidence (0–1)."""
        d = self.class_distances(scaled)
        order = np.argsort(d, axis=1)
        best = d[np.arange(len(d)), order[:, 0]]
        if d.shape[1] > 1:
            second = d[np.arange(len(d)), order[:, 1]]
            confidence = np.where(second > 0, 1.0 - best / np.maximum(second, 1e-12), 0.0)
        else:
            confidence = np.ones(len(d))
        return [self.classes[j] for j in order[:, 0]], np.clip(confidence, 0.0, 1.0)


def otsu_threshold(values: FloatArray) -> float:
    """The value that splits ``values`` into two groups of least spread
    within each (Otsu's method, exact over the sorted values)."""
    v = np.sort(np.asarray(values, dtype=np.float64))
    n = len(v)
    if n < 2 or v[0] == v[-1]:
        return float(v[-1]) if n else 0.0
    prefix = np.cumsum(v)
    prefix_sq = np.cumsum(v * v)
    k = np.arange(1, n)
    left_mean = prefix[:-1] / k
    right_mean = (prefix[-1] - prefix[:-1]) / (n - k)
    left_var = prefix_sq[:-1] / k - left_mean ** 2
    right_var = (prefix_sq[-1] - prefix_sq[:-1]) / (n - k) - right_mean ** 2
    within = k * left_var + (n - k) * right_var
    best = int(np.argmin(within))
    return float((v[best] + v[best + 1]) / 2)


#: hexsides measured at once
_CHUNK = 2000
#: a pixel this far (ΔE) from the ground of both hexes may be a feature's ink
GROUND_DELTA = 20.0
#: a pixel this near (ΔE) to one of a feature's ink colours is that ink
INK_DELTA = 14.0


def kmeans(points: FloatArray, k: int, iterations: int = 12) -> FloatArray:
    """``k`` (or fewer) centres of ``points`` (n, d): Lloyd's iterations from
    centres spread over the points' sorted lightness (deterministic)."""
    if len(points) == 0:
        return np.empty((0, points.shape[1] if points.ndim == 2 else 3))
    order = np.argsort(points[:, 0], kind="stable")
    picks = order[np.linspace(0, len(points) - 1, min(k, len(points))).astype(np.int64)]
    centres = points[picks].copy()
    for _ in range(iterations):
        nearest = np.argmin(np.square(points[:, None, :] - centres[None, :, :]).sum(axis=2), axis=1)
        for j in range(len(centres)):
            members = points[nearest == j]
            if len(members):
                centres[j] = members.mean(axis=0)
    return np.asarray(centres, dtype=np.float64)


@dataclass
class FeatureDetector:
    """Is this hexside a feature of one type?  The feature's *ink* (the
    colours its samples show that the ground of their hexes does not) and how
    much of it a sample shows per slice of its band; a hexside scores the
    share of its slices that show as much of that ink (0–1); the board's
    scores split in two (Otsu's threshold), the samples above, the hexsides
    named plain below."""

    inks: FloatArray             # (k, 3) L*a*b*
    reference: float             # ink pixels per slice in a sample
    threshold: float
    #: colours most hexsides show: a pixel nearer to one of them is not ink
    common: FloatArray = field(default_factory=lambda: np.empty((0, 3)))
    #: a score this high continues a line found above the threshold (a river
    #: under a bridge, a road under a place name)
    weak: float = 0.0
    #: the bands the detector was fitted on and their scores (detect reuses them)
    _fitted: tuple[FloatArray, FloatArray] | None = field(default=None, repr=False)

    @classmethod
    def fit(cls, bands: FloatArray, ground: FloatArray, positives: Sequence[int],
            negatives: Sequence[int] = ()) -> FeatureDetector:
        """``bands`` (n, slices, points, 3) in L*a*b*; ``ground`` (n, 2, 3):
        the ground colours of each hexside's two hexes."""
        pos = list(positives)
        inks = _inks(bands[pos], ground[pos])
        # colours most hexsides show (the grid's lines, a hex number's ink)
        # tell no feature apart: an ink among them is dropped
        common = _common_inks(bands, ground)
        if len(common) and len(inks):
            # an ink of the same colour as one most hexsides show (a wall as
            # grey as the grid's lines) is told apart by its amount alone
            apart = np.min(np.linalg.norm(common[:, None, :] - inks[None, :, :], axis=2), axis=1) >= INK_DELTA / 3
            common = common[apart]
        detector = cls(inks, 1.0, 0.5, common)
        counts = detector._ink_counts(bands[pos], ground[pos])
        # what a slice of a sample shows of the ink: the median over the slices
        # that show any (a river's stretch hidden under a symbol does not count)
        shown = counts[counts > 0]
        detector.reference = float(np.median(shown)) if len(shown) else 1.0
        scores = detector.scores(bands, ground)
        detector._fitted = (bands, scores)
        # the board's scores split in two, but never below two thirds of what a
        # typical sample scores (a feature looks like its samples)
        typical = float(np.median(scores[pos])) if pos else 1.0
        threshold = max(otsu_threshold(scores), 0.65 * typical)
        detector.weak = 0.2 * typical
        # the weakest sample lowers the threshold to itself, unless it shows
        # less than half what a typical one does: a river's side hidden under
        # a bridge would make every hexside a river (the samples themselves
        # are features whatever their score)
        visible = [float(s) for s in scores[pos] if s >= 0.5 * typical] if pos else []
        low_pos = min(visible) if visible else 1.0
        if threshold > low_pos:
            threshold = low_pos - 1e-9
        detector.threshold = above_negatives(threshold, scores, negatives, low_pos)
        return detector

    def _ink_counts(self, bands: FloatArray, ground: FloatArray) -> FloatArray:
        """(n, slices): the ink pixels in each slice of each band (a chunk of
        bands at a time: memory stays a few times a chunk's pixels)."""
        out = np.zeros(bands.shape[:2])
        if len(self.inks) == 0:
            return out
        for start in range(0, len(bands), _CHUNK):
            part, part_ground = bands[start:start + _CHUNK], ground[start:start + _CHUNK]
            to_ink = _min_square_distance(part, self.inks)
            near = to_ink < INK_DELTA ** 2
            if len(self.common):
                near &= to_ink < _min_square_distance(part, self.common)
            near &= _off_ground(part, part_ground, GROUND_DELTA / 2)
            out[start:start + len(part)] = near.sum(axis=2)
        return out

    def _shown(self, bands: FloatArray, ground: FloatArray) -> FloatArray:
        """(n, slices): how fully each slice shows the ink as a sample does:
        a thin line of the same colour (the grid's, a contour) counts for
        little, half the sample's width or more for all (0–1)."""
        counts = self._ink_counts(bands, ground)
        ref = max(self.reference, 1.0)
        return np.asarray(np.clip((counts - 0.4 * ref) / (0.5 * ref), 0.0, 1.0), dtype=np.float64)

    def scores(self, bands: FloatArray, ground: FloatArray) -> FloatArray:
        """(n,): the share of each band's slices showing the ink as a sample does."""
        return np.asarray(self._shown(bands, ground).mean(axis=1), dtype=np.float64)

    def _at_both_ends(self, bands: FloatArray, ground: FloatArray) -> npt.NDArray[np.bool_]:
        """(n,): whether each band shows the ink in its outer quarter at both
        ends: a line hidden in the middle (a river under a bridge) does; a
        line that only crosses the band (a road over a river's hexside) does
        not."""
        shown = self._shown(bands, ground) > 0
        k = max(1, shown.shape[1] // 4)
        return np.asarray(shown[:, :k].any(axis=1) & shown[:, -k:].any(axis=1))

    def detect(self, bands: FloatArray, ground: FloatArray, *, ends: bool = False
               ) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_], FloatArray]:
        """Which bands show the feature (strong), which may continue one
        (weak: with ``ends``, only a band that shows the ink at both ends, so
        a line along hexsides does not grow along a road that crosses them),
        and the confidence of each answer (0–1)."""
        fitted = self._fitted
        scores = fitted[1] if fitted is not None and fitted[0] is bands else self.scores(bands, ground)
        margin = np.abs(scores - self.threshold) / max(min(self.threshold, 1 - self.threshold), 0.05)
        weak = scores > self.weak
        if ends:
            weak &= self._at_both_ends(bands, ground)
        return scores > self.threshold, weak, np.clip(margin, 0.0, 1.0)


def grow_lines(strong: npt.NDArray[np.bool_], weak: npt.NDArray[np.bool_], sides: Sequence[tuple[str, str]],
               adjacent: Callable[[str, str], bool], along: bool) -> npt.NDArray[np.bool_]:
    """Hysteresis along a line: the strong hexsides, and every weak one that
    continues them — along hexsides, meeting one at a corner; from centre to
    centre, through a hex that has fewer than two of the line's hexsides (a
    continuation, not a branch)."""
    found: npt.NDArray[np.bool_] = np.array(strong, dtype=bool)
    by_hex: dict[str, list[int]] = {}
    for i, (a, b) in enumerate(sides):
        by_hex.setdefault(a, []).append(i)
        by_hex.setdefault(b, []).append(i)

    def continues(i: int) -> bool:
        a, b = sides[i]
        for h in (a, b):
            touching = [j for j in by_hex[h] if j != i and found[j]]
            if along:
                if any(adjacent(*sorted({a, b} ^ set(sides[j]))) for j in touching):
                    return True
            elif len(touching) == 1:
                return True
        return False

    changed = True
    while changed:
        changed = False
        for k in np.flatnonzero(weak & ~found):
            if continues(int(k)):
                found[int(k)] = True
                changed = True
    return found


def _min_square_distance(pixels: FloatArray, centres: FloatArray) -> FloatArray:
    """(...,): each pixel's squared distance to the nearest of ``centres`` (k, 3)."""
    best = np.full(pixels.shape[:-1], np.inf, dtype=np.float32)
    for centre in np.asarray(centres, dtype=np.float32):
        np.minimum(best, np.square(pixels - centre).sum(axis=-1), out=best)
    return best


def _off_ground(bands: FloatArray, ground: FloatArray, delta: float) -> npt.NDArray[np.bool_]:
    """(n, slices, points): pixels farther than ``delta`` from the ground of
    both hexes of their hexside."""
    g = np.asarray(ground, dtype=np.float32)
    da = np.square(bands - g[:, None, None, 0, :]).sum(axis=3)
    db = np.square(bands - g[:, None, None, 1, :]).sum(axis=3)
    return np.asarray(np.minimum(da, db) > delta * delta)


def _inks(bands: FloatArray, ground: FloatArray, k: int = 4, support: float = 0.12) -> FloatArray:
    """The colours bands show off their hexes' ground: k-means centres that
    hold at least ``support`` of those pixels."""
    candidates = bands[_off_ground(bands, ground, GROUND_DELTA)]
    if len(candidates) > 4000:
        candidates = candidates[np.linspace(0, len(candidates) - 1, 4000).astype(np.int64)]
    centres = kmeans(candidates, k)
    if len(centres) == 0:
        return centres
    nearest = np.argmin(np.linalg.norm(candidates[:, None, :] - centres[None, :, :], axis=2), axis=1)
    share = np.bincount(nearest, minlength=len(centres)) / len(candidates)
    return np.asarray(centres[share >= support], dtype=np.float64)


def _common_inks(bands: FloatArray, ground: FloatArray, most: int = 400, present: float = 0.2) -> FloatArray:
    """Off-ground colours that at least ``present`` of the hexsides show:
    the grid's line over each ground (over water it is another colour than
    over clear ground, and water may be a fifth of the map), hex numbers;
    eight clusters, so that each of those keeps its own."""
    picks = np.linspace(0, len(bands) - 1, min(most, len(bands))).astype(np.int64)
    sub, sub_ground = bands[picks], ground[picks]
    centres = _inks(sub, sub_ground, k=8, support=0.02)
    if len(centres) == 0:
        return centres
    off = _off_ground(sub, sub_ground, GROUND_DELTA)
    shown = np.array([((np.square(sub - c).sum(axis=3) < INK_DELTA ** 2) & off).any(axis=(1, 2)).mean()
                      for c in np.asarray(centres, dtype=np.float32)])
    return np.asarray(centres[shown >= present], dtype=np.float64)


@dataclass
class SymbolDetector:
    """Is this hexside's middle drawn like the samples' (a bridge)?  Each
    band is laid along its own hexside, so a symbol drawn square to the side
    looks alike on every side: the mean colour difference (ΔE) to the nearest
    sample, point by point (or mirrored), against a threshold that splits the
    board's differences in two."""

    samples: FloatArray          # (k, slices, points, 3)
    threshold: float
    scale: float

    @classmethod
    def fit(cls, bands: FloatArray, positives: Sequence[int], negatives: Sequence[int] = ()) -> SymbolDetector:
        pos = list(positives)
        detector = cls(bands[pos], 0.0, 1.0)
        d = detector.distances(bands)
        detector.scale = float(np.median(d)) or 1.0
        threshold = otsu_threshold(np.log1p(d))
        high_pos = float(np.log1p(d[pos]).max()) if pos else 0.0
        threshold = max(threshold, high_pos + 1e-9)
        if negatives:
            low_neg = float(np.log1p(d[list(negatives)]).min())
            if high_pos < low_neg <= threshold:
                threshold = (high_pos + low_neg) / 2
        detector.threshold = threshold
        return detector

    def distances(self, bands: FloatArray) -> FloatArray:
        best = np.full(len(bands), np.inf)
        for sample in self.samples:
            for view in (sample, sample[::-1], sample[:, ::-1], sample[::-1, ::-1]):
                d = np.linalg.norm(bands - view[None], axis=3).mean(axis=(1, 2))
                best = np.minimum(best, d)
        return best

    def detect(self, bands: FloatArray) -> tuple[npt.NDArray[np.bool_], FloatArray]:
        logd = np.log1p(self.distances(bands))
        margin = np.abs(logd - self.threshold) / max(self.threshold, 0.05)
        return logd < self.threshold, np.clip(margin * 4, 0.0, 1.0)


def suggest(scaled: FloatArray, confidence: FloatArray, exclude: set[int], count: int,
            diversity: float = 1.0) -> list[int]:
    """``count`` row indices to label next: least confident first, skipping
    rows within ``diversity`` (scaled distance) of one already chosen."""
    chosen: list[int] = []
    for i in np.argsort(confidence, kind="stable"):
        index = int(i)
        if index in exclude:
            continue
        if chosen and float(np.linalg.norm(scaled[chosen] - scaled[index], axis=1).min()) < diversity:
            continue
        chosen.append(index)
        if len(chosen) >= count:
            break
    return chosen


#: the slopes a crossing line may take (points along the side per row:
#: rows are a tenth of an inner radius apart, points 1/32 of one: up to
#: about 60° from square to the side)
_CROSSING_SLOPES = np.linspace(-5.5, 5.5, 23)
#: where a crossing may meet the side: this share of the band's points
#: about its middle (about 0.6 of half the side's length)
_CROSSING_MIDDLE = 0.12
#: a line is narrow: a run of ink (gaps of up to _GAP points closed: a
#: road's two lines) at most this many points (1/32 inner radius) long
_NARROW = 24
_GAP = 5
#: a row showing more runs than this is lettering
_MOST_RUNS = 3


@dataclass
class CrossingDetector:
    """Does a line (a road, a railway) cross this hexside near its middle and
    go on into both hexes?  The line's *ink* (the colours its samples show
    that the ground does not); in each row of a crossing band
    (:func:`vmodtool.terrain.features.crossing_bands`) the ink that is
    narrow (ground on both sides of it: not a hatched town, not a line along
    the side); a hexside scores, over every straight line through the
    side's middle stretch at up to 60° from square, the share of the rows of
    the hex where the line is thinnest that it finds ink in (0–1).  The
    board's scores split in two (Otsu's threshold), never above the weakest
    sample that shows the line."""

    inks: FloatArray
    common: FloatArray
    threshold: float = 0.5
    _fitted: tuple[npt.NDArray[np.uint8], FloatArray] | None = field(default=None, repr=False)

    @classmethod
    def fit(cls, bands: npt.NDArray[np.uint8], ground: FloatArray, positives: Sequence[int],
            negatives: Sequence[int] = ()) -> CrossingDetector:
        """``bands`` (n, rows, points, 3) as 8-bit RGB (converted to L*a*b* a
        chunk at a time: a board's crossing bands are 50 MB as RGB, four
        times that as L*a*b*); ``ground`` (n, 2, 3)."""
        pos = list(positives)
        # learnt where the samples' line crosses: about the band's middle, clear
        # of the hexes' other sides (the grid's lines) that the rows meet
        points = bands.shape[2]
        middle = srgb_to_lab(bands[pos][:, :, points // 2 - points // 6:points // 2 + points // 6 + 1])
        inks = _inks(middle, ground[pos])
        if len(inks) and pos:
            # the line's own ink is in every sample; a river's blue is only
            # in the samples that cross one (on a bridge)
            off = _off_ground(middle, ground[pos], GROUND_DELTA)
            shown = np.array([((np.square(middle - c).sum(axis=3) < INK_DELTA ** 2) & off).any(axis=(1, 2)).mean()
                              for c in np.asarray(inks, dtype=np.float32)])
            inks = inks[shown >= 0.8]
        picks = np.linspace(0, len(bands) - 1, min(400, len(bands))).astype(np.int64)
        common = _common_inks(srgb_to_lab(bands[picks]), ground[picks])
        if len(common) and len(inks):
            apart = np.min(np.linalg.norm(common[:, None, :] - inks[None, :, :], axis=2), axis=1) >= INK_DELTA
            common = common[apart]
        detector = cls(inks, common)
        scores = detector.scores(bands, ground)
        detector._fitted = (bands, scores)
        # a line found by a share of rows a typical sample passes: a line
        # that a place name or a bridge's box hides in part is a sample
        # still, but does not lower the bar (text crossing a side would pass)
        typical = float(np.median(scores[pos])) if pos else 1.0
        # and never fewer than three rows in four in each hex: a line that
        # shows in half the rows is a town's dot and its name
        threshold = max(otsu_threshold(scores), 0.65 * typical, 0.5)
        detector.threshold = above_negatives(threshold, scores, negatives, typical)
        return detector

    def _narrow_ink(self, bands: npt.NDArray[np.uint8], ground: FloatArray) -> npt.NDArray[np.bool_]:
        """(n, rows, points): ink with no ink :data:`_NARROW` points to either side."""
        ink = np.zeros(bands.shape[:3], dtype=bool)
        if len(self.inks) == 0:
            return ink
        for start in range(0, len(bands), _CHUNK):
            part, part_ground = srgb_to_lab(bands[start:start + _CHUNK]), ground[start:start + _CHUNK]
            to_ink = _min_square_distance(part, self.inks)
            near = to_ink < INK_DELTA ** 2
            if len(self.common):
                near &= to_ink < _min_square_distance(part, self.common)
            near &= _off_ground(part, part_ground, GROUND_DELTA / 2)
            ink[start:start + len(part)] = near
        narrow = _short_runs(ink, _GAP, _NARROW)
        # a row crossed by many short runs is lettering (a place name), not
        # a line: a road, even a double one, is one or two runs in a row
        starts = narrow.copy()
        starts[..., 1:] &= ~narrow[..., :-1]
        narrow &= (starts.sum(axis=-1) <= _MOST_RUNS)[..., None]
        return narrow

    def scores(self, bands: npt.NDArray[np.uint8], ground: FloatArray) -> FloatArray:
        """(n,): the best straight line's share of rows with narrow ink, in
        the hex where it shows least."""
        narrow = self._narrow_ink(bands, ground)
        n, rows, points = narrow.shape
        half = rows // 2
        # each row's distance from the side in tenths of an inner radius
        offsets = np.array([-r for r in reversed(CROSSING_ROWS)] + list(CROSSING_ROWS)) * 10.0
        centre = points // 2
        reach = int(round(_CROSSING_MIDDLE * points))
        best = np.zeros(n)
        row_index = np.arange(rows)
        for slope in _CROSSING_SLOPES:
            for p in range(centre - reach, centre + reach + 1):
                at = np.clip(np.rint(p + slope * offsets).astype(np.int64), 0, points - 1)
                hit = narrow[:, row_index, at]
                share = np.minimum(hit[:, :half].mean(axis=1), hit[:, half:].mean(axis=1))
                np.maximum(best, share, out=best)
        return best

    def detect(self, bands: npt.NDArray[np.uint8], ground: FloatArray) -> tuple[npt.NDArray[np.bool_], FloatArray]:
        fitted = self._fitted
        scores = fitted[1] if fitted is not None and fitted[0] is bands else self.scores(bands, ground)
        margin = np.abs(scores - self.threshold) / max(min(self.threshold, 1 - self.threshold), 0.05)
        return scores > self.threshold, np.clip(margin, 0.0, 1.0)


def _short_runs(ink: npt.NDArray[np.bool_], gap: int, longest: int) -> npt.NDArray[np.bool_]:
    """(..., points): the runs of ``ink`` along the last axis, gaps of up to
    ``gap`` closed, that are at most ``longest`` long (a line crossing the
    row, not a hatched town or a line along it)."""
    shape = ink.shape
    rows = ink.reshape(-1, shape[-1])
    closed = rows.copy()
    for k in range(1, gap + 1):
        # a point between ink within ``gap`` on both sides is closed
        left = np.zeros_like(rows)
        right = np.zeros_like(rows)
        for j in range(1, k + 1):
            left[:, j:] |= rows[:, :-j]
        for j in range(1, gap - k + 2):
            right[:, :-j] |= rows[:, j:]
        closed |= left & right
    padded = np.zeros((len(rows), shape[-1] + 2), dtype=bool)
    padded[:, 1:-1] = closed
    edge = np.diff(padded.astype(np.int8), axis=1)
    starts = np.argwhere(edge == 1)
    ends = np.argwhere(edge == -1)
    out = np.zeros(padded.shape, dtype=np.int32)
    short = (ends[:, 1] - starts[:, 1]) <= longest
    np.add.at(out, (starts[short, 0], starts[short, 1]), 1)
    np.add.at(out, (ends[short, 0], ends[short, 1]), -1)
    keep = np.cumsum(out, axis=1)[:, :-2] > 0
    return np.asarray(keep.reshape(shape) & closed.reshape(shape))


def above_negatives(threshold: float, scores: FloatArray, negatives: Sequence[int], positive: float) -> float:
    """``threshold`` raised above the highest-scoring negative sample (a
    hexside labelled as not the feature), half-way to ``positive``, when
    that negative scores under ``positive`` and the threshold would take it."""
    if negatives:
        high_neg = float(scores[list(negatives)].max())
        if high_neg < positive and threshold <= high_neg:
            return (high_neg + positive) / 2
    return threshold
