"""How statistics are written in the reports."""

from __future__ import annotations

import math

from rtoslab.records import Summary

# Table columns after benchmark, metric and unit, in order.
STAT_COLUMNS = ("n", "min", "median", "mode", "mean", "stdev", "p90", "p99", "max")


def fmt_num(value: float) -> str:
    """Short human form: integers without a point, others to 3 decimals (3 digits < 1)."""
    if math.isnan(value):
        return "-"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if value == int(value):
        return str(int(value))
    text = f"{value:.3g}" if abs(value) < 1 else f"{value:.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "0") else text


def stat_cells(summary: Summary | None) -> list[str]:
    """Cells for STAT_COLUMNS; empty cells when there is no summary."""
    if summary is None:
        return [""] * len(STAT_COLUMNS)
    s = summary
    values = (s.min, s.median, s.mode, s.mean, s.stdev, s.p90, s.p99, s.max)
    return [str(s.n), *(fmt_num(v) for v in values)]


def json_float(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def json_exact(value: float) -> int | float | None:
    """A value that is a sample (min, max, mode): an int when it is whole."""
    if not math.isfinite(value):
        return None
    return int(value) if value == int(value) else float(value)
