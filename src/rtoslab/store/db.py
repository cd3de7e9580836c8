"""The results store: one SQLite database, opened and migrated by ``open_store``."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType

from rtoslab.records import BenchResult, RtoslabError, Sample
from rtoslab.store import reads, writes
from rtoslab.store.codec import Clock, iso_utc, utc_now
from rtoslab.store.owner import current_owner, owner_is_gone
from rtoslab.store.paths import default_db_path
from rtoslab.store.schema import migrate
from rtoslab.views import FINISHED_STATUSES, RunInfo, RunView

__all__ = ["Store", "default_db_path", "open_store"]

_BUSY_TIMEOUT_S = 30.0


class Store:
    """Writes runs and benchmark results, and reads them back as views.

    Every write method is its own transaction and is committed when it returns, so a
    process killed at any point leaves whole benchmark results only. Use ``open_store``
    to get one; close it (or use it as a context manager) when done.
    """

    def __init__(self, conn: sqlite3.Connection, path: Path, clock: Clock = utc_now) -> None:
        self._conn = conn
        self._path = path
        self._clock = clock

    @property
    def path(self) -> Path:
        return self._path

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _now(self) -> str:
        return iso_utc(self._clock())

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: committed on success, rolled back on any exception."""
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield self._conn
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        """One read transaction, so a view is a consistent snapshot."""
        self._conn.execute("BEGIN")
        try:
            yield self._conn
        finally:
            self._conn.execute("COMMIT")

    def _no_run(self, run_id: int) -> RtoslabError:
        return RtoslabError(f"no run {run_id} in {self._path}: `rtoslab runs` lists them")

    # ------------------------------------------------------------------ writes

    def begin_run(
        self,
        command: str,
        revision: str,
        host: str,
        tool_versions: Mapping[str, str],
        experiment: str | None = None,
    ) -> int:
        """Record a new run with status ``running``; committed before this returns."""
        with self._write() as conn:
            return writes.insert_run(
                conn,
                started_at=self._now(),
                command=command,
                revision=revision,
                host=host,
                tool_versions=tool_versions,
                experiment=experiment,
                owner=current_owner(),
            )

    def upsert_config(self, identity: Mapping[str, object]) -> int:
        """The id of the configuration ``identity['identity_hash']``, stored if new.

        ``identity`` needs the keys identity_hash, target, core, kernel, kernel_config
        (dict), kernel_config_hash, compiler, compiler_version, cflags, ldflags, timing (dict);
        other keys are kept in the ``identity`` column. The same hash with a different
        identity raises RtoslabError.
        """
        with self._write() as conn:
            return writes.upsert_config(conn, identity)

    def add_bench_result(self, run_id: int, config_id: int, source_hash: str, result: BenchResult) -> int:
        """Store one benchmark result (its row, metrics, samples, summaries) atomically.

        Returns the new ``bench_runs`` id. The run must exist and still be running.
        """
        with self._write() as conn:
            status = writes.run_status(conn, run_id)
            if status is None:
                raise self._no_run(run_id)
            if status != "running":
                raise RtoslabError(
                    f"run {run_id} is {status}: results can only be added to a running run; start a new run"
                )
            return writes.insert_bench_result(conn, run_id, config_id, source_hash, result, self._now())

    def finish_run(self, run_id: int, status: str) -> bool:
        """Set the final status (complete, incomplete or failed) of a running run.

        Safe to call from a ``finally`` block or after a signal: a run is finished once,
        and later calls change nothing and return False. If called while a write of this
        store is in progress (e.g. from a signal handler), that write is rolled back first.
        """
        if status not in FINISHED_STATUSES:
            raise ValueError(f"final run status must be one of {', '.join(FINISHED_STATUSES)}")
        if self._conn.in_transaction:
            self._conn.execute("ROLLBACK")
        with self._write() as conn:
            if writes.finish_run(conn, run_id, status, self._now()):
                return True
            if writes.run_status(conn, run_id) is None:
                raise self._no_run(run_id)
            return False

    def _stale_run_ids(self) -> list[int]:
        return [run_id for run_id, owner in reads.running_owners(self._conn) if owner_is_gone(owner)]

    def mark_stale_running(self) -> list[int]:
        """Mark ``incomplete`` every running run whose process on this host is gone.

        Returns the ids marked. Reads do this themselves; a read-only database is left
        unchanged and the runs only read as incomplete.
        """
        stale = self._stale_run_ids()
        if stale:
            try:
                with self._write() as conn:
                    writes.mark_incomplete(conn, stale)
            except sqlite3.OperationalError:
                pass  # read-only database or file system: report, cannot record
        return stale

    # ------------------------------------------------------------------ reads

    def load_run(self, run_id: int) -> RunView:
        stale = set(self.mark_stale_running())
        with self._read() as conn:
            view = reads.load_run(conn, run_id, stale)
        if view is None:
            raise self._no_run(run_id)
        return view

    def load_samples(self, metric_id: int) -> tuple[Sample, ...]:
        """The raw samples of one metric (``MetricView.id``), in measurement order."""
        with self._read() as conn:
            samples = reads.load_samples(conn, metric_id)
        if samples is None:
            raise RtoslabError(f"no metric {metric_id} in {self._path}: take metric ids from `load_run`")
        return samples

    def load_run_samples(self, view: RunView) -> dict[int, tuple[Sample, ...]]:
        """The raw samples of every metric of a loaded run: metric id -> samples in
        measurement order (every metric of ``view`` is a key, with () when it has none)."""
        with self._read() as conn:
            return reads.load_run_samples(conn, view.id, [m.id for r in view.results for m in r.metrics])

    def list_runs(self, limit: int = 20) -> list[RunInfo]:
        """The newest ``limit`` runs, newest first."""
        stale = set(self.mark_stale_running())
        with self._read() as conn:
            return reads.list_runs(conn, limit, stale)

    def latest_run_id(self) -> int | None:
        """The id of the most recently started run, or None in an empty database."""
        with self._read() as conn:
            return reads.latest_run_id(conn)


def _connect(path: Path) -> sqlite3.Connection:
    if path.is_dir():
        raise RtoslabError(f"database path {path} is a directory: pass a file path with --db")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise RtoslabError(
            f"cannot create directory {path.parent} for the database ({err.strerror}): pass another --db"
        ) from err
    try:
        conn = sqlite3.connect(path, timeout=_BUSY_TIMEOUT_S, isolation_level=None)
    except sqlite3.Error as err:
        raise RtoslabError(f"cannot open database {path} ({err}): pass another --db") from err
    conn.row_factory = sqlite3.Row
    return conn


def open_store(path: str | Path | None = None, *, clock: Clock | None = None) -> Store:
    """Open (creating if needed) and migrate the results database.

    ``path`` defaults to ``default_db_path()``. ``clock`` gives the times written
    (default: now, UTC); tests pass a fixed one.
    """
    db_path = Path(path) if path is not None else default_db_path()
    conn = _connect(db_path)
    now = clock or utc_now
    try:
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA journal_mode = WAL")
        migrate(conn, db_path, iso_utc(now()))
    except sqlite3.DatabaseError as err:
        conn.close()
        if getattr(err, "sqlite_errorname", "") == "SQLITE_NOTADB":
            raise RtoslabError(
                f"{db_path} is not an SQLite database: pass another --db or set RTOSLAB_DB"
            ) from err
        raise RtoslabError(f"cannot open database {db_path} ({err}): pass another --db") from err
    except BaseException:
        conn.close()
        raise
    return Store(conn, db_path, now)
