"""Tables printed after an experiment: times with ratio columns, and sizes."""

from __future__ import annotations

import sys

from rtoslab.experiments.experiment import Experiment
from rtoslab.report.comparison import experiment_tables
from rtoslab.store.db import Store


def print_experiment_tables(store: Store, run_id: int, exp: Experiment) -> None:
    view = store.load_run(run_id)
    baselines = [(b.name, dict(b.match)) for b in exp.baselines]
    sys.stdout.write(experiment_tables(view, exp.name, exp.rows, baselines))
