"""`rtoslab validate`: run the validation suite and compare with published figures
(rtoslab.validation, docs/validation.md)."""

from __future__ import annotations

import argparse
import os
import shlex
import sys

from rtoslab import validation
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
    p.add_argument("--board", default=None, metavar="TARGET",
                   help="run the suite (or --bench) on this board through its GDB server and on "
                   "the model, and print board cycles, model cycles and error per metric "
                   "(docs/boards.md)")
    p.add_argument("--gdb-server", default=None, metavar="HOST:PORT",
                   help="the board's GDB server (default: target.toml [board] gdb_server)")
    p.add_argument("--kernel", default="baremetal", help="kernel of --board runs (default: baremetal)")
    add_db_option(p)
    p.set_defaults(func=cmd)


def cmd_board(args: argparse.Namespace) -> int:
    """validate --board: the same sources on the board and on the model, side by side."""
    from rtoslab import api
    from rtoslab.catalog import na_reason

    catalog = args.catalog
    target = catalog.get_target(args.board)
    board = api.configuration(target=target.name, kernel=args.kernel, probe="buffer", catalog=catalog)
    model = validation.model_config(board)
    model.validate()
    benches = ([catalog.get_benchmark(n) for n in args.bench] if args.bench
               else catalog.suite_benchmarks(validation.SUITE))
    benches = [b for b in benches if na_reason(b, board.kernel_info(), target) is None]
    server = args.gdb_server or (target.spec.board.gdb_server if target.spec.board else None)
    if not server:
        raise RtoslabError(f"--board {target.name}: give --gdb-server HOST:PORT (the target names "
                           "no [board] gdb_server)")
    runner = api.gdb_runner(server)
    store = open_db(args)
    command = "rtoslab " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    board_run, board_results, _ = run_plan(store, [(board, benches)], command, jobs=1, runner=runner)
    model_run, model_results, _ = run_plan(store, [(model, benches)], command, jobs=args.jobs)
    rows = validation.board_rows(board_results, model_results)
    sys.stdout.write(f"board run {board_run} ({runner.measured_on(target.name)}), model run "
                     f"{model_run} ({model.target}, {' '.join(f'{k}={v}' for k, v in model.timing)})\n\n")
    sys.stdout.write(validation.board_table(rows, target.name, board.clock_hz()))
    return 0 if all(r.error is not None for r in rows) else 1


def cmd(args: argparse.Namespace) -> int:
    if args.board:
        return cmd_board(args)
    if args.gdb_server:
        raise RtoslabError("--gdb-server is for validate --board")
    benches = None
    if args.bench:
        benches = [args.catalog.get_benchmark(n) for n in args.bench]
        for b in benches:
            if not b.validation:
                raise RtoslabError(f"benchmark {b.name} has no [[validation]] entries in its "
                                   f"bench.toml: choose one of the '{validation.SUITE}' suite")
    plan = validation.plan(args.catalog, benches)
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
