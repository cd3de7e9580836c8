"""Issue 26, "Crashes and noise" and "Untrusted output", the cases that need no emulator:
the real `rtoslab` process (or the real renderer), each ending in one line with the
documented exit status, never a traceback. (The cases that run firmware are in
tests/e2e/test_hardening.py.)"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .test_cli_failures import REPO, make_db, one_line_error, rtoslab


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
