"""Pairing probe hits into raw samples (docs/formats.md §3)."""

from __future__ import annotations

import pytest

from rtoslab.analysis.pairing import pair_samples
from rtoslab.records import KIND_INTERVAL, KIND_PERIOD, Hit, PairMeta, RtoslabError, Sample

YIELD = PairMeta("yield", KIND_INTERVAL, 2, 3, 0, "")
TICK = PairMeta("tick", KIND_PERIOD, 7, 7, 0, "")


def hits(*triples: tuple[int, int, int]) -> tuple[Hit, ...]:
    return tuple(Hit(*triple) for triple in triples)


def test_interval_samples_are_end_minus_start() -> None:
    trace = hits((2, 10, 100), (3, 15, 112), (9, 20, 130), (2, 30, 140), (3, 40, 155))
    assert pair_samples(trace, YIELD) == [Sample(5, 12), Sample(10, 15)]


def test_interval_ignores_other_probes_between() -> None:
    trace = hits((2, 10, 0), (5, 11, 0), (4, 12, 0), (3, 13, 0))
    assert pair_samples(trace, YIELD) == [Sample(3, 0)]


def test_interval_zero_length() -> None:
    assert pair_samples(hits((2, 4, 4), (3, 4, 4)), YIELD) == [Sample(0, 0)]


def test_interval_no_hits_gives_no_samples() -> None:
    assert pair_samples(hits((5, 1, 1)), YIELD) == []
    assert pair_samples((), YIELD) == []


def test_end_without_start() -> None:
    trace = hits((2, 1, 1), (3, 2, 2), (9, 3, 3), (3, 4, 4))
    with pytest.raises(RtoslabError) as err:
        pair_samples(trace, YIELD)
    assert str(err.value) == (
        "metric 'yield': end probe 3 hit at trace index 3 without an open start (probe 2)"
    )


def test_start_twice() -> None:
    trace = hits((9, 0, 0), (2, 1, 1), (2, 2, 2), (3, 4, 4))
    with pytest.raises(RtoslabError) as err:
        pair_samples(trace, YIELD)
    assert str(err.value) == (
        "metric 'yield': start probe 2 hit at trace index 2 while the start at index 1 "
        "has not reached end probe 3"
    )


def test_open_start_at_end_of_complete_trace() -> None:
    trace = hits((2, 1, 1), (3, 2, 2), (2, 5, 5))
    with pytest.raises(RtoslabError) as err:
        pair_samples(trace, YIELD)
    assert str(err.value) == (
        "metric 'yield': start probe 2 hit at trace index 2 never reached end probe 3 "
        "before the trace ended"
    )


def test_open_start_at_end_of_incomplete_trace_is_dropped() -> None:
    trace = hits((2, 1, 1), (3, 2, 2), (2, 5, 5))
    assert pair_samples(trace, YIELD, complete=False) == [Sample(1, 1)]


def test_incomplete_trace_still_rejects_unbalanced_pairs() -> None:
    with pytest.raises(RtoslabError, match="without an open start"):
        pair_samples(hits((3, 1, 1)), YIELD, complete=False)


def test_interval_counters_backwards() -> None:
    with pytest.raises(
        RtoslabError,
        match=r"^metric 'yield': counters go backwards from trace index 0 to 1 \(-1 insns",
    ):
        pair_samples(hits((2, 5, 5), (3, 4, 6)), YIELD)


def test_interval_with_equal_ids_is_rejected() -> None:
    with pytest.raises(RtoslabError, match="an interval needs two different probe ids"):
        pair_samples((), PairMeta("bad", KIND_INTERVAL, 4, 4, 0, ""))


def test_period_successive_differences() -> None:
    trace = hits((7, 100, 1000), (2, 101, 1001), (7, 150, 1600), (7, 210, 2300))
    assert pair_samples(trace, TICK) == [Sample(50, 600), Sample(60, 700)]


def test_period_single_hit_gives_no_samples() -> None:
    assert pair_samples(hits((7, 1, 1)), TICK) == []


def test_period_with_different_ids_is_rejected() -> None:
    with pytest.raises(RtoslabError, match="a period uses one probe id"):
        pair_samples((), PairMeta("bad", KIND_PERIOD, 4, 5, 0, ""))


def test_period_counters_backwards() -> None:
    with pytest.raises(RtoslabError, match=r"counters go backwards from trace index 0 to 2"):
        pair_samples(hits((7, 5, 5), (2, 6, 6), (7, 5, 4)), TICK)


def test_unknown_kind() -> None:
    with pytest.raises(RtoslabError, match=r"^metric 'odd': unknown pair kind 5"):
        pair_samples((), PairMeta("odd", 5, 2, 3, 0, ""))


def test_same_core_pairs_on_its_own_counters_across_core_on_the_shared_clock() -> None:
    # Core 0 starts at its own 100 (machine 100); core 1, whose counts run from its own
    # start, ends at its own 7 (machine 130): the interval is 30 on the shared clock.
    trace = [
        Hit(2, 100, 150, core=0, shared=(100, 150)),
        Hit(3, 7, 9, core=1, shared=(130, 190)),
        Hit(2, 120, 170, core=0, shared=(140, 200)),
        Hit(3, 130, 180, core=0, shared=(150, 210)),
    ]
    assert pair_samples(trace, YIELD) == [Sample(30, 40), Sample(10, 10)]


def test_single_core_hits_without_shared_clock_pair_as_before() -> None:
    assert pair_samples([Hit(2, 5, 6), Hit(3, 9, 16)], YIELD) == [Sample(4, 10)]
