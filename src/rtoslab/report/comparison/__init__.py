"""Comparison tables, in one place: configurations (or runs) side by side with ratio columns.

``table``: building tables from views; ``render``: terminal, Markdown, CSV and JSON text;
``run_tables``: the tables of stored runs: what `rtoslab compare`, an experiment's summary
and the HTML report show (report/html.py renders its own from ``report_table``).
"""

from __future__ import annotations

from rtoslab.report.comparison.render import FORMATS, render_comparison
from rtoslab.report.comparison.run_tables import (
    config_labels,
    experiment_tables,
    grouped_rows,
    measured_units,
    report_table,
    run_table,
)
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
    is_regression,
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
    "config_labels",
    "experiment_tables",
    "grouped_rows",
    "is_regression",
    "measured_units",
    "regressions",
    "render_comparison",
    "report_table",
    "run_table",
    "with_first_baseline",
]
