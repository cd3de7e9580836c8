"""The buffer-mode probe: the host's layout constants agree with the firmware's headers,
and the decoder unwraps DWT and SysTick timestamps (docs/boards.md)."""

from __future__ import annotations

import re
import struct

import pytest

from rtoslab.catalog import Catalog
from rtoslab.paths import firmware_root
from rtoslab.records import RtoslabError
from rtoslab.runners import probe_buffer as pb
from rtoslab.runners.gdb import hang_timeout, parse_server

CATALOG = Catalog()  # the checkout's folders alone


def _macros(path: str) -> dict[str, int]:
    text = (firmware_root() / path).read_text()
    return {m[1]: int(m[2].rstrip("u"), 0)
            for m in re.finditer(r"#define (LAB_\w+) (0x[0-9A-Fa-f]+u?|\d+u?)\b", text)}


def test_the_layout_agrees_with_probe_h() -> None:
    m = _macros("include/lab/probe.h")
    assert m["LAB_PROBE_BUF_MAGIC"] == pb.BUF_MAGIC
    assert m["LAB_PROBE_BUF_OFF_ENTRIES"] == pb.BUF_HEADER
    for key, off in pb.BUF_OFFSETS.items():
        assert m[f"LAB_PROBE_BUF_OFF_{key}"] == off, key
    assert m["LAB_PROBE_CLOCK_DWT"] == pb.CLOCK_DWT
    assert m["LAB_PROBE_CLOCK_SYSTICK"] == pb.CLOCK_SYSTICK
    assert m["LAB_PROBE_MARK_BEFORE"] == pb.MARK_BEFORE
    assert m["LAB_PROBE_MARK_RELOAD"] == pb.MARK_RELOAD
    assert _macros("arch/cortex-m/lab_cortex_m.h")["LAB_CONSOLE_RAM_MAGIC"] == pb.CONSOLE_MAGIC


def _header(clock: int, n: int, reload: int = 0xFFFFFF, base: int = 0x2000_0000) -> pb.BufferHeader:
    return pb.BufferHeader(pb.BUF_MAGIC, clock, base + pb.BUF_HEADER + 8 * n, 0, 0, 0, 64, reload)


def _entries(*hits: tuple[int, int, int]) -> bytes:
    """(id, wraps, value) each."""
    return b"".join(struct.pack("<2I", i | (w << 16), v) for i, w, v in hits)


def test_dwt_counts_up_and_wraps_at_2_32() -> None:
    data = _entries((0, 0, 0xFFFF_FFF0), (1, 0, 0x10), (2, 0, 0x30))
    trace = pb.decode_buffer(_header(pb.CLOCK_DWT, 3), data, 0, 0x4000)
    assert [(h.probe_id, h.cycles) for h in trace.hits] == [(0, 0), (1, 0x20), (2, 0x40)]
    assert not trace.has_insns and trace.has_cycles


def test_systick_counts_down_and_its_wraps_are_counted() -> None:
    # 100 cycles across a wrap of the 24-bit reload; then the kernel's reload of 999
    # (period 1000); then 50 periods between two hits (a task asleep for 50 ticks).
    top = 0xFFFFFF
    data = _entries((0, 0, 50), (1, 1, top - 49), (pb.MARK_BEFORE, 1, top - 59),
                    (pb.MARK_RELOAD, 1, 999), (2, 1, 989), (3, 1, 10), (4, 52, 980))
    trace = pb.decode_buffer(_header(pb.CLOCK_SYSTICK, 7), data, 0, 0x4000)
    assert [(h.probe_id, h.cycles) for h in trace.hits] == [(0, 0), (1, 100), (2, 120), (3, 1099),
                                                            (4, 1129 + 50 * 1000)]


def test_a_pending_wrap_not_yet_counted_is_one_wrap() -> None:
    # Hit 1 ran with the wrap pending (count still 0, value already reloaded); hit 2 ran
    # with it still pending; hit 3 after the exception counted it.
    data = _entries((0, 0, 30), (1, 0, 990), (2, 0, 980), (3, 1, 970))
    trace = pb.decode_buffer(_header(pb.CLOCK_SYSTICK, 4, reload=999), data, 0, 0x4000)
    assert [h.cycles for h in trace.hits] == [0, 40, 50, 60]


def test_an_uninitialised_buffer_is_one_line() -> None:
    with pytest.raises(RtoslabError, match="never initialised"):
        pb.decode_buffer(pb.BufferHeader(0, 0, 0, 0, 0, 0, 0, 0), b"", 0, 0x4000)


def test_the_console_ring_keeps_the_end_and_counts_what_it_lost() -> None:
    head = struct.pack("<3I", pb.CONSOLE_MAGIC, 8, 11)
    text, lost = pb.decode_console(head + b"DONE\nabc")  # 11 bytes into 8: 'abcDONE\n' kept
    assert (text, lost) == ("E\nabcDON", 3)
    text, lost = pb.decode_console(struct.pack("<3I", pb.CONSOLE_MAGIC, 8, 3) + b"ok\n\0\0\0\0\0")
    assert (text, lost) == ("ok\n", 0)


@pytest.mark.parametrize("bad", ["localhost", ":3333", "host:0", "host:x", "host:70000"])
def test_a_bad_server_is_one_line(bad: str) -> None:
    with pytest.raises(RtoslabError, match="HOST:PORT"):
        parse_server(bad)


def test_the_hang_bound_follows_the_instruction_limit_at_the_clock() -> None:
    from dataclasses import replace
    from pathlib import Path

    from rtoslab.runners.base import RunRequest

    req = RunRequest("b", Path("x"), CATALOG.get_target("mps2-an385"), Path("."), 5_000_000, 120.0, {})
    assert hang_timeout(req) == 5.0  # 0.6 s of cycles at 25 MHz: the floor
    assert hang_timeout(replace(req, insn_limit=2_000_000_000)) == 120.0  # the benchmark's cap
