"""Comparison tables, in one place: configurations (or runs) side by side with ratio columns.

``table``: building tables from views; ``render``: terminal, Markdown, CSV and JSON text;
``run_tables``: the tables `rtoslab compare` and an experiment's summary show. The HTML
report draws the same tables itself (report/html.py).
"""

from __future__ import annotations

from rtoslab.report.comparison.render import FORMATS, render_comparison
from rtoslab.report.comparison.run_tables import experiment_tables, measured_units, run_table
from rtoslab.report.comparison.table import (
    STATS,
    Baselines,
    CellNote,
    Column,
    ComparisonRow,
    ComparisonTable,
    RatioColumn,
    axes_of,
    build_footprint_table,
    build_table,
    compare_runs,
    regressions,
    with_first_baseline,
)

__all__ = [
    "FORMATS",
    "STATS",
    "Baselines",
    "CellNote",
    "Column",
    "ComparisonRow",
    "ComparisonTable",
    "RatioColumn",
    "axes_of",
    "build_footprint_table",
    "build_table",
    "compare_runs",
    "experiment_tables",
    "measured_units",
    "regressions",
    "render_comparison",
    "run_table",
    "with_first_baseline",
]
