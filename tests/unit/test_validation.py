"""rtoslab.validation and the [[validation]] schema of bench.toml, on recorded values."""

from __future__ import annotations

from pathlib import Path

import pytest

from rtoslab import validation
from rtoslab.catalog import BenchFile, Benchmark, Catalog, ValidationCase
from rtoslab.records import BenchResult, MetricResult, RtoslabError, Summary, Unit
from rtoslab.schema import parse

CATALOG = Catalog()  # the checkout's folders alone

CASE = {"metric": "m", "cycles": 20, "source": "s", "conditions": "c", "held_out": True,
        "timing": {"core": "cortex-m4"}}


def _bench(*cases: ValidationCase) -> Benchmark:
    return Benchmark(name="v_x", path=Path("."), suites=("validation",), description="d",
                     requires=(), insn_limit=1, timeout_s=1.0, validation=cases)


def _result(median: float, status: str = "ok") -> BenchResult:
    s = Summary(n=1, min=median, max=median, mean=median, median=median, mode=median,
                stdev=0.0, p90=median, p99=median)
    return BenchResult("v_x", status, None if status == "ok" else "boom",
                       metrics=(MetricResult("m", "d", (), {Unit.CYCLE: s}),))


def test_schema_reads_cases_and_refuses_unknown_keys_and_wrong_types() -> None:
    f = parse(BenchFile, {"suite": ["validation"], "description": "d", "validation": [CASE]}, "b.toml")
    assert f.validation[0] == ValidationCase(**CASE)  # type: ignore[arg-type]
    assert f.validation[0].tolerance == 0.10
    with pytest.raises(RtoslabError, match=r"b.toml: unknown key 'expected' in \[validation\[0\]\]"):
        parse(BenchFile, {"suite": ["v"], "description": "d", "validation": [{**CASE, "expected": 3}]},
              "b.toml")
    with pytest.raises(RtoslabError, match=r"b.toml.*validation\[0\]\.held_out"):
        parse(BenchFile, {"suite": ["v"], "description": "d", "validation": [{**CASE, "held_out": "y"}]},
              "b.toml")


def test_every_validation_benchmark_has_sourced_cases() -> None:
    benches = CATALOG.suite_benchmarks(validation.SUITE)
    assert benches
    for b in benches:
        assert b.validation, b.name
        for c in b.validation:
            assert c.source and c.conditions and c.timing.get("core"), (b.name, c.metric)
    assert any(c.held_out for b in benches for c in b.validation), "some cases are held out"


def test_plan_groups_cases_by_timing_and_compare_computes_errors() -> None:
    a = ValidationCase(**CASE)  # type: ignore[arg-type]
    b = ValidationCase(**{**CASE, "timing": {"core": "cortex-m3"}, "cycles": 10})  # type: ignore[arg-type]
    bench = _bench(a, b)
    plan = validation.plan(CATALOG, [bench])
    assert [dict(c.timing) for c, _ in plan] == [{"core": "cortex-m3"}, {"core": "cortex-m4"}]
    got = validation.compare(plan, [_result(10.5), _result(23.0)])
    assert [(r.case.cycles, r.model_cycles) for r in got] == [(10, 10.5), (20, 23.0)]
    assert got[0].error == pytest.approx(0.05) and got[0].within
    assert got[1].error == pytest.approx(0.15) and not got[1].within
    failed = validation.compare(plan, [_result(10, "failed"), _result(20)])
    assert failed[0].model_cycles is None and not failed[0].within
    assert "failed: boom" in (failed[0].failure or "")
    table = validation.markdown(got)
    assert "| v_x | m | core=cortex-m3 | 10 | 10.5 | +5.0% | yes (±10%) | yes |" in table
    assert "| +15.0% | **no** |" in table
    assert "- all cases: 2, within tolerance 1, mean absolute error 10.0%, largest 15.0%" in table


def test_a_case_with_minus_compares_the_difference_of_two_metrics() -> None:
    case = ValidationCase(**{**CASE, "minus": "base", "cycles": 90})  # type: ignore[arg-type]
    plan = validation.plan(CATALOG, [_bench(case)])

    def summary(v: float) -> Summary:
        return Summary(n=1, min=v, max=v, mean=v, median=v, mode=v, stdev=0.0, p90=v, p99=v)

    result = BenchResult("v_x", "ok", None, metrics=(
        MetricResult("m", "d", (), {Unit.CYCLE: summary(130.0)}),
        MetricResult("base", "d", (), {Unit.CYCLE: summary(30.0)})))
    (got,) = validation.compare(plan, [result])
    assert got.model_cycles == 100.0 and not got.within
    assert "| v_x | m - base |" in validation.markdown([got])
    (missing,) = validation.compare(plan, [_result(5.0)])
    assert missing.model_cycles is None and "no metric 'base'" in (missing.failure or "")


def test_a_case_with_a_target_runs_there_and_says_so() -> None:
    here = ValidationCase(**CASE)  # type: ignore[arg-type]
    there = ValidationCase(**{**CASE, "target": "mps2-an386", "cycles": 10})  # type: ignore[arg-type]
    plan = validation.plan(CATALOG, [_bench(here, there)])
    assert sorted((c.target, dict(c.timing)) for c, _ in plan) == [
        ("mps2-an385", {"core": "cortex-m4"}), ("mps2-an386", {"core": "cortex-m4"})]
    results = [_result(10.0 if c.target == "mps2-an386" else 20.0) for c, _ in plan]
    got = {r.case.target: r for r in validation.compare(plan, results)}
    assert got[""].model_cycles == 20.0 and got["mps2-an386"].model_cycles == 10.0
    assert "| v_x | m | target=mps2-an386, core=cortex-m4 | 10 | 10 |" in validation.markdown(
        list(got.values()))
    with pytest.raises(RtoslabError, match="mps2-an999"):
        validation.plan(CATALOG, [_bench(ValidationCase(**{**CASE, "target": "mps2-an999"}))])  # type: ignore[arg-type]


def test_a_benchmark_needing_an_fpu_is_na_on_a_target_without_one() -> None:
    from rtoslab.catalog import na_reason
    bench = Benchmark(name="v_x", path=Path("."), suites=("validation",), description="d",
                      requires=(), insn_limit=1, timeout_s=1.0, needs=("fpu",))
    kernel = CATALOG.get_kernel("baremetal")
    why = na_reason(bench, kernel, CATALOG.get_target("mps2-an385"))
    assert why is not None and "lacks fpu" in why and "fpu = none" in why
    assert na_reason(bench, kernel, CATALOG.get_target("mps2-an386")) is None


def test_a_benchmark_needing_thumb2_is_na_on_an_armv6m_target() -> None:
    """v_branch, v_countdown and v_ldr_pipe are M3/M4 code: on the micro:bit's Cortex-M0 they
    are n/a with the reason, not a build failure (the M0 assembler refuses MUL.W) or a
    failed self-check (the ARMv6-M probe overwrites r3)."""
    from rtoslab.catalog import na_reason
    kernel = CATALOG.get_kernel("baremetal")
    for name in ("v_branch", "v_countdown", "v_ldr_pipe"):
        bench = CATALOG.get_benchmark(name)
        why = na_reason(bench, kernel, CATALOG.get_target("microbit"))
        assert why is not None and "lacks thumb2" in why and "cortex-m0" in why, (name, why)
        assert na_reason(bench, kernel, CATALOG.get_target("mps2-an385")) is None
        assert na_reason(bench, kernel, CATALOG.get_target("mps2-an505")) is None
