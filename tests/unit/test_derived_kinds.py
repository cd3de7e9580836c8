"""Derived metrics of kind rate, ratio and difference (issue 12), one-sample totals
declared in bench.toml, and the bench.toml checks of [[derived]] / [[metric]]."""

from __future__ import annotations

from pathlib import Path

import pytest

from rtoslab.analysis.derived import apply_totals, derive, total_names
from rtoslab.analysis.stats import summarize
from rtoslab.catalog.catalog import Catalog
from rtoslab.records import (
    BenchResult,
    DerivedSpec,
    MetricDecl,
    MetricResult,
    RtoslabError,
    Sample,
    TimeBase,
    Unit,
)
from rtoslab.report.export import export_json, export_summaries_csv
from rtoslab.report.html import render_html
from rtoslab.report.json_report import run_document
from rtoslab.report.markdown import MarkdownRenderer
from rtoslab.store import open_store

CLOCK_HZ = 25_000_000.0
RATE = DerivedSpec("coop_sched", "yield round trips", kind="rate", counter="ops", interval="window")


def _metric(name: str, samples: list[tuple[int, int]], cycles: bool = True) -> MetricResult:
    s = tuple(Sample(i, c) for i, c in samples)
    summaries = {Unit.INSN: summarize([x.insns for x in s])}
    if cycles:
        summaries[Unit.CYCLE] = summarize([x.cycles for x in s])
        summaries[Unit.US] = summarize([x.cycles / 25.0 for x in s])
    return MetricResult(name, "", s, summaries)


def test_rate_gives_per_operation_costs_and_operations_per_second() -> None:
    window = _metric("window", [(40_000, 52_000)])
    (rate,) = derive([window], [RATE], {"ops": 1000}, CLOCK_HZ, totals={"window"})
    assert rate.time_base is TimeBase.DERIVED
    assert list(rate.summaries) == [Unit.INSN_PER_OP, Unit.CYCLE_PER_OP, Unit.OP_PER_S]
    assert rate.summaries[Unit.INSN_PER_OP].median == 40.0
    assert rate.summaries[Unit.CYCLE_PER_OP].median == 52.0
    # 1000 operations in 52000 cycles at 25 MHz = 2.08 ms -> 480769.23... op/s
    assert rate.summaries[Unit.OP_PER_S].median == pytest.approx(1000 / (52_000 / CLOCK_HZ))
    assert all(not s.warnings for s in rate.summaries.values())  # a total: no "few samples" warning
    assert rate.samples == window.samples  # the window's raw samples are kept
    assert rate.time_note == ("window / 1000 operations (LAB-KV ops) per sample; "
                              "op/s of modelled time at 25 MHz")


def test_rate_over_several_windows_is_per_sample_and_warns_when_few() -> None:
    window = _metric("window", [(100, 200), (100, 300)])
    (rate,) = derive([window], [RATE], {"ops": 10}, CLOCK_HZ)
    s = rate.summaries[Unit.CYCLE_PER_OP]
    assert (s.n, s.min, s.max) == (2, 20.0, 30.0)
    assert s.warnings  # two samples, not declared a total


def test_rate_without_a_cycle_model_has_instructions_per_operation_only() -> None:
    window = _metric("window", [(500, 0)], cycles=False)
    (rate,) = derive([window], [RATE], {"ops": 50}, None)
    assert list(rate.summaries) == [Unit.INSN_PER_OP]
    assert rate.summaries[Unit.INSN_PER_OP].median == 10.0


@pytest.mark.parametrize(("counters", "metrics", "message"), [
    ({}, [("window", [(1, 1)])], r"^derived metric 'coop_sched': the firmware printed no LAB-KV 'ops'"),
    ({"ops": 0}, [("window", [(1, 1)])], r"^derived metric 'coop_sched': LAB-KV 'ops' is 0: a rate needs"),
    ({"ops": 5}, [("other", [(1, 1)])],
     r"^derived metric 'coop_sched': the benchmark has no metric 'window': choose from other"),
    ({"ops": 5}, [("window", [(1, 0)])],
     r"^derived metric 'coop_sched': interval 'window' has a sample of 0"),
])
def test_rate_errors_are_one_line(counters: dict[str, int], metrics: list[tuple[str, list[tuple[int, int]]]],
                                  message: str) -> None:
    with pytest.raises(RtoslabError, match=message) as err:
        derive([_metric(n, s) for n, s in metrics], [RATE], counters, CLOCK_HZ)
    assert "\n" not in str(err.value)


def test_ratio_and_difference_are_sample_by_sample_and_a_single_sample_broadcasts() -> None:
    a = _metric("a", [(10, 30), (12, 36)])
    b = _metric("b", [(5, 10), (6, 12)])
    base = _metric("base", [(2, 6)])
    specs = [DerivedSpec("r", "", kind="ratio", a="a", b="b"),
             DerivedSpec("d", "", kind="difference", a="a", b="base"),
             DerivedSpec("rr", "", kind="ratio", a="d", b="b")]  # uses a derived metric
    r, d, rr = derive([a, b, base], specs, {}, CLOCK_HZ)
    assert r.summaries[Unit.RATIO].min == 3.0 and r.summaries[Unit.RATIO].max == 3.0
    assert r.samples == () and r.time_note == "a / b in cycles"
    assert [(s.insns, s.cycles) for s in d.samples] == [(8, 24), (10, 30)]
    assert list(d.summaries) == [Unit.INSN, Unit.CYCLE, Unit.US]
    assert d.summaries[Unit.US].max == pytest.approx(30 / 25.0)
    assert rr.summaries[Unit.RATIO].median == pytest.approx((24 / 10 + 30 / 12) / 2)


def test_ratio_refuses_unequal_counts_and_division_by_zero() -> None:
    spec = DerivedSpec("r", "", kind="ratio", a="a", b="b")
    with pytest.raises(RtoslabError, match=r"^derived metric 'r': a has 2 samples and b 3: "):
        derive([_metric("a", [(1, 1)] * 2), _metric("b", [(1, 1)] * 3)], [spec], {}, CLOCK_HZ)
    with pytest.raises(RtoslabError, match=r"^derived metric 'r': sample 0 of 'b' is 0 cycles"):
        derive([_metric("a", [(1, 1)]), _metric("b", [(1, 0)])], [spec], {}, CLOCK_HZ)


def test_declared_totals_lose_the_few_samples_warning_and_must_be_one_sample() -> None:
    window = _metric("window", [(7, 9)])
    assert window.summaries[Unit.INSN].warnings  # undeclared: warned
    decls = (MetricDecl("window", "total"),)
    (checked,) = apply_totals([window], decls)
    assert all(not s.warnings for s in checked.summaries.values())
    assert checked.samples == window.samples
    assert total_names(decls) == {"window"}
    with pytest.raises(RtoslabError, match=r"^metric 'window' is declared samples = \"total\" but has 2 "):
        apply_totals([_metric("window", [(1, 1), (2, 2)])], decls)
    with pytest.raises(RtoslabError, match=r"^bench.toml \[\[metric\]\] 'windw': the benchmark has no such"):
        apply_totals([window], (MetricDecl("windw", "total"),))


def _tree(tmp_path: Path, bench_toml: str) -> None:
    fw = tmp_path / "firmware"
    (fw / "ports" / "k").mkdir(parents=True)
    (fw / "bench" / "b").mkdir(parents=True)
    (fw / "CMakeLists.txt").write_text("")
    (fw / "ports" / "k" / "port.toml").write_text('description = "k"\n')
    (fw / "ports" / "k" / "lab_port_caps.h").write_text("#define LAB_HAS_SCHEDULER 1\n")
    (fw / "bench" / "b" / "bench.toml").write_text('suite = ["s"]\ndescription = "b"\n' + bench_toml)


@pytest.mark.parametrize(("toml", "message"), [
    ('[[derived]]\nname = "r"\ndescription = ""\nkind = "rate"\ncounter = "ops"\n',
     "key 'derived[0].interval' is missing: a rate metric needs counter, interval"),
    ('[[derived]]\nname = "r"\ndescription = ""\nkind = "rate"\ncounter = "ops"\ninterval = "w"\na = "x"\n',
     "key 'derived[0].a' does not belong to kind 'rate': it takes counter, interval"),
    ('[[derived]]\nname = "r"\ndescription = ""\nkind = "speed"\n',
     "key 'derived[0].kind' is 'speed': choose one of 'tick', 'rate', 'ratio', 'difference'"),
    ('[[derived]]\nname = "r"\ndescription = ""\nkind = "ratio"\na = "x"\nb = "y"\n'
     '[[derived]]\nname = "r"\ndescription = ""\nkind = "ratio"\na = "x"\nb = "y"\n',
     "key 'derived[1].name' is 'r', which another [[derived]] uses"),
    ('[[metric]]\nname = "w"\nsamples = "one"\n',
     "key 'metric[0].samples' is 'one': choose one of 'many', 'total'"),
    ('[[metric]]\nname = "w"\nsamples = "total"\n[[metric]]\nname = "w"\n',
     "key 'metric[1].name' is 'w', which metric[0] declares too"),
])
def test_bench_toml_checks_derived_kinds_and_metric_declarations(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, toml: str, message: str) -> None:
    _tree(tmp_path, toml)
    monkeypatch.setenv("RTOSLAB_ROOT", str(tmp_path))
    with pytest.raises(RtoslabError) as err:
        _ = Catalog().benchmarks  # discovery checks every bench.toml
    assert message in str(err.value) and "\n" not in str(err.value)


def test_rate_units_travel_through_the_store_into_every_report(tmp_path: Path) -> None:
    window = _metric("window", [(40_000, 52_000)])
    (window,) = apply_totals([window], (MetricDecl("window", "total"),))
    metrics = (window, *derive([window], [RATE], {"ops": 1000}, CLOCK_HZ, totals={"window"}))
    with open_store(tmp_path / "r.db") as store:
        run_id = store.begin_run("test", revision="t", host="h", tool_versions={})
        config_id = store.upsert_config({"identity_hash": "c0ffee", "target": "t", "core": "cortex-m3",
                                         "kernel": "k", "kernel_config": {}, "kernel_config_hash": "",
                                         "compiler": "gcc", "compiler_version": "1", "cflags": "",
                                         "ldflags": "", "timing": {}})
        store.add_bench_result(run_id, config_id, "src", BenchResult("tp", "ok", None, metrics=metrics,
                                                                        counters={"ops": 1000}))
        store.finish_run(run_id, "complete")
        view = store.load_run(run_id)
        samples = store.load_run_samples(view)
    assert view is not None
    (result,) = view.results
    rate = next(m for m in result.metrics if m.name == "coop_sched")
    assert list(rate.summaries) == [Unit.INSN_PER_OP, Unit.CYCLE_PER_OP, Unit.OP_PER_S]
    assert rate.summaries[Unit.CYCLE_PER_OP].median == 52.0
    entries = [e for e in run_document(view)["results"] if e["metric"] == "coop_sched"]
    assert [e["unit"] for e in entries] == ["insn/op", "cycle/op", "op/s"]
    assert not any(s.warnings for m in result.metrics for s in m.summaries.values())
    md = MarkdownRenderer().render(view)
    assert "| tp | coop_sched | cycle/op | 1 | 52 |" in md
    assert "op/s" in render_html(view, samples)
    assert "coop_sched,cycle/op" in export_summaries_csv(view)
    assert '"cycle/op"' in export_json(view, samples)


def test_comparison_in_a_derived_unit_leaves_out_metrics_without_it(tmp_path: Path) -> None:
    from rtoslab.report.comparison import run_table

    window = _metric("window", [(40_000, 52_000)])
    metrics = (window, *derive([window], [RATE], {"ops": 1000}, CLOCK_HZ))
    with open_store(tmp_path / "r.db") as store:
        run_id = store.begin_run("test", revision="t", host="h", tool_versions={})
        config_id = store.upsert_config({"identity_hash": "c0ffee", "target": "t", "core": "cortex-m3",
                                         "kernel": "k", "kernel_config": {}, "kernel_config_hash": "",
                                         "compiler": "gcc", "compiler_version": "1", "cflags": "",
                                         "ldflags": "", "timing": {}})
        store.add_bench_result(run_id, config_id, "src", BenchResult("tp", "ok", None, metrics=metrics))
        store.finish_run(run_id, "complete")
        view = store.load_run(run_id)
    table = run_table([view], stat="median", unit=Unit.CYCLE_PER_OP, rows="benchmark", baseline=None)
    assert [(r.benchmark, r.metric) for r in table.rows] == [("tp", "coop_sched")]
    assert list(table.values.values()) == [52.0]
