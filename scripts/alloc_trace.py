#!/usr/bin/env python3
"""Record the allocation trace of the pipeline model (firmware/workloads/alloc/
alloc_pipeline.c) with the host compiler into the compact trace file a_replay embeds.

    scripts/alloc_trace.py [OUT] [--seed N] [--packets N]

OUT defaults to firmware/workloads/alloc/traces/pipeline.trace (seed 1, 2000 packets).
The format is in alloc_pipeline.h and docs/allocation.md ("Trace replay"). Exit status 0
on success, 1 when the build or the recorder fails (its message on stderr), 2 on bad
arguments.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORKLOAD = ROOT / "firmware" / "workloads" / "alloc"
RECORDER = ROOT / "tests" / "host" / "alloc" / "record_trace.c"
DEFAULT_OUT = WORKLOAD / "traces" / "pipeline.trace"


def record(out: Path, seed: int, packets: int) -> str:
    """Build the recorder, run it; returns its summary line. Raises RuntimeError."""
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        raise RuntimeError("no host C compiler (gcc) on PATH")
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp) / "record_trace"
        build = subprocess.run(
            [cc, "-std=gnu11", "-O1", "-Wall", "-Wextra", "-Werror", "-Wundef", f"-I{WORKLOAD}",
             str(WORKLOAD / "alloc_pipeline.c"), str(RECORDER), "-o", str(exe)],
            capture_output=True, text=True, check=False)
        if build.returncode != 0:
            raise RuntimeError(f"building the recorder failed: {build.stderr.strip()}")
        run = subprocess.run([str(exe), str(out), str(seed), str(packets)], capture_output=True,
                             text=True, check=False)
        if run.returncode != 0:
            raise RuntimeError(run.stderr.strip() or f"the recorder ended with status {run.returncode}")
        return run.stdout.strip()


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description="record the pipeline's allocation trace")
    ap.add_argument("out", nargs="?", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--packets", type=int, default=2000)
    args = ap.parse_args(argv)
    if args.packets <= 0 or not 0 < args.seed < 2**32:
        print("alloc_trace: --packets must be positive and --seed in 1..2^32-1", file=sys.stderr)
        return 2
    try:
        print(f"{args.out}: {record(args.out, args.seed, args.packets)}")
    except RuntimeError as e:
        print(f"alloc_trace: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
