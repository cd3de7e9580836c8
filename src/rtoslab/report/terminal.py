"""Terminal report: rich tables, one per configuration, rendered to a string."""

from __future__ import annotations

from io import StringIO

from rich import box
from rich.console import Console, RenderableType
from rich.table import Table
from rich.text import Text

from rtoslab.report.numbers import STAT_COLUMNS, stat_cells
from rtoslab.report.rows import Row, config_title, run_rows, time_base_lines, warning_lines
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


def _row_cells(row: Row) -> list[Text]:
    # Text, not str: a str cell would be parsed as rich markup ("[x]" would vanish).
    if row.status in _PROBLEM_LABEL:
        label, style = _PROBLEM_LABEL[row.status]
        note = Text(f"{label}: {row.reason or 'no reason given'}", style=style)
        return [Text(row.benchmark), note, *(Text() for _ in range(1 + len(STAT_COLUMNS)))]
    cells = [row.benchmark, row.metric or "-", row.unit or "-", *stat_cells(row.summary)]
    return [Text(cell) for cell in cells]


def _config_table(config: ConfigView, rows: list[Row]) -> Table:
    table = Table(
        title=Text(f"{config_title(config)}  ({config.hash})", style="bold"),
        caption=Text(
            f"core {config.core}  kernel config {config.kernel_config_hash}  "
            f"cflags: {config.cflags or '-'}  ldflags: {config.ldflags or '-'}"
        ),
        box=box.SIMPLE_HEAD,
        title_justify="left",
        caption_justify="left",
    )
    table.add_column("benchmark", overflow="fold")
    table.add_column("metric", overflow="fold")
    table.add_column("unit")
    for column in STAT_COLUMNS:
        table.add_column(column, justify="right")
    for row in rows:
        table.add_row(*_row_cells(row))
    return table


def run_renderables(view: RunView) -> list[RenderableType]:
    """The report as rich renderables, for printing to a live console."""
    rows = run_rows(view)
    parts: list[RenderableType] = [_header(view)]
    if not rows:
        parts.append(Text("\nNo results are stored for this run."))
    for config in view.configs:
        parts.append(Text())
        parts.append(_config_table(config, [r for r in rows if r.config.id == config.id]))
    warnings = warning_lines(rows)
    if warnings:
        text = Text("\nwarnings:", style="bold yellow")
        for w in warnings:
            text.append(
                f"\n  {w.row.benchmark}/{w.row.metric} ({w.row.unit}) on {w.row.config.hash}: {w.text}"
            )
        parts.append(text)
    bases = time_base_lines(rows)
    if bases:
        parts.append(Text("\ntime bases:" + "".join(f"\n  {line}" for line in bases)))
    return parts


class TerminalRenderer:
    name = "terminal"
    file_suffix = ".txt"

    def __init__(self, width: int = 120, color: bool = False) -> None:
        self.width = width
        self.color = color

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
        for part in run_renderables(view):
            console.print(part)
        lines = buffer.getvalue().splitlines()
        return "\n".join(line.rstrip() for line in lines) + "\n"
