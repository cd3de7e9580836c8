"""Distribution statistics of one metric in one unit.

Sums and interpolations are computed exactly (with fractions) and rounded once, so
results do not depend on the order of the samples and hand-computed values match
exactly.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction

from rtoslab.records import RtoslabError, Summary

DEFAULT_MIN_N = 30


def summarize(values: Sequence[float | int], min_n: int = DEFAULT_MIN_N) -> Summary:
    """Summary statistics of ``values``; see :class:`rtoslab.records.Summary`.

    Fewer than ``min_n`` values add a warning to ``Summary.warnings``. Empty input and
    NaN or infinite values are errors.
    """
    if not values:
        raise RtoslabError("no samples to summarize: the metric measured nothing")
    for index, value in enumerate(values):
        if not math.isfinite(value):
            raise RtoslabError(f"sample {index} is {value}: samples must be finite numbers")
    ordered = sorted(values)
    n = len(ordered)
    mean, variance = _moments(ordered)
    warnings: tuple[str, ...] = ()
    if n < min_n:
        warnings = (f"only {n} samples; statistics below {min_n} samples are unreliable",)
    return Summary(
        n=n,
        min=float(ordered[0]),
        max=float(ordered[-1]),
        mean=float(mean),
        median=float(_percentile(ordered, 50)),
        mode=float(_mode(ordered)),
        stdev=math.sqrt(variance),
        p90=float(_percentile(ordered, 90)),
        p99=float(_percentile(ordered, 99)),
        warnings=warnings,
    )


def percentile(values: Sequence[float | int], q: float) -> float:
    """The ``q``-th percentile (0..100) by linear interpolation between closest ranks.

    Same definition as numpy's default ("linear"): rank ``q/100 * (n-1)`` in the sorted
    values, interpolated between its two neighbours.
    """
    if not values:
        raise RtoslabError("no samples to take a percentile of")
    return float(_percentile(sorted(values), q))


def _percentile(ordered: Sequence[float | int], q: float) -> Fraction:
    if not 0 <= q <= 100:
        raise ValueError(f"percentile {q} is outside 0..100")
    rank = Fraction(q) / 100 * (len(ordered) - 1)
    low = math.floor(rank)
    below = Fraction(ordered[low])
    weight = rank - low
    if weight == 0:
        return below
    return below + (Fraction(ordered[low + 1]) - below) * weight


def _mode(ordered: Sequence[float | int]) -> float | int:
    """Most frequent value; ties go to the smallest."""
    counts = Counter(ordered)
    best = max(counts.values())
    return min(value for value, count in counts.items() if count == best)


def _moments(values: Sequence[float | int]) -> tuple[Fraction, Fraction]:
    """Exact mean and sample variance (n - 1; 0 for one value).

    Every finite float is an integer over a power of two, so all values scale to integers
    by one common power-of-two denominator and the sums are plain integer arithmetic.
    """
    ratios = [value.as_integer_ratio() for value in values]
    denominator = max(den for _, den in ratios)
    scaled = [num * (denominator // den) for num, den in ratios]
    n = len(scaled)
    total = sum(scaled)
    mean = Fraction(total, n * denominator)
    if n == 1:
        return mean, Fraction(0)
    squares = sum(value * value for value in scaled)
    variance = Fraction(n * squares - total * total, n * (n - 1) * denominator * denominator)
    return mean, variance
