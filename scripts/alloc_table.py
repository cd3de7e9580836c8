#!/usr/bin/env python3
"""Print an allocation-lab table from a stored run: allocator x (median, p99, max) of the
given metrics, in modelled cycles, one column group per benchmark.

    scripts/alloc_table.py DB RUN_ID METRIC [METRIC ...]

Reads the database through SQLite only; the allocator is the configuration's LAB_ALLOC
define (docs/allocation.md). Used for the headline table of docs/allocation.md, so the
figures there are copied from a stored run, never typed.
"""

from __future__ import annotations

import json
import sqlite3
import sys


def main(argv: list[str]) -> int:
    if len(argv) < 4:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    db, run_id, metrics = argv[1], int(argv[2]), argv[3:]
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = con.execute(
        "SELECT c.identity, b.benchmark, m.name, s.median, s.p99, s.max, b.status "
        "FROM bench_runs b JOIN configs c ON c.id = b.config_id "
        "LEFT JOIN metrics m ON m.bench_run_id = b.id "
        "LEFT JOIN summaries s ON s.metric_id = m.id AND s.unit = 'cycle' "
        "WHERE b.run_id = ? ORDER BY b.id", (run_id,)).fetchall()
    table: dict[str, dict[tuple[str, str], tuple[float, float, float]]] = {}
    cols: list[tuple[str, str]] = []
    for identity, bench, metric, med, p99, mx, status in rows:
        defines = json.loads(identity).get("defines", {})
        alloc = str(defines.get("LAB_ALLOC", "tlsf"))
        if status != "ok" or metric not in metrics:
            continue
        key = (bench, metric)
        if key not in cols:
            cols.append(key)
        table.setdefault(alloc, {})[key] = (med, p99, mx)
    head = ["allocator"] + [f"{b} {m} median / p99 / max" for b, m in cols]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for alloc, cells in table.items():
        parts = [alloc]
        for key in cols:
            v = cells.get(key)
            parts.append(" / ".join(f"{x:g}" for x in v) if v else "-")
        print("| " + " | ".join(parts) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
