"""The timeline end to end (docs/timeline.md): a FreeRTOS benchmark with two tasks and an
interrupt, run with `--trace` under the real QEMU and plugin, gives the exact sequence of
task switches, handler entries and exits and probes; its figures come with and without
the hook; the exported trace checks against the trace event format; the HTML report has
the swimlanes."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path

import pytest

from rtoslab.catalog import Catalog
from rtoslab.trace.timeline import load_timelines, timeline_dir
from tests.unit.test_timeline import check_trace_event_format, sequence

from .conftest import RunCli

CATALOG = Catalog()  # the checkout's folders alone

pytestmark = pytest.mark.qemu

# One round of k_isr_to_task: the low task raises the interrupt; the handler gives the
# semaphore, tail-chains into PendSV, which switches to the high task; the high task's
# probe ends the interval; it blocks again (PendSV back to low); then the same with a
# direct notification.
ROUND = [
    "+irq isr_handler", "+metric isr_sem_to_task", "probe 2 isr_sem_to_task",
    "-irq isr_handler", "+irq PendSV_Handler",
    "-task 2 low", "+task 1 high",
    "-irq PendSV_Handler", "-metric isr_sem_to_task", "probe 3 isr_sem_to_task",
    "+irq PendSV_Handler", "-task 1 high", "+task 2 low", "-irq PendSV_Handler",
    "+irq isr_handler", "+metric isr_notify_to_task", "probe 4 isr_notify_to_task",
    "-irq isr_handler", "+irq PendSV_Handler",
    "-task 2 low", "+task 1 high",
    "-irq PendSV_Handler", "-metric isr_notify_to_task", "probe 5 isr_notify_to_task",
    "+irq PendSV_Handler", "-task 1 high", "+task 2 low", "-irq PendSV_Handler",
]


def test_trace_of_two_tasks_and_an_interrupt(run_cli: RunCli, tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    proc = run_cli("run", "--kernel", "freertos", "--bench", "k_isr_to_task", "--trace",
                   "--json", "-j", "1", "--db", str(db))
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout)["results"]
    # The same benchmark without and with the hook: the hook costs cycles on each switch.
    for metric in ("isr_sem_to_task", "isr_notify_to_task"):
        off, on = [r["median"] for r in results if r["metric"] == metric and r["unit"] == "cycle"]
        assert on > off, metric

    [tl] = load_timelines(timeline_dir(db, 1))
    assert tl.benchmark == "k_isr_to_task" and tl.clock_hz == 25e6 and not tl.truncated
    seq = sequence(tl)
    assert seq[0] == "+task 2 low"
    assert seq[1:1 + 3 * len(ROUND)] == ROUND * 3
    assert sum(1 for s in tl.slices if s.kind == "interval") == 2000  # every sample's interval

    out = tmp_path / "t.json"
    proc = run_cli("export", "1", "--what", "trace", "-o", str(out), "--db", str(db))
    assert proc.returncode == 0, proc.stderr
    check_trace_event_format(json.loads(out.read_text()))
    # A reference finds the same timeline as the run's number.
    proc = run_cli("export", "latest", "--what", "trace", "--db", str(db))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == out.read_text()
    html = (tmp_path / "r.sqlite.run-1.html").read_text()
    assert '<section id="timeline">' in html and "irq PendSV_Handler" in html


def test_export_trace_without_a_timeline_says_what_to_do(run_cli: RunCli, tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    assert run_cli("run", "--bench", "call", "-j", "1", "--db", str(db)).returncode == 0
    proc = run_cli("export", "1", "--what", "trace", "--db", str(db))
    assert proc.returncode != 0
    assert "run 1 has no timeline: rerun it with `rtoslab run --trace`" in proc.stderr
    assert "Traceback" not in proc.stderr
    # A reference is named with the run's number, so the user knows which run to redo.
    proc = run_cli("export", "latest", "--what", "trace", "--db", str(db))
    assert proc.returncode != 0
    assert "run 1 (latest) has no timeline: rerun it with `rtoslab run --trace`" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


# Every target of the checkout (the probe with a run-time id, LAB_PROBE_VAR, comes from the
# shared firmware/arch/cortex-m/lab_probe_impl.h in both of its forms, ARMv6-M and
# ARMv7-M/ARMv8-M Mainline): k_yield runs with --trace, and its timeline shows the two
# tasks switching.
@pytest.mark.parametrize("target", sorted(t for t, target in CATALOG.targets.items() if not target.is_board))
def test_trace_of_k_yield_on_every_target(run_cli: RunCli, tmp_path: Path, target: str) -> None:
    db = tmp_path / "r.sqlite"
    proc = run_cli("run", "--kernel", "freertos", "--bench", "k_yield", "--target", target,
                   "--trace", "--json", "-j", "2", "--db", str(db))
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout)["results"]
    assert {r["benchmark"] for r in results} == {"k_yield"}
    assert all(r["status"] == "ok" for r in results), results
    [tl] = load_timelines(timeline_dir(db, 1))
    assert tl.benchmark == "k_yield"
    switches = [s for s in sequence(tl) if s.startswith("+task ")]
    assert len(switches) > 10 and len(set(switches)) >= 2, switches[:10]


def test_exported_ticks_are_spaced_by_the_tick_period_in_modelled_time(run_cli: RunCli,
                                                                      tmp_path: Path) -> None:
    """Issue 24: on the one clock the 1 kHz tick fires every 25,000 modelled cycles at
    25 MHz, as on a board. In the Chrome export the SysTick slices are a whole number of
    periods apart, first to last exactly (a tick is taken late only while a masked section
    holds it off, and that never accumulates), each within the longest masked section of
    the period, and their timestamps are 1 ms apart. On QEMU's instruction clock the same
    run held one tick (a tick every 1,000,000 instructions)."""
    db = tmp_path / "r.sqlite"
    proc = run_cli("run", "--kernel", "freertos", "--bench", "k_isr_to_task", "--trace",
                   "--db", str(db))
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = tmp_path / "trace.json"
    proc = run_cli("export", "1", "--what", "trace", "-o", str(out), "--db", str(db))
    assert proc.returncode == 0, proc.stderr
    events = json.loads(out.read_text())["traceEvents"]
    ticks = [e for e in events if e.get("name") == "SysTick_Handler" and e.get("ph") == "X"]
    assert len(ticks) > 10, len(ticks)
    starts = [int(e["args"]["start_cycles"]) for e in ticks]
    period = 25_000_000 // 1000
    assert starts[-1] - starts[0] == (len(starts) - 1) * period
    assert all(abs(b - a - period) < 400 for a, b in pairwise(starts))
    assert ticks[-1]["ts"] - ticks[0]["ts"] == pytest.approx((len(ticks) - 1) * 1000.0, abs=20)
