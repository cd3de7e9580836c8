#!/usr/bin/env python3
"""Which exception handlers ran inside a benchmark's probe intervals (docs/smp.md, "The max column").

    .venv/bin/python scripts/interval_exceptions.py ELF [ELF ...]

Runs each ELF once more under QEMU with the rtoslab plugin, with the command line
`rtoslab run` uses (`rtoslab.runners.qemu.qemu_command`: the patched QEMU on the one clock,
mps2-an521's timing settings, the Cortex-M33 model of examples/smp.toml: 0 wait states,
prefetch off, div typ), but with the plugin's exception event file switched on (the
events= argument, which records and never alters execution; docs/timeline.md, "Event
file"), then pairs every start probe (an even id >= 2) with the next hit of id + 1 on
the shared clock, as the k_* benchmarks declare their intervals, and prints per pair:

- the most common raw interval (guest instructions / modelled cycles, as the host takes
  them: the core's own counts when both probes run on one core, the shared clock across
  cores; probe cost not subtracted: the stored samples are these minus the calibrated probe cost);
- every round whose interval is more than 30 instructions longer than that, with the
  handlers whose entry (or tail-chain) fell inside it on the shared clock, by symbol and core
  (for a same-core interval another core's handlers are listed but not counted in it);
- the rounds inside which, or just before which, SysTick_Handler ran (the kernel tick; the
  first six).

Rounds are numbered from 0 as the stored sample sequence (`seq`). The run uses a temporary
folder; nothing is stored.
"""

from __future__ import annotations

import collections
import subprocess
import sys
import tempfile
from pathlib import Path

from rtoslab.builder.config import BuildConfig
from rtoslab.catalog import Catalog
from rtoslab.paths import plugin_path
from rtoslab.pipeline import plugin_model
from rtoslab.records import Hit, RtoslabError
from rtoslab.runners.base import RunRequest
from rtoslab.runners.qemu import qemu_command
from rtoslab.trace.events import KIND_ENTRY, KIND_TAIL_CHAIN, ExcEvent, read_events
from rtoslab.trace.reader import read_trace

CATALOG = Catalog()  # the checkout's folders alone

TARGET = "mps2-an521"  # examples/smp.toml's board; its target.toml gives the timing settings
OUTLIER_INSNS = 30


def symbols(elf: Path) -> dict[int, str]:
    out = subprocess.run(["arm-none-eabi-nm", str(elf)], capture_output=True, text=True, check=True).stdout
    table: dict[int, str] = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tT":
            table[int(parts[0], 16) & ~1] = parts[2]
    return table


def run(elf: Path, folder: Path) -> tuple[Path, Path]:
    """One run with the event file on, as `rtoslab run --trace` starts QEMU."""
    config = BuildConfig(catalog=CATALOG, target=TARGET)
    target = config.target_info()
    req = RunRequest(elf.stem, elf, target, folder, 200_000_000, 600.0,
                     plugin_model(config.timing_settings(), target), events=True)
    trace = folder / "run.trace"
    subprocess.run(qemu_command(req, trace, plugin_path()), capture_output=True, check=True,
                   timeout=600)
    return trace, trace.with_suffix(".events")


def clock(x: Hit | ExcEvent) -> int:
    return x.shared[0] if x.shared is not None else x.insns


def span(s: Hit, e: Hit) -> tuple[int, int]:
    """The interval as the host measures it: on one core its own counts; across cores the
    shared clock (docs/timing-model.md, "Two cores")."""
    if s.core == e.core or s.shared is None or e.shared is None:
        return e.insns - s.insns, e.cycles - s.cycles
    return e.shared[0] - s.shared[0], e.shared[1] - s.shared[1]


def report(elf: Path) -> None:
    names = symbols(elf)
    with tempfile.TemporaryDirectory() as tmp:
        trace_path, events_path = run(elf, Path(tmp))
        hits = read_trace(trace_path).hits
        events = read_events(events_path).events
    entries = [(clock(e), names.get(e.pc & ~1, f"{e.pc:#x}"), e.core) for e in events
               if e.kind in (KIND_ENTRY, KIND_TAIL_CHAIN)]
    pairs: dict[int, list[tuple[Hit, Hit]]] = collections.defaultdict(list)
    open_starts: dict[int, Hit] = {}
    for h in hits:
        s = open_starts.pop(h.probe_id - 1, None)
        if s is not None and h.probe_id % 2 == 1:
            pairs[s.probe_id].append((s, h))
        if h.probe_id >= 2 and h.probe_id % 2 == 0:
            open_starts[h.probe_id] = h
    ticks = [t for t, name, _ in entries if name == "SysTick_Handler"]
    for start, rounds in sorted(pairs.items()):
        spans = [span(s, e) for s, e in rounds]
        (mode_i, mode_c), n = collections.Counter(spans).most_common(1)[0]
        print(f"{elf.parent.name}/{elf.name} probes {start}->{start + 1}: {len(rounds)} rounds; "
              f"most common raw {mode_i} insn / {mode_c} cycles ({n}x)")
        for i, ((s, e), (ins, cyc)) in enumerate(zip(rounds, spans, strict=True)):
            inside = [f"{name}@core{core}" for t, name, core in entries if clock(s) <= t < clock(e)]
            if ins > mode_i + OUTLIER_INSNS:
                print(f"  round {i}: {ins} insn / {cyc} cycles (+{ins - mode_i} / +{cyc - mode_c}); "
                      f"inside: {', '.join(inside) or 'no exception'}")
        tick_rounds: list[str] = []
        for t in ticks:
            later = [i for i, (s, _) in enumerate(rounds) if clock(s) > t]
            holding = [i for i, (s, e) in enumerate(rounds) if clock(s) <= t < clock(e)]
            tick_rounds.append(f"{holding[0]} (inside)" if holding else
                               (f"before {later[0]}" if later else "after the last"))
        shown = ", ".join(tick_rounds[:6]) + (", ..." if len(tick_rounds) > 6 else "")
        print(f"  SysTick_Handler entries: {len(ticks)}; by round: {shown}")


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: interval_exceptions.py ELF [ELF ...]", file=sys.stderr)
        return 2
    for arg in argv:
        elf = Path(arg)
        if not elf.is_file():
            print(f"{arg}: no such ELF (runs leave them in .cache/build/<key>/)", file=sys.stderr)
            return 2
        try:
            report(elf)
        except (RtoslabError, subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
            print(f"{arg}: {e}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
