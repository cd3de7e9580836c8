"""Markdown report: run identity, a statistics table per configuration, problems, warnings."""

from __future__ import annotations

import json

from rtoslab.report.labels import kernel_label
from rtoslab.report.numbers import STAT_COLUMNS, stat_cells
from rtoslab.report.rows import Row, config_title, grouped_warnings, problem_rows, run_rows, time_base_lines
from rtoslab.report.text import markdown_safe
from rtoslab.views import ConfigView, RunView

_HEADER = ("benchmark", "metric", "unit", *STAT_COLUMNS)
_ALIGN = ("---", "---", "---", *("--:" for _ in STAT_COLUMNS))


def _cell(text: str) -> str:
    """Text safe inside a table cell or a line of prose: one line, pipes escaped, HTML
    shown as text (``markdown_safe``)."""
    return markdown_safe(text)


def _code(text: str) -> str:
    """An inline code span that survives backticks in ``text``."""
    if not text:
        return "(none)"
    fence = "``" if "`" in text else "`"
    pad = " " if fence == "``" else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _table(header: tuple[str, ...], align: tuple[str, ...], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return lines


def _identity(view: RunView) -> list[str]:
    tools = ", ".join(f"{name} {version}" for name, version in sorted(view.tool_versions.items()))
    fields = [  # (code spans show their text as it is; the rest is escaped)
        ("status", _cell(view.status)),
        ("started", _cell(view.started_at)),
        ("finished", _cell(view.finished_at or "-")),
        ("revision", _code(view.rtoslab_revision)),
        ("host", _cell(view.host)),
    ]
    if view.experiment:
        fields.append(("experiment", _cell(view.experiment)))
    fields += [("command", _code(view.command)), ("tools", _cell(tools or "-"))]
    return [f"- {key}: {value}" for key, value in fields]


def _json_code(value: dict[str, object]) -> str:
    return _code(json.dumps(value, sort_keys=True)) if value else "(none)"


def _config_lines(config: ConfigView) -> list[str]:
    return [
        f"- configuration: {_code(config.hash)}",
        f"- target: {_cell(config.target)} (core {_cell(config.core)})",
        f"- kernel: {_cell(kernel_label(config))}",
        f"- kernel config: {_json_code(config.kernel_config)} (hash {_code(config.kernel_config_hash)})",
        f"- compiler: {_cell(config.compiler)} {_cell(config.compiler_version)}",
        f"- cflags: {_code(config.cflags)}",
        f"- ldflags: {_code(config.ldflags)}",
        f"- timing model: {_json_code(config.timing)}",
    ]


def _stat_row(row: Row) -> list[str]:
    return [row.benchmark, row.metric or "-", row.unit or "-", *stat_cells(row.summary)]


def _where(row: Row) -> str:
    """Benchmark and configuration of a row, for the problem and warning lists."""
    return f"{_code(row.benchmark)} on {_cell(config_title(row.config))} ({_code(row.config.hash)})"


class MarkdownRenderer:
    name = "markdown"
    file_suffix = ".md"

    def render(self, view: RunView) -> str:
        rows = run_rows(view)
        out = [f"# rtoslab run {view.id}", "", *_identity(view)]
        if not rows:
            out += ["", "No results are stored for this run."]
        for config in view.configs:
            ok = [r for r in rows if r.config.id == config.id and r.status == "ok"]
            out += ["", f"## {_cell(config_title(config))}", "", *_config_lines(config), ""]
            if ok:
                out += _table(_HEADER, _ALIGN, [_stat_row(r) for r in ok])
            else:
                out.append("No measurements in this configuration.")
        problems = problem_rows(rows)
        if problems:
            out += ["", "## Failed and n/a benchmarks", ""]
            out += [
                f"- {_where(r)}: **{r.status}**: {_cell(r.reason or 'no reason given')}" for r in problems
            ]
        warnings = grouped_warnings(rows)
        if warnings:
            out += ["", "## Warnings", ""]
            out += [f"- {_cell(line)}" for line in warnings]
        bases = time_base_lines(rows)
        if bases:
            out += ["", "## Time bases", "", *(f"- {_cell(line)}" for line in bases)]
        return "\n".join(out) + "\n"
