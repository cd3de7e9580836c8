"""Issue 13's failure table, the cases that run firmware: the real CLI, compiler, QEMU and
plugin, real SQLite. (The cases without an emulator are in tests/unit/test_cli_failures.py.)"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import REPO, RunCli
from .full_disk import CLI_SHELL, fails_in_namespace, need_root, stored_results, stored_runs

pytestmark = pytest.mark.qemu

CLI = [sys.executable, "-m", "rtoslab.cli.main"]


def _children(pid: int) -> list[tuple[int, str]]:
    """(pid, command name) of the live processes whose parent is ``pid``."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        name = stat[stat.index("(") + 1: stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[1]) == pid and fields[0] not in ("Z", "X"):
            out.append((int(entry.name), name))
    return out


def _runs_firmware(pid: int) -> bool:
    """The QEMU that runs a benchmark (not `qemu-system-arm --version` for the tool list)."""
    try:
        return b"-kernel" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")  # a zombie has died; only its parent has not reaped it


def test_kill_9_of_rtoslab_kills_qemu(run_cli: RunCli, tmp_path: Path) -> None:
    """SIGKILL runs no handler in rtoslab: the kernel ends QEMU (PR_SET_PDEATHSIG)."""
    db = tmp_path / "r.sqlite"
    # build first, so the run below reaches QEMU at once
    warm = run_cli("run", "--bench", "call", "--db", str(db))
    assert warm.returncode == 0, warm.stderr
    # perf_mix runs ~260 M guest instructions: several seconds under QEMU
    proc = subprocess.Popen([*CLI, "run", "--bench", "perf_mix", "-j", "1", "--db", str(db)], cwd=REPO,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        qemu: list[tuple[int, str]] = []
        deadline = time.monotonic() + 300
        while not qemu and time.monotonic() < deadline and proc.poll() is None:
            qemu = [c for c in _children(proc.pid) if c[1].startswith("qemu-system") and _runs_firmware(c[0])]
            time.sleep(0.05)
        assert qemu, "rtoslab never started QEMU"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        qemu_pid = qemu[0][0]
        deadline = time.monotonic() + 10
        while _alive(qemu_pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(qemu_pid), "QEMU outlived rtoslab's kill -9"
    finally:
        if proc.poll() is None:
            proc.kill()
    # and the run it left reads as incomplete
    runs = run_cli("runs", "--db", str(db))
    assert runs.returncode == 0 and "incomplete" in runs.stdout, runs.stdout


def test_disk_full_while_storing_is_one_line_and_the_run_incomplete(run_cli: RunCli,
                                                                     tmp_path: Path) -> None:
    """A really full file system: the database lives on a small tmpfs mounted in a private
    mount namespace (root, as on the machines this project runs on), with room for the
    database, the new run's row and about one result. Only the database is on it: the
    build cache and QEMU's own files are not, so what fails is the database's write, as
    when its disk fills up during a run. The database is copied out before the namespace
    (and with it the mount) goes away."""
    need_root()
    warm = tmp_path / "warm.sqlite"
    first = run_cli("run", "--suite", "smoke", "--db", str(warm))  # builds, and a database to grow
    assert first.returncode == 0, first.stderr
    small, out = tmp_path / "small", tmp_path / "out"
    small.mkdir()
    out.mkdir()
    # room for the database as it is and 128 KiB more: the run starts, stores at most a
    # result or two (each holds 1000 samples), then the disk is full
    size_kib = -(-warm.stat().st_size // 4096) * 4 + 128
    db = small / "r.sqlite"
    script = (f"mount -t tmpfs -o size={size_kib}k tmpfs {small} && cp {warm} {db} && "
              f"{CLI_SHELL} run --suite smoke -j 1 --db {db}; rc=$?; cp {db}* {out}/; exit $rc")
    last = fails_in_namespace(script)
    assert last.startswith(f"rtoslab: error: cannot write to database {db} ("), last
    assert "free space on its disk" in last
    kept = out / "r.sqlite"
    (run_id, _status) = stored_runs(kept)[-1]
    assert run_id == 2
    runs = run_cli("runs", "--db", str(kept))  # a run whose process is gone reads incomplete
    assert runs.returncode == 0 and "incomplete" in runs.stdout, runs.stdout
    assert len(stored_results(kept, run_id)) < 4  # the disk filled before the run could finish


def test_closed_output_pipe_keeps_the_results(tmp_path: Path) -> None:
    """`rtoslab run ... | head -2` where head has gone before rtoslab prints: stdout and
    stderr are pipes whose reader has closed them."""
    db = tmp_path / "r.sqlite"
    read_out, write_out = os.pipe()
    read_err, write_err = os.pipe()
    os.close(read_out)
    os.close(read_err)  # the reader is gone before the first line
    try:
        proc = subprocess.run([*CLI, "run", "--bench", "call", "--bench", "loop", "--db", str(db)],
                              cwd=REPO, stdout=write_out, stderr=write_err, timeout=600, check=False)
    finally:
        os.close(write_out)
        os.close(write_err)
    assert proc.returncode == 141  # as a shell reports a writer ended by SIGPIPE
    assert stored_runs(db) == [(1, "complete")]
    assert stored_results(db, 1) == [("call", "ok"), ("loop", "ok")]
    assert (tmp_path / "r.sqlite.run-1.md").is_file() and (tmp_path / "r.sqlite.run-1.html").is_file()


def test_readme_cflags_and_suite_with_bench(run_cli: RunCli, tmp_path: Path) -> None:
    """The README's `--cflags "-O2"` spelling works; --suite with --bench runs the union."""
    proc = run_cli("run", "--suite", "smoke", "--bench", "straight", "--bench", "t_check",
                   "--cflags", "-O2", "--json", "--db", str(tmp_path / "r.sqlite"))
    assert proc.returncode == 1, proc.stderr  # t_check fails on purpose
    doc = json.loads(proc.stdout)
    benches = list(dict.fromkeys(r["benchmark"] for r in doc["results"]))
    assert benches == ["calib", "call", "loop", "straight", "t_check"]  # the suite, then the rest
    # progress reaches stderr also with --json and without a terminal
    assert "[5/5] FAILED t_check" in proc.stderr, proc.stderr


def test_a_real_build_failure_shows_the_compiler_s_first_error(run_cli: RunCli, tmp_path: Path) -> None:
    proc = run_cli("run", "--bench", "toggle_superloop", "--define", "TOGGLE_TASKS=nope", "--json",
                   "--db", str(tmp_path / "r.sqlite"))
    assert proc.returncode == 1
    reason = json.loads(proc.stdout)["results"][0]["reason"]
    assert 'error: "nope" is not defined' in reason, reason
    assert "FAILED:" not in reason


def test_a_large_plan_says_its_size_and_needs_yes(run_cli: RunCli, tmp_path: Path) -> None:
    exp = tmp_path / "big.toml"
    values = ", ".join(str(n) for n in range(1, 401))
    exp.write_text(f'name = "big"\nsuite = "smoke"\n[matrix]\nopt = ["-O0", "-O2"]\n'
                   f"[matrix.defines]\nBIG_N = [{values}]\n")
    db = tmp_path / "r.sqlite"
    proc = run_cli("run", str(exp), "--db", str(db))
    assert proc.returncode == 2, proc.stderr
    # counted without expanding the plan (issue 27): the refusal is the one line
    lines = proc.stderr.strip().splitlines()
    assert lines == [f"rtoslab: error: experiment {exp} has 3200 benchmark runs (more than 2000): "
                     "pass --yes to run them, or shrink the matrix"], lines
    assert not db.exists()  # nothing started, no database created


def test_a_benchmark_that_does_not_compile_fails_alone(run_cli: RunCli, tmp_path: Path) -> None:
    """One benchmark with an #error beside a good one in the same configuration: the good
    one builds and runs, the bad one is failed with its own first error line (not "build
    of -O2 failed" for both)."""
    benches = tmp_path / "benches"
    for name in ("fine_one", "broken_one"):
        made = run_cli("new", "bench", name, "--dir", str(benches))
        assert made.returncode == 0, made.stderr
    bad = benches / "broken_one" / "broken_one.c"
    bad.write_text("#error broken_one does not build on purpose\n" + bad.read_text())
    proc = run_cli("run", "--bench-path", str(benches), "--bench", "fine_one", "--bench", "broken_one",
                   "--bench", "call", "--json", "--db", str(tmp_path / "r.sqlite"))
    assert proc.returncode == 1, proc.stderr
    results = json.loads(proc.stdout)["results"]
    status = {r["benchmark"]: r["status"] for r in results}
    assert status["fine_one"] == "ok" and status["call"] == "ok", results
    assert status["broken_one"] == "failed"
    reason = next(r["reason"] for r in results if r["benchmark"] == "broken_one")
    assert reason.startswith("broken_one: build failed: "), reason
    assert "error: #error broken_one does not build on purpose" in reason, reason
    assert "FAILED:" not in reason and "fine_one" not in reason
