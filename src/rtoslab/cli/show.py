"""rtoslab show: print a stored run again."""

from __future__ import annotations

import argparse
import sys

from rtoslab.cli.common import add_db_option, add_layout_options, open_db, terminal_width
from rtoslab.cli.tables import experiment_of, markdown_report, print_run_text
from rtoslab.records import RtoslabError
from rtoslab.report.base import get_renderer, renderer_names
from rtoslab.report.html import render_html
from rtoslab.trace.timeline import load_timelines, timeline_dir


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("show", help="print a stored run again")
    p.add_argument("run_id", help="run id, or 'latest'")
    p.add_argument("--json", action="store_true", help="print the rtoslab.run/1 JSON document")
    p.add_argument("--format", default=None, help="renderer: " + ", ".join(renderer_names()))
    add_layout_options(p)
    add_db_option(p)
    p.set_defaults(func=cmd)


def cmd(args: argparse.Namespace) -> int:
    store = open_db(args, read_only=True)
    if args.run_id == "latest":
        run_id = store.latest_run_id()
        if run_id is None:
            raise RtoslabError(f"no runs in {store.path}: `rtoslab run` makes one")
    else:
        try:
            run_id = int(args.run_id)
        except ValueError:
            raise RtoslabError(f"bad run id '{args.run_id}': give a number or 'latest'") from None
    fmt = "json" if args.json else (args.format or "terminal")
    view = store.load_run(run_id)
    exp = experiment_of(view)
    if fmt == "terminal":
        print_run_text(view, exp, width=terminal_width(), per_config=args.per_config, wide=args.wide)
        return 0
    if fmt == "html":
        baselines = [(b.name, dict(b.match)) for b in exp.baselines] if exp is not None else []
        out = render_html(view, store.load_run_samples(view), baselines=baselines,
                          tables=exp.tables if exp is not None else (),
                          rows=exp.rows if exp is not None else "benchmark",
                          timelines=load_timelines(timeline_dir(store.path, run_id)))
    elif fmt == "markdown":
        out = markdown_report(view, exp)
    else:
        out = get_renderer(fmt).render(view)
    sys.stdout.write(out if out.endswith("\n") else out + "\n")
    return 0
