"""Issue 13's failure table, the cases that need no emulator: each is the real `rtoslab`
process on a real SQLite file, and each ends in one line on stderr with exit status 2,
never a traceback. (The cases that need QEMU are in tests/e2e/test_failure_cases.py.)"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from rtoslab.cli.common import command_catalog
from rtoslab.cli.main import _value_options, build_parser, join_dash_values
from rtoslab.cli.run import select_benchmarks
from rtoslab.records import BenchResult, RtoslabError
from rtoslab.store import open_store

REPO = Path(__file__).resolve().parents[2]

IDENTITY: dict[str, object] = {
    "identity_hash": "feed02", "target": "mps2-an385", "core": "cortex-m3", "kernel": "baremetal",
    "kernel_config": {}, "kernel_config_hash": "kc", "compiler": "gcc", "compiler_version": "13",
    "cflags": "-O2", "ldflags": "", "timing": {},
}


def rtoslab(*args: str, prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*prefix, sys.executable, "-m", "rtoslab.cli.main", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=120, check=False)


def one_line_error(proc: subprocess.CompletedProcess[str], code: int = 2) -> str:
    """The process failed with ``code`` and said why in one line (no traceback)."""
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


def make_db(path: Path, runs: int = 1) -> None:
    """A real results database holding ``runs`` finished runs, closed cleanly (so no WAL
    files remain beside it, the hard case for a read-only open)."""
    with open_store(path) as store:
        config = store.upsert_config(IDENTITY)
        for i in range(runs):
            run_id = store.begin_run(f"rtoslab run {i} " + "x" * 200, "r", "h", {})
            store.add_bench_result(run_id, config, "s", BenchResult("call", "n/a", "reason " * 30))
            store.finish_run(run_id, "complete")
    assert not Path(f"{path}-wal").exists()


# ------------------------------------------------------------ damaged database


def damage(path: Path) -> None:
    """Overwrite every page but the first (the header and schema stay) with garbage."""
    size = path.stat().st_size
    page = 4096
    assert size > 4 * page, "the database must span several pages to damage its b-trees"
    with path.open("r+b") as f:
        for offset in range(page, size, page):
            f.seek(offset)
            f.write(bytes([0x5A]) * 64)


@pytest.mark.parametrize("command", [("show", "1"), ("export", "1"), ("runs",),
                                     ("run", "--bench", "call")])
def test_a_damaged_database_is_refused_on_open(tmp_path: Path, command: tuple[str, ...]) -> None:
    db = tmp_path / "results.sqlite"
    make_db(db, runs=60)
    damage(db)
    before = db.read_bytes()
    line = one_line_error(rtoslab(*command, "--db", str(db)))
    assert line.startswith(f"rtoslab: error: database {db} is damaged ("), line
    assert f"mv {db} {db}.damaged" in line  # what to do
    assert db.read_bytes() == before  # `run` wrote nothing into it


# ------------------------------------------------------------ read-only mount


def read_only_prefix(directory: Path) -> tuple[str, ...]:
    """A command prefix under which ``directory`` is a read-only mount: root remounts a
    bind mount read-only in a private mount namespace (chmod does not stop root); anyone
    else gets the directory and its files made read-only by their mode."""
    if os.geteuid() != 0:
        for p in directory.iterdir():
            p.chmod(0o444)
        directory.chmod(0o555)
        return ()
    if shutil.which("unshare") is None:
        pytest.fail("unshare (util-linux) is needed to make a read-only mount as root")
    d = str(directory)
    script = f'mount --bind "{d}" "{d}" && mount -o remount,ro,bind "{d}" && exec "$@"'
    return ("unshare", "-m", "sh", "-c", script, "sh")


@pytest.mark.parametrize("command", [("show", "latest"), ("runs",), ("export", "1"),
                                     ("compare", "1")])
def test_read_commands_work_on_a_read_only_mount(tmp_path: Path, command: tuple[str, ...]) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    db = ro / "results.sqlite"
    make_db(db)
    prefix = read_only_prefix(ro)
    # the prefix really makes it read-only: writing there fails
    probe = subprocess.run([*prefix, "touch", str(ro / "probe")], capture_output=True, text=True,
                           check=False)
    assert probe.returncode != 0, "the directory is still writable: the test would prove nothing"
    proc = rtoslab(*command, "--db", str(db), prefix=prefix)
    if command[0] == "compare":  # one run of n/a results: nothing to compare, said in one line
        assert "Traceback" not in proc.stderr and "unable to open" not in proc.stderr, proc.stderr
        return
    assert proc.returncode == 0, proc.stderr
    assert "rtoslab run 0" in proc.stdout or "call" in proc.stdout, proc.stdout


# ------------------------------------------------------------ no database / bad paths


@pytest.mark.parametrize("command", [("runs",), ("show", "latest"), ("export", "1"),
                                     ("compare", "1")])
def test_read_commands_do_not_create_a_database(tmp_path: Path, command: tuple[str, ...]) -> None:
    db = tmp_path / "typo" / "x.sqlite"
    line = one_line_error(rtoslab(*command, "--db", str(db)))
    assert line == (f"rtoslab: error: no database at {db}: `rtoslab run` creates one; pass --db "
                    "or set RTOSLAB_DB to use another")
    assert not db.parent.exists()


def test_export_into_a_missing_directory_is_one_line(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    make_db(db)
    out = tmp_path / "missing" / "x.csv"
    line = one_line_error(rtoslab("export", "1", "--db", str(db), "-o", str(out)))
    assert line == (f"rtoslab: error: -o {out}: directory {out.parent} does not exist: create it "
                    "first or write elsewhere")


# ------------------------------------------------------------ command-line input


@pytest.mark.parametrize("jobs", ["0", "-3", "two"])
def test_jobs_must_be_a_positive_number(tmp_path: Path, jobs: str) -> None:
    proc = rtoslab("run", "-j", jobs, "--db", str(tmp_path / "r.sqlite"))
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1].startswith(
        "rtoslab run: error: argument -j/--jobs: expected a whole number >= 1"), proc.stderr
    assert not (tmp_path / "r.sqlite").exists()


def test_a_kernel_option_of_the_wrong_type_is_refused_before_building(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    line = one_line_error(rtoslab("run", "--kernel", "freertos", "--option", "configTICK_RATE_HZ=abc",
                                  "--db", str(db)))
    assert line == ("rtoslab: error: kernel option configTICK_RATE_HZ='abc' for freertos: expected "
                    "an integer (decimal or 0x hex), like its default 1000 in "
                    "firmware/ports/freertos/port.toml")
    assert not db.exists()  # refused before anything was opened, built or stored


def parse(*words: str) -> argparse.Namespace:
    """The command line as ``main`` reads it, with its catalog (no rtoslab.toml)."""
    parser = build_parser()
    args = parser.parse_args(join_dash_values(list(words), _value_options(parser)))
    args.catalog = command_catalog(args, None)
    return args


def test_option_values_that_start_with_a_dash_are_values() -> None:
    """The README's `rtoslab run --suite smoke --cflags "-O2"` (argparse alone says
    "expected one argument")."""
    args = parse("run", "--suite", "smoke", "--cflags", "-O2")
    assert args.cflags == "-O2" and args.suite == ["smoke"]
    assert parse("run", "--cflags", "-O2 -flto", "--json").cflags == "-O2 -flto"
    assert parse("compare", "1", "--baseline", "-x=1").baseline == ["-x=1"]
    assert parse("run", "--cflags=-Os").cflags == "-Os"
    with pytest.raises(SystemExit):
        parse("run", "-j", "-3")  # joined to -j-3: the value is refused, not taken for an option


def test_suite_with_bench_is_the_union() -> None:
    names = [b.name for b in select_benchmarks(parse("run", "--suite", "smoke", "--bench", "t_check",
                                                     "--bench", "call"))]
    assert names == ["calib", "call", "straight", "loop", "t_check"] or (
        sorted(names) == sorted({"calib", "call", "straight", "loop", "t_check"}) and names[-1] == "t_check")
    assert [b.name for b in select_benchmarks(parse("run", "--bench", "call"))] == ["call"]


def test_repeated_suites_accumulate() -> None:
    """`--suite smoke --suite kernel` runs both suites (as --bench, --option, --define
    accumulate), each benchmark once, the first suite's first; not only the last one."""
    smoke = [b.name for b in select_benchmarks(parse("run", "--suite", "smoke"))]
    kernel = [b.name for b in select_benchmarks(parse("run", "--suite", "kernel"))]
    both = [b.name for b in select_benchmarks(parse("run", "--suite", "smoke", "--suite", "kernel",
                                                    "--suite", "smoke", "--bench", "call"))]
    assert both == smoke + [n for n in kernel if n not in smoke]
    assert len(both) == len(set(both)) and set(kernel) - set(smoke)
    with pytest.raises(RtoslabError, match="unknown suite 'nope'"):
        select_benchmarks(parse("run", "--suite", "smoke", "--suite", "nope"))


def test_damage_check_is_sqlite_s_own(tmp_path: Path) -> None:
    """The damage the tests above make is damage to SQLite itself (not only to rtoslab)."""
    db = tmp_path / "d.sqlite"
    make_db(db, runs=60)
    damage(db)
    conn = sqlite3.connect(db)
    try:
        verdict = conn.execute("PRAGMA quick_check").fetchone()[0]
    except sqlite3.DatabaseError as err:
        verdict = str(err)
    finally:
        conn.close()
    assert verdict != "ok"


def test_ci_with_a_missing_baseline_db_names_that_option_and_creates_nothing(tmp_path: Path) -> None:
    """`ci --baseline-db PATH` where PATH does not exist: the hint names --baseline-db (was
    "pass --db or set RTOSLAB_DB", the other database's option), and the change's --db is
    not created for a run that cannot start."""
    missing, db = tmp_path / "base.sqlite", tmp_path / "r.sqlite"
    line = one_line_error(rtoslab("ci", "--baseline-db", str(missing), "--bench", "call", "--db", str(db)))
    assert line.startswith(f"rtoslab: error: no database at {missing}: pass --baseline-db "), line
    assert "--db or" not in line and "RTOSLAB_DB" not in line, line
    assert not missing.exists() and not db.exists()
    # a directory: the same option named
    line = one_line_error(rtoslab("ci", "--baseline-db", str(tmp_path), "--bench", "call", "--db", str(db)))
    assert line.endswith("is a directory: pass a file path with --baseline-db"), line
    assert not db.exists()
