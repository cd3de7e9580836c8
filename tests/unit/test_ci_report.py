"""`rtoslab ci`'s verdict and renderers, and the history series (issue 31), on recorded
values: which metrics fail the gate, in what order the summary lists them, what JUnit
says, and how runs line up in commit order."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from rtoslab.records import Summary, Unit
from rtoslab.report.ci import ci_result, render_junit, render_markdown
from rtoslab.report.comparison import compare_runs, is_regression, regressions
from rtoslab.report.history import bench_page, history_series, render_history_text, select_series
from rtoslab.report.html import CSS
from rtoslab.views import ConfigView, MetricView, ResultView, RunView


def _config(cid: int, commit: str = "", committed: str = "") -> ConfigView:
    identity: dict[str, object] = {"axes": {"target": "mps2-an385", "kernel": "freertos", "opt": "-O2",
                                            "lto": False, "cflags": ""}, "clock_hz": 25_000_000}
    if commit:
        identity["kernel_source"] = {"version": "V11.2.0", "content": "c" * 16, "commit": commit,
                                     "committed": committed, "dirty": False}
    return ConfigView(id=cid, hash=f"h{cid}", target="mps2-an385", core="cortex-m3", kernel="freertos",
                      kernel_config={}, kernel_config_hash="k", compiler="gcc", compiler_version="12",
                      cflags="-O2", ldflags="", timing={"core": "cortex-m3", "time": "one-clock"},
                      identity=identity)


def _summary(v: float) -> Summary:
    return Summary(5, v, v, v, v, v, 0.0, v, v)


def _result(rid: int, bench: str, config: ConfigView, values: dict[str, float],
            status: str = "ok", reason: str | None = None) -> ResultView:
    metrics = tuple(MetricView(id=rid * 10 + i, name=name, description="", n_samples=5,
                               summaries={Unit.INSN: _summary(v / 2), Unit.CYCLE: _summary(v)})
                    for i, (name, v) in enumerate(values.items()))
    return ResultView(id=rid, benchmark=bench, config=config, source_hash="s", status=status, reason=reason,
                      console="", total_insns=0, total_cycles=0, calibration=None, wall_s=None,
                      counters={}, footprint=None, footprint_error=None, created_at="",
                      metrics=metrics if status == "ok" else ())


BASE = {"k_yield": {"yield_switch": 129.0}, "k_sem": {"sem_give": 119.0, "sem_take": 90.0,
                                                        "sem_shuffle": 413.0}}


def _run(values: dict[str, dict[str, float]], cid: int, first: int) -> list[ResultView]:
    return [_result(first + i, b, _config(cid), m) for i, (b, m) in enumerate(values.items())]


def _ci(change: dict[str, dict[str, float]], pct: float = 0.0):  # type: ignore[no-untyped-def]
    table = compare_runs(_run(BASE, 1, 1), _run(change, 2, 10), 0, 1, stat="median", unit=Unit.CYCLE)
    return ci_result(table, pct, base="run 1 of base.sqlite", change="run 1 of pr.sqlite")


def test_is_regression_is_the_compare_gate() -> None:
    assert is_regression(100, 101, 0) and not is_regression(100, 100, 0)
    assert not is_regression(100, 101, 1) and is_regression(100, 101.01, 1)
    assert is_regression(0, 1, 50) and not is_regression(0, 0, 0)
    table = compare_runs(_run(BASE, 1, 1), _run({"k_yield": {"yield_switch": 130.0}}, 2, 10), 0, 1,
                         unit=Unit.CYCLE)
    assert len(regressions(table, 0.5)) == 1 and regressions(table, 1.0) == []


def test_identical_runs_pass_with_every_delta_zero() -> None:
    result = _ci(BASE)
    assert result.passed and result.count("unchanged") == 4
    assert all(d.delta == 0 and d.percent == 0 for d in result.deltas)
    md = render_markdown(result)
    assert md.startswith("### rtoslab: pass: all 4 metrics unchanged\n")
    assert "4 metrics unchanged (delta exactly 0 cycles)." in md and "REGRESSED" not in md
    root = ET.fromstring(render_junit(result))
    assert root.get("failures") == "0" and len(list(root.iter("testcase"))) == 4


def test_a_regression_fails_and_is_listed_first_with_exact_deltas() -> None:
    change = {"k_yield": {"yield_switch": 218.0},
              "k_sem": {"sem_give": 118.0, "sem_take": 90.0, "sem_shuffle": 413.5}}
    result = _ci(change, pct=0.0)
    assert not result.passed
    status = {d.name: d.status for d in result.deltas}
    assert status == {"k_yield/yield_switch": "regressed", "k_sem/sem_give": "improved",
                      "k_sem/sem_take": "unchanged", "k_sem/sem_shuffle": "regressed"}
    md = render_markdown(result)
    assert md.startswith("### rtoslab: FAIL: 2 above the 0 % limit (3 of 4 metrics changed)")
    rows = [ln for ln in md.splitlines() if ln.startswith("| ") and not ln.startswith("| |")
            and "benchmark" not in ln]
    assert rows[0] == "| **REGRESSED** | k_yield | yield_switch | 129 | 218 | +89 | +68.992 % |"
    assert rows[1] == "| **REGRESSED** | k_sem | sem_shuffle | 413 | 413.5 | +0.5 | +0.121 % |"
    assert rows[2] == "| improved | k_sem | sem_give | 119 | 118 | -1 | -0.840 % |"
    assert md.index("REGRESSED") < md.index("improved") < md.index("unchanged metrics")
    root = ET.fromstring(render_junit(result))
    failed = {f"{c.get('classname')}/{c.get('name')}" for c in root.iter("testcase")
              if c.find("failure") is not None}
    assert failed == {"rtoslab.k_yield/yield_switch", "rtoslab.k_sem/sem_shuffle"}
    message = next(c.find("failure") for c in root.iter("testcase") if c.get("name") == "yield_switch")
    assert message is not None and message.get("message") == \
        "regressed: 129 -> 218 cycles, +89 (+68.992 %), above the 0 % limit"


def test_a_growth_within_the_limit_passes_as_changed() -> None:
    result = _ci({**BASE, "k_yield": {"yield_switch": 130.0}}, pct=1.0)
    assert result.passed and [d.status for d in result.deltas if d.status != "unchanged"] == ["changed"]
    assert render_markdown(result).startswith(
        "### rtoslab: pass: 1 of 4 metrics changed, none above the 1 % limit")


def test_a_benchmark_that_fails_in_the_change_fails_the_gate() -> None:
    failed = _result(20, "k_sem", _config(2), {}, status="failed", reason="hang: LAB exit 7")
    change = [*_run({"k_yield": BASE["k_yield"]}, 2, 10), failed]
    table = compare_runs(_run(BASE, 1, 1), change, 0, 1, unit=Unit.CYCLE)
    result = ci_result(table, 0.0, base="b", change="c")
    assert not result.passed
    assert [(d.name, d.status) for d in result.failing] == [("k_sem", "failed")]
    md = render_markdown(result)
    assert "| **FAILED** | k_sem | (whole benchmark) |" in md and "hang: LAB exit 7" in md


# ---------------------------------------------------------------- history


def _hist_run(rid: int, commit: str, committed: str, value: float) -> RunView:
    config = _config(rid, commit, committed)
    results = (_result(rid, "k_yield", config, {"yield_switch": value}),)
    return RunView(rid, f"2026-02-0{rid}T00:00:00Z", None, "complete", "v", "h", {}, "rtoslab run", None,
                   results)


def test_history_is_in_commit_order_and_marks_steps_above_the_threshold() -> None:
    # run 3 measured an older commit (a backfill): it goes first
    views = [_hist_run(1, "a" * 40, "2026-01-02T00:00:00+00:00", 129),
             _hist_run(2, "b" * 40, "2026-01-03T00:00:00+00:00", 218),
             _hist_run(3, "c" * 40, "2026-01-01T00:00:00+00:00", 129)]
    [series] = history_series(views)
    assert [p.revision.run_id for p in series.points] == [3, 1, 2]
    assert [p.revision.label for p in series.points] == ["c" * 12, "a" * 12, "b" * 12]
    assert series.steps(0) == [2] and series.steps(70) == []
    text = render_history_text([series], 0)
    assert text.splitlines()[-1].split() == ["2", "b" * 12, "2026-01-03", "00:00:00", "218", "+89",
                                             "(+68.992", "%)", "REGRESSION", "(>", "0", "%)"]
    page = bench_page("k_yield", [series], 0, CSS, "h.sqlite")
    assert page.count('<circle class="mark"') == 1 and 'href="runs/run-2.html"' in page
    assert "<script" not in page


def test_history_selection_errors_name_what_there_is() -> None:
    series = history_series([_hist_run(1, "a" * 40, "2026-01-02T00:00:00+00:00", 129)])
    with pytest.raises(Exception, match="'nope' is in no run of this database: metrics there: yield_switch"):
        select_series(series, "nope", None, {})
    with pytest.raises(Exception, match="benchmark 'k_sem' has no metric 'yield_switch'"):
        select_series(series, "yield_switch", "k_sem", {})
    with pytest.raises(Exception, match="unknown axis 'colour' in --config"):
        select_series(series, "yield_switch", None, {"colour": "red"})
    assert select_series(series, "yield_switch", "k_yield", {"opt": "-O2"}) == series
