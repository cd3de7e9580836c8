"""rtoslab.store: the SQLite results database (runs, configurations, results, samples).

Open it with ``open_store(path)``; read runs back as ``RunView`` values for the reports.
"""

from rtoslab.store.db import Store, open_store
from rtoslab.store.paths import DB_ENV_VAR, default_db_path
from rtoslab.store.schema import MIGRATIONS, Migration, latest_version
from rtoslab.views import (
    BENCH_STATUSES,
    IDENTITY_KEYS,
    RUN_STATUSES,
    UNIT_ORDER,
    ConfigView,
    MetricView,
    ResultView,
    RunInfo,
    RunView,
)

__all__ = [
    "BENCH_STATUSES",
    "DB_ENV_VAR",
    "IDENTITY_KEYS",
    "MIGRATIONS",
    "RUN_STATUSES",
    "UNIT_ORDER",
    "ConfigView",
    "MetricView",
    "Migration",
    "ResultView",
    "RunInfo",
    "RunView",
    "Store",
    "default_db_path",
    "latest_version",
    "open_store",
]
