"""rtoslab runs: list stored runs, or delete one (--delete ID)."""

from __future__ import annotations

import argparse
import contextlib
import shutil
from datetime import datetime

from rich.table import Table
from rich.text import Text

from rtoslab.cli.common import StdoutConsole, add_db_option, open_db
from rtoslab.cli.run import report_path
from rtoslab.records import RtoslabError
from rtoslab.report.text import terminal_safe
from rtoslab.trace.timeline import run_timeline_files
from rtoslab.views import RunInfo

RUN_STATUSES = ("running", "complete", "incomplete", "failed")  # store/schema.py runs.status


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("runs", help="list stored runs, or delete one (--delete ID)")
    p.add_argument("--limit", type=int, default=20, help="the newest N that match (default 20)")
    p.add_argument("--status", choices=RUN_STATUSES, default=None, help="only runs with this status")
    p.add_argument("--experiment", metavar="TEXT", default=None,
                   help="only runs of an experiment file whose path contains TEXT")
    p.add_argument("--since", metavar="DATE", default=None,
                   help="only runs started on or after DATE (YYYY-MM-DD, or an ISO time in UTC)")
    p.add_argument("--delete", metavar="ID", type=int, default=None,
                   help="delete run ID: its results and samples from the database, its reports "
                   "(DB.run-ID.md and .html) and its timelines folder beside it (no question "
                   "asked; other runs untouched)")
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


def delete(args: argparse.Namespace) -> int:
    """`runs --delete ID`: the run's rows, then its reports at their default paths (beside
    the database; a report written elsewhere with `run --report` is not known to the store
    and stays) and its timelines folder; one line."""
    if args.status is not None or args.experiment is not None or args.since is not None:
        raise RtoslabError("--delete takes one run id: drop --status/--experiment/--since")
    store = open_db(args)
    run_id = int(args.delete)
    view = store.load_run(run_id)  # (an unknown id: one line, nothing deleted)
    own, legacy = run_timeline_files(store.path, view)
    n = store.delete_run(run_id)
    gone = []
    md = report_path(store.path, run_id)
    for path in (md, md.with_suffix(".html")):
        if path.is_file():
            path.unlink()
            gone.append(str(path))
    if own is not None:
        shutil.rmtree(own)
        gone.append(str(own))
    for path in legacy:
        path.unlink(missing_ok=True)
    if legacy:
        gone.append(f"{len(legacy)} timeline file(s) in {legacy[0].parent}")
        with contextlib.suppress(OSError):
            legacy[0].parent.rmdir()  # only when no other database's files are left in it
    print(f"deleted run {run_id}: {n} benchmark result(s) from {store.path}"
          + (f" and {', '.join(gone)}" if gone else ""))
    return 0


def cmd(args: argparse.Namespace) -> int:
    if args.delete is not None:
        return delete(args)
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
