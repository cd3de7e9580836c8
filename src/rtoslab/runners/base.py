"""The runner interface: execute one firmware image, return its raw outputs.

A runner never interprets samples; it returns the trace and console so that analysis can
be tested on recorded data alone. Every failure is classified into one line naming the
benchmark and the cause.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from rtoslab.catalog import Target
from rtoslab.console import ConsoleReport
from rtoslab.records import Trace


@dataclass(frozen=True)
class RunRequest:
    benchmark: str
    elf: Path
    target: Target
    work_dir: Path  # where the runner may write its trace
    insn_limit: int  # stop the guest after this many instructions (a hang)
    timeout_s: float  # wall-clock limit
    model: dict[str, object]  # timing-model settings for the plugin
    events: bool = False  # also write the exception event file (the timeline; docs/timeline.md)
    irq_windows: bool = False  # also track masked windows (docs/irq-windows.md)


@dataclass(frozen=True)
class RunOutput:
    benchmark: str
    ok: bool
    failure: str | None  # one line: what went wrong; None when ok
    exit_code: int | None
    console: str
    trace: Trace | None
    wall_s: float  # host wall-clock seconds of the emulator process
    console_report: ConsoleReport = field(default_factory=ConsoleReport)  # its protocol lines, parsed
    events_path: Path | None = None  # the exception event file, when the request asked for it
    irq_windows: str | None = None  # the plugin's masked-window report (docs/formats.md §9)
    console_dropped: int = 0  # console bytes left out (the runner keeps a bounded amount)
    probe_clock: str = ""  # buffer mode: the clock the probes read ("dwt", "systick"; docs/boards.md)
    drains: int = 0  # buffer mode: times the runner emptied the full probe buffer


class Runner(Protocol):
    name: str

    def measured_on(self, target: str) -> str:
        """What the results were measured on, as the identity stores it: ``model`` (the
        QEMU plugin), ``hardware:<target>`` or ``emulator:<version>`` (a GDB server)."""
        ...

    def preflight(self) -> None:
        """Raise RtoslabError (with the fix) if the runner cannot run anything here."""
        ...

    def cancel(self) -> None:
        """Stop every run in progress (called from another thread on interruption)."""
        ...

    def run(self, request: RunRequest) -> RunOutput:
        """Run the image to completion. Blocks for at most request.timeout_s (+ a second)."""
        ...
