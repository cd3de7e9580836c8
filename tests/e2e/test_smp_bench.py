"""Cross-core kernel benchmarks end to end (issue 18, seed 003; docs/smp.md): real builds,
real QEMU on mps2-an521's two Cortex-M33. A give on core 0 wakes a task on core 1 and the
benchmark's self-checks pass; a kernel configuration that schedules one core, and the
single-core kernel, report n/a with the reason, never a number or a failure."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import RunCli

pytestmark = pytest.mark.qemu


def _results(run_cli: RunCli, db: Path, *args: str) -> list[dict[str, object]]:
    proc = run_cli("run", "--json", "--db", str(db), "--target", "mps2-an521", "--bench", "k_sem_x", *args)
    out = json.loads(proc.stdout)["results"]
    assert isinstance(out, list)
    return out


def test_cross_core_give_runs_on_the_smp_kernel(run_cli: RunCli, tmp_path: Path) -> None:
    rows = _results(run_cli, tmp_path / "r.sqlite", "--kernel", "freertos-smp",
                    "--option", "labSMP_START_CORES=2")
    by_unit = {r["unit"]: r for r in rows if r["metric"] == "sem_shuffle_x"}
    assert set(by_unit) >= {"insn", "cycle"}, rows
    insn = by_unit["insn"]
    assert insn["status"] == "ok" and insn["n"] == 1000
    # the wake-up crosses cores: the give's kernel path, the doorbell, core 1's interrupt
    # entry and switch; more than a few instructions, and the same every round once warm
    assert float(insn["mode"]) > 50  # type: ignore[arg-type]
    assert float(insn["min"]) <= float(insn["mode"]) <= float(insn["max"])  # type: ignore[arg-type]


def test_cross_core_give_is_na_on_one_scheduled_core_and_on_the_single_core_kernel(
        run_cli: RunCli, tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    one = _results(run_cli, db, "--kernel", "freertos-smp", "--option", "labSMP_START_CORES=1")
    assert [(r["status"], r["metric"]) for r in one] == [("n/a", None)], one
    assert "schedules 1 core" in str(one[0]["reason"]) and "needs 2" in str(one[0]["reason"])
    single = _results(run_cli, db, "--kernel", "freertos")
    assert [r["status"] for r in single] == ["n/a"], single
    assert "LAB_HAS_SMP" in str(single[0]["reason"])
