"""What `rtoslab ci` writes: a change measured against a baseline, metric by metric.

Built from a comparison table of two runs (``comparison.compare_runs``: base / change for
each configuration they share), so the gate and ``rtoslab compare --fail-above`` agree on
what a regression is (``comparison.is_regression``). Renderers: Markdown (a pull-request
comment: changed metrics first, exact deltas) and JUnit XML (one test case per metric).
Plain values in, text out.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rtoslab.report.comparison import ComparisonTable, is_regression
from rtoslab.report.labels import SEPARATOR, kernel_source_text, timing_footer
from rtoslab.report.numbers import fmt_num
from rtoslab.report.text import markdown_safe
from rtoslab.views import ConfigView

# Statuses, in the order the summary lists them; the first three fail the gate.
STATUS_ORDER = ("failed", "missing", "regressed", "changed", "improved", "new", "unchanged")
FAILING = frozenset({"failed", "missing", "regressed"})
_WORDS = {"failed": "FAILED", "missing": "MISSING", "regressed": "REGRESSED", "changed": "changed",
          "improved": "improved", "new": "new", "unchanged": "unchanged"}


@dataclass(frozen=True)
class MetricDelta:
    """One metric of one configuration: its value on both sides and what that means.

    ``metric`` is None for a whole benchmark that failed (no metrics to compare)."""

    config: str  # the configuration's short name ("" when the comparison has one)
    benchmark: str
    metric: str | None
    base: float | None
    change: float | None
    status: str  # one of STATUS_ORDER
    note: str = ""  # why, for failed / missing

    @property
    def delta(self) -> float | None:
        if self.base is None or self.change is None:
            return None
        return self.change - self.base

    @property
    def percent(self) -> float | None:
        d = self.delta
        if d is None or self.base is None:
            return None
        if self.base == 0:
            return 0.0 if d == 0 else float("inf") if d > 0 else float("-inf")
        return 100.0 * d / self.base

    @property
    def name(self) -> str:
        return f"{self.benchmark}/{self.metric}" if self.metric else self.benchmark


@dataclass(frozen=True)
class CiResult:
    """The gate's verdict with everything the summary shows."""

    stat: str
    unit: str
    fail_above: float
    deltas: tuple[MetricDelta, ...]
    base: str  # what the baseline is, in words ("run 3 of base.sqlite: FreeRTOS-Kernel ...")
    change: str
    configs: tuple[tuple[str, str], ...]  # (short name, full description) per configuration
    warnings: tuple[str, ...] = ()  # identity differences beyond the kernel tree

    @property
    def failing(self) -> tuple[MetricDelta, ...]:
        return tuple(d for d in self.deltas if d.status in FAILING)

    @property
    def passed(self) -> bool:
        return not self.failing

    def count(self, *statuses: str) -> int:
        return sum(1 for d in self.deltas if d.status in statuses)


def config_text(config: ConfigView) -> str:
    """A configuration in full: target, kernel (with its source tree), flags, defines and
    the timing settings its cycles depend on."""
    parts = [config.target, config.kernel]
    source = config.identity.get("kernel_source")
    if isinstance(source, Mapping):
        parts[-1] += f" ({kernel_source_text(source)})"
    parts.append(config.cflags or "no flags")
    defines = config.identity.get("defines")
    if isinstance(defines, Mapping):
        parts += [f"{k}={v}" for k, v in sorted(defines.items())]
    return SEPARATOR.join(parts) + "; " + timing_footer(config)


def ci_result(table: ComparisonTable, fail_above: float, *, base: str, change: str,
              warnings: Sequence[str] = ()) -> CiResult:
    """Each metric of each compared configuration classified: ``table`` is two runs side by
    side (``compare_runs(base, change)``), one ratio column per configuration of the change."""
    deltas: list[MetricDelta] = []
    configs: list[tuple[str, str]] = []
    several = len(table.ratios) > 1
    for rc in table.ratios:
        name = rc.column.label.removeprefix(f"run {rc.column.run_id}").strip() if several else ""
        configs.append((name, config_text(rc.column.config)))
        for row in table.rows:
            if row.benchmark is None:
                continue
            if row.problem:
                note = table.notes.get((row, rc.column.key))
                base_note = table.notes.get((row, rc.base.key))
                if note is not None and note.status == "failed":
                    deltas.append(MetricDelta(name, row.benchmark, None, None, None, "failed",
                                              note.reason or "failed"))
                elif note is not None and base_note is None and \
                        any(table.value(r, rc.base) is not None for r in table.rows
                            if r.benchmark == row.benchmark):
                    deltas.append(MetricDelta(name, row.benchmark, None, None, None, "missing",
                                              f"{note.status}: {note.reason or ''}".rstrip(": ")))
                continue
            b, c = table.value(row, rc.base), table.value(row, rc.column)
            if b is None and c is None:
                continue
            if c is None:
                status, why = "missing", "measured in the baseline, not in the change"
                if table.note(row, rc.column) is not None:
                    continue  # its benchmark failed: said once, on the benchmark's row
                deltas.append(MetricDelta(name, row.benchmark, row.metric, b, None, status, why))
                continue
            if b is None:
                deltas.append(MetricDelta(name, row.benchmark, row.metric, None, c, "new"))
                continue
            if c == b:
                status = "unchanged"
            elif is_regression(b, c, fail_above):
                status = "regressed"
            else:
                status = "changed" if c > b else "improved"
            deltas.append(MetricDelta(name, row.benchmark, row.metric, b, c, status))
    return CiResult(table.stat, str(table.unit), fail_above, tuple(deltas), base, change,
                    tuple(configs), tuple(warnings))


def _signed(value: float) -> str:
    text = fmt_num(abs(value)) if float(value).is_integer() else f"{abs(value):g}"
    return ("+" if value > 0 else "-" if value < 0 else "") + text


def _exact(value: float | None) -> str:
    if value is None:
        return "-"
    return fmt_num(value) if float(value).is_integer() else f"{value:g}"


def _pct(value: float | None) -> str:
    if value is None:
        return "-"
    if value in (float("inf"), float("-inf")):
        return "+inf %" if value > 0 else "-inf %"
    return ("+" if value > 0 else "") + f"{value:.3f} %"


def _md(text: str) -> str:
    """One line safe in Markdown: pipes escaped, HTML shown as text (``markdown_safe``)."""
    return markdown_safe(text)


def headline(result: CiResult) -> str:
    """One line: the verdict and the counts."""
    n = len(result.deltas)
    moved = n - result.count("unchanged")
    if result.passed:
        verdict = "pass"
        detail = (f"{moved} of {n} metrics changed, none above the {result.fail_above:g} % limit"
                  if moved else f"all {n} metrics unchanged")
    else:
        verdict = "FAIL"
        parts = []
        for status, word in (("regressed", "above the {:g} % limit"), ("failed", "failed"),
                             ("missing", "missing")):
            k = result.count(status)
            if k:
                parts.append(f"{k} {word.format(result.fail_above)}")
        detail = f"{', '.join(parts)} ({moved} of {n} metrics changed)"
    return f"rtoslab: {verdict}: {detail}"


def render_markdown(result: CiResult) -> str:
    """The pull-request summary: verdict, what was compared, changed metrics first (exact
    deltas in the unit and in %), then the unchanged ones counted (and listed, folded)."""
    unit = result.unit
    lines = [f"### {headline(result)}", "",
             f"- change: {_md(result.change)}", f"- base: {_md(result.base)}"]
    if len(result.configs) == 1:
        lines.append(f"- configuration: {_md(result.configs[0][1])}")
    else:
        lines.append("- configurations:")
        lines += [f"  - **{_md(name)}**: {_md(text)}" for name, text in result.configs]
    lines.append(f"- each figure: the {result.stat} of a metric's samples, in modelled {unit}s"
                 if unit == "cycle" else f"- each figure: the {result.stat} of a metric's samples, in {unit}")
    lines.append(f"- gate: a metric fails when it grows by more than {result.fail_above:g} % "
                 "(the platform is deterministic: any delta is the change's)")
    for w in result.warnings:
        lines.append(f"- **warning**: {_md(w)}")
    lines.append("")
    moved = [d for d in result.deltas if d.status != "unchanged"]
    moved.sort(key=lambda d: (STATUS_ORDER.index(d.status),
                              -(abs(d.percent) if d.percent is not None else 0.0)))
    several = len(result.configs) > 1
    head = (["configuration"] if several else []) + ["", "benchmark", "metric", f"base ({unit}s)",
                                                     f"change ({unit}s)", f"delta ({unit}s)", "delta %"]
    if moved:
        lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for d in moved:
            word = _WORDS[d.status]
            word = f"**{word}**" if d.status in FAILING else word
            cells = ([_md(d.config)] if several else []) + [
                word, _md(d.benchmark), _md(d.metric or "(whole benchmark)"),
                _exact(d.base), _exact(d.change),
                _signed(d.delta) if d.delta is not None else "-", _pct(d.percent)]
            lines.append("| " + " | ".join(cells) + " |")
        notes = [d for d in moved if d.note]
        for d in notes:
            lines.append(f"\n{_WORDS[d.status]} {_md(d.name)}: {_md(d.note)}")
        lines.append("")
    same = [d for d in result.deltas if d.status == "unchanged"]
    if same:
        lines.append(f"{len(same)} metric{'s' if len(same) != 1 else ''} unchanged "
                     f"(delta exactly 0 {unit}s)." if unit == "cycle" else
                     f"{len(same)} metrics unchanged (delta exactly 0).")
        lines += ["", "<details><summary>unchanged metrics</summary>", "",
                  "| " + " | ".join((["configuration"] if several else []) +
                                     ["benchmark", "metric", f"{unit}"]) + " |",
                  "|" + "---|" * (4 if several else 3)]
        for d in same:
            cells = ([_md(d.config)] if several else []) + [_md(d.benchmark), _md(d.metric or ""),
                                                            _exact(d.base)]
            lines.append("| " + " | ".join(cells) + " |")
        lines += ["", "</details>"]
    return "\n".join(lines).rstrip() + "\n"


def render_junit(result: CiResult) -> str:
    """JUnit XML: one test suite, one test case per metric (class: rtoslab.<configuration>.
    <benchmark>, name: the metric); a regressed, missing or failed one carries a failure
    element whose message states the exact delta."""
    suite = ET.Element("testsuite", name="rtoslab ci", tests=str(len(result.deltas)),
                       failures=str(len(result.failing)), errors="0", skipped="0")
    props = ET.SubElement(suite, "properties")
    for key, value in (("base", result.base), ("change", result.change),
                       ("stat", result.stat), ("unit", result.unit),
                       ("fail_above_pct", f"{result.fail_above:g}")):
        ET.SubElement(props, "property", name=key, value=value)
    for d in result.deltas:
        cls = ".".join(p for p in ("rtoslab", d.config.replace(".", "_"), d.benchmark) if p)
        case = ET.SubElement(suite, "testcase", classname=cls, name=d.metric or "(whole benchmark)",
                             time="0")
        said = (f"{_exact(d.base)} -> {_exact(d.change)} {result.unit}s, "
                f"{_signed(d.delta) if d.delta is not None else '-'} ({_pct(d.percent)})")
        if d.status in FAILING:
            message = {"regressed": f"regressed: {said}, above the {result.fail_above:g} % limit",
                       "missing": f"missing: {d.note}", "failed": f"failed: {d.note}"}[d.status]
            failure = ET.SubElement(case, "failure", message=message, type=d.status)
            failure.text = message
        else:
            out = ET.SubElement(case, "system-out")
            out.text = f"{d.status}: {said}"
    root = ET.Element("testsuites", name="rtoslab", tests=suite.get("tests", "0"),
                      failures=suite.get("failures", "0"), errors="0")
    root.append(suite)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
