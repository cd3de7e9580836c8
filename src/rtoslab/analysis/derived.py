"""Derived metrics: figures composed from configuration facts and measured modelled parts.

A timer-driven length (a 50 ms delay) cannot be measured as a probe interval under QEMU:
the timer fires on the instruction clock, not on modelled cycles. What a board would
read is composed instead, sample by sample, from what is real in the model (bench.toml
``[[derived]]``, ``rtoslab.records.DerivedSpec``):

    cycles_i = tick_periods x tick_cycles + sum(plus metrics)_i - sum(minus metrics)_i

``tick_periods`` and ``tick_cycles`` are LAB-KV values the firmware printed (the number
of tick periods it asked for and the tick period it programmed, in core cycles): facts
of the configuration, not measurements. The result has time base "derived", units cycle
and us only (no instruction count: its stored ``insns`` are 0), and a note that spells
the formula out with the numbers used.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rtoslab.analysis.stats import summarize
from rtoslab.records import DerivedSpec, MetricResult, RtoslabError, Sample, TimeBase, Unit


def derive(measured: Sequence[MetricResult], specs: Sequence[DerivedSpec], counters: Mapping[str, int],
           clock_hz: float | None) -> list[MetricResult]:
    """One derived metric per spec, in spec order.

    Returns nothing when there are no modelled cycles (no cycle model or no clock): a
    derived figure exists only in cycles. Raises RtoslabError (one line) when a counter
    or a metric a spec names is missing, a part is not a modelled metric, the parts have
    different sample counts or a sample comes out negative.
    """
    if clock_hz is None or not specs:
        return []
    by_name = {m.name: m for m in measured}
    results: list[MetricResult] = []
    for spec in specs:
        periods = _counter(spec, spec.tick_periods, counters)
        tick_cycles = _counter(spec, spec.tick_cycles, counters)
        parts = [(+1, _part(spec, name, by_name)) for name in spec.plus]
        parts += [(-1, _part(spec, name, by_name)) for name in spec.minus]
        if any(Unit.CYCLE not in part.summaries for _, part in parts):
            return []  # the trace has no cycle model
        counts = {part.name: len(part.samples) for _, part in parts}
        if len(set(counts.values())) > 1:
            listed = ", ".join(f"{k} {v}" for k, v in counts.items())
            raise RtoslabError(f"derived metric '{spec.name}': its parts have different sample counts "
                               f"({listed}): the firmware must take one sample of each per round")
        n = next(iter(counts.values()), 1)
        base = periods * tick_cycles
        cycles = []
        for i in range(n):
            value = base + sum(sign * part.samples[i].cycles for sign, part in parts)
            if value < 0:
                raise RtoslabError(f"derived metric '{spec.name}': sample {i} is negative ({value} cycles): "
                                   "its minus parts exceed the tick periods; check bench.toml [[derived]]")
            cycles.append(value)
        terms = "".join(f" {'+' if sign > 0 else '-'} {part.name}" for sign, part in parts)
        note = (f"{periods} x {tick_cycles} cycles (LAB-KV {spec.tick_periods} x {spec.tick_cycles})"
                f"{terms}; us at {clock_hz / 1e6:g} MHz")
        results.append(MetricResult(
            name=spec.name,
            description=spec.description,
            samples=tuple(Sample(insns=0, cycles=c) for c in cycles),
            summaries={Unit.CYCLE: summarize(cycles),
                       Unit.US: summarize([c / clock_hz * 1e6 for c in cycles])},
            time_base=TimeBase.DERIVED,
            time_note=note,
        ))
    return results


def _counter(spec: DerivedSpec, name: str, counters: Mapping[str, int]) -> int:
    if name not in counters:
        raise RtoslabError(f"derived metric '{spec.name}': the firmware printed no LAB-KV '{name}': "
                           "print it with lab_console_put_kv or fix the name in bench.toml [[derived]]")
    value = counters[name]
    if value < 0:
        raise RtoslabError(f"derived metric '{spec.name}': LAB-KV '{name}' is {value}: it must be >= 0")
    return value


def _part(spec: DerivedSpec, name: str, by_name: Mapping[str, MetricResult]) -> MetricResult:
    part = by_name.get(name)
    if part is None:
        raise RtoslabError(f"derived metric '{spec.name}': the benchmark has no metric '{name}': "
                           f"choose from {', '.join(sorted(by_name)) or 'none'} in bench.toml [[derived]]")
    if part.time_base is not TimeBase.MODELLED:
        raise RtoslabError(f"derived metric '{spec.name}': part '{name}' has time base {part.time_base}: "
                           "only modelled metrics can be composed")
    return part
