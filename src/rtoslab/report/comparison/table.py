"""Comparison tables: benchmarks x configurations, with ratio columns (seed 000's layout).

Pure functions over stored views. A *column* is one configuration of one run; a *row*
(``ComparisonRow``) is a (benchmark, metric) pair, or only the metric when rows="metric"
(to set different
benchmarks that report the same metrics side by side, e.g. an OS and an FSM build of the
same firmware). A *baseline* names axis values: each column's baseline column is the one
equal to it on every other axis and equal to the baseline on the named axes; the ratio is
column / baseline (so with times, a ratio above 1 means the baseline is faster). When a
baseline names the kernel, kernel options are not compared: they belong to one kernel
(e.g. FreeRTOS columns against a bare-metal baseline).
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from rtoslab.records import SAMPLE_UNITS, RtoslabError, TimeBase, Unit
from rtoslab.views import ConfigView, ResultView

STATS = ("median", "mean", "mode", "min", "max", "p90", "p99")
ROW_LAYOUTS = ("benchmark", "metric")
# How text formats show the metric cell of a problem row.
PROBLEM_CELL = "*"


def axes_of(config: ConfigView, benchmark: str | None = None) -> dict[str, object]:
    """The axis values of a stored configuration, as an experiment file names them.

    Identities store the axes as the experiment (or the run command line) expanded them
    (``identity["axes"]``); runs stored before that have their flags parsed instead. Every
    resolved kernel option and timing setting is an axis too, so configurations compare
    equal only when all of them agree (the time mode included: docs/timing-model.md, "One
    clock").
    """
    stored = config.identity.get("axes")
    axes: dict[str, object] = {"target": config.target, "kernel": config.kernel}
    if isinstance(stored, dict):  # stored with sorted keys: put them in axis order again
        axes.update({k: stored[k] for k in ("opt", "lto", "cflags") if k in stored})
        axes.update({k: v for k, v in sorted(stored.items()) if k.startswith("defines.")})
    else:  # stored before identities held their axes
        flags = shlex.split(config.cflags)
        opt = next((f for f in flags if f.startswith("-O")), "")
        defines = [f[2:] for f in flags if f.startswith("-D")]
        axes["opt"] = opt
        axes["lto"] = "-flto" in flags
        axes["cflags"] = " ".join(f for f in flags if f not in (opt, "-flto") and not f.startswith("-D"))
        for d in defines:
            name, _, text = d.partition("=")
            axes[f"defines.{name}"] = int(text) if text.lstrip("-").isdigit() else text
    for key, value in sorted(config.kernel_config.items()):
        axes[f"kernel_options.{key}"] = value
    for key, value in sorted(config.timing.items()):
        axes[f"timing.{key}"] = value
    if "time" not in config.timing:
        # Stored before the one clock: QEMU's instruction clock paced it. So a comparison
        # with a one-clock run never matches the two silently: the ratio names the change.
        axes["timing.time"] = "instruction"
    if benchmark is not None:
        axes["benchmark"] = benchmark
    return axes


@dataclass(frozen=True)
class ComparisonRow:
    """One row of a comparison table.

    ``benchmark``: set when rows are per benchmark metric, None when rows are metrics only.
    ``metric``: the metric name; None on a problem row.
    ``problem``: the row stands for results that failed or are n/a (whole benchmarks, no
    metric); its cells carry notes, never values.
    """

    benchmark: str | None
    metric: str | None
    problem: bool = False

    @staticmethod
    def problems(benchmark: str | None) -> ComparisonRow:
        return ComparisonRow(benchmark, None, problem=True)

    def cells(self) -> tuple[str, ...]:
        """The row's label cells in text formats: (benchmark, metric) or (metric,); a
        problem row shows PROBLEM_CELL as its metric."""
        metric = PROBLEM_CELL if self.problem or self.metric is None else self.metric
        return (metric,) if self.benchmark is None else (self.benchmark, metric)


@dataclass(frozen=True)
class CellNote:
    """Why a cell has no value: the result's status (failed, n/a) and its reason."""

    status: str
    reason: str | None


CellKey = tuple[ComparisonRow, tuple[int, int, str]]
# (name, axis values) pairs: each names a baseline for ratio columns.
Baselines = Sequence[tuple[str, dict[str, object]]]


@dataclass(frozen=True)
class Column:
    key: tuple[int, int, str]  # (run id, config id, benchmark or "") — unique
    run_id: int
    config: ConfigView
    benchmark: str | None  # set when rows are metrics only
    axes: dict[str, object]
    label: str = ""


@dataclass(frozen=True)
class RatioColumn:
    baseline: str  # baseline name
    column: Column
    base: Column


@dataclass(frozen=True)
class ComparisonTable:
    stat: str
    unit: Unit
    layout: str  # one of ROW_LAYOUTS
    rows: tuple[ComparisonRow, ...]
    columns: tuple[Column, ...]
    values: dict[CellKey, float]
    ratios: tuple[RatioColumn, ...]
    notes: dict[CellKey, CellNote]  # cells of failed / n/a results

    def value(self, row: ComparisonRow, col: Column) -> float | None:
        return self.values.get((row, col.key))

    def note(self, row: ComparisonRow, col: Column) -> CellNote | None:
        """Why a cell has no value: its own note, or its benchmark's problem row's."""
        note = self.notes.get((row, col.key))
        if note is None and not row.problem:
            note = self.notes.get((ComparisonRow.problems(row.benchmark), col.key))
        return note

    def ratio(self, row: ComparisonRow, rc: RatioColumn) -> float | None:
        a, b = self.value(row, rc.column), self.value(row, rc.base)
        if a is None or b is None or b == 0:
            return None
        return a / b


def _labels(columns: list[Column]) -> list[Column]:
    """Label each column with the axis values that differ between columns (an axis that
    only some columns have, e.g. a kernel option, when it differs between those, and is
    named on those only)."""
    every = list(dict.fromkeys(k for c in columns for k in c.axes))
    if "benchmark" in every:  # rows = "metric": the benchmark names the column first
        every.remove("benchmark")
        every.insert(0, "benchmark")
    keys = [k for k in every if len({repr(c.axes[k]) for c in columns if k in c.axes}) > 1
            or (k in ("kernel", "benchmark") and len({repr(c.axes.get(k)) for c in columns}) > 1)]
    runs = {c.run_id for c in columns}
    out = []
    for c in columns:
        parts = []
        for k in keys:
            if k not in c.axes:
                continue
            v = c.axes.get(k)
            if k == "lto":
                parts.append("lto" if v else "no-lto")
            elif k in ("opt", "kernel", "target", "benchmark", "cflags"):
                parts.append(str(v) if v != "" else "-")
            else:
                parts.append(f"{k.split('.', 1)[-1]}={v}")
        if len(runs) > 1:
            parts.insert(0, f"run {c.run_id}")
        label = " ".join(parts) or c.config.hash
        out.append(Column(c.key, c.run_id, c.config, c.benchmark, c.axes, label))
    return out


def build_table(results: Sequence[tuple[int, ResultView]], *, stat: str = "median", unit: Unit = Unit.INSN,
                rows: str = "benchmark", baselines: Baselines = ()
                ) -> ComparisonTable:
    """Pivot stored results into a comparison table. ``results``: (run id, result) pairs."""
    if stat not in STATS:
        raise RtoslabError(f"unknown statistic '{stat}': choose one of {', '.join(STATS)}")

    def extract(r: ResultView) -> list[tuple[str, float]]:
        out = []
        for m in r.metrics:
            summary = m.summaries.get(unit)
            if summary is None and (m.time_base in (TimeBase.VIRTUAL, TimeBase.DERIVED, TimeBase.PACED)
                                    or unit not in SAMPLE_UNITS):
                # its time base has no such unit, or the unit is one only derived metrics
                # have (cycle/op, ...; docs/formats.md, "Time bases"; a paced metric may be
                # a derived one, marked paced on instruction time)
                continue
            if summary is None:
                units = ", ".join(m.summaries) or "none"
                raise RtoslabError(f"unit '{unit}' not measured for {r.benchmark}/{m.name} "
                                   f"(has: {units}): choose --unit from those")
            out.append((m.name, float(getattr(summary, stat))))
        return out

    return _pivot(results, stat, unit, rows, baselines, extract)


def build_footprint_table(results: Sequence[tuple[int, ResultView]], *, rows: str = "benchmark",
                          baselines: Baselines = ()) -> ComparisonTable:
    """Flash and RAM totals of every image (rows "flash", "ram"), same layout and ratios."""

    def extract(r: ResultView) -> list[tuple[str, float]]:
        fp = r.footprint
        if fp is None:
            return []
        return [("flash", float(fp.flash_total)), ("ram", float(fp.ram_total))]

    return _pivot(results, "size", Unit.BYTES, rows, baselines, extract, include_failed=True)


def _pivot(results: Sequence[tuple[int, ResultView]], stat: str, unit: Unit, rows: str,
           baselines: Baselines,
           extract: Callable[[ResultView], list[tuple[str, float]]],
           include_failed: bool = False) -> ComparisonTable:
    if rows not in ROW_LAYOUTS:
        raise RtoslabError(f"unknown row layout '{rows}': choose benchmark or metric")
    if not results:
        raise RtoslabError("nothing to compare: the runs have no results")
    columns: dict[tuple[int, int, str], Column] = {}
    row_keys: list[ComparisonRow] = []
    values: dict[CellKey, float] = {}
    notes: dict[CellKey, CellNote] = {}
    for run_id, r in results:
        bench = r.benchmark if rows == "metric" else None
        key = (run_id, r.config.id, bench or "")
        if key not in columns:
            columns[key] = Column(key, run_id, r.config, bench, axes_of(r.config, bench))
        if r.status != "ok" and not (include_failed and r.status == "failed"):
            row = ComparisonRow.problems(r.benchmark if rows == "benchmark" else None)
            _add_row(row_keys, row, None)
            notes[(row, key)] = CellNote(r.status, r.reason)
            continue
        previous: ComparisonRow | None = None
        for name, v in extract(r):
            row = ComparisonRow(r.benchmark if rows == "benchmark" else None, name)
            _add_row(row_keys, row, previous)
            previous = row
            if math.isfinite(v):
                values[(row, key)] = v
    ordered = list(columns.values())
    if rows == "metric":
        # Each benchmark's columns together, benchmarks in order of first appearance.
        first = {b: i for i, b in reversed(list(enumerate(c.benchmark for c in ordered)))}
        ordered.sort(key=lambda c: first[c.benchmark])
    cols = _labels(ordered)
    ratio_cols: list[RatioColumn] = []
    for name, match in baselines:
        for c in cols:
            if all(c.axes.get(k) == v for k, v in match.items()):
                continue  # a baseline column itself
            want = _comparable({**c.axes, **match}, match)
            same = [b for b in cols if _comparable(b.axes, match) == want]
            base = next((b for b in same if b.run_id == c.run_id), same[0] if same else None)
            if base is not None:
                ratio_cols.append(RatioColumn(name, c, base))
    if baselines and not ratio_cols:
        have = "; ".join(f"{k} has {', '.join(sorted({str(c.axes.get(k)) for c in cols}))}"
                         for _, match in baselines for k in match)
        raise RtoslabError("no column has a baseline: the baseline's axis values match no "
                           f"configuration ({have})")
    return ComparisonTable(stat, unit, rows, tuple(row_keys), tuple(cols), values, tuple(ratio_cols), notes)


def _add_row(rows: list[ComparisonRow], row: ComparisonRow, previous: ComparisonRow | None) -> None:
    """Add a row not seen yet right after the row that precedes it in its result (so
    metrics that only later columns have, e.g. task 5's, join their siblings)."""
    if row in rows:
        return
    if previous is None or previous not in rows:
        rows.append(row)
    else:
        rows.insert(rows.index(previous) + 1, row)


def _comparable(axes: dict[str, object], match: dict[str, object]) -> dict[str, object]:
    """The axes that must be equal between a column and its baseline column: all, except
    kernel options when the baseline names a kernel (they belong to one kernel)."""
    if "kernel" not in match:
        return axes
    return {k: v for k, v in axes.items() if not k.startswith("kernel_options.")}


def is_regression(base: float, value: float, pct: float) -> bool:
    """The gate's rule (`compare --fail-above`, `rtoslab ci`): ``value`` is more than
    ``pct`` percent above ``base`` (from a base of 0, any growth is)."""
    if base == 0:
        return value > 0
    return value / base > 1.0 + pct / 100.0


def regressions(table: ComparisonTable, pct: float) -> list[str]:
    """Rows whose ratio exceeds 1 + pct/100 (for --fail-above): one line each."""
    out = []
    for rc in table.ratios:
        for row in table.rows:
            r = table.ratio(row, rc)
            base, value = table.value(row, rc.base), table.value(row, rc.column)
            if r is not None and base is not None and value is not None and \
                    is_regression(base, value, pct):
                out.append(f"{'/'.join(row.cells())}: {rc.column.label} is {r:.3f}x {rc.base.label} "
                           f"({table.stat} {table.unit}), above the {pct:g}% limit")
    return out


def compare_runs(a: Sequence[ResultView], b: Sequence[ResultView], run_a: int, run_b: int, *,
                 stat: str = "median", unit: Unit = Unit.INSN, rows: str = "benchmark") -> ComparisonTable:
    """Two runs side by side; ratio = run b / run a for each configuration they share."""
    table = build_table([(run_a, r) for r in a] + [(run_b, r) for r in b], stat=stat, unit=unit, rows=rows)
    ratios = []
    for c in table.columns:
        if c.run_id != run_b:
            continue
        base = next((x for x in table.columns if x.run_id == run_a and x.axes == c.axes), None)
        if base is not None:
            ratios.append(RatioColumn(f"run {run_b} / run {run_a}", c, base))
    if not ratios:
        # No configuration in common (before/after a kernel option, two cflags): each
        # column of run b against run a's column that differs from it on the fewest axes,
        # benchmark by benchmark; the ratio's name says which axes differ.
        olds = [x for x in table.columns if x.run_id == run_a]
        for c in table.columns:
            if c.run_id != run_b or not olds:
                continue
            base = min(olds, key=lambda x: len(_differing(x.axes, c.axes)))
            diff = _differing(base.axes, c.axes)
            said = ", ".join(f"{k.split('.', 1)[-1]} {base.axes.get(k, '-')} -> {c.axes.get(k, '-')}"
                             for k in diff)
            ratios.append(RatioColumn(f"run {run_b} / run {run_a}" + (f" ({said})" if said else ""),
                                      c, base))
    if not ratios:
        raise RtoslabError(f"runs {run_a} and {run_b} have no results to set side by side")
    return replace(table, ratios=tuple(ratios))


def _differing(a: dict[str, object], b: dict[str, object]) -> list[str]:
    """The axes whose values differ between two columns (one missing counts)."""
    return [k for k in dict.fromkeys([*a, *b]) if a.get(k) != b.get(k)]


def check_baseline_axes(columns: Sequence[Column], match: dict[str, object]) -> None:
    """An axis a baseline names must be an axis of the compared configurations."""
    known = list(dict.fromkeys(k for c in columns for k in c.axes))
    for key in match:
        if key not in known:
            raise RtoslabError(f"unknown axis '{key}' in --baseline: use one of {', '.join(known)}")


def with_first_baseline(table: ComparisonTable, name: str) -> ComparisonTable:
    """The table with one ratio column per column after the first, against the first."""
    first = table.columns[0]
    return replace(table, ratios=tuple(RatioColumn(name, c, first) for c in table.columns[1:]))
