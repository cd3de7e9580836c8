"""Host unit tests of the FTL core (C code in firmware/workloads/ftl/core).

tests/host/ftl/build_and_run.sh builds the core with the C test program for several
NAND geometries (host gcc, AddressSanitizer + UndefinedBehaviorSanitizer), runs them,
and ends with a combined line "N passed, M failed".
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tests" / "host" / "ftl" / "build_and_run.sh"
SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed$")

pytestmark = pytest.mark.skipif(
    shutil.which("gcc") is None, reason="no host gcc on PATH: cannot build the FTL host tests"
)


def run_script(build_dir: Path, **env_extra: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["FTL_BUILD_DIR"] = str(build_dir)
    env.pop("FTL_TEST_SABOTAGE", None)
    env.pop("FTL_TEST_FILTER", None)
    env.update(env_extra)
    return subprocess.run(
        ["bash", str(SCRIPT)],
        capture_output=True,
        text=True,
        env=env,
        timeout=1200,
        check=False,
    )


def summary(stdout: str) -> tuple[int, int]:
    lines = [line for line in stdout.splitlines() if line.strip()]
    assert lines, "the test script printed nothing"
    match = SUMMARY.match(lines[-1])
    assert match, f"last line is not a test summary: {lines[-1]!r}"
    return int(match.group(1)), int(match.group(2))


def test_ftl_core_host_tests_pass(tmp_path: Path) -> None:
    proc = run_script(tmp_path / "build")
    report = proc.stdout[-6000:] + proc.stderr[-2000:]
    assert proc.returncode == 0, report
    assert "0 failed" in proc.stdout, report
    passed, failed = summary(proc.stdout)
    assert failed == 0, report
    assert passed > 0, report


def test_ftl_core_host_tests_can_fail(tmp_path: Path) -> None:
    """A page corrupted behind the FTL's back must make the mapping test fail."""
    proc = run_script(
        tmp_path / "build",
        FTL_CONFIGS="small",
        FTL_TEST_SABOTAGE="1",
        FTL_TEST_FILTER="test_map_write_read",
    )
    assert proc.returncode != 0, proc.stdout[-4000:]
    assert summary(proc.stdout) == (0, 1), proc.stdout[-4000:]
