"""rtoslab: reproducible RTOS and execution-model measurements on emulated Cortex-M cores.

The Python API (``rtoslab.api``, documented there and in docs/own-code.md)::

    import rtoslab
    outcome = rtoslab.run(benchmarks=["call"], db="results.sqlite")
    with rtoslab.open_results("results.sqlite") as res:
        df = res.to_dataframe(outcome.run_id)   # optional extra: rtoslab[pandas]
"""

from rtoslab.api import (
    RECORD_COLUMNS,
    SAMPLE_RECORD_COLUMNS,
    Results,
    RunOutcome,
    configuration,
    execute_plan,
    experiment,
    open_results,
    resolve_run,
    run,
    search,
    select,
)
from rtoslab.catalog import Catalog
from rtoslab.records import RtoslabError
from rtoslab.version import __version__

__all__ = [
    "RECORD_COLUMNS",
    "SAMPLE_RECORD_COLUMNS",
    "Catalog",
    "Results",
    "RtoslabError",
    "RunOutcome",
    "__version__",
    "configuration",
    "execute_plan",
    "experiment",
    "open_results",
    "resolve_run",
    "run",
    "search",
    "select",
]
