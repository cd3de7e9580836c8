"""HTML report: golden file and structure, from a real store with raw samples.

The run built here (``build_html_run``) is shared with the export tests and the browser
test: three configurations, raw samples with spread and without, one failed and two n/a
results, footprint and LAB-KV extras. Regenerate the goldens with
``RTOSLAB_UPDATE_GOLDEN=1 pytest tests/unit/test_report_html.py`` and review the diff
(open tests/golden/report_run.html in a browser).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from rtoslab.analysis.stats import summarize
from rtoslab.records import BenchResult, Footprint, MetricResult, Sample, Summary, Unit
from rtoslab.report import get_renderer
from rtoslab.report.html import NO_SAMPLES, HtmlRenderer, render_html
from rtoslab.store import RunView, Store, open_store
from tests.unit.test_report_golden import FixedClock, check_golden

CLOCK_HZ = 25_000_000
FAILED_REASON = 'sem_signal: unexpected console output "<script>alert(1)</script>" & exit | 3'

_BASE_CONFIG: dict[str, object] = {
    "target": "mps2-an385",
    "core": "cortex-m3",
    "kernel_config": {},
    "kernel_config_hash": "44136fa355b3",
    "compiler": "arm-none-eabi-gcc",
    "compiler_version": "13.2.1",
    "ldflags": "-nostartfiles --specs=nano.specs",
    "timing": {"clock_hz": CLOCK_HZ, "name": "cm3-simple"},
}
CONFIG_BARE: dict[str, object] = {
    **_BASE_CONFIG,
    "identity_hash": "a1b2c3d4e5f6",
    "kernel": "baremetal",
    "cflags": "-O2 -mcpu=cortex-m3 -mthumb",
}
CONFIG_RTOS_O2: dict[str, object] = {
    **_BASE_CONFIG,
    "identity_hash": "f6e5d4c3b2a1",
    "kernel": "freertos",
    "kernel_config": {"configTICK_RATE_HZ": 1000, "configUSE_PREEMPTION": 1},
    "kernel_config_hash": "9c1e0b7d2a44",
    "cflags": "-O2 -mcpu=cortex-m3 -mthumb",
}
CONFIG_RTOS_OS: dict[str, object] = {
    **CONFIG_RTOS_O2,
    "identity_hash": "0c0ffee0d00d",
    "cflags": "-Os -mcpu=cortex-m3 -mthumb",
    # the port's defaults as stored with the configuration: the report names the option
    # that differs (CONFIG_RTOS_O2, stored before they were, names none)
    "kernel_defaults": {"configTICK_RATE_HZ": 100, "configUSE_PREEMPTION": 1},
}


def _lcg(seed: int, n: int, spread: int) -> list[int]:
    """Deterministic pseudo-random integers in 0 .. spread-1."""
    out = []
    x = seed
    for _ in range(n):
        x = (x * 1103515245 + 12345) % 2**31
        out.append((x >> 12) % spread)
    return out


def _metric(name: str, description: str, insns: Sequence[int], cycles: Sequence[int] | None) -> MetricResult:
    samples = tuple(Sample(i, c) for i, c in zip(insns, cycles or [0] * len(insns), strict=True))
    summaries: dict[Unit, Summary] = {Unit.INSN: summarize(insns)}
    if cycles is not None:
        summaries[Unit.CYCLE] = summarize(cycles)
        summaries[Unit.US] = summarize([c * 1_000_000 / CLOCK_HZ for c in cycles])
    return MetricResult(name, description, samples, summaries)


def _footprint(kernel: int, bench: int) -> Footprint:
    flash = {"benchmark": bench, "harness": 412, "kernel": kernel, "libc": 1208, "target": 644}
    ram = {"benchmark": 64, "harness": 16, "kernel": kernel // 4, "libc": 96, "stack": 2048}
    sections = {".bss": kernel // 4 + 160, ".data": 16, ".text": kernel + bench + 2100, ".vectors": 164}
    return Footprint(flash, ram, sections)


def _extra(kernel: int, bench: int, stack: int, **kv: int) -> dict[str, Any]:
    """The typed extra values of a result: wall time, footprint and counters."""
    return {"wall_s": 0.25, "footprint": _footprint(kernel, bench),
            "counters": {"main_stack_peak_bytes": stack, **kv}}


def _loop(insns: int, cycles: int, kernel: int) -> BenchResult:
    # All 40 samples identical: the histogram is a single labelled bar.
    metric = _metric("loop_100", "100 iterations of an empty loop", [insns] * 40, [cycles] * 40)
    return BenchResult("loop", "ok", None, (metric,), "loop done\n", Sample(3, 4), 48213, 60877,
                       **_extra(kernel, 120, 312))


def _ctx_switch(offset: int, seed: int) -> BenchResult:
    n = 120
    jitter = _lcg(seed, n, 7)
    insns = [200 + offset + (12 if j == 6 else j) for j in jitter]
    cycles = [260 + offset + 9 * j + (40 if k % 37 == 0 else 0) for k, j in enumerate(jitter)]
    switch = _metric("switch_time", "yield to a ready thread of <equal> priority", insns, cycles)
    give_take = _metric("give_take", "semaphore give | take, same thread",
                        [150 + offset // 2 + j % 3 for j in _lcg(seed + 1, 30, 5)], None)
    return BenchResult("ctx_switch", "ok", None, (switch, give_take), "", Sample(3, 4), 91020, 120331,
                       **_extra(5100 + offset * 10, 480, 520, heap_free_bytes=3072 - offset))


def _sem_signal() -> BenchResult:
    values = [90 + j for j in _lcg(7, 60, 90)]
    metric = _metric("give_to_wait", "give wakes a waiting thread", values, [v * 4 // 3 for v in values])
    return BenchResult("sem_signal", "ok", None, (metric,), "", Sample(3, 4), 50000, 66000,
                       **_extra(5040, 300, 540))


def build_html_run(db: Path) -> int:
    """Fill ``db`` with the report test run; returns its id."""
    clock = FixedClock("2026-11-22T04:00:00")
    with open_store(db, clock=clock) as store:
        run_id = store.begin_run(
            command="rtoslab run --experiment experiments/kernels.toml",
            revision="3f2c1ab",
            host="benchhost",
            tool_versions={"qemu-system-arm": "8.2.2", "arm-none-eabi-gcc": "13.2.1", "rtoslab": "0.1.0"},
            experiment="kernels <vs> baremetal",
        )
        bare = store.upsert_config(CONFIG_BARE)
        o2 = store.upsert_config(CONFIG_RTOS_O2)
        os_ = store.upsert_config(CONFIG_RTOS_OS)
        clock.set("2026-11-22T04:01:00")
        store.add_bench_result(run_id, bare, "5e1f00aa", _loop(301, 402, 0))
        store.add_bench_result(run_id, bare, "77c0ffee",
                               BenchResult("ctx_switch", "n/a", "baremetal has no threads to switch"))
        store.add_bench_result(run_id, bare, "0badf00d",
                               BenchResult("sem_signal", "n/a", "baremetal has no semaphores"))
        clock.set("2026-11-22T04:02:30")
        store.add_bench_result(run_id, o2, "5e1f00aa", _loop(301, 405, 5200))
        store.add_bench_result(run_id, o2, "77c0ffee", _ctx_switch(0, 11))
        store.add_bench_result(run_id, o2, "0badf00d", BenchResult(
            "sem_signal", "failed", FAILED_REASON, **_extra(5200, 300, 560)))
        clock.set("2026-11-22T04:04:00")
        store.add_bench_result(run_id, os_, "5e1f00aa", _loop(296, 410, 4700))
        store.add_bench_result(run_id, os_, "77c0ffee", _ctx_switch(14, 23))
        store.add_bench_result(run_id, os_, "0badf00d", _sem_signal())
        clock.set("2026-11-22T04:05:00")
        store.finish_run(run_id, "complete")
        return run_id


@dataclass(frozen=True)
class HtmlRun:
    store: Store
    view: RunView


def _render(run: HtmlRun, **options: Any) -> str:
    """The HTML report with the run's raw samples, loaded as the CLI loads them."""
    return render_html(run.view, run.store.load_run_samples(run.view), **options)


@pytest.fixture(scope="module")
def html_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HtmlRun]:
    db = tmp_path_factory.mktemp("html") / "results.sqlite"
    run_id = build_html_run(db)
    with open_store(db) as store:
        yield HtmlRun(store, store.load_run(run_id))


# Charts the run above must produce (the browser test checks the same numbers).
# Charts are in modelled cycles, in instructions only for a metric without cycles (time
# first, issue 28). Histograms: loop_100 x 3 configs; switch_time x 2 configs; give_take
# (insn only) x 2; give_to_wait x 1 (its failed config gets a placeholder).
EXPECTED_HISTOGRAMS = 3 + 2 + 2 + 1
# Box plots: loop_100, switch_time, give_take; not give_to_wait, measured in one
# configuration only.
EXPECTED_BOXPLOTS = 1 + 1 + 1
# Ratio charts: 2 ratio columns (each freertos build / baremetal), in cycles.
EXPECTED_RATIO_CHARTS = 2


def _count(html: str, cls: str) -> int:
    return len(re.findall(rf'<svg class="{cls}"', html))


def test_html_matches_golden(html_run: HtmlRun) -> None:
    html = _render(html_run)
    check_golden("report_run.html", html)


def test_html_is_line_broken_for_review(html_run: HtmlRun) -> None:
    """One table row, SVG element or block per line, so the golden diffs line by line."""
    html = _render(html_run)
    longest = max(html.splitlines(), key=len)
    assert len(longest) <= 1000, longest[:200]
    assert "</tr>\n<tr>" in html and "</section>\n<section" in html
    assert re.search(r'<svg class="hist"[^>]*><title>[^<]*</title>\n<', html)


def test_html_is_deterministic(html_run: HtmlRun) -> None:
    a = _render(html_run)
    b = _render(html_run)
    assert a == b


def test_html_structure(html_run: HtmlRun) -> None:
    html = _render(html_run)
    assert html.startswith("<!DOCTYPE html>\n") and html.endswith("</html>\n")
    assert _count(html, "hist") == EXPECTED_HISTOGRAMS
    assert _count(html, "box") == EXPECTED_BOXPLOTS
    assert _count(html, "ratio") == EXPECTED_RATIO_CHARTS
    assert html.count('<table class="summary">') == 3
    assert html.count('<table class="comparison">') == 1  # in cycles
    assert '<table class="footprint flash">' in html and '<table class="footprint ram">' in html
    order = ("comparison", "summary", "boxplots", "distributions", "footprint", "configurations")
    at = [html.find(f'<section id="{section}">') for section in order]
    assert -1 not in at and at == sorted(at), at  # answers first, the configurations last
    # the run's metadata folded under one line, the answer's two lines above it
    assert '<details class="meta"><summary>run 1 · complete · 6 ok, 1 failed, 2 n/a' in html
    assert html.find('<ul class="headline">') < html.find('<details class="meta">')
    assert "<b>most above</b>: " in html
    # the configurations: the axes that vary, every setting folded
    assert '<table class="axes">' in html and "every setting of each configuration (3)" in html
    # Self-contained: no script, no external resource; the only URL is the SVG namespace.
    assert "<script" not in html
    assert set(re.findall(r"https?://[^\"' )]+", html)) == {"http://www.w3.org/2000/svg"}
    assert NO_SAMPLES not in html


def test_html_escapes_stored_text(html_run: HtmlRun) -> None:
    html = _render(html_run)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "kernels &lt;vs&gt; baremetal" in html
    assert "of &lt;equal&gt; priority" in html


def test_html_svgs_are_well_formed_xml(html_run: HtmlRun) -> None:
    html = _render(html_run)
    svgs = re.findall(r"<svg .*?</svg>", html, flags=re.DOTALL)
    assert len(svgs) == EXPECTED_HISTOGRAMS + EXPECTED_BOXPLOTS + EXPECTED_RATIO_CHARTS
    for svg in svgs:
        ET.fromstring(svg)


def test_html_shows_problems_footprint_and_extras(html_run: HtmlRun) -> None:
    html = _render(html_run)
    assert html.count('<tr class="problem">') == 3  # two n/a and one failed
    assert "baremetal has no threads to switch" in html
    assert "main stack peak" in html and ">312<" in html
    shown = html.replace("<wbr>", "")  # break opportunities in long header names are invisible
    assert "heap_free_bytes" in shown and "wall time (s)" in shown
    # The identical-samples histogram is one labelled bar.
    assert "all 40 samples" in html and "= 402 cycle" in html


def test_html_statistics_match_summaries(html_run: HtmlRun) -> None:
    html = _render(html_run)
    (result,) = [r for r in html_run.view.results if r.benchmark == "sem_signal" and r.status == "ok"]
    s = result.metrics[0].summaries[Unit.INSN]
    row = re.search(r"<tr><td>sem_signal</td><td>give_to_wait</td><td>insn</td>(.*?)</tr>", html)
    assert row is not None
    cells = re.findall(r'<td class="num">([^<]*)</td>', row.group(1))
    assert cells[0] == str(s.n) and cells[1] == str(int(s.min)) and cells[-1] == str(int(s.max))


def test_html_explicit_baseline(html_run: HtmlRun) -> None:
    html = _render(html_run, baselines=[("-O2", {"opt": "-O2"})])
    # Only the -Os build has an -O2 twin: one ratio column (in cycles).
    assert _count(html, "ratio") == 1
    assert "freertos -Os / freertos -O2" in html
    assert "Ratio = configuration / baseline (-O2)" in html


def test_html_custom_title_and_stat(html_run: HtmlRun) -> None:
    html = _render(html_run, title="Kernels <draft>", stat="p90")
    assert "<title>Kernels &lt;draft&gt;</title>" in html
    asked = render_html(html_run.view, None, question="Which kernel <costs> most?")
    assert "<p class=\"question\">Which kernel &lt;costs&gt; most?</p>" in asked
    assert "<h3>p90, cycle</h3>" in html


def test_registered_renderer_has_no_samples(html_run: HtmlRun) -> None:
    renderer = get_renderer("html")
    assert isinstance(renderer, HtmlRenderer)
    assert (renderer.name, renderer.file_suffix) == ("html", ".html")
    html = renderer.render(html_run.view)
    assert _count(html, "hist") == 0
    assert html.count(f'<div class="placeholder">{NO_SAMPLES}</div>') == EXPECTED_HISTOGRAMS
    # Box plots still drawn, from min/median/max of the summaries.
    assert _count(html, "box") == EXPECTED_BOXPLOTS
    assert "quartiles need raw samples" in html


def test_single_configuration_has_no_comparison(tmp_path: Path) -> None:
    with open_store(tmp_path / "one.sqlite", clock=FixedClock("2026-01-01T00:00:00")) as store:
        run_id = store.begin_run(command="rtoslab run", revision="r", host="h", tool_versions={})
        config = store.upsert_config(CONFIG_BARE)
        store.add_bench_result(run_id, config, "s", _loop(301, 402, 0))
        store.finish_run(run_id, "complete")
        view = store.load_run(run_id)
        html = render_html(view, store.load_run_samples(view))
    assert '<section id="comparison">' not in html and '<section id="boxplots">' not in html
    assert _count(html, "hist") == 1  # in cycles
    assert "mps2-an385 · baremetal · arm-none-eabi-gcc 13.2.1" in html


def test_empty_run(tmp_path: Path) -> None:
    with open_store(tmp_path / "empty.sqlite", clock=FixedClock("2026-01-01T00:00:00")) as store:
        run_id = store.begin_run(command="rtoslab run", revision="r", host="h", tool_versions={})
        view = store.load_run(run_id)
        html = render_html(view, store.load_run_samples(view))
    assert "No results are stored for this run." in html
    assert "<svg" not in html


def test_kernel_options_are_drawn_from_the_stored_defaults_not_todays_port(html_run: HtmlRun) -> None:
    """Which options differ from the port's defaults comes from the identity's
    ``kernel_defaults`` (stored with the run), never from this checkout's port.toml."""
    html = _render(html_run)
    assert ("options that differ from the port&#x27;s defaults:<br><code class=\"nw\">"
            "configTICK_RATE_HZ=1000</code>") in html
    assert "the port&#x27;s default options" not in html  # the stored-before config says none differ


def _section(html: str, sid: str) -> str:
    start = html.index(f'<section id="{sid}">')
    return html[start:html.index("</section>", start)]


def test_an_experiment_s_own_tables_come_first_and_the_details_fold(html_run: HtmlRun) -> None:
    """Where the experiment's tables answer its question, the comparison, box plots,
    distributions and footprint fold under their headings, each saying what it holds (was:
    all open, a seed-002 page 16,190 px tall); nothing is dropped. Without such tables the
    comparison is the answer and stays open."""
    from rtoslab.report.pivot import PivotSpec

    plain = _render(html_run)
    asked = _render(html_run, tables=(PivotSpec("loop", rows=("benchmark",), columns=("kernel", "opt")),))
    assert 'class="detail"' not in plain
    for sid in ("comparison", "boxplots", "distributions"):
        part = _section(asked, sid)
        summary = re.search(r'<details class="detail"><summary>show ([^<]*)</summary>', part)
        assert summary is not None, sid
        charts = part.count("<svg")
        assert f"{charts} chart" in summary.group(1), (sid, summary.group(1))
        assert _section(plain, sid).count("<svg") == charts  # the same content, folded
    assert 'class="detail"' not in _section(asked, "question")
    assert 'class="detail"' not in _section(asked, "configurations")
    assert _count(asked, "box") == EXPECTED_BOXPLOTS and _count(asked, "hist") == EXPECTED_HISTOGRAMS
