"""Plain data passed between the pipeline stages (see docs/architecture.md).

Every stage takes these values from the stage before and returns new ones; no stage
reaches back. All classes are frozen dataclasses so they can be shared freely.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum


class RtoslabError(Exception):
    """An error the user can act on. ``str(err)`` is one line: what went wrong and what to do."""


# ---------------------------------------------------------------- trace (docs/formats.md §2)


class EndStatus(IntEnum):
    """Bits of the trace end record's status word."""

    RECORD_LIMIT = 1 << 0
    INSN_LIMIT = 1 << 1
    UNALIGNED_PROBE = 1 << 2


@dataclass(frozen=True)
class Hit:
    """One executed probe store.

    ``insns``: guest instructions completed before the store executed.
    ``cycles``: modelled cycles completed before the store (0 when no cycle model).
    """

    probe_id: int
    insns: int
    cycles: int


@dataclass(frozen=True)
class TraceEnd:
    status: int
    total_insns: int
    total_cycles: int


@dataclass(frozen=True)
class Trace:
    version: int
    probe_base: int
    probe_size: int
    has_cycles: bool
    hits: tuple[Hit, ...]
    end: TraceEnd | None  # None: the trace was cut short

    @property
    def truncated(self) -> bool:
        return self.end is None


# ---------------------------------------------------------------- probe metadata (§3)

KIND_INTERVAL = 0
KIND_PERIOD = 1
FLAG_CALIBRATION = 1 << 0
FLAG_NO_CALIBRATION = 1 << 1


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


# ---------------------------------------------------------------- analysis


@dataclass(frozen=True)
class Sample:
    """One measured interval, probe cost already subtracted."""

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
    summaries: dict[str, Summary]  # unit ("insn", "cycle", "us") -> summary


@dataclass(frozen=True)
class BenchResult:
    """Outcome of running one benchmark image once."""

    benchmark: str
    status: str  # "ok" | "failed" | "n/a"
    reason: str | None
    metrics: tuple[MetricResult, ...] = ()
    console: str = ""
    calibration: Sample | None = None
    total_insns: int = 0
    total_cycles: int = 0
    extra: dict[str, object] = field(default_factory=dict)
