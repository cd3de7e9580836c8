"""Issue 26, the cases that build and run firmware: hostile benchmarks of our own
(tests/data/hostile: a CMake configuration that fails, link errors, a console without end,
escape sequences and HTML in what a firmware prints) and a full disk under the build and
trace caches. The real CLI, compiler, QEMU and plugin; real SQLite and real file systems
(small tmpfs mounts in a private mount namespace: root, as on the project's machines).
(The cases without an emulator are in tests/unit/test_hardening.py.)"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from ..unit.test_hardening import _on_a_terminal
from .conftest import REPO, RunCli
from .full_disk import CLI_SHELL, fails_in_namespace, stored_results, stored_runs

pytestmark = pytest.mark.qemu

HOSTILE = REPO / "tests" / "data" / "hostile"


def _stored(db: Path, bench: str) -> tuple[str, str, dict[str, object]]:
    """(console, reason, extra) of a benchmark as the store holds them (raw)."""
    conn = sqlite3.connect(db)
    try:
        row = conn.execute("SELECT console, reason, extra FROM bench_runs WHERE benchmark = ?",
                           (bench,)).fetchone()
        return str(row[0]), str(row[1]), json.loads(row[2])
    finally:
        conn.close()


def test_hostile_benchmarks_fail_alone_with_one_clear_line(run_cli: RunCli, tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    benches = ["call", "h_nosrc", "h_cmakefail", "h_undef", "h_ram", "h_escape", "h_flood"]
    proc = run_cli("run", "--bench-path", str(HOSTILE), *(a for b in benches for a in ("--bench", b)),
                   "--json", "--db", str(db))
    assert proc.returncode == 1, proc.stderr  # benchmarks failed, nothing else
    assert "Traceback" not in proc.stderr
    doc = json.loads(proc.stdout)
    status = {r["benchmark"]: (r["status"], r["reason"]) for r in doc["results"]}
    # 13: a broken CMake configuration fails its own benchmark only
    assert status["call"][0] == "ok", status["call"]
    assert status["h_nosrc"] == ("failed", f"h_nosrc: build failed: {HOSTILE / 'h_nosrc'}/bench.cmake "
                                 f"names source file(s) that do not exist: {HOSTILE / 'h_nosrc'}/missing.c")
    assert "h_cmakefail: this bench.cmake stops the configuration" in status["h_cmakefail"][1]
    # 14: the linker's own line; a RAM overflow in bytes
    assert status["h_undef"][1].startswith(
        "h_undef: build failed: undefined reference to 'no_such_function' (h_undef.c:8)"), status["h_undef"]
    assert "collect2" not in status["h_undef"][1]
    assert status["h_ram"][1].startswith("h_ram: build failed: benchmark needs "), status["h_ram"]
    assert "bytes of RAM (region RAM, main stack included), mps2-an385 has 4194304" in status["h_ram"][1]
    # 15: the console kept is capped, and the record says how much was left out
    console, _reason, extra = _stored(db, "h_flood")
    assert status["h_flood"][0] == "failed"
    assert len(console.encode()) < 300_000, len(console)
    dropped = extra.get("console_dropped")
    assert isinstance(dropped, int) and dropped > 0, extra
    assert f"[rtoslab: {dropped} bytes of console left out here" in console
    # 16: the store keeps the raw bytes; nothing printed to a terminal carries them
    console, reason, _extra = _stored(db, "h_escape")
    assert "\x1b[2J" in console and "\x1b[31m" in reason
    assert "\x1b" not in proc.stderr and "\x07" not in proc.stderr  # progress lines
    assert "\\x1b[31mred" in proc.stderr
    for args in (("--console", "h_escape"), ("--why", "h_escape"), ()):
        shown = run_cli("show", "1", *args, "--db", str(db))
        assert shown.returncode == 0, shown.stderr
        assert "\x1b" not in shown.stdout and "\x07" not in shown.stdout, args
    # 17: the Markdown report shows HTML as text
    md = (tmp_path / f"{db.name}.run-1.md").read_text()
    assert "<script>" not in md and "&lt;script&gt;alert(5)&lt;/script&gt;" in md
    assert "<script>" not in (tmp_path / f"{db.name}.run-1.html").read_text()


def test_a_full_build_cache_stops_the_run_incomplete_naming_the_disk(tmp_path: Path) -> None:
    """The build cache on a 1.5 MiB tmpfs: the configuration's build fills it."""
    small, db = tmp_path / "small", tmp_path / "r.sqlite"
    small.mkdir()
    benches = " ".join(f"--bench {b}" for b in ("call", "loop", "straight", "perf_mix",
                                                  "toggle_superloop", "ftl_fsm", "tp_basic"))
    script = (f"mount -t tmpfs -o size=1500k tmpfs {small} && "
              f"RTOSLAB_CACHE={small}/cache {CLI_SHELL} run {benches} -j 1 --db {db}")
    last = fails_in_namespace(script, timeout=900)
    assert last.startswith(f"rtoslab: error: no space left on the disk of the build cache {small}/cache "
                           f"(file system at {small}, "), last
    assert "point RTOSLAB_CACHE at a folder on another disk" in last
    assert stored_runs(db) == [(1, "incomplete")]


def test_a_full_trace_cache_stops_the_run_incomplete_keeping_results(run_cli: RunCli,
                                                                     tmp_path: Path) -> None:
    """Images built (a warm cache), then the trace folder on a 256 KiB tmpfs: call's trace (80 KB)
    fits, perf_mix's (320 KB) does not. Was: every benchmark "QEMU stopped", the run `failed`."""
    cache, db = tmp_path / "cache", tmp_path / "r.sqlite"
    warm = run_cli("run", "--bench", "call", "--bench", "perf_mix", "--db", str(tmp_path / "warm.sqlite"),
                   env={"RTOSLAB_CACHE": str(cache)})
    assert warm.returncode == 0, warm.stderr
    traces = cache / "traces"
    script = (f"mount -t tmpfs -o size=256k tmpfs {traces} && "
              f"RTOSLAB_CACHE={cache} {CLI_SHELL} run --bench call --bench perf_mix -j 1 --db {db}")
    last = fails_in_namespace(script, timeout=900)
    assert last.startswith(f"rtoslab: error: no space left on the disk of the trace cache {traces}/"), last
    assert f"(file system at {traces}, " in last
    assert stored_runs(db) == [(1, "incomplete")]
    assert stored_results(db) == [("call", "ok")]  # finished before the disk filled; perf_mix not blamed


def test_a_bench_cmake_broken_after_a_build_fails_alone(run_cli: RunCli, tmp_path: Path) -> None:
    """Built once, then its bench.cmake names a missing file (CMake re-runs itself inside
    the next build: was "unknown target" for every benchmark), then stops CMake, then is
    fixed."""
    own = tmp_path / "own" / "h_edit"
    own.mkdir(parents=True)
    (own / "bench.toml").write_text((HOSTILE / "h_nosrc" / "bench.toml").read_text())
    (own / "h_edit.c").write_text((HOSTILE / "h_nosrc" / "h_nosrc.c").read_text())
    db = tmp_path / "r.sqlite"
    steps = [("", "ok"), ("set(LAB_BENCH_SOURCES ${CMAKE_CURRENT_LIST_DIR}/missing.c)\n", "failed"),
             ('message(FATAL_ERROR "h_edit stops CMake")\n', "failed"), ("", "ok")]
    for text, want in steps:
        (own / "bench.cmake").write_text(text)
        proc = run_cli("run", "--bench-path", str(own.parent), "--bench", "call", "--bench", "h_edit",
                       "--json", "--db", str(db))
        doc = json.loads(proc.stdout)
        got = {r["benchmark"]: (r["status"], r["reason"]) for r in doc["results"]}
        assert got["call"][0] == "ok", (text, got)
        assert got["h_edit"][0] == want, (text, got)


def test_progress_on_a_terminal_shows_a_firmware_s_escapes(tmp_path: Path) -> None:
    """On a terminal the progress line is rich markup (colours of rtoslab's own); the
    firmware's escape sequences in its reason are shown, not obeyed."""
    shown = _on_a_terminal("run", "--bench-path", str(HOSTILE), "--bench", "h_escape",
                           "--db", str(tmp_path / "r.sqlite"))
    assert b"FAILED" in shown and b"h_escape" in shown, shown[-2000:]
    assert b"\\x1b[31mred\\x1b[0m" in shown  # the reason's escapes, as text
    assert b"red\x1b[0m" not in shown and b"\x1b]0;pwned" not in shown and b"\x1b[2J" not in shown
