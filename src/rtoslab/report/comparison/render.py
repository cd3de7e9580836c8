"""Renderers for comparison tables (rtoslab compare, experiment summaries).

Layout as in seed 000: rows are benchmark metrics, then one column per configuration,
then one column per ratio (column / its baseline).
"""

from __future__ import annotations

import csv
import io
import json

from rtoslab.records import RtoslabError
from rtoslab.report.comparison.table import ComparisonTable, RatioColumn
from rtoslab.report.fit import fit_table
from rtoslab.report.text import markdown_safe

FORMATS = ("terminal", "markdown", "csv", "json")


def _fmt(v: float | None) -> str:
    if v is None:
        return "-"
    return f"{v:.0f}" if float(v).is_integer() else f"{v:.2f}"


def _ratio(v: float | None) -> str:
    return "-" if v is None else f"{v:.3f}"


def ratio_header(rc: RatioColumn) -> str:
    """``freertos -O2 / baremetal``: the column, then what it is divided by (the parts of
    the baseline column's label that differ from it)."""
    if rc.column.run_id != rc.base.run_id:
        return rc.baseline  # "run 2 / run 1 (opt -O2 -> -Os)": the runs and what differs
    own = rc.column.label.split()
    differs = [p for p in rc.base.label.split() if p not in own]
    return f"{rc.column.label} / {' '.join(differs) or rc.base.label}"


def _grid(table: ComparisonTable) -> tuple[list[str], list[list[str]]]:
    header = ["benchmark", "metric"] if table.layout == "benchmark" else ["metric"]
    header += [c.label for c in table.columns]
    header += [ratio_header(rc) for rc in table.ratios]
    body = []
    for row in table.rows:
        cells = list(row.cells())
        for c in table.columns:
            note = table.notes.get((row, c.key))
            cells.append(note.status if note else _fmt(table.value(row, c)))
        cells += [_ratio(table.ratio(row, rc)) for rc in table.ratios]
        body.append(cells)
    return header, body


def render_comparison(table: ComparisonTable, fmt: str, title: str = "", *, width: int = 160,
                      wide: bool = False, footer: str = "") -> str:
    """A comparison table as text. The terminal form is split into parts no wider than
    ``width`` (label columns repeated; ``wide``: one table), headers wrap only at spaces."""
    if not table.rows:
        raise RtoslabError("the comparison has no rows: no benchmark produced results")
    header, body = _grid(table)
    caption = title or f"{table.stat} {table.unit}"
    if fmt == "terminal":
        n_labels = 2 if table.layout == "benchmark" else 1
        return fit_table(header, body, n_labels, title=caption, caption=footer, width=width, wide=wide)
    if fmt == "markdown":
        md = markdown_safe
        lines = [f"**{md(caption)}**", "", "| " + " | ".join(md(h) for h in header) + " |",
                 "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(md(c) for c in cells) + " |" for cells in body]
        return "\n".join(lines) + "\n"
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(header)
        w.writerows(body)
        return buf.getvalue()
    if fmt == "json":
        doc = {
            "schema": "rtoslab.compare/1", "stat": table.stat, "unit": table.unit,
            "columns": [{"label": c.label, "run_id": c.run_id, "config": c.config.hash,
                         "benchmark": c.benchmark} for c in table.columns],
            "ratios": [{"baseline": rc.baseline, "column": rc.column.label, "base": rc.base.label}
                       for rc in table.ratios],
            "rows": [{"row": list(row.cells()),
                      "values": [table.value(row, c) for c in table.columns],
                      "ratios": [table.ratio(row, rc) for rc in table.ratios]} for row in table.rows],
        }
        return json.dumps(doc, indent=2) + "\n"
    raise RtoslabError(f"unknown format '{fmt}': choose one of {', '.join(FORMATS)}")
