"""rtoslab runs: list stored runs."""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.table import Table

from rtoslab.cli.common import add_db_option, open_db


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("runs", help="list stored runs")
    p.add_argument("--limit", type=int, default=20)
    add_db_option(p)
    p.set_defaults(func=cmd)


def cmd(args: argparse.Namespace) -> int:
    store = open_db(args, read_only=True)
    t = Table(title=f"runs in {store.path}")
    for col in ("id", "started", "status", "ok", "failed", "n/a", "command"):
        t.add_column(col)
    for r in store.list_runs(args.limit):
        t.add_row(str(r.id), r.started_at, r.status, str(r.n_ok), str(r.n_failed), str(r.n_na),
                  r.command)
    Console().print(t)
    return 0
