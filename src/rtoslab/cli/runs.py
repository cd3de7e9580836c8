"""rtoslab runs: list stored runs."""

from __future__ import annotations

import argparse
from datetime import datetime

from rich.table import Table
from rich.text import Text

from rtoslab.cli.common import StdoutConsole, add_db_option, open_db
from rtoslab.records import RtoslabError
from rtoslab.report.text import terminal_safe
from rtoslab.views import RunInfo

RUN_STATUSES = ("running", "complete", "incomplete", "failed")  # store/schema.py runs.status


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("runs", help="list stored runs")
    p.add_argument("--limit", type=int, default=20, help="the newest N that match (default 20)")
    p.add_argument("--status", choices=RUN_STATUSES, default=None, help="only runs with this status")
    p.add_argument("--experiment", metavar="TEXT", default=None,
                   help="only runs of an experiment file whose path contains TEXT")
    p.add_argument("--since", metavar="DATE", default=None,
                   help="only runs started on or after DATE (YYYY-MM-DD, or an ISO time in UTC)")
    add_db_option(p)
    p.set_defaults(func=cmd)


def _since(text: str) -> str:
    """The --since bound as a comparable ISO string; one line when it is not a date."""
    try:
        when = datetime.fromisoformat(text.removesuffix("Z"))
    except ValueError:
        raise RtoslabError(f"--since {text!r}: give a date YYYY-MM-DD or a time "
                           "YYYY-MM-DDTHH:MM:SS (UTC)") from None
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def matching(runs: list[RunInfo], status: str | None, experiment: str | None,
             since: str | None) -> list[RunInfo]:
    """The runs that pass every filter given (runs are listed newest first)."""
    bound = _since(since) if since is not None else None
    return [r for r in runs
            if (status is None or r.status == status)
            and (experiment is None or (r.experiment is not None and experiment in r.experiment))
            and (bound is None or r.started_at >= bound)]


def cmd(args: argparse.Namespace) -> int:
    if args.limit < 1:
        raise RtoslabError("--limit must be 1 or more")
    store = open_db(args, read_only=True)
    filtered = args.status is not None or args.experiment is not None or args.since is not None
    runs = store.list_runs(-1 if filtered else args.limit)  # SQLite: LIMIT -1 is no limit
    runs = matching(runs, args.status, args.experiment, args.since)[: args.limit]
    t = Table(title=Text(terminal_safe(f"runs in {store.path}")))
    for col in ("id", "started", "status", "ok", "failed", "n/a", "command"):
        t.add_column(col)
    for r in runs:
        # Text: a command holding [brackets] is not markup; control characters as escapes
        t.add_row(*(Text(terminal_safe(str(x))) for x in (r.id, r.started_at, r.status, r.n_ok,
                                                           r.n_failed, r.n_na, r.command)))
    StdoutConsole().print(t)
    return 0
