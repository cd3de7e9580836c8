"""Turn one trace and its probe metadata into per-metric samples and summaries."""

from __future__ import annotations

import math
from collections.abc import Sequence

from rtoslab.analysis.calibration import calibrate, subtract
from rtoslab.analysis.pairing import pair_samples
from rtoslab.analysis.stats import summarize
from rtoslab.records import (
    FLAG_NO_CALIBRATION,
    KIND_PERIOD,
    EndStatus,
    Hit,
    MetricResult,
    PairMeta,
    RtoslabError,
    Sample,
    Summary,
    TimeBase,
    Trace,
    Unit,
)

# Cycles a board's sample may fall below the calibrated probe cost (docs/boards.md, "Probe
# cost"): measured on QEMU's one clock, an empty pair after other code read 1 cycle less
# than the calibration pair (the probe's first loads pipeline with what precedes them).
BUFFER_PROBE_SLACK = 2


def analyse(
    trace: Trace, metas: Sequence[PairMeta], clock_hz: float | None
) -> tuple[Sample, list[MetricResult]]:
    """Calibrate, pair and summarize every metric of ``metas`` in ``trace``.

    Returns the probe cost and one result per pair, in metadata order, except the
    calibration pair: its cost is returned instead (the `calib` benchmark's own empty
    pair is the metric that shows 0 after calibration). Units: always "insn"; "cycle" and
    "us" only when the trace has a cycle model and ``clock_hz`` is given, and never for a
    metric whose time base is virtual (flag bit 2: paced by the instruction clock).

    A trace that was cut short or dropped hits (see :func:`is_complete`) may leave its
    last interval open; every other pairing violation is an error.
    """
    if clock_hz is not None and not (math.isfinite(clock_hz) and clock_hz > 0):
        raise RtoslabError(
            f"clock frequency {clock_hz} Hz is not a positive number: fix the target clock_hz"
        )
    complete = is_complete(trace)
    cost = calibrate(trace.hits, metas, complete=complete)
    _check_known_probes(trace.hits, metas)
    with_time = trace.has_cycles and clock_hz is not None
    results: list[MetricResult] = []
    for meta in metas:
        if meta.is_calibration:
            continue
        samples = pair_samples(trace.hits, meta, complete=complete)
        if not samples:
            raise RtoslabError(_no_samples_message(trace.hits, meta))
        if not meta.flags & FLAG_NO_CALIBRATION:
            samples = subtract(samples, cost, metric=meta.name,
                               slack=0 if trace.has_insns else BUFFER_PROBE_SLACK)
        timed = with_time and meta.time_base is TimeBase.MODELLED
        results.append(
            MetricResult(
                name=meta.name,
                description=meta.description,
                samples=tuple(samples),
                summaries=_summaries(samples, clock_hz if timed else None, trace.has_insns),
                time_base=meta.time_base,
            )
        )
    return cost, results


def is_complete(trace: Trace) -> bool:
    """True when the trace holds every hit the guest executed up to a normal end."""
    if trace.end is None:
        return False
    return not trace.end.status & (EndStatus.RECORD_LIMIT | EndStatus.INSN_LIMIT)


def _summaries(samples: Sequence[Sample], clock_hz: float | None,
               has_insns: bool = True) -> dict[Unit, Summary]:
    summaries: dict[Unit, Summary] = {}
    if has_insns:  # (a board's probe buffer holds cycles only)
        summaries[Unit.INSN] = summarize([sample.insns for sample in samples])
    if clock_hz is not None:
        cycles = [sample.cycles for sample in samples]
        summaries[Unit.CYCLE] = summarize(cycles)
        summaries[Unit.US] = summarize([count / clock_hz * 1e6 for count in cycles])
    return summaries


def _check_known_probes(hits: Sequence[Hit], metas: Sequence[PairMeta]) -> None:
    """Every hit must belong to a declared pair, or firmware and metadata disagree."""
    known = {meta.start_id for meta in metas} | {meta.end_id for meta in metas}
    for index, hit in enumerate(hits):
        if hit.probe_id not in known:
            raise RtoslabError(
                f"probe {hit.probe_id} hit at trace index {index} belongs to no metric in "
                "the probe metadata: declare every probe pair with the rtoslab harness macros"
            )


def _no_samples_message(hits: Sequence[Hit], meta: PairMeta) -> str:
    starts = sum(1 for hit in hits if hit.probe_id == meta.start_id)
    if starts == 0:
        return (
            f"metric '{meta.name}': no samples: the benchmark never reached probe {meta.start_id}"
        )
    if meta.kind == KIND_PERIOD:
        return (
            f"metric '{meta.name}': no samples: the benchmark reached probe {meta.start_id} only "
            "once; a period needs at least two hits"
        )
    return f"metric '{meta.name}': no samples: the benchmark never reached probe {meta.end_id}"
