"""Summary statistics on small data sets with hand-computed answers."""

from __future__ import annotations

import math

import pytest

from rtoslab.analysis.stats import percentile, summarize
from rtoslab.records import RtoslabError, Summary


def test_one_to_four() -> None:
    summary = summarize([4, 2, 1, 3], min_n=1)
    assert summary == Summary(
        n=4,
        min=1.0,
        max=4.0,
        mean=2.5,
        median=2.5,
        mode=1.0,  # every value once: the smallest wins
        stdev=math.sqrt(5 / 3),  # squared deviations 2.25+0.25+0.25+2.25 = 5, over n-1 = 3
        p90=3.7,  # rank 0.9*3 = 2.7: 3 + 0.7*(4-3)
        p99=3.97,  # rank 0.99*3 = 2.97: 3 + 0.97*(4-3)
        warnings=(),
    )


def test_textbook_set() -> None:
    summary = summarize([2, 4, 4, 4, 5, 5, 7, 9], min_n=1)
    assert summary.n == 8
    assert summary.mean == 5.0
    assert summary.median == 4.5
    assert summary.mode == 4.0
    assert summary.stdev == math.sqrt(32 / 7)  # squared deviations sum to 32
    assert summary.p90 == 7.6  # rank 6.3: 7 + 0.3*(9-7)
    assert summary.p99 == 8.86  # rank 6.93: 7 + 0.93*(9-7)
    assert (summary.min, summary.max) == (2.0, 9.0)


def test_mode_tie_goes_to_smallest() -> None:
    assert summarize([9, 5, 5, 3, 3, 7], min_n=1).mode == 3.0
    assert summarize([9, 9, 1, 5, 5], min_n=1).mode == 5.0


def test_mode_most_frequent_not_smallest() -> None:
    assert summarize([1, 8, 8, 2], min_n=1).mode == 8.0


def test_single_value() -> None:
    summary = summarize([42])
    assert summary == Summary(
        n=1,
        min=42.0,
        max=42.0,
        mean=42.0,
        median=42.0,
        mode=42.0,
        stdev=0.0,
        p90=42.0,
        p99=42.0,
        warnings=("only 1 samples; statistics below 30 samples are unreliable",),
    )


def test_constant_values_have_zero_spread() -> None:
    summary = summarize([0] * 16, min_n=1)
    assert (summary.min, summary.max, summary.mean, summary.stdev) == (0.0, 0.0, 0.0, 0.0)
    assert (summary.median, summary.mode, summary.p90, summary.p99) == (0.0, 0.0, 0.0, 0.0)


def test_odd_count_median_is_middle_value() -> None:
    assert summarize([10, 1, 7], min_n=1).median == 7.0


def test_warning_below_min_n() -> None:
    assert summarize(list(range(29))).warnings == (
        "only 29 samples; statistics below 30 samples are unreliable",
    )
    assert summarize(list(range(30))).warnings == ()
    assert summarize([1, 2], min_n=3).warnings == (
        "only 2 samples; statistics below 3 samples are unreliable",
    )


def test_hundred_values_percentiles() -> None:
    summary = summarize(list(range(1, 101)))
    assert summary.median == 50.5
    assert summary.p90 == 90.1  # rank 89.1: 90 + 0.1
    assert summary.p99 == 99.01  # rank 98.01: 99 + 0.01
    assert summary.mean == 50.5
    assert summary.warnings == ()


def test_floats_are_summed_exactly() -> None:
    # naive left-to-right float summation gives 0.20000000000000004
    assert summarize([0.1, 0.2, 0.3], min_n=1).mean == 0.2


def test_order_does_not_matter() -> None:
    values = [0.1, 1e16, -1e16, 3.0, 0.7]
    assert summarize(values, min_n=1) == summarize(list(reversed(values)), min_n=1)


def test_percentile_endpoints() -> None:
    values = [5, 1, 3]
    assert percentile(values, 0) == 1.0
    assert percentile(values, 100) == 5.0
    assert percentile(values, 25) == 2.0
    with pytest.raises(ValueError, match=r"^percentile 101 is outside 0\.\.100$"):
        percentile(values, 101)


def test_empty_input() -> None:
    with pytest.raises(RtoslabError, match=r"^no samples to summarize"):
        summarize([])
    with pytest.raises(RtoslabError, match=r"^no samples to take a percentile of"):
        percentile([], 50)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_input(bad: float) -> None:
    with pytest.raises(RtoslabError, match=rf"^sample 1 is {bad}: samples must be finite"):
        summarize([1.0, bad, 2.0])
