"""rtoslab compare: two runs, or the configurations within one run, side by side."""

from __future__ import annotations

import argparse
import sys

from rtoslab.api import resolve_run
from rtoslab.cli.common import RUN_REF_HELP, add_db_option, open_db, terminal_width
from rtoslab.cli.run import parse_option
from rtoslab.records import SUMMARY_UNITS, RtoslabError, Unit
from rtoslab.report.comparison import FORMATS, STATS, regressions, render_comparison, run_table
from rtoslab.views import RunView


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("compare", help="compare two runs, or the configurations of one run")
    p.add_argument("runs", nargs="+", help="one run (its configurations side by side) or two "
                   "(second / first for each shared configuration); each " + RUN_REF_HELP +
                   ", e.g. `compare latest~1 latest`")
    p.add_argument("--stat", default="median", choices=STATS)
    p.add_argument("--unit", default=None, choices=[u.value for u in SUMMARY_UNITS],
                   help="modelled cycles, microseconds or guest instructions (default: cycle, or "
                   "insn when a run has no cycle model); a derived unit (insn/op, cycle/op, op/s, "
                   "ratio) shows the metrics that have it")
    p.add_argument("--rows", default="benchmark", choices=("benchmark", "metric"),
                   help="row per benchmark metric, or per metric name across benchmarks")
    p.add_argument("--baseline", action="append", default=[], metavar="AXIS=VALUE",
                   help="baseline axis values for ratio columns, e.g. kernel=baremetal "
                   "(default: the first configuration)")
    p.add_argument("--fail-above", type=float, default=None, metavar="PCT",
                   help="exit 1 if any ratio exceeds 1 + PCT/100 (a CI regression gate)")
    p.add_argument("--format", default="terminal", choices=FORMATS)
    p.add_argument("--wide", action="store_true",
                   help="one table however wide (default: split to the terminal's width, names "
                   "wrapped)")
    add_db_option(p)
    p.set_defaults(func=cmd)


def cmd(args: argparse.Namespace) -> int:
    if len(args.runs) > 2:
        raise RtoslabError("compare takes one or two run ids")
    store = open_db(args, read_only=True)
    views = [store.load_run(resolve_run(store, r)) for r in args.runs]
    baseline: dict[str, object] | None = None
    if args.baseline:
        match = dict(parse_option(b) for b in args.baseline)
        baseline = {k: (v == "true" if v in ("true", "false") else v) for k, v in match.items()}
    table = run_table(views, stat=args.stat, unit=Unit(args.unit or default_unit(views)), rows=args.rows,
                      baseline=baseline)
    sys.stdout.write(render_comparison(table, args.format, width=terminal_width(), wide=args.wide))
    if args.fail_above is not None:
        bad = regressions(table, args.fail_above)
        for line in bad:
            print(f"regression: {line}", file=sys.stderr)
        if bad:
            return 1
    return 0


def default_unit(views: list[RunView]) -> str:
    """Modelled time first (issue 28): cycles, unless a compared configuration has no
    cycle model (``core=none``: its metrics have instructions only)."""
    priced = all(str(c.timing.get("core", c.core)) != "none" for v in views for c in v.configs)
    return Unit.CYCLE.value if priced else Unit.INSN.value
