#!/usr/bin/env python3
"""Start rtoslab's QEMU as a GDB server standing in for a board (docs/boards.md, "Without a
board"): halted, no image, gdbstub on 127.0.0.1:PORT, the plugin's timing model on the one
clock (so SysTick, which buffer-mode probes read, counts modelled cycles). Then:

    rtoslab run --runner gdb --gdb-server 127.0.0.1:PORT --target TARGET --suite smoke

Usage: scripts/qemu_gdbstub.py TARGET PORT   (e.g. mps2-an385 1234; Ctrl-C ends it)
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from rtoslab.catalog import Catalog
from rtoslab.pipeline import gdbstub_command


def main() -> int:
    if len(sys.argv) != 3 or not sys.argv[2].isdigit():
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    trace = Path(tempfile.mkdtemp(prefix="rtoslab-gdbstub-")) / "gdbstub.trace"
    cmd = gdbstub_command(Catalog(), sys.argv[1], int(sys.argv[2]), trace)
    print(" ".join(cmd), file=sys.stderr)
    os.execvp(cmd[0], cmd)


if __name__ == "__main__":
    sys.exit(main())
