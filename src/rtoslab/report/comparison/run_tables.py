"""The comparison tables of stored runs: what `rtoslab compare` and an experiment's summary
print. Input is views (the CLI loads them); output is a table or rendered text."""

from __future__ import annotations

from collections.abc import Sequence

from rtoslab.records import RtoslabError, Unit
from rtoslab.report.comparison.render import render_comparison
from rtoslab.report.comparison.table import (
    Baselines,
    ComparisonTable,
    build_footprint_table,
    build_table,
    compare_runs,
)
from rtoslab.views import RunView


def measured_units(view: RunView) -> tuple[Unit, ...]:
    """insn always; cycle when every metric of every result has it (timing model on)."""
    metrics = [m for r in view.results for m in r.metrics]
    if metrics and all(Unit.CYCLE in m.summaries for m in metrics):
        return (Unit.INSN, Unit.CYCLE)
    return (Unit.INSN,)


def experiment_tables(view: RunView, name: str, rows: str, baselines: Baselines, fmt: str = "terminal",
                      units: Sequence[Unit] | None = None) -> str:
    """An experiment's summary: a median table per unit with its baselines' ratio columns,
    then the image sizes (when any result has a footprint)."""
    results = [(view.id, r) for r in view.results]
    out = []
    for unit in measured_units(view) if units is None else units:
        table = build_table(results, stat="median", unit=unit, rows=rows, baselines=baselines)
        out.append(render_comparison(table, fmt, f"{name}: median {unit}"))
    sizes = build_footprint_table(results, rows=rows, baselines=baselines)
    if sizes.rows:
        out.append(render_comparison(sizes, fmt, f"{name}: image size (bytes)"))
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
        baselines: Baselines = [("baseline", baseline)]
    else:
        first = build_table(results, stat=stat, unit=unit, rows=rows).columns
        baselines = [("baseline", dict(first[0].axes))] if len(first) > 1 else []
    return build_table(results, stat=stat, unit=unit, rows=rows, baselines=baselines)
