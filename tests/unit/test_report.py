"""Report renderers: registry, number formatting, edge cases the golden run lacks."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from rtoslab.records import TIME_BASE_NOTES, BenchResult, MetricResult, RtoslabError, Sample, Summary, Unit
from rtoslab.report import Renderer, TerminalRenderer, get_renderer, renderer_names
from rtoslab.report.numbers import fmt_num, json_exact
from rtoslab.store import RunView, open_store

IDENTITY: dict[str, object] = {
    "identity_hash": "0123abcd",
    "target": "mps2-an385",
    "core": "cortex-m3",
    "kernel": "zephyr",
    "kernel_config": {},
    "kernel_config_hash": "kc",
    "compiler": "gcc",
    "compiler_version": "13",
    "cflags": "-O2",
    "ldflags": "",
    "timing": {},
}


def store_run(tmp_path: Path, *results: BenchResult, finish: bool = True) -> RunView:
    with open_store(tmp_path / "r.sqlite") as store:
        run_id = store.begin_run("rtoslab run [x]", "rev", "host", {})
        config = store.upsert_config(IDENTITY)
        for result in results:
            store.add_bench_result(run_id, config, "src", result)
        if finish:
            store.finish_run(run_id, "complete")
        return store.load_run(run_id)


def test_registry() -> None:
    assert renderer_names() == ("html", "json", "markdown", "terminal")
    suffixes = {name: get_renderer(name).file_suffix for name in renderer_names()}
    assert suffixes == {"html": ".html", "json": ".json", "markdown": ".md", "terminal": ".txt"}
    for name in renderer_names():
        renderer: Renderer = get_renderer(name)
        assert renderer.name == name


def test_unknown_format_lists_valid_ones() -> None:
    with pytest.raises(RtoslabError) as err:
        get_renderer("pdf")
    assert str(err.value) == "unknown report format 'pdf': use one of html, json, markdown, terminal"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (301.0, "301"),
        (0.0, "0"),
        (-0.0, "0"),
        (16.08, "16.08"),
        (8.94427190999916, "8.944"),
        (0.04, "0.04"),
        (0.012345, "0.0123"),
        (-2.5, "-2.5"),
        (1e-9, "1e-09"),
        (123456789.0, "123456789"),
        (math.nan, "-"),
        (math.inf, "inf"),
    ],
)
def test_fmt_num(value: float, text: str) -> None:
    assert fmt_num(value) == text


def test_json_exact_keeps_whole_numbers_integral() -> None:
    assert json_exact(301.0) == 301 and isinstance(json_exact(301.0), int)
    assert json_exact(16.08) == 16.08
    assert json_exact(math.nan) is None


def test_empty_run_renders_in_every_format(tmp_path: Path) -> None:
    view = store_run(tmp_path, finish=False)
    doc = json.loads(get_renderer("json").render(view))
    assert doc == {
        "schema": "rtoslab.run/1",
        "run_id": view.id,
        "status": "running",
        "started_at": view.started_at,
        "time_bases": {str(base): note for base, note in TIME_BASE_NOTES.items()},
        "results": [],
    }
    assert "No results are stored" in get_renderer("markdown").render(view)
    assert "No results are stored" in get_renderer("terminal").render(view)


def test_ok_result_without_metrics_still_appears(tmp_path: Path) -> None:
    view = store_run(tmp_path, BenchResult("quiet", "ok", None))
    (entry,) = json.loads(get_renderer("json").render(view))["results"]
    assert (entry["benchmark"], entry["status"], entry["metric"], entry["n"]) == (
        "quiet",
        "ok",
        None,
        None,
    )
    assert "| quiet | - | - |" in get_renderer("markdown").render(view)


def test_nan_statistic_is_null_in_json(tmp_path: Path) -> None:
    s = Summary(1, 7.0, 7.0, 7.0, 7.0, 7.0, math.nan, 7.0, 7.0)
    metric = MetricResult("single", "", (Sample(7, 0),), {Unit.INSN: s})
    view = store_run(tmp_path, BenchResult("one", "ok", None, (metric,)))
    (entry,) = json.loads(get_renderer("json").render(view))["results"]
    assert entry["stdev"] is None and entry["min"] == 7


def test_markdown_escapes_table_text(tmp_path: Path) -> None:
    metric = MetricResult("a", "", (Sample(1, 1),), {Unit.INSN: Summary(1, 1, 1, 1, 1, 1, 0, 1, 1)})
    view = store_run(
        tmp_path,
        BenchResult("pipe|name", "ok", None, (metric,)),
        BenchResult("bad", "failed", "line one\nline | two"),
    )
    text = get_renderer("markdown").render(view)
    assert "| pipe\\|name | a | insn |" in text
    assert "**failed**: line one line \\| two" in text


def test_terminal_text_is_not_markup_and_color_is_optional(tmp_path: Path) -> None:
    view = store_run(tmp_path, BenchResult("[bold]x[/bold]", "failed", "see [red]log[/red]"))
    plain = get_renderer("terminal").render(view)
    assert "[bold]x[/bold]" in plain
    assert "FAILED: see [red]log[/red]" in " ".join(plain.split())
    assert "rtoslab run [x]" in plain
    assert "\x1b[" not in plain
    assert all(len(line) <= 120 for line in plain.splitlines())
    assert "\x1b[" in TerminalRenderer(color=True).render(view)
