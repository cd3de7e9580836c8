"""Inserts and updates. Nothing here opens or ends a transaction: the Store does."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping

from rtoslab.analysis.irq_windows import to_doc
from rtoslab.records import BenchResult, MetricResult, RtoslabError, extra_document
from rtoslab.store.codec import flags_text, json_dict, to_json
from rtoslab.store.owner import Owner
from rtoslab.views import BENCH_STATUSES, IDENTITY_KEYS


def insert_run(
    conn: sqlite3.Connection,
    *,
    started_at: str,
    command: str,
    revision: str,
    host: str,
    tool_versions: Mapping[str, str],
    experiment: str | None,
    owner: Owner,
    report_spec: str | None = None,
    shard: str | None = None,
) -> int:
    cur = conn.execute(
        """
        INSERT INTO runs (started_at, status, rtoslab_revision, host, tool_versions, command,
                          experiment, owner_host, owner_pid, owner_start, report_spec, shard)
        VALUES (?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """,
        (
            started_at,
            revision,
            host,
            to_json(dict(tool_versions)),
            command,
            experiment,
            owner.host,
            owner.pid,
            owner.start,
            report_spec,
            shard,
        ),
    )
    assert cur.lastrowid is not None
    return cur.lastrowid


def _check_identity(identity: Mapping[str, object]) -> None:
    missing = [key for key in IDENTITY_KEYS if key not in identity]
    if missing:
        raise ValueError(f"config identity lacks keys: {', '.join(missing)}")
    if not isinstance(identity["identity_hash"], str) or not identity["identity_hash"]:
        raise ValueError("config identity 'identity_hash' must be a non-empty string")
    for key in ("kernel_config", "timing"):
        if not isinstance(identity[key], Mapping):
            raise ValueError(f"config identity {key!r} must be a dict")


def upsert_config(conn: sqlite3.Connection, identity: Mapping[str, object]) -> int:
    """The id of the config with ``identity['identity_hash']`` (column ``hash``), inserting
    it if new.

    A stored config with the same hash but a different identity means the hash does not
    cover every identity field; that is refused rather than silently merged.
    """
    _check_identity(identity)
    config_hash = str(identity["identity_hash"])
    identity_json = to_json(dict(identity))
    row = conn.execute("SELECT id, identity FROM configs WHERE hash = ?", (config_hash,)).fetchone()
    if row is not None:
        stored = json_dict(row["identity"])
        given = json_dict(identity_json)
        if stored != given:
            keys = stored.keys() | given.keys()
            differ = sorted(k for k in keys if stored.get(k) != given.get(k))
            raise RtoslabError(
                f"config {config_hash} is already stored with different {', '.join(differ)}: "
                "the configuration hash must cover every identity field; fix the hashing"
            )
        return int(row["id"])
    cur = conn.execute(
        """
        INSERT INTO configs (hash, target, core, kernel, kernel_config, kernel_config_hash,
                             compiler, compiler_version, cflags, ldflags, timing, identity)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """,
        (
            config_hash,
            str(identity["target"]),
            str(identity["core"]),
            str(identity["kernel"]),
            to_json(identity["kernel_config"]),
            str(identity["kernel_config_hash"]),
            str(identity["compiler"]),
            str(identity["compiler_version"]),
            flags_text(identity["cflags"]),
            flags_text(identity["ldflags"]),
            to_json(identity["timing"]),
            identity_json,
        ),
    )
    assert cur.lastrowid is not None
    return cur.lastrowid


def run_status(conn: sqlite3.Connection, run_id: int) -> str | None:
    row = conn.execute("SELECT status FROM runs WHERE id = ?", (run_id,)).fetchone()
    return None if row is None else str(row["status"])


def insert_bench_result(
    conn: sqlite3.Connection,
    run_id: int,
    config_id: int,
    source_hash: str,
    result: BenchResult,
    created_at: str,
    plan_index: int | None = None,
) -> int:
    if result.status not in BENCH_STATUSES:
        raise ValueError(
            f"benchmark {result.benchmark}: status {result.status!r} "
            f"is not one of {', '.join(BENCH_STATUSES)}"
        )
    if conn.execute("SELECT 1 FROM configs WHERE id = ?", (config_id,)).fetchone() is None:
        raise ValueError(f"no config {config_id}: store it with upsert_config first")
    calib = result.calibration
    cur = conn.execute(
        """
        INSERT INTO bench_runs (run_id, config_id, benchmark, source_hash, status, reason,
                                console, total_insns, total_cycles, calib_insns, calib_cycles,
                                extra, created_at, plan_index)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """,
        (
            run_id,
            config_id,
            result.benchmark,
            source_hash,
            result.status,
            result.reason,
            result.console,
            result.total_insns,
            result.total_cycles,
            None if calib is None else calib.insns,
            None if calib is None else calib.cycles,
            to_json(extra_document(result.wall_s, result.counters, result.footprint,
                                   result.footprint_error, result.console_dropped)),
            created_at,
            plan_index,
        ),
    )
    assert cur.lastrowid is not None
    bench_run_id = cur.lastrowid
    for metric in result.metrics:
        insert_metric(conn, bench_run_id, metric)
    if result.irq_windows is not None:
        conn.execute("INSERT INTO irq_windows (bench_run_id, report) VALUES (?, ?)",
                     (bench_run_id, to_json(to_doc(result.irq_windows))))
    return bench_run_id


def insert_metric(conn: sqlite3.Connection, bench_run_id: int, metric: MetricResult) -> int:
    cur = conn.execute(
        "INSERT INTO metrics (bench_run_id, name, description, time_base, time_note) VALUES (?, ?, ?, ?, ?)",
        (bench_run_id, metric.name, metric.description, str(metric.time_base), metric.time_note),
    )
    assert cur.lastrowid is not None
    metric_id = cur.lastrowid
    insert_samples(conn, metric_id, metric)
    insert_summaries(conn, metric_id, metric)
    return metric_id


def insert_samples(conn: sqlite3.Connection, metric_id: int, metric: MetricResult) -> None:
    conn.executemany(
        "INSERT INTO samples (metric_id, seq, insns, cycles) VALUES (?, ?, ?, ?)",
        ((metric_id, seq, s.insns, s.cycles) for seq, s in enumerate(metric.samples)),
    )


def insert_summaries(conn: sqlite3.Connection, metric_id: int, metric: MetricResult) -> None:
    conn.executemany(
        """
        INSERT INTO summaries (metric_id, unit, n, min, max, mean, median, mode, stdev,
                               p90, p99, warnings)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """,
        (
            (
                metric_id,
                unit,
                s.n,
                s.min,
                s.max,
                s.mean,
                s.median,
                s.mode,
                s.stdev,
                s.p90,
                s.p99,
                to_json(list(s.warnings)),
            )
            for unit, s in metric.summaries.items()
        ),
    )


def finish_run(conn: sqlite3.Connection, run_id: int, status: str, finished_at: str) -> bool:
    """Set a running run's final status; False if it was no longer running."""
    cur = conn.execute(
        "UPDATE runs SET status = ?, finished_at = ? WHERE id = ? AND status = 'running'",
        (status, finished_at, run_id),
    )
    return cur.rowcount > 0


def mark_incomplete(conn: sqlite3.Connection, run_ids: list[int]) -> None:
    conn.executemany(
        "UPDATE runs SET status = 'incomplete' WHERE id = ? AND status = 'running'",
        ((run_id,) for run_id in run_ids),
    )


def delete_run(conn: sqlite3.Connection, run_id: int) -> int:
    """Delete a run and, by the schema's cascades, its benchmark results, metrics, samples,
    summaries and masked-interrupt windows; configurations stay (other runs share them).
    Returns how many benchmark results it had."""
    n = conn.execute("SELECT COUNT(*) FROM bench_runs WHERE run_id = ?", (run_id,)).fetchone()[0]
    conn.execute("DELETE FROM runs WHERE id = ?", (run_id,))
    return int(n)
