"""rtoslab history: one metric across the runs of a database, in commit order."""

from __future__ import annotations

import argparse
import sys

from rtoslab.cli.common import add_db_option, open_db
from rtoslab.cli.run import parse_option
from rtoslab.records import SUMMARY_UNITS, RtoslabError, Unit
from rtoslab.report.comparison import STATS
from rtoslab.report.history import history_series, render_history_text, select_series
from rtoslab.report.text import terminal_safe
from rtoslab.store.db import Store
from rtoslab.views import FINISHED_STATUSES, RunView


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("history", help="a metric across the runs of a database, in commit order "
                       "(docs/ci.md)")
    p.add_argument("metric", help="the metric's name, e.g. yield")
    p.add_argument("--bench", default=None, metavar="NAME", help="only this benchmark's metric")
    p.add_argument("--config", action="append", default=[], metavar="AXIS=VALUE",
                   help="only configurations with this axis value (repeatable), e.g. opt=-O2")
    add_history_options(p)
    add_db_option(p)
    p.set_defaults(func=cmd)


def add_history_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--threshold", type=float, default=0.0, metavar="PCT",
                   help="mark a step up of more than PCT percent from the run before as a "
                   "regression (default 0: any step up)")
    p.add_argument("--stat", default="median", choices=STATS)
    p.add_argument("--unit", default=Unit.CYCLE.value, choices=[u.value for u in SUMMARY_UNITS],
                   help="default: cycle (modelled cycles)")


def load_runs(store: Store) -> list[RunView]:
    """Every finished run of the database (a run still being written is left out)."""
    infos = store.list_runs(limit=1_000_000)
    views = [store.load_run(i.id) for i in infos if i.status in FINISHED_STATUSES]
    if not views:
        raise RtoslabError(f"no finished runs in {store.path}: `rtoslab run` makes one")
    return views


def cmd(args: argparse.Namespace) -> int:
    if args.threshold < 0:
        raise RtoslabError(f"--threshold {args.threshold:g}: give a percentage >= 0")
    store = open_db(args, read_only=True)
    series = history_series(load_runs(store), unit=Unit(args.unit), stat=args.stat)
    config = dict(parse_option(c, "--config") for c in args.config)
    chosen = select_series(series, args.metric, args.bench, config)
    sys.stdout.write(terminal_safe(render_history_text(chosen, args.threshold)))
    return 0
