"""scripts/smp_samples.py on a real store: configurations that differ only in kernel options
stay apart, a changed sample is found, and `runs` prints where a sequence changes value."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

from rtoslab.store.db import open_store

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "smp_samples.py"


def _fill(db: Path, runs: dict[int, dict[str, list[tuple[int, int]]]]) -> None:
    """Runs of one benchmark on two configurations (kernel options `A` and `B` of one kernel)."""
    store = open_store(db)
    store.close()
    con = sqlite3.connect(db)
    for name in ("A", "B"):
        con.execute(
            "INSERT INTO configs (hash, target, core, kernel, kernel_config, kernel_config_hash, "
            "compiler, compiler_version, cflags, ldflags, identity) "
            "VALUES (?, 't', 'c', 'freertos-smp', ?, ?, 'gcc', '1', '-O2', '', '{}')",
            (f"hash{name}", json.dumps({"labSMP_START_CORES": 1 if name == "A" else 2}), f"k{name}"))
    for run_id, per_config in runs.items():
        con.execute("INSERT INTO runs (id, started_at, status, rtoslab_revision, host, command) "
                    "VALUES (?, 'now', 'complete', 'r', 'h', 'c')", (run_id,))
        for name, samples in per_config.items():
            cid = con.execute("SELECT id FROM configs WHERE hash = ?", (f"hash{name}",)).fetchone()[0]
            bid = con.execute("INSERT INTO bench_runs (run_id, config_id, benchmark, source_hash, status, "
                              "created_at) VALUES (?, ?, 'k_activate', 's', 'ok', 'now')",
                              (run_id, cid)).lastrowid
            mid = con.execute("INSERT INTO metrics (bench_run_id, name) VALUES (?, 'activate_switch')",
                              (bid,)).lastrowid
            con.executemany("INSERT INTO samples (metric_id, seq, insns, cycles) VALUES (?, ?, ?, ?)",
                            [(mid, i, ins, cyc) for i, (ins, cyc) in enumerate(samples)])
    con.commit()
    con.close()


def _script(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, check=False)


def test_same_keeps_kernel_options_apart(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    a = [(816, 1380), (816, 1380), (798, 1357)]
    b = [(816, 1380)] * 3
    # Run 2 swaps the two configurations' samples: folded by kernel name they would match.
    _fill(db, {1: {"A": a, "B": b}, 2: {"A": b, "B": a}, 3: {"A": a, "B": b}})
    swapped = _script("same", str(db), "1", "2")
    assert swapped.returncode == 1
    assert swapped.stdout.count("differs: freertos-smp labSMP_START_CORES=") == 2
    assert "0 identical, 2 different" in swapped.stdout
    same = _script("same", str(db), "1", "3")
    assert same.returncode == 0
    assert "2 identical, 0 different" in same.stdout


def test_runs_prints_where_the_value_changes(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    _fill(db, {1: {"A": [(816, 1380), (816, 1380), (798, 1357)], "B": [(1, 2)]}})
    out = _script("runs", str(db), "1", "activate_switch").stdout
    assert "labSMP_START_CORES=1 k_activate activate_switch (2 runs): 0..1: 816/1380, 2..2: 798/1357" in out


def test_bad_arguments_are_one_line(tmp_path: Path) -> None:
    bad = _script("same", str(tmp_path / "x.sqlite"), "one", "2")
    assert bad.returncode == 2
    assert bad.stderr.startswith("usage: smp_samples.py")


def test_a_missing_database_is_one_line(tmp_path: Path) -> None:
    bad = _script("same", str(tmp_path / "none.sqlite"), "1", "2")
    assert bad.returncode == 2
    assert "none.sqlite: cannot read it as a results database" in bad.stderr
    assert "Traceback" not in bad.stderr
