"""Issue 26, "Records that lie": inputs that would make a stored record say something that
did not happen are refused before anything is built or stored. Each case is the real
`rtoslab` process: one line on stderr, exit status 2, no database created."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def rtoslab(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rtoslab.cli.main", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120, check=False)


def refused(proc: subprocess.CompletedProcess[str]) -> str:
    """Exit 2 with one line on stderr and nothing on stdout; that line."""
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert proc.stdout == ""
    return lines[0]


# ------------------------------------------------ item 1: flags beside an experiment file


@pytest.mark.parametrize("flags", [("--kernel", "freertos"), ("--target", "mps2-an386"),
                                   ("--cflags", "-O3"), ("--kernel", "baremetal"),
                                   ("--target", "mps2-an386", "--cflags", "-O3")])
def test_plan_flags_beside_an_experiment_file_are_refused(tmp_path: Path, flags: tuple[str, ...]) -> None:
    """`run FILE --kernel freertos` ran the file's kernel and stored a command naming
    freertos; a flag that would change the plan is refused with the file (also one that
    names the file's own value: the stored command must not claim it chose anything)."""
    db = tmp_path / "r.sqlite"
    line = refused(rtoslab("run", "examples/smoke-sweep.toml", *flags, "--db", str(db)))
    assert line.startswith("rtoslab: error: an experiment file sets its own "), line
    assert flags[0] in line and "edit the file" in line, line
    assert not db.exists()


def test_flags_that_do_not_change_the_plan_are_kept_with_a_file(tmp_path: Path) -> None:
    """-j, --yes, --report, --json, --irq-windows and the layout options say how to run or
    print, not what: still accepted (the plan is checked; here --irq-windows's own check
    is what stops it, after the flags were accepted)."""
    exp = tmp_path / "e.toml"
    exp.write_text('name = "e"\nbenchmarks = ["call"]\n[matrix.timing]\ncore = "none"\n')
    line = refused(rtoslab("run", str(exp), "-j", "1", "--yes", "--json", "--wide", "--per-config",
                           "--report", str(tmp_path / "x.md"), "--irq-windows",
                           "--db", str(tmp_path / "r.sqlite")))
    assert "--irq-windows needs a timing model" in line, line
