"""A wide table for the terminal, split into parts that fit its width.

The label columns (benchmark, metric, N, ...) repeat in every part; the value columns
are dealt out in order. A header wraps only at spaces (labels join axis values with
`` · ``), so no name is ever cut or folded inside a word. ``wide`` keeps one table.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from rtoslab.report.text import terminal_safe

_GAP = 3  # rich's padding and rule between two columns


def _longest_word(text: str) -> int:
    return max((len(w) for w in text.split()), default=1)


def _width(header: str, cells: Sequence[str]) -> int:
    """A column's width: its widest cell or header word, and room for a header of up to 24
    characters on one line (longer ones wrap at spaces)."""
    return max([_longest_word(header), min(len(header), 24), *(len(c) for c in cells)])


def fit_table(header: Sequence[str], body: Sequence[Sequence[str]], n_labels: int, *, title: str,
              caption: str = "", width: int = 160, wide: bool = False) -> str:
    """Render ``header``/``body`` (the first ``n_labels`` columns are labels) as one or
    more tables no wider than ``width`` (one table when ``wide``). Control characters in
    any of it are shown as escapes (``terminal_safe``)."""
    header = [terminal_safe(h) for h in header]
    body = [[terminal_safe(c) for c in row] for row in body]
    title, caption = terminal_safe(title), terminal_safe(caption)
    columns = list(zip(*body, strict=True)) if body else [() for _ in header]
    widths = [_width(h, col) for h, col in zip(header, columns, strict=True)]
    label_w = sum(w + _GAP for w in widths[:n_labels]) + 1
    parts: list[list[int]] = [[]]
    used = label_w
    for i in range(n_labels, len(header)):
        need = widths[i] + _GAP
        if parts[-1] and used + need > width and not wide:
            parts.append([])
            used = label_w
        parts[-1].append(i)
        used += need
    out = io.StringIO()
    console = Console(file=out, width=10_000 if wide else max(width, label_w + 20), no_color=True,
                      highlight=False, emoji=False)
    for k, part in enumerate(parts):
        suffix = f" ({k + 1}/{len(parts)})" if len(parts) > 1 else ""
        console.print(Text(title + suffix, style="bold"), soft_wrap=True)
        table = Table(box=box.SIMPLE_HEAD)
        for i in [*range(n_labels), *part]:
            table.add_column(Text(header[i]), justify="left" if i < n_labels else "right",
                             min_width=widths[i])
        for row in body:
            table.add_row(*(Text(row[i]) for i in [*range(n_labels), *part]))
        console.print(table)
    if caption:
        console.print(Text(caption), soft_wrap=True)
    lines = out.getvalue().splitlines()
    return "\n".join(line.rstrip() for line in lines) + "\n"
