"""rtoslab run: build, run, analyse, store and print a suite or a list of benchmarks."""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import signal
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.progress import Progress as RichProgress

from rtoslab import api
from rtoslab.builder.config import BuildConfig, with_kernel_source
from rtoslab.builder.sharing import images_dir
from rtoslab.catalog import Benchmark
from rtoslab.cli.common import (
    add_db_option,
    add_kernel_source_option,
    add_layout_options,
    add_path_options,
    kernel_source_of,
    open_db,
    positive_int,
    terminal_width,
    unit_arg,
    write_whole,
)
from rtoslab.cli.tables import markdown_report, print_run_text, report_spec_of
from rtoslab.experiments.experiment import Experiment, count_runs
from rtoslab.pipeline import Progress, config_na_reason
from rtoslab.plan import DEFAULT_BUILD_S, parse_shard, shard_of
from rtoslab.records import BenchResult, RtoslabError, WriteError
from rtoslab.report.base import get_renderer
from rtoslab.report.html import render_html
from rtoslab.report.labels import axes_label, varying_keys
from rtoslab.report.spec import ReportSpec
from rtoslab.report.text import terminal_safe
from rtoslab.store.db import Store
from rtoslab.trace.timeline import load_run_timelines

if TYPE_CHECKING:
    from rtoslab.cluster import ClusterSession

DEFAULT_SUITE = api.DEFAULT_SUITE
DEFAULT_CFLAGS = "-O2"
LARGE_PLAN_RUNS = 2000  # above this many benchmark runs, `run` asks for --yes first


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("run", help="build, run, analyse, store and print benchmarks")
    p.add_argument("experiment", nargs="?", type=Path, default=None,
                   help="an experiment file (TOML); without it, --suite/--bench on one configuration")
    add_selection_options(p)
    p.add_argument("--trace", action="store_true",
                   help="also run each benchmark with the timeline hook on (LAB_TRACE=1): "
                   "figures with and without it side by side, and a timeline in the HTML report "
                   "and `rtoslab export RUN --what trace` (docs/timeline.md)")
    p.add_argument("--json", action="store_true", help="print the rtoslab.run/1 JSON document")
    p.add_argument("--irq-windows", action="store_true",
                   help="also find every interval in which each interrupt priority level is "
                        "masked, with its source lines (docs/irq-windows.md)")
    p.add_argument("--runner", choices=("qemu", "gdb"), default=None,
                   help="qemu: the emulator with the timing plugin (default on emulator targets); "
                   "gdb: a board (or QEMU's gdbstub) through a GDB server (default on board "
                   "targets; docs/boards.md)")
    p.add_argument("--gdb-server", default=None, metavar="HOST:PORT",
                   help="the GDB server of --runner gdb (default: the board's, target.toml [board])")
    p.add_argument("--probe", choices=("region", "buffer"), default=None,
                   help="probe mode (default: the target's; --runner gdb needs buffer: lab/probe.h)")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="a line per benchmark result on stderr also on a terminal (without it, a "
                   "terminal shows one progress bar and a line per failure)")
    p.add_argument("--yes", action="store_true",
                   help=f"run a plan of more than {LARGE_PLAN_RUNS} benchmark runs without asking")
    p.add_argument("--shard", default=None, metavar="I/N",
                   help="run shard I of N of the plan (by configuration, the same split on every "
                   "machine) into this database; `rtoslab merge` joins the shards' databases")
    p.add_argument("--cluster", nargs="?", const="", default=None, metavar="ADDRESS",
                   help="run the configurations as tasks on a Ray cluster (ADDRESS, e.g. "
                   "ray://head:10001 or head:6379; without it $RAY_ADDRESS; 'local': start one "
                   "here with -j workers); needs the extra: pip install 'rtoslab[cluster]'")
    p.add_argument("--cluster-builds", choices=("workers", "driver"), default="workers",
                   help="with --cluster: who builds the images: each worker its configurations "
                   "(default: scales with the workers; they need the toolchain), or the driver, "
                   "shipping images and plugin (workers need only QEMU; the driver's cores bound "
                   "the builds); docs/performance.md, 'Large sweeps'")
    p.add_argument("--report", type=Path, default=None,
                   help="Markdown report path; the HTML report goes beside it with .html "
                   "(default: DB.run-ID.md beside the database DB, e.g. results.sqlite.run-7.md)")
    add_kernel_source_option(p)
    add_path_options(p)
    add_layout_options(p)
    add_db_option(p)
    p.set_defaults(func=cmd)


def add_selection_options(p: argparse.ArgumentParser) -> None:
    """What to run on one configuration (and how many jobs): `run` and `ci` share them."""
    p.add_argument("-j", "--jobs", type=positive_int, default=os.cpu_count() or 1,
                   help="parallel builds and runs (default: number of cores)")
    p.add_argument("--suite", action="append", default=[], metavar="NAME",
                   help=f"suite to run (repeatable: the union; default: {DEFAULT_SUITE})")
    p.add_argument("--bench", action="append", default=[], metavar="NAME",
                   help="run this benchmark (repeatable; with --suite: the suite and these)")
    # (None when not given: an experiment file refuses them, as it sets its own)
    p.add_argument("--target", default=None, help=f"target (default: {api.DEFAULT_TARGET})")
    p.add_argument("--kernel", default=None, help=f"kernel port (default: {api.DEFAULT_KERNEL})")
    p.add_argument("--cflags", default=None, help=f"compiler flags of the configuration (default: "
                   f"{DEFAULT_CFLAGS})")
    p.add_argument("--with-na", action="store_true",
                   help="keep a suite's benchmarks that cannot run on this kernel or target, as n/a "
                   "rows with their reasons (default: left out, named in one line)")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="kernel option override (repeatable)")
    p.add_argument("--define", action="append", default=[], metavar="NAME=VALUE",
                   help="preprocessor definition for all firmware code (repeatable), e.g. "
                   "TOGGLE_TASKS=3")
    p.add_argument("--timing", "--model", dest="timing", action="append", default=[],
                   metavar="KEY=VALUE",
                   help="timing-model setting (repeatable; `rtoslab list` shows them, "
                   "docs/timing-model.md); --model is the old spelling")


def fill_selection_defaults(args: argparse.Namespace) -> None:
    """Without an experiment file: the defaults of --target, --kernel, --cflags."""
    args.target = args.target if args.target is not None else api.DEFAULT_TARGET
    args.kernel = args.kernel if args.kernel is not None else api.DEFAULT_KERNEL
    args.cflags = args.cflags if args.cflags is not None else DEFAULT_CFLAGS


def refuse_selection_with_file(args: argparse.Namespace) -> None:
    """An experiment file is the whole plan: a flag that would change it is refused, one
    line (it used to be ignored while the stored command named it)."""
    given = [flag for flag, value in (("--target", args.target), ("--kernel", args.kernel),
                                      ("--cflags", args.cflags)) if value is not None]
    if given:
        raise RtoslabError(f"an experiment file sets its own targets, kernels and flags: {'/'.join(given)} "
                           f"would not apply: edit the file's [matrix] (target, kernel, opt, lto, cflags) "
                           f"or drop {'/'.join(given)}")
    if args.suite or args.bench or args.option or args.timing or args.define:
        raise RtoslabError("an experiment file sets its own benchmarks and options: edit the file "
                           "or drop --suite/--bench/--option/--timing/--define")


_EXAMPLES = {"--option": "configTICK_RATE_HZ=1000", "--timing": "flash_ws=2",
             "--define": "TOGGLE_TASKS=3", "--config": "opt=-O2"}


def parse_option(text: str, flag: str = "--option") -> tuple[str, object]:
    """KEY=VALUE; a value that reads as a (decimal or 0x) integer becomes an int."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise RtoslabError(f"bad {flag} '{text}': write KEY=VALUE, e.g. {_EXAMPLES[flag]}")
    try:
        return key, int(value, 0)
    except ValueError:
        return key, value


def select_benchmarks(args: argparse.Namespace, config: BuildConfig | None = None) -> list[Benchmark]:
    """Each --suite's benchmarks, then each --bench not already among them (the union, in
    the order given, as the other repeatable options accumulate); neither: the default
    suite (``rtoslab.api.select``).

    With ``config``, a suite holds only the benchmarks that can run in it (issue 28: the
    FreeRTOS kernel suite without the SMP-only ones), unless --with-na; the ones left out
    are named in one line on stderr. A benchmark named by --bench always stays (n/a with
    its reason when it cannot run)."""
    names: list[str] = []
    for suite in args.suite:
        names += [b.name for b in args.catalog.suite_benchmarks(suite)]
    chosen = api.select([*names, *args.bench], catalog=args.catalog)
    if config is None or getattr(args, "with_na", False) or not args.suite:
        return chosen
    asked = set(args.bench)
    left_out = [b.name for b in chosen if b.name not in asked and config_na_reason(config, b)]
    if not left_out:
        return chosen
    kept = [b for b in chosen if b.name not in left_out]
    where = f"kernel {config.kernel} on {config.target}"
    if not kept:
        raise RtoslabError(f"every benchmark of suite {', '.join(args.suite)} is n/a for {where}: "
                           "pass --with-na to see why, or choose another --kernel/--target")
    with contextlib.suppress(OSError):
        _StderrConsole().print(f"left out {len(left_out)} benchmark(s) n/a for {where}: "
                               f"{', '.join(left_out)} (--with-na keeps them as n/a rows)",
                               markup=False, soft_wrap=True)
    return kept


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


class _StderrConsole(Console):
    """rich's console on stderr, whose closed pipe is an OSError to the caller (rich's own
    answer is SystemExit(1), which would end the run and lose its results)."""

    def __init__(self) -> None:
        super().__init__(stderr=True, highlight=False)

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError("stderr is closed")


def _one_line(text: str) -> str:
    """Text from a firmware or a folder (a reason, a name) for a progress line or the bar:
    its control characters as visible escapes (``report.text.terminal_safe``), on one line."""
    return " ".join(terminal_safe(text).split())


class _ProgressLines:
    """Progress on stderr.

    On a terminal: one live bar (done/total, the ok/failed/n/a counts, elapsed time and the
    estimate left, the configuration in flight), and a line for each failure as it
    happens. With stderr not a terminal (a file, a pipe, --json into a file) or with
    ``verbose`` (-v): one plain line per result, ``[k/N] ok BENCH CONFIG``, where CONFIG
    is built from the axes that vary in the plan. Text from the firmware (a failure's
    reason) is shown with its control characters escaped. A closed stderr stops the
    output, never the run."""

    def __init__(self, plan: list[tuple[BuildConfig, list[Benchmark]]],
                 names: dict[str, str] | None = None, verbose: bool = False,
                 console: Console | None = None) -> None:
        self.err = console if console is not None else _StderrConsole()
        axes = [c.axis_values() for c, _ in plan]
        keys = varying_keys(axes)
        self.labels = {c.measure_key(): _one_line(axes_label(a, keys, names))
                       for (c, _), a in zip(plan, axes, strict=True)}
        # the bar names the configuration in flight; with one configuration, by its kernel
        # and target (no axis varies)
        self.flight = {c.measure_key(): self.labels[c.measure_key()] or f"{c.kernel} on {c.target}"
                       for c, _ in plan}
        self.total = sum(len(b) for _, b in plan)
        self.configs = len(plan)
        self.built = 0
        self.done = 0
        self.counts = {"ok": 0, "failed": 0, "n/a": 0}
        self.open = True
        self.bar_shown = self.err.is_terminal
        self.every_result = verbose or not self.err.is_terminal
        self.bar = RichProgress(
            TextColumn("run"), BarColumn(bar_width=24), MofNCompleteColumn(),
            TextColumn("{task.fields[counts]}"), TimeElapsedColumn(), TextColumn("left"),
            TimeRemainingColumn(), TextColumn("{task.fields[where]}"),
            console=self.err, transient=True, disable=not self.bar_shown)
        self.task = self.bar.add_task("run", total=self.total, counts=self._counts(),
                                      where=self._building())

    def _counts(self) -> str:
        c = self.counts
        return f"ok {c['ok']} · failed {c['failed']} · n/a {c['n/a']}"

    def _building(self) -> str:
        return f"building {self.built}/{self.configs} configuration(s)" if self.built < self.configs else ""

    def line(self, text: str, markup: str | None = None) -> None:
        if not self.open:
            return
        text = terminal_safe(text)  # a firmware's reason or a folder's name may hold escapes
        markup = terminal_safe(markup) if markup is not None else None
        try:
            if self.err.is_terminal and markup is not None:
                self.err.print(markup, soft_wrap=True)
            else:
                self.err.print(text, markup=False, soft_wrap=True)
        except OSError:
            self.open = False

    def progress(self, p: Progress) -> None:
        if p.stage == "built":
            self.built += 1
            self._update(self.flight.get(p.config.measure_key(), ""))
        elif p.stage == "done" and p.result is not None:
            self.result(p)

    def _update(self, where: str) -> None:
        building = self._building()
        self.bar.update(self.task, completed=self.done, counts=self._counts(),
                        where=building or where)

    def result(self, p: Progress) -> None:
        r = p.result
        if r is None:
            return
        self.done += 1
        self.counts[r.status if r.status in self.counts else "n/a"] += 1
        where = self.labels.get(p.config.measure_key(), "")
        self._update(self.flight.get(p.config.measure_key(), ""))
        if not (self.every_result or r.status == "failed"):
            return
        detail = f": {_one_line(r.reason)}" if r.reason else ""
        head = f"[{self.done}/{self.total}]"
        word = {"ok": "ok", "failed": "FAILED"}.get(r.status, r.status)
        color = {"ok": "green", "failed": "red"}.get(r.status, "yellow")
        bench = _one_line(r.benchmark)
        text = " ".join(x for x in (head, word, bench, where) if x) + detail
        self.line(text, f"{head} [{color}]{word}[/{color}] {escape(bench)} {escape(where)}"
                  f"{escape(detail)}")


def run_plan(store: Store, plan: list[tuple[BuildConfig, list[Benchmark]]], command: str,
             experiment: str | None = None, jobs: int = 1, names: dict[str, str] | None = None,
             irq_windows: bool = False, verbose: bool = False, report_spec: ReportSpec | None = None,
             shard: tuple[int, int] | None = None, offsets: list[int] | None = None,
             cluster: ClusterSession | None = None,
             runner: api.Runner | None = None) -> tuple[int, list[BenchResult], str]:
    """Execute a plan inside a run record (``rtoslab.api.execute_plan``) with progress on
    stderr (``_ProgressLines``). Returns (run id, results, final status).

    Ctrl-C or SIGTERM marks the run incomplete (results stored so far stay) and re-raises;
    so does a failed write (disk full), which ends in one line.
    """
    lines = _ProgressLines(plan, names, verbose)
    old_term = signal.signal(signal.SIGTERM, _raise_interrupt)
    started: list[int] = []
    try:
        with lines.bar:
            outcome = api.execute_plan(store, plan, command, experiment, jobs, lines.progress,
                                       on_start=started.append, irq_windows=irq_windows,
                                       report_spec=report_spec, shard=shard, offsets=offsets,
                                       cluster=cluster, runner=runner)
    except BaseException:
        if started:
            lines.line(f"run {started[0]} stopped: stored as incomplete, with every result finished "
                       "before (or, if it could not be marked, it reads as incomplete once this "
                       "process has ended)")
        raise
    finally:
        signal.signal(signal.SIGTERM, old_term)
    if lines.bar_shown and not lines.every_result:
        c = lines.counts
        lines.line(f"run {outcome.run_id}: {lines.done}/{lines.total} benchmark runs: ok {c['ok']}, "
                   f"failed {c['failed']}, n/a {c['n/a']}")
    return outcome.run_id, list(outcome.results), outcome.status


def announce_plan(store: Store, plan: list[tuple[BuildConfig, list[Benchmark]]], jobs: int,
                  yes: bool, what: str) -> None:
    """Say the plan's size and an estimate of its duration on stderr: the benchmarks'
    emulation from this database's earlier runs of them, and the builds the cache lacks
    from this database's earlier builds of the same targets (or a stated default); refuse
    a large plan without --yes."""
    n_configs = len(plan)
    n_runs = sum(len(b) for _, b in plan)
    if n_runs > LARGE_PLAN_RUNS and not yes:
        raise _too_large(what, n_runs)
    typical = store.typical_wall_s(sorted({b.name for _, bs in plan for b in bs}))
    known = [typical[b.name] for _, bs in plan for b in bs if b.name in typical]
    parts = []
    seconds = 0.0
    if known:
        seconds = sum(known) * n_runs / len(known)
        parts.append("emulation from earlier runs in this database")
    else:
        parts.append("emulation not counted: none of these benchmarks has run with this database")
    build_s, build_note = estimate_builds(store, plan)
    seconds += build_s
    parts.append(build_note)
    estimate = f"about {_duration(seconds / jobs)} with {jobs} jobs ({'; '.join(parts)})"
    text = terminal_safe(f"{what}: {n_configs} configuration(s), {n_runs} benchmark runs; {estimate}")
    with contextlib.suppress(OSError):
        _StderrConsole().print(text, markup=False, soft_wrap=True)


def estimate_builds(store: Store, plan: list[tuple[BuildConfig, list[Benchmark]]]) -> tuple[float, str]:
    """Seconds of building the plan needs, and how that was estimated: a configuration
    whose images are all published in the cache costs nothing; any other costs the median
    of this database's earlier builds of its target (of any target when its own has none;
    ``DEFAULT_BUILD_S`` when there are none at all)."""
    history = store.typical_build_s()
    overall = sorted(s for s, _ in history.values())
    wanted: dict[str, tuple[BuildConfig, set[str]]] = {}
    for config, benches in plan:
        wanted.setdefault(config.image_key(), (config, set()))[1].update(b.name for b in benches)
    todo = [c for key, (c, names) in wanted.items()
            if not all((images_dir(key) / f"{n}.elf").is_file() for n in names)]
    if not todo:
        return 0.0, f"all {len(wanted)} build(s) cached"
    seconds = 0.0
    defaulted = 0
    for config in todo:
        if config.target in history:
            seconds += history[config.target][0]
        elif overall:
            seconds += overall[len(overall) // 2]
        else:
            seconds += DEFAULT_BUILD_S
            defaulted += 1
    how = ("earlier builds in this database" if not defaulted else
           f"a default of {DEFAULT_BUILD_S:.0f} s each: no earlier builds in this database")
    return seconds, f"{len(todo)} of {len(wanted)} build(s) to do, from {how}"


def _too_large(what: str, n_runs: int) -> RtoslabError:
    return RtoslabError(f"{what} has {n_runs} benchmark runs (more than {LARGE_PLAN_RUNS}): pass "
                        "--yes to run them, or shrink the matrix")


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def cmd(args: argparse.Namespace) -> int:
    if args.experiment is not None:
        return run_experiment(args)
    fill_selection_defaults(args)
    shard = parse_shard(args.shard) if args.shard is not None else None
    args.catalog.get_target(args.target)
    args.catalog.get_kernel(args.kernel)
    select_benchmarks(args)  # an unknown name fails first, with its did-you-mean
    config = config_from_args(args)  # unknown options and bad settings fail before anything is stored
    benches = select_benchmarks(args, config)
    command = "rtoslab " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    plan = [(config, benches)]
    if args.trace:
        twin = traced_twin(config)
        # Labelled by the define (LAB_TRACE is 0 unless defined: lab/port.h), so tables
        # show the two side by side as LAB_TRACE=0 / LAB_TRACE=1.
        plan = [(replace(config, axes=tuple({**config.axis_values(), "defines.LAB_TRACE": 0}.items())),
                 benches),
                (replace(twin, axes=tuple({**config.axis_values(), "defines.LAB_TRACE": 1}.items())),
                 benches)]
    api.check_irq_windows(plan, args.irq_windows, "drop --timing core=none (or set a core) for this run")
    runner = runner_from_args(args, config)
    if runner is None:
        api.check_machine(plan)
    elif args.cluster is not None:
        raise RtoslabError("--cluster runs the images on the cluster's emulators: drop --runner gdb "
                           "(a board is measured from one machine)")
    jobs = 1 if runner is not None else args.jobs  # one board: one run at a time
    offsets = None
    if shard is not None:
        plan, offsets = shard_of(plan, *shard)
    with open_cluster(args) as cluster:  # an unknown address fails before anything is stored
        store = open_db(args)
        announce_plan(store, plan, _workers(cluster, jobs), args.yes, "run")
        run_id, _results, status = run_plan(store, plan, command, jobs=jobs,
                                            irq_windows=args.irq_windows, shard=shard,
                                            offsets=offsets, cluster=cluster, runner=runner,
                                            verbose=args.verbose)
    print_run(store, run_id, args)
    return 0 if status == "complete" else 1


def _workers(cluster: ClusterSession | None, jobs: int) -> int:
    """What runs at once: the cluster's worker CPUs, else -j."""
    return max(1, cluster.workers()) if cluster is not None else jobs


@contextlib.contextmanager
def open_cluster(args: argparse.Namespace) -> Iterator[ClusterSession | None]:
    """The Ray cluster --cluster names (None without it), closed at the end."""
    if args.cluster is None:
        yield None
        return
    from rtoslab.cluster import connect  # (Ray is an optional extra: imported only when asked for)

    session = connect(args.cluster or os.environ.get("RAY_ADDRESS", ""), args.jobs, args.cluster_builds)
    try:
        yield session
    finally:
        session.close()


def config_from_args(args: argparse.Namespace) -> BuildConfig:
    """The configuration the run command line names (its axes: the flags given), checked
    (``rtoslab.api.configuration``). --runner gdb builds buffer-mode images."""
    probe = getattr(args, "probe", None)
    if probe is None and getattr(args, "runner", None) == "gdb":
        probe = "buffer"
    config = api.configuration(
        target=args.target, kernel=args.kernel, cflags=args.cflags,
        options=parse_options(args.option, "--option"),
        defines=parse_options(args.define, "--define"),
        timing=parse_options(args.timing, "--timing"), probe=probe or "", catalog=args.catalog)
    folder, given = kernel_source_of(args)
    return with_kernel_source(config, folder, given=given)


def experiment_from_args(args: argparse.Namespace) -> Experiment:
    """The experiment file, checked, with --kernel-source (or, when the file names no
    kernel tree, rtoslab.toml's) applied to the kernels that take one."""
    exp = api.experiment(args.experiment, catalog=args.catalog)
    folder, given = kernel_source_of(args)
    if folder is None:
        return exp
    if given:
        return exp.with_kernel_source(folder)
    if any(p.config.kernel_source for p in exp.points) or \
            not any(p.config.kernel_info().source is not None for p in exp.points):
        return exp  # the file names its own tree, or none of its kernels takes one
    return exp.with_kernel_source(folder, "rtoslab.toml kernel_source")


def parse_options(texts: list[str], flag: str) -> dict[str, object]:
    """Every KEY=VALUE of a repeatable flag; a key given twice is one line (the last one
    used to win silently)."""
    out: dict[str, object] = {}
    for text in texts:
        key, value = parse_option(text, flag)
        if key in out:
            raise RtoslabError(f"{flag} {key} is given twice ({key}={out[key]} and {key}={value}): "
                               "give it once")
        out[key] = value
    return out


def runner_from_args(args: argparse.Namespace, config: BuildConfig) -> api.Runner | None:
    """The GDB runner when --runner gdb (or a board target's default) asks for it; None:
    the emulator's (api's default). Refuses a region-mode image for the GDB runner and a
    --gdb-server without it, one line each."""
    board = config.target_info().spec.board
    kind = args.runner or ("gdb" if board is not None else "qemu")
    if kind == "qemu":
        if args.gdb_server:
            raise RtoslabError("--gdb-server is for --runner gdb")
        if config.probe_mode() == "buffer":
            raise RtoslabError(f"{config.target}: buffer-mode images run through a GDB server: "
                               "add --runner gdb --gdb-server HOST:PORT, or use --probe region")
        return None
    if config.probe_mode() != "buffer":
        raise RtoslabError("--runner gdb reads the RAM probe buffer: drop --probe region "
                           "(--runner gdb builds with --probe buffer)")
    server = args.gdb_server or (board.gdb_server if board is not None else None)
    if not server:
        raise RtoslabError(f"--runner gdb needs --gdb-server HOST:PORT ({config.target} names no "
                           "board GDB server in target.toml [board])")
    return api.gdb_runner(server)


def traced_twin(config: BuildConfig) -> BuildConfig:
    """The same configuration with the timeline hook on (define LAB_TRACE=1)."""
    if any(k == "LAB_TRACE" for k, _ in config.defines):
        raise RtoslabError("--trace sets LAB_TRACE itself: drop --define LAB_TRACE=...")
    return replace(config, defines=tuple(sorted((*config.defines, ("LAB_TRACE", 1)))))


def run_experiment(args: argparse.Namespace) -> int:
    if args.trace:
        raise RtoslabError("--trace is for a suite or --bench run: in an experiment file, add "
                           "the define LAB_TRACE = [0, 1] as an axis instead")
    refuse_selection_with_file(args)
    shard = parse_shard(args.shard) if args.shard is not None else None
    if not args.yes:  # the guard counts the plan without expanding it (a million runs: at once)
        n_runs = count_runs(args.experiment, args.catalog)
        if n_runs > LARGE_PLAN_RUNS:
            raise _too_large(f"experiment {args.experiment}", n_runs)
    exp = experiment_from_args(args)  # every check before anything is stored
    command = "rtoslab " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    plan = exp.plan()
    api.check_irq_windows(plan, args.irq_windows,
                          f"experiment {args.experiment} has a configuration with timing core none: set a "
                          "core in its [matrix.timing] (or drop --irq-windows)")
    api.check_machine(plan)
    offsets = None
    if shard is not None:
        plan, offsets = shard_of(plan, *shard)
    with open_cluster(args) as cluster:
        store = open_db(args)
        what = f"experiment {exp.name}" + (f" shard {shard[0]}/{shard[1]}" if shard else "")
        announce_plan(store, plan, _workers(cluster, args.jobs), args.yes, what)
        run_id, _results, status = run_plan(store, plan, command, experiment=str(args.experiment),
                                            jobs=args.jobs, names=dict(exp.names),
                                            irq_windows=args.irq_windows,
                                            report_spec=exp.report_spec(), shard=shard,
                                            offsets=offsets, cluster=cluster,
                                            verbose=args.verbose)
    print_run(store, run_id, args)
    return 0 if status == "complete" else 1


def report_path(db: Path, run_id: int) -> Path:
    """The Markdown report's default path: beside the database, named by the database's
    file name and the run (``results.sqlite.run-7.md``; the HTML report: ``.html``), so
    the reports of two databases in one folder never overwrite each other."""
    return db.parent / f"{db.name}.run-{run_id}{get_renderer('markdown').file_suffix}"


def print_run(store: Store, run_id: int, args: argparse.Namespace) -> None:
    """Write the run's Markdown and HTML reports, then print it (tables or JSON), with the
    report spec stored with it (as `show` does)."""
    view = store.load_run(run_id)
    exp = report_spec_of(view, args.catalog)
    baselines = exp.baseline_pairs() if exp is not None else []
    # The reports first: a reader of stdout that goes away early (| head) loses nothing.
    report: Path | None = args.report
    path = report if report is not None else report_path(store.path, run_id)
    html_path = path.with_suffix(".html")
    writing = path
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_whole(path, markdown_report(view, exp))
        writing = html_path
        write_whole(html_path, render_html(view, store.load_run_samples(view), baselines=baselines,
                                         tables=exp.tables if exp is not None else (),
                                         rows=exp.rows if exp is not None else "benchmark",
                                         timelines=load_run_timelines(store.path, view),
                                         question=exp.question if exp is not None else ""))
    except OSError as err:
        # (a failed write, e.g. a full disk, carries no file name: name the one being written)
        # (exit 1, as for the database: the input was fine; no cut or empty file is left)
        raise WriteError(f"run {run_id} is stored, but its report {writing} could not be written "
                         f"({err.strerror or err}): free space there (or pass --report elsewhere); "
                         f"`rtoslab show {run_id} --format html` prints it again") from err
    with contextlib.suppress(OSError):
        print(f"run {run_id}: reports written to {path} and {html_path}", file=sys.stderr)
    if args.json:
        sys.stdout.write(get_renderer("json").render(view))
    else:
        print_run_text(view, exp, width=terminal_width(), per_config=args.per_config, wide=args.wide,
                       unit=unit_arg(args))
