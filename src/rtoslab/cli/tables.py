"""What `run` and `show` print for a run: the header, the experiment's own tables (its
question, [[report.table]]), a summary per unit whose columns are the configurations
(labelled by the axes that vary, split to the terminal's width), then, behind
--per-config (or when there is one configuration), a table per configuration."""

from __future__ import annotations

import sys
import textwrap
from dataclasses import replace
from pathlib import Path

from rtoslab.catalog import Catalog
from rtoslab.experiments.experiment import load_experiment
from rtoslab.records import RtoslabError, Unit
from rtoslab.report.base import get_renderer
from rtoslab.report.comparison import experiment_tables
from rtoslab.report.comparison.table import axes_of
from rtoslab.report.irq_windows import text_section as irq_windows_text
from rtoslab.report.labels import timing_footer
from rtoslab.report.pivot import build_pivot, render_pivot
from rtoslab.report.rows import run_rows, time_base_lines
from rtoslab.report.spec import ReportSpec
from rtoslab.report.spec import from_json as spec_from_json
from rtoslab.report.terminal import TerminalRenderer, time_base_text
from rtoslab.report.text import terminal_safe, terminal_safe_value
from rtoslab.views import RunView


def report_spec_of(view: RunView, catalog: Catalog) -> ReportSpec | None:
    """The report spec of an experiment run: the one stored with it (schema v5 on); for a
    run stored before, its experiment file's, if it still loads (against ``catalog``, the
    command's). None: not an experiment (or an older run whose file is gone or no longer
    loads)."""
    if view.report_spec is not None:
        return for_view(spec_from_json(view.report_spec, f"run {view.id}"), view)
    if not view.experiment:
        return None
    try:
        return for_view(load_experiment(Path(view.experiment), catalog).report_spec(), view)
    except RtoslabError:
        return None


def for_view(spec: ReportSpec, view: RunView) -> ReportSpec:
    """The report spec as a run of part of its plan can show it: without the baselines
    that match none of the run's configurations (a shard's, `run --shard`, or an
    interrupted run's; the merged store of all shards has them all)."""
    axes = [axes_of(c) for c in view.configs]
    kept = tuple((name, match) for name, match in spec.baselines
                 if any(all(a.get(k) == v for k, v in match if k != "benchmark") for a in axes))
    return spec if len(kept) == len(spec.baselines) else replace(spec, baselines=kept)


def _footer(view: RunView) -> str:
    footers = list(dict.fromkeys(timing_footer(c) for c in view.configs))
    if len(footers) == 1:
        return footers[0]
    return "timing: differs between configurations (each configuration's table says; --per-config)"


def print_run_text(view: RunView, exp: ReportSpec | None, *, width: int, per_config: bool,
                   wide: bool, unit: Unit | None = None) -> None:
    out = sys.stdout
    view = terminal_safe_value(view)  # control characters shown as escapes (the store keeps them)
    many = len(view.configs) > 1
    out.write(TerminalRenderer(width=width, configs=False).render(view))
    if exp is not None and view.results:  # (a run stopped before its first result has none)
        for spec in exp.tables:
            out.write("\n" + render_pivot(build_pivot(view, spec, timing_footer), width=width, wide=wide))
    if many and any(r.status == "ok" for r in view.results):
        name = exp.name if exp is not None else f"run {view.id}"
        rows = exp.rows if exp is not None else "benchmark"
        baselines = exp.baseline_pairs() if exp is not None else []
        out.write("\n" + experiment_tables(view, name, rows, baselines, width=width, wide=wide,
                                           footer=_footer(view), units=(unit,) if unit else None))
    if per_config or not many:
        out.write(TerminalRenderer(width=width, configs=True, header=False, wide=wide,
                                   unit=unit).render(view))
    else:
        note = (f"{len(view.configs)} configurations: --per-config prints a table for each "
                "(all statistics, in every unit)")
        out.write("\n" + (note if wide else textwrap.fill(note, width)) + "\n")
        bases = time_base_lines(run_rows(view))
        if bases:
            text = time_base_text(bases)
            if not wide:
                text = "\n".join(textwrap.fill(line, width, subsequent_indent="    ")
                                  for line in text.split("\n"))
            out.write(text + "\n")
    windows = irq_windows_text(view)
    if windows:
        out.write("\n" + terminal_safe(windows))


def markdown_report(view: RunView, exp: ReportSpec | None) -> str:
    """The Markdown report, with the experiment's own tables ([[report.table]]) first,
    after the run's header and before the per-configuration sections; the masked
    interrupt windows (`run --irq-windows`) last."""
    text = _markdown_body(view, exp)
    windows = irq_windows_text(view)
    return f"{text}\n## Masked interrupt windows\n\n```\n{windows}```\n" if windows else text


def _markdown_body(view: RunView, exp: ReportSpec | None) -> str:
    text = get_renderer("markdown").render(view)
    if exp is None or not exp.tables or not view.results:
        return text
    tables = "\n".join(render_pivot(build_pivot(view, spec, timing_footer), "markdown")
                       for spec in exp.tables)
    head, sep, rest = text.partition("\n## ")
    return f"{head}\n## Results\n\n{tables}{sep}{rest}" if sep else f"{text}\n## Results\n\n{tables}"
