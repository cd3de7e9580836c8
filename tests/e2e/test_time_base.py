"""Idle costs nothing and the timer-driven kernel benchmarks stay deterministic (issue 10
§5-6), with the real compiler, QEMU and plugin.

- The FreeRTOS idle task sleeps (WFI): k_tick's 1000 samples of two ticks each execute
  well under a few million instructions, where a spinning idle task executed 2 billion.
- The kernel suite on FreeRTOS (with k_delay and k_tick, the timer-paced ones) measures
  bit-identical samples in two runs (scripts/same_samples.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rtoslab.store import open_store

from .conftest import REPO, RunCli

pytestmark = pytest.mark.qemu


def _kernel_run(run_cli: RunCli, db: Path) -> dict:
    proc = run_cli("run", "--suite", "kernel", "--kernel", "freertos", "--json", "--db", str(db))
    doc = json.loads(proc.stdout)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return doc


def test_kernel_suite_is_bit_identical_run_to_run_and_idle_is_free(run_cli: RunCli, tmp_path: Path) -> None:
    a, b = tmp_path / "a.sqlite", tmp_path / "b.sqlite"
    doc_a = _kernel_run(run_cli, a)
    doc_b = _kernel_run(run_cli, b)
    same = subprocess.run([sys.executable, str(REPO / "scripts" / "same_samples.py"),
                           str(a), str(doc_a["run_id"]), str(b), str(doc_b["run_id"])],
                          capture_output=True, text=True, check=False)
    assert same.returncode == 0, same.stdout[-2000:]
    assert " 0 different" in same.stdout
    # idle sleeps: the tick benchmarks execute only what the ticks and wake-ups execute
    with open_store(a) as store:
        results = {r.benchmark: r for r in store.load_run(doc_a["run_id"]).results}
    assert results["k_tick"].total_insns < 5_000_000, results["k_tick"].total_insns
    assert results["k_delay"].total_insns < 5_000_000, results["k_delay"].total_insns
