"""Experiment files (TOML): a matrix over configurations and benchmarks.

    name = "opt-sweep"                       # required, [a-z0-9_-]+
    description = "..."
    # kernel_source = "../FreeRTOS-Kernel"   # optional: kernels that take a source tree
                                             # (port.toml [kernel_source]) build from it
    suite = "kernel"                         # and/or
    benchmarks = ["k_yield", "k_sem"]

    [matrix]                                 # every key optional; lists are axes
    target = ["mps2-an385"]
    kernel = ["freertos", "baremetal"]
    opt = ["-O0", "-O2", "-O3", "-Ofast", "-Os"]
    lto = [false, true]
    cflags = ["", "-fno-inline"]             # extra flags, one variant per string (no -D:
                                             # macros are defines)
    [matrix.defines]                         # preprocessor NAME=VALUE (part of the image)
    TOGGLE_TASKS = [1, 2, 3]
    [matrix.kernel_options]                  # only for kernels that have the option
    configUSE_PORT_OPTIMISED_TASK_SELECTION = [0, 1]
    [matrix.timing]                          # timing-model settings (`rtoslab list` shows
    clock_hz = [25000000, 72000000]          # them; [matrix.model] is the old spelling)

    [[exclude]]                              # drop matching points (all keys must match;
    kernel = "baremetal"                     # values must be values of the matrix, and a
    lto = true                               # rule may name only axes of the matrix)
    kernel_options.configUSE_PORT_OPTIMISED_TASK_SELECTION = 0  # sub-axes: dotted keys
                                             # (also defines.X, timing.X)
    [[exclude]]                              # with `benchmark`: drop only that benchmark
    benchmark = "k_yield"                    # from the matching points
    kernel = "baremetal"

    [[baseline]]                             # named baselines for ratio columns
    name = "O2"
    opt = "-O2"
    lto = false

    [report]                                 # optional: layout of the tables printed
    rows = "metric"                          # after the run: "benchmark" (default: rows
                                             # are benchmark/metric) or "metric" (rows are
                                             # metric names, the benchmark is a column axis,
                                             # so builds of one workload that report the
                                             # same metrics sit side by side; a baseline
                                             # may then name `benchmark`)
    names = { "defines.TOGGLE_TASKS" = "N" } # short axis names in labels ("" = value only)

    [[report.table]]                         # the experiment's question, printed and
    title = "yield vs N"                     # shown first (report/pivot.py): dimensions
    rows = ["defines.TOGGLE_TASKS",          # are the matrix's axes, "benchmark" and
            "kernel_options.configUSE_PORT_OPTIMISED_TASK_SELECTION"]
    columns = ["kernel", "lto"]              # "metric"; every dimension that varies
    metrics = ["yield_switch"]               # must be placed (or fixed with `where`):
                                             # checked before anything runs, with the
                                             # metrics each benchmark's sources declare
                                             # (rtoslab.bench_metrics), where's and
                                             # ratio's values
    unit = "cycle"                           # cycle (the default: modelled time) | us |
                                             # ms (us / 1000, shown to the us) | insn
                                             # (rates: insn/op | cycle/op | op/s) | byte
                                             # (a size table: metrics are the image's
                                             # flash, ram, kernel_flash, kernel_ram)
    stat = "median"                          # median | mean | mode | min | max | p90 | p99
                                             # | stdev (sample standard deviation); or
                                             # several: stats = ["mean", "stdev"], and then
                                             # "stat" is a dimension that rows or columns
                                             # place (seed 001's table: rows = ["stat"],
                                             # columns = ["metric"])
    where = { opt = "-O2", cflags = "", "timing.clock_hz" = 25000000 }  # keep only these
    ratio = ["kernel", "freertos", "baremetal"]  # optional: cells are over / under on AXIS
                                             # (an axis the under configuration lacks,
                                             # e.g. the other kernel's option, matches any
                                             # value: examples/smp.toml)
    chart = "auto"                           # HTML: auto | line (against a numeric row
                                             # axis) | bars (grouped) | none

Loading parses the file with ``rtoslab.schema`` (unknown keys and wrong types are errors),
then checks the values (known targets, kernels, options, benchmarks, suites, timing
settings against the plugin's description); every error is one line naming the file, the
key and what is allowed, and nothing is built or stored for a bad file.
``check_timing`` then has the plugin check each point's full timing settings together.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from rtoslab.bench_metrics import DeclaredMetrics, declared_metrics
from rtoslab.builder.config import BuildConfig, check_cflags, check_define, with_kernel_source
from rtoslab.catalog import Benchmark, Catalog, define_na_reason, na_reason
from rtoslab.records import RtoslabError, Unit
from rtoslab.report.pivot import (
    FOOTPRINT_METRICS,
    FOOTPRINT_UNIT,
    PIVOT_STATS,
    SCALED_UNITS,
    PivotSpec,
    value_texts,
)
from rtoslab.report.spec import ReportSpec
from rtoslab.schema import load_toml, parse
from rtoslab.timing import check_overrides, check_resolved, plugin_args

OPT_LEVELS = ("-O0", "-O1", "-O2", "-O3", "-Os", "-Ofast", "-Og", "-Oz")
POINT_KEYS = ("target", "kernel", "opt", "lto", "cflags")
SUB_AXES = ("defines", "kernel_options", "timing")  # tables of named axes: "defines.X", ...
_NAME = re.compile(r"[a-z0-9_-]+")

Value = str | int | bool


# --------------------------------------------------------------------------- the schema
@dataclass(frozen=True)
class MatrixTable:
    """[matrix]: every key optional; a single value stands for a one-value axis."""

    target: tuple[str, ...] = ("mps2-an385",)
    kernel: tuple[str, ...] = ("baremetal",)
    opt: tuple[str, ...] = ("-O2",)
    lto: tuple[bool, ...] = (False,)
    cflags: tuple[str, ...] = ("",)
    defines: dict[str, tuple[str | int, ...]] = field(default_factory=dict)
    kernel_options: dict[str, tuple[Value, ...]] = field(default_factory=dict)
    timing: dict[str, tuple[str | int, ...]] = field(default_factory=dict)
    model: dict[str, tuple[str | int, ...]] = field(default_factory=dict)  # old spelling of timing


@dataclass(frozen=True)
class Selector:
    """[[exclude]]: axis values that must all match (``benchmark``: drop only it)."""

    target: str | None = None
    kernel: str | None = None
    opt: str | None = None
    lto: bool | None = None
    cflags: str | None = None
    benchmark: str | None = None
    defines: dict[str, str | int] = field(default_factory=dict)
    kernel_options: dict[str, Value] = field(default_factory=dict)
    timing: dict[str, str | int] = field(default_factory=dict)
    model: dict[str, str | int] = field(default_factory=dict)  # old spelling of timing


@dataclass(frozen=True, kw_only=True)
class BaselineTable(Selector):
    """[[baseline]]: a name for the ratio column and the axis values of the baseline."""

    name: str


@dataclass(frozen=True)
class PivotTableFile:
    """[[report.table]]: a pivot that answers the experiment's question (report/pivot.py)."""

    title: str
    rows: tuple[str, ...] = ()
    columns: tuple[str, ...] = ()
    metrics: tuple[str, ...] = ()
    # modelled time by default (issue 28: time first; instructions where asked)
    unit: Literal["insn", "cycle", "us", "ms", "insn/op", "cycle/op", "op/s", "byte"] = "cycle"
    stat: Literal["median", "mean", "mode", "min", "max", "p90", "p99", "stdev"] = "median"
    # several statistics: "stat" becomes a dimension (rows or columns must place it)
    stats: tuple[Literal["median", "mean", "mode", "min", "max", "p90", "p99", "stdev"], ...] = ()
    where: dict[str, str | int | bool] = field(default_factory=dict)
    ratio: tuple[str, ...] = ()  # [axis, over, under]
    chart: Literal["auto", "line", "bars", "none"] = "auto"


@dataclass(frozen=True)
class ReportTable:
    rows: Literal["benchmark", "metric"] = "benchmark"
    names: dict[str, str] = field(default_factory=dict)  # short names of axes in labels
    table: tuple[PivotTableFile, ...] = ()


@dataclass(frozen=True)
class ExperimentFile:
    name: str
    description: str = ""
    suite: tuple[str, ...] = ()
    benchmarks: tuple[str, ...] = ()
    matrix: MatrixTable = MatrixTable()
    exclude: tuple[Selector, ...] = ()
    baseline: tuple[BaselineTable, ...] = ()
    report: ReportTable = ReportTable()
    # Folders outside the checkout to search (relative to the experiment file's folder):
    # benchmark, kernel port and target folders, or folders of them (rtoslab.catalog).
    bench_paths: tuple[str, ...] = ()
    port_paths: tuple[str, ...] = ()
    target_paths: tuple[str, ...] = ()
    # A kernel source tree (relative to the experiment file's folder) for the kernels whose
    # port takes one (port.toml [kernel_source]; `--kernel-source` overrides it).
    kernel_source: str = ""


# --------------------------------------------------------------------------- the result
@dataclass(frozen=True)
class Point:
    """One configuration of the matrix, with the axis values that made it."""

    axes: tuple[tuple[str, object], ...]  # ("kernel", "freertos"), ("opt", "-O2"), ...
    config: BuildConfig

    def axis(self, key: str) -> object:
        return dict(self.axes).get(key)

    @property
    def label(self) -> str:
        return self.config.describe()


@dataclass(frozen=True)
class Baseline:
    name: str
    match: tuple[tuple[str, object], ...]  # axis keys as compare.axes_of names them


@dataclass(frozen=True)
class Experiment:
    name: str
    description: str
    path: Path
    benchmarks: tuple[Benchmark, ...]
    points: tuple[Point, ...]
    baselines: tuple[Baseline, ...]
    rows: str = "benchmark"  # table layout: "benchmark" or "metric" ([report] rows)
    # per point (same order as points): benchmarks that [[exclude]] rules with a
    # `benchmark` key drop from it
    dropped: tuple[frozenset[str], ...] = ()
    tables: tuple[PivotSpec, ...] = ()  # [[report.table]]: the question's tables, first
    names: tuple[tuple[str, str], ...] = ()  # [report.names]: short names of axes
    # The catalog the file was checked against: the caller's with the file's *_paths (each
    # point's configuration carries the same one).
    catalog: Catalog = field(kw_only=True, compare=False, repr=False)

    def benchmarks_of(self, index: int) -> list[Benchmark]:
        """The benchmarks that run on points[index]."""
        drop = self.dropped[index] if self.dropped else frozenset()
        return [b for b in self.benchmarks if b.name not in drop]

    def plan(self) -> list[tuple[BuildConfig, list[Benchmark]]]:
        out = []
        for i, p in enumerate(self.points):
            benches = self.benchmarks_of(i)
            if benches:
                out.append((p.config, benches))
        return out

    def run_count(self) -> int:
        return sum(len(b) for _, b in self.plan())

    def with_kernel_source(self, folder: Path | str, where: str = "--kernel-source") -> Experiment:
        """The experiment with every kernel that takes a source tree built from ``folder``
        (the others as they were); refused when no kernel of the matrix takes one."""
        if not any(p.config.kernel_info().source is not None for p in self.points):
            raise RtoslabError(f"{where}: no kernel of the experiment {self.name} "
                               f"({', '.join(sorted({p.config.kernel for p in self.points}))}) takes a "
                               "kernel source tree (port.toml [kernel_source])")
        points = tuple(replace(p, config=with_kernel_source(p.config, folder, given=False, where=where))
                       for p in self.points)
        return replace(self, points=points)

    def report_spec(self) -> ReportSpec:
        """What the reports need of the file, stored with the run (rtoslab.report.spec)."""
        return ReportSpec(name=self.name, rows=self.rows,
                          baselines=tuple((b.name, b.match) for b in self.baselines),
                          tables=self.tables, names=self.names, question=self.description)


# --------------------------------------------------------------------------- loading
class _Checker:
    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, key: str, problem: str) -> RtoslabError:
        return RtoslabError(f"{self.path}: key '{key}' {problem}")

    def one_of(self, key: str, values: tuple[str, ...], allowed: list[str]) -> None:
        if not values:
            raise self.fail(key, "is empty: give at least one value")
        for v in values:
            if v not in allowed:
                raise self.fail(key, f"is {v!r}: choose from {', '.join(allowed)}")


def load_experiment(path: Path, catalog: Catalog) -> Experiment:
    """Read and check an experiment file against ``catalog`` and the file's own *_paths."""
    if not path.is_file():
        raise RtoslabError(f"{path}: no such experiment file")
    return parse_experiment(load_toml(path), path, catalog)


_AXIS_KEYS = ("target", "kernel", "opt", "lto", "cflags")


def _add_paths(c: _Checker, f: ExperimentFile, path: Path, catalog: Catalog) -> Catalog:
    """``catalog`` with the experiment's bench_paths / port_paths / target_paths searched too."""
    found: dict[str, list[Path]] = {}
    for key in ("bench_paths", "port_paths", "target_paths"):
        found[key] = []
        for i, text in enumerate(getattr(f, key)):
            folder = (path.parent / text).resolve()
            if not folder.is_dir():
                raise c.fail(f"{key}[{i}]", f"is {text!r}, which is not a folder (from {path.parent})")
            found[key].append(folder)
    return catalog.with_paths(found["bench_paths"], found["port_paths"], found["target_paths"])


def _as_lists(data: dict[str, object]) -> dict[str, object]:
    """A single value stands for a one-value list (suite, benchmarks, matrix axes)."""
    out = dict(data)
    for key in ("suite", "benchmarks"):
        if key in out and not isinstance(out[key], list):
            out[key] = [out[key]]
    matrix = out.get("matrix")
    if isinstance(matrix, Mapping):
        m = dict(matrix)
        for key in _AXIS_KEYS:
            if key in m and not isinstance(m[key], list):
                m[key] = [m[key]]
        for key in (*SUB_AXES, "model"):
            if isinstance(m.get(key), Mapping):
                m[key] = {k: v if isinstance(v, list) else [v] for k, v in m[key].items()}
        out["matrix"] = m
    return out


def parse_experiment(data: dict[str, object], path: Path, catalog: Catalog) -> Experiment:
    """An experiment file's parsed TOML, checked against ``catalog`` and the file's own
    *_paths (``path``: the file, for messages and relative paths)."""
    f = parse(ExperimentFile, _as_lists(data), str(path))
    c = _Checker(path)
    catalog = _add_paths(c, f, path, catalog)
    if not _NAME.fullmatch(f.name):
        raise c.fail("name", f"is {f.name!r}: use letters a-z, digits, '_' and '-' only")
    benches = _benchmarks(c, f, catalog)
    m = f.matrix
    if m.model and m.timing:
        raise c.fail("matrix.model", "is the old spelling of [matrix.timing]: give one of them")
    timing_key = "matrix.model" if m.model else "matrix.timing"
    timing = m.model or m.timing

    c.one_of("matrix.target", m.target, sorted(catalog.targets))
    c.one_of("matrix.kernel", m.kernel, sorted(k for k, v in catalog.kernels.items() if not v.is_template))
    c.one_of("matrix.opt", m.opt, list(OPT_LEVELS))
    for key, seq in (("matrix.lto", m.lto), ("matrix.cflags", m.cflags)):
        if not seq:
            raise c.fail(key, "is empty: give at least one value")
    for flags in m.cflags:
        try:
            check_cflags(tuple(flags.split()))
        except RtoslabError as e:
            raise c.fail("matrix.cflags", str(e)) from e
    for table, key in ((m.defines, "matrix.defines"), (m.kernel_options, "matrix.kernel_options"),
                       (timing, timing_key)):
        for name, values in table.items():
            if not values:
                raise c.fail(f"{key}.{name}", "is empty: give at least one value")
    for name, values in m.defines.items():
        for v in values:
            try:
                check_define(name, v)
            except RtoslabError as e:
                raise c.fail(f"matrix.defines.{name}", str(e)) from e
    for name in m.kernel_options:
        if not any(name in catalog.kernels[k].options for k in m.kernel):
            raise c.fail(f"matrix.kernel_options.{name}",
                         f"is an option of no kernel in matrix.kernel ({', '.join(m.kernel)})")
    for name, values in timing.items():
        for v in values:
            try:
                check_overrides([(name, v)])
            except RtoslabError as e:
                raise c.fail(f"{timing_key}.{name}", str(e)) from e

    axes: dict[str, tuple[object, ...]] = {
        "target": m.target, "kernel": m.kernel, "opt": m.opt, "lto": m.lto, "cflags": m.cflags,
        **{f"defines.{k}": v for k, v in m.defines.items()},
        **{f"kernel_options.{k}": v for k, v in m.kernel_options.items()},
        **{f"timing.{k}": v for k, v in timing.items()},
    }
    rows = f.report.rows
    bench_names = {b.name for b in benches}
    excludes = [_selector(c, f"exclude[{i}]", ex, axes, bench_names) for i, ex in enumerate(f.exclude)]
    baselines = tuple(_baseline(c, i, b, axes, rows, bench_names) for i, b in enumerate(f.baseline))

    points: list[Point] = []
    dropped: list[frozenset[str]] = []
    seen: set[str] = set()
    for combo in itertools.product(*axes.values()):
        point = dict(zip(axes, combo, strict=True))
        hits = [_matches(point, {k: v for k, v in ex.items() if k != "benchmark"}) for ex in excludes]
        if any(h and "benchmark" not in ex for h, ex in zip(hits, excludes, strict=True)):
            continue
        drop = frozenset(str(ex["benchmark"]) for h, ex in zip(hits, excludes, strict=True)
                         if h and "benchmark" in ex)
        if drop >= bench_names:
            continue  # every benchmark excluded here: the point is dropped
        config = _config(point, catalog)
        try:
            config.validate()
            key = config.measure_key()
        except RtoslabError as e:  # e.g. a kernel option with a value the port refuses
            raise c.fail("matrix", str(e)) from e
        if key in seen:  # the same configuration twice (a sub-axis this kernel lacks)
            continue
        seen.add(key)
        points.append(Point(config.axes, config))
        dropped.append(drop)
    if not points:
        raise c.fail("exclude", "leaves the matrix empty: nothing to run")
    for b in baselines:
        match = {k: v for k, v in b.match if k != "benchmark"}
        bench = dict(b.match).get("benchmark")
        if not any(all(p.axis(k) == v for k, v in match.items()) and (bench is None or bench not in d)
                   for p, d in zip(points, dropped, strict=True)):
            raise c.fail(f"baseline[{baselines.index(b)}]",
                         f"('{b.name}') matches no configuration of the matrix")
    names = dict(f.report.names)
    dims = ["benchmark", "metric", *axes, "stat"]
    for key in names:
        if key not in dims:
            raise c.fail(f"report.names.{key}", f"is not an axis: use one of {', '.join(dims)}")
    tables = tuple(_pivot_table(c, i, t, dims, names) for i, t in enumerate(f.report.table))
    if tables:
        plan = _TablePlan(axes, points, dropped, benches)
        for i, spec in enumerate(tables):
            plan.check(c, f"report.table[{i}]", spec)
    exp = Experiment(f.name, f.description, path, tuple(benches), tuple(points), baselines, rows,
                     tuple(dropped), tables, tuple(sorted(names.items())), catalog=catalog)
    if f.kernel_source:
        try:
            exp = exp.with_kernel_source(path.parent / f.kernel_source, "kernel_source")
        except RtoslabError as e:
            raise c.fail("kernel_source", str(e).removeprefix("kernel_source: ")) from e
    return exp


def count_runs(path: Path, catalog: Catalog) -> int:
    """How many benchmark runs an experiment file's plan holds, counted from its axes and
    [[exclude]] rules without expanding the matrix (for the large-plan guard, which must
    answer at once for a plan of a million runs): per kernel and benchmark, the points of
    the matrix that no rule excluding them matches, by inclusion-exclusion over the rules.
    A kernel-option axis the kernel lacks counts once (the expansion keeps one such point),
    and a rule's condition on it is taken as not matching: the count is then an upper bound.
    The file is checked as ``load_experiment`` checks it, up to the expansion."""
    if not path.is_file():
        raise RtoslabError(f"{path}: no such experiment file")
    f = parse(ExperimentFile, _as_lists(load_toml(path)), str(path))
    c = _Checker(path)
    catalog = _add_paths(c, f, path, catalog)
    benches = _benchmarks(c, f, catalog)
    m = f.matrix
    timing = m.model or m.timing
    c.one_of("matrix.kernel", m.kernel, sorted(k for k, v in catalog.kernels.items() if not v.is_template))
    axes: dict[str, tuple[object, ...]] = {
        "target": m.target, "kernel": m.kernel, "opt": m.opt, "lto": m.lto, "cflags": m.cflags,
        **{f"defines.{k}": v for k, v in m.defines.items()},
        **{f"kernel_options.{k}": v for k, v in m.kernel_options.items()},
        **{f"timing.{k}": v for k, v in timing.items()},
    }
    names = {b.name for b in benches}
    excludes = [_selector(c, f"exclude[{i}]", ex, axes, names) for i, ex in enumerate(f.exclude)]
    total = 0
    for kernel in dict.fromkeys(m.kernel):
        known = catalog.kernels[kernel].options
        box: dict[str, tuple[object, ...] | None] = {  # None: an axis this kernel lacks (counts once)
            k: ((kernel,) if k == "kernel" else
                None if k.startswith("kernel_options.") and k.split(".", 1)[1] not in known
                else tuple(dict.fromkeys(v)))
            for k, v in axes.items()}
        for bench in dict.fromkeys(b.name for b in benches):
            rules = [{k: v for k, v in ex.items() if k != "benchmark"} for ex in excludes
                     if ex.get("benchmark", bench) == bench]
            total += _points_matching_none(box, rules)
    return total


def _points_matching_none(box: dict[str, tuple[object, ...] | None],
                          rules: list[dict[str, object]]) -> int:
    """Points of the product ``box`` that match none of ``rules`` (inclusion-exclusion:
    the points matching every rule of a subset form a smaller product)."""
    if len(rules) > 16:  # 2**16 subsets: beyond that, walk the product (still no configurations)
        keys = list(box)
        values = [v if v is not None else ("",) for v in box.values()]
        return sum(1 for combo in itertools.product(*values)
                   if not any(_matches_box(dict(zip(keys, combo, strict=True)), r, box) for r in rules))
    total = 0
    for size in range(len(rules) + 1):
        for subset in itertools.combinations(rules, size):
            count = 1
            for key, axis in box.items():
                wanted = {r[key] for r in subset if key in r}
                if axis is None:
                    count *= 0 if wanted else 1  # (a condition on a lacking axis: never matches)
                elif wanted:
                    count *= 1 if len(wanted) == 1 and next(iter(wanted)) in axis else 0
                else:
                    count *= len(axis)
                if count == 0:
                    break
            total += -count if size % 2 else count
    return total


def _matches_box(point: dict[str, object], rule: dict[str, object],
                 box: dict[str, tuple[object, ...] | None]) -> bool:
    return all(box.get(k) is not None and point.get(k) == v for k, v in rule.items())


def _pivot_table(c: _Checker, i: int, t: PivotTableFile, dims: list[str],
                 names: dict[str, str]) -> PivotSpec:
    where = f"report.table[{i}]"
    for key in ("rows", "columns"):
        for dim in getattr(t, key):
            if dim not in dims:
                raise c.fail(f"{where}.{key}", f"'{dim}' is not a dimension: use one of {', '.join(dims)}")
    for dim in t.where:
        if dim not in dims:
            raise c.fail(f"{where}.where.{dim}", f"is not a dimension: use one of {', '.join(dims)}")
    if len(t.stats) > 1 and "stat" not in (*t.rows, *t.columns):
        raise c.fail(f"{where}.stats", "names several statistics: place \"stat\" in rows or columns")
    if t.ratio and (len(t.ratio) != 3 or t.ratio[0] not in dims):
        raise c.fail(f"{where}.ratio", "must be [AXIS, OVER, UNDER], e.g. [\"benchmark\", \"ftl_os\", "
                     f"\"ftl_fsm\"], AXIS one of {', '.join(dims)}")
    return PivotSpec(title=t.title, rows=t.rows, columns=t.columns, metrics=t.metrics,
                     unit=t.unit if t.unit in (*SCALED_UNITS, FOOTPRINT_UNIT) else Unit(t.unit), stat=t.stat,
                     stats=tuple(t.stats), where=dict(t.where),
                     ratio=(t.ratio[0], t.ratio[1], t.ratio[2]) if t.ratio else None, names=names,
                     chart=t.chart)


class _TablePlan:
    """What the plan will store, as far as a report table needs it before anything runs:
    each point's axes, the benchmarks that run there (not n/a by their kernel, target,
    allocator or defines) and the metric names each declares (rtoslab.bench_metrics). A
    table's metrics, ``where`` and ``ratio`` values must be ones the plan has, and no two
    results may fall in one of its cells (a varying dimension left unplaced): each is one
    line before anything is built, where the run would have ended after storing
    everything, or printed an empty table."""

    def __init__(self, axes: dict[str, tuple[object, ...]], points: list[Point],
                 dropped: list[frozenset[str]], benches: list[Benchmark]) -> None:
        self.axes = axes
        self.declared = {b.name: declared_metrics(b) for b in benches}
        self.bench_names = [b.name for b in benches]
        self.records: list[tuple[dict[str, object], str]] = []  # (point axes, benchmark)
        for point, drop in zip(points, dropped, strict=True):
            config = point.config
            kernel, target, defines = config.kernel_info(), config.target_info(), config.define_map()
            for b in benches:
                if b.name in drop or na_reason(b, kernel, target) \
                        or config.catalog.alloc_na_reason(b, defines) or define_na_reason(b, defines):
                    continue
                self.records.append((dict(point.axes), b.name))

    def metrics(self, benches: list[str], sizes: bool = False) -> DeclaredMetrics:
        """The union of what ``benches`` declare (a size table: the footprint's metrics)."""
        found = [self.mine(b, sizes) for b in benches]
        return DeclaredMetrics(frozenset().union(*(d.names for d in found)),
                               any(d.open for d in found))

    def mine(self, bench: str, sizes: bool) -> DeclaredMetrics:
        """What one benchmark's results show in a table: its declared metrics, or in a
        size table (unit byte) its image's footprint metrics."""
        if sizes:
            return DeclaredMetrics(frozenset(FOOTPRINT_METRICS), sure=frozenset(FOOTPRINT_METRICS))
        return self.declared[bench]

    def values(self, dim: str, spec: PivotSpec) -> Sequence[object] | None:
        """The values ``dim`` takes in the plan (None: any, i.e. an open benchmark's metric)."""
        if dim == "benchmark":
            return list(self.bench_names)
        if dim == "stat":
            return list(spec.stats or (spec.stat,))
        if dim == "metric":
            found = self.metrics(self.bench_names, spec.unit == FOOTPRINT_UNIT)
            return None if found.open else sorted(found.names)
        return list(self.axes[dim])

    def check(self, c: _Checker, where: str, spec: PivotSpec) -> None:
        head = f"('{spec.title}')"
        sizes = spec.unit == FOOTPRINT_UNIT
        if sizes and spec.stats:
            raise c.fail(f"{where}.stats", f"{head} is a size table (unit byte): an image has one size, "
                         "no statistics: remove stats")
        for stat in spec.stats or (spec.stat,):
            if stat not in PIVOT_STATS:
                raise c.fail(f"{where}.stat", f"{head} is {stat!r}: use one of {', '.join(PIVOT_STATS)}")
        for dim, value in spec.where.items():
            allowed = self.values(dim, spec)
            if allowed is not None and not any(value == v and isinstance(value, bool) == isinstance(v, bool)
                                               for v in allowed):
                raise c.fail(f"{where}.where.{dim}", f"{head} is {value!r}: not a value of {dim} in this "
                             f"experiment ({_shown(allowed)}): the table would be empty")
        benches = [b for b in self.bench_names
                   if "benchmark" not in spec.where or spec.where["benchmark"] == b]
        declared = self.metrics(benches, sizes)
        for name in spec.metrics:
            if sizes and name not in FOOTPRINT_METRICS:
                raise c.fail(f"{where}.metrics", f"{head} is a size table (unit byte) and names {name!r}: "
                             f"use one of {', '.join(FOOTPRINT_METRICS)}")
            if not declared.may_have(name):
                raise c.fail(f"{where}.metrics", f"{head} names {name!r}, a metric no benchmark of the "
                             f"table declares: use one of {_shown(sorted(declared.names))}")
        if spec.ratio is not None:
            axis, over, under = spec.ratio
            allowed = self.values(axis, spec)
            for value in (over, under):
                if allowed is not None and not any(value in value_texts(v) for v in allowed):
                    raise c.fail(f"{where}.ratio", f"{head} divides by {axis} = {value!r}, which is not a "
                                 f"value of {axis} in this experiment ({_shown(allowed)})")
        self._check_cells(c, where, head, spec)

    def _check_cells(self, c: _Checker, where: str, head: str, spec: PivotSpec) -> None:
        """No two results of the plan in one cell (as report.pivot.build_pivot places them;
        "metric" is always placed). Two results of one benchmark collide when their points
        agree on every placed axis; two benchmarks' results only when both declare a metric
        the table shows (an open benchmark counts with the names it surely has)."""
        ratio_axis = spec.ratio[0] if spec.ratio else None
        placed = [d for d in (*spec.rows, *spec.columns) if d not in ("metric", "stat", ratio_axis)]
        cells: dict[tuple[object, ...], list[tuple[dict[str, object], str]]] = {}
        for axes, bench in self.records:
            dims: dict[str, object] = {**axes, "benchmark": bench}
            if any(dims.get(k) != v for k, v in spec.where.items() if k not in ("metric", "stat")):
                continue
            mine = self.mine(bench, spec.unit == FOOTPRINT_UNIT)
            shown = set(spec.metrics) if spec.metrics else set(mine.names)
            if "metric" in spec.where:
                shown &= {str(spec.where["metric"])}
            if not mine.open and not shown & mine.names:
                continue  # no result of it in this table
            side = ""
            if spec.ratio is not None:
                _, over, under = spec.ratio
                texts = value_texts(dims.get(spec.ratio[0]))
                if over not in texts and under not in texts:
                    continue
                side = "over" if over in texts else "under"
            key = (side, *(repr(dims.get(d)) for d in placed))
            for other_axes, other in cells.get(key, []):
                # (one benchmark at two points: the same metrics, unless the table shows
                # only names it may not declare; two benchmarks: a name both surely do)
                if other == bench and spec.metrics and not shown & mine.sure:
                    continue
                theirs = self.mine(other, spec.unit == FOOTPRINT_UNIT)
                if other != bench and not shown & mine.sure & theirs.sure:
                    continue
                differ = [k for k in dict.fromkeys([*axes, *other_axes])
                          if axes.get(k) != other_axes.get(k) and k not in placed]
                if other != bench:
                    differ.insert(0, "benchmark")
                label = _point_label(axes, differ, bench)
                other_label = _point_label(other_axes, differ, other)
                raise c.fail(where, f"{head} leaves {' and '.join(differ)} unplaced: {other_label} and "
                             f"{label} would fall in one cell: place {' or '.join(differ)} in rows or "
                             "columns, or fix it with where")
            cells.setdefault(key, []).append((axes, bench))


def _point_label(axes: dict[str, object], keys: list[str], bench: str) -> str:
    parts = [f"{k}={axes.get(k)!r}" if axes.get(k) == "" else f"{k}={axes.get(k)}"
             for k in keys if k != "benchmark"]
    return bench + (f" at {', '.join(parts)}" if parts else "")


def _shown(values: Sequence[object]) -> str:
    text = ", ".join(str(v) for v in values[:12])
    return text + (f", ... ({len(values)} in all)" if len(values) > 12 else "") if values else "none"


def check_timing(exp: Experiment) -> None:
    """Have the plugin check the full timing settings of every point that overrides a
    plugin setting (cross-setting rules, e.g. flash_ws needs a flash region). One line
    naming the file; run before anything is built or stored."""
    done: set[str] = set()
    for p in exp.points:
        if not plugin_args(dict(p.config.timing)):
            continue
        settings = p.config.timing_settings()
        key = repr(sorted(settings.items()))
        if key in done:
            continue
        done.add(key)
        try:
            check_resolved(settings)
        except RtoslabError as e:
            raise RtoslabError(f"{exp.path}: key 'matrix.timing' {e}") from e


def _config(point: dict[str, object], catalog: Catalog) -> BuildConfig:
    """The build configuration of one matrix point (its axes: those that apply to it)."""
    kernel = str(point["kernel"])
    known = catalog.kernels[kernel].options

    def sub(prefix: str) -> tuple[tuple[str, object], ...]:
        return tuple(sorted((k.split(".", 1)[1], v) for k, v in point.items()
                            if k.startswith(prefix + ".")))

    k_over = tuple((k, v) for k, v in sub("kernel_options") if k in known)
    axes = tuple((k, v) for k, v in point.items()
                 if not k.startswith("kernel_options.") or k.split(".", 1)[1] in known)
    extra = str(point["cflags"]).split()
    flags = [str(point["opt"])] + (["-flto"] if point["lto"] else []) + extra
    label = " ".join([str(point["opt"])] + (["lto"] if point["lto"] else []) + extra
                     + [f"{k}={v}" for k, v in sub("defines")])
    return BuildConfig(target=str(point["target"]), kernel=kernel, kernel_options=k_over,
                       cflags=tuple(flags), defines=sub("defines"), timing=sub("timing"),
                       label=label, axes=axes, catalog=catalog)


def _benchmarks(c: _Checker, f: ExperimentFile, catalog: Catalog) -> list[Benchmark]:
    out: list[Benchmark] = []
    found = catalog.benchmarks
    if f.suite:
        suites = catalog.suites()
        c.one_of("suite", f.suite, sorted(suites))
        for s in f.suite:
            out.extend(found[n] for n in sorted(suites[s]))
    if f.benchmarks:
        c.one_of("benchmarks", f.benchmarks, sorted(found))
        out.extend(found[n] for n in f.benchmarks)
    if not out:
        raise c.fail("suite", "is missing: give `suite` or `benchmarks`: the experiment has nothing to run")
    unique: dict[str, Benchmark] = {b.name: b for b in out}
    return list(unique.values())


def _selector(c: _Checker, where: str, sel: Selector, axes: dict[str, tuple[object, ...]],
              bench_names: set[str]) -> dict[str, object]:
    """A selector as axis key -> value; each value must be one the matrix can take."""
    if sel.model and sel.timing:
        raise c.fail(f"{where}.model", "is the old spelling of timing: give one of them")
    flat: dict[str, object] = {k: getattr(sel, k) for k in POINT_KEYS if getattr(sel, k) is not None}
    for table in SUB_AXES:
        values = getattr(sel, table) or (sel.model if table == "timing" else {})
        flat.update({f"{table}.{k}": v for k, v in values.items()})
    for key, value in flat.items():
        if key not in axes:
            raise c.fail(f"{where}.{key}", f"is not an axis of the matrix: the axes are {', '.join(axes)}")
        if value not in axes[key] or isinstance(value, bool) != isinstance(axes[key][0], bool):
            shown = ", ".join(str(v) for v in axes[key])
            raise c.fail(f"{where}.{key}", f"is {value!r}: not a value of matrix.{key} ({shown})")
    if sel.benchmark is not None:
        if sel.benchmark not in bench_names:
            raise c.fail(f"{where}.benchmark", f"is {sel.benchmark!r}: not one of the experiment's "
                         f"benchmarks ({', '.join(sorted(bench_names))})")
        flat["benchmark"] = sel.benchmark
    return flat


def _matches(point: dict[str, object], rule: dict[str, object]) -> bool:
    return all(point.get(k) == v for k, v in rule.items())


def _baseline(c: _Checker, i: int, table: BaselineTable, axes: dict[str, tuple[object, ...]],
              rows: str, bench_names: set[str]) -> Baseline:
    if not table.name:
        raise c.fail(f"baseline[{i}].name", "is empty: name the ratio column")
    if table.benchmark is not None and rows != "metric":
        raise c.fail(f"baseline[{i}].benchmark",
                     'is an axis only with [report] rows = "metric"')
    match = _selector(c, f"baseline[{i}]", table, axes, bench_names)
    return Baseline(table.name, tuple(sorted(match.items())))
