"""Seed 001's delay experiment end to end (k_delay_tasks, FreeRTOS on mps2-an385, the one
clock): five tasks of descending priority each delaying 50 ms on the same tick.

What must hold, from the benchmark's design (its C file's header): every delay lasts 50
ticks minus the part of the tick period the task spent before calling it, so it lies
between 49 and 50 tick periods; the tasks wake in priority order, each later than the one
above it by that task's work; the wake-up offset cancels in the delay, so the tasks'
delays agree to a few cycles whatever their rank; every round runs the same code, so the
samples of a task are all equal after the first; a log line in the body shortens each
delay and pushes the lower tasks later; and two runs give the same samples.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from rtoslab.store import open_store

from .conftest import RunCli

pytestmark = pytest.mark.qemu

TASKS = range(1, 6)
TICK_CYCLES = 25_000_000 // 1000  # mps2-an385 at 25 MHz, FreeRTOS at 1 kHz
SAMPLES = 100


def _run(run_cli: RunCli, db: Path, *extra: str) -> tuple[dict[str, list[int]], dict[str, int]]:
    """Each metric's samples in cycles, and the firmware's LAB-KV counters."""
    proc = run_cli("run", "--bench", "k_delay_tasks", "--kernel", "freertos", "--db", str(db), *extra)
    assert proc.returncode == 0, proc.stderr[-2000:]
    with open_store(db) as store:
        view = store.load_run(store.latest_run_id() or 0)
        (result,) = view.results
        assert result.status == "ok", result.reason
        samples = {m.name: [s.cycles for s in store.load_samples(m.id)] for m in result.metrics}
        return samples, dict(result.counters)


@pytest.fixture(scope="module")
def unlogged(run_cli: RunCli, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, list[int]], Path]:
    db = tmp_path_factory.mktemp("delay") / "r.sqlite"
    samples, counters = _run(run_cli, db)
    assert counters["delay_ticks"] == 50 and counters["tick_cycles"] == TICK_CYCLES
    assert counters["late_delays"] == 0
    return samples, db


def _median(xs: list[int]) -> float:
    s = sorted(xs)
    return (s[len(s) // 2] + s[(len(s) - 1) // 2]) / 2


def test_every_delay_lasts_between_49_and_50_ticks(unlogged: tuple[dict[str, list[int]], Path]) -> None:
    samples, _ = unlogged
    for k in TASKS:
        delays = samples[f"task{k}_delay"]
        assert len(delays) == SAMPLES
        assert all(49 * TICK_CYCLES < d < 50 * TICK_CYCLES for d in delays), (k, min(delays), max(delays))


def test_lower_priority_tasks_wake_later_but_read_the_same_delay(
        unlogged: tuple[dict[str, list[int]], Path]) -> None:
    samples, _ = unlogged
    wakes = [samples[f"task{k}_wake"] for k in TASKS]
    for above, below in itertools.pairwise(wakes):
        # the task above and its body run first: more than 100 cycles each
        assert min(below) > max(above) + 100, (max(above), min(below))
    delays = [_median(samples[f"task{k}_delay"]) for k in TASKS]
    # the wake-up offset is at both ends of a delay: rank does not show in it
    assert max(delays) - min(delays) < 20, delays
    assert _median(wakes[4]) - _median(wakes[0]) > 1000


def test_every_round_runs_the_same_code(unlogged: tuple[dict[str, list[int]], Path]) -> None:
    samples, _ = unlogged
    for name, values in samples.items():
        assert len(set(values[1:])) == 1, (name, sorted(set(values)))
        # the start-up round skips only the loop's back branch
        assert abs(values[0] - values[1]) <= 16, (name, values[:2])


def test_samples_repeat_and_a_log_line_moves_them(run_cli: RunCli, tmp_path: Path,
                                                   unlogged: tuple[dict[str, list[int]], Path]) -> None:
    samples, _ = unlogged
    again, _ = _run(run_cli, tmp_path / "again.sqlite")
    assert again == samples
    logged, _ = _run(run_cli, tmp_path / "log.sqlite", "--define", "LAB_LOG_MODE=1")
    for k in TASKS:
        # the printf in the body comes before the next call: the call is later in its tick
        # period, so the delay from it is shorter
        assert _median(logged[f"task{k}_delay"]) < _median(samples[f"task{k}_delay"]) - 100, k
    # each task above adds its printf to the wake-up of the tasks below
    step = [_median(logged[f"task{k + 1}_wake"]) - _median(logged[f"task{k}_wake"]) for k in range(1, 5)]
    base = [_median(samples[f"task{k + 1}_wake"]) - _median(samples[f"task{k}_wake"]) for k in range(1, 5)]
    assert all(s > b + 100 for s, b in zip(step, base, strict=True)), (step, base)
