"""What the end-to-end tests of a full disk and of kept records share: rtoslab run in a
private mount namespace on a small tmpfs (root and util-linux's unshare, as on the
project's machines), and the runs and results a database holds afterwards (read raw)."""

from __future__ import annotations

import os
import shlex
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import REPO

# The CLI as a shell word list, for the scripts run inside the namespace.
CLI_SHELL = " ".join(shlex.quote(a) for a in (sys.executable, "-m", "rtoslab.cli.main"))


def need_root() -> None:
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.fail("needs root and unshare (util-linux) to mount a small tmpfs: run as root")


def fails_in_namespace(script: str, timeout: float = 600) -> str:
    """Run the shell ``script`` (which mounts its tmpfs first) in a private mount namespace;
    it must end as rtoslab does on a failure of the machine: exit 1, no traceback. Returns
    the last line of its stderr (rtoslab's one-line error)."""
    need_root()
    proc = subprocess.run(["unshare", "-m", "sh", "-c", script], cwd=REPO, capture_output=True,
                          text=True, timeout=timeout, check=False)
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.stderr.strip().splitlines()[-1]


def stored_runs(db: Path) -> list[tuple[int, str]]:
    """(id, status) of every run in the database."""
    conn = sqlite3.connect(db)
    try:
        return [(int(r[0]), str(r[1])) for r in conn.execute("SELECT id, status FROM runs ORDER BY id")]
    finally:
        conn.close()


def stored_results(db: Path, run_id: int | None = None) -> list[tuple[str, str]]:
    """(benchmark, status) of the results of run ``run_id`` (None: of every run), in order."""
    conn = sqlite3.connect(db)
    try:
        where, args = ("WHERE run_id = ?", (run_id,)) if run_id is not None else ("", ())
        return [(str(r[0]), str(r[1])) for r in conn.execute(
            f"SELECT benchmark, status FROM bench_runs {where} ORDER BY id", args)]
    finally:
        conn.close()
