"""Failure paths end to end: hang, fault, failed check, bad ELF, missing tools, bad input."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from rtoslab.catalog import Catalog
from rtoslab.runners.base import RunRequest
from rtoslab.runners.qemu import QemuRunner
from rtoslab.tools import ONE_CLOCK_FIX

from .conftest import RunCli

CATALOG = Catalog()  # the checkout's folders alone

pytestmark = pytest.mark.qemu


@pytest.fixture(scope="module")
def selftest(run_cli: RunCli, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path]:
    db = tmp_path_factory.mktemp("selftest") / "r.sqlite"
    proc = run_cli("run", "--suite", "selftest", "--json", "--db", str(db))
    assert proc.returncode == 1, proc.stderr  # failures: exit status 1
    return json.loads(proc.stdout), db


def _result(doc: dict, bench: str) -> dict:
    rows = [r for r in doc["results"] if r["benchmark"] == bench]
    assert len(rows) == 1, rows
    return rows[0]


def test_hang_is_reported_as_hang_without_numbers(selftest: tuple[dict, Path]) -> None:
    r = _result(selftest[0], "t_hang")
    assert r["status"] == "failed"
    assert r["reason"].startswith("t_hang: hang: still running after 5000000 guest instructions")
    assert r["n"] is None and r["median"] is None


def test_fault_reports_pc_and_status_registers(selftest: tuple[dict, Path]) -> None:
    r = _result(selftest[0], "t_fault")
    assert r["status"] == "failed"
    # The cause decoded from CFSR/HFSR (UNDEFINSTR, escalated to HardFault), the pc as
    # function+offset from the ELF's symbols, then the raw registers.
    assert re.match(r"t_fault: HardFault \(escalated\): undefined instruction at 0x[0-9a-f]{8} "
                    r"\(lab_bench_run\+0x[0-9a-f]+\)", r["reason"]), r["reason"]
    assert "cfsr=0x00010000" in r["reason"] and "hfsr=0x40000000" in r["reason"]
    assert r["n"] is None


def test_failed_self_check_is_a_failed_run(selftest: tuple[dict, Path]) -> None:
    r = _result(selftest[0], "t_check")
    assert r["status"] == "failed"
    assert "self-check failed" in r["reason"] and "lab_t_check_value == 42u" in r["reason"]
    assert r["n"] is None


def test_the_timer_self_test_passes_beside_the_failures(selftest: tuple[dict, Path]) -> None:
    rows = [r for r in selftest[0]["results"] if r["benchmark"] == "t_timer"]
    assert rows and all(r["status"] == "ok" for r in rows), rows


def test_run_with_failures_is_stored_as_failed(selftest: tuple[dict, Path]) -> None:
    assert selftest[0]["status"] == "failed"


def test_bad_elf_is_a_one_line_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.elf"
    bad.write_bytes(b"this is not an ELF file at all")
    req = RunRequest("bad", bad, CATALOG.get_target("mps2-an385"), tmp_path, 1000, 10.0, {})
    with pytest.raises(Exception, match="not an ELF file"):
        QemuRunner().run(req)


def test_missing_qemu_names_the_fix(run_cli: RunCli, tmp_path: Path) -> None:
    # A PATH with the compiler tools but without qemu-system-arm.
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for tool in ("cmake", "ninja", "arm-none-eabi-gcc", "cargo", "git"):
        for d in os.environ["PATH"].split(os.pathsep):
            if (Path(d) / tool).exists():
                (bindir / tool).symlink_to(Path(d) / tool)
                break
    # No patched QEMU either (an empty machine-wide cache): the one clock is refused first,
    # naming the fix and the way to run without it, before anything is stored.
    empty = tmp_path / "qemu-cache"
    empty.mkdir()
    env = {"PATH": str(bindir), "RTOSLAB_QEMU_DIR": str(empty)}
    proc = run_cli("run", "--bench", "calib", "--db", str(tmp_path / "r.sqlite"), env=env)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert lines[-1].startswith("rtoslab: error: the one clock needs rtoslab's patched "
                                f"qemu-system-arm, which is missing or stale ({empty}/")
    assert lines[-1].endswith(ONE_CLOCK_FIX)
    assert "--timing time=instruction" in ONE_CLOCK_FIX
    assert "stored as incomplete" not in proc.stderr  # refused before a run record exists
    proc = run_cli("run", "--bench", "calib", "--timing", "time=instruction",
                   "--db", str(tmp_path / "r2.sqlite"), env=env)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert lines[-1] == ("rtoslab: error: qemu-system-arm not found: run `make setup` "
                         "(installs qemu-system-arm from bookworm-backports)")


def test_too_old_qemu_is_refused_with_the_fix(run_cli: RunCli, tmp_path: Path) -> None:
    # A qemu-system-arm that reports Debian 12's own version (7.2: plugin API v1 only),
    # first on PATH: the run stops before building or running anything.
    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake = bindir / "qemu-system-arm"
    fake.write_text("#!/bin/sh\necho 'QEMU emulator version 7.2.22 (Debian 1:7.2+dfsg-7)'\n")
    fake.chmod(0o755)
    db = tmp_path / "r.sqlite"
    empty = tmp_path / "qemu-cache"  # no patched QEMU: the one on PATH is the one used
    empty.mkdir()
    proc = run_cli("run", "--bench", "calib", "--timing", "time=instruction", "--db", str(db),
                   env={"PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}",
                        "RTOSLAB_QEMU_DIR": str(empty)})
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert lines[-1] == ("rtoslab: error: qemu-system-arm 7.2.22 is too old: the rtoslab plugin "
                         "needs QEMU >= 9.2 (plugin API v4); run `make setup` (installs "
                         "qemu-system-arm from bookworm-backports)")


@pytest.mark.parametrize(("args", "message"), [
    (["run", "--suite", "nope"], "unknown suite 'nope': choose one of"),
    (["run", "--kernel", "nope"], "unknown kernel 'nope': choose one of"),
    (["run", "--target", "nope"], "unknown target 'nope': choose one of"),
    (["run", "--bench", "nope"], "unknown benchmark 'nope'"),
    (["run", "--option", "x"], "bad --option 'x': write KEY=VALUE"),
    (["run", "--option", "nosuch=1"], "unknown option 'nosuch' for kernel baremetal"),
    (["show", "999", "--db", "{db}"], "no database at"),  # read commands never create one
])
def test_bad_input_is_one_line_and_stores_nothing(run_cli: RunCli, tmp_path: Path,
                                                  args: list[str], message: str) -> None:
    db = tmp_path / "r.sqlite"
    args = [a.replace("{db}", str(db)) for a in args]
    if "--db" not in args:
        args += ["--db", str(db)]
    proc = run_cli(*args)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr
    if db.exists():
        runs = run_cli("runs", "--db", str(db))
        assert "rtoslab run" not in runs.stdout


def test_show_why_prints_a_failure_reason_uncut(run_cli: RunCli, tmp_path: Path) -> None:
    """Tables cut long reasons to fit the screen; `show --why BENCH` prints them whole."""
    db = str(tmp_path / "r.sqlite")
    proc = run_cli("run", "--bench", "t_check", "--db", db)
    assert proc.returncode == 1, proc.stderr
    proc = run_cli("show", "latest", "--why", "t_check", "--db", db)
    assert proc.returncode == 0, proc.stderr
    (line,) = proc.stdout.splitlines()
    assert line.startswith("t_check on mps2-an385")
    assert line.endswith(": failed: t_check: self-check failed: firmware/bench/t_check/t_check.c:13: "
                         "lab_t_check_value == 42u")
    proc = run_cli("show", "latest", "--why", "t_chek", "--db", db)
    assert proc.returncode == 2 and "has no benchmark 't_chek': choose one of t_check" in proc.stderr


def test_flags_that_do_not_change_the_plan_are_kept_with_a_file(run_cli: RunCli, tmp_path: Path) -> None:
    """-j, --yes, --report, --json, --irq-windows and the layout options say how to run or
    print, not what: still accepted beside an experiment file (the plan is checked, the
    plugin's check included; here --irq-windows's own check is what stops it, after the
    flags were accepted). Issue 26 item 1; e2e: the plan passes the real plugin's check."""
    exp = tmp_path / "e.toml"
    exp.write_text('name = "e"\nbenchmarks = ["call"]\n[matrix.timing]\ncore = "none"\n')
    db = tmp_path / "r.sqlite"
    proc = run_cli("run", str(exp), "-j", "1", "--yes", "--json", "--wide", "--per-config",
                   "--report", str(tmp_path / "x.md"), "--irq-windows", "--db", str(db))
    assert proc.returncode == 2 and proc.stdout == "", (proc.returncode, proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "--irq-windows needs a timing model" in lines[0], proc.stderr
