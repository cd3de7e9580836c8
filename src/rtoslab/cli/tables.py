"""Tables printed after an experiment: times with ratio columns, and sizes."""

from __future__ import annotations

import sys

from rtoslab.compare import build_footprint_table, build_table
from rtoslab.experiments.experiment import Experiment
from rtoslab.report.comparison import render_comparison
from rtoslab.store.db import Store
from rtoslab.views import RunView


def measured_units(view: RunView) -> tuple[str, ...]:
    """insn always; cycle when every metric of every result has it (timing model on)."""
    metrics = [m for r in view.results for m in r.metrics]
    if metrics and all("cycle" in m.summaries for m in metrics):
        return ("insn", "cycle")
    return ("insn",)


def experiment_tables(store: Store, run_id: int, exp: Experiment, fmt: str = "terminal",
                      units: tuple[str, ...] | None = None) -> str:
    view = store.load_run(run_id)
    results = [(run_id, r) for r in view.results]
    if units is None:
        units = measured_units(view)
    baselines = [(b.name, dict(b.match)) for b in exp.baselines]
    out = []
    for unit in units:
        table = build_table(results, stat="median", unit=unit, rows=exp.rows, baselines=baselines)
        out.append(render_comparison(table, fmt, f"{exp.name}: median {unit}"))
    sizes = build_footprint_table(results, rows=exp.rows, baselines=baselines)
    if sizes.rows:
        out.append(render_comparison(sizes, fmt, f"{exp.name}: image size (bytes)"))
    return "\n".join(out)


def print_experiment_tables(store: Store, run_id: int, exp: Experiment) -> None:
    sys.stdout.write(experiment_tables(store, run_id, exp))
