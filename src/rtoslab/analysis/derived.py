"""Derived metrics: figures composed on the host from measured metrics (bench.toml
``[[derived]]``, ``rtoslab.records.DerivedSpec``), sample by sample. Four kinds:

``tick`` (the default). A timer-driven length (a 50 ms delay) cannot be measured as a
probe interval under QEMU: the timer fires on the instruction clock, not on modelled
cycles. What a board would read is composed instead from what is real in the model::

    cycles_i = tick_periods x tick_cycles + sum(plus metrics)_i - sum(minus metrics)_i

``tick_periods`` and ``tick_cycles`` are LAB-KV values the firmware printed (the number
of tick periods it asked for and the tick period it programmed, in core cycles): facts
of the configuration, not measurements. Units cycle and us only (stored ``insns`` are 0).

``rate``. ``counter`` is a LAB-KV value the firmware printed: the operations it did in
each sample of the probe metric ``interval``. Per sample::

    insn/op  = insns_i / ops          cycle/op = cycles_i / ops
    op/s     = ops / (cycles_i / clock_hz)   (operations per second of modelled time)

Its stored samples are the interval's raw samples (insns and cycles of the window).

``ratio``: ``a_i / b_i`` (cycles when both have a cycle model, else instructions), unit
"ratio"; no raw samples are stored. ``difference``: ``a_i - b_i`` in every unit both
have (raw samples: the differences).

Every derived metric has time base "derived" and a note that spells its formula out with
the numbers used. A metric whose every source is a declared one-sample total (bench.toml
``[[metric]] samples = "total"``) is itself a total: no "too few samples" warning.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace

from rtoslab.analysis.stats import DEFAULT_MIN_N, summarize
from rtoslab.records import (
    DerivedSpec,
    MetricDecl,
    MetricResult,
    RtoslabError,
    Sample,
    Summary,
    TimeBase,
    Unit,
)


def derive(measured: Sequence[MetricResult], specs: Sequence[DerivedSpec], counters: Mapping[str, int],
           clock_hz: float | None, totals: Collection[str] = ()) -> list[MetricResult]:
    """One derived metric per spec, in spec order (each may use the ones before it).

    ``clock_hz`` is None when there are no modelled cycles (no cycle model or no clock):
    then a tick metric does not exist, a rate has insn/op only, and a ratio or difference
    is taken in instructions. ``totals`` names metrics declared one-sample totals.
    Raises RtoslabError (one line) when a counter or a metric a spec names is missing or
    unusable, the parts have different sample counts, or a value is out of range.
    """
    by_name = {m.name: m for m in measured}
    totals = set(totals)
    results: list[MetricResult] = []
    for spec in specs:
        if spec.kind == "tick":
            made = _tick(spec, by_name, counters, clock_hz)
        elif spec.kind == "rate":
            made = _rate(spec, by_name, counters, clock_hz, totals)
        else:
            made = _pair(spec, by_name, clock_hz, totals)
        if made is not None:
            results.append(made)
            by_name[made.name] = made
            if _sources(spec) <= totals:
                totals.add(made.name)
    return results


def apply_totals(metrics: Sequence[MetricResult], decls: Sequence[MetricDecl]) -> list[MetricResult]:
    """Check the metrics declared ``samples = "total"`` and drop their "too few samples"
    warnings (they are one sample by design). Raises RtoslabError when a declared metric
    does not exist or has more than one sample."""
    by_name = {m.name: m for m in metrics}
    out = {m.name: m for m in metrics}
    for decl in decls:
        metric = by_name.get(decl.name)
        if metric is None:
            raise RtoslabError(f"bench.toml [[metric]] '{decl.name}': the benchmark has no such metric: "
                               f"choose from {', '.join(sorted(by_name)) or 'none'}")
        if decl.samples != "total":
            continue
        if len(metric.samples) != 1:
            raise RtoslabError(f"metric '{decl.name}' is declared samples = \"total\" but has "
                               f"{len(metric.samples)} samples: take it once, or drop the declaration")
        out[decl.name] = replace(metric, summaries={u: replace(s, warnings=())
                                                    for u, s in metric.summaries.items()})
    return [out[m.name] for m in metrics]


def total_names(decls: Sequence[MetricDecl]) -> set[str]:
    return {d.name for d in decls if d.samples == "total"}


def _sources(spec: DerivedSpec) -> set[str]:
    if spec.kind == "tick":
        return set(spec.plus) | set(spec.minus)
    if spec.kind == "rate":
        return {spec.interval}
    return {spec.a, spec.b}


def _summarize(values: Sequence[float], total: bool) -> Summary:
    return summarize(values, min_n=1 if total else DEFAULT_MIN_N)


def _tick(spec: DerivedSpec, by_name: Mapping[str, MetricResult], counters: Mapping[str, int],
          clock_hz: float | None) -> MetricResult | None:
    if clock_hz is None:
        return None  # a tick figure exists only in cycles
    periods = _counter(spec, spec.tick_periods, counters)
    tick_cycles = _counter(spec, spec.tick_cycles, counters)
    parts = [(+1, _part(spec, name, by_name)) for name in spec.plus]
    parts += [(-1, _part(spec, name, by_name)) for name in spec.minus]
    if any(Unit.CYCLE not in part.summaries for _, part in parts):
        return None  # the trace has no cycle model
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
    return MetricResult(
        name=spec.name,
        description=spec.description,
        samples=tuple(Sample(insns=0, cycles=c) for c in cycles),
        summaries={Unit.CYCLE: summarize(cycles),
                   Unit.US: summarize([c / clock_hz * 1e6 for c in cycles])},
        time_base=TimeBase.DERIVED,
        time_note=note,
    )


def _rate(spec: DerivedSpec, by_name: Mapping[str, MetricResult], counters: Mapping[str, int],
          clock_hz: float | None, totals: Collection[str]) -> MetricResult:
    ops = _counter(spec, spec.counter, counters)
    if ops == 0:
        raise RtoslabError(f"derived metric '{spec.name}': LAB-KV '{spec.counter}' is 0: a rate needs "
                           "at least one operation; check the benchmark's loop")
    window = _part(spec, spec.interval, by_name)
    total = spec.interval in totals
    summaries = {Unit.INSN_PER_OP: _summarize([s.insns / ops for s in window.samples], total)}
    timed = clock_hz is not None and Unit.CYCLE in window.summaries
    if timed:
        assert clock_hz is not None
        if any(s.cycles <= 0 for s in window.samples):
            raise RtoslabError(f"derived metric '{spec.name}': interval '{spec.interval}' has a sample "
                               "of 0 cycles: the window must span the operations")
        summaries[Unit.CYCLE_PER_OP] = _summarize([s.cycles / ops for s in window.samples], total)
        summaries[Unit.OP_PER_S] = _summarize([ops * clock_hz / s.cycles for s in window.samples], total)
    note = f"{spec.interval} / {ops} operations (LAB-KV {spec.counter}) per sample"
    if timed:
        assert clock_hz is not None
        note += f"; op/s of modelled time at {clock_hz / 1e6:g} MHz"
    return MetricResult(
        name=spec.name,
        description=spec.description,
        samples=window.samples,
        summaries=summaries,
        time_base=TimeBase.DERIVED,
        time_note=note,
    )


def _pair(spec: DerivedSpec, by_name: Mapping[str, MetricResult], clock_hz: float | None,
          totals: Collection[str]) -> MetricResult:
    a = _part(spec, spec.a, by_name)
    b = _part(spec, spec.b, by_name)
    na, nb = len(a.samples), len(b.samples)
    if na != nb and 1 not in (na, nb):
        raise RtoslabError(f"derived metric '{spec.name}': {a.name} has {na} samples and {b.name} {nb}: "
                           "a ratio or difference needs equal counts, or one of them a single sample")
    n = max(na, nb)
    pairs = [(a.samples[i if na > 1 else 0], b.samples[i if nb > 1 else 0]) for i in range(n)]
    total = {spec.a, spec.b} <= set(totals)
    cycles = Unit.CYCLE in a.summaries and Unit.CYCLE in b.summaries
    if spec.kind == "ratio":
        unit_word = "cycles" if cycles else "instructions"
        values = []
        for i, (x, y) in enumerate(pairs):
            num, den = (x.cycles, y.cycles) if unit_word == "cycles" else (x.insns, y.insns)
            if den == 0:
                raise RtoslabError(f"derived metric '{spec.name}': sample {i} of '{b.name}' is 0 "
                                   f"{unit_word}: a ratio cannot divide by it")
            values.append(num / den)
        return MetricResult(name=spec.name, description=spec.description, samples=(),
                            summaries={Unit.RATIO: _summarize(values, total)},
                            time_base=TimeBase.DERIVED, time_note=f"{a.name} / {b.name} in {unit_word}")
    diffs = tuple(Sample(insns=x.insns - y.insns, cycles=x.cycles - y.cycles) for x, y in pairs)
    summaries: dict[Unit, Summary] = {}
    if Unit.INSN in a.summaries and Unit.INSN in b.summaries:
        summaries[Unit.INSN] = _summarize([s.insns for s in diffs], total)
    if cycles:
        summaries[Unit.CYCLE] = _summarize([s.cycles for s in diffs], total)
    if cycles and clock_hz is not None and Unit.US in a.summaries and Unit.US in b.summaries:
        summaries[Unit.US] = _summarize([s.cycles / clock_hz * 1e6 for s in diffs], total)
    if not summaries:
        raise RtoslabError(f"derived metric '{spec.name}': {a.name} and {b.name} share no unit: "
                           "a difference needs both in instructions or both in cycles")
    return MetricResult(name=spec.name, description=spec.description, samples=diffs,
                        summaries=summaries, time_base=TimeBase.DERIVED,
                        time_note=f"{a.name} - {b.name}, sample by sample")


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
    if spec.kind == "tick" and part.time_base is not TimeBase.MODELLED:
        raise RtoslabError(f"derived metric '{spec.name}': part '{name}' has time base {part.time_base}: "
                           "only modelled metrics can be composed")
    return part
