"""`rtoslab doctor` after `make setup`: everything is there, so it says so and exits 0
(issue 28: it exited 1 with the Rust crates "not fetched" while the Rust models built,
because it asked cargo about every platform's dependencies instead of the targets')."""

from __future__ import annotations

import pytest

from .conftest import RunCli

pytestmark = pytest.mark.qemu


def test_doctor_after_setup_finds_everything(run_cli: RunCli) -> None:
    proc = run_cli("doctor", env={"COLUMNS": "200"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "everything rtoslab needs is installed" in out
    crates = [line for line in out.splitlines() if "firmware/rust crates" in line]
    assert crates and " ok " in crates[0], crates
    one_clock = [line for line in out.splitlines() if "one clock (patched QEMU)" in line]
    assert one_clock and " ok " in one_clock[0], one_clock
