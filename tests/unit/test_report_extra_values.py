"""A result's extra values: typed in BenchResult / ResultView, one JSON object when stored
(bench_runs.extra) and exported (rtoslab.export/2 "extra"), old databases still readable."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from rtoslab.records import (
    BenchResult,
    Footprint,
    RtoslabError,
    Unit,
    extra_document,
    parse_extra,
)
from rtoslab.store import open_store
from tests.unit.test_report_html import CONFIG_BARE, _loop

FP = Footprint({"kernel": 5200, "libc": 1208}, {"stack": 2048, "kernel": 1300}, {".text": 6000})


def test_document_is_flat_sorted_and_round_trips() -> None:
    doc = extra_document(0.25, {"toggle_tasks": 3, "main_stack_peak_bytes": 312}, FP, None)
    assert list(doc) == ["footprint", "main_stack_peak_bytes", "toggle_tasks", "wall_s"]
    assert doc["footprint"] == {"flash": {"kernel": 5200, "libc": 1208}, "flash_total": 6408,
                                "ram": {"kernel": 1300, "stack": 2048}, "ram_total": 3348,
                                "sections": {".text": 6000}}
    back = parse_extra(json.loads(json.dumps(doc)))
    assert (back.wall_s, back.footprint, back.footprint_error) == (0.25, FP, None)
    assert back.counters == {"main_stack_peak_bytes": 312, "toggle_tasks": 3}


def test_nothing_set_is_an_empty_document() -> None:
    assert extra_document(None, {}, None, None) == {}
    empty = parse_extra({})
    assert (empty.wall_s, empty.counters, empty.footprint, empty.footprint_error) == (None, {}, None, None)


def test_a_counter_may_not_take_a_reserved_name() -> None:
    with pytest.raises(ValueError, match="wall_s"):
        extra_document(1.0, {"wall_s": 3}, None, None)


def test_old_database_rows_read_as_typed_values(tmp_path: Path) -> None:
    """A row as the version before typed values wrote it (extra filled by hand, a footprint
    error instead of a footprint, a non-integer stray value) reads back typed."""
    db = tmp_path / "old.sqlite"
    with open_store(db) as store:
        run_id = store.begin_run("rtoslab run", "r", "h", {})
        config = store.upsert_config(CONFIG_BARE)
        store.add_bench_result(run_id, config, "s", BenchResult("b", "failed", "hang"))
    old = {"wall_s": 1.5, "ftl_writes": 12, "footprint_error": "no linker map", "note": "text"}
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE bench_runs SET extra = ?", (json.dumps(old),))
    with open_store(db) as store:
        (result,) = store.load_run(run_id).results
    assert (result.wall_s, result.counters) == (1.5, {"ftl_writes": 12})
    assert (result.footprint, result.footprint_error) == (None, "no linker map")


def test_units_are_stored_as_their_text() -> None:
    assert [str(u) for u in Unit] == ["insn", "cycle", "us", "bytes", "insn/op", "cycle/op", "op/s", "ratio"]
    assert json.dumps({Unit.CYCLE: Unit.US}) == '{"cycle": "us"}'
    assert f"{Unit.INSN}" == "insn"


def test_a_summary_in_an_unknown_unit_is_refused_with_the_fix(tmp_path: Path) -> None:
    db = tmp_path / "unit.sqlite"
    with open_store(db) as store:
        run_id = store.begin_run("rtoslab run", "r", "h", {})
        config = store.upsert_config(CONFIG_BARE)
        store.add_bench_result(run_id, config, "s", _loop(301, 402, 0))
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE summaries SET unit = 'furlong' WHERE unit = 'us'")
    with open_store(db) as store, pytest.raises(RtoslabError, match=r"unknown unit 'furlong'.*known: insn"):
        store.load_run(run_id)
