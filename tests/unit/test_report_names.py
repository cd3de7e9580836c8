"""Issue 26 item 5: two databases in one folder wrote the same `run-1.md` (and kept their
timelines in the same `timelines/run-1/`): every file a run writes beside its database is
named by the database's file name too, so they cannot collide."""

from __future__ import annotations

from pathlib import Path

from rtoslab.cli.run import report_path
from rtoslab.trace.timeline import Timeline, load_run_timelines, save_timeline, timeline_dir
from rtoslab.views import ConfigView, ResultView, RunView


def test_reports_of_two_databases_in_one_folder_differ(tmp_path: Path) -> None:
    names = {report_path(tmp_path / db, 1) for db in ("a.sqlite", "b.sqlite", "a.db", "a", "results.sqlite")}
    assert len(names) == 5 and all(p.parent == tmp_path for p in names)
    assert report_path(tmp_path / "results.sqlite", 7).name == "results.sqlite.run-7.md"


def test_the_name_gives_back_database_and_run() -> None:
    """Injective: the run id follows the last '.run-' and is digits only, so the file names
    of two (database, run) pairs differ whenever the pairs do."""
    seen: dict[str, tuple[str, int]] = {}
    for db in ("x", "x.run-1", "x.run", "x.run-1.md", "y.sqlite", "x.run-12"):
        for run in (1, 2, 12, 112):
            name = report_path(Path("/d") / db, run).name
            assert name not in seen, (name, seen.get(name), (db, run))
            seen[name] = (db, run)


def timeline(bench: str) -> Timeline:
    return Timeline(bench, "cfg", None, (), (), (0, 0), False, "")


def view(run_id: int, results: dict[int, str]) -> RunView:
    config = ConfigView(id=1, hash="h", target="t", core="c", kernel="k", kernel_config={},
                        kernel_config_hash="", compiler="", compiler_version="", cflags="", ldflags="",
                        timing={}, identity={})
    rows = tuple(ResultView(id=i, benchmark=b, config=config, source_hash="", status="ok", reason=None,
                            console="", total_insns=0, total_cycles=0, calibration=None, wall_s=None,
                            counters={}, footprint=None, footprint_error=None, created_at="")
                 for i, b in results.items())
    return RunView(run_id, "", None, "complete", "", "", {}, "", None, rows)


def test_timelines_of_two_databases_in_one_folder_stay_apart(tmp_path: Path) -> None:
    a, b = tmp_path / "a.sqlite", tmp_path / "b.sqlite"
    assert timeline_dir(a, 1) != timeline_dir(b, 1)
    save_timeline(timeline_dir(a, 1), 1, timeline("from_a"))
    assert [t.benchmark for t in load_run_timelines(a, view(1, {1: "from_a"}))] == ["from_a"]
    assert load_run_timelines(b, view(1, {1: "from_a"})) == []


def test_timelines_stored_before_keep_reading_when_they_are_the_run_s(tmp_path: Path) -> None:
    """The old place, timelines/run-N/, is read for a run that has nothing at the new one,
    only for files of its own results (same result id and benchmark)."""
    db = tmp_path / "results.sqlite"
    old = tmp_path / "timelines" / "run-1"
    save_timeline(old, 3, timeline("k_yield"))
    save_timeline(old, 4, timeline("other"))
    got = load_run_timelines(db, view(1, {3: "k_yield", 4: "k_sem"}))
    assert [t.benchmark for t in got] == ["k_yield"]
