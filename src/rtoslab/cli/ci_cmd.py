"""rtoslab ci: measure a change, compare it with a baseline, write a PR summary and JUnit XML.

The change is a suite (or benchmarks, or an experiment file) on one configuration, built
from ``--kernel-source`` (or rtoslab.toml's tree, or the pinned sources). The baseline is a
run stored in a database from the base branch (``--baseline-db``, its latest run unless
``--baseline-run``), or a second tree measured in the same job (``--baseline-source``).
Exit status: 0 when no metric grew by more than ``--fail-above`` percent, 1 when one did
(or a benchmark failed), 2 on bad input (README, "Exit status"; docs/ci.md).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import sys
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from rtoslab import api
from rtoslab.api import resolve_run
from rtoslab.builder.config import BuildConfig, with_kernel_source
from rtoslab.catalog import Benchmark
from rtoslab.cli.common import (
    add_db_option,
    add_kernel_source_option,
    add_path_options,
    open_db,
)
from rtoslab.cli.compare_cmd import default_unit
from rtoslab.cli.run import (
    add_selection_options,
    announce_plan,
    config_from_args,
    experiment_from_args,
    fill_selection_defaults,
    refuse_selection_with_file,
    run_plan,
    select_benchmarks,
)
from rtoslab.records import SUMMARY_UNITS, RtoslabError, Unit
from rtoslab.report.ci import CiResult, ci_result, headline, render_junit, render_markdown
from rtoslab.report.comparison import STATS, compare_runs
from rtoslab.report.labels import kernel_source_text
from rtoslab.report.spec import ReportSpec
from rtoslab.store.db import Store, open_store
from rtoslab.views import ResultView, RunView

# Identity keys that may differ between base and change without a warning: the kernel tree
# (what is compared) and the hashes that follow from it.
_EXPECTED = frozenset({"kernel_source", "identity_hash", "image_key", "measure_key"})

Plan = list[tuple[BuildConfig, list[Benchmark]]]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("ci", help="measure a change against a baseline: PR summary, JUnit XML, "
                       "exit 1 on a regression (docs/ci.md)")
    p.add_argument("experiment", nargs="?", type=Path, default=None,
                   help="an experiment file (TOML); without it, --suite/--bench on one configuration")
    add_selection_options(p)
    add_kernel_source_option(p)
    base = p.add_argument_group("the baseline (one of)")
    base.add_argument("--baseline-db", type=Path, default=None, metavar="DB",
                      help="a results database from the base branch: compare with its latest run "
                      "(or --baseline-run)")
    base.add_argument("--baseline-run", default=None, metavar="REF",
                      help="the baseline run in --baseline-db (or, without it, in --db): an id, "
                      "'latest' or 'latest~N' (default: latest)")
    base.add_argument("--baseline-source", type=Path, default=None, metavar="DIR",
                      help="a second kernel tree (the base branch's), measured in this job first")
    p.add_argument("--fail-above", type=float, default=0.0, metavar="PCT",
                   help="fail (exit 1) when a metric grows by more than PCT percent (default 0: "
                   "any growth; the platform is deterministic, so a delta is never noise)")
    p.add_argument("--stat", default="median", choices=STATS)
    p.add_argument("--unit", default=None, choices=[u.value for u in SUMMARY_UNITS],
                   help="default: cycle (modelled cycles), or insn when a run has no cycle model")
    p.add_argument("--summary", type=Path, default=None, metavar="PATH",
                   help="write the Markdown summary here (default: standard output); it is also "
                   "appended to $GITHUB_STEP_SUMMARY when that is set")
    p.add_argument("--junit", type=Path, default=None, metavar="PATH",
                   help="write JUnit XML here: one test case per metric")
    add_path_options(p)
    add_db_option(p)
    p.set_defaults(func=cmd)


def _plan(args: argparse.Namespace) -> tuple[Plan, str | None, ReportSpec | None]:
    """The plan of the change (its kernel tree: --kernel-source, else the experiment's or
    rtoslab.toml's), its experiment file and that file's report spec (stored with the runs)."""
    if args.experiment is not None:
        refuse_selection_with_file(args)
        exp = experiment_from_args(args)
        return exp.plan(), str(args.experiment), exp.report_spec()
    fill_selection_defaults(args)
    args.catalog.get_target(args.target)
    args.catalog.get_kernel(args.kernel)
    return [(config_from_args(args), select_benchmarks(args))], None, None


def _baseline_plan(plan: Plan, folder: Path) -> Plan:
    """The change's plan with every kernel that takes a tree built from ``folder``."""
    if not any(c.kernel_info().source is not None for c, _ in plan):
        raise RtoslabError("--baseline-source: no kernel of this job takes a kernel source tree "
                           "(port.toml [kernel_source]); compare with --baseline-db instead")
    return [(with_kernel_source(replace(c, kernel_source=""), folder, given=False,
                                where="--baseline-source"), b) for c, b in plan]


def _side(view: RunView, db: Path) -> str:
    """A run in words: ``run 3 of base.sqlite (FreeRTOS-Kernel V11.2.0 at 1a2b3c4d5e6f)``."""
    sources = {kernel_source_text(s) for c in view.configs
               if isinstance(s := c.identity.get("kernel_source"), Mapping)}
    kernels = sorted({c.kernel for c in view.configs})
    tree = (f"kernel tree {', '.join(sorted(sources))}" if sources
            else f"the pinned {', '.join(kernels)} sources")
    return f"run {view.id} of {db.name} ({tree}; rtoslab {view.rtoslab_revision})"


def _warnings(table_pairs: list[tuple[ResultView, ResultView]]) -> list[str]:
    """What differs between base and change besides the kernel tree (tools, flags, the
    benchmarks' own sources): said in the summary, since the deltas include it."""
    out: list[str] = []
    seen: set[tuple[int, int]] = set()
    benches: list[str] = []
    for b, c in table_pairs:
        if b.source_hash != c.source_hash:
            benches.append(c.benchmark)
        key = (b.config.id, c.config.id)
        if key in seen:
            continue
        seen.add(key)
        keys = sorted(k for k in {*b.config.identity, *c.config.identity} - _EXPECTED
                      if b.config.identity.get(k) != c.config.identity.get(k))
        if keys:
            shown = "; ".join(f"{k}: {b.config.identity.get(k, '-')} -> {c.config.identity.get(k, '-')}"
                              for k in keys)
            out.append(f"base and change differ beyond the kernel tree ({shown}): the deltas "
                       "include that difference")
    if benches:
        out.append(f"the benchmarks' own sources differ between base and change "
                   f"({', '.join(sorted(set(benches)))}: another rtoslab revision): the deltas "
                   "include that difference")
    return out


def cmd(args: argparse.Namespace) -> int:
    if args.fail_above < 0:
        raise RtoslabError(f"--fail-above {args.fail_above:g}: give a percentage >= 0")
    if args.baseline_source is not None and (args.baseline_db is not None or args.baseline_run is not None):
        raise RtoslabError("give one baseline: --baseline-source DIR, or --baseline-db DB "
                           "(with --baseline-run REF)")
    if args.baseline_source is None and args.baseline_db is None and args.baseline_run is None:
        raise RtoslabError("no baseline: give --baseline-db DB (the base branch's results) or "
                           "--baseline-source DIR (the base branch's kernel tree)")
    plan, experiment, spec = _plan(args)
    base_plan = _baseline_plan(plan, args.baseline_source) if args.baseline_source is not None else None

    # the baseline's database first: a missing one is refused before --db is created
    base_store: Store | None = None
    if base_plan is None and args.baseline_db is not None:
        base_store = open_store(args.baseline_db, read_only=True, option="--baseline-db")
    store = open_db(args)
    base_store = base_store if base_store is not None else store
    base_id: int | None = None
    if base_plan is None:
        base_id = resolve_run(base_store, args.baseline_run or "latest")
        base_store.load_run(base_id)  # an unknown run id: one line now, before any work
    command = "rtoslab " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    api.check_machine([*(base_plan or []), *plan])  # tools and caches: before any run record
    if base_plan is not None:
        announce_plan(store, base_plan, args.jobs, True, "ci baseline")
        base_id, _, _ = run_plan(store, base_plan, command + "  # baseline", experiment, args.jobs,
                                 report_spec=spec)
    announce_plan(store, plan, args.jobs, True, "ci change")
    change_id, _, _ = run_plan(store, plan, command, experiment, args.jobs, report_spec=spec)

    assert base_id is not None
    base_view, change_view = base_store.load_run(base_id), store.load_run(change_id)
    base_db = args.baseline_db if args.baseline_db is not None else store.path
    result = compare(base_view, change_view, args, base=_side(base_view, base_db),
                     change=_side(change_view, store.path))
    write_outputs(result, args.summary, args.junit)
    with contextlib.suppress(OSError):
        print(headline(result), file=sys.stderr)
    return 0 if result.passed else 1


def compare(base_view: RunView, change_view: RunView, args: argparse.Namespace, *, base: str,
            change: str) -> CiResult:
    """The change's run against the baseline run, configuration by configuration (each must
    have its twin in the baseline: same axes), on the change's benchmarks."""
    names = {r.benchmark for r in change_view.results}
    base_results = [r for r in base_view.results if r.benchmark in names]
    if not base_results:
        raise RtoslabError(f"baseline run {base_view.id} has none of the benchmarks measured here "
                           f"({', '.join(sorted(names))}): give a baseline of the same suite")
    unit = Unit(args.unit or default_unit([base_view, change_view]))
    # Sides 0 (base) and 1 (change): the two runs may come from two databases.
    table = compare_runs(base_results, change_view.results, 0, 1, stat=args.stat, unit=unit)
    paired = {rc.column.key: rc for rc in table.ratios if rc.base.axes == rc.column.axes}
    for col in table.columns:
        if col.run_id == 1 and col.key not in paired:
            olds = [c for c in table.columns if c.run_id == 0]
            near = min(olds, key=lambda c: len(_differ(c.axes, col.axes)))
            said = ", ".join(f"{k.split('.', 1)[-1]} {near.axes.get(k, '-')} -> {col.axes.get(k, '-')}"
                             for k in _differ(near.axes, col.axes))
            raise RtoslabError(f"baseline run {base_view.id} has no configuration like the change's "
                               f"({said}): give a baseline measured with the same configuration")
    table = replace(table, ratios=tuple(paired.values()))
    pairs = []
    for rc in table.ratios:
        by_bench = {r.benchmark: r for r in base_results if r.config.id == rc.base.config.id}
        pairs += [(by_bench[r.benchmark], r) for r in change_view.results
                  if r.config.id == rc.column.config.id and r.benchmark in by_bench]
    return ci_result(table, args.fail_above, base=base, change=change, warnings=_warnings(pairs))


def _differ(a: Mapping[str, object], b: Mapping[str, object]) -> list[str]:
    return [k for k in dict.fromkeys([*a, *b]) if a.get(k) != b.get(k)]


def write_outputs(result: CiResult, summary: Path | None, junit: Path | None) -> None:
    """The Markdown summary (to ``summary`` or stdout, and appended to GITHUB_STEP_SUMMARY
    when set) and the JUnit XML."""
    text = render_markdown(result)
    targets: list[tuple[Path, str, str]] = []
    if summary is not None:
        targets.append((summary, text, "w"))
    step = os.environ.get("GITHUB_STEP_SUMMARY")
    if step:
        targets.append((Path(step), text + "\n", "a"))
    if junit is not None:
        targets.append((junit, render_junit(result), "w"))
    for path, body, mode in targets:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open(mode, encoding="utf-8") as f:
                f.write(body)
        except OSError as err:
            raise RtoslabError(f"cannot write {path} ({err.strerror}): the runs are stored; "
                               "fix the path and run `rtoslab ci` again") from err
    if summary is None:
        sys.stdout.write(text)
