"""Targets: target.toml, checked by rtoslab.schema: every fact about a target lives there
once and reaches the firmware build as CMake variables (builder/cmake.py,
target_cmake_args)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Literal

from rtoslab.catalog.common import choices
from rtoslab.records import RtoslabError
from rtoslab.schema import parse_file

# target.toml, checked by rtoslab.schema: every fact about a target lives there once and
# reaches the firmware build as CMake variables (builder/cmake.py, target_cmake_args).

_MEMORY_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CPU_WORD = re.compile(r"[a-z0-9][a-z0-9.+-]*")
FLOAT_ABIS = ("soft", "softfp", "hard")


PROBE_MODES = ("region", "buffer")


@dataclass(frozen=True)
class ProbeRegion:
    """[probe]: how probes are recorded (lab/probe.h, "Probe modes"; docs/boards.md).

    ``mode`` "region": stores into the region [base, base + size) that the QEMU plugin
    watches; "buffer": (id, timestamp) entries in a RAM buffer of ``buffer`` entries that
    the GDB runner reads, with a RAM console of ``console`` bytes. ``size`` / 4 is the id
    space in both modes."""

    base: int
    size: int
    mode: Literal["region", "buffer"] = "region"
    buffer: int = 2048  # entries of the RAM probe buffer (buffer mode): a board fact
    console: int = 2048  # bytes of the RAM console (buffer mode)


@dataclass(frozen=True)
class BoardFacts:
    """[board]: how a real board is reached (the GDB runner; docs/boards.md). Absent on
    emulator-only targets."""

    part: str  # the chip, e.g. "STM32F103C8"
    gdb_server: str = "localhost:3333"  # HOST:PORT of its GDB server (OpenOCD's default)
    # The emulator target whose QEMU machine runs the model side of `rtoslab validate
    # --board` (same core family), with this board's core, clock and flash settings.
    model_target: str = ""


@dataclass(frozen=True)
class MemoryRegion:
    """One [[memory]] entry: a MEMORY region of the linker script (memory.ld)."""

    name: str
    kind: Literal["flash", "sram", "external"]
    base: int
    size: int

    @property
    def end(self) -> int:
        return self.base + self.size


@dataclass(frozen=True)
class FootprintSections:
    """[footprint]: how each output section of the linker script counts in a footprint.

    Entries are section names or fnmatch patterns (".debug_*")."""

    flash: tuple[str, ...] = ()
    ram: tuple[str, ...] = ()
    both: tuple[str, ...] = ()  # in RAM, and its initial values in flash
    stack: tuple[str, ...] = ()  # reserved stack: counted whole in RAM as component "stack"
    ignore: tuple[str, ...] = ()

    def kind_of(self, section: str) -> str | None:
        """The list (key) that names `section`, or None."""
        for key in ("flash", "ram", "both", "stack", "ignore"):
            if any(fnmatchcase(section, pat) for pat in getattr(self, key)):
                return key
        return None


@dataclass(frozen=True)
class FlashLatency:
    """[flash_latency]: the part's rule for flash wait states against the core clock
    (docs/timing-model.md, "Wait states follow the clock"). ``max_hz[n]`` is the highest
    clock, in Hz, at which ``n`` wait states suffice; a clock above the last is beyond the
    part. Without ``flash_ws`` given, a configuration's flash_ws is the smallest ``n`` whose
    limit is at or above its clock_hz."""

    part: str  # the part the rule is for, e.g. "STM32F405" (named when a clock is refused)
    source: str  # where the rule comes from, short: shown in report footers
    max_hz: tuple[int, ...]

    def wait_states(self, clock_hz: int) -> int | None:
        """The wait states at ``clock_hz``; None above the part's last limit."""
        return next((n for n, top in enumerate(self.max_hz) if clock_hz <= top), None)

    def text(self) -> str:
        """One line for `rtoslab list`: ``0/1/2 WS up to 24/48/72 MHz (RM0008 ...)``."""
        counts = "/".join(str(n) for n in range(len(self.max_hz)))
        tops = "/".join(f"{hz / 1e6:g}" for hz in self.max_hz)
        return f"{counts} WS up to {tops} MHz ({self.source})"


@dataclass(frozen=True)
class TargetFile:
    """The schema of firmware/targets/<name>/target.toml."""

    qemu_machine: str
    cpu: str
    clock_hz: int
    probe: ProbeRegion
    memory: tuple[MemoryRegion, ...]
    footprint: FootprintSections
    description: str = ""
    # The architecture: "cortex-m" (arm-none-eabi-gcc, qemu-system-arm, firmware/arch/cortex-m/)
    # or "avr" (avr-gcc with avr-libc, qemu-system-avr, firmware/arch/avr/).
    arch: Literal["cortex-m", "avr"] = "cortex-m"
    # Implemented NVIC priority bits (Cortex-M: required, 1..8; AVR: none, 0).
    nvic_prio_bits: int = 0
    # AVR: the data-space window whose stores end QEMU with the offset as exit status (the
    # plugin's exit=; C: LAB_TARGET_EXIT_WINDOW); -1: none (Cortex-M targets use semihosting).
    exit_window: int = -1
    fpu: str = "none"
    float_abi: Literal["soft", "softfp", "hard"] = "soft"
    # [timing]: this target's timing-model settings (docs/timing-model.md): any of the
    # plugin's settings (`rtoslab list`), each checked against the plugin's description
    # when a configuration on the target is validated; flash / sram default to the
    # [[memory]] regions of that kind.
    timing: dict[str, object] = field(default_factory=dict)
    # Rust's target triple for this core (e.g. thumbv7m-none-eabi), for Rust kernel ports
    # (docs/rust-models.md); "" = no Rust images for this target.
    rust_target: str = ""
    # The highest device interrupt line no device drives: lab_target_irq_soft(0); lines
    # irq_soft_top-0..-3 are the free ones (LAB_TARGET_IRQ_SOFT_TOP for C; RTIC's device
    # crate names them at compile time). Required.
    irq_soft_top: int = -1
    # [lacks]: board features (TARGET_FEATURES) this target does not have, each with the
    # reason; a benchmark that `needs` one is n/a here with that reason.
    lacks: dict[str, str] = field(default_factory=dict)
    # Processor cores of the board (C: LAB_TARGET_CORES; lab/target.h "cores"): core 0 runs
    # the harness, the others start through lab_target_core_start(). A benchmark with
    # bench.toml min_cores above it is n/a here.
    cores: int = 1
    # [flash_latency]: flash wait states follow the clock by the part's rule (None: no rule,
    # flash_ws stays the [timing] default whatever the clock).
    flash_latency: FlashLatency | None = None
    # [board]: a real board reached through a GDB server (None: an emulator target).
    board: BoardFacts | None = None


# Board features a benchmark may need beyond lab/target.h's guaranteed functions
# (bench.toml `needs`, target.toml [lacks]).
TARGET_FEATURES: dict[str, str] = {
    "timer": "a periodic benchmark timer interrupt (lab_target_timer_start)",
    "bulk": "bulk memory of megabytes beside the MCU's RAM (LAB_TARGET_BULK)",
    # Not declared in [lacks]: a target lacks it exactly when its target.toml says fpu = "none".
    "fpu": "a floating-point unit the image may use (target.toml fpu other than none)",
    # Not declared in [lacks] either: derived from target.toml cpu (THUMB1_CPUS).
    # Not declared either: derived from target.toml arch (lacked by every non-Arm target).
    "thumb": "the Arm Thumb instruction set (Arm assembly sources or inline Arm instructions)",
    "irq_lines": "device interrupt lines installed at run time and raised by software "
                 "(lab_target_irq_install, lab_target_irq_trigger)",
    "atomic32": "32-bit loads and stores an interrupt cannot split (a 32-bit core): a uint32_t "
                "shared with an interrupt handler without a critical section",
    "thumb2": "the Thumb-2 instruction set of ARMv7-M and ARMv8-M Mainline (32-bit data-processing "
              "and load/store encodings, r8-r12 in loads and stores): code written for the M3/M4/M33",
}

# GCC -mcpu names (before any ".small-multiply") of the cores without Thumb-2: ARMv6-M and
# ARMv8-M Baseline. A target with one of them lacks the "thumb2" feature.
THUMB1_CPUS = frozenset({"cortex-m0", "cortex-m0plus", "cortex-m1", "cortex-m23"})
_DERIVED_FEATURES = ("fpu", "thumb2", "thumb", "irq_lines", "atomic32")


@dataclass(frozen=True)
class Target:
    name: str
    path: Path
    spec: TargetFile

    @property
    def description(self) -> str:
        return self.spec.description

    @property
    def qemu_machine(self) -> str:
        return self.spec.qemu_machine

    @property
    def clock_hz(self) -> int:
        return self.spec.clock_hz

    @property
    def is_board(self) -> bool:
        """A real board ([board] in target.toml): run through a GDB server, not under QEMU."""
        return self.spec.board is not None

    @property
    def probe_base(self) -> int:
        return self.spec.probe.base

    @property
    def probe_size(self) -> int:
        return self.spec.probe.size

    @property
    def memory(self) -> tuple[MemoryRegion, ...]:
        return self.spec.memory

    @property
    def footprint(self) -> FootprintSections:
        return self.spec.footprint

    @property
    def core(self) -> str:
        """The timing model's core for this target ("none": no timing model)."""
        return str(self.spec.timing.get("core") or "none")

    @property
    def timing_defaults(self) -> dict[str, object]:
        """Timing-model settings: [timing], with flash / sram from [[memory]] unless set, and
        flash_ws from [flash_latency] at the target's own clock when the target has that rule."""
        fields = dict(self.spec.timing)
        rule = self.spec.flash_latency
        if rule is not None:  # (checked: [timing] leaves flash_ws out, the clock is within the rule)
            fields["flash_ws"] = rule.wait_states(self.spec.clock_hz)
        out: dict[str, object] = {k: v for k, v in fields.items() if v is not None}
        for kind in ("flash", "sram"):
            regions = [m for m in self.spec.memory if m.kind == kind]
            if kind not in out and regions:
                out[kind] = ";".join(f"{m.base:#x}:{m.size:#x}" for m in regions)
        return out

    @property
    def arch(self) -> str:
        return self.spec.arch

    @property
    def qemu_system(self) -> str:
        """QEMU's system emulator for the target: qemu-system-<this>."""
        return "avr" if self.spec.arch == "avr" else "arm"

    def cpu_flags(self) -> tuple[str, ...]:
        """The compiler's code-generation flags for this target's core."""
        if self.spec.arch == "avr":
            return (f"-mmcu={self.spec.cpu}",)
        flags = [f"-mcpu={self.spec.cpu}", "-mthumb"]
        if self.spec.fpu != "none":
            flags.append(f"-mfpu={self.spec.fpu}")
        flags.append(f"-mfloat-abi={self.spec.float_abi}")
        return tuple(flags)


def _check_target(spec: TargetFile, where: str) -> None:
    """The rules a structural parse cannot state; each failure is one line."""

    def bad(key: str, msg: str) -> RtoslabError:
        return RtoslabError(f"{where}: key '{key}' {msg}")

    for feature, why in spec.lacks.items():
        if feature == "fpu":
            raise bad("lacks.fpu", "is not declared: a target lacks the fpu feature exactly when "
                      "its fpu is \"none\"; remove this key")
        if feature in ("thumb", "irq_lines", "atomic32"):
            raise bad(f"lacks.{feature}", "is not declared: it is derived from the target's arch "
                      "(lacked by AVR targets); remove this key")
        if feature == "thumb2":
            raise bad("lacks.thumb2", "is not declared: a target lacks the thumb2 feature exactly "
                      "when its cpu is an ARMv6-M or ARMv8-M Baseline core; remove this key")
        if feature not in TARGET_FEATURES:
            declared = [f for f in TARGET_FEATURES if f not in _DERIVED_FEATURES]
            raise bad(f"lacks.{feature}", f"is not a board feature: choose {choices(declared)}")
        if not why.strip():
            raise bad(f"lacks.{feature}", "is empty: say why the board lacks it (shown as the n/a reason)")

    for key in ("cpu", "fpu"):
        if not _CPU_WORD.fullmatch(getattr(spec, key)):
            raise bad(key, f"is {getattr(spec, key)!r}: give the GCC name "
                      "(e.g. cortex-m3, fpv4-sp-d16, atmega328p, none)")
    if spec.fpu == "none" and spec.float_abi == "hard":
        raise bad("float_abi", "is 'hard' but fpu is 'none': use 'soft' or name the fpu")
    if spec.clock_hz <= 0:
        raise bad("clock_hz", f"is {spec.clock_hz}: give the core clock in Hz, e.g. 25000000")
    base, size = spec.probe.base, spec.probe.size
    if spec.arch == "avr":
        _check_avr_target(spec, bad)
    else:
        if not 1 <= spec.nvic_prio_bits <= 8:
            raise bad("nvic_prio_bits", f"is {spec.nvic_prio_bits}: give the implemented NVIC "
                      "priority bits, 1..8")
        if base < 0 or base & 0xFFFF or base > 0xFFFF0000:
            raise bad("probe.base", f"is {base:#x}: it must be a 64 KiB aligned 32-bit address "
                      "(a probe builds its address with movw/movt)")
        if spec.exit_window != -1:
            raise bad("exit_window", "is for AVR targets (Cortex-M targets exit through "
                      "semihosting): remove it")
    if size <= 0 or size % 4 or size > 0x10000:
        raise bad("probe.size", f"is {size:#x}: give a multiple of 4 up to 0x10000")
    if spec.probe.mode not in PROBE_MODES:
        raise bad("probe.mode", f"is {spec.probe.mode!r}: choose {choices(list(PROBE_MODES))}")
    if not 16 <= spec.probe.buffer <= 1 << 20:
        raise bad("probe.buffer", f"is {spec.probe.buffer}: give the RAM probe buffer's entries "
                  "(8 bytes each), 16..1048576")
    if not 256 <= spec.probe.console <= 1 << 20:
        raise bad("probe.console", f"is {spec.probe.console}: give the RAM console's bytes, 256..1048576")
    if spec.board is not None and not spec.board.part.strip():
        raise bad("board.part", "is empty: name the chip (e.g. STM32F103C8)")
    if not spec.memory:
        raise bad("memory", "is missing: add [[memory]] tables (name, kind, base, size)")
    seen: set[str] = set()
    for i, m in enumerate(spec.memory):
        if not _MEMORY_NAME.fullmatch(m.name) or m.name in seen:
            raise bad(f"memory[{i}].name", f"is {m.name!r}: give a unique linker region name "
                      "(letters, digits, _)")
        seen.add(m.name)
        if m.base < 0 or m.size <= 0 or m.end > 1 << 32:
            raise bad(f"memory[{i}]", f"({m.name}) is {m.base:#x}+{m.size:#x}: give a non-empty "
                      "region inside the 32-bit address space")
        if m.base < base + size and base < m.end:
            raise bad(f"memory[{i}]", f"({m.name}) overlaps the probe region {base:#x}+{size:#x}: "
                      "move one of them")
        for j, o in enumerate(spec.memory[:i]):
            if m.base < o.end and o.base < m.end:
                raise bad(f"memory[{i}]", f"({m.name}) overlaps memory[{j}] ({o.name}): fix base or size")
    if "flash" not in spec.timing and sum(m.kind == "flash" for m in spec.memory) > 1:
        raise bad("timing.flash", "is missing and there are several flash regions: "
                  "say which one the timing model uses (BASE:SIZE)")
    if not 1 <= spec.cores <= 32:
        raise bad("cores", f"is {spec.cores}: give the board's processor cores, 1..32")
    if spec.flash_latency is not None:
        _check_flash_latency(spec, bad)
    if spec.arch != "avr" and not 3 <= spec.irq_soft_top < 496:
        raise bad("irq_soft_top", "is missing or out of range: give the highest device interrupt "
                  "line no device drives (lab_target_irq_soft(0); it and the 3 below it must be "
                  "free), 3..495")
    # A staticlib for the soft-float triple will not link into a hard-float image (and the
    # reverse): the triple's float ABI must be the C side's.
    if spec.rust_target and spec.rust_target.endswith("hf") != (spec.float_abi == "hard"):
        raise bad("rust_target", f"is {spec.rust_target!r} but float_abi is "
                  f"{spec.float_abi!r}: use the triple with the same float ABI "
                  "(…-eabihf for 'hard', …-eabi otherwise)")
    fp = spec.footprint
    named: dict[str, str] = {}
    for key in ("flash", "ram", "both", "stack", "ignore"):
        for section in getattr(fp, key):
            if section in named:
                raise bad(f"footprint.{key}", f"lists {section} which footprint.{named[section]} "
                          "lists too: keep it in one list")
            named[section] = key


def _check_avr_target(spec: TargetFile, bad: Callable[[str, str], RtoslabError]) -> None:
    """An AVR target: no FPU, NVIC, Rust triple or second core; the probe region and the
    exit window inside the 16-bit data space, clear of each other."""
    for key, value, none in (("fpu", spec.fpu, "none"), ("nvic_prio_bits", spec.nvic_prio_bits, 0),
                             ("rust_target", spec.rust_target, ""), ("cores", spec.cores, 1),
                             ("irq_soft_top", spec.irq_soft_top, -1)):
        if value != none:
            raise bad(key, f"is {value!r} but an AVR target has none: remove it")
    base, size = spec.probe.base, spec.probe.size
    if base < 0x100 or base % 4 or base + size > 0x10000:
        raise bad("probe.base", f"is {base:#x}: give a word-aligned data-space address above the "
                  "I/O registers (0x100) with the region inside 0x10000 (a probe is one STS)")
    ew = spec.exit_window
    if not 0x100 <= ew <= 0xFF00:
        raise bad("exit_window", f"is {ew:#x}: give the data-space address of a 256-byte window "
                  "above the I/O registers where nothing is mapped (an AVR machine exits by a store there)")
    if ew < base + size and base < ew + 0x100:
        raise bad("exit_window", f"({ew:#x}+0x100) overlaps the probe region {base:#x}+{size:#x}: "
                  "move one of them")


def _check_flash_latency(spec: TargetFile, bad: Callable[[str, str], RtoslabError]) -> None:
    """[flash_latency]: named, limits positive and ascending, the target's own clock within
    them, flash_ws not also fixed in [timing] (the rule is its one home), a flash region."""
    rule = spec.flash_latency
    assert rule is not None
    for key in ("part", "source"):
        if not getattr(rule, key).strip():
            raise bad(f"flash_latency.{key}", "is empty: name the part and the manual the rule "
                      "comes from (shown when a clock is refused and in report footers)")
    if not rule.max_hz:
        raise bad("flash_latency.max_hz", "is empty: give the highest clock in Hz for 0, 1, 2, ... "
                  "wait states, e.g. [24000000, 48000000, 72000000]")
    for n, hz in enumerate(rule.max_hz):
        if hz <= 0:
            raise bad(f"flash_latency.max_hz[{n}]", f"is {hz}: give a clock in Hz above 0")
        if n and hz <= rule.max_hz[n - 1]:
            raise bad(f"flash_latency.max_hz[{n}]", f"is {hz}, not above max_hz[{n - 1}] = "
                      f"{rule.max_hz[n - 1]}: list the limits in ascending order, one per wait state")
    if spec.clock_hz > rule.max_hz[-1]:
        raise bad("clock_hz", f"is {spec.clock_hz}, above the {rule.part}'s maximum in "
                  f"[flash_latency] ({rule.max_hz[-1]}): fix one of them")
    if "flash_ws" in spec.timing:
        raise bad("timing.flash_ws", "is set but [flash_latency] derives flash_ws from the clock "
                  f"({rule.wait_states(spec.clock_hz)} at clock_hz = {spec.clock_hz}): remove "
                  "timing.flash_ws")
    if "flash" not in spec.timing and not any(m.kind == "flash" for m in spec.memory):
        raise bad("flash_latency", "needs a flash region for the wait states: add a [[memory]] "
                  "region of kind \"flash\" or timing.flash")


def load_target(toml: Path) -> Target:
    """Read and check one target folder's target.toml."""
    spec = parse_file(TargetFile, toml)
    _check_target(spec, str(toml))
    return Target(name=toml.parent.name, path=toml.parent, spec=spec)
