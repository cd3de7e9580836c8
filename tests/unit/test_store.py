"""Store API: writing runs, configs and results, and reading them back."""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from rtoslab.records import BenchResult, Footprint, MetricResult, RtoslabError, Sample, Summary
from rtoslab.store import Store, default_db_path, open_store

START = datetime(2026, 11, 22, 4, 0, 0, tzinfo=UTC)

IDENTITY: dict[str, object] = {
    "identity_hash": "cafe01",
    "target": "mps2-an385",
    "core": "cortex-m3",
    "kernel": "freertos",
    "kernel_config": {"configUSE_PREEMPTION": 1},
    "kernel_config_hash": "kc01",
    "compiler": "arm-none-eabi-gcc",
    "compiler_version": "13.2.1",
    "cflags": ["-O2", "-mthumb"],
    "ldflags": "-nostartfiles",
    "timing": {},
    "board_rev": "C",
}


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with open_store(tmp_path / "db" / "results.sqlite", clock=lambda: START) as s:
        yield s


def summary(n: int, value: float, warnings: tuple[str, ...] = ()) -> Summary:
    return Summary(n, value, value, value, value, value, 0.0, value, value, warnings)


def ok_result(name: str = "loop", n: int = 3) -> BenchResult:
    samples = tuple(Sample(insns=10 + i, cycles=20 + i) for i in range(n))
    metric = MetricResult(
        name="m1",
        description="first metric",
        samples=samples,
        summaries={"cycle": summary(n, 21.0), "insn": summary(n, 11.0, ("few samples",))},
    )
    return BenchResult(
        benchmark=name,
        status="ok",
        reason=None,
        metrics=(metric,),
        console="hello\n",
        calibration=Sample(3, 4),
        total_insns=1000,
        total_cycles=1500,
        wall_s=0.5,
        counters={"image_size": 4096},
        footprint=Footprint({"kernel": 100, "libc": 20}, {"stack": 2048}, {".text": 120}),
        footprint_error=None,
    )


def new_run(store: Store) -> int:
    return store.begin_run("rtoslab run", "rev1", "host1", {"qemu": "8.2.2"}, experiment="e1")


# ------------------------------------------------------------------ paths and opening


def test_default_db_path_uses_env_then_cwd(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("RTOSLAB_DB", str(tmp_path / "x.sqlite"))
    assert default_db_path() == tmp_path / "x.sqlite"
    monkeypatch.delenv("RTOSLAB_DB")
    monkeypatch.chdir(tmp_path)
    assert default_db_path() == tmp_path / "rtoslab-results" / "results.sqlite"


def test_open_default_creates_parent_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("RTOSLAB_DB", raising=False)
    monkeypatch.chdir(tmp_path)
    with open_store() as store:
        assert store.path == tmp_path / "rtoslab-results" / "results.sqlite"
    assert (tmp_path / "rtoslab-results" / "results.sqlite").is_file()


def test_wal_and_foreign_keys_are_on(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    open_store(path).close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()
    with open_store(path) as store:
        conn = store._conn
        assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        with pytest.raises(sqlite3.IntegrityError):
            conn.execute("INSERT INTO metrics (bench_run_id, name, description) VALUES (999, 'x', '')")


def test_directory_as_db_path_is_refused(tmp_path: Path) -> None:
    with pytest.raises(RtoslabError, match="is a directory"):
        open_store(tmp_path)


# ------------------------------------------------------------------ runs


def test_begin_run_is_committed_and_reads_back(store: Store, tmp_path: Path) -> None:
    run_id = new_run(store)
    # Another connection sees it at once: begin_run committed.
    with open_store(store.path) as other:
        view = other.load_run(run_id)
    assert view.status == "running"  # this process owns it and is alive
    assert view.started_at == "2026-11-22T04:00:00Z"
    assert view.finished_at is None
    assert (view.command, view.rtoslab_revision, view.host) == ("rtoslab run", "rev1", "host1")
    assert view.tool_versions == {"qemu": "8.2.2"}
    assert view.experiment == "e1"
    assert view.results == ()


def test_finish_run_once(store: Store) -> None:
    run_id = new_run(store)
    assert store.finish_run(run_id, "complete") is True
    assert store.finish_run(run_id, "incomplete") is False  # e.g. a later finally handler
    view = store.load_run(run_id)
    assert view.status == "complete"
    assert view.finished_at == "2026-11-22T04:00:00Z"


def test_finish_run_rejects_bad_status_and_unknown_run(store: Store) -> None:
    run_id = new_run(store)
    with pytest.raises(ValueError, match="complete, incomplete, failed"):
        store.finish_run(run_id, "running")
    with pytest.raises(RtoslabError, match=r"no run 42 in .*`rtoslab runs` lists them"):
        store.finish_run(42, "failed")


def test_unknown_run_is_an_rtoslab_error(store: Store) -> None:
    with pytest.raises(RtoslabError, match=r"no run 42 in .*`rtoslab runs` lists them"):
        store.load_run(42)


def test_list_runs_and_latest(store: Store) -> None:
    assert store.latest_run_id() is None
    assert store.list_runs() == []
    first = new_run(store)
    config = store.upsert_config(IDENTITY)
    store.add_bench_result(first, config, "s1", ok_result("a"))
    store.add_bench_result(first, config, "s2", BenchResult("b", "failed", "boom"))
    store.add_bench_result(first, config, "s3", BenchResult("c", "n/a", "no threads"))
    store.finish_run(first, "complete")
    second = new_run(store)
    assert store.latest_run_id() == second
    runs = store.list_runs()
    assert [r.id for r in runs] == [second, first]
    assert (runs[1].n_ok, runs[1].n_failed, runs[1].n_na) == (1, 1, 1)
    assert runs[1].status == "complete" and runs[0].status == "running"
    assert [r.id for r in store.list_runs(limit=1)] == [second]


# ------------------------------------------------------------------ configs


def test_upsert_config_is_idempotent_and_keeps_extra_keys(store: Store) -> None:
    first = store.upsert_config(IDENTITY)
    assert store.upsert_config(dict(IDENTITY)) == first
    other = store.upsert_config({**IDENTITY, "identity_hash": "cafe02", "kernel": "zephyr"})
    assert other != first
    run_id = new_run(store)
    store.add_bench_result(run_id, first, "src", ok_result())
    config = store.load_run(run_id).results[0].config
    assert config.hash == "cafe01"
    assert config.cflags == "-O2 -mthumb"
    assert config.kernel_config == {"configUSE_PREEMPTION": 1}
    assert config.timing == {}
    assert config.identity["board_rev"] == "C"
    assert config.identity["cflags"] == ["-O2", "-mthumb"]


def test_upsert_config_same_hash_other_identity_is_refused(store: Store) -> None:
    store.upsert_config(IDENTITY)
    with pytest.raises(RtoslabError, match="cafe01 is already stored with different kernel"):
        store.upsert_config({**IDENTITY, "kernel": "zephyr"})


def test_upsert_config_needs_all_identity_keys(store: Store) -> None:
    partial = {k: v for k, v in IDENTITY.items() if k not in ("core", "timing")}
    with pytest.raises(ValueError, match="lacks keys: core, timing"):
        store.upsert_config(partial)


# ------------------------------------------------------------------ results


def test_bench_result_round_trip(store: Store) -> None:
    run_id = new_run(store)
    config = store.upsert_config(IDENTITY)
    bench_id = store.add_bench_result(run_id, config, "srchash", ok_result(n=4))
    store.add_bench_result(run_id, config, "srchash2", BenchResult("sem", "failed", "hang"))
    view = store.load_run(run_id)
    ok, failed = view.results
    assert ok.id == bench_id
    assert (ok.benchmark, ok.status, ok.reason, ok.source_hash) == ("loop", "ok", None, "srchash")
    assert (ok.console, ok.total_insns, ok.total_cycles) == ("hello\n", 1000, 1500)
    assert ok.calibration == Sample(3, 4)
    assert (ok.wall_s, ok.counters, ok.footprint_error) == (0.5, {"image_size": 4096}, None)
    assert ok.footprint == Footprint({"kernel": 100, "libc": 20}, {"stack": 2048}, {".text": 120})
    assert ok.created_at == "2026-11-22T04:00:00Z"
    (metric,) = ok.metrics
    assert (metric.name, metric.description, metric.n_samples) == ("m1", "first metric", 4)
    assert list(metric.summaries) == ["insn", "cycle"]  # display order, not insert order
    assert metric.summaries["insn"] == summary(4, 11.0, ("few samples",))
    assert store.load_samples(metric.id) == tuple(Sample(10 + i, 20 + i) for i in range(4))
    assert (failed.status, failed.reason, failed.metrics, failed.calibration) == (
        "failed",
        "hang",
        (),
        None,
    )
    assert view.configs == (ok.config,)


def test_nan_statistics_survive(store: Store) -> None:
    run_id = new_run(store)
    config = store.upsert_config(IDENTITY)
    nan = Summary(1, 5.0, 5.0, 5.0, 5.0, 5.0, math.nan, 5.0, 5.0)
    metric = MetricResult("m", "", (Sample(5, 0),), {"insn": nan})
    store.add_bench_result(run_id, config, "s", BenchResult("b", "ok", None, (metric,)))
    (result,) = store.load_run(run_id).results
    assert math.isnan(result.metrics[0].summaries["insn"].stdev)


def test_unknown_metric_samples(store: Store) -> None:
    with pytest.raises(RtoslabError, match="no metric 7"):
        store.load_samples(7)


def test_results_only_go_to_running_runs(store: Store) -> None:
    run_id = new_run(store)
    config = store.upsert_config(IDENTITY)
    store.finish_run(run_id, "complete")
    with pytest.raises(RtoslabError, match=f"run {run_id} is complete"):
        store.add_bench_result(run_id, config, "s", ok_result())
    with pytest.raises(RtoslabError, match="no run 99"):
        store.add_bench_result(99, config, "s", ok_result())


def test_bad_bench_status_and_unknown_config(store: Store) -> None:
    run_id = new_run(store)
    config = store.upsert_config(IDENTITY)
    with pytest.raises(ValueError, match="status 'skipped'"):
        store.add_bench_result(run_id, config, "s", BenchResult("b", "skipped", None))
    with pytest.raises(ValueError, match="no config 77"):
        store.add_bench_result(run_id, 77, "s", ok_result())
    assert store.load_run(run_id).results == ()
