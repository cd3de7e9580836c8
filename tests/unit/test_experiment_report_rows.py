"""Experiment files for application-level comparisons (OS vs FSM, seed 000's layout):
`[report] rows = "metric"`, baselines that name a benchmark, `[[exclude]]` rules that drop
one benchmark from some points; and the comparison table they produce."""

from __future__ import annotations

from pathlib import Path

import pytest

from rtoslab.catalog import Catalog
from rtoslab.experiments.experiment import Experiment, load_experiment
from rtoslab.records import Footprint, RtoslabError, Summary, Unit
from rtoslab.report.comparison import ComparisonRow, build_footprint_table, build_table
from rtoslab.views import ConfigView, MetricView, ResultView

CATALOG = Catalog()  # the checkout's folders alone

HEAD = 'name = "e"\nbenchmarks = ["call", "loop"]\n'


def _load(tmp_path: Path, text: str) -> Experiment:
    f = tmp_path / "e.toml"
    f.write_text(HEAD + text)
    return load_experiment(f, CATALOG)


def test_rows_default_and_metric(tmp_path: Path) -> None:
    assert _load(tmp_path, "").rows == "benchmark"
    assert _load(tmp_path, '[report]\nrows = "metric"\n').rows == "metric"


@pytest.mark.parametrize(("text", "message"), [
    ('[report]\nrows = "column"\n', "key 'report.rows' is 'column': choose one of 'benchmark', 'metric'"),
    ('[report]\ncolour = 1\n', "unknown key 'colour' in [report]: allowed keys: rows"),
    ('report = 3\n', "key 'report' must be a table, not 3"),
    ('[[baseline]]\nname = "b"\nbenchmark = "call"\n',
     'key \'baseline[0].benchmark\' is an axis only with [report] rows = "metric"'),
    ('[report]\nrows = "metric"\n[[baseline]]\nname = "b"\nbenchmark = "straight"\n',
     "key 'baseline[0].benchmark' is 'straight': not one of the experiment's benchmarks (call, loop)"),
    ('[[exclude]]\nbenchmark = "nope"\n',
     "key 'exclude[0].benchmark' is 'nope': not one of the experiment's"),
    ('[[exclude]]\nbenchmark = "call"\n[[exclude]]\nbenchmark = "loop"\n',
     "key 'exclude' leaves the matrix empty"),
])
def test_bad_report_baseline_and_exclude_keys(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(RtoslabError) as err:
        _load(tmp_path, text)
    assert message in str(err.value)


def test_exclude_with_benchmark_drops_only_that_benchmark_where_it_matches(tmp_path: Path) -> None:
    exp = _load(tmp_path, '[matrix]\nopt = ["-O0", "-O2", "-Os"]\n'
                '[[exclude]]\nbenchmark = "loop"\nopt = "-O0"\n'
                '[[exclude]]\nbenchmark = "call"\nopt = "-Os"\n'
                '[[exclude]]\nbenchmark = "loop"\nopt = "-Os"\n')
    plan = [(c.describe(), [b.name for b in benches]) for c, benches in exp.plan()]
    # -Os lost both benchmarks: the point is gone.
    assert plan == [("-O0", ["call"]), ("-O2", ["call", "loop"])]
    assert exp.run_count() == 3


def test_baseline_naming_a_benchmark_excluded_everywhere_matches_nothing(tmp_path: Path) -> None:
    with pytest.raises(RtoslabError, match=r"key 'baseline\[0\]' \('b'\) matches no configuration"):
        _load(tmp_path, '[report]\nrows = "metric"\n[[exclude]]\nbenchmark = "loop"\n'
              '[[baseline]]\nname = "b"\nbenchmark = "loop"\n')


# ------------------------------------------------------------------ comparison tables

def _config(cid: int, kernel: str, opt: str, kopts: dict[str, object]) -> ConfigView:
    return ConfigView(id=cid, hash=f"h{cid}", target="mps2-an385", core="cortex-m3", kernel=kernel,
                      kernel_config=kopts, kernel_config_hash="k", compiler="gcc", compiler_version="12",
                      cflags=opt, ldflags="", timing={}, identity={})


def _result(rid: int, bench: str, config: ConfigView, values: dict[str, float],
            flash: int = 1000) -> ResultView:
    metrics = tuple(
        MetricView(id=rid * 10 + i, name=name, description="", n_samples=1,
                   summaries={Unit.INSN: Summary(1, v, v, v, v, v, 0.0, v, v)})
        for i, (name, v) in enumerate(values.items()))
    return ResultView(id=rid, benchmark=bench, config=config, source_hash="s", status="ok", reason=None,
                      console="", total_insns=0, total_cycles=0, calibration=None,
                      wall_s=None, counters={}, footprint_error=None,
                      footprint=Footprint({"all": flash}, {"all": flash // 2}), created_at="",
                      metrics=metrics)


def _os_vs_fsm() -> list[tuple[int, ResultView]]:
    """Plan order: per configuration (opt x kernel), each benchmark that runs there."""
    rtos = {"configTICK_RATE_HZ": 1000}
    out = []
    rid = 0
    for cid, opt in ((1, "-O0"), (2, "-O2")):
        os_cfg = _config(cid, "freertos", opt, rtos)
        bm_cfg = _config(cid + 10, "baremetal", opt, {})
        scale = 3.0 if opt == "-O0" else 1.0
        rid += 1
        out.append((7, _result(rid, "ftl_os", os_cfg, {"sw": 110 * scale, "sr": 90 * scale}, 2000)))
        rid += 1
        out.append((7, _result(rid, "ftl_fsm", bm_cfg, {"sw": 100 * scale, "sr": 100 * scale}, 1000)))
    return out


def test_rows_metric_puts_benchmarks_side_by_side_grouped_with_ratios_across_kernels() -> None:
    table = build_table(_os_vs_fsm(), rows="metric",
                        baselines=[("OS/FSM", {"benchmark": "ftl_fsm", "kernel": "baremetal"})])
    assert [r.cells() for r in table.rows] == [("sw",), ("sr",)]
    # Grouped by benchmark (seed 000: the OS block, then the FSM block), each in plan order.
    assert [c.label for c in table.columns] == [
        "ftl_os freertos -O0", "ftl_os freertos -O2", "ftl_fsm baremetal -O0", "ftl_fsm baremetal -O2"]
    # One ratio column per OS column, against the FSM column of the same optimisation level,
    # although the FSM's kernel has no configTICK_RATE_HZ.
    assert [(rc.column.label, rc.base.label) for rc in table.ratios] == [
        ("ftl_os freertos -O0", "ftl_fsm baremetal -O0"), ("ftl_os freertos -O2", "ftl_fsm baremetal -O2")]
    assert table.ratio(ComparisonRow(None, "sw"), table.ratios[0]) == pytest.approx(1.1)
    assert table.ratio(ComparisonRow(None, "sr"), table.ratios[1]) == pytest.approx(0.9)
    sizes = build_footprint_table(_os_vs_fsm(), rows="metric",
                                  baselines=[("OS/FSM", {"benchmark": "ftl_fsm", "kernel": "baremetal"})])
    assert [r.cells() for r in sizes.rows] == [("flash",), ("ram",)]
    assert sizes.ratio(ComparisonRow(None, "flash"), sizes.ratios[0]) == pytest.approx(2.0)


def test_kernel_options_still_separate_columns_when_the_baseline_does_not_name_a_kernel() -> None:
    results = []
    for cid, hz in ((1, 1000), (2, 10000)):
        for opt, v in (("-O0", 300.0), ("-O2", 100.0)):
            cfg = _config(cid * 10 + int(opt[-1]), "freertos", opt, {"configTICK_RATE_HZ": hz})
            results.append((1, _result(len(results) + 1, "k", cfg, {"m": v * hz / 1000})))
    table = build_table(results, baselines=[("vs O2", {"opt": "-O2"})])
    assert [(rc.column.label, rc.base.label) for rc in table.ratios] == [
        ("-O0 configTICK_RATE_HZ=1000", "-O2 configTICK_RATE_HZ=1000"),
        ("-O0 configTICK_RATE_HZ=10000", "-O2 configTICK_RATE_HZ=10000")]
    assert all(table.ratio(ComparisonRow("k", "m"), rc) == pytest.approx(3.0) for rc in table.ratios)


def test_labels_name_an_axis_only_on_the_columns_that_have_it() -> None:
    bm = _config(1, "baremetal", "-O2", {})
    results = [(1, _result(1, "a", bm, {"m": 1.0}))]
    for cid, hz in ((2, 1000), (3, 10000)):
        results.append((1, _result(cid, "b", _config(cid, "freertos", "-O2", {"configTICK_RATE_HZ": hz}),
                                   {"m": 2.0})))
    table = build_table(results, rows="metric")
    assert [c.label for c in table.columns] == [
        "a baremetal", "b freertos configTICK_RATE_HZ=1000", "b freertos configTICK_RATE_HZ=10000"]


def test_metrics_that_only_later_columns_have_join_their_siblings() -> None:
    one = {"start_1": 1.0, "done_1": 2.0, "spread": 0.0, "total": 2.0}
    two = {"start_1": 1.0, "start_2": 3.0, "done_1": 2.0, "done_2": 4.0, "spread": 2.0, "total": 4.0}
    results = [(1, _result(1, "t", _config(1, "baremetal", "-O2 -DN=1", {}), one)),
               (1, _result(2, "t", _config(2, "baremetal", "-O2 -DN=2", {}), two))]
    table = build_table(results, rows="metric")
    assert [r.metric for r in table.rows] == ["start_1", "start_2", "done_1", "done_2", "spread", "total"]
    # runs stored with macros in cflags: axes_of reads them as defines
    assert [c.label for c in table.columns] == ["N=1", "N=2"]
