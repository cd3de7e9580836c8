"""Run firmware under qemu-system-arm with the rtoslab plugin (deterministic icount)."""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import signal
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO

from rtoslab.console import ConsoleReport, parse_console
from rtoslab.exitcodes import code_of, exit_codes
from rtoslab.paths import is_no_space, low_on_space, no_space_error, plugin_path, says_no_space
from rtoslab.records import EndStatus, RtoslabError, Trace
from rtoslab.runners.base import RunOutput, RunRequest
from rtoslab.runners.fault import describe_fault
from rtoslab.timing import description
from rtoslab.tools import check_one_clock, check_qemu, qemu_binary
from rtoslab.trace.elf import check_arm_elf, elf_machine, read_elf_section, read_elf_symbol
from rtoslab.trace.reader import read_trace


def exit_reason(code: int) -> str:
    """What a run that exited with ``code`` failed of: the firmware's statuses from their
    one declaration (firmware/include/lab/exit.h, via rtoslab.exitcodes) and the plugin's
    hang status from its description."""
    if code == description().exit_insn_limit:
        return "hang"
    return next((c.reason for c in exit_codes().values() if c.code == code), "non-zero exit")


ICOUNT = "shift=0,align=off,sleep=off"

# The console kept per benchmark run: its first and its last half of this many bytes (the
# protocol lines, LAB-KV and LAB-DONE, come at the end); what lies between is left out
# with a line saying how much, and the result records the count (``console_dropped``).
CONSOLE_KEEP_BYTES = 256 << 10  # the largest console of any benchmark here is ~6 KB
STDERR_KEEP_BYTES = 64 << 10  # QEMU's and the plugin's messages: the last of them


class CappedStream:
    """The first ``head`` and the last ``tail`` bytes of a stream read to its end, in
    bounded memory; ``dropped`` counts the bytes between them that were left out."""

    def __init__(self, head: int, tail: int) -> None:
        self.head_cap, self.tail_cap = head, tail
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0

    def feed(self, chunk: bytes) -> None:
        room = self.head_cap - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        self.tail += chunk
        if len(self.tail) > 2 * self.tail_cap:  # trimmed now and then: amortised O(1)
            cut = len(self.tail) - self.tail_cap
            self.dropped += cut
            del self.tail[:cut]

    def drain(self, stream: IO[bytes] | None) -> None:
        """Read ``stream`` to its end (a reader thread's body)."""
        if stream is None:
            return
        with contextlib.suppress(OSError, ValueError):
            while chunk := stream.read1(1 << 16):  # type: ignore[attr-defined]
                self.feed(chunk)

    def text(self, what: str) -> str:
        if len(self.tail) > self.tail_cap:
            cut = len(self.tail) - self.tail_cap
            self.dropped += cut
            del self.tail[:cut]
        if not self.dropped:
            return (bytes(self.head) + bytes(self.tail)).decode(errors="replace")
        note = (f"\n[rtoslab: {self.dropped} bytes of {what} left out here: rtoslab keeps the first "
                f"{self.head_cap} and the last {self.tail_cap} bytes of a run]\n")
        return bytes(self.head).decode(errors="replace") + note + bytes(self.tail).decode(errors="replace")

# Child-process lifetime: QEMU must die with rtoslab, also when rtoslab is killed with
# SIGKILL (no handler runs then). Linux's prctl(PR_SET_PDEATHSIG) has the kernel send the
# child SIGKILL when the thread that started it ends; elsewhere, nothing is set.
_PR_SET_PDEATHSIG = 1
try:
    _prctl = ctypes.CDLL(None, use_errno=True).prctl if sys.platform.startswith("linux") else None
except (OSError, AttributeError):
    _prctl = None


def _die_with_parent(parent_pid: int) -> None:
    """preexec_fn of the QEMU child (runs between fork and exec): ask for SIGKILL when the
    parent ends, and end at once if it has already ended (the race before prctl)."""
    if _prctl is not None:
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent_pid:
            os._exit(137)


def avr_vectors(elf: Path) -> list[int]:
    """The interrupt vector addresses of an AVR image (avr-libc's ``.vectors``: one
    two-word JMP per vector, the reset vector at 0 first), reset left out: where the
    plugin's AVR model charges the interrupt response (docs/timing-model.md, "AVR")."""
    data = read_elf_section(elf, ".vectors") or b""
    return list(range(4, len(data) - len(data) % 4, 4))


def exception_handlers(elf: Path) -> list[int]:
    """Exception handler entry addresses of an image, for the plugin's timing model.

    The vector table (section ``.vectors``: entries after the initial stack pointer) and
    the handlers the firmware lists with LAB_ISR (non-loaded section ``.lab_isr``), Thumb
    bit cleared, without zeros, sorted and unique (docs/timing-model.md). An AVR image: its
    interrupt vectors (``avr_vectors``).
    """
    if elf_machine(elf) == "EM_AVR":
        return avr_vectors(elf)
    addrs: set[int] = set()
    for name, skip in ((".vectors", 1), (".lab_isr", 0)):
        data = read_elf_section(elf, name) or b""
        words = struct.unpack(f"<{len(data) // 4}I", data[: len(data) // 4 * 4])
        addrs.update(w & ~1 for w in words[skip:] if w)
    return sorted(addrs)


def events_file(trace_path: Path) -> Path:
    """The exception event file written beside a trace when the timeline is on."""
    return trace_path.with_suffix(".events")


def irq_windows_path(trace_path: Path) -> Path:
    """Where the plugin writes the masked-window report, beside the trace."""
    return trace_path.with_suffix(".irqwin.json")


def qemu_command(req: RunRequest, trace_path: Path, plugin: Path) -> list[str]:
    """The exact QEMU command line for a request (also shown by `rtoslab run -v`)."""
    plugin_args = [
        f"trace={trace_path}",
        f"base={req.target.probe_base:#x}",
        f"size={req.target.probe_size:#x}",
        f"insn_limit={req.insn_limit}",
    ]
    # The exception event file needs the plugin's exception model (Cortex-M only: an AVR
    # guest has no NVIC, so its timeline has the task lanes alone; docs/timeline.md).
    if req.events and str(req.model.get("core", "none")) != "none" and req.target.arch != "avr":
        plugin_args.append(f"events={events_file(trace_path)}")
    model = dict(req.model)
    if str(model.get("core", "none")) != "none" and "handlers" not in model:
        # The timing model recognises exception entries and returns by handler address.
        model["handlers"] = ";".join(f"{a:#x}" for a in exception_handlers(req.elf))
    for key, value in sorted(model.items()):
        plugin_args.append(f"{key}={value}")
    if req.irq_windows:
        plugin_args += [f"irq_windows={irq_windows_path(trace_path)}",
                        f"prio_bits={req.target.spec.nvic_prio_bits}"]
    avr = req.target.arch == "avr"
    if avr:
        # No semihosting on AVR: the plugin's exit window ends the run; -bios loads the
        # ELF into the program flash.
        plugin_args.append(f"exit={req.target.spec.exit_window:#x}")
    # No audio backend: the boards have no audio device, and probing the default backends
    # can load another QEMU's modules where two versions are installed.
    machine = ["-M", req.target.qemu_machine, "-display", "none", "-audio", "none",
               "-monitor", "none", "-serial", "stdio"]
    plugin_arg = ["-plugin", ",".join([str(plugin), *plugin_args])]
    if avr:
        return [qemu_binary("avr"), *machine, "-icount", ICOUNT, "-bios", str(req.elf), *plugin_arg]
    return [qemu_binary(), *machine, "-semihosting-config", "enable=on,target=native",
            "-icount", ICOUNT, "-kernel", str(req.elf), *plugin_arg]


def classify(req: RunRequest, exit_code: int | None, console: ConsoleReport, trace: Trace | None,
             timed_out: bool) -> str | None:
    """One line saying why a run failed, or None when it succeeded."""
    name = req.benchmark
    if timed_out:
        return (f"{name}: hang: no exit within {req.timeout_s:g} s wall time "
                "(raise timeout_s in bench.toml if the benchmark is just long)")
    if trace is not None and trace.end is not None:
        status = trace.end.status
        if status & EndStatus.INSN_LIMIT:
            return (f"{name}: hang: still running after {req.insn_limit} guest instructions "
                    "(raise insn_limit in bench.toml if the benchmark is just long)")
        if status & EndStatus.RECORD_LIMIT:
            return f"{name}: probe-region overflow: too many probe hits for the plugin's record limit"
        if status & EndStatus.UNALIGNED_PROBE:
            return f"{name}: a store hit the probe region at an unaligned address (stray pointer?)"
    if exit_code == code_of("FAULT"):
        return f"{name}: {describe_fault(console.fault, req.elf)}"
    if exit_code == code_of("CHECK_FAILED"):
        return f"{name}: self-check failed: {console.fail or '?'}"
    if exit_code not in (code_of("OK"), None):
        reason = exit_reason(exit_code)
        detail = console.fail
        return f"{name}: {reason} (exit status {exit_code})" + (f": {detail}" if detail else "")
    if trace is None or trace.end is None:
        return f"{name}: the trace is incomplete: QEMU stopped before the plugin finished writing it"
    if not console.done:
        return f"{name}: exited without the harness's LAB-DONE line"
    return None


class QemuRunner:
    """Runs images under QEMU. Thread-safe: several runs may be in progress at once."""

    name = "qemu"

    def measured_on(self, target: str) -> str:
        return "model"

    def __init__(self) -> None:
        self._live: set[subprocess.Popen[bytes]] = set()
        self._lock = threading.Lock()

    def cancel(self) -> None:
        with self._lock:
            for proc in self._live:
                proc.kill()

    def preflight(self) -> None:
        """Fail early, with the fix, when QEMU (or a usable version of it) or the plugin is
        missing."""
        check_qemu()
        plugin = plugin_path()
        if not plugin.is_file():
            raise RtoslabError(f"rtoslab plugin not built ({plugin}): run `make setup`")

    def run(self, req: RunRequest) -> RunOutput:
        if not req.elf.is_file():
            raise RtoslabError(f"{req.benchmark}: ELF {req.elf} does not exist: build it first")
        check_arm_elf(req.elf)
        if read_elf_symbol(req.elf, "lab_probe_buf") is not None:
            raise RtoslabError(f"{req.benchmark}: {req.elf.name} is a buffer-mode image (--probe "
                               "buffer): run it with --runner gdb --gdb-server HOST:PORT")
        self.preflight()
        if req.target.qemu_system != "arm" and shutil.which(qemu_binary(req.target.qemu_system)) is None:
            raise RtoslabError(f"qemu-system-{req.target.qemu_system} not found (target {req.target.name}): "
                               "run `make setup` (it installs qemu-system-misc)")
        if "time_hz" in req.model:
            check_one_clock(req.target.qemu_system)
        plugin = plugin_path()
        trace_path = req.work_dir / f"{req.benchmark}.trace"
        try:
            req.work_dir.mkdir(parents=True, exist_ok=True)
            trace_path.unlink(missing_ok=True)
            events_file(trace_path).unlink(missing_ok=True)
            irq_windows_path(trace_path).unlink(missing_ok=True)
        except OSError as oserr:
            if is_no_space(oserr):
                raise no_space_error(req.work_dir, "the trace cache") from oserr
            raise RtoslabError(f"{req.benchmark}: cannot prepare {oserr.filename or req.work_dir} "
                               f"({oserr.strerror}): point RTOSLAB_CACHE at a writable folder") from oserr
        cmd = qemu_command(req, trace_path, plugin)
        start = time.monotonic()
        timed_out = False
        parent = os.getpid()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, preexec_fn=lambda: _die_with_parent(parent))
        with self._lock:
            self._live.add(proc)
        # Streamed, not accumulated: a firmware that prints without end keeps at most
        # CONSOLE_KEEP_BYTES of console (its start and its end) in memory and in the store.
        out = CappedStream(CONSOLE_KEEP_BYTES // 2, CONSOLE_KEEP_BYTES // 2)
        err = CappedStream(0, STDERR_KEEP_BYTES)
        readers = [threading.Thread(target=s.drain, args=(f,), daemon=True)
                   for s, f in ((out, proc.stdout), (err, proc.stderr))]
        for r in readers:
            r.start()
        try:
            proc.wait(timeout=req.timeout_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            timed_out = True
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        finally:
            for r in readers:
                r.join()
            with self._lock:
                self._live.discard(proc)
        wall = time.monotonic() - start
        console = out.text("console")
        stderr = err.text("stderr").strip()
        trace: Trace | None = None
        trace_error: str | None = None
        if trace_path.exists():
            try:
                trace = read_trace(trace_path)
            except RtoslabError as e:
                trace_error = str(e)
        exit_code = None if timed_out else proc.returncode
        console_report = parse_console(console)
        failure = classify(req, exit_code, console_report, trace, timed_out)
        if failure is None and trace_error:
            failure = f"{req.benchmark}: {trace_error}"
        cut_short = trace is None or trace.end is None
        if failure and (says_no_space(stderr) or (cut_short and low_on_space(req.work_dir))):
            # the plugin could not write its trace: the machine's fault, not the benchmark's
            raise no_space_error(req.work_dir, "the trace cache")
        known = (code_of("OK"), code_of("CHECK_FAILED"), code_of("FAULT"), description().exit_insn_limit)
        if failure and exit_code not in known and stderr and not timed_out:
            failure += f" [qemu: {stderr.splitlines()[-1][:200]}]"
        events = events_file(trace_path)
        windows: str | None = None
        if req.irq_windows and irq_windows_path(trace_path).is_file():
            windows = irq_windows_path(trace_path).read_text()
        return RunOutput(req.benchmark, failure is None, failure, exit_code, console, trace, wall,
                         console_report, events if events.is_file() else None, irq_windows=windows,
                         console_dropped=out.dropped)
