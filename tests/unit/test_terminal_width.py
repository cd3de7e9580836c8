"""The terminal tables fit the screen (issue 28 item 2): at 80, 100 and 160 columns no
column that carries a number is dropped or cut; names wrap at underscores instead;
--wide keeps one line per name; spread statistics in cycles, the median time in µs or
ms (issue 28 item 1); n/a and failure reasons one line each (item 3)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rtoslab.records import BenchResult, Unit
from rtoslab.report.terminal import TerminalRenderer, time_cell, wrap_name
from rtoslab.store import RunView, open_store
from tests.unit.test_report_golden import CONFIG_FREERTOS, FixedClock, _ctx_switch, _loop

_LONG_BENCH = "k_irq_latency_loaded_with_a_long_name"
_REASON = ("kernel freertos lacks LAB_HAS_SMP=0 (FreeRTOS single-core kernel (configNUMBER_OF_CORES "
           "1): it schedules one core; the SMP kernel is the freertos-smp port)")


@pytest.fixture(scope="module")
def view(tmp_path_factory: pytest.TempPathFactory) -> RunView:
    db = tmp_path_factory.mktemp("width") / "results.sqlite"
    clock = FixedClock("2026-11-22T04:00:00")
    with open_store(db, clock=clock) as store:
        run_id = store.begin_run(command="rtoslab run", revision="r", host="h", tool_versions={})
        cfg = store.upsert_config(CONFIG_FREERTOS)
        loop = _loop(1_249_960)  # 49,998.4 µs at 25 MHz: shown in ms
        metric = replace(loop.metrics[0], name="periodic_wake_latency_after_delay_until")
        store.add_bench_result(run_id, cfg, "a", replace(loop, benchmark=_LONG_BENCH, metrics=(metric,)))
        store.add_bench_result(run_id, cfg, "b", _ctx_switch())
        store.add_bench_result(run_id, cfg, "c", BenchResult("k_activate_x", "n/a", _REASON))
        store.finish_run(run_id, "complete")
        return store.load_run(run_id)


@pytest.mark.parametrize("width", [80, 100, 160])
def test_every_number_fits_at_the_width(view: RunView, width: int) -> None:
    text = TerminalRenderer(width=width, header=False).render(view)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= width, text
    # every statistic of every line is there, uncut: cycles (spread), the time, n
    for cell in ("1249960", "49.998 ms", "260", "289.4", "13.416", "151.98", "1.414"):
        assert cell in text, (width, cell, text)
    # a metric without cycles shows its instructions, said in a unit column
    assert any("insn" in line and "151.98" in line for line in lines)
    # the n/a reason is one line, cut to the width, the full text behind show --why
    na = [line for line in lines if "k_activate_x" in line]
    assert len(na) == 1 and na[0].endswith("…") and "n/a:" in na[0]
    assert "--why BENCH" in text
    # no name is cut without a trace: its pieces are all there
    assert "latency_" in text and "after_" in text


def test_wide_keeps_one_line_per_name_and_reason(view: RunView) -> None:
    text = TerminalRenderer(width=80, header=False, wide=True).render(view)
    assert _LONG_BENCH in text and "periodic_wake_latency_after_delay_until" in text
    assert _REASON in text


def test_unit_insn_puts_instructions_first(view: RunView) -> None:
    text = TerminalRenderer(width=160, header=False, unit=Unit.INSN).render(view)
    switch = next(line for line in text.splitlines() if "switch_time" in line)
    assert "219.6" in switch and "289.4" not in switch  # insn p99, not the cycle p99


def test_time_cell_and_name_wrapping() -> None:
    assert time_cell(16.08) == "16.08 µs" and time_cell(999.5) == "999.5 µs"
    assert time_cell(2253.08) == "2.253 ms"
    assert time_cell(49_998.4) == "49.998 ms"
    assert wrap_name("periodic_wake_latency", 14, "  ") == "  periodic_\n    wake_\n    latency"
    assert wrap_name("abcdefghijklmnopqrstuvwxyz", 12) == "abcdefghijkl\n  mnopqrstuv\n  wxyz"
