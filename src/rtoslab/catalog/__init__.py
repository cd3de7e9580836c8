"""What exists: targets, kernel ports and benchmarks, discovered from their folders.

Adding one means adding a folder (firmware/targets/X/target.toml, firmware/ports/X/
port.toml, firmware/bench/X/bench.toml); nothing here lists them. Folders outside the
checkout are added to the search (``--bench-path``, ``--port-path``, ``--target-path``,
a project's rtoslab.toml, an experiment file): each path is either one such folder (it
holds the .toml itself) or a folder of them.

The parts, by responsibility: ``search`` (where folders are looked for), ``targets``,
``ports`` and ``benchmarks`` (each kind's file schema and checks), ``allocators``,
``applicability`` (the n/a decisions, pure functions of the values they are given) and
``catalog`` (``Catalog``: what one set of search paths finds, each kind discovered once).

There is no process-wide catalog: whoever reads the search paths (the CLI in
``cli/main.py``, the Python API in ``api.py``) makes one ``Catalog`` and passes it down
(a ``BuildConfig`` and an ``Experiment`` carry it), so two catalogs with different
search paths live side by side in one process. This package exports the data types, the
schema helpers and the n/a decisions; every lookup is a ``Catalog`` method.
"""

from __future__ import annotations

from rtoslab.catalog.allocators import DEFAULT_ALLOCATOR, AllocatorCaps
from rtoslab.catalog.applicability import (
    define_na_reason,
    lacked_features,
    missing_capabilities,
    na_reason,
    target_lacks,
    too_few_cores,
)
from rtoslab.catalog.benchmarks import BenchFile, Benchmark, DefineLimit, ValidationCase
from rtoslab.catalog.catalog import Catalog
from rtoslab.catalog.ports import Kernel, OptionRule, PortFile, read_capabilities
from rtoslab.catalog.search import Kind, SearchPaths
from rtoslab.catalog.targets import (
    FLOAT_ABIS,
    PROBE_MODES,
    TARGET_FEATURES,
    THUMB1_CPUS,
    BoardFacts,
    FlashLatency,
    FootprintSections,
    MemoryRegion,
    ProbeRegion,
    Target,
    TargetFile,
    load_target,
)

__all__ = [
    "DEFAULT_ALLOCATOR", "FLOAT_ABIS", "PROBE_MODES", "TARGET_FEATURES", "THUMB1_CPUS",
    "AllocatorCaps", "BenchFile", "Benchmark", "BoardFacts", "Catalog", "DefineLimit",
    "FlashLatency", "FootprintSections", "Kernel", "Kind", "MemoryRegion", "OptionRule",
    "PortFile", "ProbeRegion", "SearchPaths", "Target", "TargetFile", "ValidationCase",
    "define_na_reason", "lacked_features", "load_target", "missing_capabilities", "na_reason",
    "read_capabilities", "target_lacks", "too_few_cores",
]
