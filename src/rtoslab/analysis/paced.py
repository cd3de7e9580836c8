"""Time base "paced": metrics whose intervals hold tick or timer interrupts.

Timers fire on QEMU's instruction clock (one instruction = 1 ns), not on modelled cycles.
An interval of executed code is priced exactly, but when a tick or timer fires inside
it, how many fire (and so how many time slices, tick handlers and switches it holds) is
set by that clock: at 25 MHz a 1 kHz tick comes every 25,000 modelled cycles on a board
and every 1,000,000 instructions here. Such a metric is not a board's elapsed time. A
benchmark says so in its bench.toml (``paced``, optionally ``paced_when`` a capability);
this marks its metrics (docs/formats.md, "Time bases").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from rtoslab.records import MetricResult, TimeBase


def is_paced(paced: str, paced_when: str, capabilities: Mapping[str, bool]) -> bool:
    """Whether a benchmark declared ``paced`` is paced on a kernel with ``capabilities``."""
    return bool(paced) and (not paced_when or capabilities.get(paced_when, False))


def apply_paced(metrics: Sequence[MetricResult], why: str) -> list[MetricResult]:
    """Every modelled or derived metric becomes time base "paced", its note saying ``why``
    (a derived metric keeps its formula first). Virtual metrics stay virtual: they carry
    no cycles. Samples and summaries are unchanged."""
    out: list[MetricResult] = []
    for m in metrics:
        if m.time_base in (TimeBase.MODELLED, TimeBase.DERIVED):
            note = f"{m.time_note}; {why}" if m.time_note else why
            m = replace(m, time_base=TimeBase.PACED, time_note=note)
        out.append(m)
    return out
