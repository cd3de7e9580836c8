"""analyse(): calibration, pairing, subtraction and summaries of a whole trace."""

from __future__ import annotations

import math
import struct

import pytest

from rtoslab.analysis.analyse import analyse, is_complete
from rtoslab.records import (
    FLAG_CALIBRATION,
    FLAG_NO_CALIBRATION,
    KIND_INTERVAL,
    KIND_PERIOD,
    EndStatus,
    Hit,
    PairMeta,
    RtoslabError,
    Sample,
    Summary,
    Trace,
    TraceEnd,
)
from rtoslab.trace.reader import parse_trace

CAL = PairMeta("calibration", KIND_INTERVAL, 0, 1, FLAG_CALIBRATION, "probe cost")
YIELD = PairMeta("yield", KIND_INTERVAL, 2, 3, 0, "task switch")
TICK = PairMeta("tick", KIND_PERIOD, 4, 4, 0, "tick period")
RAW = PairMeta("raw", KIND_INTERVAL, 5, 6, FLAG_NO_CALIBRATION, "not calibrated")
CLOCK_HZ = 25_000_000.0


class Recorder:
    """Builds a hit list with running counters."""

    def __init__(self) -> None:
        self.hits: list[Hit] = []
        self.insns = 1000
        self.cycles = 5000

    def hit(self, probe_id: int, after_insns: int = 0, after_cycles: int = 0) -> None:
        self.insns += after_insns
        self.cycles += after_cycles
        self.hits.append(Hit(probe_id, self.insns, self.cycles))

    def calibration(self, rounds: int = 16, insns: int = 3, cycles: int = 4) -> None:
        for _ in range(rounds):
            self.hit(0, 7, 9)
            self.hit(1, insns, cycles)

    def trace(self, *, has_cycles: bool = True, status: int | None = 0) -> Trace:
        end = None if status is None else TraceEnd(status, self.insns + 10, self.cycles + 10)
        return Trace(1, 0x21000000, 0x4000, has_cycles, tuple(self.hits), end)


def standard() -> Recorder:
    rec = Recorder()
    rec.calibration()
    for insns, cycles in [(13, 29), (23, 54), (13, 29), (33, 79)]:
        rec.hit(2, 5, 5)
        rec.hit(3, insns, cycles)
    rec.hit(4, 1, 1)
    rec.hit(4, 100, 250)
    rec.hit(4, 120, 300)
    rec.hit(5, 1, 1)
    rec.hit(6, 8, 10)
    return rec


def test_full_analysis_with_cycles() -> None:
    cost, results = analyse(standard().trace(), [CAL, YIELD, TICK, RAW], CLOCK_HZ)
    assert cost == Sample(3, 4)
    assert [r.name for r in results] == ["yield", "tick", "raw"]
    assert [r.description for r in results] == [
        "task switch",
        "tick period",
        "not calibrated",
    ]
    yield_, tick, raw = results
    assert yield_.samples == (Sample(10, 25), Sample(20, 50), Sample(10, 25), Sample(30, 75))
    assert tick.samples == (Sample(97, 246), Sample(117, 296))
    assert raw.samples == (Sample(8, 10),)
    for result in results:
        assert list(result.summaries) == ["insn", "cycle", "us"]


def test_summaries_per_unit() -> None:
    _, results = analyse(standard().trace(), [CAL, YIELD, TICK, RAW], CLOCK_HZ)
    yield_ = results[0]
    warning = ("only 4 samples; statistics below 30 samples are unreliable",)
    # insns 10, 20, 10, 30
    assert yield_.summaries["insn"] == Summary(
        n=4,
        min=10.0,
        max=30.0,
        mean=17.5,
        median=15.0,
        mode=10.0,
        stdev=math.sqrt(275 / 3),  # deviations -7.5, 2.5, -7.5, 12.5: squares sum to 275
        p90=27.0,  # sorted 10, 10, 20, 30; rank 2.7: 20 + 0.7*10
        p99=29.7,  # rank 2.97: 20 + 0.97*10
        warnings=warning,
    )
    # cycles 25, 50, 25, 75: 2.5 times the instructions
    cycle = yield_.summaries["cycle"]
    assert (cycle.min, cycle.max, cycle.mean, cycle.median, cycle.mode) == (
        25.0,
        75.0,
        43.75,
        37.5,
        25.0,
    )
    assert (cycle.p90, cycle.p99) == (67.5, 74.25)
    # microseconds at 25 MHz: 1, 2, 1, 3
    us = yield_.summaries["us"]
    assert (us.min, us.max, us.mean, us.median, us.mode, us.p90) == (1.0, 3.0, 1.75, 1.5, 1.0, 2.7)
    assert us.warnings == warning


def test_calibration_pair_is_the_cost_not_a_metric() -> None:
    cost, results = analyse(standard().trace(), [CAL, YIELD, TICK, RAW], CLOCK_HZ)
    assert cost == Sample(3, 4)
    assert "calibration" not in [r.name for r in results]


def test_no_cycle_model_gives_instructions_only() -> None:
    rec = Recorder()
    rec.calibration(cycles=0)
    rec.cycles = 0
    rec.hits = [Hit(h.probe_id, h.insns, 0) for h in rec.hits]
    rec.hit(2, 1)
    rec.hit(3, 9)
    _, results = analyse(rec.trace(has_cycles=False), [CAL, YIELD], CLOCK_HZ)
    assert [list(r.summaries) for r in results] == [["insn"]]
    assert results[0].samples == (Sample(6, 0),)


def test_no_clock_gives_instructions_only() -> None:
    _, results = analyse(standard().trace(), [CAL, YIELD, TICK, RAW], None)
    assert all(list(r.summaries) == ["insn"] for r in results)


def test_analyse_parsed_trace_bytes() -> None:
    records = [
        (0, 10, 20),
        (1, 13, 22),
        (0, 20, 30),
        (1, 23, 32),
        (2, 30, 40),
        (3, 40, 60),
        (0xFFFFFFFF, 50, 70),
    ]
    data = struct.pack("<8sIIIIII", b"RTLTRACE", 1, 24, 0x21000000, 0x4000, 1, 0) + b"".join(
        struct.pack("<IIQQ", probe_id, 0, insns, cycles) for probe_id, insns, cycles in records
    )
    cost, results = analyse(parse_trace(data, "t.bin"), [CAL, YIELD], 1_000_000.0)
    assert cost == Sample(3, 2)
    assert results[0].samples == (Sample(7, 18),)
    assert results[0].summaries["us"].mean == 18.0


def test_metric_never_reached_start() -> None:
    rec = Recorder()
    rec.calibration()
    rec.hit(4, 10, 10)
    rec.hit(4, 10, 10)
    with pytest.raises(RtoslabError) as err:
        analyse(rec.trace(), [CAL, TICK, YIELD], CLOCK_HZ)
    assert str(err.value) == "metric 'yield': no samples: the benchmark never reached probe 2"


def test_metric_never_reached_end_in_incomplete_trace() -> None:
    rec = Recorder()
    rec.calibration()
    rec.hit(2, 1)
    with pytest.raises(RtoslabError) as err:
        analyse(rec.trace(status=None), [CAL, YIELD], CLOCK_HZ)
    assert str(err.value) == "metric 'yield': no samples: the benchmark never reached probe 3"


def test_period_reached_once() -> None:
    rec = Recorder()
    rec.calibration()
    rec.hit(4, 1)
    with pytest.raises(
        RtoslabError,
        match=r"^metric 'tick': no samples: the benchmark reached probe 4 only once",
    ):
        analyse(rec.trace(), [CAL, TICK], CLOCK_HZ)


def test_open_interval_in_complete_trace_is_an_error() -> None:
    rec = standard()
    rec.hit(2, 1)
    with pytest.raises(RtoslabError, match=r"^metric 'yield': start probe 2 hit at trace index"):
        analyse(rec.trace(), [CAL, YIELD, TICK, RAW], CLOCK_HZ)


@pytest.mark.parametrize("status", [None, EndStatus.RECORD_LIMIT, EndStatus.INSN_LIMIT])
def test_open_interval_in_cut_short_trace_is_dropped(status: int | None) -> None:
    rec = standard()
    rec.hit(2, 1)
    trace = rec.trace(status=status)
    assert is_complete(trace) is False
    _, results = analyse(trace, [CAL, YIELD, TICK, RAW], CLOCK_HZ)
    assert len(results[0].samples) == 4


def test_is_complete() -> None:
    assert is_complete(standard().trace(status=0)) is True
    assert is_complete(standard().trace(status=EndStatus.UNALIGNED_PROBE)) is True


def test_unbalanced_pair() -> None:
    rec = Recorder()
    rec.calibration()
    rec.hit(2, 1)
    rec.hit(3, 1)
    rec.hit(3, 1)
    with pytest.raises(RtoslabError) as err:
        analyse(rec.trace(), [CAL, YIELD], CLOCK_HZ)
    assert str(err.value) == (
        "metric 'yield': end probe 3 hit at trace index 34 without an open start (probe 2)"
    )


def test_probe_without_metadata() -> None:
    rec = standard()
    rec.hit(9, 1)
    with pytest.raises(
        RtoslabError,
        match=r"^probe 9 hit at trace index 45 belongs to no metric in the probe metadata",
    ):
        analyse(rec.trace(), [CAL, YIELD, TICK, RAW], CLOCK_HZ)


def test_unstable_calibration() -> None:
    rec = Recorder()
    rec.calibration(rounds=15)
    rec.calibration(rounds=1, insns=4)
    rec.hit(2, 1)
    rec.hit(3, 9)
    with pytest.raises(RtoslabError, match=r"^calibration unstable: .* sample 15 is 4 insns"):
        analyse(rec.trace(), [CAL, YIELD], CLOCK_HZ)


def test_missing_calibration_pair() -> None:
    with pytest.raises(RtoslabError, match=r"^probe metadata has no calibration pair"):
        analyse(standard().trace(), [YIELD, TICK, RAW], CLOCK_HZ)


def test_negative_after_subtraction() -> None:
    rec = Recorder()
    rec.calibration()
    rec.hit(2, 1)
    rec.hit(3, 2)
    with pytest.raises(
        RtoslabError,
        match=r"^metric 'yield': sample 0 \(2 insns / 0 cycles\) is smaller than the probe "
        r"cost \(3 insns / 4 cycles\): the probe cost model is wrong",
    ):
        analyse(rec.trace(), [CAL, YIELD], CLOCK_HZ)


def test_no_calibration_flag_keeps_raw_samples_below_cost() -> None:
    rec = Recorder()
    rec.calibration()
    rec.hit(5, 1)
    rec.hit(6, 2, 1)
    _, results = analyse(rec.trace(), [CAL, RAW], CLOCK_HZ)
    assert results[0].samples == (Sample(2, 1),)


@pytest.mark.parametrize("clock_hz", [0.0, -1.0, math.nan, math.inf])
def test_bad_clock(clock_hz: float) -> None:
    with pytest.raises(RtoslabError, match=r"^clock frequency .* Hz is not a positive number"):
        analyse(standard().trace(), [CAL, YIELD, TICK, RAW], clock_hz)
