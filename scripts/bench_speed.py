#!/usr/bin/env python3
"""Speed benchmark (not a test): prints figures to record in notes (docs/performance.md).

1. The smoke suite end to end through the CLI (build cached, then run+analyse+store),
   wall time, best of N (skipped with --no-smoke).
2. Emulation speed in guest instructions per second on the `perf_mix` workload
   (~260 M instructions of ordinary integer code), all under -icount
   shift=0,align=off,sleep=off: the plugin with the target's timing model (plus any
   --model overrides) on the one clock (time follows the modelled cycles) and on
   instruction time, the plugin counting instructions only (core=none), no plugin,
   Debian's stock QEMU (when it is installed beside the patched one),
   and with --vs another plugin build with the same model (e.g. one from before a
   change). The commands run in turn (A B C A B C ...), N rounds, so a drift of the
   shared machine's speed touches all alike. Each is reported on two bases: wall time
   (best of N: what a user waits; on a busy machine it includes waiting for a core) and
   the QEMU process's CPU time, user + system (median of N: steadier while other work
   shares the machine). Guest instructions per second = instructions / seconds.

Usage: .venv/bin/python scripts/bench_speed.py [--repeat N] [--model KEY=VALUE ...]
                                               [--plugin SO] [--vs SO] [--no-smoke]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rtoslab.builder.cmake import build
from rtoslab.builder.config import BuildConfig
from rtoslab.catalog import Catalog
from rtoslab.paths import plugin_path
from rtoslab.pipeline import plugin_model
from rtoslab.runners.base import RunRequest
from rtoslab.runners.qemu import qemu_command
from rtoslab.trace.reader import read_trace

CATALOG = Catalog()  # the checkout's folders alone


def timed(cmd: list[str]) -> tuple[float, float]:
    """Run `cmd` to completion; return (wall seconds, CPU seconds user + system)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    if proc.returncode != 0:
        sys.exit(f"command failed ({proc.returncode}): {' '.join(cmd)}\n{err[-500:]}")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5, help="rounds (default 5)")
    ap.add_argument("--model", action="append", default=[], help="plugin model arg KEY=VALUE")
    ap.add_argument("--plugin", type=Path, default=None,
                    help="plugin build to measure (default: the one rtoslab runs)")
    ap.add_argument("--vs", type=Path, default=None,
                    help="a second plugin build to measure with the same model, in the same rounds")
    ap.add_argument("--no-smoke", action="store_true", help="skip the smoke-suite timing")
    args = ap.parse_args()
    if args.repeat < 1:
        sys.exit("--repeat must be at least 1")
    for kv in args.model:
        if "=" not in kv:
            sys.exit(f"--model {kv!r}: expected KEY=VALUE, e.g. --model flash_ws=2")
    plugin = args.plugin if args.plugin is not None else plugin_path()
    for so in (plugin, args.vs):
        if so is not None and not so.is_file():
            sys.exit(f"no plugin build at {so}: run `make setup` or pass an existing .so")
    model = dict(kv.split("=", 1) for kv in args.model)

    with tempfile.TemporaryDirectory() as tmp:
        if not args.no_smoke:
            db = Path(tmp) / "r.sqlite"
            cli = [sys.executable, "-m", "rtoslab.cli.main", "run", "--suite", "smoke", "--json",
                   "--db", str(db)]
            timed(cli)  # warm the build cache
            smoke = min(timed(cli)[0] for _ in range(args.repeat))
            print(f"smoke suite end to end (4 benchmarks, build cached): {smoke:.2f} s "
                  f"(best of {args.repeat})")

        overrides = tuple(sorted(model.items()))
        config = BuildConfig(catalog=CATALOG, timing=overrides)
        bench = CATALOG.get_benchmark("perf_mix")
        elf = build(config, [bench]).elfs["perf_mix"]
        target = CATALOG.get_target(config.target)
        timing = config.timing_settings()
        # The plugin's arguments as a run gets them (time_hz on the one clock).
        settings = plugin_model(timing, target)
        instruction_time = plugin_model({**timing, "time": "instruction"}, target)
        trace_path = Path(tmp) / "perf.trace"

        def command(settings: dict[str, object], so: Path, trace: Path = trace_path) -> list[str]:
            req = RunRequest("perf_mix", elf, target, Path(tmp), bench.insn_limit, bench.timeout_s,
                             settings)
            return qemu_command(req, trace, so)

        label = ",".join(f"{k}={v}" for k, v in settings.items() if k not in ("flash", "sram"))
        with_model = command(settings, plugin)
        cmds: dict[str, list[str]] = {
            f"plugin, timing model ({label})": with_model,
            "plugin, timing model, instruction time": command(instruction_time, plugin),
            "plugin, instructions only (core=none)": command({"core": "none"}, plugin),
            "no plugin": with_model[: with_model.index("-plugin")],
        }
        stock = shutil.which("qemu-system-arm")
        if stock is not None and stock != with_model[0]:
            # Debian's own QEMU beside the patched one (the one clock's cost in QEMU itself)
            cmds["stock QEMU, timing model, instruction time"] = [
                stock, *command(instruction_time, plugin, Path(tmp) / "stock.trace")[1:]]
        if args.vs is not None:
            vs_trace = Path(tmp) / "vs.trace"
            cmds[f"--vs {args.vs}, timing model"] = command(settings, args.vs, vs_trace)
        timed(with_model)  # warm the page cache
        end = read_trace(trace_path).end
        assert end is not None
        insns, cycles = end.total_insns, end.total_cycles
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in cmds}
        for _ in range(args.repeat):
            for name, cmd in cmds.items():
                runs[name].append(timed(cmd))
        print(f"perf_mix: {insns:,} guest instructions, {cycles:,} modelled cycles; "
              f"{args.repeat} rounds; plugin {plugin}")
        for name, samples in runs.items():
            wall = min(w for w, _ in samples)
            cpu = statistics.median(c for _, c in samples)
            cpu_lo, cpu_hi = min(c for _, c in samples), max(c for _, c in samples)
            print(f"  {name}: wall {wall:.3f} s best = {insns / wall / 1e6:.1f} M insn/s; "
                  f"CPU {cpu:.3f} s median ({cpu_lo:.3f}-{cpu_hi:.3f}) = "
                  f"{insns / cpu / 1e6:.1f} M insn/s")
        if args.vs is not None:
            vs_end = read_trace(vs_trace).end
            assert vs_end is not None
            same = (vs_end.total_insns, vs_end.total_cycles) == (insns, cycles)
            print(f"  --vs build's totals: {vs_end.total_insns:,} instructions, "
                  f"{vs_end.total_cycles:,} cycles ({'the same' if same else 'DIFFERENT'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
