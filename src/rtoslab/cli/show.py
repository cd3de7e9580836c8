"""rtoslab show: print a stored run again."""

from __future__ import annotations

import argparse
import sys

from rtoslab.api import resolve_run
from rtoslab.cli.common import (
    RUN_REF_HELP,
    add_db_option,
    add_layout_options,
    open_db,
    terminal_width,
    unit_arg,
)
from rtoslab.cli.tables import markdown_report, print_run_text, report_spec_of
from rtoslab.records import RtoslabError
from rtoslab.report.base import get_renderer, renderer_names
from rtoslab.report.html import render_html
from rtoslab.report.rows import config_title
from rtoslab.report.text import terminal_safe
from rtoslab.trace.timeline import load_run_timelines
from rtoslab.views import ResultView, RunView


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("show", help="print a stored run again")
    p.add_argument("run_id", help=RUN_REF_HELP)
    p.add_argument("--console", metavar="BENCH", default=None,
                   help="print the stored console output of benchmark BENCH in this run (each "
                   "configuration's, under a header line when the run has several)")
    p.add_argument("--why", metavar="BENCH", default=None,
                   help="print the full status line of benchmark BENCH in this run (why it failed "
                   "or is n/a, uncut), one line per configuration")
    p.add_argument("--json", action="store_true", help="print the rtoslab.run/1 JSON document")
    p.add_argument("--format", default=None, help="renderer: " + ", ".join(renderer_names()))
    add_layout_options(p)
    add_db_option(p)
    p.set_defaults(func=cmd)


def cmd(args: argparse.Namespace) -> int:
    if args.json and args.format not in (None, "json"):
        raise RtoslabError(f"--json prints the JSON document and --format {args.format} another "
                           f"format: give one of them")
    store = open_db(args, read_only=True)
    run_id = resolve_run(store, args.run_id)
    fmt = "json" if args.json else (args.format or "terminal")
    view = store.load_run(run_id)
    if args.console is not None:
        text = console_text(view, args.console)
        if not text:
            print(f"run {view.id}: {args.console} printed nothing (or did not run)", file=sys.stderr)
        sys.stdout.write(terminal_safe(text))  # escapes shown, not obeyed; the store keeps them
        return 0
    if args.why is not None:
        sys.stdout.write(terminal_safe(why_text(view, args.why)))
        return 0
    exp = report_spec_of(view, args.catalog)  # stored with the run (or, before v5, its file's)
    if fmt == "terminal":
        print_run_text(view, exp, width=terminal_width(), per_config=args.per_config, wide=args.wide,
                       unit=unit_arg(args))
        return 0
    if fmt == "html":
        baselines = exp.baseline_pairs() if exp is not None else []
        out = render_html(view, store.load_run_samples(view), baselines=baselines,
                          tables=exp.tables if exp is not None else (),
                          rows=exp.rows if exp is not None else "benchmark",
                          timelines=load_run_timelines(store.path, view),
                          question=exp.question if exp is not None else "")
    elif fmt == "markdown":
        out = markdown_report(view, exp)
    else:
        out = get_renderer(fmt).render(view)
    sys.stdout.write(out if out.endswith("\n") else out + "\n")
    return 0


def results_of(view: RunView, bench: str) -> list[ResultView]:
    """The results of ``bench`` in the run, one per configuration; one line naming the
    run's benchmarks when it has none."""
    results = [r for r in view.results if r.benchmark == bench]
    if not results:
        names = sorted({r.benchmark for r in view.results})
        raise RtoslabError(f"run {view.id} has no benchmark '{bench}': choose one of "
                           f"{', '.join(names) or 'none (the run is empty)'}")
    return results


def why_text(view: RunView, bench: str) -> str:
    """One line per configuration of ``bench`` in the run: its status and, for a failed or
    n/a result, the whole reason (tables cut long reasons to fit)."""
    results = results_of(view, bench)
    lines = []
    for r in results:
        where = f"{config_title(r.config)} [{r.config.hash}]"
        lines.append(f"{bench} on {where}: {r.status}" + (f": {r.reason}" if r.reason else "") + "\n")
    return "".join(lines)


def console_text(view: RunView, bench: str) -> str:
    """The stored console of ``bench`` in the run: as the firmware printed it, one block
    per configuration (headed ``== BENCH on CONFIG (status) ==`` when there are several)."""
    results = results_of(view, bench)
    blocks = []
    for r in results:
        text = r.console if r.console.endswith("\n") or not r.console else r.console + "\n"
        if len(results) > 1:
            text = f"== {bench} on {config_title(r.config)} [{r.config.hash}] ({r.status}) ==\n" + text
        blocks.append(text)
    return "".join(blocks)
