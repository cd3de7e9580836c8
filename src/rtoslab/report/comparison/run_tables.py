"""The comparison tables of stored runs: what `rtoslab compare` and an experiment's summary
print. Input is views (the CLI loads them); output is a table or rendered text."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from rtoslab.records import RtoslabError, Unit
from rtoslab.report.comparison.render import render_comparison
from rtoslab.report.comparison.table import (
    Baselines,
    ComparisonRow,
    ComparisonTable,
    build_footprint_table,
    build_table,
    check_baseline_axes,
    compare_runs,
    with_first_baseline,
)
from rtoslab.views import ResultView, RunView


def measured_units(view: RunView) -> tuple[Unit, ...]:
    """The units of an experiment's summary tables, time first (issue 28): modelled cycles
    and µs when every metric of every result has them (timing model on), else guest
    instructions."""
    metrics = [m for r in view.results for m in r.metrics]
    if metrics and all(Unit.CYCLE in m.summaries for m in metrics):
        return (Unit.CYCLE, Unit.US)
    return (Unit.INSN,)


def experiment_tables(view: RunView, name: str, rows: str, baselines: Baselines, fmt: str = "terminal",
                      units: Sequence[Unit] | None = None, *, width: int = 160, wide: bool = False,
                      footer: str = "") -> str:
    """An experiment's summary: a median table per unit with its baselines' ratio columns,
    then the image sizes (when any result has a footprint). Terminal tables are split to
    ``width`` unless ``wide``; ``footer`` goes under each time table (the timing model)."""
    results = [(view.id, r) for r in view.results]
    out = []
    for unit in measured_units(view) if units is None else units:
        table = build_table(results, stat="median", unit=unit, rows=rows, baselines=baselines)
        out.append(render_comparison(table, fmt, f"{name}: median {unit}", width=width, wide=wide,
                                     footer=footer))
    sizes = build_footprint_table(results, rows=rows, baselines=baselines)
    if sizes.rows:
        out.append(render_comparison(sizes, fmt, f"{name}: image size (bytes)", width=width, wide=wide))
    return "\n".join(out)


def run_table(views: Sequence[RunView], *, stat: str, unit: Unit, rows: str,
              baseline: dict[str, object] | None) -> ComparisonTable:
    """`rtoslab compare`: one run (its configurations side by side; ratio columns against
    ``baseline``'s axis values, by default the first configuration) or two runs (second /
    first for each configuration they share)."""
    if len(views) == 2:
        if baseline is not None:
            raise RtoslabError("--baseline is for one run; with two runs the first is the baseline")
        a, b = views
        return compare_runs(a.results, b.results, a.id, b.id, stat=stat, unit=unit, rows=rows)
    if len(views) != 1:
        raise RtoslabError("compare takes one or two run ids")
    results = [(views[0].id, r) for r in views[0].results]
    if baseline is not None:
        check_baseline_axes(build_table(results, stat=stat, unit=unit, rows=rows).columns, baseline)
        baselines: Baselines = [("baseline", baseline)]
    else:
        first = build_table(results, stat=stat, unit=unit, rows=rows).columns
        baselines = [("baseline", dict(first[0].axes))] if len(first) > 1 else []
    return build_table(results, stat=stat, unit=unit, rows=rows, baselines=baselines)


# ---------------------------------------------------------------- the HTML report's tables


def config_labels(view: RunView) -> dict[int, str]:
    """Column labels of a run's configurations (config id -> the axis values that differ)."""
    table = build_table([(view.id, replace(r, metrics=())) for r in view.results])
    return {col.config.id: col.label for col in table.columns}


def report_table(view: RunView, unit: Unit, stat: str, baselines: Baselines,
                 default_name: str, rows: str = "benchmark") -> ComparisonTable:
    """One run's configurations side by side in one unit, metrics without that unit left
    out; ratio columns against ``baselines``, or each column against the first (named
    ``default_name``) when there are none."""
    results: list[tuple[int, ResultView]] = []
    for r in view.results:
        if r.status == "ok":
            r = replace(r, metrics=tuple(m for m in r.metrics if unit in m.summaries))
        results.append((view.id, r))
    if baselines:
        return build_table(results, stat=stat, unit=unit, rows=rows, baselines=baselines)
    return with_first_baseline(build_table(results, stat=stat, unit=unit, rows=rows), default_name)


def grouped_rows(table: ComparisonTable, benchmarks: Sequence[str]) -> list[ComparisonRow]:
    """Rows grouped by benchmark in ``benchmarks`` order; a benchmark's problem row (failed
    / n/a in some configuration) only when no configuration measured a metric of it."""
    order = {b: i for i, b in enumerate(benchmarks)}
    measured = {row.benchmark for row in table.rows if not row.problem}
    rows = [row for row in table.rows if not (row.problem and row.benchmark in measured)]
    return sorted(rows, key=lambda row: order.get(row.benchmark, len(order))
                  if row.benchmark is not None else 0)
