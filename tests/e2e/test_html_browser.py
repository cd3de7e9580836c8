"""The HTML report in a real browser: headless Chromium loads it, dumps the DOM and a screenshot.

Needs ``chromium`` on PATH (Debian package ``chromium``). Without it the test is skipped,
unless ``CI`` is set: there a missing browser is a failure. Set
``RTOSLAB_BROWSER_ARTIFACTS=DIR`` to keep the page, the screenshot and the browser log.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from rtoslab.report.html import render_html
from rtoslab.store import open_store
from tests.unit.test_report_html import (
    EXPECTED_BOXPLOTS,
    EXPECTED_HISTOGRAMS,
    EXPECTED_RATIO_CHARTS,
    build_html_run,
)

from .conftest import chromium_path

pytestmark = pytest.mark.browser

_TIMEOUT_S = 120
_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--enable-logging=stderr",
    "--v=0",
)


def _run(chromium: str, profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [chromium, *_FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True,
        text=True,
        timeout=_TIMEOUT_S,
        check=False,
    )
    assert proc.returncode == 0, f"chromium exited {proc.returncode}:\n{proc.stderr[-3000:]}"
    return proc


def _console_problems(log: str) -> list[str]:
    return [line for line in log.splitlines() if "CONSOLE" in line or "Uncaught" in line]


def _svgs(dom: str, cls: str) -> int:
    return len(re.findall(rf'<svg\b[^>]*\bclass="{cls}"', dom))


def test_report_renders_in_chromium(tmp_path: Path) -> None:
    chromium = chromium_path()
    db = tmp_path / "results.sqlite"
    run_id = build_html_run(db)
    with open_store(db) as store:
        view = store.load_run(run_id)
        html = render_html(view, store.load_run_samples(view))
    page = tmp_path / "report.html"
    page.write_text(html, encoding="utf-8")
    url = page.as_uri()

    dump = _run(chromium, tmp_path / "profile-dom", "--dump-dom", url)
    dom = dump.stdout
    assert "<h1>rtoslab run 1</h1>" in dom
    assert dom.count('<table class="summary">') == 3
    assert dom.count('<table class="comparison">') == 1  # in cycles (time first)
    assert '<table class="footprint flash">' in dom and '<table class="footprint ram">' in dom
    assert _svgs(dom, "hist") == EXPECTED_HISTOGRAMS
    assert _svgs(dom, "box") == EXPECTED_BOXPLOTS
    assert _svgs(dom, "ratio") == EXPECTED_RATIO_CHARTS
    assert len(re.findall(r'<rect\b[^>]*class="ratiobar', dom)) > 0
    assert len(re.findall(r'<rect\b[^>]*class="bar"', dom)) > EXPECTED_HISTOGRAMS
    # Stored text stays text: the failed benchmark's "<script>" did not become an element.
    assert "<script" not in dom and "&lt;script&gt;alert(1)&lt;/script&gt;" in dom
    assert _console_problems(dump.stderr) == []

    png = tmp_path / "report.png"
    shot = _run(chromium, tmp_path / "profile-png", f"--screenshot={png}", "--window-size=1280,2000", url)
    assert png.is_file()
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 50_000, f"screenshot is only {len(data)} bytes: the page looks empty"
    assert _console_problems(shot.stderr) == []

    keep = os.environ.get("RTOSLAB_BROWSER_ARTIFACTS")
    if keep:
        out = Path(keep)
        out.mkdir(parents=True, exist_ok=True)
        shutil.copy(page, out / "report.html")
        shutil.copy(png, out / "report.png")
        (out / "chromium.log").write_text(dump.stderr + shot.stderr, encoding="utf-8")


# The script the test adds to its copy of a page (the report itself has no script): after
# layout, it writes into the DOM every table wider than the box that holds it.
_MEASURE = """<script>
const wide = [];
for (const t of document.querySelectorAll("table")) {
  const box = t.parentElement;
  if (t.scrollWidth > box.clientWidth + 1)
    wide.push(t.className + ":" + t.scrollWidth + ">" + box.clientWidth);
}
document.body.setAttribute("data-overflow", wide.join(" ") || "none");
document.body.setAttribute("data-main-width", String(document.querySelector("main").clientWidth));
</script>"""


def _toggle_matrix_html() -> str:
    """The report of a seed-002-sized run (20 configurations: super loop, FSM and RTOS at
    three tick rates, N = 1..5, with every FreeRTOS option) with its question table."""
    from rtoslab.report.pivot import PivotSpec
    from rtoslab.views import RunView
    from tests.unit.test_report_pivot import N_NAME, _result, _toggle_config

    results = []
    rid = 0
    for n in range(1, 6):
        for bench in ("toggle_superloop", "toggle_fsm"):
            rid += 1
            results.append(_result(rid, bench, _toggle_config(rid, "baremetal", n, None),
                                   {"total": 40000.0 * n, "spread": 100.0 * n}))
        for tick in (1000, 10000, 100000):
            rid += 1
            results.append(_result(rid, "toggle_rtos", _toggle_config(rid, "freertos", n, tick),
                                   {"total": 40400.0 * n, "spread": 70.0 * n}))
    view = RunView(1, "t0", "t1", "complete", "r", "h", {"qemu-system-arm": "7.2"},
                   "rtoslab run examples/superloop-vs-rtos.toml", "examples/superloop-vs-rtos.toml",
                   tuple(results))
    spec = PivotSpec("total: origin to the last task's completion", rows=("defines.TOGGLE_TASKS",),
                     columns=("benchmark", "kernel_options.configTICK_RATE_HZ"), metrics=("total",),
                     names=N_NAME)
    return render_html(view, None, tables=(spec,))


@pytest.mark.parametrize("width", [1400, 1024])
def test_no_table_overflows_its_box(tmp_path: Path, width: int) -> None:
    """In a 1400 px (and a 1024 px) window the page uses the width and no table is wider
    than its box (the browser's own layout, measured; and a screenshot of it)."""
    chromium = chromium_path()
    html = _toggle_matrix_html()
    page = tmp_path / "report.html"
    page.write_text(html.replace("</body>", _MEASURE + "\n</body>"), encoding="utf-8")
    dump = _run(chromium, tmp_path / "profile-dom", f"--window-size={width},1000", "--dump-dom",
                page.as_uri())
    overflow = re.search(r'data-overflow="([^"]*)"', dump.stdout)
    main_width = re.search(r'data-main-width="(\d+)"', dump.stdout)
    assert overflow is not None and main_width is not None, "the measurement did not run"
    assert overflow.group(1) == "none", f"tables wider than their box: {overflow.group(1)}"
    assert int(main_width.group(1)) >= width - 80  # the page uses the window's width
    assert '<table class="pivot">' in dump.stdout and 'class="line"' in dump.stdout
    png = tmp_path / "report.png"
    _run(chromium, tmp_path / "profile-png", f"--screenshot={png}", f"--window-size={width},2400",
         page.as_uri())
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 50_000
    keep = os.environ.get("RTOSLAB_BROWSER_ARTIFACTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(png, Path(keep) / f"matrix-{width}.png")


# After layout, the script writes into the DOM: whether the first table starts on the
# first screen and the page's height, as the page opens; then, with every folded section
# opened, every chart mark that lies outside its plot area (svg[data-plot]) or any chart
# element outside its SVG's box.
_CHARTS = """<script>
const first = document.querySelector("table");
document.body.setAttribute("data-first-table-top",
  first ? String(Math.round(first.getBoundingClientRect().top)) : "none");
document.body.setAttribute("data-height", String(document.documentElement.scrollHeight));
for (const d of document.querySelectorAll("details")) d.open = true;
const out = [];
for (const svg of document.querySelectorAll("svg")) {
  const vb = svg.viewBox.baseVal;
  const scale = svg.getBoundingClientRect().width / vb.width;
  const origin = svg.getBoundingClientRect();
  const local = (r) => ({x: (r.left - origin.left) / scale, y: (r.top - origin.top) / scale,
                         w: r.width / scale, h: r.height / scale});
  for (const el of svg.querySelectorAll("text, rect, line, circle, path")) {
    const b = local(el.getBoundingClientRect());
    if (b.w === 0 && b.h === 0) continue;
    if (b.x < -1 || b.y < -1 || b.x + b.w > vb.width + 1 || b.y + b.h > vb.height + 1)
      out.push(svg.getAttribute("class") + ":" + el.tagName + " outside the chart");
  }
  const plot = svg.getAttribute("data-plot");
  if (!plot) continue;
  const [px, py, pw, ph] = plot.split(" ").map(Number);
  for (const el of svg.querySelectorAll("circle, path.series, rect.gbar")) {
    let b = local(el.getBoundingClientRect());
    if (el.tagName === "circle")  // a dot or a ring: its centre
      b = {x: b.x + b.w / 2, y: b.y + b.h / 2, w: 0, h: 0};
    const slack = 2;  // a line's stroke
    if (b.x < px - slack || b.y < py - slack || b.x + b.w > px + pw + slack || b.y + b.h > py + ph + slack)
      out.push(svg.getAttribute("class") + ":" + el.tagName + " outside its plot at y=" + Math.round(b.y));
  }
}
document.body.setAttribute("data-outside", out.join(" | ") || "none");
</script>"""


def _measure_charts(chromium: str, tmp_path: Path, html: str, name: str) -> dict[str, str]:
    page = tmp_path / f"{name}.html"
    page.write_text(html.replace("</body>", _CHARTS + "\n</body>"), encoding="utf-8")
    dump = _run(chromium, tmp_path / f"profile-{name}", "--window-size=1280,800", "--dump-dom",
                page.as_uri())
    found = {k: m.group(1) for k in ("outside", "first-table-top", "height")
             if (m := re.search(rf'data-{k}="([^"]*)"', dump.stdout))}
    assert len(found) == 3, "the measurement did not run"
    keep = os.environ.get("RTOSLAB_BROWSER_ARTIFACTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        png = Path(keep) / f"{name}.png"
        _run(chromium, tmp_path / f"profile-{name}-png", f"--screenshot={png}", "--window-size=1280,800",
             page.as_uri())
    return found


def _kernel_suite_html(db: Path) -> str:
    """A kernel-suite-sized page: one configuration, 16 benchmarks, 28 metrics of 1,000
    samples each (what `run --suite kernel --kernel freertos` stores) and 4 n/a rows, with
    the raw samples loaded as the CLI loads them."""
    from rtoslab.records import BenchResult, Sample
    from tests.unit.test_report_golden import CONFIG_FREERTOS, FixedClock
    from tests.unit.test_report_html import _lcg, _metric

    with open_store(db, clock=FixedClock("2026-11-22T04:00:00")) as store:
        run_id = store.begin_run(command="rtoslab run --suite kernel --kernel freertos --with-na",
                                 revision="r", host="h", tool_versions={})
        config = store.upsert_config(CONFIG_FREERTOS)
        for b in range(16):
            metrics = []
            for k in range(2 if b % 4 else 1):
                cycles = [400 + 30 * b + j for j in _lcg(b * 7 + k, 1000, 40)]
                metrics.append(_metric(f"metric_{b}_{k}", "what it measures", [c * 3 // 5 for c in cycles],
                                       cycles))
            store.add_bench_result(run_id, config, f"s{b}", BenchResult(
                f"k_bench_{b}", "ok", None, tuple(metrics), "", Sample(3, 4), 1000, 1500))
        for b in range(4):
            store.add_bench_result(run_id, config, f"x{b}", BenchResult(
                f"k_smp_{b}_x", "n/a", "kernel freertos lacks LAB_HAS_SMP=0 (FreeRTOS single-core "
                "kernel (configNUMBER_OF_CORES 1): it schedules one core; the SMP kernel is the "
                "freertos-smp port)"))
        store.finish_run(run_id, "complete")
        view = store.load_run(run_id)
        return render_html(view, store.load_run_samples(view))


def test_charts_stay_inside_their_plots_and_the_answer_comes_first(tmp_path: Path) -> None:
    """Issue 28 item 4, in a real browser: no chart element outside its plot (the line and
    ratio charts of a seed-002-sized experiment, the histograms, box plots and ratio bars
    of a three-configuration run, folded sections opened), the first table on the first
    screen (1280x800); the experiment's page short, its details folded."""
    chromium = chromium_path()
    db = tmp_path / "results.sqlite"
    run_id = build_html_run(db)
    with open_store(db) as store:
        view = store.load_run(run_id)
        run_html = render_html(view, store.load_run_samples(view))
    for name, html in (("matrix", _toggle_matrix_html()), ("run", run_html)):
        found = _measure_charts(chromium, tmp_path, html, name)
        assert found["outside"] == "none", (name, found["outside"])
        assert found["first-table-top"] != "none" and int(found["first-table-top"]) < 800, (name, found)
        if name == "matrix":  # the question's table and chart, then the details folded
            assert int(found["height"]) < 4_000, found["height"]  # (all open: 6,556 px)
    matrix = _toggle_matrix_html()
    assert 'class="line"' in matrix and "relative to" in matrix  # the overhead view
    # the two-line answer: the first table's last row, against its first column
    assert "<b>most above</b>: total at N 5: toggle_rtos · " in matrix
    assert "202000 is 1.010× toggle_superloop 200000" in matrix


def test_kernel_suite_page_is_small_and_short(tmp_path: Path) -> None:
    """The kernel suite's page: under 2 MB and under 15,000 px tall, its first table on the
    first screen, every chart inside its box."""
    chromium = chromium_path()
    html = _kernel_suite_html(tmp_path / "results.sqlite")
    assert len(html.encode()) < 2_000_000, len(html.encode())
    found = _measure_charts(chromium, tmp_path, html, "kernel")
    assert int(found["height"]) < 15_000, found["height"]
    assert int(found["first-table-top"]) < 800, found
    assert found["outside"] == "none", found["outside"]


_TIMELINE = """<script>
const view = document.querySelector("div.tl-view");
const ax = view.querySelector("svg.tl-axis"), plot = view.querySelector("svg.tl-plot");
const win = view.querySelector("rect.tl-win");
const labels = () => [...ax.querySelectorAll("text")].map(t => t.textContent);
const out = [];
for (const svg of document.querySelectorAll("svg.tl-axis")) {
  const box = svg.getBoundingClientRect();
  const texts = svg.querySelectorAll("text");
  if (texts.length < 2) out.push("an axis with " + texts.length + " labels");
  for (const t of texts) {
    const b = t.getBoundingClientRect();
    if (b.left < box.left - 1 || b.right > box.right + 1 || b.top < box.top - 1 || b.bottom > box.bottom + 1)
      out.push("label " + t.textContent + " outside its axis");
  }
}
const r = plot.getBoundingClientRect();
plot.dispatchEvent(new MouseEvent("dblclick", {bubbles: true}));  // the detail's whole window
const before = labels(), w0 = +win.getAttribute("width"), at0 = view.querySelector(".tl-at").textContent;
for (let i = 0; i < 8; i++)
  plot.dispatchEvent(new WheelEvent("wheel", {deltaY: -100, clientX: r.left + r.width / 2,
                                              clientY: r.top + 5, bubbles: true, cancelable: true}));
const ov = view.querySelector("svg.tl-ov"), o = ov.getBoundingClientRect();
const x0 = +win.getAttribute("x");  // after the zoom
ov.dispatchEvent(new MouseEvent("click", {clientX: o.left + o.width * 0.01, clientY: o.top + 2,
                                          bubbles: true}));
document.body.setAttribute("data-tl", JSON.stringify({
  out: out, before: before, after: labels(), w0: w0, w1: +win.getAttribute("width"),
  x0: x0, x1: +win.getAttribute("x"), at0: at0, at1: view.querySelector(".tl-at").textContent,
  unit: view.querySelector(".tl-unit").textContent, shown: ax.dataset.unitShown,
  nodes: document.getElementsByTagName("*").length}));
</script>"""


def test_timeline_has_a_time_axis_and_an_overview_in_chromium(tmp_path: Path) -> None:
    """Issue 28 item 4: the timeline view of 96,000 items in a real browser: every axis has
    labels inside its box, zooming the detail re-labels its axis and narrows the overview's
    window, a click on the overview moves it, and the page's element count stays bounded."""
    import html as html_lib
    import json

    from rtoslab.report.timeline_html import MAX_ITEMS, timeline_section
    from tests.unit.test_timeline import long_timeline

    chromium = chromium_path()
    page = tmp_path / "timeline.html"
    body = timeline_section([long_timeline(4 * MAX_ITEMS)])
    page.write_text(f"<!doctype html><html><head><meta charset='utf-8'></head><body>{body}"
                    f"{_TIMELINE}</body></html>", encoding="utf-8")
    dump = _run(chromium, tmp_path / "profile-tl", "--window-size=1400,900", "--dump-dom", page.as_uri())
    m = re.search(r'data-tl="([^"]*)"', dump.stdout)
    assert m, "the measurement did not run:\n" + dump.stderr[-2000:]
    found = json.loads(html_lib.unescape(m.group(1)))
    assert found["out"] == [], found["out"]
    assert found["before"] != found["after"], found  # the axis follows the zoom
    assert found["w1"] < found["w0"] * 0.5, found  # the overview's window narrowed
    # the click at 1 % of the overview (bin 4 of 400) centred the window there
    assert found["x1"] != found["x0"] and abs(found["x1"] + found["w1"] / 2 - 4) < 0.5, found
    assert "µs" in found["at1"] and "cycles" in found["at1"], found["at1"]
    assert found["unit"] == found["shown"] == "µs", found  # the label beside the axis follows it
    assert found["nodes"] < 3 * MAX_ITEMS + 6 * 400, found["nodes"]
    assert not _console_problems(dump.stderr), _console_problems(dump.stderr)
