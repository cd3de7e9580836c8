"""A metric across the runs of a database, in commit order: `rtoslab history` and the
static site of `rtoslab publish` (one page per benchmark, a line per metric over
revisions, steps above the threshold marked as regressions).

A run's *revision* is the kernel tree it measured (``kernel_source`` in its configurations'
identity: commit and commit time; docs/ci.md), else the rtoslab revision it ran with and
its start time. Runs are ordered by that time, then by id. A *series* is one metric of one
benchmark on one configuration, where configurations are the same when their axes are
(``comparison.axes_of``: the kernel tree is not an axis, so one line follows a kernel
across commits). Plain values in (views), text out; pages are self-contained (inline CSS
and SVG, no script, no external request).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from html import escape

from rtoslab.records import RtoslabError, Unit
from rtoslab.report.comparison import axes_of, is_regression
from rtoslab.report.labels import SEPARATOR, axes_label, varying_keys
from rtoslab.report.numbers import fmt_num
from rtoslab.report.svg import Mark, Series, line_chart_svg
from rtoslab.views import ConfigView, RunView


@dataclass(frozen=True)
class Revision:
    run_id: int
    label: str  # "1a2b3c4d5e6f" (kernel commit) or "rtoslab v0.3-12-gabc" (no kernel tree)
    when: str  # ISO 8601: the commit's time, else the run's start
    kernel_commit: str = ""


@dataclass(frozen=True)
class Point:
    revision: Revision
    value: float


@dataclass(frozen=True)
class HistorySeries:
    benchmark: str
    metric: str
    config: str  # the configuration's axes that vary between the database's configurations
    config_axes: tuple[tuple[str, object], ...]
    unit: Unit
    stat: str
    points: tuple[Point, ...]

    def steps(self, pct: float) -> list[int]:
        """Indices of points more than ``pct`` percent above the point before."""
        return [i for i in range(1, len(self.points))
                if is_regression(self.points[i - 1].value, self.points[i].value, pct)]


def revision_of(view: RunView) -> Revision:
    """The revision a run measured: its kernel tree's commit when it has one."""
    for config in view.configs:
        source = config.identity.get("kernel_source")
        if isinstance(source, Mapping):
            commit = str(source.get("commit") or "")
            if commit:
                label = commit[:12] + ("+dirty" if source.get("dirty") else "")
                return Revision(view.id, label, str(source.get("committed") or view.started_at), commit)
            return Revision(view.id, f"content {str(source.get('content', ''))[:12]}", view.started_at)
    return Revision(view.id, f"rtoslab {view.rtoslab_revision}", view.started_at)


def _time(text: str) -> float:
    try:
        return datetime.fromisoformat(text).timestamp()
    except ValueError:
        return math.inf


def commit_order(views: Sequence[RunView]) -> list[RunView]:
    """Runs by their revision's time (commit time, else start time), then id."""
    return sorted(views, key=lambda v: (_time(revision_of(v).when), v.id))


def _config_key(config: ConfigView) -> tuple[tuple[str, object], ...]:
    return tuple((k, v) for k, v in axes_of(config).items())


def history_series(views: Sequence[RunView], *, unit: Unit = Unit.CYCLE, stat: str = "median"
                   ) -> list[HistorySeries]:
    """Every (configuration, benchmark, metric) across the runs, in commit order; a run
    without the metric (or without ``unit``) leaves no point."""
    ordered = commit_order(views)
    configs: dict[tuple[tuple[str, object], ...], None] = {}
    points: dict[tuple[tuple[tuple[str, object], ...], str, str], list[Point]] = {}
    for view in ordered:
        rev = revision_of(view)
        for r in view.results:
            if r.status != "ok":
                continue
            key = _config_key(r.config)
            configs.setdefault(key, None)
            for m in r.metrics:
                summary = m.summaries.get(unit)
                if summary is None:
                    continue
                value = float(getattr(summary, stat))
                if math.isfinite(value):
                    points.setdefault((key, r.benchmark, m.name), []).append(Point(rev, value))
    axes = [dict(k) for k in configs]
    keys = varying_keys(axes)
    out = []
    for (key, bench, metric), pts in points.items():
        label = axes_label(dict(key), keys) if keys else _short(dict(key))
        out.append(HistorySeries(bench, metric, label, key, unit, stat, tuple(pts)))
    return out


def _short(axes: Mapping[str, object]) -> str:
    return SEPARATOR.join(str(axes[k]) for k in ("target", "kernel", "opt") if axes.get(k) not in (None, ""))


def select_series(series: Sequence[HistorySeries], metric: str, bench: str | None,
                  config: Mapping[str, object]) -> list[HistorySeries]:
    """The series of ``metric`` (of ``bench``; on configurations with the ``config`` axis
    values); an unknown name is one line naming those there are."""
    of_metric = [s for s in series if s.metric == metric]
    if not of_metric:
        names = sorted({s.metric for s in series})
        raise RtoslabError(f"metric '{metric}' is in no run of this database: metrics there: "
                           f"{', '.join(names) or 'none'}")
    if bench is not None:
        of_bench = [s for s in of_metric if s.benchmark == bench]
        if not of_bench:
            raise RtoslabError(f"benchmark '{bench}' has no metric '{metric}' here: benchmarks "
                               f"with it: {', '.join(sorted({s.benchmark for s in of_metric}))}")
        of_metric = of_bench
    for key, want in config.items():
        known = {k for s in of_metric for k, _ in s.config_axes}
        if key not in known:
            raise RtoslabError(f"unknown axis '{key}' in --config: use one of {', '.join(sorted(known))}")
        of_metric = [s for s in of_metric if str(dict(s.config_axes).get(key)) == str(want)]
    if not of_metric:
        raise RtoslabError(f"no configuration has {', '.join(f'{k}={v}' for k, v in config.items())} "
                           f"for metric '{metric}'")
    return of_metric


def _delta(prev: float, value: float) -> str:
    d = value - prev
    pct = "" if prev == 0 else f" ({'+' if d > 0 else ''}{100 * d / prev:.3f} %)"
    return f"{'+' if d > 0 else ''}{fmt_num(d)}{pct}"


def render_history_text(series: Sequence[HistorySeries], threshold: float) -> str:
    """One table per series: run, revision, date, value, the step from the point before,
    and REGRESSION where the step is above ``threshold`` percent."""
    blocks = []
    for s in series:
        steps = set(s.steps(threshold))
        unit = "modelled cycles" if s.unit == Unit.CYCLE else str(s.unit)
        head = f"{s.benchmark}/{s.metric}" + (f" on {s.config}" if s.config else "")
        rows = [("run", "revision", "date", f"{s.stat} ({unit})", "step", "")]
        for i, p in enumerate(s.points):
            step = _delta(s.points[i - 1].value, p.value) if i else ""
            rows.append((str(p.revision.run_id), p.revision.label, p.revision.when[:19].replace("T", " "),
                         fmt_num(p.value), step, f"REGRESSION (> {threshold:g} %)" if i in steps else ""))
        widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
        lines = [head]
        for r in rows:
            lines.append("  ".join(cell.rjust(w) if c in (0, 3, 4) else cell.ljust(w)
                                   for c, (cell, w) in enumerate(zip(r, widths, strict=True))).rstrip())
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


# ---------------------------------------------------------------- the static site

_SITE_CSS = """
svg .mark { stroke: #b42318; }
table.history td.regressed { color: #b42318; font-weight: 600; }
ul.benches { columns: 3 16em; }
"""


def bench_file(bench: str) -> str:
    return f"bench-{bench}.html"


def run_file(run_id: int) -> str:
    return f"runs/run-{run_id}.html"


def _page(title: str, body: list[str], css: str, up: str | None = "") -> str:
    nav = f'<nav><a href="{up}index.html">all benchmarks</a></nav>' if up is not None else ""
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{escape(title)}</title>\n<style>{css}{_SITE_CSS}</style>\n</head>\n<body>\n<main>\n"
            f"<h1>{escape(title)}</h1>\n{nav}\n" + "\n".join(body) + "\n</main>\n</body>\n</html>\n")


def bench_page(bench: str, series: Sequence[HistorySeries], threshold: float, css: str,
               db_name: str) -> str:
    """One benchmark: per configuration, a chart per metric over revisions (regressions
    ringed) and its table with links to each run's report."""
    body = [f'<p class="desc">{escape(db_name)}: each point is one run; a red ring marks a step up '
            f"of more than {threshold:g} % from the run before (a regression).</p>"]
    by_config: dict[str, list[HistorySeries]] = {}
    for s in series:
        by_config.setdefault(s.config, []).append(s)
    for config, group in by_config.items():
        if config:
            body.append(f"<h2>{escape(config)}</h2>")
        for s in group:
            steps = s.steps(threshold)
            xs = {float(i): p.revision.label for i, p in enumerate(s.points)}
            marks = [Mark(float(i), s.points[i].value,
                          f"regression at run {s.points[i].revision.run_id} ({s.points[i].revision.label}): "
                          f"{_delta(s.points[i - 1].value, s.points[i].value)}") for i in steps]
            unit = "modelled cycles" if s.unit == Unit.CYCLE else str(s.unit)
            line = Series(s.metric, tuple((float(i), p.value) for i, p in enumerate(s.points)))
            chart = line_chart_svg([line],
                                   title=f"{s.benchmark}/{s.metric}: {s.stat} {unit}",
                                   x_label="revision, in commit order", y_label=unit,
                                   x_names=xs, marks=marks)
            body.append(f'<h3 id="{escape(s.metric)}">{escape(s.metric)}</h3>')
            body.append(f'<figure class="chart history">{chart}</figure>')
            rows = []
            for i, p in enumerate(s.points):
                regressed = i in steps
                step = _delta(s.points[i - 1].value, p.value) if i else ""
                link = f'<a href="{run_file(p.revision.run_id)}">run {p.revision.run_id}</a>'
                rows.append(f"<tr><td>{link}</td>"
                            f"<td><code>{escape(p.revision.label)}</code></td>"
                            f"<td>{escape(p.revision.when[:19].replace('T', ' '))}</td>"
                            f'<td class="num">{fmt_num(p.value)}</td><td class="num">{escape(step)}</td>'
                            + (f'<td class="regressed">regression (&gt; {threshold:g} %)</td>' if regressed
                               else "<td></td>") + "</tr>")
            body.append('<div class="scroll"><table class="history"><thead><tr><th>run</th>'
                        "<th>revision</th><th>date</th>"
                        f'<th class="num">{escape(s.stat)} ({escape(unit)})</th>'
                        '<th class="num">step</th><th></th></tr></thead><tbody>'
                        + "".join(rows) + "</tbody></table></div>")
    return _page(f"{bench}: history", body, css)


def index_page(series: Sequence[HistorySeries], views: Sequence[RunView], threshold: float, css: str,
               db_name: str) -> str:
    """The site's first page: the benchmarks (with their regression counts) and the runs."""
    benches: dict[str, int] = {}
    for s in series:
        benches[s.benchmark] = benches.get(s.benchmark, 0) + len(s.steps(threshold))
    def badge(n: int) -> str:
        return f' <span class="badge failed">{n} regression{"s" if n != 1 else ""}</span>' if n else ""

    items = "".join(f'<li><a href="{bench_file(b)}">{escape(b)}</a>{badge(n)}</li>'
                    for b, n in sorted(benches.items()))
    runs = "".join(f'<tr><td><a href="{run_file(v.id)}">run {v.id}</a></td>'
                   f"<td><code>{escape(revision_of(v).label)}</code></td>"
                   f"<td>{escape(revision_of(v).when[:19].replace('T', ' '))}</td>"
                   f"<td>{escape(v.status)}</td><td><code>{escape(v.command)}</code></td></tr>"
                   for v in commit_order(views))
    body = [f'<p class="desc">{escape(db_name)}: {len(views)} runs, {len(benches)} benchmarks; '
            f"regressions are steps up of more than {threshold:g} % between consecutive revisions.</p>",
            "<h2>Benchmarks</h2>", f'<ul class="benches">{items}</ul>',
            "<h2>Runs, in commit order</h2>",
            '<div class="scroll"><table class="runs"><thead><tr><th>run</th><th>revision</th><th>date'
            "</th><th>status</th><th>command</th></tr></thead><tbody>" + runs + "</tbody></table></div>"]
    return _page("rtoslab history", body, css, up=None)
