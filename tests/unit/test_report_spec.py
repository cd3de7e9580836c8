"""Issue 26 item 4: a stored run keeps its experiment's report spec (schema v5), so `show`
reports it as it was reported when the TOML has moved or changed; older databases stay
readable (a v4 database read-only too)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from rtoslab import api
from rtoslab.catalog import Catalog
from rtoslab.cli.tables import report_spec_of
from rtoslab.experiments.experiment import load_experiment
from rtoslab.records import BenchResult, MetricResult, RtoslabError, Sample, Summary, Unit
from rtoslab.report.spec import from_json, to_json
from rtoslab.store import MIGRATIONS, open_store
from rtoslab.store.schema import migrate

CATALOG = Catalog()  # the checkout's folders alone

REPO = Path(__file__).resolve().parents[2]

IDENTITY: dict[str, object] = {
    "identity_hash": "feed26", "target": "mps2-an385", "core": "cortex-m3", "kernel": "baremetal",
    "kernel_config": {}, "kernel_config_hash": "kc", "compiler": "gcc", "compiler_version": "13",
    "cflags": "-O2", "ldflags": "", "timing": {}, "axes": {"opt": "-O2", "lto": False, "cflags": ""},
}

EXPERIMENT = '''name = "kept"
benchmarks = ["call"]
[[report.table]]
title = "THE KEPT TABLE"
rows = ["metric"]
columns = ["opt"]
unit = "insn"
'''


@pytest.mark.parametrize("path", sorted((REPO / "examples").glob("*.toml")), ids=lambda p: p.name)
def test_every_example_s_spec_survives_json(path: Path) -> None:
    # load_experiment: the file as rtoslab reads it (timing values against the recorded
    # description); the plugin's check of the resolved settings is an e2e test's
    spec = load_experiment(path, CATALOG).report_spec()
    assert from_json(to_json(spec), "run 1") == spec


def test_a_spec_this_version_cannot_read_is_one_line() -> None:
    with pytest.raises(RtoslabError, match=r"^run 3: its stored report spec is not rtoslab.report-spec/1"):
        from_json('{"schema": "rtoslab.report-spec/9"}', "run 3")


def store_run(db: Path, exp_file: Path) -> None:
    spec = api.experiment(exp_file).report_spec()
    with open_store(db) as store:
        config = store.upsert_config(IDENTITY)
        run_id = store.begin_run("rtoslab run e.toml", "r", "h", {}, str(exp_file), to_json(spec))
        samples = tuple(Sample(insns=7, cycles=9) for _ in range(3))
        summary = Summary(3, 7.0, 7.0, 7.0, 7.0, 7.0, 0.0, 7.0, 7.0, ())
        store.add_bench_result(run_id, config, "s", BenchResult("call", "ok", None, metrics=(
            MetricResult("empty_call", "d", samples, {Unit.INSN: summary}),)))
        store.finish_run(run_id, "complete")


def show(db: Path, *more: str) -> str:
    proc = subprocess.run([sys.executable, "-m", "rtoslab.cli.main", "show", "1", "--db", str(db), *more],
                          cwd=REPO, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_show_uses_the_stored_spec_when_the_file_has_moved_or_changed(tmp_path: Path) -> None:
    exp_file = tmp_path / "e.toml"
    exp_file.write_text(EXPERIMENT)
    db = tmp_path / "r.sqlite"
    store_run(db, exp_file)
    exp_file.rename(tmp_path / "moved.toml")
    for fmt in ((), ("--format", "markdown"), ("--format", "html")):
        assert "THE KEPT TABLE" in show(db, *fmt), fmt
    exp_file.write_text(EXPERIMENT.replace("THE KEPT TABLE", "AN EDITED TABLE"))
    text = show(db)
    assert "THE KEPT TABLE" in text and "AN EDITED TABLE" not in text


def v4_database(path: Path, experiment: str | None) -> None:
    """A database as rtoslab wrote it before schema v5, holding one run."""
    conn = sqlite3.connect(path, isolation_level=None)
    migrate(conn, path, "2026-11-01T00:00:00Z", MIGRATIONS[:4])
    conn.execute("INSERT INTO runs (started_at, status, rtoslab_revision, host, command, experiment) "
                 "VALUES ('2026-11-01T00:00:00Z', 'complete', 'r', 'h', 'rtoslab run', ?)", (experiment,))
    conn.close()


def test_a_v4_database_reads_read_only_and_migrates_on_write(tmp_path: Path) -> None:
    exp_file = tmp_path / "e.toml"
    exp_file.write_text(EXPERIMENT)
    db = tmp_path / "old.sqlite"
    v4_database(db, str(exp_file))
    before = db.read_bytes()
    with open_store(db, read_only=True) as store:  # a read-only mount cannot migrate it
        view = store.load_run(1)
    assert view.report_spec is None and db.read_bytes() == before
    show(db)  # the CLI reads it too
    spec = report_spec_of(view, CATALOG)  # a run stored before v5: its file's spec, while it loads
    assert spec is not None and spec.tables[0].title == "THE KEPT TABLE"
    with open_store(db) as store:
        assert store.load_run(1).report_spec is None and store.load_run(1).command == "rtoslab run"
    conn = sqlite3.connect(db)
    assert max(r[0] for r in conn.execute("SELECT version FROM schema_version")) == MIGRATIONS[-1].version
    conn.close()
