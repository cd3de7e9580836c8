#!/usr/bin/env python3
"""Speed benchmark (not a test): prints figures to record in notes.

1. The smoke suite end to end through the CLI (build cached, then run+analyse+store),
   wall time, best of N.
2. Emulation speed in guest instructions per second on the `perf_mix` workload
   (~260 M instructions of ordinary integer code), all under -icount
   shift=0,align=off,sleep=off, best of N runs each: the plugin with the target's timing
   model (plus any --model overrides), the plugin counting instructions only (core=none),
   and no plugin.

Usage: .venv/bin/python scripts/bench_speed.py [--repeat N] [--model KEY=VALUE ...]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rtoslab.builder.cmake import build
from rtoslab.builder.config import BuildConfig
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

        overrides = tuple(sorted(model.items()))
        config = BuildConfig(timing=overrides)
        bench = get_benchmark("perf_mix")
        elf = build(config, [bench]).elfs["perf_mix"]
        target = get_target(config.target)
        settings = {k: v for k, v in config.timing_settings().items() if k != "clock_hz"}
        trace_path = Path(tmp) / "perf.trace"

        def command(settings: dict[str, object]) -> list[str]:
            req = RunRequest("perf_mix", elf, target, Path(tmp), bench.insn_limit, bench.timeout_s,
                             settings)
            return qemu_command(req, trace_path, plugin_path())

        with_model = command(settings)
        counting = command({"core": "none"})
        without = with_model[: with_model.index("-plugin")]
        on = min(timed(with_model) for _ in range(args.repeat))
        end = read_trace(trace_path).end
        assert end is not None
        insns, cycles = end.total_insns, end.total_cycles
        count_only = min(timed(counting) for _ in range(args.repeat))
        off = min(timed(without) for _ in range(args.repeat))
        label = ",".join(f"{k}={v}" for k, v in settings.items() if k not in ("flash", "sram"))
        print(f"perf_mix: {insns:,} guest instructions, {cycles:,} modelled cycles")
        print(f"  plugin, timing model ({label}): {on:.2f} s  {insns / on / 1e6:.1f} M guest instructions/s")
        print(f"  plugin, instructions only (core=none): {count_only:.2f} s  "
              f"{insns / count_only / 1e6:.1f} M guest instructions/s")
        print(f"  no plugin: {off:.2f} s  {insns / off / 1e6:.1f} M guest instructions/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
