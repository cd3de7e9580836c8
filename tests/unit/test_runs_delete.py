"""`rtoslab runs --delete ID` (issue 28 item 8): no question, one line, an unknown id
refused, the run's rows and timelines folder gone, every other run untouched."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from rtoslab.cli.main import main
from rtoslab.store import open_store
from rtoslab.trace.timeline import timeline_dir
from tests.unit.test_report_golden import build_golden_run


def _counts(db: Path, run_id: int) -> tuple[int, int, int]:
    conn = sqlite3.connect(db)
    try:
        runs = conn.execute("SELECT COUNT(*) FROM runs WHERE id = ?", (run_id,)).fetchone()[0]
        results = conn.execute("SELECT COUNT(*) FROM bench_runs WHERE run_id = ?", (run_id,)).fetchone()[0]
        samples = conn.execute(
            "SELECT COUNT(*) FROM samples s JOIN metrics m ON s.metric_id = m.id "
            "JOIN bench_runs b ON m.bench_run_id = b.id WHERE b.run_id = ?", (run_id,)).fetchone()[0]
        return runs, results, samples
    finally:
        conn.close()


def test_delete_removes_one_run_and_its_timelines_only(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "results.sqlite"
    build_golden_run(db)  # run 1
    build_golden_run(db)  # run 2, the same content
    for run_id in (1, 2):
        folder = timeline_dir(db, run_id)
        folder.mkdir(parents=True)
        (folder / "bench-1.json").write_text("{}")
    before = _counts(db, 2)
    assert _counts(db, 1) == before and before[1] == 5 and before[2] > 0

    assert main(["runs", "--delete", "1", "--db", str(db)]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out == [f"deleted run 1: 5 benchmark result(s) from {db} and {timeline_dir(db, 1)}"]
    assert _counts(db, 1) == (0, 0, 0)
    assert _counts(db, 2) == before and (timeline_dir(db, 2) / "bench-1.json").is_file()
    assert not timeline_dir(db, 1).exists()
    with open_store(db) as store:
        assert [r.id for r in store.list_runs(10)] == [2]
        assert len(store.load_run(2).results) == 5


def test_delete_removes_the_runs_reports_beside_the_database(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """The reports `run` writes by default (DB.run-ID.md and .html) go with the run; the
    other runs' reports, run 10's included (whose name starts like run 1's), stay."""
    db = tmp_path / "results.sqlite"
    build_golden_run(db)  # run 1
    build_golden_run(db)  # run 2
    for name in ("results.sqlite.run-1.md", "results.sqlite.run-1.html", "results.sqlite.run-2.md",
                 "results.sqlite.run-2.html", "results.sqlite.run-10.md", "other.sqlite.run-1.md"):
        (tmp_path / name).write_text("report")
    assert main(["runs", "--delete", "1", "--db", str(db)]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    md, html = tmp_path / "results.sqlite.run-1.md", tmp_path / "results.sqlite.run-1.html"
    assert out == [f"deleted run 1: 5 benchmark result(s) from {db} and {md}, {html}"]
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix in (".md", ".html")) == [
        "other.sqlite.run-1.md", "results.sqlite.run-10.md", "results.sqlite.run-2.html",
        "results.sqlite.run-2.md"]
    # only the .md left (the .html removed by hand): the one that exists goes, no error
    (tmp_path / "results.sqlite.run-2.html").unlink()
    assert main(["runs", "--delete", "2", "--db", str(db)]) == 0
    assert capsys.readouterr().out.strip().endswith(f"and {tmp_path / 'results.sqlite.run-2.md'}")
    assert not (tmp_path / "results.sqlite.run-2.md").exists()


def test_an_unknown_id_is_refused_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "results.sqlite"
    build_golden_run(db)
    assert main(["runs", "--delete", "7", "--db", str(db)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"rtoslab: error: no run 7 in {db}: `rtoslab runs` lists them"]
    assert _counts(db, 1)[0] == 1


def test_a_running_run_of_a_live_process_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "results.sqlite"
    with open_store(db) as store:
        run_id = store.begin_run(command="c", revision="r", host="h", tool_versions={})
        from rtoslab.records import RtoslabError
        with pytest.raises(RtoslabError, match="is still running"):
            store.delete_run(run_id)  # this process owns it, and it is alive
