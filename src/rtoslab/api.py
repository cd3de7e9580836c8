"""The Python API: run a plan and read results, the way the CLI does (the CLI is built on
these functions). Everything here is re-exported by ``import rtoslab``::

    import rtoslab

    outcome = rtoslab.run(benchmarks=["call"], kernel="baremetal", db="results.sqlite")
    with rtoslab.open_results("results.sqlite") as res:
        view = res.run("latest")                   # a rtoslab.views.RunView
        for row in res.records("latest"):          # one dict per metric and unit
            print(row["benchmark"], row["metric"], row["unit"], row["median"])
        df = res.to_dataframe("latest")            # needs the extra: rtoslab[pandas]

Your own benchmark, port and target folders: ``rtoslab.search`` makes the catalog of
them (a ``rtoslab.catalog.Catalog``; ``run`` makes its own from its arguments), and
``select``, ``configuration`` and ``experiment`` take it as ``catalog=`` (default: the
checkout's folders alone). A configuration carries its catalog down to the build and run;
nothing is kept between calls, so catalogs of different folders can be used side by side.

Errors are ``rtoslab.RtoslabError`` with a one-line message saying what to do.
"""

from __future__ import annotations

import contextlib
import shlex
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from rtoslab.builder.config import DEFAULT_TARGET, BuildConfig, check_cflags, with_kernel_source
from rtoslab.catalog import Benchmark, Catalog
from rtoslab.experiments.experiment import Experiment, check_timing, load_experiment
from rtoslab.pipeline import Progress, execute, preflight
from rtoslab.project import nearest_project
from rtoslab.records import BenchResult, RtoslabError, Sample
from rtoslab.report.comparison.table import axes_of
from rtoslab.report.rows import run_rows
from rtoslab.report.spec import ReportSpec
from rtoslab.report.spec import to_json as spec_json
from rtoslab.runners.base import Runner
from rtoslab.runners.gdb import GdbRunner
from rtoslab.runners.qemu import QemuRunner
from rtoslab.store.db import Store, default_db_path, open_store
from rtoslab.timing import check_resolved, plugin_args
from rtoslab.tools import check_one_clock, host_name, rtoslab_revision, tool_versions
from rtoslab.views import ResultView, RunInfo, RunView

if TYPE_CHECKING:
    from rtoslab.cluster import ClusterSession

DEFAULT_SUITE = "smoke"
DEFAULT_KERNEL = "baremetal"

Plan = list[tuple[BuildConfig, list[Benchmark]]]


@dataclass(frozen=True)
class RunOutcome:
    """What ``run`` / ``execute_plan`` did: the stored run's id, its final status
    ("complete", or "failed" when a benchmark failed) and the results in plan order."""

    run_id: int
    status: str
    results: tuple[BenchResult, ...]
    db: Path


def search(bench_paths: Iterable[str | Path] = (), port_paths: Iterable[str | Path] = (),
           target_paths: Iterable[str | Path] = (), project_from: str | Path | None = None) -> Catalog:
    """The catalog of the checkout's folders and your own benchmarks, ports and targets
    (each path: one such folder or a folder of them), with ``project_from`` also the
    folders of the rtoslab.toml found there or above (first). Pass it on as ``catalog=``."""
    catalog = Catalog()
    project = nearest_project(Path(project_from)) if project_from is not None else None
    if project is not None:
        catalog = project.catalog(catalog)
    return catalog.with_paths([Path(p) for p in bench_paths], [Path(p) for p in port_paths],
                              [Path(p) for p in target_paths])


def _catalog(catalog: Catalog | None) -> Catalog:
    """The catalog given, else one of the checkout's folders alone."""
    return catalog if catalog is not None else Catalog()


def select(benchmarks: Sequence[str] = (), suite: str | None = None, *,
           catalog: Catalog | None = None) -> list[Benchmark]:
    """The suite's benchmarks, then each named benchmark not already among them (in the
    order given); neither: the default suite. ``catalog``: where they are looked up."""
    found = _catalog(catalog)
    chosen = found.suite_benchmarks(suite) if suite else []
    if not benchmarks and not chosen:
        chosen = found.suite_benchmarks(DEFAULT_SUITE)
    names = {b.name for b in chosen}
    for name in benchmarks:
        if name not in names:
            chosen.append(found.get_benchmark(name))
            names.add(name)
    return chosen


def configuration(target: str = DEFAULT_TARGET, kernel: str = DEFAULT_KERNEL,
                  cflags: str | Sequence[str] = "-O2", options: Mapping[str, object] | None = None,
                  defines: Mapping[str, object] | None = None,
                  timing: Mapping[str, object] | None = None,
                  kernel_source: str | Path | None = None, probe: str = "", *,
                  catalog: Catalog | None = None) -> BuildConfig:
    """One checked configuration (its axes: what is given). ``probe``: the probe mode
    ("" = the target's; "region" or "buffer", lab/probe.h); ``catalog``: where the target
    and kernel are looked up (the configuration carries it). Raises one line for an
    unknown target or kernel, a bad option, define, compiler flag or timing setting, or a
    ``kernel_source`` tree the kernel's port does not take (docs/ci.md)."""
    found = _catalog(catalog)
    found.get_target(target)
    found.get_kernel(kernel)
    flags = tuple(shlex.split(cflags)) if isinstance(cflags, str) else tuple(cflags)
    try:
        check_cflags(flags)
    except RtoslabError as e:
        raise RtoslabError(f"--cflags {e}") from e
    config = BuildConfig(target=target, kernel=kernel,
                         kernel_options=tuple(sorted((options or {}).items())),
                         cflags=flags, defines=tuple(sorted((defines or {}).items())),
                         timing=tuple(sorted((timing or {}).items())), probe=probe, catalog=found)
    if probe:
        config = replace(config, axes=tuple({**config.axis_values(), "probe": probe}.items()))
    config.validate()
    if plugin_args(dict(config.timing)):
        check_resolved(config.timing_settings())  # the plugin's cross-setting rules
    return with_kernel_source(config, kernel_source, given=True)


def gdb_runner(server: str, reset: str | None = None) -> GdbRunner:
    """A runner for buffer-mode images through the GDB server at ``server`` (HOST:PORT):
    checked for reachability, and asked whether it is QEMU's gdbstub (then results say
    ``measured_on = "emulator:qemu X"``, else ``hardware:<target>``; docs/boards.md)."""
    runner = GdbRunner(server, reset)
    runner.preflight()
    return runner


def experiment(path: str | Path, *, catalog: Catalog | None = None) -> Experiment:
    """Load and check an experiment file; its *_paths are searched besides ``catalog``'s
    folders (the experiment's own catalog: ``Experiment.catalog``)."""
    exp = load_experiment(Path(path), _catalog(catalog))
    check_timing(exp)
    return exp


def check_machine(plan: Plan, runner: QemuRunner | None = None) -> None:
    """What running ``plan`` needs of this machine (the patched QEMU for the one clock,
    the emulator, plugin, build tools and a writable build cache): one line with the fix,
    before a run record exists."""
    if any(config.timing_settings().get("time") == "one-clock" for config, _ in plan):
        check_one_clock()
    preflight(runner if runner is not None else QemuRunner())


def check_irq_windows(plan: Plan, wanted: bool,
                      fix: str = "give every configuration a core (timing core=...)") -> None:
    """Masked-interrupt windows (``irq_windows``, ``run --irq-windows``) come from the
    timing model's cycles and exception events: a configuration without one (timing
    core=none) is refused in one line ending with ``fix``, before anything is written."""
    if not wanted:
        return
    for config, _ in plan:
        if str(config.timing_settings().get("core", "none")) == "none":
            raise RtoslabError(f"--irq-windows needs a timing model: {fix}")


def execute_plan(store: Store, plan: Plan, command: str, experiment: str | None = None, jobs: int = 1,
                 on_progress: Callable[[Progress], None] | None = None,
                 on_start: Callable[[int], None] | None = None, irq_windows: bool = False,
                 report_spec: ReportSpec | None = None, shard: tuple[int, int] | None = None,
                 offsets: Sequence[int] | None = None, cluster: ClusterSession | None = None,
                 runner: Runner | None = None) -> RunOutcome:
    """Execute a plan inside a new run record of ``store`` (``on_start`` gets its id);
    ``irq_windows``: also track masked interrupt windows (docs/irq-windows.md);
    ``report_spec``: the experiment's, stored with the run (``show`` reports with it);
    ``runner``: who runs the images (default: QEMU with the plugin; ``gdb_runner``: a GDB
    server, docs/boards.md). ``shard`` (I, N) with ``offsets``: the plan is shard I of N
    of a whole plan (``rtoslab.plan.shard_of``); ``cluster``: run the configurations as
    tasks on this Ray cluster (``rtoslab.cluster.connect``; the emulator only).

    What is wrong with the plan or the machine (irq_windows without a timing model, a
    missing tool) is refused before the run record exists. Any exception after it (Ctrl-C,
    a failed write) marks the run incomplete, keeping every result stored before it, and
    is raised again."""
    if cluster is not None and runner is not None:
        raise RtoslabError("--cluster runs the images on the cluster's emulators: drop --runner gdb "
                           "(a board is measured from one machine)")
    check_irq_windows(plan, irq_windows)  # before the run record
    if runner is None:
        runner = QemuRunner()
        check_machine(plan, runner)
    else:  # the GDB runner: no emulator needed here (docs/boards.md)
        preflight(runner)
    session = cluster
    run_id = store.begin_run(command, rtoslab_revision(), host_name(), tool_versions(), experiment,
                             spec_json(report_spec) if report_spec is not None else None,
                             shard=None if shard is None else f"{shard[0]}/{shard[1]}")
    if on_start is not None:
        on_start(run_id)
    try:
        if session is not None:
            results = session.execute(store, run_id, plan, on_progress, irq_windows=irq_windows,
                                      offsets=offsets)
        else:
            results = execute(store, run_id, plan, runner, on_progress, jobs=jobs,
                              irq_windows=irq_windows, offsets=offsets)
    except BaseException:
        with contextlib.suppress(RtoslabError):  # else it reads as incomplete once we are gone
            store.finish_run(run_id, "incomplete")
        raise
    finally:
        if session is not None:
            session.close()
    status = "failed" if any(r.status == "failed" for r in results) else "complete"
    store.finish_run(run_id, status)
    return RunOutcome(run_id, status, tuple(results), store.path)


def run(benchmarks: Sequence[str] = (), *, suite: str | None = None, target: str | None = None,
        kernel: str | None = None, cflags: str | Sequence[str] | None = None,
        options: Mapping[str, object] | None = None, defines: Mapping[str, object] | None = None,
        timing: Mapping[str, object] | None = None, experiment_file: str | Path | None = None,
        db: str | Path | None = None, jobs: int = 1, bench_paths: Iterable[str | Path] = (),
        port_paths: Iterable[str | Path] = (), target_paths: Iterable[str | Path] = (),
        project_from: str | Path | None = ".",
        on_progress: Callable[[Progress], None] | None = None,
        kernel_source: str | Path | None = None) -> RunOutcome:
    """Build, run, analyse and store benchmarks on one configuration (or an experiment
    file's matrix), as ``rtoslab run`` does; returns the stored run's id and results.

    ``target``, ``kernel``, ``cflags``: default mps2-an385, baremetal, -O2 (an experiment
    file sets its own: then none of them, as of benchmarks/suite/options/defines/timing).
    ``db``: the results database (default: $RTOSLAB_DB or ./rtoslab-results/results.sqlite).
    ``project_from``: where to look for rtoslab.toml (None: do not).
    ``kernel_source``: a kernel source tree (``--kernel-source``) for the kernels that take one.
    """
    catalog = search(bench_paths, port_paths, target_paths, project_from)
    spec: ReportSpec | None = None
    if experiment_file is not None:
        if benchmarks or suite or options or defines or timing or target is not None \
                or kernel is not None or cflags is not None:
            raise RtoslabError("an experiment file sets its own benchmarks, configurations and options: "
                               "pass none of benchmarks/suite/target/kernel/cflags/options/defines/timing "
                               "with it (edit the file instead)")
        exp = experiment(experiment_file, catalog=catalog)
        if kernel_source is not None:
            exp = exp.with_kernel_source(kernel_source)
        plan: Plan = exp.plan()
        spec = exp.report_spec()
        command = f"rtoslab.run(experiment_file={str(experiment_file)!r})"
    else:
        chosen = select(benchmarks, suite, catalog=catalog)
        plan = [(configuration(target or DEFAULT_TARGET, kernel or DEFAULT_KERNEL,
                               cflags if cflags is not None else "-O2", options, defines, timing,
                               kernel_source, catalog=catalog), chosen)]
        command = f"rtoslab.run({', '.join(b.name for b in chosen)})"
    with open_store(Path(db) if db is not None else default_db_path()) as store:
        return execute_plan(store, plan, command,
                            str(experiment_file) if experiment_file is not None else None, jobs,
                            on_progress, report_spec=spec)


def resolve_run(store: Store, ref: int | str) -> int:
    """A run reference: an id, ``"latest"`` (the most recently started run) or
    ``"latest~N"`` (N runs before it: ``latest~1`` is the one before the latest)."""
    if isinstance(ref, int):
        return ref
    word = ref.strip()
    if word == "latest" or word.startswith("latest~"):
        back_text = "0" if word == "latest" else word.removeprefix("latest~")
        if not (back_text.isascii() and back_text.isdigit()):  # ("latest~" alone is no N)
            raise RtoslabError(f"bad run '{ref}': write latest or latest~N with N a whole number")
        back = int(back_text)
        runs = store.list_runs(limit=back + 1)
        if not runs:
            raise RtoslabError(f"no runs in {store.path}: `rtoslab run` makes one")
        if back >= len(runs):
            raise RtoslabError(f"run '{ref}': {store.path} holds only {len(runs)} run(s)")
        return runs[back].id
    try:
        return int(word)
    except ValueError:
        raise RtoslabError(f"bad run id '{ref}': give a number, 'latest' or 'latest~N' "
                           "(`rtoslab runs` lists them)") from None


# Columns of ``Results.records`` (and of the DataFrame), in order.
RECORD_COLUMNS = ("run_id", "config", "target", "kernel", "benchmark", "status", "reason", "metric",
                  "unit", "time_base", "n", "min", "median", "mode", "mean", "stdev", "p90", "p99", "max")
SAMPLE_RECORD_COLUMNS = ("run_id", "config", "benchmark", "metric", "seq", "insns", "cycles")
_EXTRA_HINT = "install the extra: pip install 'rtoslab[pandas]' (pandas and pyarrow)"


class Results:
    """A results database opened for reading (``open_results``). Use as a context manager
    or call ``close()``. Runs are named by id, ``"latest"`` or ``"latest~N"``."""

    def __init__(self, store: Store) -> None:
        self._store = store

    @property
    def path(self) -> Path:
        return self._store.path

    def close(self) -> None:
        self._store.close()

    def __enter__(self) -> Results:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def runs(self, limit: int = 20) -> list[RunInfo]:
        """The newest ``limit`` runs, newest first."""
        return self._store.list_runs(limit)

    def run(self, ref: int | str = "latest") -> RunView:
        """One run with all its results (summaries; raw samples: ``samples``)."""
        return self._store.load_run(resolve_run(self._store, ref))

    def results(self, ref: int | str = "latest") -> tuple[ResultView, ...]:
        """The benchmark results of a run, in the order they were stored."""
        return self.run(ref).results

    def samples(self, ref: int | str = "latest") -> dict[int, tuple[Sample, ...]]:
        """Raw samples of every metric of a run: metric id -> samples in measurement order."""
        view = self.run(ref)
        return self._store.load_run_samples(view)

    def console(self, ref: int | str, benchmark: str) -> list[str]:
        """The stored console output of ``benchmark`` in a run, one per configuration."""
        view = self.run(ref)
        found = [r.console for r in view.results if r.benchmark == benchmark]
        if not found:
            raise RtoslabError(f"run {view.id} has no benchmark '{benchmark}'")
        return found

    def records(self, ref: int | str = "latest") -> list[dict[str, Any]]:
        """One dict per benchmark, metric and unit (keys ``RECORD_COLUMNS``, then ``axes``:
        the configuration's axis values); a failed or n/a benchmark is one dict with
        metric, unit and statistics None and its reason."""
        view = self.run(ref)
        out = []
        for row in run_rows(view):
            s = row.summary
            out.append({
                "run_id": view.id, "config": row.config.hash, "target": row.config.target,
                "kernel": row.config.kernel, "benchmark": row.benchmark, "status": row.status,
                "reason": row.reason, "metric": row.metric,
                "unit": None if row.unit is None else str(row.unit),
                "time_base": None if row.time_base is None else str(row.time_base),
                "n": None if s is None else s.n, "min": None if s is None else s.min,
                "median": None if s is None else s.median, "mode": None if s is None else s.mode,
                "mean": None if s is None else s.mean, "stdev": None if s is None else s.stdev,
                "p90": None if s is None else s.p90, "p99": None if s is None else s.p99,
                "max": None if s is None else s.max,
                "axes": axes_of(row.config),
            })
        return out

    def sample_records(self, ref: int | str = "latest") -> list[dict[str, Any]]:
        """One dict per raw sample (keys ``SAMPLE_RECORD_COLUMNS``)."""
        view = self.run(ref)
        samples = self._store.load_run_samples(view)
        return [{"run_id": view.id, "config": r.config.hash, "benchmark": r.benchmark,
                 "metric": m.name, "seq": i, "insns": s.insns, "cycles": s.cycles}
                for r in view.results for m in r.metrics for i, s in enumerate(samples.get(m.id, ()))]

    def to_dataframe(self, ref: int | str = "latest", *, samples: bool = False) -> Any:
        """``records`` (or with ``samples=True`` ``sample_records``) as a pandas DataFrame.
        Needs the optional extra ``rtoslab[pandas]``."""
        pandas = _pandas()
        if samples:
            return pandas.DataFrame(self.sample_records(ref), columns=list(SAMPLE_RECORD_COLUMNS))
        records = self.records(ref)
        # the configuration's axes as columns of their own (``opt``, ``defines.LAB_ALLOC``,
        # ``timing.time``, ...), after RECORD_COLUMNS, in the order they first appear
        axis_names = list(dict.fromkeys(k for r in records for k in r["axes"]))
        rows = [{**{k: v for k, v in r.items() if k != "axes"},
                 **{f"axis:{k}": r["axes"].get(k) for k in axis_names}} for r in records]
        return pandas.DataFrame(rows, columns=[*RECORD_COLUMNS, *(f"axis:{k}" for k in axis_names)])

    def to_parquet(self, ref: int | str, path: str | Path, *, samples: bool = False) -> Path:
        """Write ``to_dataframe`` to a Parquet file (needs ``rtoslab[pandas]``)."""
        frame = self.to_dataframe(ref, samples=samples)
        _require("pyarrow")
        out = Path(path)
        frame.to_parquet(out, index=False)
        return out


def open_results(db: str | Path | None = None) -> Results:
    """Open a results database for reading (default: $RTOSLAB_DB or
    ./rtoslab-results/results.sqlite); it must exist."""
    return Results(open_store(Path(db) if db is not None else default_db_path(), read_only=True))


def _require(module: str) -> Any:
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise RtoslabError(f"{module} is not installed: {_EXTRA_HINT}") from None


def _pandas() -> Any:
    return _require("pandas")
