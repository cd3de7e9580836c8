"""rtoslab export: a stored run's summaries or raw samples as CSV or JSON."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rtoslab.api import resolve_run
from rtoslab.cli.common import RUN_REF_HELP, add_db_option, open_db
from rtoslab.records import RtoslabError
from rtoslab.report.chrome_trace import chrome_trace_json
from rtoslab.report.export import export_json, export_samples_csv, export_summaries_csv
from rtoslab.report.text import terminal_safe
from rtoslab.trace.timeline import load_run_timelines

WHAT = ("summaries-csv", "samples-csv", "json", "trace")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("export", help="export a run's summaries or raw samples (CSV, JSON)")
    p.add_argument("run_id", help=RUN_REF_HELP)
    p.add_argument("--what", default="summaries-csv", choices=WHAT,
                   help="summaries-csv (default), samples-csv, or json (summaries + raw samples, "
                   "schema rtoslab.export/2, with each benchmark's console), or trace (the timelines "
                   "of a run made with --trace, "
                   "Chrome trace event JSON for Perfetto; docs/timeline.md)")
    p.add_argument("-o", "--output", type=Path, default=None, help="file (default: stdout)")
    add_db_option(p)
    p.set_defaults(func=cmd)


def _run_name(run_id: int, ref: str) -> str:
    """A run as the user can find it again: its number, and the reference they typed when
    that was not the number ("run 42 (latest)")."""
    return f"run {run_id}" if ref.strip() == str(run_id) else f"run {run_id} ({ref.strip()})"


def cmd(args: argparse.Namespace) -> int:
    out: Path | None = args.output
    if out is not None and not out.parent.is_dir():
        raise RtoslabError(f"-o {out}: directory {out.parent} does not exist: create it first "
                           "or write elsewhere")
    store = open_db(args, read_only=True)
    run_id = resolve_run(store, args.run_id)
    view = store.load_run(run_id)
    if args.what == "summaries-csv":
        text = export_summaries_csv(view)
    elif args.what == "samples-csv":
        text = export_samples_csv(view, store.load_run_samples(view))
    elif args.what == "trace":
        # The timelines are stored under the run's number, whatever reference named it.
        timelines = load_run_timelines(store.path, view)
        if not timelines:
            raise RtoslabError(f"{_run_name(run_id, args.run_id)} has no timeline: rerun it with "
                               "`rtoslab run --trace` (or an experiment with the define "
                               "LAB_TRACE=1) to record one")
        text = chrome_trace_json(timelines)
    else:
        text = export_json(view, store.load_run_samples(view))
    if args.output is None:
        # raw into a file or pipe (the data as stored); on a terminal, escapes shown not obeyed
        sys.stdout.write(terminal_safe(text) if sys.stdout.isatty() else text)
    else:
        try:
            args.output.write_text(text)
        except OSError as err:
            raise RtoslabError(f"-o {args.output}: cannot write ({err.strerror}): write elsewhere") from err
    return 0
