"""The host-side reading of the firmware's fault line (``LAB-FAULT``, firmware/include/lab/fault.h).

The target prints the exception number and the raw registers; this module says what they
mean in one line: ``HardFault (escalated): undefined instruction at 0x000001a4
(t_fault_run+0x4)``, then the raw values for whoever needs them.

Sources for the bits (read, not copied): ARMv7-M Architecture Reference Manual (ARM DDI
0403E), B3.2.15 "Configurable Fault Status Register" (MMFSR bits 0-7, BFSR 8-15, UFSR
16-31) and B3.2.16 "HardFault Status Register"; exception numbers from B1.5.2 (table
B1-4). ARMv6-M cores (Cortex-M0/M0+) have neither register: their CFSR/HFSR read as 0 and
the line says the cause was not recorded.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from elftools.common.exceptions import ELFError
from elftools.elf.elffile import ELFFile
from elftools.elf.sections import SymbolTableSection

_EXCEPTIONS = {2: "NMI", 3: "HardFault", 4: "MemManage fault", 5: "BusFault", 6: "UsageFault",
               11: "SVCall", 12: "DebugMonitor", 14: "PendSV", 15: "SysTick"}

# (bit, meaning) of CFSR, in the order a reader wants them (causes, then how they were seen).
_CFSR_CAUSES = (
    (16, "undefined instruction"),                       # UFSR.UNDEFINSTR
    (17, "invalid state (Thumb bit clear, e.g. a call through a pointer without bit 0)"),  # INVSTATE
    (18, "invalid EXC_RETURN value on exception return"),  # UFSR.INVPC
    (19, "coprocessor access while disabled or absent"),  # UFSR.NOCP
    (24, "unaligned access"),                             # UFSR.UNALIGNED
    (25, "divide by zero"),                               # UFSR.DIVBYZERO
    (0, "instruction fetch from a protected (XN/MPU) region"),  # MMFSR.IACCVIOL
    (1, "data access to a protected (MPU) region"),       # MMFSR.DACCVIOL
    (3, "MPU fault while unstacking on exception return"),  # MMFSR.MUNSTKERR
    (4, "MPU fault while stacking on exception entry (stack overflow?)"),  # MMFSR.MSTKERR
    (5, "MPU fault during lazy FP state preservation"),   # MMFSR.MLSPERR
    (8, "bus error on instruction fetch"),                # BFSR.IBUSERR
    (9, "precise bus error on data access"),              # BFSR.PRECISERR
    (10, "imprecise bus error on data access (the pc is after the access)"),  # BFSR.IMPRECISERR
    (11, "bus error while unstacking on exception return"),  # BFSR.UNSTKERR
    (12, "bus error while stacking on exception entry (stack overflow?)"),  # BFSR.STKERR
    (13, "bus error during lazy FP state preservation"),  # BFSR.LSPERR
)
_MMARVALID = 1 << 7
_BFARVALID = 1 << 15
_HFSR_VECTTBL = 1 << 1
_HFSR_FORCED = 1 << 30
_HFSR_DEBUGEVT = 1 << 31

_FIELD = re.compile(r"([a-z_]+)=(0x[0-9a-fA-F]+|\d+)")


def parse_fault_fields(text: str) -> dict[str, int]:
    """``exception=3 pc=0x1a4 ...`` -> {"exception": 3, "pc": 0x1a4, ...} (unknown text ignored)."""
    return {k: int(v, 0) for k, v in _FIELD.findall(text)}


@cache
def _functions(elf: Path) -> tuple[tuple[int, int, str], ...]:
    """(start, size, name) of every function symbol of an image, Thumb bit cleared."""
    out: list[tuple[int, int, str]] = []
    try:
        with elf.open("rb") as stream:
            for section in ELFFile(stream).iter_sections():
                if not isinstance(section, SymbolTableSection):
                    continue
                for sym in section.iter_symbols():
                    if sym["st_info"]["type"] == "STT_FUNC" and sym.name:
                        out.append((sym["st_value"] & ~1, sym["st_size"], sym.name))
    except (OSError, ELFError):
        return ()
    return tuple(sorted(out))


def symbolize(elf: Path | None, addr: int) -> str | None:
    """``function+0xOFF`` for a code address of ``elf``, or None when no function holds it."""
    if elf is None:
        return None
    addr &= ~1
    best: tuple[int, int, str] | None = None
    for start, size, name in _functions(elf):
        if start <= addr < start + max(size, 1) and (best is None or start >= best[0]):
            best = (start, size, name)
    if best is None:
        return None
    off = addr - best[0]
    return best[2] if off == 0 else f"{best[2]}+{off:#x}"


def describe_fault(text: str | None, elf: Path | None) -> str:
    """One line for a ``LAB-FAULT`` report: the exception, its cause from CFSR/HFSR, where
    (pc, as function+offset from the ELF's symbols), the faulting data address when the
    core recorded one, then the raw fields."""
    if not text:
        return "fault: no fault report on the console"
    f = parse_fault_fields(text)
    exc = f.get("exception")
    name = "fault" if exc is None else _EXCEPTIONS.get(exc, f"exception {exc}")
    if exc is not None and exc >= 16:
        name = f"IRQ {exc - 16} (exception {exc}) with no handler"
    cfsr, hfsr = f.get("cfsr", 0), f.get("hfsr", 0)
    causes = [what for bit, what in _CFSR_CAUSES if cfsr & (1 << bit)]
    if hfsr & _HFSR_VECTTBL:
        causes.append("bus error reading the vector table")
    if hfsr & _HFSR_DEBUGEVT:
        causes.append("debug event")
    if exc == 3 and hfsr & _HFSR_FORCED:
        name += " (escalated)"
    head = name + ": " + ("; ".join(causes) if causes else
                          "cause not recorded (no fault status bits set; ARMv6-M cores have none)")
    if "pc" in f:
        where = symbolize(elf, f["pc"])
        head += f" at {f['pc']:#010x}" + (f" ({where})" if where else "")
    if cfsr & _MMARVALID and "mmfar" in f:
        head += f", data address {f['mmfar']:#010x}"
    elif cfsr & _BFARVALID and "bfar" in f:
        head += f", data address {f['bfar']:#010x}"
    if "lr" in f:
        caller = symbolize(elf, f["lr"])
        if caller:
            head += f", lr in {caller}"
    return f"{head} [{text.strip()}]"
