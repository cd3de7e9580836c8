#!/usr/bin/env python3
"""What the cycle model charged, block by block, in one round of a probe interval (docs/kernel-suite.md).

    .venv/bin/python scripts/round_charges.py ELF START_PROBE ROUND

ELF is an image of a build folder (`.cache/build/<key>/NAME.elf`); its
`rtoslab-config.json` gives the target and the timing settings, so the run is priced as
`rtoslab run` priced it (the patched QEMU on the one clock, `rtoslab.runners.qemu.qemu_command`).
START_PROBE is an interval's start probe (an even id >= 2; the interval ends at the next
hit of START_PROBE + 1); ROUND counts its rounds from 0, as the stored samples (`seq`).

Runs ELF twice: once with the ordinary plugin to find the round's probe hits, once with
the plugin's developer build (`--features debug-events`, built into
`plugin/target/debug-events/` if missing), which prints every block entry in an
instruction window with the charge the model added at that entry (refill, exception
entry or return, fetch wait states of the lines the block needs: docs/timing-model.md).
Prints, for every block from just before the previous round's start probe to this
round's end probe:
its instruction count and modelled cycle at entry, address and symbol, the event and the
charge; for blocks inside the interval also each fetch line the block needs (16 bytes with
`accel=art`, 8 bytes otherwise) and how many other distinct lines ran since that line was
last used in the window ("new" if not in the window): with the ART's 64 lines, a line more
than 63 other lines back has been evicted (least recently used first, the model's order).
Then the raw interval (probe cost not subtracted: the stored sample is this minus the
calibrated probe cost). Nothing is stored.
"""

from __future__ import annotations

import bisect
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from rtoslab.builder.config import BuildConfig
from rtoslab.paths import plugin_path, repo_root
from rtoslab.pipeline import plugin_model
from rtoslab.records import Hit
from rtoslab.runners.base import RunRequest
from rtoslab.runners.qemu import qemu_command
from rtoslab.trace.reader import read_trace

INSN_LIMIT = 200_000_000
BLOCK = re.compile(r"vcpu \d+ insns (\d+) cycles (\d+) pc (0x[0-9a-f]+) n (\d+) (\S+) \+(-?\d+)")
INSN = re.compile(r"\s+([0-9a-f]+):\s+([0-9a-f]{4})( ([0-9a-f]{4}))?\s")
ART_LINE = 16
F1_LINE = 8


def debug_plugin() -> Path:
    """The plugin's debug-events build, made once beside the release build."""
    crate = repo_root() / "plugin"
    target_dir = crate / "target" / "debug-events"
    lib = target_dir / "release" / plugin_path().name
    if not lib.is_file():
        subprocess.run(["cargo", "build", "--release", "--quiet", "--features", "debug-events",
                        "--target-dir", str(target_dir)], cwd=crate, check=True)
    return lib


def request(elf: Path, folder: Path) -> tuple[RunRequest, dict[str, object]]:
    """The run `rtoslab run` made of ELF: its build folder's target and resolved timing."""
    cfg = json.loads((elf.parent / "rtoslab-config.json").read_text())
    timing: dict[str, object] = cfg["timing"]
    config = BuildConfig(target=cfg["target"], timing=tuple(sorted(timing.items())))
    target = config.target_info()
    model = plugin_model(config.timing_settings(), target)
    return RunRequest(elf.stem, elf, target, folder, INSN_LIMIT, 600.0, model, events=False), timing


def run(req: RunRequest, plugin: Path, window: tuple[int, int] | None) -> tuple[list[Hit], str]:
    """One run of the request with `plugin`; with `window`, its debug-events log on stderr."""
    trace = req.work_dir / "run.trace"
    env = dict(os.environ)
    if window is not None:
        env["RTOSLAB_DEBUG_EVENTS"] = f"{window[0]}:{window[1]}"
    done = subprocess.run(qemu_command(req, trace, plugin), capture_output=True, text=True,
                          timeout=600, env=env, check=False)
    return list(read_trace(trace).hits), done.stderr


def interval_rounds(hits: list[Hit], start: int) -> list[tuple[Hit, Hit]]:
    """(start hit, end hit) per round: a start hit paired with the next hit of start + 1."""
    out: list[tuple[Hit, Hit]] = []
    open_hit: Hit | None = None
    for h in hits:
        if h.probe_id == start:
            open_hit = h
        elif h.probe_id == start + 1 and open_hit is not None:
            out.append((open_hit, h))
            open_hit = None
    return out


def disassembly(elf: Path) -> tuple[list[tuple[int, int]], list[tuple[int, str]]]:
    """Every instruction (address, size) and the text symbols, both sorted."""
    text = subprocess.run(["arm-none-eabi-objdump", "-d", str(elf)], capture_output=True,
                          text=True, check=True).stdout
    insns = [(int(m.group(1), 16), 4 if m.group(4) else 2) for m in map(INSN.match, text.splitlines()) if m]
    nm = subprocess.run(["arm-none-eabi-nm", "-n", str(elf)], capture_output=True, text=True,
                        check=True).stdout
    syms = [(int(p[0], 16) & ~1, p[2]) for p in (ln.split() for ln in nm.splitlines())
            if len(p) == 3 and p[1] in "tT"]
    return sorted(set(insns)), sorted(syms)


def name(syms: list[tuple[int, str]], pc: int) -> str:
    i = bisect.bisect_right([a for a, _ in syms], pc) - 1
    return f"{syms[i][1]}+{pc - syms[i][0]:#x}" if i >= 0 else f"{pc:#x}"


def block_lines(insns: list[tuple[int, int]], index: dict[int, int], pc: int, n: int, size: int) -> list[int]:
    """The fetch lines (numbers: address // size) that the n instructions from pc need, in order."""
    lines: list[int] = []
    i = index.get(pc)
    for a, sz in insns[i:i + n] if i is not None else []:
        for ln in (a // size, (a + sz - 1) // size):
            if ln not in lines:
                lines.append(ln)
    return lines


class Reuse:
    """Fetch lines in the order they are used, and for each use how many other distinct
    lines were used since the same line's previous use (None: no previous use)."""

    def __init__(self) -> None:
        self.seq: list[int] = []
        self.last: dict[int, int] = {}

    def use(self, line: int) -> int | None:
        prev = self.last.get(line)
        back = None if prev is None else len(set(self.seq[prev + 1:]))
        self.last[line] = len(self.seq)
        self.seq.append(line)
        return back


def main(argv: list[str]) -> int:
    if len(argv) != 3 or not argv[1].isdigit() or not argv[2].isdigit() or int(argv[1]) % 2 \
            or int(argv[1]) < 2:
        print("usage: round_charges.py ELF START_PROBE ROUND (START_PROBE an even id >= 2)", file=sys.stderr)
        return 2
    elf, start, which = Path(argv[0]), int(argv[1]), int(argv[2])
    if not (elf.parent / "rtoslab-config.json").is_file():
        print(f"{elf}: not an image of a build folder (runs leave them in .cache/build/<key>/)",
              file=sys.stderr)
        return 2
    insns, syms = disassembly(elf)
    index = {a: i for i, (a, _) in enumerate(insns)}
    with tempfile.TemporaryDirectory() as tmp:
        req, timing = request(elf, Path(tmp))
        rounds = interval_rounds(run(req, plugin_path(), None)[0], start)
        if which >= len(rounds):
            print(f"{elf}: probes {start}->{start + 1} have {len(rounds)} rounds, no round {which}",
                  file=sys.stderr)
            return 2
        s, e = rounds[which]
        first = rounds[which - 1][0].insns - 20 if which > 0 else max(0, s.insns - 2000)
        _, log = run(req, debug_plugin(), (first, e.insns + 1))
    size = ART_LINE if timing.get("accel") == "art" else F1_LINE
    reuse = Reuse()
    print(f"{elf}: probes {start}->{start + 1}, round {which}: timing {timing}")
    for m in BLOCK.finditer(log):
        at, cyc, pc, n, ev, charge = (int(m.group(1)), int(m.group(2)), int(m.group(3), 16),
                                      int(m.group(4)), m.group(5), int(m.group(6)))
        inside = s.insns - n < at <= e.insns
        notes = []
        for ln in block_lines(insns, index, pc, n, size):
            back = reuse.use(ln)
            if inside:
                notes.append(f"{ln * size:#010x}:{'new' if back is None else back}")
        where = "  " if inside else "  (before)"
        print(f"{where} insn {at:>10} cycle {cyc:>12} {pc:#010x} {name(syms, pc):<40} n {n:>3} "
              f"{ev:<24} +{charge}  {' '.join(notes)}")
    print(f"raw interval: {e.insns - s.insns} insns, {e.cycles - s.cycles} cycles "
          f"(probe {start} at insn {s.insns} cycle {s.cycles}, probe {start + 1} at insn {e.insns} "
          f"cycle {e.cycles})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
