"""Schema versioning: forward migrations, refusal of newer and foreign databases."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from rtoslab.records import RtoslabError
from rtoslab.store import MIGRATIONS, Migration, latest_version, open_store
from rtoslab.store.schema import current_version, migrate

TABLES = {"schema_version", "runs", "configs", "bench_runs", "metrics", "samples", "summaries",
          "irq_windows", "builds"}


def tables(path: Path) -> set[str]:
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        ).fetchall()
    finally:
        conn.close()
    return {r[0] for r in rows}


def versions(path: Path) -> list[int]:
    conn = sqlite3.connect(path)
    try:
        return [r[0] for r in conn.execute("SELECT version FROM schema_version ORDER BY version")]
    finally:
        conn.close()


def test_migrations_are_numbered_from_one() -> None:
    assert [m.version for m in MIGRATIONS] == list(range(1, len(MIGRATIONS) + 1))
    assert latest_version() == len(MIGRATIONS)


@pytest.mark.parametrize("create_file", [False, True])
def test_empty_db_migrates_to_latest(tmp_path: Path, create_file: bool) -> None:
    path = tmp_path / "r.sqlite"
    if create_file:
        path.touch()  # a 0-byte file is an empty SQLite database: version 0
    open_store(path).close()
    assert tables(path) == TABLES
    assert versions(path) == list(range(1, latest_version() + 1))
    # Opening again applies nothing and keeps the data.
    with open_store(path) as store:
        run_id = store.begin_run("c", "r", "h", {})
    with open_store(path) as store:
        assert store.load_run(run_id).command == "c"
    assert versions(path) == list(range(1, latest_version() + 1))


def test_newer_db_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    open_store(path).close()
    conn = sqlite3.connect(path)
    newer = latest_version() + 1
    conn.execute("INSERT INTO schema_version (version, applied_at) VALUES (?, 'later')", (newer,))
    conn.commit()
    conn.close()
    with pytest.raises(RtoslabError) as err:
        open_store(path)
    assert str(err.value) == (
        f"database {path} has schema v{newer}, this rtoslab knows up to v{latest_version()}: "
        "upgrade rtoslab or use another --db"
    )


def test_non_sqlite_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("these are not the results you are looking for\n" * 100)
    with pytest.raises(RtoslabError, match="is not an SQLite database: pass another --db"):
        open_store(path)
    assert path.read_text().startswith("these are not")  # left untouched


def test_foreign_sqlite_db_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE accounts (id INTEGER PRIMARY KEY)")
    conn.commit()
    conn.close()
    with pytest.raises(RtoslabError, match="not an rtoslab results database"):
        open_store(path)
    assert tables(path) == {"accounts"}


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.row_factory = sqlite3.Row
    return conn


def test_later_migrations_apply_in_order(tmp_path: Path) -> None:
    """A database at the latest version (n) meets code that knows n + 2: both run, in
    order, once."""
    path = tmp_path / "r.sqlite"
    open_store(path).close()
    applied: list[int] = []
    n = latest_version()

    def data_fix(conn: sqlite3.Connection) -> None:
        applied.append(n + 2)
        conn.execute("UPDATE runs SET experiment = 'migrated' WHERE experiment IS NULL")

    future = (
        *MIGRATIONS,
        Migration(n + 1, "index", ("CREATE INDEX runs_by_status ON runs (status)",)),
        Migration(n + 2, "data fix", data_fix),
    )
    with open_store(path) as store:
        run_id = store.begin_run("c", "r", "h", {})
    conn = _connect(path)
    try:
        assert migrate(conn, path, "2026-11-22T04:00:00Z", future) == n
        assert current_version(conn, path) == n + 2
        assert migrate(conn, path, "2026-11-22T04:00:00Z", future) == n + 2  # nothing pending
    finally:
        conn.close()
    assert applied == [n + 2]
    assert versions(path) == list(range(1, n + 3))
    conn = _connect(path)
    try:
        row = conn.execute("SELECT experiment FROM runs WHERE id = ?", (run_id,)).fetchone()
        assert row[0] == "migrated"
    finally:
        conn.close()


def test_failed_migration_leaves_db_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"

    def broken(conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE half_done (x INTEGER)")
        raise RuntimeError("migration bug")

    conn = _connect(path)
    try:
        with pytest.raises(RuntimeError, match="migration bug"):
            migrate(conn, path, "now", (*MIGRATIONS, Migration(latest_version() + 1, "broken", broken)))
        assert not conn.in_transaction
    finally:
        conn.close()
    assert tables(path) == set()  # not even v1 is applied: all pending steps are one unit


def test_gap_in_migration_numbers_is_a_bug(tmp_path: Path) -> None:
    conn = _connect(tmp_path / "r.sqlite")
    try:
        with pytest.raises(ValueError, match="without gaps"):
            migrate(conn, tmp_path, "now", (*MIGRATIONS, Migration(latest_version() + 2, "skip", ())))
    finally:
        conn.close()


def test_v4_admits_time_base_paced_and_keeps_rows(tmp_path: Path) -> None:
    """A v3 database (time bases modelled, virtual, derived) gains 'paced': its rows stay,
    the new value is stored, anything else is still refused by the CHECK."""
    path = tmp_path / "r.sqlite"
    conn = _connect(path)
    try:
        migrate(conn, path, "then", MIGRATIONS[:3])
        insert = ("INSERT INTO metrics (bench_run_id, name, description, time_base, time_note) "
                  "VALUES (1, ?, '', ?, '')")
        conn.execute(insert, ("old", "virtual"))
        with pytest.raises(sqlite3.IntegrityError):
            conn.execute(insert, ("early", "paced"))
        assert migrate(conn, path, "now", MIGRATIONS[:4]) == 3
        assert current_version(conn, path) == 4
    finally:
        conn.close()
    conn = _connect(path)  # a new connection reads the rewritten definition
    try:
        conn.execute(insert, ("new", "paced"))
        with pytest.raises(sqlite3.IntegrityError):
            conn.execute(insert, ("bad", "wallclock"))
        rows = conn.execute("SELECT name, time_base FROM metrics ORDER BY id").fetchall()
        assert [tuple(r) for r in rows] == [("old", "virtual"), ("new", "paced")]
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()


V5_MAIN = Path(__file__).resolve().parents[1] / "data" / "store" / "v5-main.sqlite"


def _columns_of(path: Path, table: str) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        return [str(r[1]) for r in conn.execute(f"PRAGMA table_info({table})")]
    finally:
        conn.close()


def test_v7_names_the_timing_column_and_a_v5_database_still_reads(tmp_path: Path) -> None:
    """A database written by the code before v7 (configs column "model"; tests/data/store)
    reads read-only without migrating, and a write open renames the column to "timing"
    keeping every value."""
    want = {"clock_hz": 50_000_000, "core": "cortex-m3", "div": "typ", "flash": "0x0:0x400000",
            "flash_ws": 2, "prefetch": "off", "sram": "0x20000000:0x400000", "sram_ws": 0,
            "time": "one-clock"}
    path = tmp_path / "old.sqlite"
    path.write_bytes(V5_MAIN.read_bytes())
    assert "model" in _columns_of(path, "configs") and versions(path)[-1] == 5
    with open_store(path, read_only=True) as store:
        (old,) = store.load_run(1).results
    assert old.config.timing == want and versions(path)[-1] == 5
    with open_store(path) as store:
        (new,) = store.load_run(1).results
    assert versions(path)[-1] == latest_version() >= 7
    columns = _columns_of(path, "configs")
    assert "timing" in columns and "model" not in columns
    assert new.config == old.config
    assert [m.name for m in new.metrics] == [m.name for m in old.metrics] == ["yield"]
    with open_store(path) as store:
        samples = store.load_samples(new.metrics[0].id)
    assert [(s.insns, s.cycles) for s in samples] == [(100 + i, 130 + 2 * i) for i in range(12)]
