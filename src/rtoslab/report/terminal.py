"""Terminal report: rich tables, one per configuration (one line per metric, the units as
columns), rendered to a string."""

from __future__ import annotations

from dataclasses import dataclass
from io import StringIO

from rich import box
from rich.console import Console, RenderableType
from rich.table import Table
from rich.text import Text

from rtoslab.records import Summary, Unit
from rtoslab.report.comparison.table import axes_of
from rtoslab.report.labels import axes_label, timing_footer, varying_keys
from rtoslab.report.numbers import fmt_num
from rtoslab.report.rows import Row, config_title, grouped_warnings, run_rows, time_base_lines
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


# Spread statistics shown for the first unit of a table (guest instructions when measured:
# exact); every other unit shows its median. All statistics are in the JSON, Markdown
# and HTML reports.
SPREAD = ("min", "median", "p99", "max", "stdev")


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


def _config_table(config: ConfigView, rows: list[Row], title: str) -> Table:
    lines = _lines(rows)
    units = list(dict.fromkeys(u for ln in lines for u in ln.summaries))
    caption = Text(
        f"{timing_footer(config)}\n"
        f"cflags: {config.cflags or '-'}  ldflags: {config.ldflags or '-'}  "
        f"kernel config {config.kernel_config_hash}"
    )
    table = Table(title=Text(title, style="bold"), caption=caption, box=box.SIMPLE_HEAD,
                  title_justify="left", caption_justify="left")
    # Names are never cut or folded inside a word: their columns are as wide as the longest.
    table.add_column("benchmark", no_wrap=True, min_width=max([9, *(len(ln.benchmark) for ln in lines)]))
    metric_w = max([6, *(len(ln.metric or "") for ln in lines)])
    # a problem's reason wraps at spaces within the metric column and the statistics' room
    table.add_column("metric", min_width=metric_w, max_width=max(metric_w, 32))
    table.add_column("n", justify="right", no_wrap=True)
    heads: list[tuple[Unit, str]] = []
    if units:
        heads += [(units[0], stat) for stat in SPREAD]
        heads += [(u, "median") for u in units[1:]]
    for unit, stat in heads:
        table.add_column(f"{stat}\n{unit}", justify="right", no_wrap=True)
    for ln in lines:
        if ln.status in _PROBLEM_LABEL:
            label, style = _PROBLEM_LABEL[ln.status]
            note = Text(f"{label}: {ln.reason or 'no reason given'}", style=style)
            table.add_row(Text(ln.benchmark), note)
            continue
        first = next(iter(ln.summaries.values()), None)
        cells = [Text(ln.benchmark), Text(ln.metric or "-"), Text(str(first.n) if first else "")]
        for unit, stat in heads:
            summary = ln.summaries.get(unit)
            cells.append(Text("" if summary is None else fmt_num(float(getattr(summary, stat)))))
        table.add_row(*cells)
    return table


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


def run_renderables(view: RunView, configs: bool = True, header: bool = True) -> list[RenderableType]:
    """The report as rich renderables, for printing to a live console: the header, then
    (``configs``) one table per configuration, one line per metric, units as columns."""
    rows = run_rows(view)
    parts: list[RenderableType] = [_header(view)] if header else []
    if not rows and header:
        parts.append(Text("\nNo results are stored for this run."))
    headings = config_headings(view)
    for config in view.configs if configs else ():
        parts.append(Text())
        parts.append(_config_table(config, [r for r in rows if r.config.id == config.id],
                                   headings[config.id]))
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
                 header: bool = True) -> None:
        self.width = width
        self.color = color
        self.configs = configs  # one table per configuration (False: the header only)
        self.header = header  # the run's header (who, when, tools, command)

    def render(self, view: RunView) -> str:
        buffer = StringIO()
        console = Console(
            file=buffer,
            width=self.width,
            force_terminal=self.color,
            color_system="standard" if self.color else None,
            highlight=False,
            emoji=False,
            legacy_windows=False,
        )
        # names, reasons and titles may hold a firmware's or a folder's control characters
        for part in run_renderables(terminal_safe_value(view), self.configs, self.header):
            console.print(part)
        lines = buffer.getvalue().splitlines()
        return "\n".join(line.rstrip() for line in lines) + "\n"
