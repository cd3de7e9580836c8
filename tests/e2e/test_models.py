"""The execution models end to end (issue 6): seed 002's toggling tasks as super loop, state
machines and RTOS tasks, and seed 000's FTL firmware as OS tasks, as cooperative OS tasks
(the coop kernel, issue 30) and as state machines.

One experiment file runs every build (an exercise of `[[exclude]]` with `benchmark` too);
the assertions are structural facts of each model, not instruction counts that a compiler
update would change.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rtoslab.store.db import Store, open_store
from rtoslab.views import ResultView

from .conftest import RunCli

pytestmark = pytest.mark.qemu

ROUNDS = 10
FTL_METRICS = ["sw", "sr", "rr"] + [f"rw_{k}" for k in range(1, 9)] + ["total"]

EXPERIMENT = """
name = "models-e2e"
benchmarks = ["toggle_superloop", "toggle_fsm", "toggle_rtos", "ftl_os", "ftl_fsm", "ftl_coop"]
[matrix]
kernel = ["baremetal", "freertos", "coop"]
opt = ["-O2"]
[matrix.defines]
TOGGLE_TASKS = [1, 3]
[matrix.kernel_options]
configTICK_RATE_HZ = [1000, 100000]
# bare metal: super loop, FSM, FTL FSM; FreeRTOS: RTOS tasks, FTL OS; coop: FTL coop
[[exclude]]
kernel = "coop"
defines.TOGGLE_TASKS = 3
[[exclude]]
benchmark = "ftl_coop"
kernel = "baremetal"
[[exclude]]
benchmark = "ftl_coop"
kernel = "freertos"
[[exclude]]
benchmark = "toggle_superloop"
kernel = "coop"
[[exclude]]
benchmark = "toggle_fsm"
kernel = "coop"
[[exclude]]
benchmark = "ftl_fsm"
kernel = "coop"
[[exclude]]
benchmark = "ftl_os"
kernel = "coop"
[[exclude]]
benchmark = "toggle_rtos"
kernel = "coop"
[[exclude]]
benchmark = "toggle_rtos"
kernel = "baremetal"
[[exclude]]
benchmark = "ftl_os"
kernel = "baremetal"
[[exclude]]
benchmark = "toggle_superloop"
kernel = "freertos"
[[exclude]]
benchmark = "toggle_fsm"
kernel = "freertos"
[[exclude]]
benchmark = "ftl_fsm"
kernel = "freertos"
# the FTL once per kernel (in the N = 1 builds)
[[exclude]]
benchmark = "ftl_os"
defines.TOGGLE_TASKS = 3
[[exclude]]
benchmark = "ftl_fsm"
defines.TOGGLE_TASKS = 3
[[exclude]]
benchmark = "ftl_os"
kernel_options.configTICK_RATE_HZ = 100000
[[exclude]]
benchmark = "toggle_rtos"
defines.TOGGLE_TASKS = 1
kernel_options.configTICK_RATE_HZ = 100000
"""


@pytest.fixture(scope="module")
def models(run_cli: RunCli, tmp_path_factory: pytest.TempPathFactory) -> tuple[Store, list[ResultView]]:
    tmp = tmp_path_factory.mktemp("models")
    exp = tmp / "models.toml"
    exp.write_text(EXPERIMENT)
    db = tmp / "r.sqlite"
    proc = run_cli("run", str(exp), "--json", "--db", str(db))
    assert proc.returncode == 0, proc.stderr[-3000:]
    store = open_store(db)
    view = store.load_run(json.loads(proc.stdout)["run_id"])
    return store, list(view.results)


def _find(models: tuple[Store, list[ResultView]], bench: str, tasks: int = 1,
          tick_hz: int | None = None) -> ResultView:
    _, results = models
    found = [r for r in results if r.benchmark == bench
             and r.config.identity["axes"]["defines.TOGGLE_TASKS"] == tasks
             and (tick_hz is None or r.config.kernel_config.get("configTICK_RATE_HZ") == tick_hz)]
    assert len(found) == 1, [(r.benchmark, r.config.cflags, r.config.kernel_config) for r in found]
    assert found[0].status == "ok", found[0].reason
    return found[0]


def _samples(models: tuple[Store, list[ResultView]], r: ResultView) -> dict[str, list[int]]:
    store, _ = models
    return {m.name: [s.insns for s in store.load_samples(m.id)] for m in r.metrics}


def _toggle_names(n: int) -> list[str]:
    return ([f"start_{k}" for k in range(1, n + 1)] + [f"done_{k}" for k in range(1, n + 1)]
            + ["spread", "total"])


def test_plan_ran_each_benchmark_only_where_the_experiment_put_it(models: tuple) -> None:
    _, results = models
    where = sorted((r.benchmark, r.config.kernel) for r in results)
    assert all(r.status == "ok" for r in results), [(r.benchmark, r.reason) for r in results]
    assert set(where) == {("toggle_superloop", "baremetal"), ("toggle_fsm", "baremetal"),
                          ("ftl_fsm", "baremetal"), ("toggle_rtos", "freertos"), ("ftl_os", "freertos"),
                          ("ftl_coop", "coop")}
    assert len(results) == 2 + 2 + 1 + 3 + 1 + 1  # super loop and FSM x2, ftl_fsm, RTOS x3, ftl_os, ftl_coop


@pytest.mark.parametrize("bench", ["toggle_superloop", "toggle_fsm", "toggle_rtos"])
@pytest.mark.parametrize("tasks", [1, 3])
def test_toggle_metrics_one_sample_per_round(models: tuple, bench: str, tasks: int) -> None:
    r = _find(models, bench, tasks, 1000 if bench == "toggle_rtos" else None)
    assert [m.name for m in r.metrics] == _toggle_names(tasks)
    assert all(m.n_samples == ROUNDS for m in r.metrics)
    s = _samples(models, r)
    for i in range(ROUNDS):
        for k in range(1, tasks + 1):
            assert s[f"start_{k}"][i] < s[f"done_{k}"][i] <= s["total"][i]
        assert max(s[f"done_{k}"][i] for k in range(1, tasks + 1)) < s["total"][i]
    assert r.counters["toggle_tasks"] == tasks and r.counters["toggle_rounds"] == ROUNDS


@pytest.mark.parametrize("bench", ["toggle_superloop", "toggle_fsm", "toggle_rtos"])
def test_toggle_total_grows_with_tasks(models: tuple, bench: str) -> None:
    hz = 1000 if bench == "toggle_rtos" else None
    one = _samples(models, _find(models, bench, 1, hz))
    three = _samples(models, _find(models, bench, 3, hz))
    # Three tasks do three times the writes: at least 2.9x the time, and the RTOS or FSM
    # overhead per task never makes it more than 3.2x.
    assert 2.9 * max(one["total"]) < min(three["total"]) < 3.2 * min(one["total"])
    assert max(one["spread"]) < 50  # one task: only the completion bookkeeping


def test_superloop_runs_tasks_one_after_the_other(models: tuple) -> None:
    s = _samples(models, _find(models, "toggle_superloop", 3))
    for i in range(ROUNDS):
        assert s["done_1"][i] < s["start_2"][i] and s["done_2"][i] < s["start_3"][i]
        # the spread is two whole tasks
        assert s["spread"][i] > 1.9 * (s["done_1"][i] - s["start_1"][i])


def test_fsm_interleaves_equal_priority_objects_slice_by_slice(models: tuple) -> None:
    s = _samples(models, _find(models, "toggle_fsm", 3))
    for i in range(ROUNDS):
        # every task starts before the first one finishes; round-robin order is kept
        assert s["start_1"][i] < s["start_2"][i] < s["start_3"][i] < s["done_1"][i]
        assert s["done_1"][i] < s["done_2"][i] < s["done_3"][i]
        # the spread is two slices (1000 writes each), not two tasks (8000 writes)
        assert s["spread"][i] < 0.3 * (s["done_1"][i] - s["start_1"][i])


def test_rtos_at_1khz_time_slices_the_tasks_as_a_board_does(models: tuple) -> None:
    """On the one clock a 1 kHz tick comes every 25,000 cycles at 25 MHz, shorter than a
    task's 8000 writes (about 40,000 instructions), so the kernel time-slices the tasks as
    on a board: every task starts before the first one finishes. (On QEMU's instruction
    clock the tick came every 1,000,000 instructions and the tasks ran one after the other
    in most rounds, like the super loop.)"""
    s = _samples(models, _find(models, "toggle_rtos", 3, 1000))
    for i in range(ROUNDS):
        first_done = min(s[f"done_{k}"][i] for k in (1, 2, 3))
        assert all(s[f"start_{k}"][i] < first_done for k in (1, 2, 3)), i


def test_rtos_time_slicing_at_100khz_interleaves_tasks(models: tuple) -> None:
    s = _samples(models, _find(models, "toggle_rtos", 3, 100000))
    for i in range(ROUNDS):
        first_done = min(s[f"done_{k}"][i] for k in (1, 2, 3))
        assert all(s[f"start_{k}"][i] < first_done for k in (1, 2, 3))
        assert s["spread"][i] < 0.25 * (s["done_1"][i] - s["start_1"][i])


def test_ftl_os_coop_and_fsm_do_the_same_verified_work(models: tuple) -> None:
    os_r = _find(models, "ftl_os")
    fsm_r = _find(models, "ftl_fsm")
    coop_r = _find(models, "ftl_coop")
    for r in (os_r, fsm_r, coop_r):
        assert [m.name for m in r.metrics] == FTL_METRICS
        assert all(m.n_samples == 1 for m in r.metrics)
    counters = {k: v for k, v in os_r.counters.items() if k.startswith("ftl_")}
    assert counters == {k: v for k, v in fsm_r.counters.items() if k.startswith("ftl_")}
    assert counters == {k: v for k, v in coop_r.counters.items() if k.startswith("ftl_")}
    # the cooperative tasks have no stacks of their own: everything ran on main's
    assert not any(k.startswith("stack_peak_") for k in coop_r.counters)
    assert 0 < coop_r.counters["main_stack_peak_bytes"] < 8192
    assert counters["ftl_gc_runs"] > 0 and counters["ftl_pages_relocated"] > 0
    assert counters["ftl_write_amp_x1000"] > 1000
    # the OS tasks' 1 KiB stacks keep a margin (the FSM runs on main's stack)
    assert all(0 < os_r.counters[f"stack_peak_{t}"] < 768 for t in ("host", "ftl", "nand"))
    s = _samples(models, fsm_r)
    # random writes get slower once garbage collection runs
    assert s["rw_8"][0] > 2 * s["rw_1"][0]


def test_corrupted_read_fails_the_run_with_the_check(run_cli: RunCli, tmp_path: Path) -> None:
    proc = run_cli("run", "--bench", "ftl_fsm", "--kernel", "baremetal",
                   "--define", "FTL_APP_CORRUPT_READ=1", "--json", "--db", str(tmp_path / "r.sqlite"))
    assert proc.returncode == 1, proc.stderr[-2000:]
    (r,) = json.loads(proc.stdout)["results"]
    assert r["status"] == "failed" and r["median"] is None
    assert "self-check failed" in r["reason"]
    assert "FTL data verification: a page read differs from what was written" in r["reason"]
