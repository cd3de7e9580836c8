"""Where the results database lives by default."""

from __future__ import annotations

import os
from pathlib import Path

DB_ENV_VAR = "RTOSLAB_DB"
DEFAULT_DB_RELPATH = Path("rtoslab-results") / "results.sqlite"


def default_db_path() -> Path:
    """``$RTOSLAB_DB`` if set (and not empty), else ``./rtoslab-results/results.sqlite``."""
    env = os.environ.get(DB_ENV_VAR, "").strip()
    if env:
        return Path(env).expanduser()
    return Path.cwd() / DEFAULT_DB_RELPATH
