#!/usr/bin/env python3
"""Does every run of an image repeat bit for bit when QEMUs run side by side?

    scripts/determinism_stress.py [--target T] [--kernel K] [--suite S ...] [--bench B ...]
                                  [--runs N] [--parallel P] [--hammer]

Builds the configuration's images with `rtoslab run` (which also checks they pass), then
runs every image N times, P QEMUs at a time, exactly as `rtoslab run` starts QEMU
(`qemu_command`), and compares the whole probe trace of each run with the first run's.
`--hammer` also keeps each QEMU's main loop busy with QMP queries (a host-timed stream of
main-loop wake-ups, as other load makes). Prints one line per image (how many distinct
traces in how many runs) and exits 1 when any image gave more than one.

This is the check behind docs/performance.md, "Determinism under load": the one clock's
placement of every interrupt must not depend on the host. Run it on a loaded machine
(P above the core count) to look for host-timing dependence; a quiet run shows little.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import socket
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from rtoslab.builder.config import BuildConfig
from rtoslab.catalog import Catalog
from rtoslab.paths import cache_root, plugin_path
from rtoslab.pipeline import plugin_model
from rtoslab.runners.base import RunRequest
from rtoslab.runners.qemu import qemu_command

REPO = Path(__file__).resolve().parents[1]


def qmp_hammer(path: str, stop: threading.Event) -> int:
    """Send QMP queries to the socket until ``stop``; the number answered."""
    sock = socket.socket(socket.AF_UNIX)
    for _ in range(500):
        try:
            sock.connect(path)
            break
        except OSError:
            time.sleep(0.005)
    else:
        return 0
    answered = 0
    try:
        with sock, sock.makefile("rwb") as f:
            f.readline()  # the greeting
            f.write(b'{"execute":"qmp_capabilities"}\n')
            f.flush()
            f.readline()
            while not stop.is_set():
                f.write(b'{"execute":"query-status"}\n')
                f.flush()
                if not f.readline():
                    break
                answered += 1
    except OSError:
        pass  # QEMU ended (also while the file flushes on close)
    return answered


def run_once(req: RunRequest, hammer: bool) -> str:
    """One run: the SHA-256 of its trace (or why there is none)."""
    with tempfile.TemporaryDirectory(prefix="rtoslab-stress-") as d:
        trace = Path(d) / "run.trace"
        cmd = qemu_command(req, trace, plugin_path())
        stop = threading.Event()
        thread = None
        if hammer:
            sock = f"{d}/qmp.sock"
            at = cmd.index("-monitor")
            cmd[at:at + 2] = ["-qmp", f"unix:{sock},server=on,wait=off"]
            thread = threading.Thread(target=qmp_hammer, args=(sock, stop), daemon=True)
            thread.start()
        proc = subprocess.run(cmd, capture_output=True, timeout=req.timeout_s, check=False)
        stop.set()
        if thread is not None:
            thread.join()
        if not trace.is_file():
            return f"no trace (exit {proc.returncode})"
        return hashlib.sha256(trace.read_bytes()).hexdigest()[:16]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--target", default="mps2-an386")
    ap.add_argument("--kernel", default="freertos")
    ap.add_argument("--suite", action="append", default=[])
    ap.add_argument("--bench", action="append", default=[])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--parallel", type=int, default=4)
    ap.add_argument("--hammer", action="store_true")
    ap.add_argument("--timing", action="append", default=[], metavar="KEY=VALUE",
                    help="a timing setting, as `rtoslab run --timing` (e.g. time=instruction)")
    args = ap.parse_args(argv)
    if args.runs < 2 or args.parallel < 1:
        ap.error("--runs must be at least 2 and --parallel at least 1")
    selection = [x for s in args.suite or ([] if args.bench else ["kernel"]) for x in ("--suite", s)]
    selection += [x for b in args.bench for x in ("--bench", b)]
    selection += [x for s in args.timing for x in ("--timing", s)]
    timing = tuple(sorted(tuple(s.split("=", 1)) for s in args.timing))
    with tempfile.TemporaryDirectory(prefix="rtoslab-stress-db-") as d:
        built = subprocess.run([sys.executable, "-m", "rtoslab.cli.main", "run", *selection,
                                "--target", args.target, "--kernel", args.kernel, "--json",
                                "--db", f"{d}/build.sqlite"], cwd=REPO, capture_output=True,
                               text=True, check=False)
    if built.returncode != 0 or not built.stdout.strip():
        print(f"determinism_stress: rtoslab run failed: {built.stderr.strip()[-500:]}", file=sys.stderr)
        return 2
    config = BuildConfig(target=args.target, kernel=args.kernel, timing=timing, catalog=Catalog())
    folder = cache_root() / "build" / config.image_key()
    target = config.target_info()
    model = plugin_model(config.timing_settings(), target)
    # The folder also keeps images other runs built for this configuration: only the
    # benchmarks this run measured (and passed) are stressed.
    names = sorted({r["benchmark"] for r in json.loads(built.stdout)["results"] if r.get("status") == "ok"})
    images = [folder / f"{n}.elf" for n in names if (folder / f"{n}.elf").is_file()]
    if not images:
        print(f"determinism_stress: no image of {', '.join(names) or 'any benchmark'} in {folder}",
              file=sys.stderr)
        return 2
    jobs = [(elf, i) for elf in images for i in range(args.runs)]

    def one(job: tuple[Path, int]) -> tuple[str, str]:
        elf, _ = job
        req = RunRequest(elf.stem, elf, target, folder, 1 << 32, 600.0, model)
        return elf.stem, run_once(req, args.hammer)

    seen: dict[str, dict[str, int]] = {}
    with ThreadPoolExecutor(args.parallel) as pool:
        for name, digest in pool.map(one, jobs):
            per = seen.setdefault(name, {})
            per[digest] = per.get(digest, 0) + 1
    differed = 0
    for name, per in seen.items():
        differed += len(per) > 1
        print(f"{'DIFFERS' if len(per) > 1 else 'same':7}  {name:24} {len(per)} distinct trace(s) "
              f"in {sum(per.values())} runs")
    print(f"{differed} of {len(seen)} images gave more than one trace ({args.target}, {args.kernel}, "
          f"{args.runs} runs each, {args.parallel} at a time{', main loop hammered' if args.hammer else ''})")
    return 1 if differed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
