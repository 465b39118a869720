"""The statistics of the dice check, in pure Python (no scipy): the
chi-square goodness-of-fit test against a fair die, the Wald–Wolfowitz runs
test above/below the die's median, their p-values, and a p-value in plain
words (``docs/check-game.md``, "Dice").

The chi-square survival function is the regularized upper incomplete gamma
function ``Q(k/2, x/2)`` (series below ``a + 1``, Lentz's continued fraction
above, ``math.lgamma``); the normal tail is ``math.erfc``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["gamma_q", "chi2_sf", "normal_sf", "ChiSquare", "Runs", "chi_square_fair", "runs_test",
           "in_words"]

_EPS = 1e-15
_TINY = 1e-300
_MAX_ITER = 10_000


def gamma_q(a: float, x: float) -> float:
    """The regularized upper incomplete gamma function Q(a, x) = Γ(a, x)/Γ(a)."""
    if a <= 0:
        raise ValueError("gamma_q: a must be > 0")
    if x <= 0:
        return 1.0
    log_front = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:
        # P(a, x) by its series
        term = total = 1.0 / a
        ap = a
        for _ in range(_MAX_ITER):
            ap += 1
            term *= x / ap
            total += term
            if abs(term) < abs(total) * _EPS:
                break
        return max(0.0, 1.0 - total * math.exp(log_front))
    # Q(a, x) by its continued fraction (modified Lentz)
    b = x + 1 - a
    c = 1 / _TINY
    d = 1 / b
    h = d
    for i in range(1, _MAX_ITER):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = _TINY if abs(d) < _TINY else d
        c = b + an / c
        c = _TINY if abs(c) < _TINY else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < _EPS:
            break
    return min(1.0, math.exp(log_front) * h)


def chi2_sf(x: float, dof: int) -> float:
    """P(X ≥ x) for a chi-square variable with ``dof`` degrees of freedom."""
    return gamma_q(dof / 2, x / 2)


def normal_sf(z: float) -> float:
    """P(Z ≥ z) for a standard normal variable."""
    return 0.5 * math.erfc(z / math.sqrt(2))


@dataclass(frozen=True)
class ChiSquare:
    """Pearson's chi-square test of face counts against a fair die."""

    statistic: float
    dof: int
    p: float

    def record(self) -> dict[str, object]:
        return {"statistic": self.statistic, "dof": self.dof, "p": self.p, "in_words": in_words(self.p)}


@dataclass(frozen=True)
class Runs:
    """The Wald–Wolfowitz runs test: dice above and below the die's median
    ((sides + 1) / 2; a die showing the median itself is left out), the
    number of runs against its mean under independence, the normal
    approximation's z and two-sided p."""

    above: int
    below: int
    runs: int
    expected: float
    z: float
    p: float

    def record(self) -> dict[str, object]:
        return {"above": self.above, "below": self.below, "runs": self.runs, "expected": self.expected,
                "z": self.z, "p": self.p, "in_words": in_words(self.p)}


def chi_square_fair(counts: Sequence[int]) -> ChiSquare:
    """The counts of faces 1..k (every face listed, zeros included) against
    the uniform distribution."""
    k = len(counts)
    n = sum(counts)
    if k < 2 or n == 0:
        raise ValueError("chi_square_fair: needs at least two faces and one roll")
    expected = n / k
    statistic = sum((c - expected) ** 2 for c in counts) / expected
    return ChiSquare(statistic, k - 1, chi2_sf(statistic, k - 1))


def runs_test(values: Sequence[int], sides: int) -> Runs | None:
    """The runs test on a sequence of die faces (None when all of them fall
    on one side of the median, or on it)."""
    median = (sides + 1) / 2
    signs = [v > median for v in values if v != median]
    n1 = sum(signs)
    n2 = len(signs) - n1
    if n1 == 0 or n2 == 0:
        return None
    runs = 1 + sum(1 for a, b in zip(signs[:-1], signs[1:], strict=True) if a != b)
    n = n1 + n2
    mean = 2 * n1 * n2 / n + 1
    variance = 2 * n1 * n2 * (2 * n1 * n2 - n) / (n * n * (n - 1)) if n > 1 else 0.0
    if variance <= 0:
        return None
    z = (runs - mean) / math.sqrt(variance)
    return Runs(n1, n2, runs, mean, z, min(1.0, 2 * normal_sf(abs(z))))


def in_words(p: float) -> str:
    """A p-value as a player reads it: "as likely as 1 game in 40"."""
    if p >= 0.5:
        return "an ordinary result (more likely than 1 game in 2)"
    if p < 1e-12:
        return "less likely than 1 game in a trillion"
    n = 1 / p
    digits = max(0, int(math.floor(math.log10(n))) - 1)
    rounded = int(round(n / 10 ** digits) * 10 ** digits)
    return f"as likely as 1 game in {rounded:,}"
