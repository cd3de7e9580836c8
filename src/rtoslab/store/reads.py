"""Queries that build the read-side views. Nothing here writes."""

from __future__ import annotations

import sqlite3

from rtoslab.analysis.irq_windows import from_doc
from rtoslab.records import (
    SUMMARY_UNITS,
    IrqWindows,
    RtoslabError,
    Sample,
    Summary,
    TimeBase,
    Unit,
    parse_extra,
)
from rtoslab.store.codec import json_dict, json_str_list, real_or_nan
from rtoslab.store.owner import Owner
from rtoslab.views import ConfigView, MetricView, ResultView, RunInfo, RunView

_RUN_COLUMNS = (
    "id, started_at, finished_at, status, rtoslab_revision, host, tool_versions, command, experiment"
)


def _unit(text: str) -> Unit:
    """A stored unit; one this version does not know is refused (it would be guessed at)."""
    try:
        return Unit(text)
    except ValueError:
        known = ", ".join(u.value for u in SUMMARY_UNITS)
        raise RtoslabError(f"the database holds a summary in unknown unit {text!r} (known: {known}): "
                           "read it with the rtoslab version that wrote it") from None


def _unit_key(unit: Unit) -> int:
    return SUMMARY_UNITS.index(unit) if unit in SUMMARY_UNITS else len(SUMMARY_UNITS)


def running_owners(conn: sqlite3.Connection) -> list[tuple[int, Owner]]:
    """Runs still marked running whose owner is recorded, with that owner."""
    rows = conn.execute(
        "SELECT id, owner_host, owner_pid, owner_start FROM runs "
        "WHERE status = 'running' AND owner_host IS NOT NULL AND owner_pid IS NOT NULL"
    ).fetchall()
    return [
        (
            int(r["id"]),
            Owner(host=str(r["owner_host"]), pid=int(r["owner_pid"]), start=r["owner_start"]),
        )
        for r in rows
    ]


def _has_column(conn: sqlite3.Connection, table: str, column: str) -> bool:
    return any(str(r[1]) == column for r in conn.execute(f"PRAGMA table_info({table})"))


def load_run(conn: sqlite3.Connection, run_id: int, stale: set[int]) -> RunView | None:
    # (report_spec: schema v5; a database read-only before its migration has none)
    spec = "report_spec" if _has_column(conn, "runs", "report_spec") else "NULL AS report_spec"
    row = conn.execute(f"SELECT {_RUN_COLUMNS}, {spec} FROM runs WHERE id = ?", (run_id,)).fetchone()
    if row is None:
        return None
    tool_versions = {str(k): str(v) for k, v in json_dict(row["tool_versions"]).items()}
    return RunView(
        id=int(row["id"]),
        started_at=str(row["started_at"]),
        finished_at=row["finished_at"],
        status="incomplete" if run_id in stale else str(row["status"]),
        rtoslab_revision=str(row["rtoslab_revision"]),
        host=str(row["host"]),
        tool_versions=tool_versions,
        command=str(row["command"]),
        experiment=row["experiment"],
        results=_load_results(conn, run_id),
        report_spec=row["report_spec"],
    )


def _config_view(row: sqlite3.Row) -> ConfigView:
    return ConfigView(
        id=int(row["c_id"]),
        hash=str(row["hash"]),
        target=str(row["target"]),
        core=str(row["core"]),
        kernel=str(row["kernel"]),
        kernel_config=json_dict(row["kernel_config"]),
        kernel_config_hash=str(row["kernel_config_hash"]),
        compiler=str(row["compiler"]),
        compiler_version=str(row["compiler_version"]),
        cflags=str(row["cflags"]),
        ldflags=str(row["ldflags"]),
        timing=json_dict(row["timing"]),
        identity=json_dict(row["identity"]),
    )


def _load_summaries(conn: sqlite3.Connection, run_id: int) -> dict[int, dict[Unit, Summary]]:
    rows = conn.execute(
        """
        SELECT su.* FROM summaries su
        JOIN metrics m ON m.id = su.metric_id
        JOIN bench_runs b ON b.id = m.bench_run_id
        WHERE b.run_id = ?
        """,
        (run_id,),
    ).fetchall()
    by_metric: dict[int, dict[Unit, Summary]] = {}
    for r in sorted(rows, key=lambda r: (r["metric_id"], _unit_key(_unit(str(r["unit"]))))):
        by_metric.setdefault(int(r["metric_id"]), {})[_unit(str(r["unit"]))] = Summary(
            n=int(r["n"]),
            min=real_or_nan(r["min"]),
            max=real_or_nan(r["max"]),
            mean=real_or_nan(r["mean"]),
            median=real_or_nan(r["median"]),
            mode=real_or_nan(r["mode"]),
            stdev=real_or_nan(r["stdev"]),
            p90=real_or_nan(r["p90"]),
            p99=real_or_nan(r["p99"]),
            warnings=json_str_list(r["warnings"]),
        )
    return by_metric


def _load_metrics(conn: sqlite3.Connection, run_id: int) -> dict[int, list[MetricView]]:
    summaries = _load_summaries(conn, run_id)
    rows = conn.execute(
        """
        SELECT m.id, m.bench_run_id, m.name, m.description, m.time_base, m.time_note,
               (SELECT COUNT(*) FROM samples s WHERE s.metric_id = m.id) AS n_samples
        FROM metrics m JOIN bench_runs b ON b.id = m.bench_run_id
        WHERE b.run_id = ?
        ORDER BY m.id
        """,
        (run_id,),
    ).fetchall()
    by_bench: dict[int, list[MetricView]] = {}
    for r in rows:
        by_bench.setdefault(int(r["bench_run_id"]), []).append(
            MetricView(
                id=int(r["id"]),
                name=str(r["name"]),
                description=str(r["description"]),
                n_samples=int(r["n_samples"]),
                summaries=summaries.get(int(r["id"]), {}),
                time_base=None if r["time_base"] is None else TimeBase(str(r["time_base"])),
                time_note=str(r["time_note"] or ""),
            )
        )
    return by_bench


def _load_irq_windows(conn: sqlite3.Connection, run_id: int) -> dict[int, IrqWindows]:
    """The masked-window reports of a run's results, by bench_runs id (none in a database
    older than schema v3, read without migrating)."""
    has = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'irq_windows'").fetchone()
    if has is None:
        return {}
    rows = conn.execute(
        "SELECT w.bench_run_id, w.report FROM irq_windows w JOIN bench_runs b ON b.id = w.bench_run_id "
        "WHERE b.run_id = ?", (run_id,)).fetchall()
    return {int(r[0]): from_doc(json_dict(r[1])) for r in rows}


def _load_results(conn: sqlite3.Connection, run_id: int) -> tuple[ResultView, ...]:
    metrics = _load_metrics(conn, run_id)
    windows = _load_irq_windows(conn, run_id)
    # (configs.timing: schema v7; before, and in a database opened read-only before its
    # migration, the column was "model")
    timing = "c.timing" if _has_column(conn, "configs", "timing") else "c.model AS timing"
    rows = conn.execute(
        f"""
        SELECT b.*, c.id AS c_id, c.hash, c.target, c.core, c.kernel, c.kernel_config,
               c.kernel_config_hash, c.compiler, c.compiler_version, c.cflags, c.ldflags,
               {timing}, c.identity
        FROM bench_runs b JOIN configs c ON c.id = b.config_id
        WHERE b.run_id = ?
        ORDER BY b.id
        """,
        (run_id,),
    ).fetchall()
    configs: dict[int, ConfigView] = {}
    results = []
    for r in rows:
        config = configs.get(int(r["c_id"]))
        if config is None:
            config = configs[int(r["c_id"])] = _config_view(r)
        calibration = (
            None
            if r["calib_insns"] is None
            else Sample(insns=int(r["calib_insns"]), cycles=int(r["calib_cycles"] or 0))
        )
        extra = parse_extra(json_dict(r["extra"]))
        results.append(
            ResultView(
                id=int(r["id"]),
                benchmark=str(r["benchmark"]),
                config=config,
                source_hash=str(r["source_hash"]),
                status=str(r["status"]),
                reason=r["reason"],
                console=str(r["console"]),
                total_insns=int(r["total_insns"]),
                total_cycles=int(r["total_cycles"]),
                calibration=calibration,
                wall_s=extra.wall_s,
                counters=extra.counters,
                footprint=extra.footprint,
                footprint_error=extra.footprint_error,
                created_at=str(r["created_at"]),
                metrics=tuple(metrics.get(int(r["id"]), [])),
                irq_windows=windows.get(int(r["id"])),
                console_dropped=extra.console_dropped,
            )
        )
    return tuple(results)


def load_samples(conn: sqlite3.Connection, metric_id: int) -> tuple[Sample, ...] | None:
    """The samples of a metric in measurement order; None if there is no such metric."""
    if conn.execute("SELECT 1 FROM metrics WHERE id = ?", (metric_id,)).fetchone() is None:
        return None
    rows = conn.execute(
        "SELECT insns, cycles FROM samples WHERE metric_id = ? ORDER BY seq", (metric_id,)
    ).fetchall()
    return tuple(Sample(insns=int(r[0]), cycles=int(r[1])) for r in rows)


def load_run_samples(conn: sqlite3.Connection, run_id: int,
                     metric_ids: list[int]) -> dict[int, tuple[Sample, ...]]:
    """The samples of the given metrics of a run, by metric id, each in measurement order."""
    out: dict[int, list[Sample]] = {m: [] for m in metric_ids}
    rows = conn.execute(
        """
        SELECT s.metric_id, s.insns, s.cycles FROM samples s
        JOIN metrics m ON m.id = s.metric_id
        JOIN bench_runs b ON b.id = m.bench_run_id
        WHERE b.run_id = ?
        ORDER BY s.metric_id, s.seq
        """,
        (run_id,),
    )
    for metric_id, insns, cycles in rows:
        if metric_id in out:
            out[metric_id].append(Sample(insns=int(insns), cycles=int(cycles)))
    return {m: tuple(samples) for m, samples in out.items()}


def list_runs(conn: sqlite3.Connection, limit: int, stale: set[int]) -> list[RunInfo]:
    rows = conn.execute(
        """
        SELECT r.id, r.started_at, r.finished_at, r.status, r.rtoslab_revision, r.host,
               r.command, r.experiment,
               (SELECT COUNT(*) FROM bench_runs b WHERE b.run_id = r.id AND b.status = 'ok')
                   AS n_ok,
               (SELECT COUNT(*) FROM bench_runs b WHERE b.run_id = r.id
                   AND b.status = 'failed') AS n_failed,
               (SELECT COUNT(*) FROM bench_runs b WHERE b.run_id = r.id AND b.status = 'n/a')
                   AS n_na
        FROM runs r ORDER BY r.id DESC LIMIT ?
        """,
        (limit,),
    ).fetchall()
    return [
        RunInfo(
            id=int(r["id"]),
            started_at=str(r["started_at"]),
            finished_at=r["finished_at"],
            status="incomplete" if int(r["id"]) in stale else str(r["status"]),
            rtoslab_revision=str(r["rtoslab_revision"]),
            host=str(r["host"]),
            command=str(r["command"]),
            experiment=r["experiment"],
            n_ok=int(r["n_ok"]),
            n_failed=int(r["n_failed"]),
            n_na=int(r["n_na"]),
        )
        for r in rows
    ]


def latest_run_id(conn: sqlite3.Connection) -> int | None:
    row = conn.execute("SELECT MAX(id) FROM runs").fetchone()
    return None if row is None or row[0] is None else int(row[0])
