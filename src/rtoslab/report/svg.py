"""Inline SVG charts for the HTML report, written by hand: histograms, box plots, ratio bars.

Pure functions of numbers and labels; every text that reaches the output is escaped
here. Coordinates are written with at most one decimal, so the output is deterministic.
Each chart is one ``<svg>`` element, one child element per line (so reports diff line by
line), with a class (``hist``, ``box``, ``ratio``) and a
``viewBox``, so the page can scale it down; every bar and box carries a ``<title>`` with
its numbers (a tooltip, no script needed).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape

from rtoslab.analysis.stats import percentile
from rtoslab.records import Unit
from rtoslab.report.numbers import fmt_num

# ---------------------------------------------------------------- numbers


@dataclass(frozen=True)
class Bin:
    """One histogram bin: values ``lo <= v < hi`` (the last bin of non-integer data also
    holds ``v == hi``). For integer data ``lo`` and ``hi`` are integers and the bin holds
    the integers ``lo .. hi - 1``."""

    lo: float
    hi: float
    count: int


@dataclass(frozen=True)
class BoxStats:
    """Five-number summary; quartiles by linear interpolation (as ``Summary`` percentiles)."""

    n: int
    min: float
    p25: float
    median: float
    p75: float
    max: float


def nice_step(raw: float) -> float:
    """The smallest of 1, 2, 5 x 10^k that is >= ``raw`` (``raw`` > 0)."""
    if raw <= 0 or not math.isfinite(raw):
        raise ValueError(f"step {raw} must be a positive finite number")
    exp = math.floor(math.log10(raw))
    for mult in (1, 2, 5, 10):
        step = mult * 10.0**exp
        if step >= raw * (1 - 1e-12):
            return step
    return 10.0 ** (exp + 1)  # pragma: no cover - the loop always returns


def _is_integral(values: Sequence[float]) -> bool:
    return all(float(v).is_integer() for v in values)


def histogram_bins(values: Sequence[float], max_bins: int = 40) -> tuple[Bin, ...]:
    """Equal-width bins covering ``values``, at most about ``max_bins`` of them.

    Integer data (the usual case: instruction and cycle counts) gets integer bins: one
    per value when the range is small, else a width of 1, 2 or 5 x 10^k aligned to a
    multiple of it. All values equal: one bin. No values: no bins.
    """
    if max_bins < 1:
        raise ValueError("max_bins must be at least 1")
    if not values:
        return ()
    lo, hi = min(values), max(values)
    if _is_integral(values):
        ilo, ihi = int(lo), int(hi)
        span = ihi - ilo + 1
        width = 1 if span <= max_bins else int(nice_step(span / max_bins))
        start = ilo if width == 1 else (ilo // width) * width
        nbins = (ihi - start) // width + 1
        counts = [0] * nbins
        for v in values:
            counts[(int(v) - start) // width] += 1
        return tuple(Bin(start + k * width, start + (k + 1) * width, c) for k, c in enumerate(counts))
    if lo == hi:
        return (Bin(lo, hi, len(values)),)
    fwidth = nice_step((hi - lo) / max_bins)
    fstart = math.floor(lo / fwidth) * fwidth
    nbins = max(1, math.ceil((hi - fstart) / fwidth - 1e-9))
    counts = [0] * nbins
    for v in values:
        counts[min(nbins - 1, int((v - fstart) // fwidth))] += 1
    return tuple(Bin(fstart + k * fwidth, fstart + (k + 1) * fwidth, c) for k, c in enumerate(counts))


def box_stats(values: Sequence[float]) -> BoxStats:
    """Min, quartiles, median and max of ``values`` (not empty)."""
    if not values:
        raise ValueError("no values for a box plot")
    ordered = sorted(values)
    return BoxStats(
        n=len(ordered),
        min=float(ordered[0]),
        p25=percentile(ordered, 25),
        median=percentile(ordered, 50),
        p75=percentile(ordered, 75),
        max=float(ordered[-1]),
    )


def _smaller_step(step: float) -> float:
    """The next smaller 1, 2, 5 x 10^k step."""
    exp = math.floor(math.log10(step) + 1e-9)
    mant = round(step / 10.0**exp)
    return {1: 0.5, 2: 1.0, 5: 2.0}.get(mant, 1.0) * 10.0**exp


def _ticks_for(lo: float, hi: float, step: float) -> list[float]:
    first = math.ceil(lo / step - 1e-9)
    last = math.floor(hi / step + 1e-9)
    return [round(k * step, 10) for k in range(first, last + 1)]


def nice_ticks(lo: float, hi: float, max_ticks: int = 6) -> list[float]:
    """Round tick values inside ``[lo, hi]``: at most ``max_ticks``, and at least three when
    that many fit (at least one always)."""
    if hi < lo:
        lo, hi = hi, lo
    if hi == lo:
        return [lo]
    max_ticks = max(2, max_ticks)
    step = nice_step((hi - lo) / (max_ticks - 1))
    ticks = _ticks_for(lo, hi, step)
    while len(ticks) < min(3, max_ticks):
        step = _smaller_step(step)
        finer = _ticks_for(lo, hi, step)
        if len(finer) > max_ticks:
            break
        ticks = finer
    return ticks or [lo]


# ---------------------------------------------------------------- drawing helpers

# Rough width of one character per text class (11-12 px sans-serif), to cut long labels.
_CHAR_PX = {"ctitle": 7.2, "rlabel": 6.4, "note": 6.0}


def _f(x: float) -> str:
    """A coordinate: one decimal at most, no trailing zeros, never ``-0``."""
    text = f"{x:.1f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _text(x: float, y: float, text: str, cls: str = "", anchor: str = "start",
          max_px: float | None = None) -> str:
    """A text element; longer than ``max_px`` (estimated) it is cut with an ellipsis and the
    whole text becomes its tooltip."""
    klass = f' class="{cls}"' if cls else ""
    anchor_attr = f' text-anchor="{anchor}"' if anchor != "start" else ""
    shown, tip = text, ""
    if max_px is not None:
        fit = max(4, int(max_px / _CHAR_PX.get(cls, 6.2)))
        if len(text) > fit:
            shown, tip = text[: fit - 1].rstrip() + "…", f"<title>{escape(text)}</title>"
    return f'<text x="{_f(x)}" y="{_f(y)}"{klass}{anchor_attr}>{tip}{escape(shown)}</text>'


def _line(x1: float, y1: float, x2: float, y2: float, cls: str) -> str:
    return f'<line class="{cls}" x1="{_f(x1)}" y1="{_f(y1)}" x2="{_f(x2)}" y2="{_f(y2)}"/>'


def _rect(x: float, y: float, w: float, h: float, cls: str, title: str) -> str:
    return (
        f'<rect class="{cls}" x="{_f(x)}" y="{_f(y)}" width="{_f(max(w, 0.0))}" '
        f'height="{_f(max(h, 0.0))}"><title>{escape(title)}</title></rect>'
    )


def _svg(cls: str, width: int, height: int, label: str, body: list[str]) -> str:
    return (
        f'<svg class="{cls}" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="{escape(label)}">'
        f"<title>{escape(label)}</title>\n" + "".join(f"{e}\n" for e in body) + "</svg>"
    )


def _tick_budget(plot_width: float, labels: Sequence[str]) -> int:
    """How many x tick labels fit: about 6.5 px per character plus a gap."""
    longest = max((len(s) for s in labels), default=4)
    return max(2, int(plot_width // (longest * 6.5 + 14)))


def _x_ticks(lo: float, hi: float, plot_width: float, integral: bool) -> list[float]:
    probe = [fmt_num(round(lo)), fmt_num(round(hi))] if integral else [fmt_num(lo), fmt_num(hi)]
    ticks = nice_ticks(lo, hi, _tick_budget(plot_width, probe))
    if integral:
        ticks = [t for t in ticks if float(t).is_integer()] or [float(round(lo))]
    return ticks


def _count_word(n: int) -> str:
    return f"{n} sample" if n == 1 else f"{n} samples"


# ---------------------------------------------------------------- histogram

HIST_WIDTH = 340
HIST_HEIGHT = 200


def histogram_svg(values: Sequence[float], *, title: str, unit: Unit, max_bins: int = 40,
                  marker: float | None = None) -> str:
    """A histogram of ``values`` (class ``hist``), one ``rect.bar`` per non-empty bin.

    ``marker``: an x value to draw as a dashed line (the median). All values equal:
    one bar in the middle, labelled with the value and the count.
    """
    w, h = HIST_WIDTH, HIST_HEIGHT
    left, right, top, bottom = 42.0, 12.0, 38.0, 38.0
    pw, ph = w - left - right, h - top - bottom
    body = [_text(8, 15, title, "ctitle", max_px=w - 16)]
    bins = histogram_bins(values, max_bins)
    label = f"histogram of {title} ({unit}), {_count_word(len(values))}"
    if not bins:
        body.append(_text(w / 2, top + ph / 2, "no samples", "note", "middle"))
        return _svg("hist", w, h, label, body)
    integral = _is_integral(values)
    ymax = max(b.count for b in bins)
    base_y = top + ph

    def y_of(count: float) -> float:
        return base_y - ph * count / ymax

    for t in nice_ticks(0, ymax, 5):
        if not float(t).is_integer():
            continue
        body.append(_line(left, y_of(t), left + pw, y_of(t), "grid"))
        body.append(_text(left - 5, y_of(t) + 3.5, fmt_num(t), "tick", "end"))
    if min(values) == max(values):
        value = float(values[0])
        bar_w = 36.0
        cx = left + pw / 2
        body.append(_rect(cx - bar_w / 2, y_of(ymax), bar_w, ph, "bar",
                          f"{fmt_num(value)} {unit}: {_count_word(bins[0].count)}"))
        body.append(_text(cx + bar_w / 2 + 6, top + 12, f"all {_count_word(bins[0].count)}", "note"))
        body.append(_text(cx + bar_w / 2 + 6, top + 26, f"= {fmt_num(value)} {unit}", "note"))
        body.append(_line(left, base_y, left + pw, base_y, "axis"))
        body.append(_text(cx, base_y + 14, fmt_num(value), "tick", "middle"))
        body.append(_text(left + pw / 2, h - 6, f"{unit} (count on the y axis)", "alabel", "middle"))
        return _svg("hist", w, h, label, body)
    offset = 0.5 if integral else 0.0
    x_lo, x_hi = bins[0].lo - offset, bins[-1].hi - offset

    def x_of(v: float) -> float:
        return left + pw * (v - x_lo) / (x_hi - x_lo)

    for b in bins:
        if b.count == 0:
            continue
        if integral:
            span = fmt_num(b.lo) if b.hi - b.lo == 1 else f"{fmt_num(b.lo)}..{fmt_num(b.hi - 1)}"
        else:
            span = f"{fmt_num(b.lo)}..{fmt_num(b.hi)}"
        x0, x1 = x_of(b.lo - offset), x_of(b.hi - offset)
        gap = 1.0 if x1 - x0 > 3 else 0.0
        bar_h = max(2.0, base_y - y_of(b.count))  # a lone outlier stays visible
        body.append(_rect(x0 + gap / 2, base_y - bar_h, x1 - x0 - gap, bar_h, "bar",
                          f"{span} {unit}: {_count_word(b.count)}"))
    if marker is not None and x_lo <= marker <= x_hi:
        mx = x_of(marker)
        body.append(_line(mx, top - 8, mx, base_y, "marker"))
        anchor = "end" if mx > left + pw * 0.7 else "start" if mx < left + pw * 0.3 else "middle"
        body.append(_text(mx, top - 11, f"median {fmt_num(marker)}", "mlabel", anchor))
    body.append(_line(left, base_y, left + pw, base_y, "axis"))
    for t in _x_ticks(x_lo, x_hi, pw, integral):
        body.append(_line(x_of(t), base_y, x_of(t), base_y + 4, "axis"))
        body.append(_text(x_of(t), base_y + 15, fmt_num(t), "tick", "middle"))
    body.append(_text(left + pw / 2, h - 6, f"{unit} (count on the y axis)", "alabel", "middle"))
    return _svg("hist", w, h, label, body)


# ---------------------------------------------------------------- box plots

BOX_WIDTH = 900
_BOX_LABEL_W = 230.0
_BOX_VALUE_W = 170.0
_BOX_ROW_H = 30.0


@dataclass(frozen=True)
class BoxRow:
    """One box of a box plot. ``stats`` None: nothing measured (``note`` says why).
    ``quartiles`` False: p25/p75 unknown (drawn as whiskers and median only)."""

    label: str
    stats: BoxStats | None
    quartiles: bool = True
    note: str = ""


def boxplot_svg(rows: Sequence[BoxRow], *, title: str, unit: Unit) -> str:
    """Horizontal box plots on one shared axis (class ``box``), one ``g.boxrow`` per row.

    Whiskers reach the minimum and the maximum; the box spans p25..p75; the thick line
    is the median.
    """
    w = BOX_WIDTH
    top, bottom = 26.0, 36.0
    left, right = _BOX_LABEL_W, _BOX_VALUE_W
    pw = w - left - right
    h = int(top + bottom + _BOX_ROW_H * max(1, len(rows)))
    body = [_text(8, 15, title, "ctitle", max_px=w - 16)]
    drawn = [r.stats for r in rows if r.stats is not None]
    label = f"box plots of {title} ({unit}) across {len(rows)} configurations"
    if not drawn:
        body.append(_text(w / 2, top + 16, "no samples", "note", "middle"))
        return _svg("box", w, h, label, body)
    lo = min(s.min for s in drawn)
    hi = max(s.max for s in drawn)
    pad = (hi - lo) * 0.04 if hi > lo else max(1.0, abs(lo) * 0.05)
    x_lo, x_hi = lo - pad, hi + pad
    if lo >= 0 > x_lo:
        x_lo = 0.0  # no negative axis for counts

    def x_of(v: float) -> float:
        return left + pw * (v - x_lo) / (x_hi - x_lo)

    base_y = top + _BOX_ROW_H * len(rows)
    ticks = nice_ticks(x_lo, x_hi, _tick_budget(pw, [fmt_num(x_lo), fmt_num(x_hi)]))
    for t in ticks:
        body.append(_line(x_of(t), top, x_of(t), base_y, "grid"))
        body.append(_text(x_of(t), base_y + 15, fmt_num(t), "tick", "middle"))
    body.append(_line(left, base_y, left + pw, base_y, "axis"))
    for i, row in enumerate(rows):
        cy = top + _BOX_ROW_H * i + _BOX_ROW_H / 2
        parts = [_text(left - 8, cy + 4, row.label, "rlabel", "end", max_px=left - 16)]
        s = row.stats
        if s is None:
            parts.append(_text(left + 4, cy + 4, row.note or "no samples", "note", max_px=pw + right - 12))
            body.append('<g class="boxrow empty">\n' + "\n".join(parts) + "\n</g>")
            continue
        tip = (f"{row.label}: n={s.n} min {fmt_num(s.min)}, p25 {fmt_num(s.p25)}, median "
               f"{fmt_num(s.median)}, p75 {fmt_num(s.p75)}, max {fmt_num(s.max)} {unit}")
        if not row.quartiles:
            tip = (f"{row.label}: n={s.n} min {fmt_num(s.min)}, median {fmt_num(s.median)}, "
                   f"max {fmt_num(s.max)} {unit} (quartiles need raw samples)")
        parts.append(f"<title>{escape(tip)}</title>")
        parts.append(_line(x_of(s.min), cy, x_of(s.max), cy, "whisker"))
        parts.append(_line(x_of(s.min), cy - 6, x_of(s.min), cy + 6, "whisker"))
        parts.append(_line(x_of(s.max), cy - 6, x_of(s.max), cy + 6, "whisker"))
        if row.quartiles:
            bx0, bx1 = x_of(s.p25), x_of(s.p75)
            if bx1 - bx0 < 2:
                bx0, bx1 = (bx0 + bx1) / 2 - 1, (bx0 + bx1) / 2 + 1
            parts.append(f'<rect class="iqr" x="{_f(bx0)}" y="{_f(cy - 9)}" width="{_f(bx1 - bx0)}" '
                         f'height="18"/>')
        parts.append(_line(x_of(s.median), cy - 10, x_of(s.median), cy + 10, "median"))
        parts.append(_text(left + pw + 10, cy + 4, f"median {fmt_num(s.median)}  (n={s.n})", "rvalue"))
        body.append('<g class="boxrow">\n' + "\n".join(parts) + "\n</g>")
    body.append(_text(left + pw / 2, h - 6, unit, "alabel", "middle"))
    return _svg("box", w, h, label, body)


# ---------------------------------------------------------------- ratio bars

RATIO_WIDTH = 900
_RATIO_LABEL_W = 260.0
_RATIO_VALUE_W = 200.0
_RATIO_ROW_H = 24.0


@dataclass(frozen=True)
class RatioBar:
    """One bar: ``ratio`` None means no ratio (``note`` says why)."""

    label: str
    ratio: float | None
    note: str = ""


def fmt_ratio(value: float) -> str:
    return f"{value:.3f}×"


def ratio_bars_svg(bars: Sequence[RatioBar], *, title: str) -> str:
    """Horizontal bars from 1 to each ratio (class ``ratio``, one ``rect.ratiobar`` per
    ratio), so that small differences show; the x axis spans the ratios and 1, and each
    value is written in a column on the right. Bars above 1 (more than the baseline),
    below 1 and equal to 1 have the classes ``above``, ``below``, ``equal``."""
    w = RATIO_WIDTH
    top, bottom = 26.0, 34.0
    left, right = _RATIO_LABEL_W, _RATIO_VALUE_W
    pw = w - left - right
    h = int(top + bottom + _RATIO_ROW_H * max(1, len(bars)))
    body = [_text(8, 15, title, "ctitle", max_px=w - 16)]
    values = [b.ratio for b in bars if b.ratio is not None and math.isfinite(b.ratio)]
    label = f"ratio bar chart: {title}"
    lo, hi = min([1.0, *values]), max([1.0, *values])
    pad = (hi - lo) * 0.08 if hi > lo else 0.05
    x_lo, x_hi = max(0.0, lo - pad), hi + pad

    def x_of(v: float) -> float:
        return left + pw * (v - x_lo) / (x_hi - x_lo)

    base_y = top + _RATIO_ROW_H * max(1, len(bars))
    for t in nice_ticks(x_lo, x_hi, _tick_budget(pw, ["0.000"])):
        body.append(_line(x_of(t), top, x_of(t), base_y, "grid"))
        body.append(_text(x_of(t), base_y + 15, fmt_num(t), "tick", "middle"))
    one = x_of(1.0)
    for i, bar in enumerate(bars):
        y = top + _RATIO_ROW_H * i
        cy = y + _RATIO_ROW_H / 2
        body.append(_text(left - 8, cy + 4, bar.label, "rlabel", "end", max_px=left - 16))
        r = bar.ratio
        if r is None or not math.isfinite(r):
            body.append(_text(left + pw + 10, cy + 4, bar.note or "no ratio", "note", max_px=right - 14))
            continue
        cls = "ratiobar above" if r > 1 else "ratiobar below" if r < 1 else "ratiobar equal"
        x0, x1 = sorted((one, x_of(r)))
        if x1 - x0 < 2:
            x0, x1 = (x0 + x1) / 2 - 1, (x0 + x1) / 2 + 1
        body.append(_rect(x0, y + 4, x1 - x0, _RATIO_ROW_H - 8, cls, f"{bar.label}: {fmt_ratio(r)}"))
        body.append(_text(left + pw + 10, cy + 4, fmt_ratio(r), "rvalue"))
    body.append(_line(one, top - 4, one, base_y, "marker"))
    body.append(_line(left, base_y, left + pw, base_y, "axis"))
    body.append(_text(left + pw / 2, h - 6, "ratio to the baseline (dashed line: 1 = same)", "alabel",
                      "middle"))
    return _svg("ratio", w, h, label, body)


# ---------------------------------------------------------------- line chart

LINE_WIDTH = 640
LINE_HEIGHT = 300
_LINE_COLORS = ("#4a78b5", "#d9822b", "#3b8f5a", "#b42318", "#7b5ea7", "#8a6d00", "#2a9d8f", "#5b6575",
                "#c2185b", "#1b3a6b", "#9ccc65", "#f2b705")


@dataclass(frozen=True)
class Series:
    name: str
    points: tuple[tuple[float, float], ...]  # (x, y), x ascending


@dataclass(frozen=True)
class Mark:
    """A point a line chart marks (a ring of class ``mark``), e.g. a regression."""

    x: float
    y: float
    title: str


def line_chart_svg(series: Sequence[Series], *, title: str, x_label: str, y_label: str,
                   x_names: Mapping[float, str] | None = None, marks: Sequence[Mark] = ()) -> str:
    """Lines of a value against a numeric axis (class ``line``), one ``path.series`` per
    series with a dot per point, and a legend on the right (e.g. total time against N,
    one line per model). ``x_names``: the x ticks' texts (e.g. revisions; else the
    numbers); ``marks``: points ringed in red, each with its tooltip."""
    w, h = LINE_WIDTH, LINE_HEIGHT
    left, right, top, bottom = 64.0, 190.0, 28.0, 40.0
    pw, ph = w - left - right, h - top - bottom
    xs = [x for s in series for x, _ in s.points]
    ys = [y for s in series for _, y in s.points]
    body = [_text(8, 16, title, "ctitle", max_px=w - 16)]
    label = f"line chart: {title}"
    if not xs:
        return _svg("line", w, h, label, body)
    x_lo, x_hi = min(xs), max(xs)
    if x_hi == x_lo:
        x_lo, x_hi = x_lo - 1, x_hi + 1
    y_ticks = nice_ticks(min(0.0, min(ys)), max(ys) if max(ys) > 0 else 1.0, 6)
    y_lo, y_hi = y_ticks[0], y_ticks[-1] if y_ticks[-1] > y_ticks[0] else y_ticks[0] + 1

    def px(x: float) -> float:
        return left + pw * (x - x_lo) / (x_hi - x_lo)

    def py(y: float) -> float:
        return top + ph * (1 - (y - y_lo) / (y_hi - y_lo))

    for t in y_ticks:
        body.append(_line(left, py(t), left + pw, py(t), "grid"))
        body.append(_text(left - 6, py(t) + 4, fmt_num(t), "tick", "end"))
    shown = sorted(set(xs))
    if x_names is not None and len(shown) > 1:  # names are wide: as many as fit
        every = max(1, math.ceil(len(shown) / _tick_budget(pw, [x_names.get(t, "") for t in shown])))
        shown = shown[::every]
    for t in shown:
        text = x_names.get(t, fmt_num(t)) if x_names is not None else fmt_num(t)
        body.append(_text(px(t), top + ph + 15, text, "tick", "middle"))
    body.append(_line(left, top + ph, left + pw, top + ph, "axis"))
    body.append(_line(left, top, left, top + ph, "axis"))
    for i, s in enumerate(series):
        color = _LINE_COLORS[i % len(_LINE_COLORS)]
        d = " ".join(f"{'M' if k == 0 else 'L'}{_f(px(x))},{_f(py(y))}" for k, (x, y) in enumerate(s.points))
        body.append(f'<path class="series" d="{d}" fill="none" stroke="{color}" stroke-width="2">'
                    f"<title>{escape(s.name)}</title></path>")
        for x, y in s.points:
            body.append(f'<circle cx="{_f(px(x))}" cy="{_f(py(y))}" r="3" fill="{color}">'
                        f"<title>{escape(f'{s.name}: {fmt_num(x)} -> {fmt_num(y)}')}</title></circle>")
        ly = top + 14 + 18 * i
        body.append(_line(left + pw + 14, ly - 4, left + pw + 34, ly - 4, "legend").replace(
            'class="legend"', f'class="legend" stroke="{color}" stroke-width="2"'))
        body.append(_text(left + pw + 40, ly, s.name, "rlabel", max_px=right - 46))
    for m in marks:
        body.append(f'<circle class="mark" cx="{_f(px(m.x))}" cy="{_f(py(m.y))}" r="7" fill="none" '
                    f'stroke="#b42318" stroke-width="2"><title>{escape(m.title)}</title></circle>')
    body.append(_text(left + pw / 2, h - 6, f"{x_label} (y: {y_label})", "alabel", "middle"))
    return _svg("line", w, h, label, body)


# ---------------------------------------------------------------- grouped bars

BARS_WIDTH = 900
_BARS_LEGEND_W = 200.0


def grouped_bars_svg(groups: Sequence[str], series: Sequence[str],
                     values: Sequence[Sequence[float | None]], *, title: str, y_label: str,
                     reference: float | None = None) -> str:
    """Vertical bars (class ``bars``): one group per entry of ``groups`` (e.g. scenario),
    one ``rect.gbar`` per series within it (e.g. build), ``values[g][s]``; a dashed line
    at ``reference`` (1 for ratios). A missing value leaves its slot empty."""
    w = BARS_WIDTH
    left, right, top, bottom = 64.0, _BARS_LEGEND_W, 28.0, 44.0
    rows = max(1, len(series))
    h = int(max(260.0, top + bottom + 18 * rows))
    pw, ph = w - left - right, h - top - bottom
    body = [_text(8, 16, title, "ctitle", max_px=w - 16)]
    label = f"grouped bar chart: {title}"
    present = [v for row in values for v in row if v is not None and math.isfinite(v)]
    if not present or not groups:
        return _svg("bars", w, h, label, body)
    lo = min([0.0, *present])
    hi = max([*present, reference if reference is not None else 0.0])
    if reference is not None:  # ratios: start near the data so small differences show
        low = min([*present, reference])
        lo = max(0.0, low - (hi - low) * 0.15)
    ticks = nice_ticks(lo, hi if hi > lo else lo + 1, 6)
    y_lo, y_hi = ticks[0], ticks[-1] if ticks[-1] > ticks[0] else ticks[0] + 1

    def py(y: float) -> float:
        return top + ph * (1 - (y - y_lo) / (y_hi - y_lo))

    for t in ticks:
        body.append(_line(left, py(t), left + pw, py(t), "grid"))
        body.append(_text(left - 6, py(t) + 4, fmt_num(t), "tick", "end"))
    slot = pw / len(groups)
    bar_w = max(1.0, (slot - 6) / rows)
    for g, group in enumerate(groups):
        x0 = left + slot * g + 3
        for s, name in enumerate(series):
            v = values[g][s] if s < len(values[g]) else None
            if v is None or not math.isfinite(v):
                continue
            color = _LINE_COLORS[s % len(_LINE_COLORS)]
            y = py(max(v, y_lo))
            rect = _rect(x0 + bar_w * s, y, bar_w, py(y_lo) - y, "gbar", f"{group} · {name}: {fmt_num(v)}")
            body.append(rect.replace('class="gbar"', f'class="gbar" fill="{color}"'))
        body.append(_text(left + slot * g + slot / 2, top + ph + 15, group, "tick", "middle",
                          max_px=slot - 2))
    if reference is not None and y_lo <= reference <= y_hi:
        body.append(_line(left, py(reference), left + pw, py(reference), "marker"))
    body.append(_line(left, top + ph, left + pw, top + ph, "axis"))
    for s, name in enumerate(series):
        color = _LINE_COLORS[s % len(_LINE_COLORS)]
        ly = top + 12 + 18 * s
        body.append(f'<rect x="{_f(left + pw + 14)}" y="{_f(ly - 9)}" width="12" height="10" '
                    f'fill="{color}"/>')
        body.append(_text(left + pw + 32, ly, name, "rlabel", max_px=right - 38))
    body.append(_text(left + pw / 2, h - 6, y_label, "alabel", "middle"))
    return _svg("bars", w, h, label, body)
