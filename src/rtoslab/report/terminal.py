"""Terminal report: rich tables, one per configuration (one line per metric, the units as
columns), rendered to a string."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from io import StringIO

from rich import box
from rich.console import Console, RenderableType
from rich.table import Table
from rich.text import Text

from rtoslab.records import Summary, Unit
from rtoslab.report.comparison.table import axes_of
from rtoslab.report.fit import wrap_name
from rtoslab.report.labels import axes_label, timing_footer, varying_keys
from rtoslab.report.numbers import fmt_num
from rtoslab.report.rows import (
    Row,
    config_title,
    grouped_warnings,
    problem_rows,
    run_rows,
    time_base_lines,
)
from rtoslab.report.text import terminal_safe_value
from rtoslab.views import ConfigView, RunView

_STATUS_STYLE = {"running": "yellow", "complete": "green", "incomplete": "yellow", "failed": "red"}
_PROBLEM_LABEL = {"failed": ("FAILED", "bold red"), "n/a": ("n/a", "yellow")}


def _header(view: RunView) -> Text:
    text = Text()
    text.append(f"rtoslab run {view.id}", style="bold")
    text.append("  ")
    text.append(view.status, style=_STATUS_STYLE.get(view.status, ""))
    text.append(f"\nstarted {view.started_at}  finished {view.finished_at or '-'}")
    text.append(f"  revision {view.rtoslab_revision}  host {view.host}")
    if view.experiment:
        text.append(f"\nexperiment {view.experiment}")
    tools = ", ".join(f"{k} {v}" for k, v in sorted(view.tool_versions.items()))
    text.append(f"\ntools: {tools or '-'}")
    text.append(f"\ncommand: {view.command}")
    return text


# Spread statistics shown in a line's own unit (modelled cycles when the metric has them,
# else its first unit: guest instructions for a metric paced by the instruction clock, a
# derived metric's rate); the time column shows the median in µs or ms. All statistics in
# every unit are in the JSON, Markdown and HTML reports.
SPREAD = ("min", "median", "p99", "max", "stdev")
# A line's unit, in order of preference (time first, issue 28); `--unit insn` puts
# instructions first.
_PREFERENCE = (Unit.CYCLE, Unit.CYCLE_PER_OP, Unit.OP_PER_S, Unit.RATIO, Unit.INSN_PER_OP, Unit.INSN)
_NAMES_MIN = 12  # the narrowest column of names (longer names wrap)


@dataclass(frozen=True)
class _Line:
    """One table line: a benchmark's metric in every unit, or a benchmark's problem."""

    benchmark: str
    metric: str | None
    status: str
    reason: str | None
    summaries: dict[Unit, Summary]


def _lines(rows: list[Row]) -> list[_Line]:
    out: dict[tuple[str, str | None, int], _Line] = {}
    for row in rows:
        key = (row.benchmark, row.metric, row.result.id)
        line = out.setdefault(key, _Line(row.benchmark, row.metric, row.status, row.reason, {}))
        if row.unit is not None and row.summary is not None:
            line.summaries[row.unit] = row.summary
    return list(out.values())


def line_unit(units: Collection[Unit], first: Unit | None = None) -> Unit | None:
    """The unit a line's spread statistics are shown in: ``first`` when the metric has it,
    else modelled cycles, else the first of its other units."""
    order = ((first,) if first is not None else ()) + _PREFERENCE
    return next((u for u in order if u in units), next(iter(units), None))


def time_cell(us: float) -> str:
    """A time in µs, or in ms from 1,000 µs on (with its unit: a column may hold both)."""
    if abs(us) >= 1_000:
        return f"{fmt_num(round(us / 1000, 3))} ms"
    return f"{fmt_num(round(us, 3))} µs"


def _one_line(text: str, room: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= room else text[:max(1, room - 1)] + "…"


def _config_table(config: ConfigView, rows: list[Row], title: str, width: int, wide: bool,
                  first: Unit | None) -> list[RenderableType]:
    lines = _lines(rows)
    ok = [ln for ln in lines if ln.status not in _PROBLEM_LABEL]
    problems = [ln for ln in lines if ln.status in _PROBLEM_LABEL]
    caption = Text(
        f"{timing_footer(config)}\n"
        f"cflags: {config.cflags or '-'}  ldflags: {config.ldflags or '-'}  "
        f"kernel config {config.kernel_config_hash}"
    )
    units = {id(ln): line_unit(ln.summaries, first) for ln in ok}
    extra: dict[int, str] = {}
    for ln in ok:
        shown = {units[id(ln)], Unit.US, *((Unit.INSN,) if first is None else ())}
        extra[id(ln)] = "  ".join(f"{fmt_num(s.median)} {u}" for u, s in ln.summaries.items()
                                  if u not in shown)
    cells: list[list[str]] = []
    for ln in ok:
        unit = units[id(ln)]
        summary = ln.summaries.get(unit) if unit is not None else None
        us = ln.summaries.get(Unit.US)
        cells.append([str(summary.n) if summary else "", str(unit or "-"),
                      *(fmt_num(float(getattr(summary, st))) if summary else "" for st in SPREAD),
                      time_cell(us.median) if us is not None and unit != Unit.US else "",
                      extra[id(ln)]])
    shared = {units[id(ln)] for ln in ok}
    one_unit = len(shared) == 1 and None not in shared
    # one unit for every line: said in the statistics' headers; several: a unit column
    heads = ["n", "unit", *(f"{st}\n{next(iter(shared))}" if one_unit else st for st in SPREAD),
             "median\ntime", "median\nother units"]
    keep = [i for i, _ in enumerate(heads)
            if (i != 1 or not one_unit) and (i < 2 + len(SPREAD) or any(c[i] for c in cells))]
    widths = {i: max([len(w) for w in heads[i].split("\n")] + [len(c[i]) for c in cells])
              for i in keep}
    numbers_w = sum(w + 2 for w in widths.values())  # each: a space of its own and the rule
    bench_w = max([9, *(len(ln.benchmark) for ln in lines)])
    metric_w = max([6, *(len(ln.metric or "") for ln in ok)])
    room = width - numbers_w - 3  # the edges and the names column's rule
    # Wide, or room for both names: a benchmark and a metric column. Otherwise one column
    # of names: each benchmark a line of its own, its metrics indented under it (wrapped
    # when even that is too narrow); no number column is ever dropped.
    split = wide or room >= bench_w + metric_w + 3
    table = Table(title=Text(title, style="bold"), box=box.SIMPLE_HEAD, title_justify="left",
                  padding=0)
    if split:
        table.add_column("benchmark", no_wrap=True, min_width=bench_w + 1)
        table.add_column("metric", no_wrap=True, min_width=metric_w + 1)
    else:
        names_w = max(_NAMES_MIN, min(room, max(bench_w, metric_w + 2)))
        table.add_column("benchmark / metric", overflow="fold", width=names_w)
    left = {1, len(heads) - 1}  # the unit and other-units columns, left-aligned after a space
    for i in keep:
        head = "\n".join(" " + h for h in heads[i].split("\n")) if i in left else heads[i]
        table.add_column(head, justify="left" if i in left else "right", no_wrap=True,
                         min_width=widths[i] + 1)
    previous = None
    for ln, row in zip(ok, cells, strict=True):
        values = [Text(" " + row[i] if i in left else row[i]) for i in keep]
        if split:
            table.add_row(Text(ln.benchmark), Text(ln.metric or "-"), *values)
            continue
        if ln.benchmark != previous:
            table.add_row(Text(wrap_name(ln.benchmark, names_w), style="bold"),
                          *([Text("")] * len(keep)))
            previous = ln.benchmark
        table.add_row(Text(wrap_name(ln.metric or "-", names_w, "  ")), *values)
    parts: list[RenderableType] = [table, caption] if ok else [Text(title, style="bold"), caption]
    if problems:
        # one line each (issue 28, "said once"): `show --why` prints the full reason
        text = Text()
        for ln in problems:
            label, style = _PROBLEM_LABEL[ln.status]
            head = f"  {ln.benchmark}  {label}: "
            reason = ln.reason or "no reason given"
            text.append(f"\n{ln.benchmark}", style="bold")
            text.append(f"  {label}: ", style=style)
            text.append(reason if wide else _one_line(reason, width - len(head) - 1))
        parts.append(text)
    return parts


def config_headings(view: RunView) -> dict[int, str]:
    """Each configuration's table heading: what distinguishes it from the run's other
    configurations (the axes that vary), with its hash; a run of one configuration is
    headed by target, kernel and compiler."""
    if len(view.configs) < 2:
        return {c.id: f"{config_title(c)}  ({c.hash})" for c in view.configs}
    axes = [axes_of(c) for c in view.configs]
    keys = varying_keys(axes)
    return {c.id: f"{axes_label(a, keys) or config_title(c)}  ({c.hash})"
            for c, a in zip(view.configs, axes, strict=True)}


def run_renderables(view: RunView, configs: bool = True, header: bool = True, *, width: int = 120,
                    wide: bool = False, unit: Unit | None = None) -> list[RenderableType]:
    """The report as rich renderables, for printing to a live console: the header, then
    (``configs``) one table per configuration, one line per metric, units as columns."""
    rows = run_rows(view)
    parts: list[RenderableType] = [_header(view)] if header else []
    if not rows and header:
        parts.append(Text("\nNo results are stored for this run."))
    headings = config_headings(view)
    for config in view.configs if configs else ():
        parts.append(Text())
        parts += _config_table(config, [r for r in rows if r.config.id == config.id],
                               headings[config.id], width, wide, unit)
    if configs and problem_rows(rows):
        parts.append(Text(f"\nfull failure and n/a reasons: rtoslab show {view.id} --why BENCH"))
    warnings = grouped_warnings(rows) if configs else []
    if warnings:
        text = Text("\nwarnings:", style="bold yellow")
        for line in warnings:
            text.append(f"\n  {line}")
        parts.append(text)
    bases = time_base_lines(rows) if configs else []
    if bases:
        parts.append(Text(time_base_text(bases)))
    return parts


def time_base_text(bases: list[str]) -> str:
    """The time-base footer: which clock every metric's figures are on."""
    return "\ntime bases:" + "".join(f"\n  {line}" for line in bases)


class TerminalRenderer:
    name = "terminal"
    file_suffix = ".txt"

    def __init__(self, width: int = 120, color: bool = False, configs: bool = True,
                 header: bool = True, wide: bool = False, unit: Unit | None = None) -> None:
        self.width = width
        self.wide = wide  # one line per name and reason, however wide
        self.unit = unit  # the unit of the spread statistics where a metric has it
        self.color = color
        self.configs = configs  # one table per configuration (False: the header only)
        self.header = header  # the run's header (who, when, tools, command)

    def render(self, view: RunView) -> str:
        buffer = StringIO()
        console = Console(
            file=buffer,
            width=10_000 if self.wide else self.width,
            force_terminal=self.color,
            color_system="standard" if self.color else None,
            highlight=False,
            emoji=False,
            legacy_windows=False,
        )
        # names, reasons and titles may hold a firmware's or a folder's control characters
        for part in run_renderables(terminal_safe_value(view), self.configs, self.header,
                                    width=self.width, wide=self.wide, unit=self.unit):
            console.print(part)
        lines = buffer.getvalue().splitlines()
        return "\n".join(line.rstrip() for line in lines) + "\n"
