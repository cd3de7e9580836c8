"""rtoslab publish: a static, self-contained site of a database's history."""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

from rtoslab.cli.common import write_whole
from rtoslab.cli.history_cmd import add_history_options, load_runs
from rtoslab.records import RtoslabError, Unit, WriteError
from rtoslab.report.history import bench_file, bench_page, history_series, index_page, run_file
from rtoslab.report.html import CSS, render_html
from rtoslab.store.db import open_store
from rtoslab.trace.timeline import load_run_timelines


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("publish", help="write a static site of a database's history: a page per "
                       "benchmark, a line per metric over revisions (docs/ci.md)")
    p.add_argument("db", type=Path, help="the results database")
    p.add_argument("-o", "--output", type=Path, required=True, metavar="SITE",
                   help="the folder to write (created; its pages are replaced)")
    add_history_options(p)
    p.set_defaults(func=cmd)


def cmd(args: argparse.Namespace) -> int:
    if args.threshold < 0:
        raise RtoslabError(f"--threshold {args.threshold:g}: give a percentage >= 0")
    out: Path = args.output
    if out.exists() and not out.is_dir():
        raise RtoslabError(f"-o {out}: not a folder: give a folder for the site")
    store = open_store(args.db, read_only=True)
    views = load_runs(store)
    series = history_series(views, unit=Unit(args.unit), stat=args.stat)
    pages: dict[str, str] = {"index.html": index_page(series, views, args.threshold, CSS, args.db.name)}
    for bench in sorted({s.benchmark for s in series}):
        pages[bench_file(bench)] = bench_page(bench, [s for s in series if s.benchmark == bench],
                                              args.threshold, CSS, args.db.name)
    for view in views:
        pages[run_file(view.id)] = render_html(
            view, store.load_run_samples(view),
            timelines=load_run_timelines(store.path, view))
    try:
        for name, text in pages.items():
            path = out / name
            path.parent.mkdir(parents=True, exist_ok=True)
            write_whole(path, text)
    except OSError as err:  # (exit 1: nothing was wrong with the input; no cut page is left)
        raise WriteError(f"cannot write the site into {out} ({err.strerror or err}): free space "
                         "there, or give another -o") from err
    with contextlib.suppress(OSError):
        print(f"site written to {out}: {len(pages)} pages (open {out / 'index.html'})", file=sys.stderr)
    return 0
