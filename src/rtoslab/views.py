"""Read-side values returned by the store: plain frozen dataclasses, no database handles.

Raw samples are not part of a view (a run can hold millions); load them on demand with
``Store.load_samples(metric.id)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rtoslab.records import SUMMARY_UNITS, Footprint, IrqWindows, Sample, Summary, TimeBase, Unit

RUN_STATUSES = ("running", "complete", "incomplete", "failed")
FINISHED_STATUSES = ("complete", "incomplete", "failed")
BENCH_STATUSES = ("ok", "failed", "n/a")
# Display order of units.
UNIT_ORDER: tuple[Unit, ...] = SUMMARY_UNITS

# Keys every stored identity has (rtoslab.pipeline.config_identity; docs/formats.md).
# Identities stored before v0.2 of the identity spelled identity_hash "hash" and timing
# "model"; they stay readable through the configs columns (hash, timing).
IDENTITY_KEYS = (
    "identity_hash",
    "target",
    "core",
    "kernel",
    "kernel_config",
    "kernel_config_hash",
    "compiler",
    "compiler_version",
    "cflags",
    "ldflags",
    "timing",
)


@dataclass(frozen=True)
class ConfigView:
    """One stored configuration. ``identity`` is the full dict given to ``upsert_config``."""

    id: int
    hash: str
    target: str
    core: str
    kernel: str
    kernel_config: dict[str, object]
    kernel_config_hash: str
    compiler: str
    compiler_version: str
    cflags: str
    ldflags: str
    timing: dict[str, object]  # the timing-model settings (identity "timing")
    identity: dict[str, object]


@dataclass(frozen=True)
class MetricView:
    """One metric of one benchmark result, with its summaries in unit display order."""

    id: int
    name: str
    description: str
    n_samples: int
    summaries: dict[Unit, Summary]
    # What its cycles and us stand on; None: stored before time bases were recorded.
    time_base: TimeBase | None = TimeBase.MODELLED
    time_note: str = ""  # a derived metric's formula with the numbers used


@dataclass(frozen=True)
class ResultView:
    """One stored benchmark result (a row of ``bench_runs``); the typed values of
    ``BenchResult`` as stored."""

    id: int
    benchmark: str
    config: ConfigView
    source_hash: str
    status: str  # ok | failed | n/a
    reason: str | None
    console: str
    total_insns: int
    total_cycles: int
    calibration: Sample | None
    wall_s: float | None  # host seconds of the emulator run; None when nothing ran
    counters: dict[str, int]  # LAB-KV values the firmware printed
    footprint: Footprint | None
    footprint_error: str | None  # why there is no footprint, when one was attempted
    created_at: str
    metrics: tuple[MetricView, ...] = ()
    irq_windows: IrqWindows | None = None  # stored by `run --irq-windows`
    console_dropped: int = 0  # console bytes the runner left out (its cap), 0: all kept


@dataclass(frozen=True)
class RunView:
    """One run and all its results, in the order they were stored.

    Times are ISO 8601 UTC strings (``2026-11-22T04:00:00Z``). ``status`` is as read,
    except that a ``running`` run whose process is gone reads as ``incomplete``.
    """

    id: int
    started_at: str
    finished_at: str | None
    status: str
    rtoslab_revision: str
    host: str
    tool_versions: dict[str, str]
    command: str
    experiment: str | None
    results: tuple[ResultView, ...] = field(default=())
    # an experiment's report spec as stored (JSON, rtoslab.report.spec); None: not an
    # experiment, or stored before schema v5
    report_spec: str | None = None

    @property
    def configs(self) -> tuple[ConfigView, ...]:
        """The configurations of the results, each once, in order of first use."""
        seen: dict[int, ConfigView] = {}
        for result in self.results:
            seen.setdefault(result.config.id, result.config)
        return tuple(seen.values())

    def results_for(self, config_id: int) -> tuple[ResultView, ...]:
        return tuple(r for r in self.results if r.config.id == config_id)


@dataclass(frozen=True)
class RunInfo:
    """One line of ``list_runs``: a run without its results, with result counts."""

    id: int
    started_at: str
    finished_at: str | None
    status: str
    rtoslab_revision: str
    host: str
    command: str
    experiment: str | None
    n_ok: int
    n_failed: int
    n_na: int
