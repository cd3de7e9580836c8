#!/usr/bin/env python3
"""Sweep benchmark (not a test): how long the kernel sweep takes from a warm build cache.

Runs the experiment (default examples/kernel-sweep.toml: the kernel suite on FreeRTOS and
bare metal at -O0/-O2/-Os with and without LTO, 12 configurations) through the CLI into
a temporary database. The first run warms the build cache (and is not timed as the
figure); then the sweep is run --repeat times and the best wall time is the figure
(issue 10 §6's goal: <= 30 s on 2 cores). Also printed, from the stored results: the
emulator's host time summed per benchmark over all configurations (where the time goes),
and the guest instructions summed per benchmark. Prints figures to record in notes.

Usage: .venv/bin/python scripts/bench_sweep.py [EXPERIMENT] [--repeat N] [-j JOBS] [--no-warm]
                                               [--db PATH]
--db keeps the results database (e.g. to compare samples with scripts/same_samples.py);
by default it is a temporary file.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from rtoslab.store import open_store

ROOT = Path(__file__).resolve().parent.parent


def run_sweep(experiment: Path, db: Path, jobs: int) -> float:
    """Run the experiment once; return its wall time in seconds. Exit on failure."""
    cmd = [sys.executable, "-m", "rtoslab.cli.main", "run", str(experiment), "--db", str(db),
           "-j", str(jobs), "--json"]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, check=False, cwd=ROOT)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        sys.exit(f"sweep failed (exit {proc.returncode}): {' '.join(cmd)}\n{proc.stderr.decode()[-800:]}")
    return wall


def per_benchmark(db: Path) -> dict[str, tuple[float, int, int]]:
    """Benchmark -> (emulator seconds, guest instructions, results) summed over the last run."""
    totals: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    with open_store(db) as store:
        run_id = store.latest_run_id()
        assert run_id is not None
        for result in store.load_run(run_id).results:
            if result.wall_s is None:
                continue
            t = totals[result.benchmark]
            t[0] += result.wall_s
            t[1] += result.total_insns
            t[2] += 1
    return {name: (t[0], int(t[1]), int(t[2])) for name, t in totals.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("experiment", nargs="?", type=Path, default=ROOT / "examples" / "kernel-sweep.toml")
    ap.add_argument("--repeat", type=int, default=1, help="timed runs after the warm-up (best is kept)")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--no-warm", action="store_true", help="skip the untimed warm-up run")
    ap.add_argument("--db", type=Path, default=None, help="keep the results here (default: a temporary file)")
    args = ap.parse_args()
    if args.repeat < 1:
        sys.exit("--repeat must be at least 1")
    if not args.experiment.is_file():
        sys.exit(f"no experiment file {args.experiment}: pass the path of an experiment TOML")

    with tempfile.TemporaryDirectory() as tmp:
        db = args.db if args.db is not None else Path(tmp) / "sweep.sqlite"
        if not args.no_warm:
            warm = run_sweep(args.experiment, db, args.jobs)
            print(f"warm-up run (builds what the cache lacks): {warm:.1f} s")
        walls = [run_sweep(args.experiment, db, args.jobs) for _ in range(args.repeat)]
        best = min(walls)
        print(f"{args.experiment.name}: {best:.1f} s wall from a warm build cache "
              f"(best of {len(walls)}: {', '.join(f'{w:.1f}' for w in walls)}; -j {args.jobs})")
        rows = sorted(per_benchmark(db).items(), key=lambda kv: -kv[1][0])
        total = sum(v[0] for _, v in rows)
        print(f"emulator host time summed over results: {total:.1f} s")
        print(f"{'benchmark':<24} {'results':>7} {'emulator s':>11} {'share':>6} {'guest insns':>16}")
        for name, (secs, insns, n) in rows:
            share = 100.0 * secs / total if total else 0.0
            print(f"{name:<24} {n:>7} {secs:>11.2f} {share:>5.1f}% {insns:>16,}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
