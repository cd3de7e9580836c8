"""Calibration (docs/formats.md §4): the probe cost and its subtraction."""

from __future__ import annotations

import pytest

from rtoslab.analysis.calibration import calibrate, find_calibration_pair, subtract
from rtoslab.records import KIND_INTERVAL, KIND_PERIOD, Hit, PairMeta, RtoslabError, Sample

CAL = PairMeta("calibration", KIND_INTERVAL, 0, 1, 1, "")
YIELD = PairMeta("yield", KIND_INTERVAL, 2, 3, 0, "")


def calibration_hits(count: int, cost_insns: int = 3, cost_cycles: int = 4) -> list[Hit]:
    result = []
    insns, cycles = 100, 200
    for _ in range(count):
        result.append(Hit(0, insns, cycles))
        result.append(Hit(1, insns + cost_insns, cycles + cost_cycles))
        insns += 10
        cycles += 20
    return result


def test_calibrate_sixteen_equal_samples() -> None:
    hits = [*calibration_hits(16), Hit(2, 1000, 2000), Hit(3, 1010, 2030)]
    assert calibrate(hits, [YIELD, CAL]) == Sample(3, 4)


def test_calibrate_one_sample_is_enough() -> None:
    assert calibrate(calibration_hits(1, 5, 0), [CAL]) == Sample(5, 0)


def test_calibration_unstable_in_insns() -> None:
    hits = calibration_hits(3)
    hits[5] = Hit(1, hits[4].insns + 4, hits[4].cycles + 4)
    with pytest.raises(RtoslabError) as err:
        calibrate(hits, [CAL])
    assert str(err.value).startswith(
        "calibration unstable: calibration pair 'calibration' sample 2 is 4 insns / 4 cycles "
        "but sample 0 is 3 insns / 4 cycles;"
    )


def test_calibration_unstable_in_cycles() -> None:
    hits = calibration_hits(2)
    hits[3] = Hit(1, hits[2].insns + 3, hits[2].cycles + 5)
    with pytest.raises(RtoslabError, match=r"^calibration unstable: .* sample 1 is 3 insns / 5"):
        calibrate(hits, [CAL])


def test_calibration_without_samples() -> None:
    with pytest.raises(
        RtoslabError,
        match=r"^calibration pair 'calibration' has no samples: the firmware never ran",
    ):
        calibrate([Hit(2, 1, 1), Hit(3, 2, 2)], [CAL, YIELD])


def test_calibration_pair_missing() -> None:
    with pytest.raises(RtoslabError, match=r"^probe metadata has no calibration pair"):
        calibrate(calibration_hits(16), [YIELD])


def test_two_calibration_pairs() -> None:
    other = PairMeta("cal2", KIND_PERIOD, 5, 5, 1, "")
    with pytest.raises(
        RtoslabError, match=r"^probe metadata has 2 calibration pairs \('calibration', 'cal2'\)"
    ):
        find_calibration_pair([CAL, YIELD, other])


def test_calibration_unbalanced_pair_is_an_error() -> None:
    hits = [*calibration_hits(2), Hit(1, 500, 500)]
    with pytest.raises(RtoslabError, match=r"^metric 'calibration': end probe 1 hit at trace"):
        calibrate(hits, [CAL])


def test_calibration_open_at_end_of_incomplete_trace() -> None:
    hits = [*calibration_hits(2), Hit(0, 500, 500)]
    assert calibrate(hits, [CAL], complete=False) == Sample(3, 4)
    with pytest.raises(RtoslabError, match="never reached end probe 1"):
        calibrate(hits, [CAL])


def test_subtract() -> None:
    samples = [Sample(10, 20), Sample(3, 4), Sample(7, 9)]
    assert subtract(samples, Sample(3, 4)) == [Sample(7, 16), Sample(0, 0), Sample(4, 5)]


def test_subtract_zero_cost_and_empty() -> None:
    assert subtract([Sample(1, 2)], Sample(0, 0)) == [Sample(1, 2)]
    assert subtract([], Sample(3, 4)) == []


def test_subtract_negative_insns() -> None:
    with pytest.raises(RtoslabError) as err:
        subtract([Sample(5, 9), Sample(2, 9)], Sample(3, 4), metric="yield")
    message = str(err.value)
    assert message.startswith(
        "metric 'yield': sample 1 (2 insns / 9 cycles) is smaller than the probe cost "
        "(3 insns / 4 cycles): the probe cost model is wrong;"
    )
    assert "\n" not in message


def test_subtract_negative_cycles_without_metric_name() -> None:
    with pytest.raises(
        RtoslabError, match=r"^sample 0 \(5 insns / 3 cycles\) is smaller .* model is wrong"
    ):
        subtract([Sample(5, 3)], Sample(3, 4))
