"""Benchmarks: bench.toml, checked against what the ports, allocators and targets
declare."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from rtoslab.catalog.allocators import AllocatorCaps
from rtoslab.catalog.common import check_choice, check_min_cores, choices
from rtoslab.catalog.ports import Kernel
from rtoslab.catalog.targets import TARGET_FEATURES
from rtoslab.records import DERIVED_KINDS, DerivedSpec, MetricDecl, RtoslabError
from rtoslab.schema import parse_file


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


_SUITE_RE = re.compile(r"[a-z0-9_]+")


def load_benchmarks(tomls: Iterable[Path], kernels: Mapping[str, Kernel],
                    allocators: AllocatorCaps) -> dict[str, Benchmark]:
    """Every benchmark of these bench.toml files, checked against the ports' and the
    allocators' capabilities."""
    found: dict[str, Benchmark] = {}
    known_caps = {c for k in kernels.values() for c in k.capabilities}
    alloc_caps = {c for caps, _ in allocators.values() for c in caps}
    for toml in tomls:
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
                check_choice(toml, f"requires[{i}]", cap, alloc_caps, "capabilities the allocators declare")
            else:
                check_choice(toml, f"requires[{i}]", cap, known_caps, "capabilities the ports declare")
        for i, feature in enumerate(d.needs):
            check_choice(toml, f"needs[{i}]", feature, TARGET_FEATURES, "board features")
        rust_kernels = tuple(sorted(c.parent.name for c in toml.parent.glob("rust/*/Cargo.toml")))
        for kernel, features in d.rust_needs.items():
            if kernel not in rust_kernels:
                raise RtoslabError(f"{toml}: key 'rust_needs.{kernel}' names no Rust version: "
                                   f"name a folder of rust/ ({choices(rust_kernels)})")
            for i, feature in enumerate(features):
                check_choice(toml, f"rust_needs.{kernel}[{i}]", feature, TARGET_FEATURES, "board features")
        for define, limit in d.defines_allowed.items():
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", define) or not limit.values or not limit.reason:
                raise RtoslabError(f"{toml}: key 'defines_allowed.{define}': name a C macro and give "
                                   "at least one value and a reason")
        if d.insn_limit <= 0:
            raise RtoslabError(f"{toml}: key 'insn_limit' is {d.insn_limit}: give a positive "
                               "instruction count")
        check_min_cores(toml, d.min_cores, "the benchmark")
        if d.timeout_s <= 0:
            raise RtoslabError(f"{toml}: key 'timeout_s' is {d.timeout_s:g}: give positive seconds")
        for i, case in enumerate(d.validation):
            if case.cycles <= 0 or not 0 <= case.tolerance < 1:
                raise RtoslabError(f"{toml}: key 'validation[{i}]': cycles must be positive and "
                                   f"tolerance a fraction from 0 (exact) up to 1 (got {case.cycles:g}, "
                                   f"{case.tolerance:g})")
        if d.paced_when:
            check_choice(toml, "paced_when", d.paced_when, known_caps, "capabilities the ports declare")
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
