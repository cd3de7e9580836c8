"""A qemu test with a tool missing skips only when that is allowed: with
RTOSLAB_REQUIRE_QEMU=1 (what `make test` sets) or CI set it fails instead.

Runs pytest on one real qemu-marked test with PATH emptied, so every tool is missing.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TARGET = "tests/e2e/test_cycle_model.py::test_interrupt_latency_cycles"


def _pytest_without_tools(**env: str) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if k not in ("CI", "RTOSLAB_REQUIRE_QEMU")}
    full.update(PATH="/nonexistent", **env)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", TARGET],
                          cwd=REPO, env=full, capture_output=True, text=True, timeout=120,
                          check=False)


def test_missing_tools_skip_by_default() -> None:
    proc = _pytest_without_tools()
    assert proc.returncode == 0, proc.stdout
    assert "1 skipped" in proc.stdout


def test_missing_tools_fail_when_required() -> None:
    for env in ({"RTOSLAB_REQUIRE_QEMU": "1"}, {"CI": "1"}):
        proc = _pytest_without_tools(**env)
        assert proc.returncode == 1, (env, proc.stdout)
        assert "skipped" not in proc.stdout, env
        assert "qemu tests may not skip" in proc.stdout, env
        assert "needs arm-none-eabi-gcc, qemu-system-arm" in proc.stdout, env
