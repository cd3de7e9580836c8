"""Pair probe hits into raw samples (docs/formats.md §3), before calibration.

Two hits on the same core are paired on that core's own counters; two on different
cores on the machine's shared clock (``Hit.shared``).

Hit indices in error messages are positions in the sequence passed in, which is the
trace's hit list: the same index the user sees when dumping the trace.
"""

from __future__ import annotations

from collections.abc import Sequence

from rtoslab.records import KIND_INTERVAL, KIND_PERIOD, KIND_SINCE, Hit, PairMeta, RtoslabError, Sample


def pair_samples(hits: Sequence[Hit], pair: PairMeta, *, complete: bool = True) -> list[Sample]:
    """Raw samples of ``pair`` from ``hits``, in execution order.

    interval: one sample ``end - start`` per start hit followed by its end hit; the two
    ids must alternate start, end, start, end.
    period: one sample per pair of successive start hits.
    since: one sample ``end - start`` per end hit, from the most recent start hit (any
    number of start hits may come between ends; an end before the first start is an
    error).

    ``complete``: the trace ran to its natural end. When False (the trace was cut short or
    dropped later hits) an interval left open by the last start hit is not an error; its
    sample is simply missing.
    """
    if pair.kind == KIND_INTERVAL:
        return _interval(hits, pair, complete)
    if pair.kind == KIND_PERIOD:
        return _period(hits, pair)
    if pair.kind == KIND_SINCE:
        return _since(hits, pair)
    raise RtoslabError(f"metric '{pair.name}': unknown pair kind {pair.kind}")


def _interval(hits: Sequence[Hit], pair: PairMeta, complete: bool) -> list[Sample]:
    if pair.start_id == pair.end_id:
        raise RtoslabError(
            f"metric '{pair.name}': an interval needs two different probe ids, "
            f"got {pair.start_id} twice"
        )
    samples: list[Sample] = []
    open_index = -1
    open_hit: Hit | None = None
    for index, hit in enumerate(hits):
        if hit.probe_id == pair.start_id:
            if open_hit is not None:
                raise RtoslabError(
                    f"metric '{pair.name}': start probe {pair.start_id} hit at trace index "
                    f"{index} while the start at index {open_index} has not reached end "
                    f"probe {pair.end_id}"
                )
            open_index, open_hit = index, hit
        elif hit.probe_id == pair.end_id:
            if open_hit is None:
                raise RtoslabError(
                    f"metric '{pair.name}': end probe {pair.end_id} hit at trace index "
                    f"{index} without an open start (probe {pair.start_id})"
                )
            samples.append(_difference(pair, open_hit, open_index, hit, index))
            open_index, open_hit = -1, None
    if open_hit is not None and complete:
        raise RtoslabError(
            f"metric '{pair.name}': start probe {pair.start_id} hit at trace index "
            f"{open_index} never reached end probe {pair.end_id} before the trace ended"
        )
    return samples


def _since(hits: Sequence[Hit], pair: PairMeta) -> list[Sample]:
    if pair.start_id == pair.end_id:
        raise RtoslabError(
            f"metric '{pair.name}': a since-metric needs two different probe ids, "
            f"got {pair.start_id} twice"
        )
    samples: list[Sample] = []
    last: Hit | None = None
    last_index = -1
    for index, hit in enumerate(hits):
        if hit.probe_id == pair.start_id:
            last, last_index = hit, index
        elif hit.probe_id == pair.end_id:
            if last is None:
                raise RtoslabError(
                    f"metric '{pair.name}': end probe {pair.end_id} hit at trace index "
                    f"{index} before any start (probe {pair.start_id})"
                )
            samples.append(_difference(pair, last, last_index, hit, index))
    return samples


def _period(hits: Sequence[Hit], pair: PairMeta) -> list[Sample]:
    if pair.start_id != pair.end_id:
        raise RtoslabError(
            f"metric '{pair.name}': a period uses one probe id, got start probe "
            f"{pair.start_id} and end probe {pair.end_id}"
        )
    samples: list[Sample] = []
    previous: Hit | None = None
    previous_index = -1
    for index, hit in enumerate(hits):
        if hit.probe_id != pair.start_id:
            continue
        if previous is not None:
            samples.append(_difference(pair, previous, previous_index, hit, index))
        previous, previous_index = hit, index
    return samples


def _difference(pair: PairMeta, first: Hit, first_index: int, second: Hit, index: int) -> Sample:
    """``second - first`` on the first hit's core's own counters; a pair whose hits ran
    on different cores is measured on the machine's shared clock instead (docs/
    timing-model.md, "Two cores")."""
    if first.core != second.core:
        sample = Sample(insns=second.shared_insns - first.shared_insns,
                        cycles=second.shared_cycles - first.shared_cycles)
    else:
        sample = Sample(insns=second.insns - first.insns, cycles=second.cycles - first.cycles)
    if sample.insns < 0 or sample.cycles < 0:
        raise RtoslabError(
            f"metric '{pair.name}': counters go backwards from trace index {first_index} to "
            f"{index} ({sample.insns} insns, {sample.cycles} cycles): the trace is corrupt"
        )
    return sample
