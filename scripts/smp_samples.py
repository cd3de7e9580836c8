#!/usr/bin/env python3
"""Per-configuration sample checks for examples/smp.toml (docs/smp.md).

    .venv/bin/python scripts/smp_samples.py same DB RUN_A RUN_B
    .venv/bin/python scripts/smp_samples.py runs DB RUN [METRIC ...]

`same`: compares two runs' instruction and cycle sample sequences per (configuration hash,
benchmark, metric), so configurations that differ only in kernel options stay apart
(scripts/same_samples.py does too, by its stored identity; this one by configuration
hash, within one database). Prints a
closing count; exit status 0 when every row matched and both runs have the same rows.

`runs`: for each ok metric of RUN (or only the METRICs named), the sample sequence as runs of
equal values, `first..last: insns/cycles` (rounds numbered from 0), under a header naming the
configuration by its kernel options: where a kernel changes path, and for how many rounds.

Reads the database only through SQLite (no rtoslab import).
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

Key = tuple[str, str, str]  # config hash, benchmark, metric
Seq = list[tuple[int, int]]


def _label(kernel: str, kernel_config: str) -> str:
    opts = json.loads(kernel_config)
    short = {k: v for k, v in opts.items() if k.startswith("labSMP_")}
    return kernel + "".join(f" {k}={v}" for k, v in sorted(short.items()))


def load(db: Path, run_id: int) -> tuple[dict[Key, Seq], dict[str, str]]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = con.execute(
        "SELECT c.hash, c.kernel, c.kernel_config, b.benchmark, m.name, s.insns, s.cycles "
        "FROM bench_runs b JOIN configs c ON c.id = b.config_id "
        "JOIN metrics m ON m.bench_run_id = b.id JOIN samples s ON s.metric_id = m.id "
        "WHERE b.run_id = ? AND b.status = 'ok' ORDER BY c.hash, b.benchmark, m.name, s.seq",
        (run_id,),
    ).fetchall()
    con.close()
    out: dict[Key, Seq] = {}
    labels: dict[str, str] = {}
    for chash, kernel, kcfg, bench, metric, insns, cycles in rows:
        out.setdefault((chash, bench, metric), []).append((insns, cycles))
        labels[chash] = _label(kernel, kcfg)
    return out, labels


def same(db: Path, a: int, b: int) -> int:
    ra, labels = load(db, a)
    rb, _ = load(db, b)
    bad = 0
    for key in sorted(set(ra) | set(rb)):
        if ra.get(key) != rb.get(key):
            bad += 1
            print(f"differs: {labels.get(key[0], key[0])} {key[1]} {key[2]}")
    n = sum(len(v) for v in ra.values())
    print(f"{len(ra)} rows in run {a}, {len(rb)} in run {b}; {n} samples per run; "
          f"{len(set(ra) | set(rb)) - bad} identical, {bad} different")
    return 1 if bad else 0


def runs(db: Path, run_id: int, metrics: list[str]) -> int:
    rows, labels = load(db, run_id)
    for (chash, bench, metric), seq in sorted(rows.items(), key=lambda kv: (labels[kv[0][0]], kv[0][1:])):
        if metrics and metric not in metrics:
            continue
        parts: list[str] = []
        start = 0
        for i in range(1, len(seq) + 1):
            if i == len(seq) or seq[i] != seq[start]:
                parts.append(f"{start}..{i - 1}: {seq[start][0]}/{seq[start][1]}")
                start = i
        print(f"{labels[chash]} {bench} {metric} ({len(parts)} runs): " + ", ".join(parts))
    return 0


def main(argv: list[str]) -> int:
    try:
        if len(argv) == 4 and argv[0] == "same":
            return same(Path(argv[1]), int(argv[2]), int(argv[3]))
        if len(argv) >= 3 and argv[0] == "runs":
            return runs(Path(argv[1]), int(argv[2]), argv[3:])
    except ValueError:
        pass
    except sqlite3.Error as e:
        print(f"{argv[1]}: cannot read it as a results database ({e}); give the --db file of the runs",
              file=sys.stderr)
        return 2
    print("usage: smp_samples.py same DB RUN_A RUN_B | runs DB RUN [METRIC ...]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
