"""rtoslab run: build, run, analyse, store and print a suite or a list of benchmarks."""

from __future__ import annotations

import argparse
import shlex
import signal
import sys
from pathlib import Path
from types import FrameType

from rich.console import Console

from rtoslab.build.config import BuildConfig
from rtoslab.catalog import Benchmark, get_benchmark, get_kernel, get_target, suite_benchmarks
from rtoslab.cli.common import add_db_option, open_db
from rtoslab.model import BenchResult, RtoslabError
from rtoslab.pipeline import Progress, execute
from rtoslab.report.base import get_renderer
from rtoslab.runners.qemu import QemuRunner
from rtoslab.store.db import Store
from rtoslab.tools import host_name, rtoslab_revision, tool_versions

DEFAULT_SUITE = "smoke"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("run", help="build, run, analyse, store and print benchmarks")
    p.add_argument("--suite", default=None, help=f"suite to run (default: {DEFAULT_SUITE})")
    p.add_argument("--bench", action="append", default=[], metavar="NAME",
                   help="run this benchmark (repeatable; instead of --suite)")
    p.add_argument("--target", default="mps2-an385", help="target (default: mps2-an385)")
    p.add_argument("--kernel", default="baremetal", help="kernel port (default: baremetal)")
    p.add_argument("--cflags", default="-O2", help="compiler flags of the configuration (default: -O2)")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="kernel option override (repeatable)")
    p.add_argument("--json", action="store_true", help="print the rtoslab.run/1 JSON document")
    p.add_argument("--report", type=Path, default=None,
                   help="Markdown report path (default: run-ID.md beside the database)")
    add_db_option(p)
    p.set_defaults(func=cmd)


def parse_option(text: str) -> tuple[str, object]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise RtoslabError(f"bad --option '{text}': write KEY=VALUE, e.g. configTICK_RATE_HZ=1000")
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
             quiet: bool, experiment: str | None = None) -> tuple[int, list[BenchResult], str]:
    """Execute a plan inside a run record. Returns (run id, results, final status).

    Ctrl-C or SIGTERM marks the run incomplete (results stored so far stay) and re-raises.
    """
    err = Console(stderr=True)
    run_id = store.begin_run(command, rtoslab_revision(), host_name(), tool_versions(), experiment)
    old_term = signal.signal(signal.SIGTERM, _raise_interrupt)

    def progress(p: Progress) -> None:
        if quiet:
            return
        if p.stage == "build":
            err.print(f"[dim]build[/dim] {p.config.kernel} {p.config.describe()} ({p.config.hash()})")
        elif p.stage == "done" and p.result is not None:
            r = p.result
            mark = {"ok": "[green]ok[/green]", "failed": "[red]FAILED[/red]"}.get(r.status, r.status)
            detail = f": {r.reason}" if r.reason else ""
            err.print(f"  {mark} {r.benchmark}{detail}", highlight=False)

    try:
        results = execute(store, run_id, plan, QemuRunner(), progress)
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
    get_target(args.target)
    get_kernel(args.kernel)
    benches = select_benchmarks(args)
    options = tuple(sorted(parse_option(o) for o in args.option))
    config = BuildConfig(target=args.target, kernel=args.kernel, kernel_options=options,
                         cflags=tuple(shlex.split(args.cflags)))
    config.resolved_kernel_options()  # unknown options fail before anything is stored
    store = open_db(args)
    command = "rtoslab " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    run_id, _results, status = run_plan(store, [(config, benches)], command, quiet=args.json)
    print_run(store, run_id, as_json=args.json, report=args.report)
    return 0 if status == "complete" else 1


def print_run(store: Store, run_id: int, *, as_json: bool, report: Path | None) -> None:
    view = store.load_run(run_id)
    if as_json:
        sys.stdout.write(get_renderer("json").render(view))
    else:
        sys.stdout.write(get_renderer("terminal").render(view))
    md = get_renderer("markdown")
    path = report if report is not None else store.path.parent / f"run-{run_id}{md.file_suffix}"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(md.render(view))
    Console(stderr=True).print(f"run {run_id}: report written to {path}", highlight=False)
