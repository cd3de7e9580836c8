"""The flat rows every report is made of: one per metric per unit.

A result that failed or is n/a (or that measured nothing) is one row without metric,
unit and summary, carrying its reason. This is exactly the entry list of the JSON
schema ``rtoslab.run/1``; the table renderers group the same rows by configuration.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from rtoslab.records import TIME_BASE_NOTES, Summary, TimeBase, Unit
from rtoslab.views import ConfigView, ResultView, RunView


@dataclass(frozen=True)
class Row:
    result: ResultView
    metric: str | None
    unit: Unit | None
    summary: Summary | None
    time_base: TimeBase | None = None  # the metric's; None: no metric, or never recorded
    time_note: str = ""

    @property
    def benchmark(self) -> str:
        return self.result.benchmark

    @property
    def config(self) -> ConfigView:
        return self.result.config

    @property
    def status(self) -> str:
        return self.result.status

    @property
    def reason(self) -> str | None:
        return self.result.reason


@dataclass(frozen=True)
class WarningLine:
    row: Row
    text: str


def result_rows(result: ResultView) -> Iterator[Row]:
    if result.status != "ok" or not result.metrics:
        yield Row(result, None, None, None)
        return
    for metric in result.metrics:
        if not metric.summaries:
            yield Row(result, metric.name, None, None, metric.time_base, metric.time_note)
        for unit, summary in metric.summaries.items():
            yield Row(result, metric.name, unit, summary, metric.time_base, metric.time_note)


def run_rows(view: RunView) -> list[Row]:
    return [row for result in view.results for row in result_rows(result)]


def problem_rows(rows: list[Row]) -> list[Row]:
    """Rows of results that failed or are n/a."""
    return [row for row in rows if row.status != "ok"]


def warning_lines(rows: list[Row]) -> list[WarningLine]:
    return [
        WarningLine(row, text) for row in rows if row.summary is not None for text in row.summary.warnings
    ]


def grouped_warnings(rows: list[Row]) -> list[str]:
    """The warnings said once each (issue 28, "said once"): one line per warning text and
    configuration, naming every benchmark/metric it concerns once, with the units it was
    raised for, e.g. ``only 1 samples; ...: t_timer/timer_first, t_timer/timer_busy (insn,
    cycle, us) on 18cdb238bbd4``."""
    groups: dict[tuple[str, str], tuple[dict[str, None], dict[str, None]]] = {}
    for w in warning_lines(rows):
        metrics, units = groups.setdefault((w.text, w.row.config.hash), ({}, {}))
        metrics.setdefault(f"{w.row.benchmark}/{w.row.metric or '-'}")
        units.setdefault(str(w.row.unit))
    return [f"{text}: {', '.join(metrics)} ({', '.join(units)}) on {config}"
            for (text, config), (metrics, units) in groups.items()]


def time_base_lines(rows: list[Row]) -> list[str]:
    """The footer every report prints about time bases: one line per benchmark/metric whose
    figures are not modelled probe intervals (virtual, derived or never recorded), each
    once, then what the other metrics stand on. Empty when there are no metrics."""
    lines: list[str] = []
    seen: set[str] = set()
    any_metric = False
    for row in rows:
        if row.metric is None:
            continue
        any_metric = True
        if row.time_base is TimeBase.MODELLED:
            continue
        if row.time_base is None:
            text = (f"{row.benchmark}/{row.metric}: time base unstated "
                    "(stored before time bases were recorded)")
        else:
            text = f"{row.benchmark}/{row.metric}: {row.time_base}: {TIME_BASE_NOTES[row.time_base]}"
            if row.time_note:
                text += f"; {row.time_note}"
        if text not in seen:
            seen.add(text)
            lines.append(text)
    if any_metric:
        which = "every other metric" if lines else "every metric"
        lines.append(f"{which}: {TimeBase.MODELLED}: {TIME_BASE_NOTES[TimeBase.MODELLED]}; "
                     "us = cycles at the configured clock")
    return lines


def config_title(config: ConfigView) -> str:
    """``mps2-an385 · freertos · arm-none-eabi-gcc 13.2.1``"""
    compiler = f"{config.compiler} {config.compiler_version}".strip()
    where = str(config.identity.get("measured_on", "model"))
    on = f"measured on {where}" if where != "model" else ""
    return " · ".join(part for part in (config.target, config.kernel, compiler, on) if part)
