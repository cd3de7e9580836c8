"""How the QEMU runner turns exit status, console and trace into one-line failures."""

from __future__ import annotations

from pathlib import Path

from rtoslab.catalog import Catalog
from rtoslab.console import parse_console
from rtoslab.records import EndStatus, Trace, TraceEnd
from rtoslab.runners.base import RunRequest
from rtoslab.runners.qemu import classify, qemu_command

CATALOG = Catalog()  # the checkout's folders alone

REQ = RunRequest("b", Path("/x/b.elf"), CATALOG.get_target("mps2-an385"), Path("/tmp"), 1000, 5.0, {})


def _why(exit_code: int | None, console: str, trace: Trace | None, timed_out: bool = False) -> str:
    """The failure line, which these cases must have."""
    failure = classify(REQ, exit_code, parse_console(console), trace, timed_out)
    assert failure is not None
    return failure


def _trace(status: int = 0) -> Trace:
    return Trace(1, 0x21000000, 0x4000, False, (), TraceEnd(status, 10, 0))


def test_success_needs_exit_zero_complete_trace_and_done_line() -> None:
    assert classify(REQ, 0, parse_console("LAB-DONE\n"), _trace(), False) is None
    assert _why(0, "", _trace()) == "b: exited without the harness's LAB-DONE line"
    assert _why(0, "LAB-DONE\n", None).startswith("b: the trace is incomplete")


def test_hang_by_instruction_limit_and_by_wall_clock() -> None:
    assert _why(124, "", _trace(EndStatus.INSN_LIMIT)).startswith(
        "b: hang: still running after 1000 guest instructions")
    assert _why(None, "", None, timed_out=True).startswith("b: hang: no exit within 5 s wall time")


def test_fault_and_check_lines_are_quoted() -> None:
    console = "x\nLAB-FAULT exception=3 pc=0x00000100 cfsr=0x00010000\n"
    assert _why(11, console, _trace()) == ("b: HardFault: undefined instruction at 0x00000100 "
                                           "[exception=3 pc=0x00000100 cfsr=0x00010000]")
    assert _why(10, "LAB-FAIL b.c:3: x == 1\n", _trace()) == "b: self-check failed: b.c:3: x == 1"
    assert _why(12, "LAB-FAIL configASSERT\n", _trace()) == (
        "b: kernel assertion failed (exit status 12): configASSERT")
    assert _why(11, "no report printed\n", _trace()) == "b: fault: no fault report on the console"


def test_a_failure_line_after_unfinished_output_gives_the_real_reason() -> None:
    """The benchmark printed without ending its line, then the harness's LAB-FAIL."""
    console = "progress 3/4LAB-FAIL b.c:9: sum == 5050\n"
    assert _why(10, console, _trace()) == "b: self-check failed: b.c:9: sum == 5050"
    fault = "tick...LAB-FAULT exception=6 pc=0x00000200 cfsr=0x02000000\n"
    assert _why(11, fault, _trace()).startswith("b: UsageFault: divide by zero at 0x00000200")


def test_probe_overflow_and_unaligned() -> None:
    assert "probe-region overflow" in _why(0, "LAB-DONE", _trace(EndStatus.RECORD_LIMIT))
    assert "unaligned" in _why(0, "LAB-DONE", _trace(EndStatus.UNALIGNED_PROBE))


def test_qemu_command_is_deterministic_icount() -> None:
    cmd = qemu_command(REQ, Path("/tmp/t.bin"), Path("/p.so"))
    assert cmd[cmd.index("-icount") + 1] == "shift=0,align=off,sleep=off"
    assert cmd[-1] == "/p.so,trace=/tmp/t.bin,base=0x21000000,size=0x4000,insn_limit=1000"
