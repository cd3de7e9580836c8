"""Export a stored run for other tools: CSV of summaries, CSV of raw samples, JSON of both.

``export_summaries_csv(view)``
    One row per run / configuration / benchmark / metric / unit (the rows of the
    reports: a failed or n/a benchmark is one row with empty metric, unit and
    statistics, and its reason). Columns: ``SUMMARY_COLUMNS``; ``axes`` is the
    configuration's axis values (compact JSON), so a row says which allocator, N or
    tick rate it belongs to.

``export_samples_csv(view, samples)``
    One row per raw sample: ``run_id, config, benchmark, metric, seq, insns, cycles``;
    ``seq`` counts from 0 in measurement order; ``cycles`` is 0 when no cycle model ran.

``export_json(view, samples)``
    Schema ``rtoslab.export/2`` (docs/formats.md §6)::

        {
          "schema": "rtoslab.export/2",
          "run": {"id", "status", "started_at", "finished_at", "revision", "host",
                  "command", "experiment", "tool_versions"},
          "configs": [{"hash", "target", "core", "kernel", "kernel_config",
                       "kernel_config_hash", "compiler", "compiler_version",
                       "cflags", "ldflags", "timing"}],
          "results": [{"benchmark", "config" (a hash from "configs"), "status",
                       "reason", "total_insns", "total_cycles",
                       "calibration" ({"insns", "cycles"} or null), "extra",
                       "console" (the firmware's console output as stored),
                       "metrics": [{"name", "description", "n_samples",
                                    "summaries": {unit: {"n", "min", "max", "mean",
                                                         "median", "mode", "stdev",
                                                         "p90", "p99", "warnings"}},
                                    "samples": {"insns": [...], "cycles": [...]}}]}]
        }

    Samples are stored column-wise: ``insns[i]`` and ``cycles[i]`` are sample ``seq = i``.
    Non-finite statistics are null. Keys appear in the order above.

``samples`` maps every metric id of the view to its raw samples in measurement order
(``Store.load_run_samples``); the caller loads them, this module never reads the store.

Numbers in the CSV files: whole values without a point, others in Python's shortest
round-trip form; an empty cell is a missing value. Lines end in ``\\n``.
"""

from __future__ import annotations

import csv
import json
import math
import re
from collections.abc import Mapping
from io import StringIO

from rtoslab.records import Sample, Summary, extra_document
from rtoslab.report.comparison.table import axes_of
from rtoslab.report.numbers import json_exact, json_float
from rtoslab.report.rows import run_rows
from rtoslab.views import ConfigView, MetricView, ResultView, RunView

# metric id -> raw samples in measurement order
Samples = Mapping[int, tuple[Sample, ...]]

EXPORT_SCHEMA = "rtoslab.export/2"

SUMMARY_COLUMNS = (
    "run_id", "config", "target", "core", "kernel", "kernel_config_hash", "kernel_config",
    "compiler", "compiler_version", "cflags", "ldflags", "timing", "axes",
    "benchmark", "status", "reason", "metric", "unit",
    "n", "min", "max", "mean", "median", "mode", "stdev", "p90", "p99",
)
SAMPLE_COLUMNS = ("run_id", "config", "benchmark", "metric", "seq", "insns", "cycles")

# Placeholder for a pre-serialised sample column: a NUL cannot occur in the rest of the
# document unescaped, and json.dumps writes it as \u0000.
_MARK = "\0col"
_MARK_RE = re.compile(r'"\\u0000col(\d+)"')

_STATS = ("min", "max", "mean", "median", "mode", "stdev", "p90", "p99")


def _csv_num(value: float) -> str:
    if not math.isfinite(value):
        return ""
    return str(int(value)) if value == int(value) else repr(float(value))


def _compact(value: dict[str, object]) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _to_csv(header: tuple[str, ...], rows: list[list[str]]) -> str:
    buffer = StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def _config_cells(config: ConfigView) -> list[str]:
    return [
        config.hash, config.target, config.core, config.kernel, config.kernel_config_hash,
        _compact(config.kernel_config), config.compiler, config.compiler_version,
        config.cflags, config.ldflags, _compact(config.timing),
        # the axis values a comparison names (compact JSON, like kernel_config and timing)
        _compact(axes_of(config)),
    ]


def export_summaries_csv(view: RunView) -> str:
    """CSV of every summary of the run (columns ``SUMMARY_COLUMNS``)."""
    rows = []
    for row in run_rows(view):
        s = row.summary
        stats = [""] * (1 + len(_STATS)) if s is None else [
            str(s.n), *(_csv_num(float(getattr(s, k))) for k in _STATS)]
        rows.append([str(view.id), *_config_cells(row.config), row.benchmark, row.status,
                     row.reason or "", row.metric or "", row.unit or "", *stats])
    return _to_csv(SUMMARY_COLUMNS, rows)


def _samples_of(samples: Samples, metric: MetricView) -> tuple[Sample, ...]:
    found = samples.get(metric.id)
    if found is None:
        raise ValueError(f"no samples given for metric {metric.id} ({metric.name}): load the run's samples")
    return found


def export_samples_csv(view: RunView, samples: Samples) -> str:
    """CSV of every raw sample of the run (columns ``SAMPLE_COLUMNS``)."""
    rows = []
    for result in view.results:
        for metric in result.metrics:
            for seq, sample in enumerate(_samples_of(samples, metric)):
                rows.append([str(view.id), result.config.hash, result.benchmark, metric.name,
                             str(seq), str(sample.insns), str(sample.cycles)])
    return _to_csv(SAMPLE_COLUMNS, rows)


def _summary_doc(s: Summary) -> dict[str, object]:
    return {
        "n": s.n,
        "min": json_exact(s.min),
        "max": json_exact(s.max),
        "mean": json_float(s.mean),
        "median": json_float(s.median),
        "mode": json_exact(s.mode),
        "stdev": json_float(s.stdev),
        "p90": json_float(s.p90),
        "p99": json_float(s.p99),
        "warnings": list(s.warnings),
    }


def _metric_doc(samples: Samples, metric: MetricView, columns: list[str] | None) -> dict[str, object]:
    measured = _samples_of(samples, metric)
    insns: object = [s.insns for s in measured]
    cycles: object = [s.cycles for s in measured]
    if columns is not None:  # pre-serialised on one line each, see export_json
        columns += [json.dumps(insns, separators=(",", ":")), json.dumps(cycles, separators=(",", ":"))]
        insns, cycles = f"{_MARK}{len(columns) - 2}", f"{_MARK}{len(columns) - 1}"
    return {
        "name": metric.name,
        "description": metric.description,
        "n_samples": metric.n_samples,
        "summaries": {unit: _summary_doc(s) for unit, s in metric.summaries.items()},
        "samples": {"insns": insns, "cycles": cycles},
    }


def _result_doc(samples: Samples, result: ResultView, columns: list[str] | None) -> dict[str, object]:
    cal = result.calibration
    return {
        "benchmark": result.benchmark,
        "config": result.config.hash,
        "status": result.status,
        "reason": result.reason,
        "total_insns": result.total_insns,
        "total_cycles": result.total_cycles,
        "calibration": None if cal is None else {"insns": cal.insns, "cycles": cal.cycles},
        "extra": extra_document(result.wall_s, result.counters, result.footprint, result.footprint_error,
                                result.console_dropped),
        "console": result.console,
        "metrics": [_metric_doc(samples, m, columns) for m in result.metrics],
    }


def _config_doc(c: ConfigView) -> dict[str, object]:
    return {
        "hash": c.hash,
        "target": c.target,
        "core": c.core,
        "kernel": c.kernel,
        "kernel_config": c.kernel_config,
        "kernel_config_hash": c.kernel_config_hash,
        "compiler": c.compiler,
        "compiler_version": c.compiler_version,
        "cflags": c.cflags,
        "ldflags": c.ldflags,
        "timing": c.timing,
    }


def export_document(view: RunView, samples: Samples) -> dict[str, object]:
    """The ``rtoslab.export/2`` document as a JSON-ready dict."""
    return _document(samples, view, None)


def _document(samples: Samples, view: RunView, columns: list[str] | None) -> dict[str, object]:
    return {
        "schema": EXPORT_SCHEMA,
        "run": {
            "id": view.id,
            "status": view.status,
            "started_at": view.started_at,
            "finished_at": view.finished_at,
            "revision": view.rtoslab_revision,
            "host": view.host,
            "command": view.command,
            "experiment": view.experiment,
            "tool_versions": dict(sorted(view.tool_versions.items())),
        },
        "configs": [_config_doc(c) for c in view.configs],
        "results": [_result_doc(samples, r, columns) for r in view.results],
    }


def export_json(view: RunView, samples: Samples) -> str:
    """The run's summaries and raw samples as ``rtoslab.export/2`` JSON, ending in a newline.

    Indented for reading, except that each sample column is written on one line.
    """
    columns: list[str] = []
    text = json.dumps(_document(samples, view, columns), indent=2, ensure_ascii=False, allow_nan=False)
    def column(m: re.Match[str]) -> str:
        index = int(m.group(1))
        return columns[index] if index < len(columns) else m.group(0)

    text, count = _MARK_RE.subn(column, text)
    if count != len(columns):  # a stored string looked like a placeholder: play safe
        text = json.dumps(export_document(view, samples), indent=2, ensure_ascii=False, allow_nan=False)
    return text + "\n"


__all__ = [
    "EXPORT_SCHEMA",
    "SAMPLE_COLUMNS",
    "SUMMARY_COLUMNS",
    "export_document",
    "export_json",
    "export_samples_csv",
    "export_summaries_csv",
]
