"""The results database schema and its forward migrations.

The schema version is the highest ``version`` in table ``schema_version``; a database
without that table and without any other table is version 0 (new and empty).
Migrations run in order, all pending ones in one transaction, so a database is never
left half migrated. A database newer than this code is refused, never guessed at.

To change the schema, append a migration; never edit one that has been released.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from rtoslab.records import RtoslabError


@dataclass(frozen=True)
class Migration:
    """One step from ``version - 1`` to ``version``.

    ``apply`` is either a sequence of single SQL statements or a callable that gets the
    connection (for steps that must transform data). It runs inside the migration
    transaction and must not commit.
    """

    version: int
    description: str
    apply: Sequence[str] | Callable[[sqlite3.Connection], None]
    # False when readers of this version do without the step (it only added a column they
    # read as NULL when absent): a read-only open then reads a database not yet migrated
    # to it (one on a read-only mount cannot be).
    readers_need: bool = True


_V1_STATEMENTS: tuple[str, ...] = (
    """
    CREATE TABLE schema_version (
        version    INTEGER PRIMARY KEY,
        applied_at TEXT NOT NULL
    )
    """,
    # One invocation of `rtoslab run`. owner_* identify the process that writes it, so
    # a reader can tell a run whose process died (status still 'running') from a live one.
    """
    CREATE TABLE runs (
        id               INTEGER PRIMARY KEY,
        started_at       TEXT NOT NULL,
        finished_at      TEXT,
        status           TEXT NOT NULL
                         CHECK (status IN ('running', 'complete', 'incomplete', 'failed')),
        rtoslab_revision TEXT NOT NULL,
        host             TEXT NOT NULL,
        tool_versions    TEXT NOT NULL DEFAULT '{}',
        command          TEXT NOT NULL,
        experiment       TEXT,
        owner_host       TEXT,
        owner_pid        INTEGER,
        owner_start      TEXT
    )
    """,
    # A build/run configuration, keyed by the caller's identity hash. `identity` holds the
    # complete identity dict, so identity fields added later need no migration.
    """
    CREATE TABLE configs (
        id                 INTEGER PRIMARY KEY,
        hash               TEXT NOT NULL UNIQUE,
        target             TEXT NOT NULL,
        core               TEXT NOT NULL,
        kernel             TEXT NOT NULL,
        kernel_config      TEXT NOT NULL DEFAULT '{}',
        kernel_config_hash TEXT NOT NULL,
        compiler           TEXT NOT NULL,
        compiler_version   TEXT NOT NULL,
        cflags             TEXT NOT NULL,
        ldflags            TEXT NOT NULL,
        model              TEXT NOT NULL DEFAULT '{}',
        identity           TEXT NOT NULL
    )
    """,
    # One benchmark image run once, in one configuration, within one run.
    """
    CREATE TABLE bench_runs (
        id           INTEGER PRIMARY KEY,
        run_id       INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        config_id    INTEGER NOT NULL REFERENCES configs (id),
        benchmark    TEXT NOT NULL,
        source_hash  TEXT NOT NULL,
        status       TEXT NOT NULL CHECK (status IN ('ok', 'failed', 'n/a')),
        reason       TEXT,
        console      TEXT NOT NULL DEFAULT '',
        total_insns  INTEGER NOT NULL DEFAULT 0,
        total_cycles INTEGER NOT NULL DEFAULT 0,
        calib_insns  INTEGER,
        calib_cycles INTEGER,
        extra        TEXT NOT NULL DEFAULT '{}',
        created_at   TEXT NOT NULL
    )
    """,
    "CREATE INDEX bench_runs_by_run ON bench_runs (run_id)",
    "CREATE INDEX bench_runs_by_config ON bench_runs (config_id, benchmark)",
    """
    CREATE TABLE metrics (
        id           INTEGER PRIMARY KEY,
        bench_run_id INTEGER NOT NULL REFERENCES bench_runs (id) ON DELETE CASCADE,
        name         TEXT NOT NULL,
        description  TEXT NOT NULL DEFAULT '',
        UNIQUE (bench_run_id, name)
    )
    """,
    # Raw samples, probe cost already subtracted, in measurement order.
    """
    CREATE TABLE samples (
        metric_id INTEGER NOT NULL REFERENCES metrics (id) ON DELETE CASCADE,
        seq       INTEGER NOT NULL,
        insns     INTEGER NOT NULL,
        cycles    INTEGER NOT NULL,
        PRIMARY KEY (metric_id, seq)
    ) WITHOUT ROWID
    """,
    """
    CREATE TABLE summaries (
        metric_id INTEGER NOT NULL REFERENCES metrics (id) ON DELETE CASCADE,
        unit      TEXT NOT NULL,
        n         INTEGER NOT NULL,
        min       REAL,
        max       REAL,
        mean      REAL,
        median    REAL,
        mode      REAL,
        stdev     REAL,
        p90       REAL,
        p99       REAL,
        warnings  TEXT NOT NULL DEFAULT '[]',
        PRIMARY KEY (metric_id, unit)
    ) WITHOUT ROWID
    """,
)

# v2: every metric states its time base (rtoslab.records.TimeBase). Metrics stored before
# keep NULL: their time base was never recorded (a timer-driven one may be virtual), and
# readers show it as unstated rather than guess.
_V2_STATEMENTS: tuple[str, ...] = (
    "ALTER TABLE metrics ADD COLUMN time_base TEXT "
    "CHECK (time_base IS NULL OR time_base IN ('modelled', 'virtual', 'derived'))",
    "ALTER TABLE metrics ADD COLUMN time_note TEXT NOT NULL DEFAULT ''",
)

# v3: the masked-window report of a result run with `--irq-windows` (docs/irq-windows.md),
# one JSON document per result (docs/formats.md §9, with source locations).
_V3_STATEMENTS: tuple[str, ...] = (
    """
    CREATE TABLE irq_windows (
        bench_run_id INTEGER PRIMARY KEY REFERENCES bench_runs (id) ON DELETE CASCADE,
        report       TEXT NOT NULL
    )
    """,
)

# v4: time base 'paced' (rtoslab.records.TimeBase.PACED). SQLite cannot alter a CHECK
# constraint; its documented way for a change that leaves the stored format alone
# (sqlite.org/lang_altertable.html, "Making Other Kinds Of Table Schema Changes") is to
# rewrite the table's definition in sqlite_master and bump the schema version, inside the
# migration's transaction.
_V4_OLD_CHECK = "time_base IN ('modelled', 'virtual', 'derived')"
_V4_NEW_CHECK = "time_base IN ('modelled', 'virtual', 'derived', 'paced')"


def _v4_paced(conn: sqlite3.Connection) -> None:
    row = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'metrics'").fetchone()
    sql = str(row[0])
    if _V4_OLD_CHECK not in sql:
        raise RtoslabError("results database: table metrics lacks the time_base check of schema v2: "
                           "it was not made by rtoslab; use another --db")
    version = int(conn.execute("PRAGMA schema_version").fetchone()[0])
    conn.execute("PRAGMA writable_schema = ON")
    try:
        conn.execute("UPDATE sqlite_master SET sql = ? WHERE type = 'table' AND name = 'metrics'",
                     (sql.replace(_V4_OLD_CHECK, _V4_NEW_CHECK),))
        conn.execute(f"PRAGMA schema_version = {version + 1}")
    finally:
        conn.execute("PRAGMA writable_schema = OFF")


# v5: an experiment run's report spec (rtoslab.report.spec, JSON), so `show` reports a run
# as it was reported when its file has moved or changed. NULL: not an experiment, or a run
# stored before (`show` then reads the file, if it still loads).
_V5_STATEMENTS: tuple[str, ...] = ("ALTER TABLE runs ADD COLUMN report_spec TEXT",)

# v6: shards (below), and how long each configuration's build took (for the estimate of
# a plan's duration: `rtoslab run` counts builds from earlier ones of the same target).
# ``seconds`` is the time the build held its lock (configure + ninja, not the wait for
# another process); ``rebuilt`` 0 when ninja found nothing to do. Readers need none of it.
_V6_STATEMENTS: tuple[str, ...] = (
    """
    CREATE TABLE builds (
        id         INTEGER PRIMARY KEY,
        run_id     INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        image_key  TEXT NOT NULL,
        target     TEXT NOT NULL,
        kernel     TEXT NOT NULL,
        benchmarks INTEGER NOT NULL,
        seconds    REAL NOT NULL,
        rebuilt    INTEGER NOT NULL,
        created_at TEXT NOT NULL
    )
    """,
    "CREATE INDEX builds_by_target ON builds (target, rebuilt)",
    # a run of one shard of a plan (`run --shard I/N`) says which; `rtoslab merge` puts
    # the shards' results back in the whole plan's order by each result's plan_index
    "ALTER TABLE runs ADD COLUMN shard TEXT",
    "ALTER TABLE bench_runs ADD COLUMN plan_index INTEGER",
)

# v7: configs.model is configs.timing, the name the identity, the CLI (--timing) and the
# experiment files ([matrix.timing]) use for the timing-model settings. RENAME COLUMN
# (SQLite 3.25) keeps the stored values; readers of an older database opened read-only
# read its column "model" (store.reads), so the step is not needed to read.
_V7_STATEMENTS: tuple[str, ...] = ("ALTER TABLE configs RENAME COLUMN model TO timing",)

MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "runs, configs, bench_runs, metrics, samples, summaries", _V1_STATEMENTS),
    Migration(2, "metrics: time_base, time_note", _V2_STATEMENTS),
    Migration(3, "irq_windows: masked-window reports", _V3_STATEMENTS),
    Migration(4, "metrics: time base 'paced'", _v4_paced),
    Migration(5, "runs: report_spec", _V5_STATEMENTS, readers_need=False),
    Migration(6, "builds: build durations; runs.shard, bench_runs.plan_index", _V6_STATEMENTS,
              readers_need=False),
    Migration(7, "configs: column model renamed timing", _V7_STATEMENTS, readers_need=False),
)


def latest_version(migrations: Sequence[Migration] = MIGRATIONS) -> int:
    return migrations[-1].version if migrations else 0


def oldest_readable_version(migrations: Sequence[Migration] = MIGRATIONS) -> int:
    """The oldest schema this version reads without migrating: the latest, less the
    trailing steps readers do without."""
    version = latest_version(migrations)
    for m in reversed(migrations):
        if m.readers_need:
            break
        version = m.version - 1
    return version


def _table_names(conn: sqlite3.Connection) -> set[str]:
    rows = conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    ).fetchall()
    return {str(row[0]) for row in rows}


@cache
def expected_columns(migrations: tuple[Migration, ...] = MIGRATIONS) -> dict[str, tuple[str, ...]]:
    """Every table of the latest schema and its columns, as the migrations make them (on
    an in-memory database)."""
    conn = sqlite3.connect(":memory:", isolation_level=None)
    try:
        migrate(conn, Path(":memory:"), "", migrations)
        return _columns(conn)
    finally:
        conn.close()


def _columns(conn: sqlite3.Connection) -> dict[str, tuple[str, ...]]:
    return {table: tuple(str(r[1]) for r in conn.execute(f"PRAGMA table_info(\"{table}\")"))
            for table in sorted(_table_names(conn))}


def schema_problem(conn: sqlite3.Connection, version: int | None = None) -> str | None:
    """What the database lacks of the schema at ``version`` (default: the latest) (a
    dropped table, a missing column), or None when it has every table and column. Extra
    tables and columns are left alone. An older database opened read-only is checked
    against its own version's schema, which is complete for it."""
    have = _columns(conn)
    steps = MIGRATIONS if version is None else tuple(m for m in MIGRATIONS if m.version <= version)
    for table, columns in expected_columns(steps).items():
        if table not in have:
            return f"table {table} is missing"
        lacking = [c for c in columns if c not in have[table]]
        if lacking:
            return f"table {table} lacks column(s) {', '.join(lacking)}"
    return None


def current_version(conn: sqlite3.Connection, path: Path) -> int:
    """The schema version of an open database; 0 for an empty one."""
    tables = _table_names(conn)
    if "schema_version" not in tables:
        if tables:
            raise RtoslabError(
                f"database {path} is an SQLite file but not an rtoslab results database: "
                "pass another --db or set RTOSLAB_DB to another path"
            )
        return 0
    row = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()
    return int(row[0]) if row is not None and row[0] is not None else 0


def _check_known(version: int, path: Path, known: int) -> None:
    if version > known:
        raise RtoslabError(
            f"database {path} has schema v{version}, this rtoslab knows up to v{known}: "
            "upgrade rtoslab or use another --db"
        )


def migrate(
    conn: sqlite3.Connection,
    path: Path,
    now: str,
    migrations: Sequence[Migration] = MIGRATIONS,
) -> int:
    """Bring the database to the latest schema; return the version it was at before.

    ``conn`` must be in autocommit mode (``isolation_level=None``), outside a transaction.
    """
    versions = [m.version for m in migrations]
    if versions != list(range(1, len(versions) + 1)):
        raise ValueError(f"migrations must be numbered 1, 2, 3, ... without gaps: {versions}")
    known = latest_version(migrations)
    before = current_version(conn, path)
    _check_known(before, path, known)
    if before == known:
        return before
    # Take the write lock first, then look again: another process may have migrated
    # between our first look and now.
    conn.execute("BEGIN IMMEDIATE")
    try:
        before = current_version(conn, path)
        _check_known(before, path, known)
        for migration in migrations:
            if migration.version <= before:
                continue
            if callable(migration.apply):
                migration.apply(conn)
            else:
                for statement in migration.apply:
                    conn.execute(statement)
            conn.execute(
                "INSERT INTO schema_version (version, applied_at) VALUES (?, ?)",
                (migration.version, now),
            )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return before
