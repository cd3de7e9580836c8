"""The RAM probe buffer and RAM console of buffer mode, read back from a board's memory.

Layouts: firmware/include/lab/probe.h (the probe buffer: eight header words, then
(id, timestamp) entries) and firmware/arch/cortex-m/lab_cortex_m.h (the console: magic,
size, bytes written, data); tests/unit/test_probe_buffer.py checks that these constants
agree with the headers. The timestamps become one continuous cycle count: DWT CYCCNT
counts up and wraps at 2^32; SysTick counts down from its reload and wraps every
reload + 1 cycles, and the reload in force changes at the marker entries that
lab_target_tick_start writes (docs/boards.md, "The probe on a board").
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from rtoslab.records import Hit, RtoslabError, Trace, TraceEnd

BUF_MAGIC = 0x4242414C
BUF_HEADER = 48  # bytes before the first entry (LAB_PROBE_BUF_OFF_ENTRIES)
BUF_OFFSETS = {"MAGIC": 0, "CLOCK": 4, "NEXT": 8, "END": 12, "OVERFLOW": 16, "TS_ADDR": 20,
               "CAPACITY": 24, "RELOAD": 28, "WRAPS_ADDR": 32, "WRAPS": 36, "TICK_ON": 40,
               "ZERO": 44, "ENTRIES": 48}
CLOCK_NONE, CLOCK_DWT, CLOCK_SYSTICK = 0, 1, 2
CLOCK_NAMES = {CLOCK_DWT: "dwt", CLOCK_SYSTICK: "systick"}
MARK_BEFORE = 0xFFFF
MARK_RELOAD = 0xFFFE
CONSOLE_MAGIC = 0x434E4F43
CONSOLE_HEADER = 12  # magic, size, written


@dataclass(frozen=True)
class BufferHeader:
    magic: int
    clock: int
    next: int
    end: int
    overflow: int
    ts_addr: int
    capacity: int
    reload: int
    wraps_addr: int = 0
    wraps: int = 0
    tick_on: int = 0
    zero: int = 0

    @classmethod
    def parse(cls, data: bytes) -> BufferHeader:
        return cls(*struct.unpack_from("<12I", data, 0))

    def entries(self, base: int) -> int:
        """Entries stored, from the buffer's address ``base``."""
        return max(0, (self.next - (base + BUF_HEADER)) // 8)


def decode_buffer(header: BufferHeader, entries: bytes, probe_base: int, probe_size: int) -> Trace:
    """The probe entries as a trace: each hit's ``cycles`` is the clock's count since the
    first hit, ``insns`` 0 (a board counts no instructions: has_insns False).

    DWT: successive counts modulo 2^32. SysTick: each entry carries the low 16 bits of the
    wrap count its exception keeps; elapsed cycles between two entries are (wraps between
    them) x period + (previous value - value), the period being the reload in force plus
    one. A wrap that is pending while a probe runs with interrupts masked is not counted
    yet: the elapsed time then comes out negative, and that entry counts one more wrap
    (the exception counts it later, and the next entry's count includes it)."""
    if header.magic != BUF_MAGIC or header.clock not in CLOCK_NAMES:
        raise RtoslabError("the probe buffer was never initialised (no LAB_PROBE_INIT ran: the "
                           "image did not reach the harness)")
    words = struct.unpack(f"<{len(entries) // 4}I", entries[: len(entries) // 8 * 8])
    hits: list[Hit] = []
    period = header.reload + 1
    prev: tuple[int, int] | None = None  # (effective wrap count, value) of the previous entry
    t = 0
    for i in range(0, len(words), 2):
        ident, wraps, value = words[i] & 0xFFFF, words[i] >> 16, words[i + 1]
        if header.clock == CLOCK_DWT:
            if prev is not None:
                t += (value - prev[1]) % (1 << 32)
            prev = (0, value)
            if ident not in (MARK_BEFORE, MARK_RELOAD):
                hits.append(Hit(probe_id=ident, insns=0, cycles=t))
            continue
        if ident == MARK_RELOAD:
            period = value + 1
            prev = (prev[0] if prev is not None else wraps, value)  # the counter restarts from the reload
            continue
        if prev is None:
            prev = (wraps, value)
        else:
            step = (wraps - prev[0]) % (1 << 16)
            if step >= 1 << 15:  # still behind a wrap the previous entry already counted
                step -= 1 << 16
            eff = prev[0] + step
            elapsed = (eff - prev[0]) * period + prev[1] - value
            while elapsed < 0:  # a wrap pending, not yet counted, when this entry was taken
                eff += 1
                elapsed += period
            t += elapsed
            prev = (eff, value)
        if ident != MARK_BEFORE:
            hits.append(Hit(probe_id=ident, insns=0, cycles=t))
    end = TraceEnd(status=0, total_insns=0, total_cycles=t)
    return Trace(version=0, probe_base=probe_base, probe_size=probe_size, has_cycles=True,
                 hits=tuple(hits), end=end, has_insns=False)


def decode_console(data: bytes) -> tuple[str, int]:
    """The RAM console's text and the number of bytes lost before it (the ring kept the
    last ``size`` bytes)."""
    if len(data) < CONSOLE_HEADER:
        return "", 0
    magic, size, written = struct.unpack_from("<3I", data, 0)
    if magic != CONSOLE_MAGIC or size == 0:
        return "", 0
    body = data[CONSOLE_HEADER: CONSOLE_HEADER + size]
    if written <= size:
        raw = body[:written]
        lost = 0
    else:
        start = written % size
        raw = body[start:] + body[:start]
        lost = written - size
    return raw.decode(errors="replace"), lost
