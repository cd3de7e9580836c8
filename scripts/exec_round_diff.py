#!/usr/bin/env python3
"""Compare two rounds of a benchmark block by block in QEMU's execution log (docs/smp.md, "Two paths").

    .venv/bin/python scripts/exec_round_diff.py ELF SYMBOL ROUND_A ROUND_B [CORE]

Runs ELF once under QEMU as `rtoslab run` does on mps2-an521 (its command line,
`rtoslab.runners.qemu.qemu_command`: the patched QEMU on the one clock with mps2-an521's
timing settings, so ticks land where a stored run's do), with QEMU's own execution log
on (`-d exec,nochain`: one line per translation block executed, with
the vCPU, the block's address and its symbol). The log of CORE (default 0) is cut into
rounds at each block that starts at SYMBOL's address (a function every round enters once,
e.g. the activated task's entry function `activate_high_entry`): round N is what ran from the Nth entry to
the next, so it holds the end of sample N-1's round and the start of sample N's. Prints
the number of rounds, the rounds in which SysTick_Handler ran, each compared round's
block count, and a unified diff of the two rounds' block sequences (address and symbol):
the blocks one round ran and the other did not. The addresses read against
`arm-none-eabi-objdump -d ELF`. The log goes to a temporary folder; nothing is stored.
"""

from __future__ import annotations

import difflib
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from rtoslab.builder.config import BuildConfig
from rtoslab.catalog import Catalog
from rtoslab.paths import plugin_path
from rtoslab.pipeline import plugin_model
from rtoslab.runners.base import RunRequest
from rtoslab.runners.qemu import qemu_command

CATALOG = Catalog()  # the checkout's folders alone

TARGET = "mps2-an521"
LINE = re.compile(r"Trace (\d+): \S+ \[\w+/0*(\w+)/\w+/\w+\] (\S+)")


def address(elf: Path, symbol: str) -> int | None:
    """SYMBOL's address in ELF (Thumb bit clear), or None."""
    out = subprocess.run(["arm-none-eabi-nm", str(elf)], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] == symbol:
            return int(parts[0], 16) & ~1
    return None


def rounds(log: Path, entry: int, core: str) -> list[list[str]]:
    """CORE's blocks, cut before every block that starts at `entry`."""
    out: list[list[str]] = []
    cur: list[str] = []
    with log.open() as f:
        for line in f:
            m = LINE.match(line)
            if m is None or m.group(1) != core:
                continue
            pc = int(m.group(2), 16)
            if pc == entry:
                out.append(cur)
                cur = []
            cur.append(f"{pc:08x} {m.group(3)}")
    out.append(cur)
    return out


def main(argv: list[str]) -> int:
    if len(argv) not in (4, 5) or not argv[2].isdigit() or not argv[3].isdigit():
        print("usage: exec_round_diff.py ELF SYMBOL ROUND_A ROUND_B [CORE]", file=sys.stderr)
        return 2
    elf, symbol, a, b = Path(argv[0]), argv[1], int(argv[2]), int(argv[3])
    core = argv[4] if len(argv) == 5 else "0"
    if not elf.is_file():
        print(f"{elf}: no such ELF (runs leave them in .cache/build/<key>/)", file=sys.stderr)
        return 2
    entry = address(elf, symbol)
    if entry is None:
        print(f"{elf}: no symbol {symbol} (arm-none-eabi-nm lists the names)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "exec.log"
        config = BuildConfig(catalog=CATALOG, target=TARGET)
        target = config.target_info()
        req = RunRequest(elf.stem, elf, target, Path(tmp), 200_000_000, 600.0,
                         plugin_model(config.timing_settings(), target))
        cmd = qemu_command(req, Path(tmp) / "run.trace", plugin_path())
        at = cmd.index("-plugin")
        cmd[at:at] = ["-d", "exec,nochain", "-D", str(log)]
        try:
            subprocess.run(cmd, capture_output=True, check=True, timeout=600)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
            print(f"{elf}: the QEMU run failed ({e})", file=sys.stderr)
            return 2
        found = rounds(log, entry, core)
    if len(found) < 2:
        print(f"{elf}: core {core} never entered {symbol}: name a function every round enters",
              file=sys.stderr)
        return 2
    if max(a, b) >= len(found):
        print(f"{elf}: only {len(found)} rounds (0..{len(found) - 1}); pick rounds in that range",
              file=sys.stderr)
        return 2
    ticks = [str(i) for i, r in enumerate(found) if any(x.endswith(" SysTick_Handler") for x in r)]
    print(f"{len(found)} rounds on core {core}; SysTick_Handler ran in rounds: {', '.join(ticks) or 'none'}")
    print(f"round {a}: {len(found[a])} blocks; round {b}: {len(found[b])} blocks")
    for line in difflib.unified_diff(found[a], found[b], f"round {a}", f"round {b}", lineterm="", n=1):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
