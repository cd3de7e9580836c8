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

from rtoslab.builder.config import DEFAULT_TARGET, BuildConfig
from rtoslab.catalog import Benchmark, Catalog, ValidationCase
from rtoslab.records import BenchResult, RtoslabError, Unit

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
    return case.target or DEFAULT_TARGET


def settings_text(case: ValidationCase) -> str:
    """The table's "timing" column: the case's target when it has one, then its timing
    settings (``target=mps2-an386, core=cortex-m4``)."""
    items = ([("target", case.target)] if case.target else []) + list(timing_key(case))
    return ", ".join(f"{k}={v}" for k, v in items)


def _run_key(case: ValidationCase) -> tuple[str, tuple[tuple[str, object], ...]]:
    return case_target(case), timing_key(case)


def plan(catalog: Catalog,
         benches: list[Benchmark] | None = None) -> list[tuple[BuildConfig, list[Benchmark]]]:
    """One configuration per (benchmark, target, timing settings) the cases need, with the
    default kernel and flags (bare metal, -O2); the target is the case's (default
    mps2-an385). ``benches``: default the catalog's validation suite."""
    out: list[tuple[BuildConfig, list[Benchmark]]] = []
    for b in benches if benches is not None else catalog.suite_benchmarks(SUITE):
        for target, timing in sorted({_run_key(c) for c in b.validation}, key=repr):
            catalog.get_target(target)  # an unknown target: its one-line error before anything runs
            config = BuildConfig(target=target, timing=timing,
                                 axes=tuple((f"timing.{k}", v) for k, v in timing), catalog=catalog)
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


# ------------------------------------------------------------------ a board against the model
# `rtoslab validate --board NAME` (docs/boards.md, "Checked against the model"): the same
# benchmark sources measured on the board (buffer probe, GDB runner) and on the model
# (region probe, the plugin), figures side by side.

_BOARD_TIMING = ("core", "clock_hz", "flash_ws", "sram_ws", "prefetch", "accel", "div")


def model_config(board: BuildConfig) -> BuildConfig:
    """The model side of a board configuration: the board itself when QEMU models it (an
    emulator target standing in for a board through its gdbstub), else its
    ``[board] model_target`` with the board's core, clock and flash settings."""
    target = board.target_info()
    if not target.is_board:
        return BuildConfig(target=board.target, kernel=board.kernel, cflags=board.cflags,
                           defines=board.defines, kernel_options=board.kernel_options,
                           timing=board.timing, probe="region", catalog=board.catalog)
    model = target.spec.board.model_target if target.spec.board else ""
    if not model:
        raise RtoslabError(f"target {target.name} names no [board] model_target: add the emulator "
                           "target whose QEMU machine runs its model side (docs/boards.md)")
    board.catalog.get_target(model)
    settings = board.timing_settings()
    timing = tuple(sorted((k, v) for k, v in settings.items() if k in _BOARD_TIMING))
    return BuildConfig(target=model, kernel=board.kernel, cflags=board.cflags,
                       defines=board.defines, kernel_options=board.kernel_options,
                       timing=timing, probe="region", catalog=board.catalog)


@dataclass(frozen=True)
class BoardRow:
    """One metric measured on the board and on the model (median cycles)."""

    benchmark: str
    metric: str
    board_cycles: float | None
    model_cycles: float | None
    note: str = ""  # why a side has no figure

    @property
    def error(self) -> float | None:
        """(model - board) / board: the model's error against the chip."""
        if self.board_cycles is None or self.model_cycles is None or self.board_cycles == 0:
            return None
        return (self.model_cycles - self.board_cycles) / self.board_cycles


def _medians(results: list[BenchResult]) -> tuple[dict[tuple[str, str], float], dict[str, str]]:
    out: dict[tuple[str, str], float] = {}
    why: dict[str, str] = {}
    for r in results:
        if r.status != "ok":
            why[r.benchmark] = r.reason or r.status
            continue
        for m in r.metrics:
            s = m.summaries.get(Unit.CYCLE)
            if s is not None:
                out[(r.benchmark, m.name)] = float(s.median)
    return out, why


def board_rows(board: list[BenchResult], model: list[BenchResult]) -> list[BoardRow]:
    """Every metric either side measured, in the board run's order."""
    b, bwhy = _medians(board)
    m, mwhy = _medians(model)
    keys = list(dict.fromkeys([*b, *m]))
    rows = [BoardRow(bench, metric, b.get((bench, metric)), m.get((bench, metric)))
            for bench, metric in keys]
    for name in dict.fromkeys([*bwhy, *mwhy]):
        if not any(r.benchmark == name for r in rows):
            note = f"board: {bwhy[name]}" if name in bwhy else f"model: {mwhy[name]}"
            rows.append(BoardRow(name, "", None, None, note))
    return rows


def board_table(rows: list[BoardRow], board: str, clock_hz: int) -> str:
    """The plain-text table: board cycles, model cycles, error per metric."""
    head = f"{'benchmark':<22} {'metric':<26} {'board':>12} {'model':>12} {'error':>8}"
    lines = [f"{board} at {clock_hz / 1e6:g} MHz: median cycles per metric (probe cost "
             "subtracted on both sides); error = (model - board) / board", "", head,
             "-" * len(head)]
    for r in rows:
        if r.note:
            lines.append(f"{r.benchmark:<22} {r.note}")
            continue
        bc = "-" if r.board_cycles is None else f"{r.board_cycles:,.1f}"
        mc = "-" if r.model_cycles is None else f"{r.model_cycles:,.1f}"
        err = "-" if r.error is None else f"{r.error:+.1%}"
        lines.append(f"{r.benchmark:<22} {r.metric:<26} {bc:>12} {mc:>12} {err:>8}")
    return "\n".join(lines) + "\n"
