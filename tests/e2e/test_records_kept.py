"""Issue 26 items 4 and 5 end to end (one cheap benchmark, two databases in one folder):
each database's reports keep their own names, and `show` keeps an experiment's own table
after its TOML has moved."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import RunCli
from .full_disk import CLI_SHELL, fails_in_namespace, stored_runs

pytestmark = pytest.mark.qemu

EXPERIMENT = '''name = "kept"
benchmarks = ["call"]
[[report.table]]
title = "THE KEPT TABLE"
rows = ["metric"]
columns = ["opt"]
unit = "insn"
'''


def test_two_databases_in_one_folder_and_a_moved_experiment(run_cli: RunCli, tmp_path: Path) -> None:
    exp = tmp_path / "kept.toml"
    exp.write_text(EXPERIMENT)
    for name in ("a.sqlite", "b.sqlite"):
        proc = run_cli("run", str(exp), "-j", "1", "--db", str(tmp_path / name))
        assert proc.returncode == 0, proc.stderr
        assert f"{name}.run-1.md" in proc.stderr
    for name in ("a.sqlite", "b.sqlite"):
        md = (tmp_path / f"{name}.run-1.md").read_text()
        assert "THE KEPT TABLE" in md and (tmp_path / f"{name}.run-1.html").is_file()
    assert not (tmp_path / "run-1.md").exists()
    exp.rename(tmp_path / "elsewhere.toml")
    proc = run_cli("show", "1", "--db", str(tmp_path / "a.sqlite"))
    assert proc.returncode == 0, proc.stderr
    assert "THE KEPT TABLE" in proc.stdout and "empty_call" in proc.stdout


def test_a_failed_configure_does_not_break_later_runs(run_cli: RunCli, tmp_path: Path) -> None:
    """A benchmark folder CMake refuses (no sources) fails its run; the next run of the same
    configuration without it builds (the failed configure's cache used to stay, behind
    the stamp of the configure before it)."""
    db = tmp_path / "r.sqlite"
    assert run_cli("run", "--bench", "call", "-j", "1", "--db", str(db)).returncode == 0
    broken = tmp_path / "mine" / "nosrc"
    broken.mkdir(parents=True)
    (broken / "bench.toml").write_text('suite = ["mine"]\ndescription = "no sources"\n')
    proc = run_cli("run", "--bench-path", str(broken.parent), "--bench", "call", "--bench", "nosrc",
                   "-j", "1", "--db", str(db))
    assert proc.returncode == 1 and "no .c or .S sources" in proc.stderr, proc.stderr
    assert "ok call" in proc.stderr, proc.stderr  # the broken folder fails alone
    proc = run_cli("run", "--bench", "call", "-j", "1", "--db", str(db))
    assert proc.returncode == 0, proc.stderr


def test_a_full_disk_while_writing_the_report_exits_1_and_leaves_no_file(run_cli: RunCli,
                                                                          tmp_path: Path) -> None:
    """Issue 26 item 18: the report's folder on a full file system (a tmpfs filled up, in a
    private mount namespace: root) exited 2 and left a 0-byte report. Now: exit 1 (nothing
    was wrong with the input), one line naming the report, the run stored complete, no
    report file left behind."""
    db, full, out = tmp_path / "r.sqlite", tmp_path / "full", tmp_path / "out"
    full.mkdir()
    out.mkdir()
    script = (f"mount -t tmpfs -o size=64k tmpfs {full} && "
              f"(dd if=/dev/zero of={full}/filler bs=4k 2>/dev/null || true) && "
              f"{CLI_SHELL} run --bench call -j 1 --db {db} --report {full}/r.md; rc=$?; "
              f"ls -a {full} > {out}/ls.txt; exit $rc")
    last = fails_in_namespace(script)
    assert last.startswith(f"rtoslab: error: run 1 is stored, but its report {full}/r.md could not be "
                           "written (No space left on device)"), last
    assert (out / "ls.txt").read_text().split() == [".", "..", "filler"]  # no empty or cut file
    assert stored_runs(db) == [(1, "complete")]
