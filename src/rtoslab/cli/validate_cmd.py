"""`rtoslab validate`: run the validation suite and compare with published figures
(rtoslab.validation, docs/validation.md)."""

from __future__ import annotations

import argparse
import os
import shlex
import sys

from rtoslab import validation
from rtoslab.catalog import get_benchmark
from rtoslab.cli.common import add_db_option, open_db
from rtoslab.cli.run import run_plan
from rtoslab.records import RtoslabError


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("validate", help="run the validation suite: modelled cycles against "
                       "published hardware figures (docs/validation.md)")
    p.add_argument("--bench", action="append", default=[], metavar="NAME",
                   help="only this validation benchmark (repeatable)")
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                   help="parallel builds and runs (default: number of cores)")
    add_db_option(p)
    p.set_defaults(func=cmd)


def cmd(args: argparse.Namespace) -> int:
    benches = None
    if args.bench:
        benches = [get_benchmark(n) for n in args.bench]
        for b in benches:
            if not b.validation:
                raise RtoslabError(f"benchmark {b.name} has no [[validation]] entries in its "
                                   f"bench.toml: choose one of the '{validation.SUITE}' suite")
    plan = validation.plan(benches)
    store = open_db(args)
    command = "rtoslab " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    run_id, results, _status = run_plan(store, plan, command, jobs=args.jobs)
    cases = validation.compare(plan, results)
    sys.stdout.write(f"run {run_id}\n\n")
    sys.stdout.write(validation.markdown(cases))
    stale = [c for c in cases if c.case.gap and c.within]
    for c in stale:
        sys.stdout.write(f"\n{c.benchmark}.{c.case.metric}: now within tolerance: drop its "
                         "'gap' note in bench.toml\n")
    return 0 if all(c.as_expected for c in cases) else 1
