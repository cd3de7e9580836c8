#!/usr/bin/env python3
"""Split cross-core intervals into each core's share (docs/smp.md).

    .venv/bin/python scripts/cross_core_split.py TRACE [TRACE ...]

A TRACE is a plugin trace file a run left in the cache,
``.cache/traces/<measure key>/<benchmark>.trace`` (docs/formats.md section 2). The trace
alone does not say which probes pair (that is in the ELF), so the script pairs a start
probe (an even id >= 2) with the next hit of id start + 1 when it runs on ANOTHER core,
as the k_*_x benchmarks declare their intervals. The shared clock gives the interval (both cores' work, as the
host measures it); the start core's own count and the end core's own count split it:

    end core's share   = end hit's own count - the end core's count at the start hit
    start core's share = interval - end core's share

(with two cores the end core's count at the start hit is the shared clock minus the start
core's own count). Prints, per file and start id, the most common (interval, start core,
end core) triple in guest instructions and modelled cycles, and how many pairs had it.
Raw counts: the probe cost is not subtracted (the host's tables subtract it; its
calibration is the interval of probes 0 -> 1).
"""

from __future__ import annotations

import collections
import sys
from pathlib import Path

from rtoslab.records import Hit, RtoslabError
from rtoslab.trace.reader import read_trace

Split = tuple[tuple[int, int], tuple[int, int], tuple[int, int]]


def splits(path: Path) -> dict[int, collections.Counter[Split]]:
    trace = read_trace(path)
    out: dict[int, collections.Counter[Split]] = collections.defaultdict(collections.Counter)
    open_starts: dict[int, Hit] = {}
    for h in trace.hits:
        if h.shared is None:
            continue  # a single-core trace: nothing crosses cores
        s = open_starts.pop(h.probe_id - 1, None)
        if s is not None and s.shared is not None and s.core != h.core:
            other_at_start = (s.shared[0] - s.insns, s.shared[1] - s.cycles)
            end_share = (h.insns - other_at_start[0], h.cycles - other_at_start[1])
            total = (h.shared[0] - s.shared[0], h.shared[1] - s.shared[1])
            start_share = (total[0] - end_share[0], total[1] - end_share[1])
            out[h.probe_id - 1][(total, start_share, end_share)] += 1
        if h.probe_id >= 2 and h.probe_id % 2 == 0:
            open_starts[h.probe_id] = h
    return out


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: cross_core_split.py TRACE [TRACE ...]", file=sys.stderr)
        return 2
    for arg in argv:
        path = Path(arg)
        if not path.is_file():
            print(f"{arg}: no such trace file (runs leave them in .cache/traces/<measure key>/)",
                  file=sys.stderr)
            return 2
        try:
            found = splits(path)
        except RtoslabError as e:
            print(f"{arg}: {e}", file=sys.stderr)
            return 2
        if not found:
            print(f"{path.name}: no cross-core pairs")
        for start, counter in sorted(found.items()):
            (total, a, b), n = counter.most_common(1)[0]
            print(f"{path.name} probes {start}->{start + 1}: {sum(counter.values())} pairs; most common "
                  f"({n}x): interval {total[0]} insn / {total[1]} cycles = start core {a[0]} / {a[1]} "
                  f"+ end core {b[0]} / {b[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
