"""JSON report, schema ``rtoslab.run/1`` (docs/formats.md §5)."""

from __future__ import annotations

import json

from rtoslab.analysis.irq_windows import to_doc
from rtoslab.records import TIME_BASE_NOTES
from rtoslab.report.comparison.table import axes_of
from rtoslab.report.numbers import json_exact, json_float
from rtoslab.report.rows import Row, run_rows
from rtoslab.views import RunView

SCHEMA = "rtoslab.run/1"


def _entry(row: Row) -> dict[str, object]:
    s = row.summary
    return {
        "benchmark": row.benchmark,
        "kernel": row.config.kernel,
        "target": row.config.target,
        "config": row.config.hash,
        # the configuration's axis values (target, kernel, opt, lto, cflags, defines.*,
        # kernel_options.*, timing.*): what the row belongs to, without the store
        "axes": axes_of(row.config),
        "status": row.status,
        "reason": row.reason,
        "metric": row.metric,
        "time_base": None if row.time_base is None else str(row.time_base),
        "time_note": row.time_note or None,
        "unit": row.unit,
        "n": None if s is None else s.n,
        "min": None if s is None else json_exact(s.min),
        "max": None if s is None else json_exact(s.max),
        "mean": None if s is None else json_float(s.mean),
        "median": None if s is None else json_float(s.median),
        "mode": None if s is None else json_exact(s.mode),
        "stdev": None if s is None else json_float(s.stdev),
        "p90": None if s is None else json_float(s.p90),
        "p99": None if s is None else json_float(s.p99),
    }


def run_document(view: RunView) -> dict[str, object]:
    """The report as a JSON-ready dict, keys in schema order; with ``irq_windows`` last
    when results were run with --irq-windows (docs/formats.md §9)."""
    doc: dict[str, object] = {
        "schema": SCHEMA,
        "run_id": view.id,
        "status": view.status,
        "started_at": view.started_at,
        # What each time base means, and so why a metric lacks a unit (docs/formats.md §5).
        "time_bases": {str(base): note for base, note in TIME_BASE_NOTES.items()},
        "results": [_entry(row) for row in run_rows(view)],
    }
    windows = [{"benchmark": r.benchmark, "config": r.config.hash, "report": to_doc(r.irq_windows)}
               for r in view.results if r.irq_windows is not None]
    if windows:
        doc["irq_windows"] = windows
    return doc


class JsonRenderer:
    name = "json"
    file_suffix = ".json"

    def render(self, view: RunView) -> str:
        return json.dumps(run_document(view), indent=2, ensure_ascii=False, allow_nan=False) + "\n"
