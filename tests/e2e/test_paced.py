"""Time base "paced" end to end (docs/formats.md, "Time bases"): on QEMU's instruction
clock (--timing time=instruction) a benchmark whose interval holds tick interrupts is
stored and reported as paced by it, the same benchmark on a kernel without a tick stays
modelled, and the figures themselves are the ones the cycle model measured (only the label
changes); on the one clock (the default) nothing is paced."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import RunCli

pytestmark = pytest.mark.qemu


def _run(run_cli: RunCli, tmp: Path, kernel: str, time: str = "instruction"
         ) -> tuple[dict[tuple[str, str], dict], str]:
    db = str(tmp / "r.sqlite")
    proc = run_cli("run", "--bench", "tp_basic", "--kernel", kernel, "--timing", f"time={time}",
                   "--json", "--db", db)
    doc = json.loads(proc.stdout)
    failed = [r for r in doc["results"] if r["status"] != "ok"]
    assert proc.returncode == 0 and not failed, (failed, proc.stderr[-2000:])
    shown = run_cli("show", "latest", "--db", db, "--format", "markdown").stdout
    return {(r["metric"], r["unit"]): r for r in doc["results"]}, shown


def test_tick_inside_the_window_is_paced_not_modelled(run_cli: RunCli, tmp_path: Path) -> None:
    rows, md = _run(run_cli, tmp_path, "freertos")
    for key in (("basic_window", "cycle"), ("basic_window", "us"), ("basic_op", "cycle/op"),
                ("basic_op", "op/s")):
        assert rows[key]["time_base"] == "paced", key
    assert "LAB-KV ticks" in rows[("basic_window", "us")]["time_note"]
    assert rows[("basic_op", "op/s")]["time_note"].startswith("basic_window"), "formula first"
    assert "basic_window: paced: paced by QEMU's instruction clock" in md
    bare, md_bare = _run(run_cli, tmp_path, "baremetal")
    assert bare[("basic_window", "cycle")]["time_base"] == "modelled", "no kernel tick: modelled"
    assert bare[("basic_op", "op/s")]["time_base"] == "derived"
    assert "paced" not in md_bare.split("Time bases")[-1]


def test_on_the_one_clock_the_same_window_is_modelled(run_cli: RunCli, tmp_path: Path) -> None:
    """The tick fires at modelled cycles: the window with its ticks is a board's time."""
    rows, md = _run(run_cli, tmp_path, "freertos", time="one-clock")
    for key in (("basic_window", "cycle"), ("basic_window", "us")):
        assert rows[key]["time_base"] == "modelled", key
    assert "paced" not in md.split("Time bases")[-1]
