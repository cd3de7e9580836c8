"""Time bases (issue 10 §5): since-metrics, virtual metrics without modelled units,
derived metrics composed from tick periods and measured parts, and how the time base
travels through the store (schema v2, old databases stay readable) into the reports."""

from __future__ import annotations

import json
import sqlite3
import struct
from pathlib import Path

import pytest

from rtoslab.analysis.analyse import analyse
from rtoslab.analysis.derived import derive
from rtoslab.analysis.pairing import pair_samples
from rtoslab.analysis.stats import summarize
from rtoslab.catalog import BenchFile, Catalog
from rtoslab.records import (
    FLAG_CALIBRATION,
    FLAG_VIRTUAL,
    KIND_INTERVAL,
    KIND_PERIOD,
    KIND_SINCE,
    BenchResult,
    DerivedSpec,
    Hit,
    MetricResult,
    PairMeta,
    RtoslabError,
    Sample,
    TimeBase,
    Trace,
    TraceEnd,
    Unit,
)
from rtoslab.report.comparison.table import build_table
from rtoslab.report.json_report import run_document
from rtoslab.report.markdown import MarkdownRenderer
from rtoslab.report.rows import run_rows, time_base_lines
from rtoslab.report.terminal import TerminalRenderer
from rtoslab.schema import parse
from rtoslab.store import MIGRATIONS, open_store
from rtoslab.store.schema import migrate
from rtoslab.trace.meta import parse_probe_meta

CATALOG = Catalog()  # the checkout's folders alone

CAL = PairMeta("calibration", KIND_INTERVAL, 0, 1, FLAG_CALIBRATION, "probe cost")
SINCE = PairMeta("since_tick", KIND_SINCE, 5, 3, 0, "tick -> task")
VIRTUAL = PairMeta("wait", KIND_PERIOD, 7, 7, FLAG_VIRTUAL, "paced by a timer")
CLOCK_HZ = 25_000_000.0


def hits(*pairs: tuple[int, int, int]) -> list[Hit]:
    return [Hit(p, i, c) for p, i, c in pairs]


# ------------------------------------------------------------------ since-metrics


def test_since_pairs_each_end_with_the_most_recent_start() -> None:
    trace = hits((5, 100, 200), (5, 1100, 2100), (3, 1150, 2190), (5, 2100, 3100), (5, 3100, 4100),
                 (3, 3130, 4150), (3, 3140, 4170))
    assert pair_samples(trace, SINCE) == [Sample(50, 90), Sample(30, 50), Sample(40, 70)]


def test_since_end_before_any_start_is_an_error() -> None:
    with pytest.raises(RtoslabError, match=r"end probe 3 hit at trace index 0 before any start \(probe 5\)"):
        pair_samples(hits((3, 10, 10), (5, 20, 20)), SINCE)


def test_meta_accepts_since_kind_and_virtual_flag() -> None:
    def rec(name: bytes, kind: int, start: int, end: int, flags: int) -> bytes:
        return struct.pack("<IHHHHI32s112s", 0x5042414C, 1, kind, start, end, flags, name, b"")

    metas = parse_probe_meta(rec(b"a", 2, 5, 3, 0) + rec(b"b", 1, 7, 7, 4), "sec")
    assert [(m.kind, m.time_base) for m in metas] == [(KIND_SINCE, TimeBase.MODELLED),
                                                     (KIND_PERIOD, TimeBase.VIRTUAL)]
    with pytest.raises(RtoslabError, match="same start and end probe 5"):
        parse_probe_meta(rec(b"c", 2, 5, 5, 0), "sec")


# ------------------------------------------------------------------ virtual metrics


def _trace() -> Trace:
    seq: list[Hit] = []
    insns, cycles = 0, 0
    for _ in range(16):  # calibration: probe cost 3 insns, 4 cycles
        seq += [Hit(0, insns, cycles), Hit(1, insns + 3, cycles + 4)]
        insns, cycles = insns + 10, cycles + 20
    for k in range(3):  # a timer-paced period: 1,000,000 insns between hits
        seq.append(Hit(7, insns + k * 1_000_000, cycles + k * 1_300_000))
    return Trace(1, 0x21000000, 0x4000, True, tuple(seq), TraceEnd(0, 10**7, 2 * 10**7))


def test_virtual_metric_has_instructions_only() -> None:
    _, (metric,) = analyse(_trace(), [CAL, VIRTUAL], CLOCK_HZ)
    assert metric.time_base is TimeBase.VIRTUAL
    assert list(metric.summaries) == [Unit.INSN]  # no cycle or us figure, ever
    assert metric.summaries[Unit.INSN].median == 1_000_000 - 3


def test_modelled_metric_keeps_all_units() -> None:
    plain = PairMeta("wait", KIND_PERIOD, 7, 7, 0, "")
    _, (metric,) = analyse(_trace(), [CAL, plain], CLOCK_HZ)
    assert metric.time_base is TimeBase.MODELLED
    assert list(metric.summaries) == [Unit.INSN, Unit.CYCLE, Unit.US]


# ------------------------------------------------------------------ derived metrics

SPEC = DerivedSpec("delay_50", "a 50-tick delay", "delay_ticks", "tick_cycles",
                   plus=("wake_latency",), minus=("call_phase",))
COUNTERS = {"delay_ticks": 50, "tick_cycles": 25_000}


def _part(name: str, cycles: list[int]) -> MetricResult:
    """A measured modelled metric with these cycle samples (instructions: half)."""
    samples = tuple(Sample(c // 2, c) for c in cycles)
    return MetricResult(name, "", samples, {Unit.INSN: summarize([s.insns for s in samples]),
                                            Unit.CYCLE: summarize(cycles),
                                            Unit.US: summarize([c / 25.0 for c in cycles])})


def test_derived_follows_its_formula_sample_by_sample() -> None:
    parts = [_part("call_phase", [450, 460]), _part("wake_latency", [416, 420])]
    (metric,) = derive(parts, [SPEC], COUNTERS, CLOCK_HZ)
    assert metric.time_base is TimeBase.DERIVED
    assert [s.cycles for s in metric.samples] == [50 * 25_000 - 450 + 416, 50 * 25_000 - 460 + 420]
    assert all(s.insns == 0 for s in metric.samples)
    assert list(metric.summaries) == [Unit.CYCLE, Unit.US]  # no instruction count
    assert metric.summaries[Unit.US].min == pytest.approx((1_250_000 - 40) / 25.0)
    assert metric.time_note == ("50 x 25000 cycles (LAB-KV delay_ticks x tick_cycles) + wake_latency "
                                "- call_phase; us at 25 MHz")


def test_derived_needs_cycles() -> None:
    parts = [_part("call_phase", [450]), _part("wake_latency", [416])]
    assert derive(parts, [SPEC], COUNTERS, None) == []


@pytest.mark.parametrize(("counters", "parts", "message"), [
    ({"delay_ticks": 50}, [("call_phase", [1]), ("wake_latency", [1])],
     r"^derived metric 'delay_50': the firmware printed no LAB-KV 'tick_cycles': print it"),
    (COUNTERS, [("call_phase", [1])],
     r"^derived metric 'delay_50': the benchmark has no metric 'wake_latency': choose from call_phase"),
    (COUNTERS, [("call_phase", [1, 2]), ("wake_latency", [1])],
     r"^derived metric 'delay_50': its parts have different sample counts \(wake_latency 1, call_phase 2\)"),
    ({"delay_ticks": 0, "tick_cycles": 25_000}, [("call_phase", [9]), ("wake_latency", [1])],
     r"^derived metric 'delay_50': sample 0 is negative \(-8 cycles\)"),
])
def test_derived_errors_are_one_line(counters: dict[str, int], parts: list[tuple[str, list[int]]],
                                     message: str) -> None:
    with pytest.raises(RtoslabError, match=message):
        derive([_part(n, c) for n, c in parts], [SPEC], counters, CLOCK_HZ)


def test_derived_parts_must_be_modelled() -> None:
    virtual = MetricResult("wake_latency", "", (Sample(1, 1),), {Unit.INSN: summarize([1])},
                           time_base=TimeBase.VIRTUAL)
    with pytest.raises(RtoslabError, match="part 'wake_latency' has time base virtual"):
        derive([_part("call_phase", [1]), virtual], [SPEC], COUNTERS, CLOCK_HZ)


def test_bench_toml_derived_schema() -> None:
    doc = {"suite": ["kernel"], "description": "d",
           "derived": [{"name": "x", "description": "", "tick_periods": "a", "tick_cycles": "b",
                        "plus": ["m"], "sign": 1}]}
    with pytest.raises(RtoslabError, match=r"^bench.toml: unknown key 'sign' in \[derived\[0\]\]: allowed"):
        parse(BenchFile, doc, "bench.toml")


def test_k_delay_measures_its_delay_instead_of_deriving_it() -> None:
    # On the one clock delay_50 is a probe interval across real ticks (k_delay.c); on
    # instruction time it is paced (bench.toml), never composed on the host any more.
    k_delay = CATALOG.benchmarks["k_delay"]
    assert k_delay.derived == ()
    assert k_delay.paced and k_delay.paced_when == ""  # also on the Rust models


# ------------------------------------------------------------------ store and reports

IDENTITY: dict[str, object] = {
    "identity_hash": "cafe01", "target": "mps2-an385", "core": "cortex-m3", "kernel": "freertos",
    "kernel_config": {}, "kernel_config_hash": "kc01", "compiler": "gcc", "compiler_version": "12",
    "cflags": "-O2", "ldflags": "", "timing": {},
}


def _result() -> BenchResult:
    parts = [_part("call_phase", [450, 460]), _part("wake_latency", [416, 420])]
    derived = derive(parts, [SPEC], COUNTERS, CLOCK_HZ)
    return BenchResult("k_delay", "ok", None, metrics=(*parts, *derived), counters=dict(COUNTERS))


def test_time_base_round_trips_through_the_store_and_reports(tmp_path: Path) -> None:
    with open_store(tmp_path / "r.sqlite") as store:
        run_id = store.begin_run("c", "r", "h", {})
        store.add_bench_result(run_id, store.upsert_config(IDENTITY), "src", _result())
        store.finish_run(run_id, "complete")
        view = store.load_run(run_id)
    bases = {m.name: (m.time_base, m.time_note) for m in view.results[0].metrics}
    assert bases["call_phase"] == (TimeBase.MODELLED, "")
    assert bases["delay_50"][0] is TimeBase.DERIVED and "+ wake_latency - call_phase" in bases["delay_50"][1]
    doc = json.loads(json.dumps(run_document(view)))
    assert set(doc["time_bases"]) == {"modelled", "virtual", "derived", "paced"}
    entries = {(e["metric"], e["unit"]): e for e in doc["results"]}
    assert entries[("delay_50", "us")]["time_base"] == "derived"
    assert ("delay_50", "insn") not in entries
    assert entries[("call_phase", "insn")]["time_base"] == "modelled"
    lines = time_base_lines(run_rows(view))
    assert lines[0].startswith("k_delay/delay_50: derived: ")
    assert lines[-1].startswith("every other metric: modelled")
    assert "## Time bases" in MarkdownRenderer().render(view)
    assert "time bases:" in TerminalRenderer(width=200).render(view)


def test_a_v1_database_migrates_and_reads_its_time_base_as_unstated(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    conn = sqlite3.connect(path, isolation_level=None)
    migrate(conn, path, "2026-01-01T00:00:00Z", MIGRATIONS[:1])  # as an older rtoslab wrote it
    conn.execute("INSERT INTO runs (started_at, status, rtoslab_revision, host, command) "
                 "VALUES ('2026-01-01T00:00:00Z', 'complete', 'old', 'h', 'c')")
    conn.execute("INSERT INTO configs (hash, target, core, kernel, kernel_config_hash, compiler, "
                 "compiler_version, cflags, ldflags, identity) VALUES ('cafe01', 't', 'c', 'k', 'kc', "
                 "'gcc', '12', '-O2', '', ?)", (json.dumps(IDENTITY),))
    conn.execute("INSERT INTO bench_runs (run_id, config_id, benchmark, source_hash, status, created_at) "
                 "VALUES (1, 1, 'k_delay', 's', 'ok', '2026-01-01T00:00:00Z')")
    conn.execute("INSERT INTO metrics (bench_run_id, name) VALUES (1, 'delay_50')")
    conn.execute("INSERT INTO samples (metric_id, seq, insns, cycles) VALUES (1, 0, 50000000, 92000000)")
    conn.close()
    with open_store(path) as store:
        view = store.load_run(1)
    (metric,) = view.results[0].metrics
    assert metric.time_base is None
    assert time_base_lines(run_rows(view))[0] == (
        "k_delay/delay_50: time base unstated (stored before time bases were recorded)")
    assert run_document(view)["results"][0]["time_base"] is None  # type: ignore[index]


def test_comparison_tables_leave_out_units_a_time_base_lacks(tmp_path: Path) -> None:
    with open_store(tmp_path / "r.sqlite") as store:
        run_id = store.begin_run("c", "r", "h", {})
        store.add_bench_result(run_id, store.upsert_config(IDENTITY), "src", _result())
        store.finish_run(run_id, "complete")
        view = store.load_run(run_id)
    pairs = [(run_id, r) for r in view.results]
    insn = build_table(pairs, unit=Unit.INSN)
    us = build_table(pairs, unit=Unit.US)
    assert [row.metric for row in insn.rows] == ["call_phase", "wake_latency"]
    assert [row.metric for row in us.rows] == ["call_phase", "wake_latency", "delay_50"]
