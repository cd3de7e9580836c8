"""Timelines as a Chrome trace event file (the JSON object form: ``traceEvents``), which
Perfetto's UI (ui.perfetto.dev) and chrome://tracing open (docs/timeline.md).

One process per timeline (a benchmark in one configuration), one thread per lane: each
task, each interrupt handler, each probe-interval metric, and the probe hits. Slices are
complete events (``ph: "X"``), probe hits instant events (``ph: "i"``); lanes are named
with ``thread_name`` metadata events (``ph: "M"``). ``ts`` and ``dur`` are microseconds of
modelled time (cycles at the configuration's clock); without a cycle model they are
guest instructions read as nanoseconds, and ``otherData`` says so. Every event carries
its instruction and cycle counts and the core in ``args``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from rtoslab.trace.timeline import Timeline

SCHEMA = "rtoslab.chrome-trace/1"


def _us(tl: Timeline, insns: int, cycles: int) -> float:
    if tl.clock_hz:
        return cycles * 1e6 / tl.clock_hz
    return insns / 1000.0


def chrome_trace(timelines: Sequence[Timeline]) -> dict[str, object]:
    events: list[dict[str, object]] = []
    for pid, tl in enumerate(timelines, start=1):
        events.append({"ph": "M", "name": "process_name", "pid": pid, "tid": 0,
                       "args": {"name": f"{tl.benchmark} ({tl.config})"}})
        tids = {lane: i for i, lane in enumerate(tl.lanes, start=1)}
        for lane, tid in tids.items():
            events.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid,
                           "args": {"name": lane}})
            events.append({"ph": "M", "name": "thread_sort_index", "pid": pid, "tid": tid,
                           "args": {"sort_index": tid}})
        for s in tl.slices:
            start = _us(tl, s.start_insns, s.start_cycles)
            events.append({"ph": "X", "name": s.name, "cat": s.kind, "pid": pid,
                           "tid": tids.get(s.lane, 0), "ts": round(start, 4),
                           "dur": round(max(0.0, _us(tl, s.end_insns, s.end_cycles) - start), 4),
                           "args": {"insns": s.end_insns - s.start_insns,
                                    "cycles": s.end_cycles - s.start_cycles,
                                    "start_insns": s.start_insns, "start_cycles": s.start_cycles,
                                    "core": s.core}})
        for m in tl.marks:
            events.append({"ph": "i", "s": "t", "name": m.name, "cat": "probe", "pid": pid,
                           "tid": tids.get(m.lane, 0), "ts": round(_us(tl, m.insns, m.cycles), 4),
                           "args": {"insns": m.insns, "cycles": m.cycles, "core": m.core}})
    return {
        "traceEvents": events,
        "displayTimeUnit": "ns",
        "otherData": {
            "schema": SCHEMA,
            "time": ("modelled cycles at each configuration's clock, in microseconds"
                     if all(t.clock_hz for t in timelines) else
                     "microseconds of modelled time where a cycle model ran; else guest "
                     "instructions read as nanoseconds"),
            "windows": [f"{t.benchmark} ({t.config}): {t.note}" for t in timelines],
        },
    }


def chrome_trace_json(timelines: Sequence[Timeline]) -> str:
    return json.dumps(chrome_trace(timelines), indent=None, separators=(",", ":")) + "\n"
