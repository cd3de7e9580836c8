"""The results store: one SQLite database, opened and migrated by ``open_store``."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType

from rtoslab.records import BenchResult, RtoslabError, Sample, WriteError
from rtoslab.store import reads, writes
from rtoslab.store.codec import Clock, iso_utc, utc_now
from rtoslab.store.owner import current_owner, owner_is_gone
from rtoslab.store.paths import default_db_path
from rtoslab.store.schema import (
    MIGRATIONS,
    current_version,
    latest_version,
    migrate,
    oldest_readable_version,
    schema_problem,
)
from rtoslab.views import FINISHED_STATUSES, RunInfo, RunView

__all__ = ["Store", "StoreWriteError", "default_db_path", "open_store"]

_BUSY_TIMEOUT_S = 30.0


class StoreWriteError(WriteError):
    """The database could not be written (disk full, I/O error, read-only): what was
    stored before stays; the message says what to do."""


def _damaged(path: Path, err: sqlite3.Error) -> RtoslabError:
    said = " ".join(str(err).replace("*** in database main ***", "").split())
    return RtoslabError(
        f"database {path} is damaged ({said}): move it aside (mv {path} {path}.damaged) and run "
        f"again, or try `sqlite3 {path} .recover` to save what it holds"
    )


def _is_damage(err: sqlite3.Error) -> bool:
    name = getattr(err, "sqlite_errorname", "")
    return name in ("SQLITE_CORRUPT", "SQLITE_NOTADB") or "malformed" in str(err)


def _write_error(path: Path, err: sqlite3.Error) -> RtoslabError:
    if _is_damage(err):
        return _damaged(path, err)
    name = getattr(err, "sqlite_errorname", "")
    if name.startswith(("SQLITE_FULL", "SQLITE_IOERR")):
        return StoreWriteError(
            f"cannot write to database {path} ({err}): free space on its disk (or pass another --db) "
            "and run again; results stored before stay"
        )
    if name.startswith("SQLITE_READONLY"):
        return StoreWriteError(f"database {path} is read-only ({err}): pass a writable --db")
    return StoreWriteError(f"cannot write to database {path} ({err})")


class Store:
    """Writes runs and benchmark results, and reads them back as views.

    Every write method is its own transaction and is committed when it returns, so a
    process killed at any point leaves whole benchmark results only. Use ``open_store``
    to get one; close it (or use it as a context manager) when done.
    """

    def __init__(self, conn: sqlite3.Connection, path: Path, clock: Clock = utc_now,
                 read_only: bool = False) -> None:
        self._conn = conn
        self._path = path
        self._clock = clock
        self._read_only = read_only

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
        """One write transaction: committed on success, rolled back on any exception.

        An SQLite error (disk full, I/O error, damaged file) becomes one RtoslabError line;
        nothing of the failed transaction is kept."""
        try:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")
        except sqlite3.Error as err:
            if self._conn.in_transaction:
                # a connection that cannot roll back is unusable; SQLite rolls back on close
                with contextlib.suppress(sqlite3.Error):
                    self._conn.execute("ROLLBACK")
            raise _write_error(self._path, err) from err

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        """One read transaction, so a view is a consistent snapshot. A damaged file is one
        RtoslabError line saying what to do."""
        try:
            self._conn.execute("BEGIN")
            try:
                yield self._conn
            finally:
                self._conn.execute("COMMIT")
        except sqlite3.DatabaseError as err:
            if _is_damage(err):
                raise _damaged(self._path, err) from err
            raise RtoslabError(f"cannot read database {self._path} ({err})") from err

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
        report_spec: str | None = None,
        shard: str | None = None,
    ) -> int:
        """Record a new run with status ``running``; committed before this returns.
        ``report_spec``: an experiment's report spec (JSON, rtoslab.report.spec);
        ``shard``: "I/N" when the run is one shard of a plan."""
        with self._write() as conn:
            return writes.insert_run(
                conn,
                started_at=self._now(),
                command=command,
                revision=revision,
                host=host,
                tool_versions=tool_versions,
                experiment=experiment,
                report_spec=report_spec,
                owner=current_owner(),
                shard=shard,
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

    def add_bench_result(self, run_id: int, config_id: int, source_hash: str, result: BenchResult,
                         plan_index: int | None = None) -> int:
        """Store one benchmark result (its row, metrics, samples, summaries) atomically;
        ``plan_index``: its position in the whole plan (a shard's results are a part of it).

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
            return writes.insert_bench_result(conn, run_id, config_id, source_hash, result, self._now(),
                                              plan_index)

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

    def delete_run(self, run_id: int) -> int:
        """Delete one run's rows (its results, metrics, samples, summaries; its
        configurations stay, shared). Refuses an unknown id and a run still being written
        by a live process. Returns the number of benchmark results deleted."""
        stale = set(self.mark_stale_running())
        with self._write() as conn:
            status = writes.run_status(conn, run_id)
            if status is None:
                raise self._no_run(run_id)
            if status == "running" and run_id not in stale:
                raise RtoslabError(f"run {run_id} is still running (its process is alive): stop it "
                                   "first, then delete it")
            return writes.delete_run(conn, run_id)

    def _stale_run_ids(self) -> list[int]:
        return [run_id for run_id, owner in reads.running_owners(self._conn) if owner_is_gone(owner)]

    def mark_stale_running(self) -> list[int]:
        """Mark ``incomplete`` every running run whose process on this host is gone.

        Returns the ids marked. Reads do this themselves; a read-only database is left
        unchanged and the runs only read as incomplete.
        """
        stale = self._stale_run_ids()
        if stale and not self._read_only:
            try:
                with self._write() as conn:
                    writes.mark_incomplete(conn, stale)
            except StoreWriteError:
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

    def typical_wall_s(self, benchmarks: list[str]) -> dict[str, float]:
        """Median host seconds of each benchmark's stored runs (those that ran), for the
        estimate of a plan's duration; a benchmark never run here is left out."""
        if not benchmarks:
            return {}
        marks = ",".join("?" * len(benchmarks))
        with self._read() as conn:
            rows = conn.execute(
                f"SELECT benchmark, json_extract(extra, '$.wall_s') FROM bench_runs "
                f"WHERE benchmark IN ({marks}) AND json_extract(extra, '$.wall_s') IS NOT NULL "
                "ORDER BY id DESC LIMIT 5000", benchmarks).fetchall()
        times: dict[str, list[float]] = {}
        for name, wall in rows:
            times.setdefault(str(name), []).append(float(wall))
        return {k: sorted(v)[len(v) // 2] for k, v in times.items()}

    def add_build(self, run_id: int, image_key: str, target: str, kernel: str, benchmarks: int,
                  seconds: float, rebuilt: bool) -> None:
        """Record how long one configuration's build took in a run."""
        with self._write() as conn:
            conn.execute("INSERT INTO builds (run_id, image_key, target, kernel, benchmarks, seconds, "
                         "rebuilt, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                         (run_id, image_key, target, kernel, benchmarks, round(seconds, 3),
                          int(rebuilt), self._now()))

    def typical_build_s(self) -> dict[str, tuple[float, int]]:
        """Per target: (median seconds, how many) of the stored builds that had work to do,
        for the estimate of a plan's duration; a target never built here is left out."""
        with self._read() as conn:
            rows = conn.execute("SELECT target, seconds FROM builds WHERE rebuilt = 1 "
                                "ORDER BY id DESC LIMIT 5000").fetchall()
        times: dict[str, list[float]] = {}
        for target, seconds in rows:
            times.setdefault(str(target), []).append(float(seconds))
        return {k: (sorted(v)[len(v) // 2], len(v)) for k, v in times.items()}

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


def _another(option: str) -> str:
    """How a message says to name another database: the option that named this one
    (``--db`` also has the RTOSLAB_DB variable)."""
    return f"pass another {option}" + (" or set RTOSLAB_DB" if option == "--db" else "")


def _connect_read_only(path: Path, option: str = "--db") -> sqlite3.Connection:
    """Open an existing database without writing anything: not the file, not its directory.
    ``option``: the command-line option that named it, for the messages.

    ``mode=ro`` reads a database whose WAL files exist or can be created; on a read-only
    file system without them (a clean database copied or mounted read-only) SQLite cannot
    create the shared-memory file, and ``immutable=1`` reads the file as it is.
    """
    if path.is_dir():
        raise RtoslabError(f"database path {path} is a directory: pass a file path with {option}")
    if not path.is_file():
        if option == "--db":
            raise RtoslabError(f"no database at {path}: `rtoslab run` creates one; pass --db or set "
                               "RTOSLAB_DB to use another")
        raise RtoslabError(f"no database at {path}: pass {option} the path of an existing results "
                           "database (`rtoslab run --db PATH` creates one)")
    uri = path.resolve().as_uri()
    last: sqlite3.Error | None = None
    for query in ("mode=ro", "immutable=1"):
        try:
            conn = sqlite3.connect(f"{uri}?{query}", uri=True, timeout=_BUSY_TIMEOUT_S,
                                   isolation_level=None)
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.DatabaseError as err:
            if _is_damage(err):
                raise _damaged(path, err) from err
            last = err
            continue
        conn.row_factory = sqlite3.Row
        return conn
    raise RtoslabError(f"cannot open database {path} for reading ({last}): check its permissions")


# Read-only opens check files up to this size on open; a larger file is checked page by
# page as it is read (the same one-line error, at the first damaged page a command needs).
_READ_CHECK_MAX_BYTES = 200 * 1024 * 1024


def _check_intact(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse a damaged database on open: ``PRAGMA quick_check`` reads every page (about
    0.5 s per 100 MB on the development machine), so a run never writes into a damaged
    file and a read never ends in an SQLite traceback."""
    rows = conn.execute("PRAGMA quick_check(1)").fetchall()
    verdict = str(rows[0][0]) if rows else "no answer"
    if verdict != "ok":
        raise _damaged(path, sqlite3.DatabaseError(verdict))


def open_store(path: str | Path | None = None, *, clock: Clock | None = None,
               read_only: bool = False, option: str = "--db") -> Store:
    """Open (creating if needed) and migrate the results database.

    ``path`` defaults to ``default_db_path()``. ``clock`` gives the times written
    (default: now, UTC); tests pass a fixed one. ``read_only``: the database must exist
    (else one line "no database at ..."); nothing is created, migrated or written, so it
    works on a read-only mount. A damaged database is refused either way, with what to do.
    ``option``: the command-line option that named ``path`` (e.g. ``--baseline-db``), which
    a message about it names.
    """
    db_path = Path(path) if path is not None else default_db_path()
    now = clock or utc_now
    conn = _connect_read_only(db_path, option) if read_only else _connect(db_path)
    try:
        if read_only:
            conn.execute("PRAGMA query_only = ON")
            if db_path.stat().st_size <= _READ_CHECK_MAX_BYTES:
                _check_intact(conn, db_path)
            _check_readable_version(conn, db_path)
        else:
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("PRAGMA journal_mode = WAL")
            _check_intact(conn, db_path)
            migrate(conn, db_path, iso_utc(now()))
        _check_schema(conn, db_path)
    except sqlite3.DatabaseError as err:
        conn.close()
        if getattr(err, "sqlite_errorname", "") == "SQLITE_NOTADB":
            raise RtoslabError(f"{db_path} is not an SQLite database: {_another(option)}") from err
        if _is_damage(err):
            raise _damaged(db_path, err) from err
        raise RtoslabError(f"cannot open database {db_path} ({err}): pass another {option}") from err
    except BaseException:
        conn.close()
        raise
    return Store(conn, db_path, now, read_only=read_only)


def _check_schema(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse a database that lacks a table or column of the schema (dropped by hand or by
    another tool) like a damaged one: nothing reads or writes it."""
    problem = schema_problem(conn, current_version(conn, path))
    if problem is not None:
        raise _damaged(path, sqlite3.DatabaseError(problem))


def _check_readable_version(conn: sqlite3.Connection, path: Path) -> None:
    """A read-only open cannot migrate: an older schema is one line saying how to update it."""
    known = latest_version(MIGRATIONS)
    version = current_version(conn, path)
    if version > known:
        raise RtoslabError(f"database {path} has schema version {version}, newer than this rtoslab "
                           f"({known}): update rtoslab")
    if version < oldest_readable_version(MIGRATIONS):
        raise RtoslabError(f"database {path} has schema version {version} (this rtoslab reads "
                           f"{known}): open it once with write access, e.g. `rtoslab run`, to update it")
