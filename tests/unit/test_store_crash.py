"""Crash safety: a benchmark result is stored whole or not at all, and a run whose
process died reads as incomplete."""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from rtoslab.records import BenchResult, MetricResult, Sample, Summary
from rtoslab.store import Store, open_store, writes

IDENTITY: dict[str, object] = {
    "identity_hash": "feed01",
    "target": "mps2-an385",
    "core": "cortex-m3",
    "kernel": "baremetal",
    "kernel_config": {},
    "kernel_config_hash": "kc",
    "compiler": "gcc",
    "compiler_version": "13",
    "cflags": "-O2",
    "ldflags": "",
    "timing": {},
}

COUNTED = ("bench_runs", "metrics", "samples", "summaries")


def two_metric_result(name: str) -> BenchResult:
    def metric(metric_name: str) -> MetricResult:
        s = Summary(3, 1.0, 3.0, 2.0, 2.0, 1.0, 1.0, 2.8, 2.98)
        samples = (Sample(1, 2), Sample(2, 3), Sample(3, 4))
        return MetricResult(metric_name, "", samples, {"insn": s, "cycle": s})

    return BenchResult(name, "ok", None, (metric("first"), metric("second")))


def counts(store: Store) -> dict[str, int]:
    conn = store._conn
    return {t: int(conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]) for t in COUNTED}


def test_failure_inside_add_bench_result_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with open_store(tmp_path / "r.sqlite") as store:
        run_id = store.begin_run("c", "r", "h", {})
        config = store.upsert_config(IDENTITY)
        store.add_bench_result(run_id, config, "s0", two_metric_result("kept"))
        before = counts(store)

        real = writes.insert_summaries
        calls: list[int] = []

        def fail_on_second_metric(conn: sqlite3.Connection, metric_id: int, m: MetricResult) -> None:
            calls.append(metric_id)
            if len(calls) == 2:  # the first metric is fully written, the second half
                raise OSError("disk on fire")
            real(conn, metric_id, m)

        monkeypatch.setattr(writes, "insert_summaries", fail_on_second_metric)
        with pytest.raises(OSError, match="disk on fire"):
            store.add_bench_result(run_id, config, "s1", two_metric_result("lost"))
        assert len(calls) == 2
        assert counts(store) == before
        monkeypatch.setattr(writes, "insert_summaries", real)

        # The store and the run are still usable.
        store.add_bench_result(run_id, config, "s2", two_metric_result("after"))
        view = store.load_run(run_id)
        assert [r.benchmark for r in view.results] == ["kept", "after"]
        assert all(len(r.metrics) == 2 for r in view.results)


CHILD = textwrap.dedent(
    """
    import sys, time
    from rtoslab.records import BenchResult, MetricResult, Sample, Summary
    from rtoslab.store import open_store, writes

    IDENTITY = {IDENTITY!r}

    def result(name):
        s = Summary(2, 1.0, 2.0, 1.5, 1.5, 1.0, 0.7, 1.9, 1.99)
        m = MetricResult("m", "", (Sample(1, 1), Sample(2, 2)), {{"insn": s}})
        return BenchResult(name, "ok", None, (m,))

    store = open_store(sys.argv[1])
    run_id = store.begin_run("child", "rev", "host", {{}})
    config = store.upsert_config(IDENTITY)
    store.add_bench_result(run_id, config, "s", result("done"))

    def hang(conn, metric_id, metric):
        print("mid", run_id, flush=True)  # bench_run, metric and samples written, uncommitted
        time.sleep(60)

    writes.insert_summaries = hang
    store.add_bench_result(run_id, config, "s", result("interrupted"))
    """
).format(IDENTITY=IDENTITY)


def test_killed_run_reads_as_incomplete_with_committed_results(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None and child.stderr is not None
        line = child.stdout.readline()
        assert line.startswith("mid "), f"child failed: {line!r} {child.stderr.read()}"
        run_id = int(line.split()[1])
        child.send_signal(signal.SIGKILL)
    finally:
        child.kill()
        child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL

    with open_store(db) as store:
        assert [r.status for r in store.list_runs()] == ["incomplete"]
        view = store.load_run(run_id)
        assert view.status == "incomplete"
        assert view.finished_at is None
        assert [r.benchmark for r in view.results] == ["done"]
        assert view.results[0].metrics[0].n_samples == 2
        assert counts(store) == {"bench_runs": 1, "metrics": 1, "samples": 2, "summaries": 1}
    # The status was recorded, not only reported.
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("SELECT status FROM runs").fetchone()[0] == "incomplete"
    finally:
        conn.close()


def _forge_owner(store: Store, run_id: int, host: str, pid: int, start: str | None) -> None:
    store._conn.execute(
        "UPDATE runs SET owner_host = ?, owner_pid = ?, owner_start = ? WHERE id = ?",
        (host, pid, start, run_id),
    )


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_live_and_foreign_runs_stay_running(tmp_path: Path) -> None:
    with open_store(tmp_path / "r.sqlite") as store:
        mine = store.begin_run("c", "r", "h", {})
        elsewhere = store.begin_run("c", "r", "h", {})
        dead = store.begin_run("c", "r", "h", {})
        _forge_owner(store, elsewhere, socket.gethostname() + ".other", _dead_pid(), None)
        _forge_owner(store, dead, socket.gethostname(), _dead_pid(), None)
        assert store.mark_stale_running() == [dead]
        assert store.load_run(mine).status == "running"
        assert store.load_run(elsewhere).status == "running"  # cannot tell: left alone
        assert store.load_run(dead).status == "incomplete"
        assert store.mark_stale_running() == []


@pytest.mark.skipif(not Path(f"/proc/{os.getpid()}/stat").exists(), reason="needs /proc")
def test_reused_pid_is_not_mistaken_for_the_owner(tmp_path: Path) -> None:
    with open_store(tmp_path / "r.sqlite") as store:
        run_id = store.begin_run("c", "r", "h", {})
        # Our pid, but a different process start time: the pid was reused.
        _forge_owner(store, run_id, socket.gethostname(), os.getpid(), "1")
        assert store.load_run(run_id).status == "incomplete"


def test_finish_run_after_interrupted_write(tmp_path: Path) -> None:
    """A signal handler may call finish_run while a write is open: it is rolled back."""
    with open_store(tmp_path / "r.sqlite") as store:
        run_id = store.begin_run("c", "r", "h", {})
        config = store.upsert_config(IDENTITY)
        store._conn.execute("BEGIN IMMEDIATE")
        writes.insert_bench_result(store._conn, run_id, config, "s", two_metric_result("half"), "now")
        assert store.finish_run(run_id, "incomplete") is True
        view = store.load_run(run_id)
        assert (view.status, view.results) == ("incomplete", ())
