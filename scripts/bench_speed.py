#!/usr/bin/env python3
"""Speed benchmark (not a test): prints figures to record in notes.

1. The smoke suite end to end through the CLI (build cached, then run+analyse+store),
   wall time, best of N.
2. Emulation speed in guest instructions per second on the `perf_mix` workload
   (~200 M instructions of ordinary integer code) with the plugin on and off, both
   under -icount shift=0,align=off,sleep=off; best of N runs each.

Usage: .venv/bin/python scripts/bench_speed.py [--repeat N] [--model KEY=VALUE ...]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rtoslab.build.cmake import build
from rtoslab.build.config import BuildConfig
from rtoslab.catalog import get_benchmark, get_target
from rtoslab.paths import plugin_path
from rtoslab.runners.base import RunRequest
from rtoslab.runners.qemu import qemu_command
from rtoslab.trace.reader import read_trace


def timed(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, check=False)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        sys.exit(f"command failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr.decode()[-500:]}")
    return wall


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--model", action="append", default=[], help="plugin model arg KEY=VALUE")
    args = ap.parse_args()
    model = dict(kv.split("=", 1) for kv in args.model)

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "r.sqlite"
        cli = [sys.executable, "-m", "rtoslab.cli.main", "run", "--suite", "smoke", "--json",
               "--db", str(db)]
        timed(cli)  # warm the build cache
        smoke = min(timed(cli) for _ in range(args.repeat))
        print(f"smoke suite end to end (4 benchmarks, build cached): {smoke:.2f} s (best of {args.repeat})")

        config = BuildConfig()
        bench = get_benchmark("perf_mix")
        elf = build(config, [bench]).elfs["perf_mix"]
        target = get_target(config.target)
        req = RunRequest("perf_mix", elf, target, Path(tmp), bench.insn_limit, bench.timeout_s, model)
        trace_path = Path(tmp) / "perf.trace"
        with_plugin = qemu_command(req, trace_path, plugin_path())
        without = with_plugin[: with_plugin.index("-plugin")]
        on = min(timed(with_plugin) for _ in range(args.repeat))
        insns = read_trace(trace_path).end.total_insns  # type: ignore[union-attr]
        off = min(timed(without) for _ in range(args.repeat))
        print(f"perf_mix: {insns:,} guest instructions")
        label = ",".join(f"{k}={v}" for k, v in model.items()) or "default"
        print(f"  plugin on  ({label}): {on:.2f} s  {insns / on / 1e6:.1f} M guest instructions/s")
        print(f"  plugin off            : {off:.2f} s  {insns / off / 1e6:.1f} M guest instructions/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
