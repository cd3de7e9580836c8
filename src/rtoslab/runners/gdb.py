"""Run buffer-mode images on a board (or an emulator's GDB stub) through a GDB server.

The client is Debian's ``gdb-multiarch`` driven through its machine interface (GDB/MI,
parsed by PyPI ``pygdbmi``): GDB already speaks every server's dialect of the remote
protocol (OpenOCD, pyOCD, J-Link, ST-LINK, QEMU), loads ELF files into flash through the
server's flash support, and reports stops in a structured form; a client of our own would
have to re-implement all of that (docs/boards.md, "Why GDB").

One run: connect to HOST:PORT, check the core is the one the image was built for (CPUID),
reset (the board's reset command; QEMU: system_reset), load the ELF, set SP and PC from
its vector table, put a hardware breakpoint on ``lab_board_halt`` (where
lab_target_exit parks the core), continue, wait at most the run's timeout, then read
``lab_exit_status``, the probe buffer ``lab_probe_buf`` and the RAM console
``lab_console_ram`` from memory. Every failure is one line naming the benchmark.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import socket
import struct
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from elftools.elf.elffile import ELFFile
from elftools.elf.sections import SymbolTableSection

from rtoslab.console import parse_console
from rtoslab.exitcodes import code_of, exit_codes
from rtoslab.records import RtoslabError, Trace
from rtoslab.runners.base import RunOutput, RunRequest
from rtoslab.runners.fault import describe_fault, symbolize
from rtoslab.runners.probe_buffer import (
    BUF_HEADER,
    CLOCK_NAMES,
    CONSOLE_HEADER,
    BufferHeader,
    decode_buffer,
    decode_console,
)
from rtoslab.trace.elf import check_arm_elf, read_elf_section

GDB = "gdb-multiarch"
# CPUID (0xE000ED00) PARTNO, bits 15:4, of the Arm cores a target may name (Arm's TRMs:
# "CPUID Base Register"); the GCC -mcpu names of target.toml.
CPUID_ADDR = 0xE000ED00
_PARTNO = {0xC20: "cortex-m0", 0xC60: "cortex-m0plus", 0xC23: "cortex-m3", 0xC24: "cortex-m4",
           0xC27: "cortex-m7", 0xD21: "cortex-m33", 0xD20: "cortex-m23"}
_CONNECT_S = 10.0
_SYMBOLS = ("lab_probe_buf", "lab_console_ram", "lab_exit_status", "lab_board_halt",
            "lab_probe_buf_drain")


def parse_server(text: str) -> tuple[str, int]:
    """``HOST:PORT`` -> (host, port); one line naming the fix when it is not that."""
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise RtoslabError(f"--gdb-server {text!r}: give HOST:PORT of the board's GDB server, "
                           "e.g. localhost:3333 (OpenOCD) or localhost:3333 (pyOCD gdbserver)")
    return host, int(port)


@dataclass(frozen=True)
class Symbols:
    """Addresses and sizes of the symbols the runner reads."""

    table: dict[str, tuple[int, int]] = field(default_factory=dict)

    @classmethod
    def of(cls, elf: Path) -> Symbols:
        out: dict[str, tuple[int, int]] = {}
        with elf.open("rb") as stream:
            for section in ELFFile(stream).iter_sections():
                if isinstance(section, SymbolTableSection):
                    for sym in section.iter_symbols():
                        if sym.name in _SYMBOLS:
                            code = sym["st_info"]["type"] == "STT_FUNC"
                            out[sym.name] = (sym["st_value"] & ~1 if code else sym["st_value"],
                                             sym["st_size"])
        return cls(out)

    def addr(self, name: str) -> int:
        return self.table[name][0]

    def size(self, name: str) -> int:
        return self.table[name][1]


class GdbSession:
    """One gdb-multiarch process under GDB/MI."""

    def __init__(self, elf: Path | None, gdb: str = GDB) -> None:
        from pygdbmi.gdbcontroller import GdbController  # (imported late: only this runner needs it)

        cmd = [gdb, "--nx", "--quiet", "--interpreter=mi3", *([str(elf)] if elf else [])]
        self._gdb = GdbController(command=cmd, time_to_check_for_additional_output_sec=0.05)
        self._pending: list[dict[str, Any]] = []  # records read after a command's result

    def _records(self, timeout_s: float) -> list[dict[str, Any]]:
        if self._pending:
            out, self._pending = self._pending, []
            return out
        return list(self._gdb.get_gdb_response(timeout_sec=timeout_s, raise_error_on_timeout=False))

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._gdb.exit()

    def command(self, cmd: str, timeout_s: float = _CONNECT_S) -> tuple[str, list[dict[str, Any]]]:
        """Send one MI command; (result class, every record) once its result record arrives.
        An ``error`` result raises RtoslabError with GDB's message."""
        records: list[dict[str, Any]] = []
        responses = self._gdb.write(cmd, timeout_sec=0, raise_error_on_timeout=False, read_response=False)
        del responses
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            batch = self._records(0.1)
            for i, r in enumerate(batch):
                records.append(r)
                if r.get("type") == "result":
                    self._pending = batch[i + 1:] + self._pending
                    if r.get("message") == "error":
                        payload = r.get("payload") or {}
                        raise RtoslabError(str(payload.get("msg", "error")).strip())
                    return str(r.get("message")), records
        raise TimeoutError(cmd)

    def wait_stop(self, timeout_s: float) -> dict[str, Any] | None:
        """The payload of the next ``*stopped`` record, or None after ``timeout_s``."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            batch = self._records(0.2)
            for i, r in enumerate(batch):
                if r.get("type") == "notify" and r.get("message") == "stopped":
                    self._pending = batch[i + 1:] + self._pending
                    return dict(r.get("payload") or {})
        return None

    def console_text(self, cmd: str, timeout_s: float = _CONNECT_S) -> str:
        """A CLI command's console output (e.g. ``monitor info version``)."""
        _, records = self.command(f'-interpreter-exec console "{cmd}"', timeout_s)
        return "".join(str(r.get("payload") or "") for r in records if r.get("type") in ("console", "target"))

    def read_memory(self, addr: int, size: int) -> bytes:
        _, records = self.command(f"-data-read-memory-bytes {addr:#x} {size}", 30.0)
        for r in records:
            if r.get("type") == "result":
                memory = (r.get("payload") or {}).get("memory") or []
                return b"".join(bytes.fromhex(m["contents"]) for m in memory)
        return b""

    def read_u32(self, addr: int) -> int:
        data = self.read_memory(addr, 4)
        if len(data) != 4:
            raise RtoslabError(f"could not read memory at {addr:#010x}")
        return int(struct.unpack("<I", data)[0])


class GdbRunner:
    """Runs buffer-mode images through a GDB server, one at a time (one board)."""

    name = "gdb"

    def __init__(self, server: str, reset: str | None = None, gdb: str = GDB) -> None:
        self.server = server
        self.host, self.port = parse_server(server)
        self.reset = reset  # the board's reset command (None: by the server found)
        self.gdb = gdb
        self._lock = threading.Lock()
        self._live: GdbSession | None = None
        self._emulator: str | None = None  # QEMU's version when the server is QEMU's gdbstub

    def cancel(self) -> None:
        live = self._live
        if live is not None:
            live.close()

    def preflight(self) -> None:
        """gdb-multiarch installed; the server accepts a connection."""
        if shutil.which(self.gdb) is None:
            raise RtoslabError(f"{self.gdb} not found: run `make setup` (Debian package gdb-multiarch)")
        try:
            with socket.create_connection((self.host, self.port), timeout=_CONNECT_S):
                pass
        except ConnectionRefusedError:
            raise RtoslabError(f"GDB server {self.server} refused the connection: start the board's "
                               "GDB server (OpenOCD or pyOCD: the target's README.md) or fix "
                               "--gdb-server") from None
        except OSError as e:
            raise RtoslabError(f"GDB server {self.server} cannot be reached ({e.strerror or e}): "
                               "start it or fix --gdb-server") from None
        self.probe_server()

    def measured_on(self, target: str) -> str:
        """``hardware:<target>``, or ``emulator:<version>`` when the server is QEMU's gdbstub
        (it answers ``monitor info version``); a record never claims a chip it did not see."""
        return f"emulator:qemu {self._emulator}" if self._emulator else f"hardware:{target}"

    def probe_server(self) -> None:
        """Ask the server what it is: QEMU's gdbstub answers `monitor info version` with its
        version; a board's server (OpenOCD, pyOCD, ...) has no such command."""
        session = GdbSession(None, self.gdb)
        try:
            self._connect(session, "gdb")
            try:
                text = session.console_text("monitor info version").strip()
            except RtoslabError:
                text = ""
            m = re.match(r"(\d+\.\d+\.\d+)", text)
            self._emulator = m.group(1) if m else None
            session.command("-target-disconnect")
        except TimeoutError:
            raise RtoslabError(f"the GDB server {self.server} did not answer: is it a GDB server?") from None
        finally:
            session.close()

    def _connect(self, session: GdbSession, name: str) -> None:
        session.command("-gdb-set mi-async on")  # so -exec-interrupt works while the core runs
        session.command("-gdb-set confirm off")
        session.command("-gdb-set pagination off")
        session.command("-gdb-set remotetimeout 10")
        try:
            session.command(f"-target-select remote {self.host}:{self.port}", _CONNECT_S * 2)
        except (RtoslabError, TimeoutError) as e:
            msg = str(e)
            if "refused" in msg.lower():
                raise RtoslabError(f"{name}: GDB server {self.server} refused the connection: start "
                                   "the board's GDB server or fix --gdb-server") from None
            raise RtoslabError(f"{name}: cannot connect to the GDB server {self.server}: {msg}") from None

    def run(self, req: RunRequest) -> RunOutput:
        with self._lock:
            return self._run(req)

    def _run(self, req: RunRequest) -> RunOutput:
        name = req.benchmark
        if not req.elf.is_file():
            raise RtoslabError(f"{name}: ELF {req.elf} does not exist: build it first")
        check_arm_elf(req.elf)
        syms = Symbols.of(req.elf)
        missing = [s for s in _SYMBOLS if s not in syms.table]
        if missing:
            raise RtoslabError(f"{name}: {req.elf.name} is not a buffer-mode image (no {missing[0]}): "
                               "build it with --probe buffer (or for a board target) to run it "
                               "through a GDB server")
        vectors = read_elf_section(req.elf, ".vectors") or b""
        if len(vectors) < 8:
            raise RtoslabError(f"{name}: {req.elf.name} has no vector table (.vectors)")
        sp0, pc0 = struct.unpack_from("<2I", vectors, 0)
        start = time.monotonic()
        session = GdbSession(req.elf, self.gdb)
        self._live = session
        try:
            return self._session(req, session, syms, sp0, pc0, start)
        except TimeoutError as e:
            raise RtoslabError(f"{name}: the GDB server {self.server} did not answer {e}") from None
        finally:
            self._live = None
            session.close()

    def _session(self, req: RunRequest, s: GdbSession, syms: Symbols, sp0: int, pc0: int,
                 start: float) -> RunOutput:
        name = req.benchmark
        self._connect(s, name)
        cpuid = s.read_u32(CPUID_ADDR)
        core = _PARTNO.get((cpuid >> 4) & 0xFFF)
        want = req.target.spec.cpu
        if core is not None and core != want:
            raise RtoslabError(f"{name}: wrong ELF for the board: the core at {self.server} is a "
                               f"{core} (CPUID {cpuid:#010x}), the image is for {req.target.name} "
                               f"({want}): build for the board's target")
        reset = self.reset or ("monitor system_reset" if self._emulator else "monitor reset halt")
        s.console_text(reset, 30.0)
        try:
            s.command("-target-download", 300.0)
        except RtoslabError as e:
            raise RtoslabError(f"{name}: loading {req.elf.name} onto the board at {self.server} "
                               f"failed ({e}): is it the board the image was built for "
                               f"({req.target.name})?") from None
        s.command(f"-data-evaluate-expression \"$sp = {sp0:#x}\"")
        s.command(f"-data-evaluate-expression \"$pc = {pc0 & ~1:#x}\"")
        s.command(f"-break-insert -h *{syms.addr('lab_board_halt'):#x}")
        full = syms.addr("lab_probe_buf_drain")
        s.command(f"-break-insert -h *{full:#x}")
        bbase = syms.addr("lab_probe_buf")
        first = bbase + BUF_HEADER
        timeout = hang_timeout(req)
        deadline = time.monotonic() + timeout
        drained: list[bytes] = []  # entries copied out at each drain, in order
        hung_at: int | None = None
        while True:
            s.command("-exec-continue")
            stop = s.wait_stop(max(0.0, deadline - time.monotonic()))
            if stop is None:
                s.command("-exec-interrupt")
                s.wait_stop(10.0)
                hung_at = int(s.console_text("output/x $pc").split("=")[-1].strip() or "0", 0)
                break
            if stop.get("reason") == "breakpoint-hit" and _frame_addr(stop) == full:
                # The buffer is full: copy the entries out and make room (docs/boards.md).
                head = BufferHeader.parse(s.read_memory(bbase, BUF_HEADER))
                drained.append(s.read_memory(first, 8 * head.entries(bbase)))
                s.command(f"-data-write-memory-bytes {bbase + 8:#x} {struct.pack('<I', first).hex()}")
                continue
            break
        wall = time.monotonic() - start
        status = struct.unpack("<i", s.read_memory(syms.addr("lab_exit_status"), 4))[0]
        cbase, csize = syms.addr("lab_console_ram"), syms.size("lab_console_ram")
        console, lost = decode_console(s.read_memory(cbase, max(csize, CONSOLE_HEADER)))
        header = BufferHeader.parse(s.read_memory(bbase, BUF_HEADER))
        n = min(header.entries(bbase), header.capacity)
        entries = b"".join(drained) + (s.read_memory(first, 8 * n) if n else b"")
        s.command("-target-disconnect")
        report = parse_console(console)
        if hung_at is not None:
            where = symbolize(req.elf, hung_at)
            return self._failed(req, None, console, wall,
                                f"{name}: hang: no end within {timeout:g} s wall time on {self.server} "
                                f"(pc {hung_at:#010x}{f' in {where}' if where else ''})")
        assert stop is not None
        if stop.get("reason") != "breakpoint-hit":
            frame = stop.get("frame") or {}
            meaning = stop.get("signal-meaning")
            return self._failed(req, None, console, wall,
                                f"{name}: the core stopped before the end ({stop.get('reason', 'stopped')}"
                                f"{', ' + str(meaning) if meaning else ''}"
                                f" at {frame.get('addr', '?')} {frame.get('func', '')})".rstrip())
        trace: Trace | None = None
        failure = classify_exit(req, status, report.fault, report.fail, report.done)
        if failure is None and lost:
            failure = (f"{name}: the RAM console lost {lost} bytes (target.toml [probe] console "
                       f"holds {csize - CONSOLE_HEADER}): raise it")
        if failure is None and header.overflow:
            failure = (f"{name}: probe buffer overflow: {header.overflow} hits not stored (the buffer "
                       f"holds {header.capacity} entries: raise [probe] buffer in target.toml)")
        if failure is None:
            try:
                trace = decode_buffer(header, entries, req.target.probe_base, req.target.probe_size)
            except RtoslabError as e:
                failure = f"{name}: {e}"
        return RunOutput(benchmark=name, ok=failure is None, failure=failure, exit_code=status,
                         console=console, trace=trace, wall_s=wall, console_report=report,
                         probe_clock=CLOCK_NAMES.get(header.clock, ""), drains=len(drained))

    def _failed(self, req: RunRequest, status: int | None, console: str, wall: float,
                why: str) -> RunOutput:
        return RunOutput(benchmark=req.benchmark, ok=False, failure=why, exit_code=status,
                         console=console, trace=None, wall_s=wall, console_report=parse_console(console))


def _frame_addr(stop: dict[str, Any]) -> int | None:
    try:
        return int(str((stop.get("frame") or {}).get("addr")), 0)
    except ValueError:
        return None


def hang_timeout(req: RunRequest) -> float:
    """Wall seconds before a board run counts as a hang: the benchmark's instruction limit
    as cycles at the board's clock (a core retires at most one instruction per cycle) three
    times over, at least 5 s, at most the benchmark's timeout_s."""
    bound = 3.0 * req.insn_limit / req.target.clock_hz
    return min(req.timeout_s, max(5.0, bound))


def classify_exit(req: RunRequest, status: int, fault: str | None, fail: str | None,
                  done: bool) -> str | None:
    """One line for a run that reached lab_board_halt with ``status``; None when it is ok."""
    name = req.benchmark
    if status == code_of("FAULT"):
        return f"{name}: {describe_fault(fault, req.elf)}"
    if status == code_of("CHECK_FAILED"):
        return f"{name}: self-check failed: {fail or '?'}"
    if status != code_of("OK"):
        reason = next((c.reason for c in exit_codes().values() if c.code == status), "non-zero exit")
        return f"{name}: {reason} (exit status {status})" + (f": {fail}" if fail else "")
    if not done:
        return f"{name}: exited without the harness's LAB-DONE line"
    return None
