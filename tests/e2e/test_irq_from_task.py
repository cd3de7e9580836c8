"""k_irq_from_task end to end (seed 001's interrupt response, measured its way: a task in
thread mode raises an interrupt; mps2-an385, the one clock).

What must hold, from the benchmark's design (its C file's header): every trigger is
handled before lab_target_irq_trigger returns (the benchmark's own check), one sample per
trigger; the interval holds only the trigger (the STIR write and two barriers: a few
instructions, the same every time) and the exception entry, which costs cycles and no
instructions, and it is the same path on bare metal (main) and under FreeRTOS (a task that
has just waited a tick), since nothing is masked when the task triggers.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rtoslab.store import open_store

from .conftest import RunCli

pytestmark = pytest.mark.qemu


def _samples(run_cli: RunCli, db: Path, kernel: str) -> tuple[list[int], list[int]]:
    proc = run_cli("run", "--bench", "k_irq_from_task", "--kernel", kernel, "--db", str(db))
    assert proc.returncode == 0, proc.stderr[-2000:]
    with open_store(db) as store:
        view = store.load_run(store.latest_run_id() or 0)
        (result,) = view.results
        assert result.status == "ok", result.reason
        (metric,) = result.metrics
        assert metric.name == "irq_from_task"
        samples = store.load_samples(metric.id)
        return [s.insns for s in samples], [s.cycles for s in samples]


def test_a_task_triggered_interrupt_is_the_trigger_plus_the_entry(run_cli: RunCli, tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    for kernel in ("baremetal", "freertos"):
        insns, cycles = _samples(run_cli, db, kernel)
        assert len(insns) == 1000, kernel
        assert set(insns) == {insns[0]} and 2 < insns[0] < 8, (kernel, sorted(set(insns)))
        # the exception entry (eight registers stacked, the vector fetched) costs cycles
        # and no instructions: at least the 12 cycles the Cortex-M3 TRM gives it
        assert min(cycles) - insns[0] >= 12, (kernel, min(cycles), insns[0])
        assert max(cycles) - min(cycles) <= 4, (kernel, min(cycles), max(cycles))
