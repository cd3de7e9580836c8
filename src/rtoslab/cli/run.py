"""rtoslab run: build, run, analyse, store and print a suite or a list of benchmarks."""

from __future__ import annotations

import argparse
import os
import shlex
import signal
import sys
from pathlib import Path
from types import FrameType

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
from rich.progress import Progress as RichProgress

from rtoslab.builder.config import BuildConfig, check_cflags
from rtoslab.catalog import Benchmark, get_benchmark, get_kernel, get_target, suite_benchmarks
from rtoslab.cli.common import add_db_option, open_db, terminal_renderer
from rtoslab.cli.tables import print_experiment_tables
from rtoslab.experiments.experiment import check_timing, load_experiment
from rtoslab.pipeline import Progress, execute
from rtoslab.records import BenchResult, RtoslabError
from rtoslab.report.base import get_renderer
from rtoslab.report.html import render_html
from rtoslab.runners.qemu import QemuRunner
from rtoslab.store.db import Store
from rtoslab.timing import check_resolved, plugin_args
from rtoslab.tools import host_name, rtoslab_revision, tool_versions

DEFAULT_SUITE = "smoke"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("run", help="build, run, analyse, store and print benchmarks")
    p.add_argument("experiment", nargs="?", type=Path, default=None,
                   help="an experiment file (TOML); without it, --suite/--bench on one configuration")
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                   help="parallel builds and runs (default: number of cores)")
    p.add_argument("--suite", default=None, help=f"suite to run (default: {DEFAULT_SUITE})")
    p.add_argument("--bench", action="append", default=[], metavar="NAME",
                   help="run this benchmark (repeatable; instead of --suite)")
    p.add_argument("--target", default="mps2-an385", help="target (default: mps2-an385)")
    p.add_argument("--kernel", default="baremetal", help="kernel port (default: baremetal)")
    p.add_argument("--cflags", default="-O2", help="compiler flags of the configuration (default: -O2)")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="kernel option override (repeatable)")
    p.add_argument("--define", action="append", default=[], metavar="NAME=VALUE",
                   help="preprocessor definition for all firmware code (repeatable), e.g. "
                   "TOGGLE_TASKS=3")
    p.add_argument("--timing", "--model", dest="timing", action="append", default=[],
                   metavar="KEY=VALUE",
                   help="timing-model setting (repeatable; `rtoslab list` shows them, "
                   "docs/timing-model.md); --model is the old spelling")
    p.add_argument("--json", action="store_true", help="print the rtoslab.run/1 JSON document")
    p.add_argument("--report", type=Path, default=None,
                   help="Markdown report path; the HTML report goes beside it with .html "
                   "(default: run-ID.md beside the database)")
    add_db_option(p)
    p.set_defaults(func=cmd)


_EXAMPLES = {"--option": "configTICK_RATE_HZ=1000", "--timing": "flash_ws=2",
             "--define": "TOGGLE_TASKS=3"}


def parse_option(text: str, flag: str = "--option") -> tuple[str, object]:
    """KEY=VALUE; a value that reads as a (decimal or 0x) integer becomes an int."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise RtoslabError(f"bad {flag} '{text}': write KEY=VALUE, e.g. {_EXAMPLES[flag]}")
    try:
        return key, int(value, 0)
    except ValueError:
        return key, value


def select_benchmarks(args: argparse.Namespace) -> list[Benchmark]:
    if args.bench and args.suite:
        raise RtoslabError("give --suite or --bench, not both")
    if args.bench:
        return [get_benchmark(name) for name in args.bench]
    return suite_benchmarks(args.suite or DEFAULT_SUITE)


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def run_plan(store: Store, plan: list[tuple[BuildConfig, list[Benchmark]]], command: str,
             quiet: bool, experiment: str | None = None, jobs: int = 1
             ) -> tuple[int, list[BenchResult], str]:
    """Execute a plan inside a run record. Returns (run id, results, final status).

    Ctrl-C or SIGTERM marks the run incomplete (results stored so far stay) and re-raises.
    """
    err = Console(stderr=True, highlight=False)
    total = sum(len(b) for _, b in plan)
    n_configs = len(plan)
    run_id = store.begin_run(command, rtoslab_revision(), host_name(), tool_versions(), experiment)
    old_term = signal.signal(signal.SIGTERM, _raise_interrupt)
    bar = RichProgress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                       TimeElapsedColumn(), console=err, transient=True,
                       disable=quiet or not err.is_terminal)
    builds = bar.add_task("build", total=n_configs)
    runs = bar.add_task("run", total=total)

    def progress(p: Progress) -> None:
        if p.stage == "built":
            bar.advance(builds)
        elif p.stage == "done" and p.result is not None:
            bar.advance(runs)
            r = p.result
            if quiet:
                return
            mark = {"ok": "[green]ok[/green]", "failed": "[red]FAILED[/red]"}.get(r.status, r.status)
            detail = f": {r.reason}" if r.reason else ""
            where = f"{p.config.kernel} {p.config.describe()}" if n_configs > 1 else ""
            err.print(f"  {mark} {r.benchmark} {where}{detail}")

    try:
        with bar:
            results = execute(store, run_id, plan, QemuRunner(), progress, jobs=jobs)
    except BaseException:
        store.finish_run(run_id, "incomplete")
        err.print(f"run {run_id} interrupted: stored as incomplete")
        raise
    finally:
        signal.signal(signal.SIGTERM, old_term)
    status = "failed" if any(r.status == "failed" for r in results) else "complete"
    store.finish_run(run_id, status)
    return run_id, results, status


def cmd(args: argparse.Namespace) -> int:
    if args.experiment is not None:
        return run_experiment(args)
    get_target(args.target)
    get_kernel(args.kernel)
    benches = select_benchmarks(args)
    config = config_from_args(args)
    config.validate()  # unknown options and bad settings fail before anything is stored
    if plugin_args(dict(config.timing)):
        check_resolved(config.timing_settings())  # the plugin's cross-setting rules
    store = open_db(args)
    command = "rtoslab " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    run_id, _results, status = run_plan(store, [(config, benches)], command, quiet=args.json,
                                        jobs=args.jobs)
    print_run(store, run_id, as_json=args.json, report=args.report)
    return 0 if status == "complete" else 1


def config_from_args(args: argparse.Namespace) -> BuildConfig:
    """The configuration the run command line names (its axes: the flags given)."""
    options = tuple(sorted(parse_option(o) for o in args.option))
    timing = tuple(sorted(parse_option(o, "--timing") for o in args.timing))
    defines = tuple(sorted(parse_option(o, "--define") for o in args.define))
    cflags = tuple(shlex.split(args.cflags))
    try:
        check_cflags(cflags)
    except RtoslabError as e:
        raise RtoslabError(f"--cflags {e}") from e
    return BuildConfig(target=args.target, kernel=args.kernel, kernel_options=options,
                       cflags=cflags, defines=defines, timing=timing)


def run_experiment(args: argparse.Namespace) -> int:
    if args.suite or args.bench or args.option or args.timing or args.define:
        raise RtoslabError("an experiment file sets its own benchmarks and options: "
                           "drop --suite/--bench/--option/--timing/--define")
    exp = load_experiment(args.experiment)  # every check before anything is stored
    check_timing(exp)
    store = open_db(args)
    command = "rtoslab " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    if not args.json:
        Console(stderr=True).print(
            f"experiment {exp.name}: {len(exp.points)} configurations x {len(exp.benchmarks)} "
            f"benchmarks ({exp.run_count()} runs), {args.jobs} jobs", highlight=False)
    run_id, _results, status = run_plan(store, exp.plan(), command, quiet=args.json,
                                        experiment=str(args.experiment), jobs=args.jobs)
    # The HTML report lays rows out by benchmark: a baseline that names a benchmark (rows =
    # "metric" experiments) has no meaning there; the tables below use it.
    baselines = [(b.name, dict(b.match)) for b in exp.baselines if "benchmark" not in dict(b.match)]
    print_run(store, run_id, as_json=args.json, report=args.report, baselines=baselines)
    if not args.json:
        print_experiment_tables(store, run_id, exp)
    return 0 if status == "complete" else 1


def print_run(store: Store, run_id: int, *, as_json: bool, report: Path | None,
              baselines: list[tuple[str, dict[str, object]]] | None = None) -> None:
    """Print the run (table or JSON) and write its Markdown and HTML reports."""
    view = store.load_run(run_id)
    if as_json:
        sys.stdout.write(get_renderer("json").render(view))
    else:
        sys.stdout.write(terminal_renderer().render(view))
    md = get_renderer("markdown")
    path = report if report is not None else store.path.parent / f"run-{run_id}{md.file_suffix}"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(md.render(view))
    html_path = path.with_suffix(".html")
    html_path.write_text(render_html(view, store.load_run_samples(view), baselines=baselines or ()))
    print(f"run {run_id}: reports written to {path} and {html_path}", file=sys.stderr)
