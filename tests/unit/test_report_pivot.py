"""An experiment's own tables ([[report.table]] pivots), labels from the axes that vary,
tables split to the terminal width, and comparisons of runs whose configurations differ."""

from __future__ import annotations

from pathlib import Path

import pytest

from rtoslab.catalog import Catalog
from rtoslab.experiments.experiment import load_experiment
from rtoslab.records import Footprint, RtoslabError, Summary, Unit
from rtoslab.report.comparison import compare_runs, render_comparison, run_table
from rtoslab.report.fit import fit_table
from rtoslab.report.html import render_html
from rtoslab.report.labels import axes_label, frequency, varying_keys
from rtoslab.report.pivot import PivotSpec, build_pivot, render_pivot
from rtoslab.views import ConfigView, MetricView, ResultView, RunView

from .test_experiment_report_rows import _os_vs_fsm

CATALOG = Catalog()  # the checkout's folders alone

N_NAME = {"defines.TOGGLE_TASKS": "N", "kernel_options.configTICK_RATE_HZ": ""}


def _toggle_config(cid: int, kernel: str, n: int, tick: int | None) -> ConfigView:
    axes: dict[str, object] = {"target": "mps2-an385", "kernel": kernel, "opt": "-O2", "lto": False,
                               "cflags": "", "defines.TOGGLE_TASKS": n}
    return ConfigView(id=cid, hash=f"h{cid}", target="mps2-an385", core="cortex-m3", kernel=kernel,
                      kernel_config={} if tick is None else {"configTICK_RATE_HZ": tick},
                      kernel_config_hash="k", compiler="gcc", compiler_version="12", cflags="-O2",
                      ldflags="", timing={"core": "cortex-m3", "flash_ws": 0, "prefetch": "off"},
                      identity={"axes": axes, "clock_hz": 25_000_000})


def _result(rid: int, bench: str, config: ConfigView, values: dict[str, float]) -> ResultView:
    metrics = tuple(MetricView(id=rid * 10 + i, name=name, description="", n_samples=1,
                               summaries={Unit.INSN: Summary(1, v, v, v, v, v, 0.0, v, v)})
                    for i, (name, v) in enumerate(values.items()))
    return ResultView(id=rid, benchmark=bench, config=config, source_hash="s", status="ok", reason=None,
                      console="", total_insns=0, total_cycles=0, calibration=None, wall_s=None,
                      counters={}, footprint=None, footprint_error=None, created_at="", metrics=metrics)


def _toggle_run() -> RunView:
    """Seed 002's shape: super loop on bare metal, RTOS at two tick rates, N = 1..3."""
    results = []
    rid = 0
    for n in (1, 2, 3):
        rid += 1
        results.append(_result(rid, "toggle_superloop", _toggle_config(rid, "baremetal", n, None),
                               {"total": 40000.0 * n, "spread": 40000.0 * (n - 1)}))
        for tick in (1000, 100000):
            rid += 1
            results.append(_result(rid, "toggle_rtos", _toggle_config(rid, "freertos", n, tick),
                                   {"total": 40400.0 * n + tick // 1000, "spread": 700.0 * (n - 1)}))
    return RunView(1, "t0", "t1", "complete", "r", "h", {}, "rtoslab run x.toml", "x.toml",
                   tuple(results))


def _os_vs_fsm_run() -> RunView:
    return RunView(7, "t0", "t1", "complete", "r", "h", {}, "c", None, tuple(r for _, r in _os_vs_fsm()))


def test_pivot_total_against_n_one_column_per_model_and_tick() -> None:
    spec = PivotSpec("total", rows=("defines.TOGGLE_TASKS",),
                     columns=("benchmark", "kernel_options.configTICK_RATE_HZ"), metrics=("total",),
                     names=N_NAME)
    p = build_pivot(_toggle_run(), spec)
    assert p.row_dims == ("defines.TOGGLE_TASKS",)  # one metric: not a row dimension
    assert [p.col_label(c) for c in p.col_keys] == ["toggle_superloop", "toggle_rtos · 1 kHz",
                                                   "toggle_rtos · 100 kHz"]
    assert [p.value((n,), p.col_keys[2]) for n in (1, 2, 3)] == [40500.0, 80900.0, 121300.0]
    text = render_pivot(p, width=200)
    assert text.splitlines()[0] == "total"
    assert "  N   toggle_superloop   toggle_rtos · 1 kHz   toggle_rtos · 100 kHz" in text
    assert "total: median insn" in text


def test_pivot_ratio_over_a_benchmark_per_scenario_and_option() -> None:
    spec = PivotSpec("OS / FSM", rows=("metric",), columns=("opt",),
                     ratio=("benchmark", "ftl_os", "ftl_fsm"))
    p = build_pivot(_os_vs_fsm_run(), spec)
    assert p.row_keys == (("sw",), ("sr",)) and p.col_keys == (("-O0",), ("-O2",))
    assert p.value(("sw",), ("-O2",)) == pytest.approx(1.1)
    assert p.value(("sr",), ("-O0",)) == pytest.approx(0.9)
    assert "ratio ftl_os / ftl_fsm of the median insn" in render_pivot(p)


def test_pivot_ratio_under_a_configuration_lacking_a_placed_axis() -> None:
    """Seed 003's table: each variant of one kernel (its options as columns) over a kernel
    that has none of those options; the missing axis matches every value."""
    spec = PivotSpec("RTOS / super loop", rows=("defines.TOGGLE_TASKS",),
                     columns=("kernel_options.configTICK_RATE_HZ",), metrics=("total",),
                     ratio=("kernel", "freertos", "baremetal"), names=N_NAME)
    p = build_pivot(_toggle_run(), spec)
    assert len(p.col_keys) == 2
    assert p.value((1,), p.col_keys[0]) == pytest.approx(40401.0 / 40000.0)
    assert p.value((3,), p.col_keys[1]) == pytest.approx((40400.0 * 3 + 100) / 120000.0)
    # only the under side's missing axis is a wildcard: the other way round, the super
    # loop (no tick) over two RTOS tick rates would be ambiguous, and gets no cell
    other = PivotSpec("x", rows=("defines.TOGGLE_TASKS",), columns=("kernel_options.configTICK_RATE_HZ",),
                      metrics=("total",), ratio=("kernel", "baremetal", "freertos"))
    assert build_pivot(_toggle_run(), other).cells == {}


def test_pivot_refuses_two_results_in_one_cell_and_unknown_dimensions() -> None:
    with pytest.raises(RtoslabError, match=r"fall in one cell: place .*kernel_options.configTICK_RATE_HZ"):
        build_pivot(_toggle_run(), PivotSpec("t", rows=("defines.TOGGLE_TASKS",), columns=("benchmark",),
                                             metrics=("total",)))
    with pytest.raises(RtoslabError, match=r"unknown dimension 'N': use one of benchmark, metric, target"):
        build_pivot(_toggle_run(), PivotSpec("t", rows=("N",), columns=()))


def test_experiment_file_report_tables_are_checked(tmp_path: Path) -> None:
    f = tmp_path / "e.toml"
    f.write_text('name = "e"\nbenchmarks = ["call"]\n[matrix]\nopt = ["-O0", "-O2"]\n'
                 '[report]\nnames = { opt = "O" }\n[[report.table]]\ntitle = "t"\nrows = ["metric"]\n'
                 'columns = ["opt"]\n')
    exp = load_experiment(f, CATALOG)
    assert exp.tables[0].columns == ("opt",) and exp.tables[0].names == {"opt": "O"}
    f.write_text('name = "e"\nbenchmarks = ["call"]\n[[report.table]]\ntitle = "t"\nrows = ["N"]\n')
    with pytest.raises(RtoslabError, match=r"report.table\[0\].rows' .*'N' is not a dimension: use one of"):
        load_experiment(f, CATALOG)


def test_labels_name_only_the_axes_that_vary() -> None:
    axes = [{"kernel": "freertos", "opt": "-O2", "kernel_options.configTICK_RATE_HZ": 100000},
            {"kernel": "freertos", "opt": "-O2", "kernel_options.configTICK_RATE_HZ": 1000},
            {"kernel": "baremetal", "opt": "-O2"}]
    keys = varying_keys(axes)
    assert keys == ["kernel", "kernel_options.configTICK_RATE_HZ"]
    assert axes_label(axes[0], keys) == "freertos · configTICK_RATE_HZ=100 kHz"
    assert axes_label(axes[2], keys) == "baremetal"
    assert axes_label({**axes[0], "defines.TOGGLE_TASKS": 3}, ["defines.TOGGLE_TASKS", *keys[1:]],
                      N_NAME) == "N=3 · 100 kHz"  # the label: N=3 · 100 kHz
    assert [frequency(v) for v in (1000, 25_000_000, 1500, 7)] == ["1 kHz", "25 MHz", "1500 Hz", "7 Hz"]


def test_a_wide_table_is_split_to_the_width_and_never_cuts_a_word() -> None:
    header = ["metric", *(f"toggle_superloop · TOGGLE_TASKS={n} · configTICK_RATE_HZ=100 kHz"
                          for n in range(1, 9))]
    body = [["total", *(str(40081 * n) for n in range(1, 9))]]
    text = fit_table(header, body, 1, title="t", width=100)
    assert max(len(line) for line in text.splitlines()) <= 100
    assert "t (1/" in text and "toggle_superloop" in text and "configTICK_RATE_HZ=100" in text
    assert "…" not in text
    assert all(str(40081 * n) in text for n in range(1, 9))
    one = fit_table(header, body, 1, title="t", width=100, wide=True)
    assert "(1/" not in one


def test_compare_of_runs_with_different_configurations_pairs_benchmarks() -> None:
    a = [r for _, r in _os_vs_fsm() if r.config.cflags == "-O0"]
    b = [r for _, r in _os_vs_fsm() if r.config.cflags == "-O2"]
    table = compare_runs(a, b, 4, 5)
    names = sorted({rc.baseline for rc in table.ratios})
    assert names == ["run 5 / run 4 (opt -O0 -> -O2)"]
    text = render_comparison(table, "terminal")
    assert "run 5 / run 4 (opt -O0 -> -O2)" in text and "(baseline)" not in text


def test_baseline_with_an_unknown_axis_names_the_valid_ones() -> None:
    with pytest.raises(RtoslabError, match=r"unknown axis 'optimisation' in --baseline: use one of target, "
                       r"kernel, opt"):
        run_table([_os_vs_fsm_run()], stat="median", unit=Unit.INSN, rows="benchmark",
                  baseline={"optimisation": "-O2"})


def test_html_opens_with_the_question_and_a_line_chart() -> None:
    spec = PivotSpec("total", rows=("defines.TOGGLE_TASKS",),
                     columns=("benchmark", "kernel_options.configTICK_RATE_HZ"), metrics=("total",),
                     names=N_NAME)
    html = render_html(_toggle_run(), None, tables=(spec,))
    assert html.index('id="question"') < html.index('id="configurations"')
    assert '<table class="pivot">' in html
    # the values (3 lines) and the overhead view: each line over the first (2 lines)
    assert html.count('class="line"') == 2 and html.count('<path class="series"') == 3 + 2
    assert "relative to" in html


def test_html_comparison_follows_report_rows_metric() -> None:
    """[report] rows = "metric" reaches the HTML: one row per metric, each benchmark of a
    configuration a column, and a baseline may name the benchmark (OS / FSM)."""
    html = render_html(_os_vs_fsm_run(), None, rows="metric",
                       baselines=[("OS/FSM", {"benchmark": "ftl_fsm", "kernel": "baremetal"})])
    section = html[html.index('id="comparison"'):html.index('id="summary"')]
    head = section[section.index("<thead>"):section.index("</thead>")]
    assert head.startswith("<thead><tr><th>metric</th><th") and ">benchmark<" not in head
    assert "ftl_os · freertos -O0" in head and "ftl_os · freertos -O0 / ftl_fsm · baremetal -O0" in head
    assert section.count("<tr><td>sw</td>") == 1  # one unit (insn), six columns: one table
    assert "no metric has a value" not in html


def test_html_ratio_table_gets_grouped_bars_one_per_scenario_and_build() -> None:
    spec = PivotSpec("OS / FSM", rows=("metric",), columns=("opt",), ratio=("benchmark", "ftl_os", "ftl_fsm"))
    html = render_html(_os_vs_fsm_run(), None, tables=(spec,))
    question = html[html.index('id="question"'):html.index('id="configurations"')]
    assert question.count('<svg class="bars"') == 1
    assert question.count('class="gbar"') == 4  # 2 scenarios x 2 builds
    assert "sw · -O2: 1.1" in question  # each bar's tooltip says what and how much
    none = PivotSpec("t", rows=("metric",), columns=("opt",), ratio=spec.ratio, chart="none")
    html = render_html(_os_vs_fsm_run(), None, tables=(none,))
    assert '<svg class="bars"' not in html


def test_markdown_report_opens_with_the_experiment_s_tables(tmp_path: Path) -> None:
    from rtoslab.cli.tables import markdown_report

    f = tmp_path / "e.toml"
    f.write_text('name = "e"\nbenchmarks = ["ftl_os"]\n[matrix]\nopt = ["-O0", "-O2"]\n'
                 '[[report.table]]\ntitle = "by opt"\nrows = ["metric"]\ncolumns = ["opt"]\n'
                 'where = { benchmark = "ftl_os" }\nunit = "insn"\n')
    text = markdown_report(_os_vs_fsm_run(), load_experiment(f, CATALOG).report_spec())
    assert text.index("## Results") < text.index("**by opt**") < text.index("\n## mps2-an385")
    assert "| metric | -O0 | -O2 |" in text and "| sw | 330 | 110 |" in text


def test_a_pivot_of_paced_metrics_says_so_in_every_format() -> None:
    """Seed 002's toggle metrics are paced by the instruction clock (the tick time-slices
    the tasks): an experiment table showing them names them under the table, in the
    terminal, Markdown and HTML; a table of modelled metrics has no such line."""
    from dataclasses import replace

    from rtoslab.records import TimeBase

    run = _toggle_run()
    paced = tuple(replace(r, metrics=tuple(replace(m, time_base=TimeBase.PACED) for m in r.metrics))
                  if r.benchmark == "toggle_rtos" else r for r in run.results)
    view = replace(run, results=paced)
    spec = PivotSpec("total time", rows=("defines.TOGGLE_TASKS",),
                     columns=("benchmark", "kernel_options.configTICK_RATE_HZ"), metrics=("total",),
                     names=N_NAME)
    p = build_pivot(view, spec)
    assert p.paced == ("toggle_rtos/total",)
    for fmt in ("terminal", "markdown"):
        text = render_pivot(p, fmt, width=400)
        assert "paced by QEMU's instruction clock" in text and "toggle_rtos/total" in text, fmt
    question = render_html(view, None, tables=(spec,))
    question = question[question.index('id="question"'):question.index('id="configurations"')]
    assert "instruction clock (ticks or timer interrupts inside" in question
    assert build_pivot(run, spec).paced == ()
    assert "instruction clock" not in render_pivot(build_pivot(run, spec), "terminal", width=400)


def _delay_run() -> RunView:
    """Seed 001's shape: one configuration, five tasks' delays in µs with their spread."""
    config = _toggle_config(1, "freertos", 1, 1000)
    metrics = tuple(
        MetricView(id=k, name=f"task{k}_delay", description="", n_samples=100,
                   summaries={Unit.US: Summary(100, 49990.0 + k, 50010.0 + k, 50000.0 + k, 50000.0 + k,
                                               50000.0 + k, 12.5 * k, 50005.0, 50009.0)})
        for k in range(1, 6))
    result = ResultView(id=1, benchmark="k_delay_tasks", config=config, source_hash="s", status="ok",
                        reason=None, console="", total_insns=0, total_cycles=0, calibration=None,
                        wall_s=None, counters={}, footprint=None, footprint_error=None, created_at="",
                        metrics=metrics)
    return RunView(3, "t0", "t1", "complete", "r", "h", {}, "c", None, (result,))


def test_pivot_several_stats_as_a_dimension_in_ms_like_seed_001s_table() -> None:
    """A row per statistic (stdev too), a column per task, in ms to the µs."""
    spec = PivotSpec("delay", rows=("stat",), columns=("metric",), unit="ms",
                     stats=("mean", "max", "min", "stdev"), names={"metric": "", "stat": ""})
    p = build_pivot(_delay_run(), spec)
    assert p.row_keys == (("mean",), ("max",), ("min",), ("stdev",))
    assert [p.col_label(c) for c in p.col_keys] == [f"task{k}_delay" for k in range(1, 6)]
    assert p.value(("mean",), ("task3_delay",)) == pytest.approx(50.003)
    assert p.value(("stdev",), ("task2_delay",)) == pytest.approx(0.025)
    md = render_pivot(p, "markdown")
    assert "(mean/max/min/stdev ms)" in md
    assert "|  | task1_delay | task2_delay |" in md  # names: "" hides the dimension's name
    assert "| mean | 50.001 | 50.002 | 50.003 | 50.004 | 50.005 |" in md
    assert "| stdev | 0.013 | 0.025 | 0.037 | 0.050 | 0.062 |" in md
    # one stat in µs, as before: whole numbers stay whole
    us = build_pivot(_delay_run(), PivotSpec("d", rows=("metric",), columns=(), unit=Unit.US, stat="stdev"))
    assert us.value(("task2_delay",), ()) == 25.0


def test_pivot_several_stats_must_be_placed_and_known() -> None:
    with pytest.raises(RtoslabError, match=r"several stats \(mean, max\): place 'stat' in rows or columns"):
        build_pivot(_delay_run(), PivotSpec("d", rows=("metric",), columns=(), unit=Unit.US,
                                            stats=("mean", "max")))
    with pytest.raises(RtoslabError, match=r"unknown stat 'sigma': use one of .*p99, stdev"):
        build_pivot(_delay_run(), PivotSpec("d", rows=("metric",), columns=(), stat="sigma"))


def test_experiment_file_stats_and_ms(tmp_path: Path) -> None:
    f = tmp_path / "e.toml"
    table = ('name = "e"\nbenchmarks = ["call"]\n[[report.table]]\ntitle = "t"\ncolumns = ["metric"]\n'
             'unit = "ms"\nstats = ["mean", "stdev"]\n')
    f.write_text(table + 'rows = ["stat"]\n')
    spec = load_experiment(f, CATALOG).tables[0]
    assert spec.unit == "ms" and spec.stats == ("mean", "stdev") and spec.rows == ("stat",)
    f.write_text(table)
    with pytest.raises(RtoslabError, match=r"report.table\[0\].stats' names several statistics: place "
                                           r"\"stat\" in rows or columns"):
        load_experiment(f, CATALOG)
    f.write_text(table.replace('"stdev"', '"sigma"') + 'rows = ["stat"]\n')
    with pytest.raises(RtoslabError, match=r"stats"):
        load_experiment(f, CATALOG)


def test_an_experiment_table_shows_modelled_time_unless_told_otherwise(tmp_path: Path) -> None:
    """Issue 28, time first: a [[report.table]] without `unit` is in modelled cycles."""
    f = tmp_path / "e.toml"
    f.write_text('name = "e"\nbenchmarks = ["call"]\n[matrix]\nopt = ["-O0", "-O2"]\n'
                 '[[report.table]]\ntitle = "t"\nrows = ["metric"]\ncolumns = ["opt"]\n')
    (table,) = load_experiment(f, CATALOG).tables
    assert str(table.unit) == "cycle"


# ------------------------------------------------------------------ size tables (unit byte)

def _sized_config(cid: int, kernel: str, opt: str, lto: bool) -> ConfigView:
    axes: dict[str, object] = {"target": "mps2-an385", "kernel": kernel, "opt": opt, "lto": lto}
    return ConfigView(id=cid, hash=f"h{cid}", target="mps2-an385", core="cortex-m3", kernel=kernel,
                      kernel_config={}, kernel_config_hash="k", compiler="gcc", compiler_version="12",
                      cflags=opt, ldflags="", timing={}, identity={"axes": axes})


def _sized_run() -> RunView:
    """ftl_os on FreeRTOS and ftl_fsm on bare metal at -O2 and -Os, with and without LTO:
    without LTO the map attributes kernel and port objects; with LTO an `lto` component."""
    results = []
    rid = 0
    for opt, scale in (("-O2", 2), ("-Os", 1)):
        for lto in (False, True):
            for bench, kernel, kern in (("ftl_os", "freertos", 3000), ("ftl_fsm", "baremetal", 100)):
                rid += 1
                app = 5000 * scale
                flash = ({"lto": app + kern, "libc": 700} if lto else
                         {"kernel": kern, "port": 200, "benchmark": app, "libc": 700})
                ram = {"kernel": 4096, "benchmark": 512, "stack": 1024} if not lto else \
                    {"lto": 4608, "stack": 1024}
                r = _result(rid, bench, _sized_config(rid, kernel, opt, lto), {"sw": 100.0 + rid})
                results.append(ResultView(**{**r.__dict__, "footprint": Footprint(flash, ram)}))
    return RunView(3, "t0", "t1", "complete", "r", "h", {}, "c", None, tuple(results))


def test_a_size_table_shows_flash_per_build_and_the_kernel_apart_where_the_map_can() -> None:
    spec = PivotSpec("sizes", rows=("opt", "lto"), columns=("benchmark", "metric"),
                     metrics=("flash", "kernel_flash"), unit="byte")
    p = build_pivot(_sized_run(), spec)
    assert p.row_keys == (("-O2", False), ("-O2", True), ("-Os", False), ("-Os", True))
    assert p.col_keys == (("ftl_os", "flash"), ("ftl_os", "kernel_flash"), ("ftl_fsm", "flash"),
                          ("ftl_fsm", "kernel_flash"))
    assert p.value(("-O2", False), ("ftl_os", "flash")) == 10000 + 3000 + 200 + 700
    assert p.value(("-Os", True), ("ftl_fsm", "flash")) == 5000 + 100 + 700
    # kernel apart: its own sources and our port; none where LTO merged the objects
    assert p.value(("-O2", False), ("ftl_os", "kernel_flash")) == 3200
    assert p.value(("-O2", False), ("ftl_fsm", "kernel_flash")) == 300
    assert p.value(("-O2", True), ("ftl_os", "kernel_flash")) is None
    assert "image bytes" in p.caption() and "median" not in p.caption()
    text = render_pivot(p, width=200)
    assert "with LTO the map cannot tell them from the rest" in text
    md = render_pivot(p, fmt="markdown")
    assert "| -O2 | lto | 13700 | - | 10800 | - |" in md
    assert "*kernel bytes are the linker map's kernel and port objects" in md
    html = render_html(_sized_run(), None, tables=(spec,))
    assert "with LTO the map cannot tell them from the rest" in html


def test_a_size_table_ratio_os_over_fsm_per_build() -> None:
    spec = PivotSpec("OS / FSM", rows=("opt", "lto"), columns=("metric",), metrics=("flash", "ram"),
                     unit="byte", ratio=("benchmark", "ftl_os", "ftl_fsm"))
    p = build_pivot(_sized_run(), spec)
    assert p.value(("-Os", False), ("flash",)) == pytest.approx((5000 + 3200 + 700) / (5000 + 300 + 700))
    assert p.value(("-Os", True), ("ram",)) == pytest.approx(1.0)
    assert "kernel bytes" not in render_pivot(p)  # no kernel metric shown: no note


def test_experiment_file_size_tables_are_checked_before_running(tmp_path: Path) -> None:
    f = tmp_path / "e.toml"
    head = ('name = "e"\nbenchmarks = ["call"]\n[matrix]\nopt = ["-O0", "-O2"]\n'
            '[[report.table]]\ntitle = "t"\nrows = ["opt"]\ncolumns = ["metric"]\nunit = "byte"\n')
    f.write_text(head + 'metrics = ["flash", "kernel_flash"]\n')
    (spec,) = load_experiment(f, CATALOG).tables
    assert spec.unit == "byte" and spec.metrics == ("flash", "kernel_flash")
    f.write_text(head + 'metrics = ["rom"]\n')
    with pytest.raises(RtoslabError, match=r"is a size table \(unit byte\) and names 'rom': use one of "
                                           r"flash, ram, kernel_flash, kernel_ram"):
        load_experiment(f, CATALOG)
    f.write_text(head.replace('columns = ["metric"]', 'columns = ["metric", "stat"]')
                 + 'stats = ["mean", "max"]\n')
    with pytest.raises(RtoslabError, match=r"an image has one size, no statistics"):
        load_experiment(f, CATALOG)
    f.write_text(head.replace('rows = ["opt"]', 'rows = []'))
    with pytest.raises(RtoslabError, match=r"leaves opt unplaced"):
        load_experiment(f, CATALOG)


def test_the_html_headline_is_about_measured_values_when_a_size_table_comes_first() -> None:
    sizes = PivotSpec("image size", rows=("opt", "lto"), columns=("benchmark", "metric"),
                      metrics=("flash", "kernel_flash"), unit="byte")
    time = PivotSpec("sw time", rows=("opt", "lto"), columns=("benchmark",), metrics=("sw",))
    html = render_html(_sized_run(), None, tables=(sizes, time))
    headline = html[html.find('<ul class="headline">'):html.find("</ul>", html.find('<ul class="headline">'))]
    assert "sw time at" in headline and "image size" not in headline
    assert html.find("<h3>image size</h3>") < html.find("<h3>sw time</h3>")  # printed first all the same


def test_the_html_headline_names_each_row_value_once() -> None:
    """A row value that names its axis (lto / no-lto) is not repeated with the axis name
    (was "at opt -Os · lto lto"); the other axes keep theirs."""
    time = PivotSpec("sw time", rows=("opt", "lto"), columns=("benchmark",), metrics=("sw",))
    html = render_html(_sized_run(), None, tables=(time,))
    start = html.find('<ul class="headline">')
    headline = html[start:html.find("</ul>", start)]
    assert "sw time at opt -Os · lto: " in headline, headline
    assert "lto lto" not in html
    p = build_pivot(_sized_run(), time)
    assert [p.row_text(rk) for rk in p.row_keys] == [
        "opt -O2 · no-lto", "opt -O2 · lto", "opt -Os · no-lto", "opt -Os · lto"]
