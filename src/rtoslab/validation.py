"""The validation suite: the model's figures against published real-hardware figures.

Each reference figure lives beside its benchmark, in the ``[[validation]]`` entries of
``firmware/bench/<name>/bench.toml`` (``rtoslab.catalog.ValidationCase``: metric,
published cycles, tolerance, source, conditions, whether it is held out, and the timing
settings that model the conditions). ``rtoslab validate`` runs every case through the
normal pipeline (one configuration per benchmark and timing settings), and this module
compares: the model's figure is the metric's median in modelled cycles; the error is
``(model - published) / published``. ``docs/validation.md`` is its Markdown table.
"""

from __future__ import annotations

from dataclasses import dataclass

from rtoslab.builder.config import BuildConfig
from rtoslab.catalog import Benchmark, ValidationCase, get_target, suite_benchmarks
from rtoslab.records import BenchResult, Unit

SUITE = "validation"


@dataclass(frozen=True)
class CaseResult:
    """One case compared. ``model_cycles`` is None when the benchmark or metric did not
    produce cycles (``failure`` says why)."""

    benchmark: str
    case: ValidationCase
    model_cycles: float | None
    failure: str | None = None

    @property
    def error(self) -> float | None:
        """(model - published) / published, or None without a model figure."""
        if self.model_cycles is None:
            return None
        return (self.model_cycles - self.case.cycles) / self.case.cycles

    @property
    def within(self) -> bool:
        e = self.error
        return e is not None and abs(e) <= self.case.tolerance

    @property
    def as_expected(self) -> bool:
        """Within tolerance, or outside it for a documented gap (``case.gap``): a gap
        case that comes within tolerance is not as expected (its note is stale)."""
        if self.model_cycles is None:
            return False
        return self.within != bool(self.case.gap)


def timing_key(case: ValidationCase) -> tuple[tuple[str, object], ...]:
    return tuple(sorted(case.timing.items()))


def case_target(case: ValidationCase) -> str:
    """The target the case runs on: its own, else the default configuration's."""
    return case.target or BuildConfig().target


def settings_text(case: ValidationCase) -> str:
    """The table's "timing" column: the case's target when it has one, then its timing
    settings (``target=mps2-an386, core=cortex-m4``)."""
    items = ([("target", case.target)] if case.target else []) + list(timing_key(case))
    return ", ".join(f"{k}={v}" for k, v in items)


def _run_key(case: ValidationCase) -> tuple[str, tuple[tuple[str, object], ...]]:
    return case_target(case), timing_key(case)


def plan(benches: list[Benchmark] | None = None) -> list[tuple[BuildConfig, list[Benchmark]]]:
    """One configuration per (benchmark, target, timing settings) the cases need, with the
    default kernel and flags (bare metal, -O2); the target is the case's (default
    mps2-an385)."""
    out: list[tuple[BuildConfig, list[Benchmark]]] = []
    for b in benches if benches is not None else suite_benchmarks(SUITE):
        for target, timing in sorted({_run_key(c) for c in b.validation}, key=repr):
            get_target(target)  # an unknown target: its one-line error before anything runs
            config = BuildConfig(target=target, timing=timing,
                                 axes=tuple((f"timing.{k}", v) for k, v in timing))
            out.append((config, [b]))
    return out


def compare(plan_: list[tuple[BuildConfig, list[Benchmark]]],
            results: list[BenchResult]) -> list[CaseResult]:
    """The cases of ``plan_`` against ``results`` (``pipeline.execute``'s, same order)."""
    out: list[CaseResult] = []
    flat = [(config, b) for config, benches in plan_ for b in benches]
    if len(flat) != len(results):
        raise ValueError(f"{len(flat)} planned runs but {len(results)} results")
    for (config, bench), result in zip(flat, results, strict=True):
        assert result.benchmark == bench.name, (result.benchmark, bench.name)
        for case in bench.validation:
            if _run_key(case) != (config.target, config.timing):
                continue
            out.append(_one(bench.name, case, result))
    return out


def _one(bench: str, case: ValidationCase, result: BenchResult) -> CaseResult:
    if result.status != "ok":
        return CaseResult(bench, case, None, f"{result.status}: {result.reason}")
    medians = []
    for name in (case.metric, case.minus) if case.minus else (case.metric,):
        metric = next((m for m in result.metrics if m.name == name), None)
        if metric is None:
            return CaseResult(bench, case, None, f"no metric {name!r} in {bench}")
        summary = metric.summaries.get(Unit.CYCLE)
        if summary is None:
            return CaseResult(bench, case, None, "no modelled cycles (core=none?)")
        medians.append(summary.median)
    return CaseResult(bench, case, medians[0] - (medians[1] if case.minus else 0.0))


def _pct(x: float) -> str:
    return f"{x * 100:+.1f}%"


def markdown(results: list[CaseResult]) -> str:
    """The validation table (docs/validation.md) and its summary lines."""
    lines = ["| benchmark | metric | timing | published | model | error | within | held out | "
             "conditions | source |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        timing = settings_text(r.case)
        model = f"{r.model_cycles:g}" if r.model_cycles is not None else f"- ({r.failure})"
        err = _pct(r.error) if r.error is not None else "-"
        ok = f"yes (±{r.case.tolerance * 100:g}%)" if r.within else "**no**"
        if r.case.gap:
            ok += " (known gap)"
        metric = f"{r.case.metric} - {r.case.minus}" if r.case.minus else r.case.metric
        lines.append(f"| {r.benchmark} | {metric} | {timing} | {r.case.cycles:g} | {model} | "
                     f"{err} | {ok} | {'yes' if r.case.held_out else 'no'} | {r.case.conditions} | "
                     f"{r.case.source} |")
    lines.append("")
    lines.extend(summary_lines(results))
    gaps = [r for r in results if r.case.gap]
    if gaps:
        lines.append("")
        lines.append("Known gaps:")
        for r in gaps:
            timing = settings_text(r.case)
            lines.append(f"- {r.benchmark}.{r.case.metric} ({timing}): {r.case.gap}")
    return "\n".join(lines) + "\n"


def summary_lines(results: list[CaseResult]) -> list[str]:
    out = []
    for label, subset in (("all cases", results),
                          ("held-out cases", [r for r in results if r.case.held_out])):
        errs = [abs(r.error) for r in subset if r.error is not None]
        within = sum(r.within for r in subset)
        mae = f"{sum(errs) / len(errs) * 100:.1f}%" if errs else "-"
        worst = f"{max(errs) * 100:.1f}%" if errs else "-"
        out.append(f"- {label}: {len(subset)}, within tolerance {within}, mean absolute error "
                   f"{mae}, largest {worst}")
    return out
