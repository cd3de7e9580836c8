"""Exports: CSV of summaries, CSV of raw samples, JSON ``rtoslab.export/2`` (goldens + checks).

Uses the run of the HTML report tests. Regenerate with ``RTOSLAB_UPDATE_GOLDEN=1``.
"""

from __future__ import annotations

import csv
import json
import sqlite3
from collections.abc import Iterator
from io import StringIO
from pathlib import Path

import pytest

from rtoslab.records import BenchResult, MetricResult, Sample, Unit
from rtoslab.report.export import (
    EXPORT_SCHEMA,
    SAMPLE_COLUMNS,
    SUMMARY_COLUMNS,
    export_document,
    export_json,
    export_samples_csv,
    export_summaries_csv,
)
from rtoslab.report.rows import run_rows
from rtoslab.store import open_store
from tests.unit.test_report_golden import FixedClock, check_golden
from tests.unit.test_report_html import CONFIG_BARE, FAILED_REASON, HtmlRun, _metric, build_html_run


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HtmlRun]:
    db = tmp_path_factory.mktemp("export") / "results.sqlite"
    run_id = build_html_run(db)
    with open_store(db) as store:
        yield HtmlRun(store, store.load_run(run_id))


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(StringIO(text)))


def test_goldens(run: HtmlRun) -> None:
    check_golden("export_summaries.csv", export_summaries_csv(run.view))
    check_golden("export_samples.csv", export_samples_csv(run.view, run.store.load_run_samples(run.view)))
    check_golden("export.json", export_json(run.view, run.store.load_run_samples(run.view)))


def test_summaries_csv(run: HtmlRun) -> None:
    text = export_summaries_csv(run.view)
    assert text.splitlines()[0] == ",".join(SUMMARY_COLUMNS)
    rows = _rows(text)
    assert len(rows) == len(run_rows(run.view))
    failed = [r for r in rows if r["status"] == "failed"]
    assert len(failed) == 1 and failed[0]["reason"] == FAILED_REASON
    assert failed[0]["metric"] == "" and failed[0]["n"] == "" and failed[0]["median"] == ""
    assert {r["status"] for r in rows} == {"ok", "failed", "n/a"}
    switch = [r for r in rows if r["metric"] == "switch_time" and r["unit"] == "insn"]
    assert [r["kernel"] for r in switch] == ["freertos", "freertos"]
    assert [r["cflags"] for r in switch] == ["-O2 -mcpu=cortex-m3 -mthumb", "-Os -mcpu=cortex-m3 -mthumb"]
    assert json.loads(switch[0]["timing"]) == {"clock_hz": 25000000, "name": "cm3-simple"}
    assert json.loads(switch[0]["kernel_config"])["configTICK_RATE_HZ"] == 1000
    # Numbers: whole values without a point, others round-trip exactly.
    (result,) = [r for r in run.view.results
                 if r.benchmark == "ctx_switch" and r.config.hash == "f6e5d4c3b2a1"]
    s = result.metrics[0].summaries[Unit.INSN]
    assert switch[0]["n"] == str(s.n) and switch[0]["min"] == str(int(s.min))
    assert float(switch[0]["mean"]) == s.mean and float(switch[0]["stdev"]) == s.stdev


def test_samples_csv_matches_the_store(run: HtmlRun) -> None:
    rows = _rows(export_samples_csv(run.view, run.store.load_run_samples(run.view)))
    assert tuple(rows[0]) == SAMPLE_COLUMNS
    assert len(rows) == sum(m.n_samples for r in run.view.results for m in r.metrics)
    for result in run.view.results:
        for metric in result.metrics:
            mine = [r for r in rows if r["config"] == result.config.hash
                    and r["benchmark"] == result.benchmark and r["metric"] == metric.name]
            samples = run.store.load_samples(metric.id)
            assert [int(r["seq"]) for r in mine] == list(range(len(samples)))
            assert [(int(r["insns"]), int(r["cycles"])) for r in mine] == [
                (s.insns, s.cycles) for s in samples]


def test_json_export(run: HtmlRun) -> None:
    text = export_json(run.view, run.store.load_run_samples(run.view))
    doc = json.loads(text)
    assert doc == json.loads(json.dumps(export_document(run.view, run.store.load_run_samples(run.view))))
    assert list(doc) == ["schema", "run", "configs", "results"]
    assert doc["schema"] == EXPORT_SCHEMA == "rtoslab.export/2"
    assert doc["run"]["started_at"] == "2026-11-22T04:00:00Z"
    assert [c["hash"] for c in doc["configs"]] == ["a1b2c3d4e5f6", "f6e5d4c3b2a1", "0c0ffee0d00d"]
    assert len(doc["results"]) == len(run.view.results)
    hashes = {c["hash"] for c in doc["configs"]}
    with sqlite3.connect(run.store.path) as conn:
        stored = dict(conn.execute("SELECT id, extra FROM bench_runs"))
    for entry, result in zip(doc["results"], run.view.results, strict=True):
        assert entry["config"] in hashes
        # "extra" is the stored column as it is: typed values written and read back losslessly.
        assert entry["extra"] == json.loads(stored[result.id])
        assert entry["extra"].get("wall_s") == result.wall_s
        for m, metric in zip(entry["metrics"], result.metrics, strict=True):
            samples = run.store.load_samples(metric.id)
            assert m["samples"] == {"insns": [s.insns for s in samples],
                                    "cycles": [s.cycles for s in samples]}
            assert m["n_samples"] == len(samples)
            assert set(m["summaries"]) == set(metric.summaries)
    na = [e for e in doc["results"] if e["status"] == "n/a"]
    assert len(na) == 2 and all(e["metrics"] == [] for e in na)
    # Each sample column sits on one line.
    assert '"insns": [301,301,' in text


def test_json_export_survives_a_placeholder_lookalike(tmp_path: Path) -> None:
    """A stored string that looks like the internal sample placeholder is kept as is."""
    with open_store(tmp_path / "odd.sqlite", clock=FixedClock("2026-01-01T00:00:00")) as store:
        run_id = store.begin_run(command="\0col0", revision="r", host="h", tool_versions={})
        config = store.upsert_config(CONFIG_BARE)
        metric: MetricResult = _metric("m", "", [1, 2], [3, 4])
        store.add_bench_result(run_id, config, "s", BenchResult("b", "ok", None, (metric,), "", Sample(0, 0)))
        view = store.load_run(run_id)
        doc = json.loads(export_json(view, store.load_run_samples(view)))
    assert doc["run"]["command"] == "\0col0"
    assert doc["results"][0]["metrics"][0]["samples"] == {"insns": [1, 2], "cycles": [3, 4]}
