"""The SVG helpers of the HTML report: bins, quartiles, ticks, and the charts' structure."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from rtoslab.records import Unit
from rtoslab.report.svg import (
    Bin,
    BoxRow,
    BoxStats,
    RatioBar,
    box_stats,
    boxplot_svg,
    histogram_bins,
    histogram_svg,
    nice_step,
    nice_ticks,
    ratio_bars_svg,
)

SVG = "{http://www.w3.org/2000/svg}"


def _parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def _bars(svg: str, cls: str = "bar") -> list[ET.Element]:
    return [e for e in _parse(svg).iter(f"{SVG}rect") if cls in (e.get("class") or "").split()]


@pytest.mark.parametrize(
    ("raw", "step"),
    [(1, 1), (0.3, 0.5), (2, 2), (2.5, 5), (7, 10), (11, 20), (0.011, 0.02), (450, 500)],
)
def test_nice_step(raw: float, step: float) -> None:
    assert nice_step(raw) == pytest.approx(step)


def test_nice_step_rejects_non_positive() -> None:
    with pytest.raises(ValueError):
        nice_step(0)


def test_nice_ticks() -> None:
    assert nice_ticks(0, 10, 6) == [0, 2, 4, 6, 8, 10]
    assert nice_ticks(0.95, 1.05, 6) == pytest.approx([0.96, 0.98, 1.0, 1.02, 1.04])
    assert nice_ticks(5, 5) == [5]
    assert nice_ticks(10, 0, 3) == [0, 5, 10]


def test_bins_one_per_integer_when_the_range_is_small() -> None:
    assert histogram_bins([3, 1, 2, 2, 3, 3]) == (Bin(1, 2, 1), Bin(2, 3, 2), Bin(3, 4, 3))


def test_bins_keep_empty_bins_between_values() -> None:
    assert histogram_bins([10, 13]) == (Bin(10, 11, 1), Bin(11, 12, 0), Bin(12, 13, 0), Bin(13, 14, 1))


def test_bins_wide_integer_range_gets_a_nice_aligned_width() -> None:
    bins = histogram_bins(list(range(100)), max_bins=10)
    assert [(b.lo, b.hi) for b in bins] == [(k * 10, k * 10 + 10) for k in range(10)]
    assert all(b.count == 10 for b in bins)
    # 101 values over at most 40 bins: width 101/40 -> 5, edges at multiples of 5.
    bins = histogram_bins(list(range(3, 104)), max_bins=40)
    assert bins[0] == Bin(0, 5, 2) and bins[-1] == Bin(100, 105, 4)
    assert len(bins) == 21 and sum(b.count for b in bins) == 101


def test_bins_all_identical() -> None:
    assert histogram_bins([301] * 7) == (Bin(301, 302, 7),)
    assert histogram_bins([2.5, 2.5]) == (Bin(2.5, 2.5, 2),)


def test_bins_non_integer_data() -> None:
    # span 1.5 over 3 bins: width 0.5 from 0.5; the maximum falls in the last bin.
    assert histogram_bins([0.5, 1.0, 1.5, 2.0], max_bins=3) == (
        Bin(0.5, 1.0, 1), Bin(1.0, 1.5, 1), Bin(1.5, 2.0, 2))


def test_bins_empty_and_invalid() -> None:
    assert histogram_bins([]) == ()
    with pytest.raises(ValueError):
        histogram_bins([1], max_bins=0)


def test_box_stats_odd_and_even() -> None:
    assert box_stats([5, 1, 4, 2, 3]) == BoxStats(5, 1, 2, 3, 4, 5)
    # rank 0.75 -> 1.75, rank 1.5 -> 2.5, rank 2.25 -> 3.25 (linear, as numpy's default)
    assert box_stats([4, 3, 2, 1]) == BoxStats(4, 1, 1.75, 2.5, 3.25, 4)
    assert box_stats([7]) == BoxStats(1, 7, 7, 7, 7, 7)
    with pytest.raises(ValueError):
        box_stats([])


def test_histogram_svg_draws_one_bar_per_non_empty_bin() -> None:
    values = [200, 200, 201, 205, 205, 205]
    svg = histogram_svg(values, title="freertos <O2>", unit=Unit.INSN, marker=201.0)
    root = _parse(svg)
    assert root.get("class") == "hist"
    bars = _bars(svg)
    assert len(bars) == 3
    titles = [b.find(f"{SVG}title").text for b in bars]  # type: ignore[union-attr]
    assert titles == ["200 insn: 2 samples", "201 insn: 1 sample", "205 insn: 3 samples"]
    assert "freertos &lt;O2&gt;" in svg
    assert "median 201" in svg
    # Bar heights are proportional to counts (the tallest fills the plot).
    heights = [float(b.get("height") or 0) for b in bars]
    assert heights[2] == pytest.approx(3 * heights[1], abs=0.2)


def test_histogram_svg_identical_samples_is_one_labelled_bar() -> None:
    svg = histogram_svg([301] * 5, title="loop", unit=Unit.INSN, marker=301)
    assert len(_bars(svg)) == 1
    assert "all 5 samples" in svg and "= 301 insn" in svg


def test_histogram_svg_without_samples() -> None:
    svg = histogram_svg([], title="x", unit=Unit.CYCLE)
    assert not _bars(svg) and "no samples" in svg


def test_boxplot_svg_rows_and_positions() -> None:
    rows = [
        BoxRow("a", BoxStats(5, 0, 25, 50, 75, 100)),
        BoxRow("b", None, note="n/a: no threads"),
        BoxRow("c", BoxStats(3, 10, 10, 20, 20, 30), quartiles=False),
    ]
    svg = boxplot_svg(rows, title="m", unit=Unit.INSN)
    root = _parse(svg)
    groups = [g for g in root.iter(f"{SVG}g") if "boxrow" in (g.get("class") or "")]
    assert len(groups) == 3 and groups[1].get("class") == "boxrow empty"
    assert len(_bars(svg, "iqr")) == 1  # row c has no quartiles
    assert "n/a: no threads" in svg
    (iqr,) = _bars(svg, "iqr")
    medians = [e for e in root.iter(f"{SVG}line") if e.get("class") == "median"]
    # The median line of row a sits in the middle of its box.
    x0, w = float(iqr.get("x") or 0), float(iqr.get("width") or 0)
    assert float(medians[0].get("x1") or 0) == pytest.approx(x0 + w / 2, abs=0.2)


def test_ratio_bars_svg() -> None:
    bars = [RatioBar("x / m1", 1.25), RatioBar("x / m2", 0.8), RatioBar("y / m", None, "n/a in base")]
    svg = ratio_bars_svg(bars, title="a / base")
    rects = _bars(svg, "ratiobar")
    assert [r.get("class") for r in rects] == ["ratiobar above", "ratiobar below"]
    assert "1.250×" in svg and "0.800×" in svg and "n/a in base" in svg
    # Bars start at the dashed line at 1: the above bar's left edge is the below bar's right edge.
    above, below = rects
    assert float(above.get("x") or 0) == pytest.approx(
        float(below.get("x") or 0) + float(below.get("width") or 0), abs=0.2)


def test_coordinates_are_short_and_deterministic() -> None:
    svg = histogram_svg([1, 2, 3, 3, 10, 40], title="t", unit=Unit.CYCLE, marker=3)
    assert svg == histogram_svg([1, 2, 3, 3, 10, 40], title="t", unit=Unit.CYCLE, marker=3)
    numbers = re.findall(r' (?:x|y|width|height|x1|x2|y1|y2)="([^"]+)"', svg)
    assert numbers and all(re.fullmatch(r"-?\d+(\.\d)?", n) for n in numbers)


def test_long_labels_are_cut_with_the_whole_text_as_tooltip() -> None:
    label = "freertos -O2 lto configTICK_RATE_HZ=1000 configUSE_PREEMPTION=1 run 12"
    svg = boxplot_svg([BoxRow(label, BoxStats(1, 1, 1, 1, 1, 1)), BoxRow("b", BoxStats(1, 2, 2, 2, 2, 2))],
                      title="m", unit=Unit.INSN)
    _parse(svg)
    assert f"<title>{label}</title>" in svg
    shown = re.search(r'class="rlabel" text-anchor="end"><title>[^<]*</title>([^<]*)</text>', svg)
    assert shown is not None and shown.group(1).endswith("…") and len(shown.group(1)) < len(label)


def test_histogram_of_a_wide_range_stays_within_max_bins() -> None:
    values = [1_000_000 + (k * 7919) % 250_000 for k in range(500)] + [5_000_000]
    svg = histogram_svg(values, title="outlier", unit=Unit.CYCLE, max_bins=40)
    _parse(svg)
    bins = histogram_bins(values, max_bins=40)
    assert len(bins) <= 41 and sum(b.count for b in bins) == len(values)
    assert len(_bars(svg)) == sum(1 for b in bins if b.count)


# ---------------------------------------------------------------- issue 28: chart fixes


def _y_ticks(svg: str) -> list[str]:
    return re.findall(r'<text x="[\d.]+" y="[\d.]+" class="tick" text-anchor="end">([^<]*)</text>', svg)


def test_line_chart_axis_top_is_at_or_above_the_maximum() -> None:
    from rtoslab.report.svg import Series, axis_ticks, line_chart_svg

    assert axis_ticks(0, 168_664)[-1] >= 168_664 and axis_ticks(0, 168_664)[0] == 0
    svg = line_chart_svg([Series("rtos", ((1, 40_000.0), (5, 168_664.0)))], title="t", x_label="N",
                         y_label="cycle")
    box = re.search(r'data-plot="([\d.]+) ([\d.]+) ([\d.]+) ([\d.]+)"', svg)
    assert box is not None
    top = float(box.group(2))
    for cy in re.findall(r'<circle cx="[\d.]+" cy="([\d.]+)"', svg):
        assert float(cy) >= top  # no point above the plot (across the title)


def test_large_tick_labels_are_short_and_the_margin_fits_them() -> None:
    from rtoslab.report.svg import Series, fmt_tick, line_chart_svg

    assert fmt_tick(150_000_000) == "150M" and fmt_tick(2_500) == "2500" and fmt_tick(25_000) == "25k"
    svg = line_chart_svg([Series("a", ((1, 1.0e8), (2, 1.5e8)))], title="t", x_label="N", y_label="cycle")
    labels = _y_ticks(svg)
    assert "150M" in labels and all(len(label) <= 5 for label in labels)


def test_sizes_and_wide_ranges_get_log_axes() -> None:
    from rtoslab.report.svg import Series, line_chart_svg, log_ticks, wide_range

    assert wide_range([8, 1024]) and not wide_range([10, 900]) and not wide_range([0, 1000])
    assert log_ticks(8, 1024) == [1, 10, 100, 1000, 10000]
    assert log_ticks(20, 900) == [10, 20, 50, 100, 200, 500, 1000]
    assert log_ticks(8, 1024)[0] <= 8 and log_ticks(8, 1024)[-1] >= 1024
    points = tuple((float(s), float(s) * 3) for s in (8, 16, 64, 256, 1024))
    svg = line_chart_svg([Series("malloc", points)], title="t", x_label="size (B)", y_label="cycle")
    assert "x log scale" in svg and "y log scale" in svg
    xs = [float(x) for x in re.findall(r'<circle cx="([\d.]+)"', svg)]
    # on a log axis the doublings are evenly spaced: 8->16 is half of 16->64
    assert abs((xs[2] - xs[1]) - 2 * (xs[1] - xs[0])) < 0.5
