"""Experiment files (TOML): a matrix over configurations and benchmarks.

    name = "opt-sweep"                       # required, [a-z0-9_-]+
    description = "..."
    suite = "kernel"                         # and/or
    benchmarks = ["k_yield", "k_sem"]

    [matrix]                                 # every key optional; lists are axes
    target = ["mps2-an385"]
    kernel = ["freertos", "baremetal"]
    opt = ["-O0", "-O2", "-O3", "-Ofast", "-Os"]
    lto = [false, true]
    cflags = ["", "-fno-inline"]             # extra flags, one variant per string
    [matrix.kernel_options]                  # only for kernels that have the option
    configUSE_PORT_OPTIMISED_TASK_SELECTION = [0, 1]
    [matrix.model]                           # timing-model settings (plugin arguments)
    clock_hz = [25000000, 72000000]

    [[exclude]]                              # drop matching points (all keys must match)
    kernel = "baremetal"
    lto = true
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

Loading checks everything against this schema; every error names the file, the key and
what is allowed, and nothing is built or stored for a bad file.
"""

from __future__ import annotations

import itertools
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from rtoslab.builder.config import MODEL_KEYS, BuildConfig
from rtoslab.catalog import Benchmark, benchmarks, kernels, suites, targets
from rtoslab.records import RtoslabError

TOP_KEYS = {"name", "description", "suite", "benchmarks", "matrix", "exclude", "baseline", "report"}
REPORT_KEYS = {"rows"}
ROW_LAYOUTS = ("benchmark", "metric")
MATRIX_KEYS = {"target", "kernel", "opt", "lto", "cflags", "kernel_options", "model"}
OPT_LEVELS = {"-O0", "-O1", "-O2", "-O3", "-Os", "-Ofast", "-Og", "-Oz"}
POINT_KEYS = {"target", "kernel", "opt", "lto", "cflags"}
_NAME = re.compile(r"[a-z0-9_-]+")


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
    match: tuple[tuple[str, object], ...]


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


class _Checker:
    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, key: str, problem: str) -> RtoslabError:
        return RtoslabError(f"{self.path}: {key}: {problem}")

    def str_list(self, key: str, value: object, allowed: set[str] | None = None) -> list[str]:
        items = value if isinstance(value, list) else [value]
        if not items:
            raise self.fail(key, "is empty: give at least one value")
        out = []
        for v in items:
            if not isinstance(v, str):
                raise self.fail(key, f"{v!r} is not a string")
            if allowed is not None and v not in allowed:
                raise self.fail(key, f"'{v}' is not allowed: choose from {', '.join(sorted(allowed))}")
            out.append(v)
        return out

    def scalar_list(self, key: str, value: object) -> list[object]:
        items = value if isinstance(value, list) else [value]
        if not items:
            raise self.fail(key, "is empty: give at least one value")
        for v in items:
            if not isinstance(v, (str, int, bool)):
                raise self.fail(key, f"{v!r} must be a string, integer or boolean")
        return list(items)


def load_experiment(path: Path) -> Experiment:
    if not path.is_file():
        raise RtoslabError(f"{path}: no such experiment file")
    try:
        data = tomllib.loads(path.read_text())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise RtoslabError(f"{path}: not valid TOML: {e}") from e
    return parse_experiment(data, path)


def parse_experiment(data: dict[str, object], path: Path) -> Experiment:
    c = _Checker(path)
    unknown = set(data) - TOP_KEYS
    if unknown:
        raise c.fail(sorted(unknown)[0], f"unknown key: allowed keys are {', '.join(sorted(TOP_KEYS))}")
    name = data.get("name")
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise c.fail("name", "required, letters a-z, digits, '_' and '-' only")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise c.fail("description", "must be a string")

    benches = _benchmarks(c, data)
    matrix = data.get("matrix", {})
    if not isinstance(matrix, dict):
        raise c.fail("matrix", "must be a table")
    bad = set(matrix) - MATRIX_KEYS
    if bad:
        allowed = ", ".join(sorted(MATRIX_KEYS))
        raise c.fail(f"matrix.{sorted(bad)[0]}", f"unknown axis: allowed are {allowed}")

    axes: dict[str, list[object]] = {
        "target": list(c.str_list("matrix.target", matrix.get("target", ["mps2-an385"]), set(targets()))),
        "kernel": list(c.str_list("matrix.kernel", matrix.get("kernel", ["baremetal"]),
                                  {k for k, v in kernels().items() if not v.is_template})),
        "opt": list(c.str_list("matrix.opt", matrix.get("opt", ["-O2"]), OPT_LEVELS)),
        "lto": list(c.scalar_list("matrix.lto", matrix.get("lto", [False]))),
        "cflags": list(c.str_list("matrix.cflags", matrix.get("cflags", [""]))),
    }
    for v in axes["lto"]:
        if not isinstance(v, bool):
            raise c.fail("matrix.lto", f"{v!r} must be true or false")
    kopts = _sub_axes(c, matrix, "kernel_options")
    model = _sub_axes(c, matrix, "model")
    for key in model:
        if key not in MODEL_KEYS:
            allowed = ", ".join(sorted(MODEL_KEYS))
            raise c.fail(f"matrix.model.{key}", f"unknown setting: allowed are {allowed}")
    for key in kopts:
        if not any(key in kernels()[k].options for k in axes["kernel"]):  # type: ignore[index]
            listed = ", ".join(map(str, axes["kernel"]))
            raise c.fail(f"matrix.kernel_options.{key}",
                         f"no kernel in matrix.kernel has this option ({listed})")

    rows = _report_rows(c, data)
    bench_names = {b.name for b in benches}
    excludes = _tables(c, data, "exclude")
    for i, ex in enumerate(excludes):
        if "benchmark" in ex and ex["benchmark"] not in bench_names:
            raise c.fail(f"exclude[{i}].benchmark", f"{ex['benchmark']!r} is not one of the experiment's "
                         f"benchmarks ({', '.join(sorted(bench_names))})")
    point_excludes = [ex for ex in excludes if "benchmark" not in ex]
    bench_excludes = [ex for ex in excludes if "benchmark" in ex]
    baselines = tuple(_baseline(c, i, t, rows, bench_names)
                      for i, t in enumerate(_tables(c, data, "baseline")))

    names = list(axes) + [f"kernel_options.{k}" for k in kopts] + [f"model.{k}" for k in model]
    values = list(axes.values()) + list(kopts.values()) + list(model.values())
    points: list[Point] = []
    dropped: list[frozenset[str]] = []
    seen: set[str] = set()
    for combo in itertools.product(*values):
        point = dict(zip(names, combo, strict=True))
        if any(_matches(point, ex) for ex in point_excludes):
            continue
        drop = frozenset(str(ex["benchmark"]) for ex in bench_excludes
                         if _matches(point, {k: v for k, v in ex.items() if k != "benchmark"}))
        if drop >= bench_names:
            continue  # every benchmark excluded here: the point is dropped
        config = _config(point)
        try:
            h = config.hash()
        except RtoslabError as e:  # a bad kernel option or model value: name the file
            raise c.fail("matrix", str(e)) from e
        if h in seen:  # e.g. a kernel option that this kernel does not have
            continue
        seen.add(h)
        points.append(Point(tuple(point.items()), config))
        dropped.append(drop)
    if not points:
        raise c.fail("exclude", "the matrix is empty after exclusions: nothing to run")
    for b in baselines:
        match = {k: v for k, v in b.match if k != "benchmark"}
        bench = dict(b.match).get("benchmark")
        if not any(all(p.axis(k) == v for k, v in match.items()) and (bench is None or bench not in d)
                   for p, d in zip(points, dropped, strict=True)):
            raise c.fail(f"baseline '{b.name}'", "matches no configuration of the matrix")
    return Experiment(name, description, path, tuple(benches), tuple(points), baselines, rows,
                      tuple(dropped))


def _report_rows(c: _Checker, data: dict[str, object]) -> str:
    report = data.get("report", {})
    if not isinstance(report, dict):
        raise c.fail("report", "must be a table ([report])")
    bad = set(report) - REPORT_KEYS
    if bad:
        raise c.fail(f"report.{sorted(bad)[0]}",
                     f"unknown key: allowed keys are {', '.join(sorted(REPORT_KEYS))}")
    rows = report.get("rows", "benchmark")
    if rows not in ROW_LAYOUTS:
        raise c.fail("report.rows", f"{rows!r} is not allowed: choose from {', '.join(ROW_LAYOUTS)}")
    return str(rows)


def _config(point: dict[str, object]) -> BuildConfig:
    """The build configuration of one matrix point."""
    kernel = str(point["kernel"])
    known = kernels()[kernel].options
    k_over = tuple(sorted((k.split(".", 1)[1], v) for k, v in point.items()
                          if k.startswith("kernel_options.") and k.split(".", 1)[1] in known))
    m_over = tuple(sorted((k.split(".", 1)[1], v) for k, v in point.items() if k.startswith("model.")))
    extra = str(point["cflags"]).split()
    flags = [str(point["opt"])] + (["-flto"] if point["lto"] else []) + extra
    label = " ".join([str(point["opt"])] + (["lto"] if point["lto"] else []) + extra)
    return BuildConfig(target=str(point["target"]), kernel=kernel, kernel_options=k_over,
                       cflags=tuple(flags), model=m_over, label=label)


def _benchmarks(c: _Checker, data: dict[str, object]) -> list[Benchmark]:
    out: list[Benchmark] = []
    if "suite" in data:
        for s in c.str_list("suite", data["suite"], set(suites())):
            out.extend(benchmarks()[n] for n in sorted(suites()[s]))
    if "benchmarks" in data:
        for n in c.str_list("benchmarks", data["benchmarks"], set(benchmarks())):
            out.append(benchmarks()[n])
    if not out:
        raise c.fail("suite", "give `suite` or `benchmarks`: the experiment has nothing to run")
    unique: dict[str, Benchmark] = {b.name: b for b in out}
    return list(unique.values())


def _sub_axes(c: _Checker, matrix: dict[str, object], key: str) -> dict[str, list[object]]:
    table = matrix.get(key, {})
    if not isinstance(table, dict):
        raise c.fail(f"matrix.{key}", "must be a table")
    return {k: c.scalar_list(f"matrix.{key}.{k}", v) for k, v in table.items()}


def _tables(c: _Checker, data: dict[str, object], key: str) -> list[dict[str, object]]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(t, dict) for t in value):
        raise c.fail(key, f"must be an array of tables ([[{key}]])")
    return value  # type: ignore[return-value]


def _point_key_ok(key: str) -> bool:
    return key in POINT_KEYS or key.startswith(("kernel_options.", "model."))


def _matches(point: dict[str, object], rule: dict[str, object]) -> bool:
    return all(point.get(k) == v for k, v in rule.items())


def _baseline(c: _Checker, i: int, table: dict[str, object], rows: str, bench_names: set[str]) -> Baseline:
    name = table.get("name")
    if not isinstance(name, str) or not name:
        raise c.fail(f"baseline[{i}].name", "required: a name for the ratio column")
    match = {k: v for k, v in table.items() if k != "name"}
    for k in match:
        if k == "benchmark":
            if rows != "metric":
                raise c.fail(f"baseline[{i}].benchmark",
                             'the benchmark is an axis only with [report] rows = "metric"')
            if match[k] not in bench_names:
                raise c.fail(f"baseline[{i}].benchmark", f"{match[k]!r} is not one of the experiment's "
                             f"benchmarks ({', '.join(sorted(bench_names))})")
            continue
        if not _point_key_ok(k):
            raise c.fail(f"baseline[{i}].{k}", f"unknown axis: allowed are {', '.join(sorted(POINT_KEYS))}, "
                         "kernel_options.X, model.X")
    return Baseline(name, tuple(sorted(match.items())))
