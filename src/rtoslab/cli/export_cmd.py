"""rtoslab export: a stored run's summaries or raw samples as CSV or JSON."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rtoslab.cli.common import add_db_option, open_db
from rtoslab.report.export import export_json, export_samples_csv, export_summaries_csv

WHAT = ("summaries-csv", "samples-csv", "json")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("export", help="export a run's summaries or raw samples (CSV, JSON)")
    p.add_argument("run_id", type=int)
    p.add_argument("--what", default="summaries-csv", choices=WHAT,
                   help="summaries-csv (default), samples-csv, or json (summaries + raw samples, "
                   "schema rtoslab.export/1)")
    p.add_argument("-o", "--output", type=Path, default=None, help="file (default: stdout)")
    add_db_option(p)
    p.set_defaults(func=cmd)


def cmd(args: argparse.Namespace) -> int:
    store = open_db(args)
    view = store.load_run(args.run_id)
    if args.what == "summaries-csv":
        text = export_summaries_csv(view)
    elif args.what == "samples-csv":
        text = export_samples_csv(view, store.load_run_samples(view))
    else:
        text = export_json(view, store.load_run_samples(view))
    if args.output is None:
        sys.stdout.write(text)
    else:
        args.output.write_text(text)
    return 0
