#!/usr/bin/env python3
"""Check that two stored runs measured exactly the same samples.

    scripts/same_samples.py DB_A RUN_A DB_B RUN_B

A refactoring aid: run a suite before and after a change that must not alter any
measurement, then compare. Results are matched by benchmark, target, kernel, compiler
flags (with preprocessor defines, however the identity stored them), kernel options (as a
short digest of the stored option values, so configurations that differ only in a kernel
option stay apart) and metric, not by configuration hash, since a refactor may
legitimately change how identities are written.
For every matched metric the full sequences of guest-instruction and modelled-cycle
samples must be equal. Prints one line per difference and a closing count; exit status 0
when everything matched, 1 otherwise, 2 on bad arguments. Reads the databases only
through SQLite (no rtoslab import), so it works across schema-compatible versions.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import sys
from pathlib import Path

Key = tuple[str, str, str, str, str, str, str]  # benchmark, target, kernel, options, flags, status, metric


def _flags(cflags: str, identity: dict[str, object]) -> str:
    words = cflags.split()
    defines = identity.get("defines")
    if isinstance(defines, dict):
        words += [f"-D{k}={v}" for k, v in defines.items()]
    opts = [w for w in words if not w.startswith("-D")]
    return " ".join(opts + sorted(w for w in words if w.startswith("-D")))


def _options(kernel_config: str) -> str:
    """A short digest of the kernel's option values (canonical JSON), printed as opts:XXXXXXXX."""
    text = json.dumps(json.loads(kernel_config or "{}"), sort_keys=True)
    return "opts:" + hashlib.sha256(text.encode()).hexdigest()[:8]


def load(db: Path, run_id: int) -> dict[Key, tuple[tuple[int, ...], tuple[int, ...]]]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = con.execute(
        "SELECT b.id, b.benchmark, c.target, c.kernel, c.kernel_config, c.cflags, c.identity, b.status "
        "FROM bench_runs b JOIN configs c ON c.id = b.config_id WHERE b.run_id = ?", (run_id,)
    ).fetchall()
    if not rows:
        raise SystemExit(f"same_samples: {db} has no results for run {run_id}: give a stored run id")
    out: dict[Key, tuple[tuple[int, ...], tuple[int, ...]]] = {}
    for bid, bench, target, kernel, kernel_config, cflags, identity, status in rows:
        flags = _flags(cflags, json.loads(identity))
        options = _options(kernel_config)
        metrics = con.execute("SELECT id, name FROM metrics WHERE bench_run_id = ?", (bid,)).fetchall()
        if not metrics:
            out[(bench, target, kernel, options, flags, status, "")] = ((), ())
        for mid, name in metrics:
            s = con.execute("SELECT insns, cycles FROM samples WHERE metric_id = ? ORDER BY seq",
                            (mid,)).fetchall()
            out[(bench, target, kernel, options, flags, status, name)] = (
                tuple(r[0] for r in s), tuple(r[1] for r in s))
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 4:
        print("usage: same_samples.py DB_A RUN_A DB_B RUN_B", file=sys.stderr)
        return 2
    a = load(Path(argv[0]), int(argv[1]))
    b = load(Path(argv[2]), int(argv[3]))
    bad = 0
    for key in sorted(set(a) | set(b)):
        name = " ".join(k for k in key if k)
        if key not in a or key not in b:
            print(f"only in {'A' if key in a else 'B'}: {name}")
            bad += 1
        elif a[key][0] != b[key][0]:
            print(f"instructions differ: {name}: {a[key][0][:5]}... vs {b[key][0][:5]}...")
            bad += 1
        elif a[key][1] != b[key][1]:
            print(f"cycles differ: {name}: {a[key][1][:5]}... vs {b[key][1][:5]}...")
            bad += 1
    same = len(set(a) & set(b)) - sum(1 for k in set(a) & set(b) if a[k] != b[k])
    print(f"{same} identical, {bad} different")
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
