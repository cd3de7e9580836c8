"""The masked-window section of the reports (`rtoslab run --irq-windows`,
docs/irq-windows.md): per result, per priority level, the bound and the longest windows
with their source locations; in HTML also their code and a length histogram per level.
Takes views only."""

from __future__ import annotations

from html import escape

from rtoslab.analysis.irq_windows import level_name, top_lines
from rtoslab.records import IrqLevel, IrqWindows
from rtoslab.report.rows import config_title
from rtoslab.report.svg import grouped_bars_svg
from rtoslab.views import ResultView, RunView


def _with_windows(view: RunView) -> list[tuple[ResultView, IrqWindows]]:
    return [(r, r.irq_windows) for r in view.results if r.irq_windows is not None]


def _title(view: RunView, r: ResultView) -> str:
    many = len(view.configs) > 1
    return r.benchmark + (f" · {config_title(r.config)}" if many else "")


def text_section(view: RunView, per_level: int = 3) -> str:
    """Plain text (terminal and Markdown code block); empty when no result has windows."""
    parts = []
    for r, w in _with_windows(view):
        parts.append(f"masked windows: {_title(view, r)} ({w.prio_bits} priority bits, "
                     f"PRIGROUP {w.prigroup}, entry {w.entry_cycles} cycles)")
        parts += top_lines(w, per_level)
    return "\n".join(parts) + "\n" if parts else ""


def _bucket_label(b: int) -> str:
    lo, hi = (0 if b == 0 else 1 << b), (1 << (b + 1)) - 1
    return f"{lo}-{hi}"


def _level_html(w: IrqWindows, lv: IrqLevel, per_level: int) -> str:
    e = escape
    name = level_name(w, lv)
    if lv.count == 0 and lv.open_at_exit is None:
        return f"<h4>{name} (priority {lv.priority:#04x})</h4><p>never masked</p>"
    head = (f"<h4>{name} (priority {lv.priority:#04x}): {lv.count} windows, bound "
            f"{lv.bound_cycles if lv.bound_cycles is not None else '-'} cycles</h4>")
    rows = []
    for s in lv.windows[:per_level]:
        code = "\n".join(s.code)
        rows.append(
            f"<tr><td class=\"num\">{s.max_cycles}</td><td class=\"num\">{s.max_insns}</td>"
            f"<td class=\"num\">{s.count}</td><td>{e(s.cause)}</td><td>{e(s.start)}</td>"
            f"<td>{e(s.end)}</td></tr>"
            + (f"<tr><td colspan=\"4\"></td><td>called from {e(s.start_from or '?')}</td>"
               f"<td>called from {e(s.end_from or '?')}</td></tr>" if s.start_from or s.end_from else "")
            + (f"<tr><td colspan=\"6\"><pre class=\"code\">{e(code)}</pre></td></tr>" if code else ""))
    table = ("<table class=\"irqwin\"><thead><tr><th>cycles</th><th>insns</th><th>count</th>"
             "<th>cause</th><th>start</th><th>end</th></tr></thead><tbody>"
             + "".join(rows) + "</tbody></table>")
    groups = [_bucket_label(b) for b in range(len(lv.hist_insns))]
    chart = grouped_bars_svg(groups, ["windows"], [[float(c)] for c in lv.hist_insns],
                             title=f"{name}: window lengths", y_label="instructions (bins)")
    tail = ""
    if lv.open_at_exit is not None:
        o = lv.open_at_exit
        tail = f"<p>still masked at exit: {e(o.cause)} since {e(o.start)} ({o.max_insns} insns)</p>"
    return head + table + f'<figure class="chart">{chart}</figure>' + tail


def html_section(view: RunView, per_level: int = 5) -> str:
    """The HTML section's content; empty when no result has windows."""
    out = []
    for r, w in _with_windows(view):
        out.append(f"<h3>{escape(_title(view, r))}</h3>")
        out.append(f"<p class=\"desc\">{w.prio_bits} priority bits, PRIGROUP {w.prigroup}; bound = "
                   f"longest window + exception entry ({w.entry_cycles} cycles); docs/irq-windows.md</p>")
        out += [_level_html(w, lv, per_level) for lv in w.levels]
    return "\n".join(out)
