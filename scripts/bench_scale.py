#!/usr/bin/env python3
"""Scaling benchmark (not a test): one sweep run five ways, each from a cold build cache,
timed, checked for identical samples, and set against a scaling model.

    .venv/bin/python scripts/bench_scale.py [EXPERIMENT] [--axis KEY=N ...] [--modes ...]
                                            [--out DIR]

EXPERIMENT (default examples/big-sweep.toml, 200 configurations) can be shrunk to a
smaller sweep of the same shape with --axis KEY=N (keep the first N values of matrix axis
KEY, e.g. --axis target=1 --axis opt=2; kernel options as kernel_options.NAME=N). Modes:

  local1     rtoslab run -j 1 (the 1-worker point of the model)
  local2     rtoslab run -j 2
  ray-driver rtoslab run --cluster local -j 2 (2 Ray workers; the driver builds, ships images)
  ray-workers  the same with --cluster-builds workers (each task builds its configuration)
  shards2    two `run --shard I/2 -j 1` at once into two databases, then `rtoslab merge`

Each mode gets a fresh RTOSLAB_CACHE, so every mode builds every configuration. From the
local1 run: seconds of build (the builds table) and of emulation (each result's wall_s)
per configuration; the model T(N) = C x (b + r) / N, checked against the 1- and 2-worker
points. Every mode's samples are compared with local2's (scripts/same_samples.py). Prints a
Markdown table for docs/performance.md; keeps the databases in --out (default: a
temporary folder, printed).
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODES = ("local1", "local2", "ray-driver", "ray-workers", "shards2")


def shrink(experiment: Path, limits: list[str], out: Path) -> Path:
    """The experiment with each --axis KEY=N axis cut to its first N values (TOML written
    by hand: the file's tables are flat lists of strings, numbers and booleans)."""
    data = tomllib.loads(experiment.read_text())
    if not limits:
        return experiment
    matrix = data["matrix"]
    for item in limits:
        key, _, n = item.partition("=")
        table, _, sub = key.partition(".")
        holder = matrix[table] if sub else matrix
        holder[sub or table] = holder[sub or table][: int(n)]

    def value(v: object) -> str:
        return json.dumps(v) if not isinstance(v, bool) else str(v).lower()
    lines = [f"{k} = {value(v)}" for k, v in data.items() if not isinstance(v, (dict, list)) or
             (isinstance(v, list) and not any(isinstance(x, dict) for x in v))]
    lines.append("[matrix]")
    lines += [f"{k} = [{', '.join(value(x) for x in v)}]" for k, v in matrix.items() if isinstance(v, list)]
    for k, v in matrix.items():
        if isinstance(v, dict):
            lines.append(f"[matrix.{k}]")
            lines += [f"{n} = [{', '.join(value(x) for x in xs)}]" for n, xs in v.items()]
    for b in data.get("baseline", []):
        lines.append("[[baseline]]")
        lines += [f"{k} = {value(v)}" for k, v in b.items()]
    path = out / experiment.name
    path.write_text("\n".join(lines) + "\n")
    return path


def cli(*args: str, env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "rtoslab.cli.main", *args], cwd=ROOT, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def finish(proc: subprocess.Popen[bytes], what: str, t0: float) -> float:
    """Wait for the run; return the seconds from ``t0`` to its first line on stderr (the
    plan's announcement, printed once the run is ready to start: for --cluster local,
    after Ray has started)."""
    assert proc.stderr is not None
    first = None
    tail: list[bytes] = []
    for line in proc.stderr:
        if first is None:
            first = time.perf_counter() - t0
        tail = [*tail[-30:], line]
    proc.wait()
    if proc.returncode != 0:
        sys.exit(f"{what} failed (exit {proc.returncode}):\n{b''.join(tail).decode()[-1500:]}")
    return first or 0.0


def run_mode(mode: str, experiment: Path, out: Path) -> tuple[float, float, Path]:
    """(wall seconds, seconds before the plan started, the database) of one mode."""
    cache = Path(tempfile.mkdtemp(prefix=f"scale-{mode}-", dir=out))
    env = {**os.environ, "RTOSLAB_CACHE": str(cache)}
    db = out / mode / "r.sqlite"
    db.parent.mkdir(parents=True, exist_ok=True)
    base = ["run", str(experiment), "--yes", "--json"]
    t0 = time.perf_counter()
    if mode == "local1":
        start = finish(cli(*base, "-j", "1", "--db", str(db), env=env), mode, t0)
    elif mode == "local2":
        start = finish(cli(*base, "-j", "2", "--db", str(db), env=env), mode, t0)
    elif mode in ("ray-driver", "ray-workers"):
        builds = "workers" if mode == "ray-workers" else "driver"
        start = finish(cli(*base, "-j", "2", "--cluster", "local", "--cluster-builds", builds, "--db",
                           str(db), env=env), mode, t0)
    elif mode == "shards2":
        parts = [out / mode / f"shard{i}.sqlite" for i in (1, 2)]
        procs = [cli(*base, "-j", "1", "--shard", f"{i}/2", "--db", str(p), env=env)
                 for i, p in zip((1, 2), parts, strict=True)]
        for p in procs:
            finish(p, mode, t0)
        finish(cli("merge", *map(str, parts), "-o", str(db), env=env), "merge", t0)
        start = 0.0  # (two processes: each starts its plan at once; not measured)
    wall = time.perf_counter() - t0
    subprocess.run(["rm", "-rf", str(cache)], check=False)
    return wall, start, db


def per_config(db: Path) -> tuple[int, float, float]:
    """(configurations, mean build seconds, mean emulation seconds) of the run in ``db``."""
    con = sqlite3.connect(db)
    builds = [r[0] for r in con.execute("SELECT seconds FROM builds WHERE rebuilt = 1")]
    runs: dict[int, float] = {}
    for config, wall in con.execute("SELECT config_id, json_extract(extra, '$.wall_s') FROM bench_runs"):
        runs[config] = runs.get(config, 0.0) + float(wall or 0.0)
    con.close()
    n = len(runs)
    return n, (sum(builds) / n if n else 0.0), (sum(runs.values()) / n if n else 0.0)


def same(a: Path, b: Path) -> str:
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "same_samples.py"), str(a), "1", str(b),
                           "1"], capture_output=True, text=True, check=False)
    return proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr.strip()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("experiment", nargs="?", type=Path, default=ROOT / "examples" / "big-sweep.toml")
    ap.add_argument("--axis", action="append", default=[], metavar="KEY=N")
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="bench-scale-"))
    out.mkdir(parents=True, exist_ok=True)
    experiment = shrink(args.experiment, args.axis, out)
    modes = [m for m in args.modes.split(",") if m]
    print(f"sweep {experiment} ({', '.join(args.axis) or 'whole'}); databases in {out}", flush=True)
    load = os.getloadavg()[0]
    walls: dict[str, float] = {}
    starts: dict[str, float] = {}
    dbs: dict[str, Path] = {}
    for mode in modes:
        walls[mode], starts[mode], dbs[mode] = run_mode(mode, experiment, out)
        print(f"{mode}: {walls[mode]:.1f} s, of which {starts[mode]:.1f} s before the plan started "
              f"(load average {os.getloadavg()[0]:.1f})", flush=True)
    ref = dbs.get("local2") or next(iter(dbs.values()))
    print("\n| mode | wall time | of it before the plan started | samples vs local -j 2 |\n"
          "|---|---|---|---|")
    for mode in modes:
        verdict = same(ref, dbs[mode]) if dbs[mode] != ref else "(reference)"
        print(f"| {mode} | {walls[mode]:.1f} s | {starts[mode]:.1f} s | {verdict} |")
    if "local1" in dbs:
        n, b, r = per_config(dbs["local1"])
        print(f"\nmodel (from local1): C = {n} configurations, b = {b:.2f} s build, r = {r:.2f} s "
              "emulation per configuration")
        for workers, mode in ((1, "local1"), (2, "local2"), (2, "ray-driver"), (2, "ray-workers"),
                              (2, "shards2")):
            if mode in walls:
                pred = n * (b + r) / workers
                print(f"  T({workers}) = {pred:.1f} s predicted; {mode} measured {walls[mode]:.1f} s "
                      f"({(walls[mode] / pred - 1) * 100:+.0f}%)")
        if "local2" in walls:
            for mode in ("ray-driver", "ray-workers", "shards2"):
                if mode in walls:
                    net = walls[mode] - starts[mode]
                    print(f"  {mode} vs local -j 2: {(walls[mode] / walls['local2'] - 1) * 100:+.0f}% "
                          f"({(net / (walls['local2'] - starts['local2']) - 1) * 100:+.0f}% without "
                          "the time before the plan started)")
    print(f"\nload average at the start {load:.1f}, at the end {os.getloadavg()[0]:.1f} "
          f"(2 cores; other work on the machine slows every mode)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
