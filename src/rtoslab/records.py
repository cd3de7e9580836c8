"""Plain data passed between the pipeline stages (see docs/architecture.md).

Every stage takes these values from the stage before and returns new ones; no stage
reaches back. All classes are frozen dataclasses so they can be shared freely.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from typing import Literal


class RtoslabError(Exception):
    """An error the user can act on. ``str(err)`` is one line: what went wrong and what to do."""


class HostError(RtoslabError):
    """The machine failed, not the input and not a benchmark (a full disk, the database or
    the build cache not writable): a run in progress stops and is stored ``incomplete``
    with every result finished before; the CLI exits 1."""


class WriteError(HostError):
    """A file or the database could not be written (a full disk, an I/O error, a read-only
    place): what was stored before stays. The CLI exits 1 with it (README, "Exit status"),
    not 2: the input was fine."""


class Unit(StrEnum):
    """The unit of a measured value. A StrEnum: ``Unit.INSN == "insn"``, and it is stored,
    printed and exported as that text."""

    INSN = "insn"  # guest instructions completed (exact)
    CYCLE = "cycle"  # modelled core cycles (the plugin's timing model)
    US = "us"  # microseconds: cycles at the configuration's clock
    BYTES = "bytes"  # image footprint (flash, RAM)
    # Units of derived metrics (bench.toml [[derived]], rtoslab.analysis.derived):
    INSN_PER_OP = "insn/op"  # rate: guest instructions per operation
    CYCLE_PER_OP = "cycle/op"  # rate: modelled cycles per operation
    OP_PER_S = "op/s"  # rate: operations per second of modelled time (at the clock)
    RATIO = "ratio"  # ratio: a / b, dimensionless


# Units of a metric's samples and summaries, in display order.
SAMPLE_UNITS: tuple[Unit, ...] = (Unit.INSN, Unit.CYCLE, Unit.US)
# Every unit a summary can have, in display order (measured units first).
SUMMARY_UNITS: tuple[Unit, ...] = (*SAMPLE_UNITS, Unit.INSN_PER_OP, Unit.CYCLE_PER_OP, Unit.OP_PER_S,
                                   Unit.RATIO)


class TimeBase(StrEnum):
    """What a metric's cycles and microseconds stand on (docs/formats.md, time bases).

    Timers and interrupts fire on QEMU's instruction clock (one instruction = 1 ns of
    virtual time), not on modelled cycles, so a figure paced by a timer is not a modelled
    time. Stored, printed and exported as the text.
    """

    MODELLED = "modelled"  # a probe interval of executed code priced by the cycle model
    VIRTUAL = "virtual"  # paced by the emulator's instruction clock: insn only, no cycle/us
    DERIVED = "derived"  # composed on the host from modelled metrics ([[derived]] in bench.toml)
    # modelled cycles of the code that ran, but how many tick/timer interrupts (and time
    # slices) fell inside was set by the instruction clock (bench.toml `paced`)
    PACED = "paced"


# Why a metric lacks units, per time base: shown where its cycle/us or insn columns would be.
TIME_BASE_NOTES: dict[TimeBase, str] = {
    TimeBase.MODELLED: "probe interval priced by the cycle model",
    TimeBase.VIRTUAL: "paced by QEMU's instruction clock (1 insn = 1 ns), not by modelled "
                      "cycles: instructions only, no cycle or us figure",
    TimeBase.DERIVED: "composed on the host from measured modelled metrics (and configured "
                      "tick periods or printed counters): the units its formula gives",
    TimeBase.PACED: "paced by QEMU's instruction clock (1 insn = 1 ns): the cycles price the "
                    "code that ran, but how many tick or timer interrupts fell inside was set "
                    "by that clock, not by modelled time, so it is not a board's elapsed time",
}


# ---------------------------------------------------------------- trace (docs/formats.md §2)


class EndStatus(IntEnum):
    """Bits of the trace end record's status word."""

    RECORD_LIMIT = 1 << 0
    INSN_LIMIT = 1 << 1
    UNALIGNED_PROBE = 1 << 2


class OnSharedClock:
    """What a counted event of a trace (a probe hit, an exception event) says of the
    machine's shared clock: ``shared`` (insns, cycles) summed over all cores at the event,
    or None for a single-core trace, where the event's own counts are the machine's
    (docs/timing-model.md, "Two cores")."""

    insns: int
    cycles: int
    shared: tuple[int, int] | None

    @property
    def shared_insns(self) -> int:
        return self.insns if self.shared is None else self.shared[0]

    @property
    def shared_cycles(self) -> int:
        return self.cycles if self.shared is None else self.shared[1]


@dataclass(frozen=True)
class Hit(OnSharedClock):
    """One executed probe store.

    ``insns``: guest instructions completed before the store executed, on its core.
    ``cycles``: modelled cycles completed before the store on its core (0 when no cycle
    model).
    ``core``: the core (vCPU) that executed the store; 0 on a single-core machine.
    ``shared``: the machine's shared clock at the store, (insns, cycles) summed over all
    cores (docs/timing-model.md, "Two cores"); None means the hit's own counts (a
    single-core trace).
    """

    probe_id: int
    insns: int
    cycles: int
    core: int = 0
    shared: tuple[int, int] | None = None


@dataclass(frozen=True)
class TraceEnd:
    """The end record: status bits and the machine's totals (all cores summed).

    ``per_core``: each core's (insns, cycles) totals, in core order (version 2 traces;
    empty for a version 1 trace, whose one core's totals are the machine's).
    """

    status: int
    total_insns: int
    total_cycles: int
    per_core: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class Trace:
    version: int
    probe_base: int
    probe_size: int
    has_cycles: bool
    hits: tuple[Hit, ...]
    end: TraceEnd | None  # None: the trace was cut short
    cores: int = 1
    # False for a board's probe buffer (docs/boards.md): it holds cycle counts only, no
    # instruction counts, so no "insn" unit is reported.
    has_insns: bool = True

    @property
    def truncated(self) -> bool:
        return self.end is None


# ---------------------------------------------------------------- probe metadata (§3)

KIND_INTERVAL = 0
KIND_PERIOD = 1
KIND_SINCE = 2  # one sample per end hit: the distance from the most recent start hit
FLAG_CALIBRATION = 1 << 0
FLAG_NO_CALIBRATION = 1 << 1
FLAG_VIRTUAL = 1 << 2  # the metric's length is paced by the instruction clock


@dataclass(frozen=True)
class PairMeta:
    """How probe hits pair into samples for one metric."""

    name: str
    kind: int  # KIND_INTERVAL or KIND_PERIOD
    start_id: int
    end_id: int
    flags: int
    description: str

    @property
    def is_calibration(self) -> bool:
        return bool(self.flags & FLAG_CALIBRATION)

    @property
    def time_base(self) -> TimeBase:
        return TimeBase.VIRTUAL if self.flags & FLAG_VIRTUAL else TimeBase.MODELLED


DERIVED_KINDS = ("tick", "rate", "ratio", "difference")


@dataclass(frozen=True)
class DerivedSpec:
    """A derived metric declared in a benchmark's bench.toml (``[[derived]]``), computed on
    the host by ``rtoslab.analysis.derived``. ``kind`` says which keys it uses:

    - ``tick`` (the default): one sample per sample of the measured metrics it names, in
      cycles: ``tick_periods x tick_cycles + sum(plus) - sum(minus)``, where
      ``tick_periods`` and ``tick_cycles`` name LAB-KV counters the firmware printed
      (configuration facts, not measurements) and ``plus`` / ``minus`` name modelled
      metrics of the same benchmark.
    - ``rate``: ``counter`` names a LAB-KV counter (operations done in each sample of the
      probe metric ``interval``); per sample: insn/op, cycle/op and op/s of modelled time.
    - ``ratio``: ``a`` / ``b`` sample by sample (in cycles when both have a cycle model,
      else in instructions), unit "ratio".
    - ``difference``: ``a`` - ``b`` sample by sample, in the units both have.

    For ratio and difference the two metrics have equal sample counts, or one of them has
    a single sample (it is used against every sample of the other).
    """

    name: str
    description: str
    tick_periods: str = ""
    tick_cycles: str = ""
    plus: tuple[str, ...] = ()
    minus: tuple[str, ...] = ()
    kind: Literal["tick", "rate", "ratio", "difference"] = "tick"
    counter: str = ""
    interval: str = ""
    a: str = ""
    b: str = ""

    def keys_used(self) -> tuple[str, ...]:
        """The kind-specific keys this kind requires (besides name and description)."""
        return _DERIVED_KEYS[self.kind]


_DERIVED_KEYS: dict[str, tuple[str, ...]] = {
    "tick": ("tick_periods", "tick_cycles"),
    "rate": ("counter", "interval"),
    "ratio": ("a", "b"),
    "difference": ("a", "b"),
}


@dataclass(frozen=True)
class MetricDecl:
    """A ``[[metric]]`` entry of a bench.toml: how the host treats one measured metric.

    ``samples = "total"``: the metric is one sample by design (a window around all the
    work, e.g. the interval of a throughput rate); it must have exactly one sample, and
    its statistics carry no "too few samples" warning.
    """

    name: str
    samples: Literal["many", "total"] = "many"


# ---------------------------------------------------------------- analysis


@dataclass(frozen=True)
class Sample:
    """One measured interval, probe cost already subtracted. A derived metric's samples
    have ``insns`` 0: it has no instruction count (its time base says so)."""

    insns: int
    cycles: int


@dataclass(frozen=True)
class Summary:
    """Distribution statistics of one metric in one unit.

    ``stdev`` is the sample standard deviation (n-1); 0.0 when n == 1.
    Percentiles use linear interpolation between closest ranks.
    ``mode`` is the most frequent value; ties go to the smallest value.
    """

    n: int
    min: float
    max: float
    mean: float
    median: float
    mode: float
    stdev: float
    p90: float
    p99: float
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class MetricResult:
    """All samples and summaries of one metric (one probe pair) of one benchmark run."""

    name: str
    description: str
    samples: tuple[Sample, ...]
    summaries: dict[Unit, Summary]  # in SAMPLE_UNITS order, measured units only
    time_base: TimeBase = TimeBase.MODELLED
    # How the figure was obtained, beyond the time base's meaning: for a derived metric
    # its formula with the configuration facts used (e.g. "50 x 25000 cycles + ...").
    time_note: str = ""


# ---------------------------------------------------------------- image footprint


@dataclass(frozen=True)
class Footprint:
    """Flash and RAM bytes of one image, from its linker map (rtoslab.builder.footprint)."""

    flash: dict[str, int] = field(default_factory=dict)  # component -> bytes
    ram: dict[str, int] = field(default_factory=dict)
    sections: dict[str, int] = field(default_factory=dict)  # output section -> bytes

    @property
    def flash_total(self) -> int:
        return sum(self.flash.values())

    @property
    def ram_total(self) -> int:
        return sum(self.ram.values())

    def as_dict(self) -> dict[str, object]:
        """The stored form; the totals are included for readers of exported data."""
        return {"flash": dict(sorted(self.flash.items())), "ram": dict(sorted(self.ram.items())),
                "flash_total": self.flash_total, "ram_total": self.ram_total,
                "sections": dict(sorted(self.sections.items()))}

    @classmethod
    def from_dict(cls, doc: Mapping[str, object]) -> Footprint:
        """Inverse of ``as_dict`` (the stored totals are derived again, not read)."""
        return cls(_int_dict(doc.get("flash")), _int_dict(doc.get("ram")), _int_dict(doc.get("sections")))


def _int_dict(value: object) -> dict[str, int]:
    if not isinstance(value, Mapping):
        return {}
    return {str(k): v for k, v in value.items() if isinstance(v, int) and not isinstance(v, bool)}


# ---------------------------------------------------------------- results


@dataclass(frozen=True)
class BenchResult:
    """Outcome of running one benchmark image once.

    ``wall_s``: host wall-clock seconds of the emulator run (None when nothing ran); not a
    measurement of the guest. ``counters``: the ``LAB-KV name=value`` lines the firmware
    printed (docs/formats.md §7). ``footprint``: flash/RAM bytes of the image, or None with
    ``footprint_error`` saying why it could not be read.
    """

    benchmark: str
    status: str  # "ok" | "failed" | "n/a"
    reason: str | None
    metrics: tuple[MetricResult, ...] = ()
    console: str = ""
    calibration: Sample | None = None
    total_insns: int = 0
    total_cycles: int = 0
    wall_s: float | None = None
    counters: dict[str, int] = field(default_factory=dict)
    footprint: Footprint | None = None
    footprint_error: str | None = None
    irq_windows: IrqWindows | None = None  # with `run --irq-windows` (docs/irq-windows.md)
    console_dropped: int = 0  # console bytes left out of ``console`` (the runner's cap)


# Keys of the extra-values document that are not counters (a counter may not use them).
EXTRA_KEYS = ("wall_s", "footprint", "footprint_error", "console_dropped")


def extra_document(wall_s: float | None, counters: Mapping[str, int], footprint: Footprint | None,
                   footprint_error: str | None, console_dropped: int = 0) -> dict[str, object]:
    """A result's extra values as one JSON object with sorted keys: the text stored in
    ``bench_runs.extra`` and the ``extra`` of rtoslab.export/2. Counters are top-level
    keys beside ``wall_s``, ``footprint``, ``footprint_error`` and ``console_dropped``
    (the console bytes the runner left out; each only when set)."""
    clash = sorted(set(counters) & set(EXTRA_KEYS))
    if clash:
        raise ValueError(f"counter name(s) {', '.join(clash)} are reserved extra keys")
    doc: dict[str, object] = dict(counters)
    if wall_s is not None:
        doc["wall_s"] = wall_s
    if footprint is not None:
        doc["footprint"] = dict(sorted(footprint.as_dict().items()))
    if footprint_error is not None:
        doc["footprint_error"] = footprint_error
    if console_dropped:
        doc["console_dropped"] = console_dropped
    return dict(sorted(doc.items()))


@dataclass(frozen=True)
class ExtraValues:
    """The typed values of an extra-values document (see ``extra_document``)."""

    wall_s: float | None
    counters: dict[str, int]
    footprint: Footprint | None
    footprint_error: str | None
    console_dropped: int = 0


def parse_extra(doc: Mapping[str, object]) -> ExtraValues:
    """Inverse of ``extra_document``. Values of any other type under other keys (none are
    written) are not counters and are left out."""
    wall = doc.get("wall_s")
    fp = doc.get("footprint")
    err = doc.get("footprint_error")
    dropped = doc.get("console_dropped")
    counters = {k: v for k, v in doc.items()
                if k not in EXTRA_KEYS and isinstance(v, int) and not isinstance(v, bool)}
    return ExtraValues(
        wall_s=float(wall) if isinstance(wall, int | float) and not isinstance(wall, bool)
        and math.isfinite(wall) else None,
        counters=dict(sorted(counters.items())),
        footprint=Footprint.from_dict(fp) if isinstance(fp, Mapping) else None,
        footprint_error=err if isinstance(err, str) else None,
        console_dropped=dropped if isinstance(dropped, int) and not isinstance(dropped, bool) else 0,
    )


# --- Masked-window report (`rtoslab run --irq-windows`, docs/irq-windows.md) -----------


@dataclass(frozen=True)
class IrqWindowSite:
    """Masked windows with the same start, end and cause: how many, the longest (in
    modelled cycles, then instructions) and where it started. ``start``/``end`` are
    ``function (file:line)`` from the ELF's debug information ("?" when unknown);
    ``code``: the source lines from start to end (at most a screenful)."""

    start_pc: int
    end_pc: int
    cause: str  # primask | faultmask | basepri | handler:<exception number>
    count: int
    max_insns: int
    max_cycles: int
    max_at: int  # instructions completed when the longest one opened
    start: str = "?"
    end: str = "?"
    code: tuple[str, ...] = ()
    # The link register at the masking/unmasking instruction (0: not read), and where
    # that return address lies: who called the function that masks (e.g. the kernel call
    # that entered a critical section).
    start_lr: int = 0
    end_lr: int = 0
    start_from: str = ""
    end_from: str = ""


@dataclass(frozen=True)
class IrqLevel:
    """One interrupt priority level: every interval in which an interrupt at this
    priority could not be taken. ``bound_cycles``: the longest window plus the exception
    entry cost (None without windows); ``hist_insns[b]``: windows of 2^b .. 2^(b+1)-1
    instructions (b = 0 also holds length 0)."""

    level: int
    priority: int  # the NVIC priority value of the level (implemented bits, left aligned)
    count: int
    masked_insns: int
    masked_cycles: int
    max_insns: int
    max_cycles: int
    bound_cycles: int | None
    hist_insns: tuple[int, ...]
    windows: tuple[IrqWindowSite, ...]
    open_at_exit: IrqWindowSite | None = None
    core: int = 0  # the core whose masks these are (a report of several cores)


@dataclass(frozen=True)
class IrqWindows:
    """The masked-window report of one benchmark run."""

    prio_bits: int
    prigroup: int
    entry_cycles: int
    cycles_modelled: bool
    levels: tuple[IrqLevel, ...]  # with several cores: every core's levels, in core order
    cores: int = 1
