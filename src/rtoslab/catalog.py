"""What exists: targets, kernel ports and benchmarks, discovered from their folders.

Adding one means adding a folder (firmware/targets/X/target.toml, firmware/ports/X/
port.toml, firmware/bench/X/bench.toml); nothing here lists them. Folders outside the
checkout are added to the search with ``add_search_paths`` (``--bench-path``,
``--port-path``, ``--target-path``, a project's rtoslab.toml, an experiment file): each
path is either one such folder (it holds the .toml itself) or a folder of them.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from functools import cache
from pathlib import Path
from typing import Literal

from rtoslab.builder.kernel_source import KernelSourceSpec
from rtoslab.names import did_you_mean
from rtoslab.paths import firmware_root
from rtoslab.records import DERIVED_KINDS, DerivedSpec, MetricDecl, RtoslabError
from rtoslab.schema import parse_file

_CAP_RE = re.compile(r"^\s*#\s*define\s+(LAB_HAS_[A-Z0-9_]+)\s+([01])\b", re.MULTILINE)
_ALLOC_CAP_RE = re.compile(r"^\s*#\s*define\s+(LAB_ALLOC_HAS_[A-Z0-9_]+)\s+([01])\b", re.MULTILINE)
_ALLOC_CAP_DOC_RE = re.compile(
    r"^\s*#\s*define\s+(LAB_ALLOC_HAS_[A-Z0-9_]+)\s+([01])\s*/\*\s*(.*?)\s*\*/", re.MULTILINE)
DEFAULT_ALLOCATOR = "tlsf"  # the allocator of a build without LAB_ALLOC (alloc_select.cmake)
_CAP_DOC_RE = re.compile(r"^\s*#\s*define\s+(LAB_HAS_[A-Z0-9_]+)\s+([01])\s*/\*\s*(.*?)\s*\*/",
                         re.MULTILINE)


# ---------------------------------------------------------------------------- search paths


@dataclass(frozen=True)
class SearchPaths:
    """Folders searched besides the checkout's firmware/bench, firmware/ports and
    firmware/targets (absolute; in the order added)."""

    bench: tuple[Path, ...] = ()
    port: tuple[Path, ...] = ()
    target: tuple[Path, ...] = ()


_extra = [SearchPaths()]


def search_paths() -> SearchPaths:
    """The folders added with ``add_search_paths`` so far."""
    return _extra[0]


def add_search_paths(bench: Iterable[Path] = (), port: Iterable[Path] = (),
                     target: Iterable[Path] = ()) -> None:
    """Search these folders too (each: one benchmark/port/target folder, or a folder of
    them). A path that is not a folder is a one-line error. Adding a path already
    searched does nothing."""
    now = _extra[0]
    new: dict[str, tuple[Path, ...]] = {}
    for kind, paths, have in (("bench", bench, now.bench), ("port", port, now.port),
                              ("target", target, now.target)):
        out = list(have)
        for p in paths:
            path = Path(p).expanduser().resolve()
            if not path.is_dir():
                raise RtoslabError(f"--{kind}-path {p}: no such folder: give a {kind} folder or a "
                                   f"folder of them")
            if ";" in str(path):
                raise RtoslabError(f"--{kind}-path {path}: the path has ';', which CMake reads as a "
                                   "list separator (the build would split it): rename the folder "
                                   "or move it to a path without ';'")
            if path not in out:
                out.append(path)
        new[kind] = tuple(out)
    _extra[0] = SearchPaths(new["bench"], new["port"], new["target"])
    clear_caches()


def reset_search_paths() -> None:
    """Back to the checkout's folders only."""
    _extra[0] = SearchPaths()
    clear_caches()


def clear_caches() -> None:
    """Forget what was discovered (after folders or search paths changed)."""
    targets.cache_clear()
    kernels.cache_clear()
    benchmarks.cache_clear()


def search_dirs(kind: Literal["bench", "port", "target"]) -> list[Path]:
    """Where ``kind`` folders are looked for: the checkout's, then the added paths."""
    builtin = {"bench": "bench", "port": "ports", "target": "targets"}[kind]
    return [firmware_root() / builtin, *getattr(search_paths(), kind)]


def _discover(kind: Literal["bench", "port", "target"], filename: str) -> list[Path]:
    """Every ``<folder>/<filename>`` in the search directories; a name found twice is an
    error naming both folders."""
    found: dict[str, Path] = {}
    for root in search_dirs(kind):
        tomls = [root / filename] if (root / filename).is_file() else sorted(root.glob(f"*/{filename}"))
        for toml in tomls:
            name = toml.parent.name
            if name in found and found[name] != toml:
                raise RtoslabError(f"{kind} '{name}' is in two folders, {found[name].parent} and "
                                   f"{toml.parent}: rename one")
            found[name] = toml
    return [found[n] for n in sorted(found)]


def _looked_in(kind: Literal["bench", "port", "target"]) -> str:
    return ", ".join(str(d) for d in search_dirs(kind))


# ---------------------------------------------------------------------------- targets
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
            raise bad(f"lacks.{feature}", f"is not a board feature: choose {_choices(declared)}")
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
        raise bad("probe.mode", f"is {spec.probe.mode!r}: choose {_choices(list(PROBE_MODES))}")
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


@dataclass(frozen=True)
class Kernel:
    name: str
    path: Path
    description: str
    capabilities: dict[str, bool]
    unsupported_reasons: dict[str, str]  # capability -> why the port lacks it
    options: dict[str, object]  # default kernel configuration values
    # files X.in rendered into the config dir as X (X.in from the port's folder, else its
    # base's: a template both share lives once, in the base)
    config_templates: tuple[str, ...]
    deps: tuple[str, ...]  # crates.io packages whose sources the build needs
    is_template: bool
    # A Rust model (docs/rust-models.md): its crate in firmware/rust/; benchmarks with a
    # Rust version for this kernel (bench/<b>/rust/<kernel>/) use it. "" = a C kernel.
    rust_crate: str = ""
    # Cores the kernel needs on the target (port.toml min_cores; target.toml cores).
    min_cores: int = 1
    # Option combinations the port refuses before building (port.toml [[rule]]).
    rules: tuple[OptionRule, ...] = ()
    # Options that take only some values (port.toml [values]): option -> the values.
    values: dict[str, tuple[str | int | bool, ...]] = field(default_factory=dict)
    # The kernel's sources may come from the user's tree (port.toml [kernel_source]:
    # `--kernel-source DIR`; rtoslab.builder.kernel_source). None: the port has no hook.
    source: KernelSourceSpec | None = None
    # The folder of the port this one builds on (port.toml base); None: none.
    base_path: Path | None = None


@dataclass(frozen=True)
class Benchmark:
    name: str
    path: Path
    suites: tuple[str, ...]
    description: str
    requires: tuple[str, ...]
    insn_limit: int
    timeout_s: float
    validation: tuple[ValidationCase, ...] = ()  # reference figures (suite "validation")
    derived: tuple[DerivedSpec, ...] = ()  # [[derived]]: figures composed on the host
    metric_decls: tuple[MetricDecl, ...] = ()  # [[metric]]: e.g. one-sample totals
    # Why its metrics are paced by the instruction clock (time base "paced"; "" = not);
    # with paced_when, only on kernels with that LAB_HAS_* capability (e.g. a tick).
    paced: str = ""
    paced_when: str = ""
    needs: tuple[str, ...] = ()  # board features (TARGET_FEATURES) the target must have
    # Board features a Rust version (kernel -> features) needs beyond `needs`.
    rust_needs: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Rust kernel ports with a Rust version of this benchmark (its rust/<kernel>/ crates)
    rust_kernels: tuple[str, ...] = ()
    min_cores: int = 1  # processor cores a target must have (target.toml cores)
    # Define NAME -> (values it runs with, why no other): bench.toml [defines_allowed].
    defines_allowed: dict[str, tuple[tuple[str, ...], str]] = field(default_factory=dict)


@cache
def targets() -> dict[str, Target]:
    return {t.parent.name: load_target(t) for t in _discover("target", "target.toml")}


def read_capabilities(header: Path) -> tuple[dict[str, bool], dict[str, str]]:
    """LAB_HAS_* values from a port's lab_port_caps.h, and the comment beside each 0."""
    text = header.read_text()
    caps = {m.group(1): m.group(2) == "1" for m in _CAP_RE.finditer(text)}
    reasons = {m.group(1): m.group(3) for m in _CAP_DOC_RE.finditer(text) if m.group(2) == "0"}
    return caps, reasons


@dataclass(frozen=True)
class OptionRule:
    """One [[rule]] of a port.toml: when the resolved options have every value of `when`,
    they must have every value of `require`; otherwise the configuration is refused before
    building, with `reason`."""

    when: dict[str, str | int | bool]
    require: dict[str, str | int | bool]
    reason: str


@dataclass(frozen=True)
class PortFile:
    """Schema of firmware/ports/<name>/port.toml."""

    description: str = ""
    deps: tuple[str, ...] = ()  # crates.io packages (deps/Cargo.toml) whose sources it needs
    config_templates: tuple[str, ...] = ()  # X: the port folder holds X.in
    template: bool = False  # a skeleton to copy, not a kernel to measure
    options: dict[str, str | int | bool] = field(default_factory=dict)  # kernel option defaults
    # A Rust model: the name of its crate in firmware/rust/ (docs/rust-models.md).
    rust_crate: str = ""
    # The kernel needs a target with at least this many cores (target.toml cores).
    min_cores: int = 1
    # Option combinations refused before building.
    rule: tuple[OptionRule, ...] = ()
    # Options that take only some values: any other is refused before building.
    values: dict[str, tuple[str | int | bool, ...]] = field(default_factory=dict)
    # The hook for building the kernel from the user's own tree (--kernel-source).
    kernel_source: KernelSourceSpec | None = None
    # Another port this one builds on (its name): that port's folder comes after this
    # one's on the include path and is LAB_PORT_BASE_DIR in port.cmake, so the port uses
    # its files without reaching into it by a relative path (freertos-smp: freertos).
    base: str = ""


@dataclass(frozen=True)
class ValidationCase:
    """One [[validation]] entry of a bench.toml: a published real-hardware figure for one
    of the benchmark's metrics, with the timing settings that model its conditions
    (docs/validation.md)."""

    metric: str  # the metric (LAB_INTERVAL / LAB_PERIOD name) the figure is for
    cycles: float  # the published figure, in cycles
    source: str  # where the figure is published (document, section, table or page)
    conditions: str  # the hardware conditions: core, device, clock, wait states, ...
    held_out: bool  # true: no rule of the model was derived or tuned from this figure
    timing: dict[str, object]  # timing-model settings of the run (--timing KEY=VALUE)
    tolerance: float = 0.10  # allowed |model - cycles| / cycles
    # A known model gap: why the case is expected outside its tolerance (docs/validation.md
    # lists it; the test fails when such a case comes within tolerance, so the note goes).
    gap: str = ""
    # Another metric of the benchmark whose median is subtracted from ``metric``'s: for
    # figures published as a difference (e.g. cycles per extra loop iteration).
    minus: str = ""
    # The target the case runs on (a target folder's name); empty: the default target
    # (mps2-an385). E.g. an FPU case needs a target with an FPU (mps2-an386).
    target: str = ""


@dataclass(frozen=True)
class DefineLimit:
    """bench.toml [defines_allowed.NAME]: the values of the preprocessor define NAME that
    the benchmark can run with, and why no other can (e.g. a_lock_none: no lock, so one
    task only). A configuration that defines NAME otherwise is n/a with the reason and is
    not built; one that leaves NAME undefined runs with the benchmark's own default."""

    values: tuple[str | int, ...]
    reason: str


@dataclass(frozen=True)
class BenchFile:
    """Schema of firmware/bench/<name>/bench.toml."""

    suite: tuple[str, ...]
    description: str
    requires: tuple[str, ...] = ()  # LAB_HAS_* capabilities a port must have
    insn_limit: int = 2_000_000_000  # guest instructions before the run counts as a hang
    timeout_s: float = 120.0  # wall-clock seconds before QEMU counts as broken
    validation: tuple[ValidationCase, ...] = ()  # [[validation]]: reference figures
    derived: tuple[DerivedSpec, ...] = ()  # derived metrics (rtoslab.analysis.derived)
    metric: tuple[MetricDecl, ...] = ()  # [[metric]]: how the host treats a measured metric
    # A tick or timer fires inside its intervals, so how many interrupts (and time slices)
    # they hold is set by QEMU's instruction clock: why, one sentence. Its measured and
    # derived metrics get time base "paced" (docs/formats.md, "Time bases").
    paced: str = ""
    paced_when: str = ""  # a LAB_HAS_* capability: paced only on kernels that have it
    needs: tuple[str, ...] = ()  # board features (TARGET_FEATURES) a target must have
    # Board features that only a Rust version needs (kernel -> features), e.g. the
    # benchmark timer where the C version uses none.
    rust_needs: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Processor cores a target must have (target.toml `cores`); on a target with fewer the
    # benchmark is n/a ("needs 2 cores; mps2-an505 has 1").
    min_cores: int = 1
    # Preprocessor defines the benchmark runs with only some values of (NAME -> limit).
    defines_allowed: dict[str, DefineLimit] = field(default_factory=dict)


_SUITE_RE = re.compile(r"[a-z0-9_]+")
_CAP_NAME_RE = re.compile(r"LAB_(ALLOC_)?HAS_[A-Z0-9_]+")


@cache
def kernels() -> dict[str, Kernel]:
    found: dict[str, Kernel] = {}
    bases: dict[str, tuple[str, Path]] = {}  # port -> (its base, its port.toml)
    from_base: dict[str, list[tuple[int, str]]] = {}  # port -> templates its folder lacks
    for toml in _discover("port", "port.toml"):
        d = parse_file(PortFile, toml)
        name = toml.parent.name
        caps_h = toml.parent / "lab_port_caps.h"
        if not caps_h.is_file():
            raise RtoslabError(f"kernel port {name}: missing {caps_h}")
        caps, reasons = read_capabilities(caps_h)
        templates_checked_with_base = []
        for i, tmpl in enumerate(d.config_templates):
            if (toml.parent / f"{tmpl}.in").is_file():
                continue
            if not d.base:
                raise RtoslabError(f"{toml}: key 'config_templates[{i}]' is {tmpl!r} but there is no "
                                   f"{tmpl}.in in {toml.parent}: add the file or drop the entry")
            templates_checked_with_base.append((i, tmpl))  # may be the base's (checked below)
        if d.rust_crate and not (firmware_root() / "rust" / d.rust_crate / "Cargo.toml").is_file():
            raise RtoslabError(f"{toml}: key 'rust_crate' is {d.rust_crate!r} but there is no "
                               f"firmware/rust/{d.rust_crate}/Cargo.toml: name a crate of the "
                               "Rust firmware workspace or drop the key")
        if d.min_cores < 1:
            raise RtoslabError(f"{toml}: key 'min_cores' is {d.min_cores}: it must be 1 or more")
        for i, rule in enumerate(d.rule):
            for part, values in (("when", rule.when), ("require", rule.require)):
                if not values:
                    raise RtoslabError(f"{toml}: key 'rule[{i}].{part}' is empty: name at least one option")
                for key in values:
                    if key not in d.options:
                        raise RtoslabError(f"{toml}: key 'rule[{i}].{part}' names {key!r}, which is not "
                                           "in [options]: name one of the port's options")
        for key, allowed in d.values.items():
            if key not in d.options:
                raise RtoslabError(f"{toml}: key 'values.{key}' is not in [options]: name one of the "
                                   "port's options")
            if not allowed:
                raise RtoslabError(f"{toml}: key 'values.{key}' is empty: list the values it takes")
        if d.kernel_source is not None:
            crate = d.kernel_source.pinned.split("/", 1)[0]
            if crate not in d.deps:
                deps = ", ".join(d.deps) or "none"
                raise RtoslabError(f"{toml}: key 'kernel_source.pinned' is {d.kernel_source.pinned!r}: "
                                   f"its first part must be a crate of 'deps' ({deps})")
            try:
                re.compile(d.kernel_source.version_pattern)
            except re.error as e:
                raise RtoslabError(f"{toml}: key 'kernel_source.version_pattern' is not a regular "
                                   f"expression ({e})") from e
        found[name] = Kernel(
            name=name,
            path=toml.parent,
            description=d.description,
            capabilities=caps,
            unsupported_reasons=reasons,
            options=dict(d.options),
            config_templates=d.config_templates,
            deps=d.deps,
            is_template=d.template,
            rust_crate=d.rust_crate,
            min_cores=d.min_cores,
            rules=d.rule,
            values=dict(d.values),
            source=d.kernel_source,
        )
        bases[name] = (d.base, toml)
        from_base[name] = templates_checked_with_base
    for name, (base, toml) in bases.items():
        if not base:
            continue
        if base == name or base not in found:
            others = _choices(n for n in found if n != name)
            raise RtoslabError(f"{toml}: key 'base' is {base!r}, which is not another kernel port: "
                               f"name one of {others}")
        if bases[base][0]:
            raise RtoslabError(f"{toml}: key 'base' is {base!r}, which has a base of its own "
                               f"({bases[base][0]!r}): a port builds on one port that has none")
        for i, tmpl in from_base[name]:
            if not (found[base].path / f"{tmpl}.in").is_file():
                raise RtoslabError(f"{toml}: key 'config_templates[{i}]' is {tmpl!r} but there is no "
                                   f"{tmpl}.in in {toml.parent} or in its base {found[base].path}: "
                                   "add the file or drop the entry")
        found[name] = dataclasses.replace(found[name], base_path=found[base].path)
    return found


@cache
def benchmarks() -> dict[str, Benchmark]:
    found: dict[str, Benchmark] = {}
    known_caps = {c for k in kernels().values() for c in k.capabilities}
    alloc_caps = {c for caps, _ in allocator_capabilities().values() for c in caps}
    for toml in _discover("bench", "bench.toml"):
        d = parse_file(BenchFile, toml)
        name = toml.parent.name
        if not re.fullmatch(r"[a-z0-9_]+", name):
            raise RtoslabError(f"benchmark folder {toml.parent}: name must match [a-z0-9_]+")
        if not d.suite:
            raise RtoslabError(f"{toml}: key 'suite' is empty: name at least one suite, e.g. [\"smoke\"]")
        for i, s in enumerate(d.suite):
            if not _SUITE_RE.fullmatch(s):
                raise RtoslabError(f"{toml}: key 'suite[{i}]' is {s!r}: a suite name is [a-z0-9_]+")
        for i, cap in enumerate(d.requires):
            if cap.startswith("LAB_ALLOC_HAS_"):  # the build's allocator's (docs/allocation.md)
                if cap not in alloc_caps:
                    raise RtoslabError(f"{toml}: key 'requires[{i}]' is {cap!r}: choose capabilities "
                                       f"the allocators declare: {_choices(alloc_caps)}")
                continue
            if not _CAP_NAME_RE.fullmatch(cap) or cap not in known_caps:
                raise RtoslabError(f"{toml}: key 'requires[{i}]' is {cap!r}: choose capabilities the "
                                   f"ports declare: {_choices(known_caps)}")
        for i, feature in enumerate(d.needs):
            if feature not in TARGET_FEATURES:
                raise RtoslabError(f"{toml}: key 'needs[{i}]' is {feature!r}: choose board features "
                                   f"{_choices(TARGET_FEATURES)}")
        rust_kernels = tuple(sorted(c.parent.name for c in toml.parent.glob("rust/*/Cargo.toml")))
        for kernel, features in d.rust_needs.items():
            if kernel not in rust_kernels:
                raise RtoslabError(f"{toml}: key 'rust_needs.{kernel}' names no Rust version: "
                                   f"name a folder of rust/ ({_choices(rust_kernels)})")
            for i, feature in enumerate(features):
                if feature not in TARGET_FEATURES:
                    raise RtoslabError(f"{toml}: key 'rust_needs.{kernel}[{i}]' is {feature!r}: "
                                       f"choose board features {_choices(TARGET_FEATURES)}")
        for define, limit in d.defines_allowed.items():
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", define) or not limit.values or not limit.reason:
                raise RtoslabError(f"{toml}: key 'defines_allowed.{define}': name a C macro and give "
                                   "at least one value and a reason")
        if d.insn_limit <= 0:
            raise RtoslabError(f"{toml}: key 'insn_limit' is {d.insn_limit}: give a positive "
                               "instruction count")
        if not 1 <= d.min_cores <= 32:
            raise RtoslabError(f"{toml}: key 'min_cores' is {d.min_cores}: give the processor cores "
                               "the benchmark needs, 1..32")
        if d.timeout_s <= 0:
            raise RtoslabError(f"{toml}: key 'timeout_s' is {d.timeout_s:g}: give positive seconds")
        for i, case in enumerate(d.validation):
            if case.cycles <= 0 or not 0 <= case.tolerance < 1:
                raise RtoslabError(f"{toml}: key 'validation[{i}]': cycles must be positive and "
                                   f"tolerance a fraction from 0 (exact) up to 1 (got {case.cycles:g}, "
                                   f"{case.tolerance:g})")
        if d.paced_when and (not _CAP_NAME_RE.fullmatch(d.paced_when) or d.paced_when not in known_caps):
            raise RtoslabError(f"{toml}: key 'paced_when' is {d.paced_when!r}: choose capabilities the "
                               f"ports declare: {_choices(known_caps)}")
        if d.paced_when and not d.paced:
            raise RtoslabError(f"{toml}: key 'paced_when' is set but 'paced' is not: say why the "
                               "metrics are paced by the instruction clock, or drop 'paced_when'")
        _check_derived(toml, d.derived)
        names = [m.name for m in d.metric]
        for i, decl in enumerate(d.metric):
            if names.index(decl.name) != i:
                raise RtoslabError(f"{toml}: key 'metric[{i}].name' is {decl.name!r}, which metric"
                                   f"[{names.index(decl.name)}] declares too: keep one entry per metric")
        found[name] = Benchmark(
            name=name,
            path=toml.parent,
            suites=d.suite,
            description=d.description,
            requires=d.requires,
            insn_limit=d.insn_limit,
            timeout_s=d.timeout_s,
            validation=d.validation,
            derived=d.derived,
            metric_decls=d.metric,
            paced=d.paced,
            paced_when=d.paced_when,
            needs=d.needs,
            rust_kernels=rust_kernels,
            rust_needs=dict(d.rust_needs),
            min_cores=d.min_cores,
            defines_allowed={k: (tuple(str(v) for v in lim.values), lim.reason)
                             for k, lim in d.defines_allowed.items()},
        )
    return found


def _check_derived(toml: Path, specs: tuple[DerivedSpec, ...]) -> None:
    """The rules of [[derived]] a structural parse cannot state: a name, and exactly the
    keys of its kind (tick: tick_periods, tick_cycles, plus/minus; rate: counter,
    interval; ratio/difference: a, b)."""
    optional = ("plus", "minus")
    all_keys = ("tick_periods", "tick_cycles", "plus", "minus", "counter", "interval", "a", "b")
    seen: set[str] = set()
    for i, spec in enumerate(specs):
        if not re.fullmatch(r"[a-z0-9_]{1,31}", spec.name):
            raise RtoslabError(f"{toml}: key 'derived[{i}].name' is {spec.name!r}: a metric name is "
                               "[a-z0-9_], at most 31 characters")
        if spec.name in seen:
            raise RtoslabError(f"{toml}: key 'derived[{i}].name' is {spec.name!r}, which another "
                               "[[derived]] uses: give each a name of its own")
        seen.add(spec.name)
        needed = spec.keys_used()
        for key in needed:
            if not getattr(spec, key):
                raise RtoslabError(f"{toml}: key 'derived[{i}].{key}' is missing: a {spec.kind} metric "
                                   f"needs {', '.join(needed)}")
        wanted = set(needed) | (set(optional) if spec.kind == "tick" else set())
        for key in all_keys:
            if key not in wanted and getattr(spec, key):
                raise RtoslabError(f"{toml}: key 'derived[{i}].{key}' does not belong to kind "
                                   f"{spec.kind!r}: it takes {', '.join(sorted(wanted))} "
                                   f"(kinds: {', '.join(DERIVED_KINDS)})")
        if spec.kind == "tick" and not spec.plus and not spec.minus:
            raise RtoslabError(f"{toml}: key 'derived[{i}]' names no measured metric: give 'plus' "
                               "and/or 'minus'")


def suites() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for b in benchmarks().values():
        for s in b.suites:
            out.setdefault(s, []).append(b.name)
    return out


def _choices(names: Iterable[str]) -> str:
    return ", ".join(sorted(names))


def get_target(name: str) -> Target:
    t = targets().get(name)
    if t is None:
        raise RtoslabError(f"unknown target '{name}'{did_you_mean(name, targets())}: choose one of "
                           f"{_choices(targets())} (looked in "
                           f"{_looked_in('target')}; add folders with --target-path or rtoslab.toml)")
    return t


def check_kernel_fits_target(kernel: Kernel, target: Target) -> None:
    """A kernel that needs more cores than the target has is refused before building (a
    wrong pair, not a benchmark's limit: nothing of it could run), naming targets that
    have enough."""
    have = target.spec.cores
    if have >= kernel.min_cores:
        return
    fits = sorted(t.name for t in targets().values() if t.spec.cores >= kernel.min_cores)
    hint = f"use --target {fits[0]}" if len(fits) == 1 else (
        f"use a target with {kernel.min_cores}: {_choices(fits)}" if fits else
        "no known target has that many")
    raise RtoslabError(f"kernel {kernel.name} needs {kernel.min_cores} cores (its port.toml min_cores) "
                       f"but target {target.name} has {have}: {hint}")


def get_kernel(name: str) -> Kernel:
    k = kernels().get(name)
    if k is None:
        raise RtoslabError(f"unknown kernel '{name}'{did_you_mean(name, kernels())}: choose one of "
                           f"{_choices(kernels())} (looked in "
                           f"{_looked_in('port')}; add folders with --port-path or rtoslab.toml)")
    return k


def suite_benchmarks(suite: str) -> list[Benchmark]:
    names = suites().get(suite)
    if not names:
        raise RtoslabError(f"unknown suite '{suite}'{did_you_mean(suite, suites())}: choose one of "
                           f"{_choices(suites())}")
    return [benchmarks()[n] for n in sorted(names)]


def get_benchmark(name: str) -> Benchmark:
    b = benchmarks().get(name)
    if b is None:
        raise RtoslabError(f"unknown benchmark '{name}'{did_you_mean(name, benchmarks())}: looked in "
                           f"{_looked_in('bench')}: "
                           "`rtoslab list` shows them; add folders with --bench-path or rtoslab.toml")
    return b


def missing_capabilities(bench: Benchmark, kernel: Kernel) -> list[str]:
    """Capabilities the benchmark needs that the kernel does not have (empty: it can run).
    A Rust kernel runs a benchmark's Rust version, written for the model itself, whatever
    the C version requires. (LAB_ALLOC_HAS_* belong to the build's allocator.)"""
    if kernel.rust_crate and kernel.name in bench.rust_kernels:
        return []
    return [c for c in bench.requires
            if c.startswith("LAB_HAS_") and not kernel.capabilities.get(c, False)]


def target_lacks(bench: Benchmark, target: Target, kernel: Kernel | None = None) -> list[str]:
    """Board features the benchmark needs that the target lacks (empty: it can run); with
    `kernel`, also those its Rust version for that kernel needs (bench.toml rust_needs)."""
    needs = list(bench.needs)
    if kernel is not None and kernel.rust_crate and kernel.name in bench.rust_kernels:
        needs += [f for f in bench.rust_needs.get(kernel.name, ()) if f not in needs]
    return [f for f in needs if f in lacked_features(target)]


def lacked_features(target: Target) -> dict[str, str]:
    """Board feature -> why the target lacks it: its [lacks], "fpu" when it has none, and
    "thumb2" when its core has no Thumb-2 (THUMB1_CPUS)."""
    lacks = dict(target.spec.lacks)
    if target.spec.fpu == "none":
        lacks.setdefault("fpu", f"its core, {target.spec.cpu}, has no FPU: target.toml fpu = none")
    if target.spec.arch == "avr":
        cpu = target.spec.cpu
        lacks.setdefault("thumb", f"its core, {cpu}, is an 8-bit AVR, not an Arm core")
        lacks.setdefault("thumb2", f"its core, {cpu}, is an 8-bit AVR, not an Arm core")
        lacks.setdefault("irq_lines", f"its interrupt vectors ({cpu}) are fixed in flash and no "
                         "line can be raised by software")
        lacks.setdefault("atomic32", f"its core, {cpu}, is 8-bit: a 32-bit access is four byte "
                         "accesses an interrupt can split")
    if target.spec.cpu.split(".")[0] in THUMB1_CPUS:
        lacks.setdefault("thumb2", f"its core, {target.spec.cpu}, has no Thumb-2 instruction set "
                         "(ARMv6-M / ARMv8-M Baseline)")
    return lacks


def too_few_cores(bench: Benchmark, target: Target) -> str | None:
    """Why the target has too few cores for the benchmark (bench.toml min_cores against
    target.toml cores), or None."""
    if target.spec.cores >= bench.min_cores:
        return None
    return f"needs {bench.min_cores} cores; {target.name} has {target.spec.cores}"


def na_reason(bench: Benchmark, kernel: Kernel, target: Target | None = None) -> str | None:
    """Why the benchmark cannot run with this kernel (first) or on this target; None: it can."""
    if kernel.rust_crate and target is not None and not target.spec.rust_target:
        return (f"target {target.name} has no rust_target in target.toml (no Rust triple for "
                f"its core), so the Rust kernel {kernel.name} cannot build there")
    missing = missing_capabilities(bench, kernel)
    if not missing:
        if target is not None and (few := too_few_cores(bench, target)):
            return few
        if target is None or not (lacking := target_lacks(bench, target, kernel)):
            return None
        reasons = lacked_features(target)
        return f"target {target.name} lacks " + ", ".join(f"{f} ({reasons[f]})" for f in lacking)
    parts = []
    for cap in missing:
        why = kernel.unsupported_reasons.get(cap)
        parts.append(f"{cap}=0" + (f" ({why})" if why else ""))
    return f"kernel {kernel.name} lacks " + ", ".join(parts)


@cache
def allocator_capabilities() -> dict[str, tuple[dict[str, bool], dict[str, str]]]:
    """Allocator folder (firmware/allocators/<name>/) -> its LAB_ALLOC_HAS_* values from
    lab_alloc_caps.h and the comment beside each 0 (docs/allocation.md)."""
    found: dict[str, tuple[dict[str, bool], dict[str, str]]] = {}
    for header in sorted((firmware_root() / "allocators").glob("*/lab_alloc_caps.h")):
        text = header.read_text()
        caps = {m.group(1): m.group(2) == "1" for m in _ALLOC_CAP_RE.finditer(text)}
        reasons = {m.group(1): m.group(3) for m in _ALLOC_CAP_DOC_RE.finditer(text) if m.group(2) == "0"}
        found[header.parent.name] = (caps, reasons)
    return found


def missing_alloc_capabilities(bench: Benchmark, defines: dict[str, str]) -> list[str]:
    """LAB_ALLOC_HAS_* the benchmark needs that the build's allocator (LAB_ALLOC) lacks.
    An unknown allocator has none missing here: its build says what is wrong."""
    alloc = defines.get("LAB_ALLOC", DEFAULT_ALLOCATOR)
    caps = allocator_capabilities().get(alloc)
    if caps is None:
        return []
    return [c for c in bench.requires if c.startswith("LAB_ALLOC_HAS_") and not caps[0].get(c, False)]


def alloc_na_reason(bench: Benchmark, defines: dict[str, str]) -> str | None:
    missing = missing_alloc_capabilities(bench, defines)
    if not missing:
        return None
    alloc = defines.get("LAB_ALLOC", DEFAULT_ALLOCATOR)
    reasons = allocator_capabilities()[alloc][1]
    parts = [f"{cap}=0" + (f" ({reasons[cap]})" if reasons.get(cap) else "") for cap in missing]
    return f"allocator {alloc} lacks " + ", ".join(parts)


def define_na_reason(bench: Benchmark, defines: dict[str, str]) -> str | None:
    """Why the benchmark cannot run with these preprocessor defines (bench.toml
    [defines_allowed]); None: it can. A define the configuration leaves out is the
    benchmark's own default, which it can run with."""
    for name, (values, reason) in sorted(bench.defines_allowed.items()):
        if name in defines and defines[name] not in values:
            return (f"{bench.name} runs only with {name}={' or '.join(values)}, not "
                    f"{name}={defines[name]}: {reason}")
    return None
