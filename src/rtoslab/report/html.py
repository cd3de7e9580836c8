"""HTML report: one self-contained page (inline CSS and SVG, no script, no external request).

Contents, in order: the run's identity; the configurations; a statistics table per
configuration (failed and n/a benchmarks as rows with their reasons, then warnings);
when the run has more than one configuration, comparison tables with ratio columns and a
ratio bar chart per ratio column, and box plots across configurations per metric;
histograms of the raw samples per metric, one per configuration (small multiples); the
flash/RAM footprint per configuration and benchmark.

Raw samples are not part of a ``RunView``: give the renderer the samples of every metric
(metric id -> samples, as loaded from the store by the CLI) to draw histograms and
quartiles. Without them, as built by ``get_renderer("html")``, histograms say "raw samples
not loaded" and box plots show min, median and max from the stored summaries.

The output depends only on the stored data: no time other than the run's own appears.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from html import escape

from rtoslab.records import Footprint, Sample, Summary, Unit
from rtoslab.report.comparison.run_tables import config_labels, grouped_rows, report_table
from rtoslab.report.comparison.table import Baselines, Column, axes_of
from rtoslab.report.irq_windows import html_section as irq_windows_html
from rtoslab.report.labels import axis_text, kernel_label, timing_footer, varying_keys
from rtoslab.report.numbers import STAT_COLUMNS, fmt_num, stat_cells
from rtoslab.report.pivot import FOOTPRINT_UNIT, Pivot, PivotSpec, build_pivot, pivot_grid
from rtoslab.report.rows import Row, config_title, grouped_warnings, run_rows, time_base_lines
from rtoslab.report.svg import (
    BoxRow,
    BoxStats,
    RatioBar,
    Series,
    box_stats,
    boxplot_svg,
    fmt_ratio,
    grouped_bars_svg,
    histogram_svg,
    line_chart_svg,
    ratio_bars_svg,
)
from rtoslab.report.timeline_html import timeline_section
from rtoslab.trace.timeline import Timeline
from rtoslab.views import ConfigView, MetricView, ResultView, RunView

# metric id -> that metric's raw samples in measurement order
Samples = Mapping[int, tuple[Sample, ...]]

# Units drawn from raw samples (``us`` is cycles scaled by the clock: not charted), time
# first: a metric's charts and comparisons are in modelled cycles, in instructions only
# when it has no cycles (issue 28); the statistics tables have every unit.
CHART_UNITS = (Unit.CYCLE, Unit.INSN)
DEFAULT_BASELINE = "first configuration"
NO_SAMPLES = "raw samples not loaded"

# Components in the order the footprint tables show them (others after, alphabetically).
_COMPONENT_ORDER = ("kernel", "port", "target", "harness", "benchmark", "libc", "lto", "linker")
# The counter shown in the RAM footprint table (the others are listed as "other values").
_STACK_PEAK = "main_stack_peak_bytes"

_CSS = """
:root { --fg: #1d2430; --muted: #5b6575; --line: #d5dae2; --head: #eef1f5; --bar: #4a78b5;
  --iqr: #c9d9f0; --above: #d9822b; --below: #3b8f5a; --bad: #b42318; --na: #8a6d00; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--fg); background: #fff;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; }
main { max-width: 2400px; margin: 0 auto; padding: 18px 24px 48px; }
h1 { font-size: 24px; margin: 4px 0 8px; }
h2 { font-size: 19px; margin: 34px 0 10px; padding-bottom: 4px; border-bottom: 2px solid var(--line); }
h3 { font-size: 16px; margin: 22px 0 8px; }
h4 { font-size: 14px; margin: 14px 0 6px; color: var(--muted); font-weight: 600; }
p.desc, p.note, figcaption, .caption { color: var(--muted); }
p.desc { margin: -4px 0 8px; }
code { font: 12.5px/1.4 ui-monospace, "DejaVu Sans Mono", monospace; background: #f3f5f8;
  padding: 1px 4px; border-radius: 3px; }
dd code { overflow-wrap: anywhere; }
code.hash, .nw, td.name { white-space: nowrap; }
nav { margin: 10px 0 0; font-size: 13px; }
nav a { margin-right: 14px; color: #2a5ea8; text-decoration: none; }
dl.identity { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 8px 0; }
dl.identity dt { color: var(--muted); }
dl.identity dd { margin: 0; overflow-wrap: anywhere; }
.scroll { overflow-x: auto; margin: 6px 0 10px; }
table { border-collapse: collapse; font-size: 13px; }
th, td { border: 1px solid var(--line); padding: 3px 8px; vertical-align: top; text-align: left; }
thead th { background: var(--head); font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.num { white-space: nowrap; }
thead th { max-width: 12em; }
table.configs code.nw { white-space: normal; overflow-wrap: anywhere; }
td.ratio { background: #fbf7ef; }
td.problem { color: var(--muted); max-width: 60em; white-space: nowrap; overflow: hidden;
  text-overflow: ellipsis; }
details.config > summary, details.metric > summary { cursor: pointer; font-weight: 600; margin: 6px 0; }
.badge { display: inline-block; padding: 0 6px; border-radius: 9px; font-size: 12px;
  font-weight: 600; color: #fff; background: var(--muted); }
.badge.ok, .badge.complete { background: #3b8f5a; }
.badge.failed { background: var(--bad); }
.badge.n-a, .badge.incomplete, .badge.running { background: var(--na); }
p.question { font-size: 16px; margin: 0 0 6px; }
ul.headline { margin: 4px 0 8px; padding-left: 20px; font-size: 15px; }
details.meta { margin: 4px 0; }
details.detail > summary { color: var(--muted); cursor: pointer; margin: 4px 0 8px; }
details.meta > summary { color: var(--muted); cursor: pointer; }
ul.warnings { margin: 4px 0 10px; padding-left: 20px; color: var(--na); font-size: 13px; }
.multiples { display: flex; flex-wrap: wrap; gap: 10px 14px; margin: 4px 0 12px; }
figure { margin: 0; }
figure.hist-fig { width: 342px; border: 1px solid var(--line); border-radius: 4px; padding: 2px; }
figure.hist-fig figcaption { font-size: 12px; font-weight: 600; color: var(--fg); padding: 4px 6px 0; }
figure.chart { margin: 6px 0 14px; }
.placeholder { height: 178px; display: flex; align-items: center; justify-content: center;
  color: var(--muted); font-style: italic; text-align: center; padding: 10px; }
.placeholder .badge { margin-right: 6px; font-style: normal; }
.placeholder .why { display: -webkit-box; -webkit-box-orient: vertical; -webkit-line-clamp: 7;
  line-clamp: 7; overflow: hidden; max-height: 10.2em; font-size: 13px; }
figure.chart figcaption { font-size: 12px; padding-left: 8px; }
svg { display: block; max-width: 100%; height: auto; }
svg text { font-family: system-ui, "DejaVu Sans", sans-serif; font-size: 11px; fill: var(--fg); }
svg .ctitle { font-size: 12px; font-weight: 600; }
svg .tick, svg .alabel, svg .note { fill: var(--muted); }
svg .note { font-style: italic; }
svg .mlabel { fill: #8a3b12; font-size: 10px; }
svg .rvalue { font-variant-numeric: tabular-nums; }
svg .grid { stroke: #edf0f4; stroke-width: 1; }
svg .axis { stroke: #8b94a3; stroke-width: 1; }
svg .bar { fill: var(--bar); }
svg .bar:hover, svg .ratiobar:hover { opacity: 0.8; }
svg .marker { stroke: #8a3b12; stroke-width: 1.2; stroke-dasharray: 4 3; }
svg .whisker { stroke: #38475c; stroke-width: 1.3; }
svg .iqr { fill: var(--iqr); stroke: #38475c; stroke-width: 1.3; }
svg .median { stroke: #0f1d33; stroke-width: 3; }
svg .ratiobar.above { fill: var(--above); }
svg .ratiobar.below { fill: var(--below); }
svg .ratiobar.equal { fill: #8b94a3; }
"""
# The stylesheet, for other self-contained pages (the history site of `rtoslab publish`).
CSS = _CSS


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _code(text: str) -> str:
    return f"<code>{_e(text)}</code>" if text else "-"


def _words(text: str) -> str:
    """Code text that wraps only between words (never at a hyphen inside a flag)."""
    if not text.strip():
        return "-"
    return "<code>" + " ".join(f'<span class="nw">{_e(w)}</span>' for w in text.split()) + "</code>"


def _pairs(values: dict[str, object]) -> str:
    """A dict as one ``key=value`` per line (values as JSON)."""
    return "<br>".join(f'<code class="nw">{_e(k)}={_e(json.dumps(v, ensure_ascii=False))}</code>'
                       for k, v in sorted(values.items()))


def _port_defaults(c: ConfigView) -> dict[str, object] | None:
    """The kernel port's option defaults as stored with the configuration (identity
    ``kernel_defaults``), or None for a configuration stored before they were: then no
    option is said to differ (today's port.toml may not be the one it was built with)."""
    defaults = c.identity.get("kernel_defaults")
    return {str(k): v for k, v in defaults.items()} if isinstance(defaults, Mapping) else None


def _kernel_options(c: ConfigView) -> str:
    """The options that differ from the port's defaults, then all of them one click away."""
    if not c.kernel_config:
        return ""
    defaults = _port_defaults(c)
    if defaults is None:
        changed = dict(c.kernel_config)
        said = "options:"
    else:
        changed = {k: v for k, v in c.kernel_config.items() if defaults.get(k, object()) != v}
        said = "options that differ from the port's defaults:" if changed else "the port's default options"
    shown = f"{_e(said)}<br>" + (_pairs(changed) + "<br>" if changed and defaults is not None else "")
    if defaults is None:
        shown += _pairs(changed) + "<br>"
    return (shown + f"<details><summary>all {len(c.kernel_config)} options</summary>"
            f"{_pairs(c.kernel_config)}</details>")


def _badge(status: str) -> str:
    return f'<span class="badge {_e(status.replace("/", "-"))}">{_e(status)}</span>'


_NUM = ' class="num"'


def _breakable(label: str) -> str:
    """A header label, escaped, that may wrap at spaces and, in a name longer than 12
    characters, after ``=``, ``_`` and ``/`` (``configTICK_<wbr>RATE_<wbr>HZ=<wbr>1000``);
    never elsewhere inside a name."""
    words = []
    for word in label.split(" "):
        text = _e(word)
        if len(word) > 12:  # only long names get break points
            for mark in ("=", "_", "/"):
                text = text.replace(mark, mark + "<wbr>")
        words.append(text)
    return " ".join(words)


# Sections folded (<details>) when the experiment's own tables answer its question.
_DETAIL_SECTIONS = ("comparison", "boxplots", "distributions", "footprint")


def _folded(content: str) -> str:
    """A section's content folded under one line saying what it holds (its tables and
    charts); content with neither (a sentence) stays open."""
    tables, charts = content.count("<table"), content.count("<svg")
    if not tables and not charts:
        return content
    what = ", ".join(f"{n} {word}{'s' if n != 1 else ''}"
                     for n, word in ((tables, "table"), (charts, "chart")) if n)
    return f'<details class="detail"><summary>show {what}</summary>\n{content}\n</details>'


def _table(header: Sequence[tuple[str, bool]], rows: Sequence[str], cls: str, caption: str = "") -> str:
    """A table in a horizontal-scroll wrapper. ``header``: (label, numeric) pairs; ``rows``:
    ready ``<tr>`` elements."""
    head = "".join(f"<th{_NUM if num else ''}>{_breakable(label)}</th>" for label, num in header)
    cap = f'<caption class="caption">{_e(caption)}</caption>' if caption else ""
    body = "".join(row + "\n" for row in rows)
    return (f'<div class="scroll"><table class="{cls}">{cap}<thead><tr>{head}</tr></thead>\n'
            f"<tbody>\n{body}</tbody></table></div>")


def _td(text: str, num: bool = False, raw: bool = False, cls: str = "") -> str:
    classes = " ".join(c for c in ("num" if num else "", cls) if c)
    attr = f' class="{classes}"' if classes else ""
    return f"<td{attr}>{text if raw else _e(text)}</td>"


def _parts(fp: Footprint, key: str) -> dict[str, int]:
    return fp.flash if key == "flash" else fp.ram


def _component_order(names: set[str]) -> list[str]:
    known = [c for c in _COMPONENT_ORDER if c in names]
    return known + sorted(names - set(_COMPONENT_ORDER))


_COLUMNS_PER_TABLE = 6  # value and ratio columns in one comparison table; more: several parts


class HtmlRenderer:
    """The HTML report. ``samples``: raw samples by metric id (None: not loaded);
    ``baselines``: (name, axis values) pairs as for ``comparison.build_table`` (none: the
    first configuration is the baseline of every other); ``stat``: the statistic compared."""

    name = "html"
    file_suffix = ".html"

    def __init__(self, samples: Samples | None = None, baselines: Baselines = (),
                 stat: str = "median", title: str | None = None,
                 tables: Sequence[PivotSpec] = (), rows: str = "benchmark", question: str = "") -> None:
        self.samples = samples
        self.question = question  # the experiment's description: what the page answers
        self.rows = rows  # comparison rows: "benchmark" (benchmark/metric) or "metric"
        self.baselines = tuple(baselines)
        self.stat = stat
        self.title = title
        self.tables = tuple(tables)
        self.timelines: tuple[Timeline, ...] = ()

    def render(self, view: RunView) -> str:
        return _Page(view, self).html()


def render_html(view: RunView, samples: Samples | None, baselines: Baselines = (),
                title: str | None = None, stat: str = "median",
                tables: Sequence[PivotSpec] = (), rows: str = "benchmark",
                timelines: Sequence[Timeline] = (), question: str = "") -> str:
    """The HTML report of ``view`` with histograms and quartiles from ``samples``;
    ``tables``: the experiment's own tables ([[report.table]]), shown first; ``rows``: the
    comparison's layout ([report] rows); ``timelines``: traced runs' timelines, shown last;
    ``question``: the experiment's description, under the title."""
    r = HtmlRenderer(samples, baselines, stat, title, tables, rows, question)
    r.timelines = tuple(timelines)
    return r.render(view)


class _Page:
    def __init__(self, view: RunView, renderer: HtmlRenderer) -> None:
        self.view = view
        self.r = renderer
        self.rows = run_rows(view)
        self.configs = view.configs
        self.labels = self._config_labels()

    # ------------------------------------------------------------ data helpers

    def _config_labels(self) -> dict[int, str]:
        """Short names of the configurations: the axis values that differ between them."""
        if not self.configs:
            return {}
        if len(self.configs) == 1:
            c = self.configs[0]
            return {c.id: config_title(c)}
        labels = config_labels(self.view)
        seen: dict[str, int] = {}
        for label in labels.values():
            seen[label] = seen.get(label, 0) + 1
        return {cid: f"{label} ({self._config(cid).hash})" if seen[label] > 1 else label
                for cid, label in labels.items()}

    def _config(self, config_id: int) -> ConfigView:
        return next(c for c in self.configs if c.id == config_id)

    def samples(self, metric: MetricView) -> tuple[Sample, ...] | None:
        if self.r.samples is None:
            return None
        return self.r.samples.get(metric.id, ())

    def benchmarks(self) -> list[str]:
        return list(dict.fromkeys(r.benchmark for r in self.view.results))

    def metric_names(self, benchmark: str) -> list[str]:
        return list(dict.fromkeys(m.name for r in self.view.results if r.benchmark == benchmark
                                  and r.status == "ok" for m in r.metrics))

    def result(self, config: ConfigView, benchmark: str) -> ResultView | None:
        return next((r for r in self.view.results_for(config.id) if r.benchmark == benchmark), None)

    def chart_units(self, benchmark: str, metric: str) -> list[Unit]:
        present = {u for r in self.view.results if r.benchmark == benchmark and r.status == "ok"
                   for m in r.metrics if m.name == metric for u in m.summaries}
        return [u for u in CHART_UNITS if u in present][:1]

    # ------------------------------------------------------------ page

    def html(self) -> str:
        """The page, answer first (issue 28): the experiment's question (its tables and
        charts) and a two-line summary of what changed most, then the comparison and the
        statistics; the charts of distributions, the footprint, the configurations and the
        run's metadata (folded) after them. Where the experiment's own tables answer, the
        comparison, box plots, distributions and footprint are folded under their headings
        (each says what it holds), so the page is the answer and a list of details."""
        v = self.view
        title = self.r.title or f"rtoslab run {v.id}"
        multi = len(self.configs) > 1
        sections = []
        if self.r.tables and v.results:
            sections.append(("question", "Results", self.question()))
        if multi:
            sections.append(("comparison", "Comparison", self.comparison()))
        sections.append(("summary", "Statistics", self.summaries()))
        if multi:
            boxes = self.boxplots()
            if boxes:
                sections.append(("boxplots", "Box plots across configurations", boxes))
        sections.append(("distributions", "Distributions of raw samples", self.distributions()))
        sections.append(("footprint", "Footprint", self.footprint()))
        if self.r.timelines:
            sections.append(("timeline", "Timeline", timeline_section(self.r.timelines)))
        windows = irq_windows_html(v)
        if windows:
            sections.append(("irq-windows", "Masked interrupt windows", windows))
        sections.append(("configurations", "Configurations", self.configurations()))
        if not v.results:
            sections = [("summary", "Results", "<p>No results are stored for this run.</p>")]
        if self.r.tables and v.results:  # the question's tables answer: the rest is detail
            sections = [(sid, name, _folded(content) if sid in _DETAIL_SECTIONS else content)
                        for sid, name, content in sections]
        nav = "".join(f'<a href="#{sid}">{_e(name)}</a>' for sid, name, _ in sections)
        body = "\n".join(f'<section id="{sid}"><h2>{_e(name)}</h2>\n{content}\n</section>'
                         for sid, name, content in sections)
        return (
            '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{_e(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n<main>\n"
            f'<header><h1>{_e(title)}</h1>{self.asked()}{self.headline()}'
            f'<details class="meta"><summary>{_e(self.meta_line())}</summary>{self.identity()}'
            f'</details><nav>{nav}</nav></header>\n'
            f"{body}\n</main>\n</body>\n</html>\n"
        )

    def asked(self) -> str:
        """The experiment's question (its description), when it has one."""
        q = self.r.question
        return f'<p class="question">{_e(q)}</p>' if q else ""

    def meta_line(self) -> str:
        """The folded metadata's one line: status, result counts, when."""
        v = self.view
        counts = {s: sum(1 for r in v.results if r.status == s) for s in ("ok", "failed", "n/a")}
        return (f"run {v.id} · {v.status} · {counts['ok']} ok, {counts['failed']} failed, "
                f"{counts['n/a']} n/a · {len(self.configs)} configuration"
                f"{'s' if len(self.configs) != 1 else ''} · {v.started_at} (details)")

    def headline(self) -> str:
        """Two lines on what changed most. With the experiment's own tables: the first
        table of measured values (not a size table, unit byte, unless all are) and its last
        row (the largest N, the last build), the column furthest above and the
        one furthest below its first column. Without: the largest rise and fall of a
        median (modelled cycles) against the comparison's baseline. Nothing for one
        configuration."""
        if len(self.configs) < 2:
            return ""
        found: list[tuple[float, str]] = []
        if self.r.tables:
            first = next((t for t in self.r.tables if t.unit != FOOTPRINT_UNIT), self.r.tables[0])
            p = build_pivot(self.view, first, timing_footer)
            if p.spec.ratio is None:
                for rk in reversed(p.row_keys):
                    values = [(ck, v) for ck in p.col_keys if (v := p.value(rk, ck)) is not None]
                    if len(values) < 2 or not values[0][1]:
                        continue
                    (base, b), where = values[0], p.row_text(rk)
                    found = [(v / b, f"{p.spec.title.split(':')[0]} at {where}: {p.col_label(ck)} "
                              f"{fmt_num(v)} is {fmt_ratio(v / b)} {p.col_label(base)} "
                              f"{fmt_num(b)} ({p.caption()})") for ck, v in values[1:]]
                    break
        else:
            unit = Unit.CYCLE if any(Unit.CYCLE in m.summaries for r in self.view.results
                                     for m in r.metrics) else Unit.INSN
            table = report_table(self.view, unit, "median", self.r.baselines, DEFAULT_BASELINE,
                                 self.r.rows)
            found = [(r, f"{' / '.join(row.cells())}: {self._column_label(rc.column)} is "
                      f"{fmt_ratio(r)} {self._column_label(rc.base)} (median {unit})")
                     for rc in table.ratios for row in table.rows
                     if (r := table.ratio(row, rc)) is not None and r > 0]
        if not found:
            return ""
        up, down = max(found), min(found)
        lines = [f"<li><b>most above</b>: {_e(up[1])}</li>" if up[0] > 1 else "",
                 f"<li><b>most below</b>: {_e(down[1])}</li>" if down[0] < 1 else ""]
        return f'<ul class="headline">{"".join(lines)}</ul>' if any(lines) else ""

    def identity(self) -> str:
        v = self.view
        counts = {s: sum(1 for r in v.results if r.status == s) for s in ("ok", "failed", "n/a")}
        tools = ", ".join(f"{k} {val}" for k, val in sorted(v.tool_versions.items()))
        fields: list[tuple[str, str]] = [
            ("run", _e(v.id)),
            ("status", _badge(v.status)),
            ("started", _e(v.started_at)),
            ("finished", _e(v.finished_at or "-")),
            ("revision", _code(v.rtoslab_revision)),
            ("host", _e(v.host)),
        ]
        if v.experiment:
            fields.append(("experiment", _e(v.experiment)))
        fields += [
            ("command", _code(v.command)),
            ("tools", _e(tools or "-")),
            ("results", _e(f"{counts['ok']} ok, {counts['failed']} failed, {counts['n/a']} n/a "
                           f"in {len(self.configs)} configuration{'s' if len(self.configs) != 1 else ''}")),
        ]
        items = "".join(f"<dt>{_e(k)}</dt><dd>{val}</dd>\n" for k, val in fields)
        return f'<dl class="identity">\n{items}</dl>'

    def question(self) -> str:
        """The experiment's own tables ([[report.table]]), each with a line chart when its
        rows are one numeric axis (a value against N, one line per column)."""
        out = []
        for spec in self.r.tables:
            p = build_pivot(self.view, spec, timing_footer)
            header, body = pivot_grid(p)
            out.append(f"<h3>{_e(spec.title)}</h3>")
            trs = ["<tr>" + "".join(_td(c, num=i >= len(p.row_dims)) for i, c in enumerate(cells)) + "</tr>"
                   for cells in body]
            caption = p.caption() + ("; " + p.timing[0] if len(p.timing) == 1 else "")
            if p.note():
                caption += "; " + "; ".join(p.note().splitlines())
            out.append(_table([(h, i >= len(p.row_dims)) for i, h in enumerate(header)], trs, "pivot",
                              caption))
            chart = _pivot_chart(p)
            if chart:
                out.append(f'<figure class="chart">{chart}</figure>')
        return "\n".join(out)

    def configurations(self) -> str:
        """The axes that vary between the configurations (one column each), then every
        configuration's full identity, folded."""
        full = self._configurations_full()
        if len(self.configs) < 2:
            return full
        axes = [axes_of(c) for c in self.configs]
        keys = varying_keys(axes)
        header = [("name", False), ("hash", False), *((k, False) for k in keys)]
        rows = ["<tr>" + _td(self.labels[c.id], cls="name")
                + _td(f'<code class="hash">{_e(c.hash)}</code>', raw=True)
                + "".join(_td(axis_text(k, a[k]) if k in a else "-") for k in keys) + "</tr>"
                for c, a in zip(self.configs, axes, strict=True)]
        return (_table(header, rows, "axes") + "<details><summary>every setting of each "
                f"configuration ({len(self.configs)})</summary>{full}</details>")

    def _configurations_full(self) -> str:
        header = [(h, False) for h in ("name", "hash", "target", "kernel and its options", "compiler",
                                       "flags", "timing model")]
        rows = []
        for c in self.configs:
            kernel = f"{_e(kernel_label(c))}<br>" + _kernel_options(c)
            kernel += f'options hash <code class="hash">{_e(c.kernel_config_hash)}</code>'
            flags = f"cflags {_words(c.cflags)}<br>ldflags {_words(c.ldflags)}"
            cells = [
                _td(self.labels[c.id], cls="name"),
                _td(f'<code class="hash">{_e(c.hash)}</code>', raw=True),
                _td(f'<span class="nw">{_e(c.target)}</span><br>{_e(c.core)}', raw=True),
                _td(kernel, raw=True),
                _td(f'<span class="nw">{_e(c.compiler)}</span><br>{_e(c.compiler_version)}', raw=True),
                _td(flags, raw=True),
                _td(_pairs(c.timing) or "-", raw=True),
            ]
            rows.append("<tr>" + "".join(cells) + "</tr>")
        return _table(header, rows, "configs")

    # ------------------------------------------------------------ statistics

    def summaries(self) -> str:
        header = [("benchmark", False), ("metric", False), ("unit", False),
                  *((c, True) for c in STAT_COLUMNS)]
        out = []
        many = len(self.configs) > 1
        if many:
            out.append('<p class="desc">Every statistic in every unit, one table per configuration '
                       "(folded: the comparison above has the medians).</p>")
        for config in self.configs:
            rows = [r for r in self.rows if r.config.id == config.id]
            part = []
            if many:
                part.append(f'<p class="desc">{_e(config_title(config))} · '
                            f'<code class="hash">{_e(config.hash)}</code></p>')
            else:
                out.append(f"<h3>{_e(self.labels[config.id])}</h3>")
            part.append(_table(header, [self._summary_row(r) for r in rows], "summary"))
            warnings = grouped_warnings(rows)
            if warnings:
                items = "".join(f"<li>{_e(line)}</li>" for line in warnings)
                part.append(f'<ul class="warnings">{items}</ul>')
            if many:
                out.append(f'<details class="config"><summary>{_e(self.labels[config.id])}</summary>'
                           + "\n".join(part) + "</details>")
            else:
                out += part
        bases = time_base_lines(self.rows)
        if bases:
            items = "".join(f"<li>{_e(line)}</li>" for line in bases)
            out.append(f'<h4>Time bases</h4><ul class="timebases">{items}</ul>')
        return "\n".join(out)

    def _summary_row(self, row: Row) -> str:
        if row.status != "ok":
            # one line each, cut to the table (issue 28): the whole reason is the tooltip
            reason = _e(row.reason or "no reason given")
            why = f'{_badge(row.status)} <span class="why1" title="{reason}">{reason}</span>'
            return (f'<tr class="problem">{_td(row.benchmark)}'
                    f'<td class="problem" colspan="{2 + len(STAT_COLUMNS)}">{why}</td></tr>')
        cells = [_td(row.benchmark), _td(row.metric or "-"), _td(row.unit or "-")]
        cells += [_td(c, num=True) for c in stat_cells(row.summary)]
        return "<tr>" + "".join(cells) + "</tr>"

    # ------------------------------------------------------------ comparison

    def _column_label(self, column: Column) -> str:
        """A comparison column: its configuration's name, and its benchmark when rows are
        metrics ([report] rows = "metric": each benchmark of a configuration is a column)."""
        name = self._col_label(column.config)
        return f"{column.benchmark} · {name}" if column.benchmark else name

    def _col_label(self, config: ConfigView) -> str:
        return self.labels.get(config.id, config.hash)

    def comparison(self) -> str:
        out = []
        units = [u for u in CHART_UNITS if any(u in m.summaries for r in self.view.results
                                               if r.status == "ok" for m in r.metrics)][:1]
        if not units:
            return "<p>No measurements to compare.</p>"
        for unit in units:
            table = report_table(self.view, unit, self.r.stat, self.r.baselines, DEFAULT_BASELINE,
                                 self.r.rows)
            rows = grouped_rows(table, self.benchmarks())
            out.append(f"<h3>{_e(self.r.stat)}, {_e(unit)}</h3>")
            names = sorted({rc.baseline for rc in table.ratios})
            out.append(f'<p class="desc">Ratio = configuration / baseline ({_e(", ".join(names))}); '
                       "above 1 means more than the baseline. Reasons for failed and n/a "
                       "benchmarks are in the statistics tables (and in each badge's tooltip).</p>")
            # value columns, then ratio columns: (header, one cell per row)
            columns: list[tuple[str, list[str]]] = []
            for c in table.columns:
                cells = []
                for row in rows:
                    value = table.value(row, c)
                    note = table.note(row, c)
                    if value is not None:
                        cells.append(_td(fmt_num(value), num=True))
                    elif note is not None:
                        status = note.status
                        badge = (f'<span class="badge {_e(status.replace("/", "-"))}" '
                                 f'title="{_e(note.reason)}">')
                        cells.append(_td(f"{badge}{_e(status)}</span>", num=True, raw=True))
                    else:
                        cells.append(_td("-", num=True))
                columns.append((self._column_label(c), cells))
            for rc in table.ratios:
                cells = [_td(fmt_ratio(r) if (r := table.ratio(row, rc)) is not None else "-", num=True,
                             cls="ratio") for row in rows]
                columns.append((f"{self._column_label(rc.column)} / {self._column_label(rc.base)}", cells))
            # at most _COLUMNS_PER_TABLE value columns in one table: a wide matrix becomes
            # parts that fit the page, the row labels repeated in each
            parts = [columns[i:i + _COLUMNS_PER_TABLE] for i in range(0, len(columns), _COLUMNS_PER_TABLE)]
            for k, part in enumerate(parts):
                by_metric = table.layout == "metric"  # the benchmark is in the column names
                header = [("metric", False)] if by_metric else [("benchmark", False), ("metric", False)]
                header += [(h, True) for h, _ in part]
                trs = []
                for i, row in enumerate(rows):
                    labels = "" if by_metric else _td(row.benchmark or "")
                    labels += _td("(all)" if row.problem else row.metric or "")
                    trs.append("<tr>" + labels + "".join(cells[i] for _, cells in part) + "</tr>")
                caption = f"part {k + 1} of {len(parts)}" if len(parts) > 1 else ""
                out.append(_table(header, trs, "comparison", caption))
            for rc in table.ratios:  # a chart only where some metric has both values
                title = (f"{self._column_label(rc.column)} / {self._column_label(rc.base)}: "
                         f"{table.stat} {unit}")
                bars = [RatioBar(" / ".join(row.cells()), ratio) for row in rows
                        if (ratio := table.ratio(row, rc)) is not None]
                left_out = sum(1 for row in rows if not row.problem) - len(bars)
                if not bars:
                    continue
                caption = (f'<figcaption>{left_out} metric{"s" if left_out != 1 else ""} without a '
                        "value in both configurations left out (see the table).</figcaption>"
                           if left_out else "")
                out.append(f'<figure class="chart">{ratio_bars_svg(bars, title=title)}{caption}</figure>')
        return "\n".join(out)

    # ------------------------------------------------------------ box plots

    def _box_row(self, config: ConfigView, result: ResultView | None, metric: str,
                 unit: Unit) -> BoxRow | None:
        label = self.labels[config.id]
        if result is None:
            return None
        if result.status != "ok":
            return BoxRow(label, None, note=f"{result.status}: {result.reason or 'no reason given'}")
        m = next((x for x in result.metrics if x.name == metric), None)
        if m is None or unit not in m.summaries:
            return None
        samples = self.samples(m)
        if samples is None:
            s: Summary = m.summaries[unit]
            return BoxRow(label, BoxStats(s.n, s.min, s.median, s.median, s.median, s.max),
                          quartiles=False)
        if not samples:
            return BoxRow(label, None, note="no samples stored")
        values = [float(x.insns if unit == Unit.INSN else x.cycles) for x in samples]
        return BoxRow(label, box_stats(values))

    def boxplots(self) -> str:
        """Box plots across configurations; empty when no metric has two to set side by side."""
        out = []
        if self.r.samples is None:
            out.append(f'<p class="note">{NO_SAMPLES}: boxes show min, median and max only.</p>')
        else:
            out.append('<p class="desc">Whiskers: min and max; box: p25 to p75; thick line: median. '
                       "One chart per metric measured in at least two configurations.</p>")
        for bench in self.benchmarks():
            for metric in self.metric_names(bench):
                for unit in self.chart_units(bench, metric):
                    rows = [b for c in self.configs
                            if (b := self._box_row(c, self.result(c, bench), metric, unit)) is not None]
                    if sum(1 for b in rows if b.stats is not None) < 2:
                        continue  # nothing to set side by side
                    if all(b.stats is None or b.stats.n < 2 for b in rows):
                        continue  # single samples: the table says it all
                    svg = boxplot_svg(rows, title=f"{bench} · {metric} ({unit})", unit=unit)
                    out.append(f'<figure class="chart">{svg}</figure>')
        return "\n".join(out) if len(out) > 1 else ""

    # ------------------------------------------------------------ histograms

    def _hist_figure(self, config: ConfigView, result: ResultView, metric: str, unit: Unit,
                     name: str | None = None) -> str:
        label = self.labels[config.id] if name is None else name
        if result.status != "ok":
            reason = _e(result.reason or "no reason given")
            text = f'{_badge(result.status)} <span class="why" title="{reason}">{reason}</span>'
            return (f'<figure class="hist-fig missing"><figcaption>{_e(label)}</figcaption>'
                    f'<div class="placeholder">{text}</div></figure>')
        m = next((x for x in result.metrics if x.name == metric), None)
        if m is None or unit not in m.summaries:
            return ""
        samples = self.samples(m)
        if samples is None:
            return (f'<figure class="hist-fig missing"><figcaption>{_e(label)}</figcaption>'
                    f'<div class="placeholder">{NO_SAMPLES}</div></figure>')
        values = [float(x.insns if unit == Unit.INSN else x.cycles) for x in samples]
        median = m.summaries[unit].median
        svg = histogram_svg(values, title=f"{label} (n={len(values)})", unit=unit,
                            marker=median if values else None)
        return f'<figure class="hist-fig">{svg}</figure>'

    def distributions(self) -> str:
        """Histograms of the raw samples. One configuration: every metric's histogram in one
        grid (small multiples, titled by benchmark and metric). Several: a folded block per
        metric with one histogram per configuration."""
        out = []
        if self.r.samples is None:
            out.append(f'<p class="note">{NO_SAMPLES}: histograms need the raw samples from the store.</p>')
        else:
            out.append('<p class="desc">Each histogram has its own x axis (compare configurations '
                       "with the box plots). Dashed line: median. A metric with one sample per "
                       "configuration has none (the statistics table has its value).</p>")
        single = len(self.configs) == 1
        grid: list[str] = []
        for bench in self.benchmarks():
            for metric in self.metric_names(bench):
                counts = [m.summaries[u].n for r in self.view.results if r.benchmark == bench
                          and r.status == "ok" for m in r.metrics if m.name == metric
                          for u in m.summaries]
                if counts and max(counts) < 2:
                    continue
                for unit in self.chart_units(bench, metric):
                    figures = [f for c in self.configs
                               if (r := self.result(c, bench)) is not None
                               and (f := self._hist_figure(c, r, metric, unit,
                                                           f"{bench} · {metric}" if single else None))]
                    if single:
                        grid += figures
                        continue
                    desc = next((m.description for r in self.view.results if r.benchmark == bench
                                 for m in r.metrics if m.name == metric and m.description), "")
                    head = f"{bench} · {metric} ({unit})" + (f": {desc}" if desc else "")
                    out.append(f'<details class="metric"><summary>{_e(head)}</summary>'
                               '<div class="multiples">\n' + "".join(f"{f}\n" for f in figures)
                               + "</div></details>")
        if grid:
            out.append('<div class="multiples">\n' + "".join(f"{f}\n" for f in grid) + "</div>")
        if len(out) == 1:
            out.append("<p>No metric has more than one sample.</p>")
        return "\n".join(out)

    # ------------------------------------------------------------ footprint

    def footprint(self) -> str:
        with_fp = [(r, r.footprint) for r in self.view.results if r.footprint is not None]
        errors = [(r, r.footprint_error) for r in self.view.results if r.footprint_error is not None]
        out = []
        if not with_fp and not errors:
            out.append("<p>No footprint is recorded for this run.</p>")
        if with_fp:
            out.append('<p class="desc">Bytes, from the linker map of each benchmark image.</p>')
            for key, name in (("flash", "Flash"), ("ram", "RAM")):
                comps = _component_order({c for _, fp in with_fp for c in _parts(fp, key)})
                stack = key == "ram" and any(_STACK_PEAK in r.counters for r, _ in with_fp)
                header = [("configuration", False), ("benchmark", False), (f"{key} total", True)]
                header += [(c, True) for c in comps]
                if stack:
                    header.append(("main stack peak", True))
                rows = []
                for r, fp in with_fp:
                    parts = _parts(fp, key)
                    total = fp.flash_total if key == "flash" else fp.ram_total
                    cells = [_td(self.labels[r.config.id]), _td(r.benchmark), _td(str(total), num=True)]
                    cells += [_td(str(parts[c]) if c in parts else "-", num=True) for c in comps]
                    if stack:
                        peak = r.counters.get(_STACK_PEAK)
                        cells.append(_td("-" if peak is None else str(peak), num=True))
                    rows.append("<tr>" + "".join(cells) + "</tr>")
                out.append(f"<h3>{name}</h3>")
                out.append(_table(header, rows, f"footprint {key}"))
            out.append(self._sections(with_fp))
        if errors:
            items = "".join(f"<li>{_e(self.labels[r.config.id])} / {_e(r.benchmark)}: "
                            f"{_e(error)}</li>" for r, error in errors)
            out.append(f'<h4>Footprint not measured</h4><ul class="warnings">{items}</ul>')
        out.append(self._other_values())
        return "\n".join(out)

    def _sections(self, with_fp: list[tuple[ResultView, Footprint]]) -> str:
        names = sorted({s for _, fp in with_fp for s in fp.sections})
        if not names:
            return ""
        header = [("configuration", False), ("benchmark", False), *((s, True) for s in names)]
        rows = []
        for r, fp in with_fp:
            sec = fp.sections
            cells = [_td(self.labels[r.config.id]), _td(r.benchmark)]
            cells += [_td(str(sec[s]) if s in sec else "-", num=True) for s in names]
            rows.append("<tr>" + "".join(cells) + "</tr>")
        return ("<details><summary>By output section</summary>"
                + _table(header, rows, "footprint sections") + "</details>")

    def _other_values(self) -> str:
        """Other values of a result: the counters it printed (``LAB-KV`` lines) but the one
        in the RAM table, and the wall time."""
        keyed: list[tuple[ResultView, dict[str, float]]] = []
        for r in self.view.results:
            values: dict[str, float] = {k: v for k, v in r.counters.items() if k != _STACK_PEAK}
            if r.wall_s is not None:
                values["wall_s"] = r.wall_s
            if values:
                keyed.append((r, values))
        if not keyed:
            return ""
        keys = sorted({k for _, d in keyed for k in d})
        header = [("configuration", False), ("benchmark", False)]
        header += [("wall time (s)" if k == "wall_s" else k, True) for k in keys]
        rows = []
        for r, d in keyed:
            cells = [_td(self.labels[r.config.id]), _td(r.benchmark)]
            for k in keys:
                v = d.get(k)
                cells.append(_td("-" if v is None else fmt_num(v), num=True))
            rows.append("<tr>" + "".join(cells) + "</tr>")
        return "<h3>Other values reported</h3>" + _table(header, rows, "extra")


__all__ = ["CHART_UNITS", "HtmlRenderer", "render_html"]


def _metric_number(name: str) -> int | None:
    """The number a metric name ends with (``malloc_4096`` -> 4096), else None."""
    head, _, tail = name.rpartition("_")
    return int(tail) if head and tail.isdigit() else None


def _pivot_chart(p: Pivot) -> str:
    """The chart of a pivot ([[report.table]] ``chart``): "line" (a value against the one
    numeric row axis, one line per column), "bars" (a group per row, a bar per column: OS
    vs FSM per scenario and build), "auto" (line when the rows are one numeric axis, else
    bars), "none"."""
    kind = p.spec.chart
    xs = [rk[0] for rk in p.row_keys]
    if p.row_dims == ("metric",):  # metrics named <what>_<number> (malloc_64): x = the number
        sized = [_metric_number(str(x)) for x in xs]
        if sized and all(n is not None for n in sized):
            xs = [n for n in sized if n is not None]
    numeric = len(p.row_dims) == 1 and bool(xs) and all(
        isinstance(x, int) and not isinstance(x, bool) for x in xs)
    if kind == "auto":
        kind = "line" if numeric and p.spec.ratio is None else "bars"
    if kind == "bars":
        groups = [" · ".join(p.row_cells(rk)) for rk in p.row_keys]
        names = [p.col_label(ck) for ck in p.col_keys]
        values = [[p.value(rk, ck) for ck in p.col_keys] for rk in p.row_keys]
        return grouped_bars_svg(groups, names, values, title=p.spec.title, y_label=p.caption(),
                                reference=1.0 if p.spec.ratio is not None else None)
    if kind != "line" or not numeric:
        return ""
    series: list[Series] = []
    for ck in p.col_keys:
        pts = tuple((float(x), v) for x, rk in zip(xs, p.row_keys, strict=True)  # type: ignore[arg-type]
                    if (v := p.value(rk, ck)) is not None)
        if pts:
            series.append(Series(p.col_label(ck), tuple(sorted(pts))))
    if not series:
        return ""
    x_label = p.dim_name(p.row_dims[0])
    chart = line_chart_svg(series, title=p.spec.title, x_label=x_label, y_label=p.caption())
    if len(series) < 2:
        return chart
    # the overhead view: each line divided by the first at the same x (lines that lie on
    # top of each other in the chart of values part here)
    base = dict(series[0].points)
    ratios = [Series(f"{s.name} / {series[0].name}",
                     tuple((x, y / base[x]) for x, y in s.points if base.get(x)))
              for s in series[1:]]
    ratios = [r for r in ratios if r.points]
    if not ratios:
        return chart
    return chart + "</figure>\n<figure class=\"chart\">" + line_chart_svg(
        ratios, title=f"{p.spec.title}: relative to {series[0].name}", x_label=x_label,
        y_label=f"ratio to {series[0].name} (1 = same)")
