"""Issue 26, "Crashes and noise" and "Untrusted output", the cases that need no emulator:
the real `rtoslab` process (or the real renderer), each ending in one line with the
documented exit status, never a traceback. (The cases that run firmware are in
tests/e2e/test_hardening.py.)"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from rtoslab.builder.cmake import first_error, memory_overflow
from rtoslab.catalog import Catalog
from rtoslab.records import BenchResult
from rtoslab.report import TerminalRenderer, get_renderer
from rtoslab.report.text import markdown_safe, terminal_safe
from rtoslab.store import open_store

from .test_cli_failures import IDENTITY, REPO, make_db, one_line_error, rtoslab

CATALOG = Catalog()  # the checkout's folders alone


def _closed_stdout(*args: str) -> subprocess.CompletedProcess[bytes]:
    """Run rtoslab with a stdout pipe whose reader has already gone (`| true` that wins
    the race every time)."""
    read_out, write_out = os.pipe()
    os.close(read_out)
    try:
        return subprocess.run([sys.executable, "-m", "rtoslab.cli.main", *args], cwd=REPO,
                              stdout=write_out, stderr=subprocess.PIPE, timeout=120, check=False)
    finally:
        os.close(write_out)


# ------------------------------------------------------------ 7: not UTF-8


def test_an_experiment_file_that_is_not_utf8_is_one_line(tmp_path: Path) -> None:
    exp = tmp_path / "latin1.toml"
    exp.write_bytes('name = "caf\u00e9"\nsuite = "smoke"\n'.encode("latin-1"))
    db = tmp_path / "r.sqlite"
    line = one_line_error(rtoslab("run", str(exp), "--db", str(db)))
    assert line == (f"rtoslab: error: {exp}: not UTF-8 text (byte 0xe9 at offset 11): save it as "
                    "UTF-8 (TOML files are UTF-8)")
    assert not db.exists()  # refused before anything was stored


# ------------------------------------------------------------ 12: closed stdout


@pytest.mark.parametrize("command", [("list",), ("doctor",), ("runs",)])
def test_a_closed_stdout_is_exit_141(tmp_path: Path, command: tuple[str, ...]) -> None:
    db = tmp_path / "r.sqlite"
    make_db(db)
    args = (*command, "--db", str(db)) if command == ("runs",) else command
    proc = _closed_stdout(*args)
    assert proc.returncode == 141, proc.stderr
    assert b"Traceback" not in proc.stderr, proc.stderr


# ------------------------------------------------------------ 8: the build cache


def _runs_in(db: Path) -> list[tuple[int, str]]:
    """The runs stored in ``db``; none when the run refused before creating it."""
    if not db.exists():
        return []
    conn = sqlite3.connect(db)
    try:
        return [(int(r[0]), str(r[1])) for r in conn.execute("SELECT id, status FROM runs ORDER BY id")]
    finally:
        conn.close()


def _env_run(env: dict[str, str], *args: str, prefix: tuple[str, ...] = ()
             ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*prefix, sys.executable, "-m", "rtoslab.cli.main", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=120, check=False,
                          env={**os.environ, **env})




def test_a_cache_that_is_a_file_is_one_line_and_no_run(tmp_path: Path) -> None:
    cache = tmp_path / "cachefile"
    cache.write_text("not a folder\n")
    db = tmp_path / "r.sqlite"
    for where in (cache, cache / "below"):
        proc = _env_run({"RTOSLAB_CACHE": str(where)}, "run", "--bench", "call", "--db", str(db))
        line = one_line_error(proc)
        assert line.startswith(f"rtoslab: error: RTOSLAB_CACHE={where} "), line
        assert "point RTOSLAB_CACHE at a" in line
    assert _runs_in(db) == []


def read_only_mount(folder: Path) -> tuple[str, ...]:
    """A command prefix that runs the rest with ``folder`` bind-mounted read-only on itself
    in a private mount namespace (root and unshare, as the project's machines have)."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.fail("needs root and unshare (util-linux) to make a read-only mount: run as root")
    script = (f"mount --bind {folder} {folder} && mount -o remount,bind,ro {folder} && "
              'exec "$@"')
    return ("unshare", "-m", "sh", "-c", script, "sh")


def test_a_cache_on_a_read_only_mount_is_one_line_and_no_run(tmp_path: Path) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    db = tmp_path / "r.sqlite"
    proc = _env_run({"RTOSLAB_CACHE": str(ro / "cache")}, "run", "--bench", "call", "--db", str(db),
                    prefix=read_only_mount(ro))
    line = one_line_error(proc)
    assert line == (f"rtoslab: error: RTOSLAB_CACHE={ro / 'cache'} cannot be written (Read-only file "
                    "system): point RTOSLAB_CACHE at a writable folder")
    assert _runs_in(db) == []


# ------------------------------------------------------------ 9: new on a read-only mount


def test_new_bench_on_a_read_only_mount_is_one_line(tmp_path: Path) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    proc = _env_run({}, "new", "bench", "mine", "--dir", str(ro / "own"), prefix=read_only_mount(ro))
    line = one_line_error(proc)
    assert line == (f"rtoslab: error: cannot create the bench folder: {ro / 'own'}: Read-only file "
                    "system: choose a writable folder with --dir")


# ------------------------------------------------------------ 10: a dropped table


@pytest.mark.parametrize("command", [("show", "1"), ("runs",), ("export", "1"),
                                     ("run", "--bench", "call")])
@pytest.mark.parametrize("damage", ["DROP TABLE summaries", "ALTER TABLE bench_runs DROP COLUMN console"])
def test_a_database_missing_a_table_or_column_is_refused(tmp_path: Path, command: tuple[str, ...],
                                                         damage: str) -> None:
    db = tmp_path / "r.sqlite"
    make_db(db)
    conn = sqlite3.connect(db)
    conn.execute(damage)
    conn.commit()
    conn.close()
    before = db.read_bytes()
    line = one_line_error(rtoslab(*command, "--db", str(db)))
    what = ("table summaries is missing" if "summaries" in damage
            else "table bench_runs lacks column(s) console")
    assert line.startswith(f"rtoslab: error: database {db} is damaged ({what}): move it aside"), line
    assert db.read_bytes() == before  # nothing written
    assert _runs_in(db) == [(1, "complete")]


# ------------------------------------------------------------ 11: missing tools


def _bin_without_qemu(tmp_path: Path) -> Path:
    """A PATH folder with the build tools but no qemu-system-arm."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for tool in ("cmake", "ninja", "arm-none-eabi-gcc", "git"):
        found = shutil.which(tool)
        if found:
            (folder / tool).symlink_to(found)
    return folder


@pytest.mark.parametrize("timing", [(), ("--timing", "time=instruction")])
def test_a_missing_qemu_leaves_no_run(tmp_path: Path, timing: tuple[str, ...]) -> None:
    """Neither the patched QEMU (RTOSLAB_QEMU_DIR elsewhere) nor qemu-system-arm on PATH: one
    line with the fix, and no run record (was: an empty `incomplete` run)."""
    db = tmp_path / "r.sqlite"
    proc = _env_run({"PATH": str(_bin_without_qemu(tmp_path)), "RTOSLAB_QEMU_DIR": str(tmp_path / "none")},
                    "run", "--bench", "call", *timing, "--db", str(db))
    line = one_line_error(proc)
    assert "qemu-system-arm" in line and "make setup" in line, line
    assert _runs_in(db) == []


# ------------------------------------------------------------ 14: link errors

_LD = "/usr/lib/gcc/arm-none-eabi/12.2.1/../../../arm-none-eabi/bin/ld"


def test_an_undefined_symbol_is_the_first_useful_line() -> None:
    out = (f"FAILED: h_undef.elf\n: && /usr/bin/arm-none-eabi-gcc -Werror -o h_undef.elf && :\n"
           f"{_LD}: CMakeFiles/h_undef.dir/h_undef.c.obj: in function `lab_bench_run':\n"
           "/b/bench/h_undef/h_undef.c:8: undefined reference to `no_such_function'\n"
           "collect2: error: ld returned 1 exit status\n")
    assert first_error(out) == "undefined reference to 'no_such_function' (h_undef.c:8)"


def test_a_ram_overflow_is_bytes_needed_and_had() -> None:
    target = CATALOG.get_target("mps2-an385")
    ram = next(r for r in target.memory if r.kind == "sram")
    top = ram.base + ram.size
    limit = top - 0x2000
    out = (f"{_LD}:cortex_m_sections.ld:64 cannot move location counter backwards "
           f"(from {ram.base + 0x40000d0:08x} to {limit:08x})\ncollect2: error: ld returned 1 exit status\n")
    err = first_error(out)
    assert err.startswith("cannot move location counter backwards"), err
    assert memory_overflow(err, target) == (f"benchmark needs {0x40000d0 + 0x2000} bytes of RAM (region "
                                            f"{ram.name}, main stack included), mps2-an385 has {ram.size}")
    region = f"{_LD}: region `{ram.name}' overflowed by 100 bytes\n"
    assert memory_overflow(first_error(region), target) == (
        f"benchmark needs {ram.size + 100} bytes of RAM (region {ram.name}), mps2-an385 has {ram.size}")
    assert memory_overflow("error: 'x' undeclared", target) is None


# ------------------------------------------------------------ 16, 17: untrusted text

_HOSTILE = "<script>alert(5)</script> \x1b[2J\x1b]0;pwned\x07\x1b[31mred\x9b0m\u202eevil"


def test_terminal_renderers_neutralise_control_characters_the_store_keeps_them(tmp_path: Path) -> None:
    from rtoslab.cli.tables import print_run_text

    from .test_report import store_run

    view = store_run(tmp_path, BenchResult("h_escape", "failed", f"h_escape: {_HOSTILE}",
                                           console=f"hi {_HOSTILE}\r\n"))
    assert "\x1b[2J" in view.results[0].console and "\x1b" in (view.results[0].reason or "")  # raw
    text = TerminalRenderer(width=200).render(view)
    assert "\x1b" not in text and "\x07" not in text and "\x9b" not in text and "\u202e" not in text
    assert "\\x1b[2J\\x1b]0;pwned\\x07" in text  # shown, not obeyed
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        print_run_text(view, None, width=200, per_config=True, wide=False)
    assert "\x1b" not in buf.getvalue() and "\\x1b]0;pwned" in buf.getvalue()
    assert terminal_safe("a\r\nb\rc\td") == "a\nb\\x0dc\td"


def test_show_console_why_and_progress_print_no_escape(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    with open_store(db) as store:
        config = store.upsert_config({**IDENTITY, "identity_hash": "feed26"})
        run_id = store.begin_run("rtoslab run", "r", "h", {})
        store.add_bench_result(run_id, config, "s", BenchResult("h_escape", "failed", _HOSTILE,
                                                                console=f"hi {_HOSTILE}\n"))
        store.finish_run(run_id, "failed")
    for args in (("--console", "h_escape"), ("--why", "h_escape"), ()):
        proc = rtoslab("show", "1", *args, "--db", str(db))
        assert proc.returncode == 0, proc.stderr
        assert "\x1b" not in proc.stdout and "\x07" not in proc.stdout, (args, proc.stdout)
        assert "\\x1b" in proc.stdout
    runs = rtoslab("runs", "--db", str(db))
    assert "\x1b" not in runs.stdout


def test_markdown_reports_escape_html(tmp_path: Path) -> None:
    from rtoslab.report.fit import fit_table

    from .test_report import store_run

    view = store_run(tmp_path, BenchResult("h_escape", "failed", f"h_escape: {_HOSTILE}"))
    text = get_renderer("markdown").render(view)
    assert "<script>" not in text and "\x1b" not in text
    assert "**failed**: h_escape: &lt;script&gt;alert(5)&lt;/script&gt;" in text
    assert markdown_safe("a & b | <i>") == "a &amp; b \\| &lt;i&gt;"
    assert "\x1b" not in fit_table(["a"], [[_HOSTILE]], 1, title=_HOSTILE)


# ------------------------------------------------------------ 15: a console without end


def test_the_kept_console_is_capped_head_and_tail_in_bounded_memory() -> None:
    from rtoslab.runners.qemu import CappedStream

    s = CappedStream(100, 100)
    for i in range(10_000):
        s.feed(f"line {i:05d}\n".encode())
        assert len(s.head) + len(s.tail) <= 100 + 2 * 100 + 11  # never the whole stream
    s.feed(b"LAB-KV calls=3\nLAB-DONE\n")
    text = s.text("console")
    total = 10_000 * 11 + len("LAB-KV calls=3\nLAB-DONE\n")
    assert text.startswith("line 00000\n") and text.endswith("LAB-KV calls=3\nLAB-DONE\n")
    assert s.dropped == total - 200
    assert f"[rtoslab: {s.dropped} bytes of console left out here" in text
    small = CappedStream(100, 100)
    small.feed(b"short\n")
    assert small.text("console") == "short\n" and small.dropped == 0


def _on_a_terminal(*args: str) -> bytes:
    """What rtoslab writes when its stdout and stderr are a terminal (a pseudo-terminal)."""
    import pty

    pid, fd = pty.fork()
    if pid == 0:  # the child: rtoslab on the terminal
        os.chdir(REPO)
        os.execv(sys.executable, [sys.executable, "-m", "rtoslab.cli.main", *args])
    out = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # the child has gone (EIO)
            break
        if not chunk:
            break
        out += chunk
    os.waitpid(pid, 0)
    os.close(fd)
    return out


def test_export_on_a_terminal_shows_escapes_and_into_a_pipe_keeps_them(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    with open_store(db) as store:
        config = store.upsert_config({**IDENTITY, "identity_hash": "feed27"})
        run_id = store.begin_run("rtoslab run", "r", "h", {})
        store.add_bench_result(run_id, config, "s", BenchResult("h_escape", "failed", _HOSTILE))
        store.finish_run(run_id, "failed")
    shown = _on_a_terminal("export", "1", "--what", "summaries-csv", "--db", str(db))
    assert b"h_escape" in shown and b"\x1b" not in shown and b"\\x1b[2J" in shown
    piped = rtoslab("export", "1", "--what", "summaries-csv", "--db", str(db))
    assert "\x1b[2J" in piped.stdout  # the data as stored
