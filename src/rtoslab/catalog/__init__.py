"""What exists: targets, kernel ports and benchmarks, discovered from their folders.

Adding one means adding a folder (firmware/targets/X/target.toml, firmware/ports/X/
port.toml, firmware/bench/X/bench.toml); nothing here lists them. Folders outside the
checkout are added to the search (``--bench-path``, ``--port-path``, ``--target-path``,
a project's rtoslab.toml, an experiment file): each path is either one such folder (it
holds the .toml itself) or a folder of them.

The parts, by responsibility: ``search`` (where folders are looked for), ``targets``,
``ports`` and ``benchmarks`` (each kind's file schema and checks), ``allocators``,
``applicability`` (the n/a decisions) and ``catalog`` (``Catalog``: what one set of
search paths finds, each kind discovered once). The functions here answer from the
process's current catalog (``current()``); ``add_search_paths`` replaces it with one
that also searches the given folders, ``reset_search_paths`` with the checkout's alone.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from rtoslab.catalog import applicability as _na
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
from rtoslab.catalog.search import search_dirs as _search_dirs
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
    "FlashLatency", "FootprintSections", "Kernel", "MemoryRegion", "OptionRule", "PortFile",
    "ProbeRegion", "SearchPaths", "Target", "TargetFile", "ValidationCase",
    "add_search_paths", "alloc_na_reason", "allocator_capabilities", "benchmarks",
    "check_kernel_fits_target", "clear_caches", "current", "define_na_reason", "get_benchmark",
    "get_kernel", "get_target", "kernels", "lacked_features", "load_target",
    "missing_alloc_capabilities", "missing_capabilities", "na_reason", "read_capabilities",
    "reset_search_paths", "search_dirs", "search_paths", "suite_benchmarks", "suites",
    "target_lacks", "targets", "too_few_cores", "use",
]

_current = [Catalog()]


def current() -> Catalog:
    """The catalog this process answers from."""
    return _current[0]


def use(catalog: Catalog) -> None:
    """Answer from ``catalog`` from now on."""
    _current[0] = catalog


def search_paths() -> SearchPaths:
    """The folders added with ``add_search_paths`` so far."""
    return current().paths


def add_search_paths(bench: Iterable[Path] = (), port: Iterable[Path] = (),
                     target: Iterable[Path] = ()) -> None:
    """Search these folders too (each: one benchmark/port/target folder, or a folder of
    them). A path that is not a folder is a one-line error. Adding a path already
    searched does nothing."""
    use(current().with_paths(bench, port, target))


def reset_search_paths() -> None:
    """Back to the checkout's folders only."""
    use(Catalog())


def clear_caches() -> None:
    """Look at the folders again (after they changed on disk): a new catalog for the same
    search paths."""
    use(Catalog(current().paths))


def search_dirs(kind: Kind) -> list[Path]:
    """Where ``kind`` folders are looked for: the checkout's, then the added paths."""
    return _search_dirs(current().paths, kind)


def targets() -> dict[str, Target]:
    return current().targets


def kernels() -> dict[str, Kernel]:
    return current().kernels


def benchmarks() -> dict[str, Benchmark]:
    return current().benchmarks


def allocator_capabilities() -> AllocatorCaps:
    """Allocator folder (firmware/allocators/<name>/) -> its LAB_ALLOC_HAS_* values from
    lab_alloc_caps.h and the comment beside each 0 (docs/allocation.md)."""
    return current().allocators


def suites() -> dict[str, list[str]]:
    return current().suites()


def get_target(name: str) -> Target:
    return current().get_target(name)


def get_kernel(name: str) -> Kernel:
    return current().get_kernel(name)


def get_benchmark(name: str) -> Benchmark:
    return current().get_benchmark(name)


def suite_benchmarks(suite: str) -> list[Benchmark]:
    return current().suite_benchmarks(suite)


def check_kernel_fits_target(kernel: Kernel, target: Target) -> None:
    """A kernel that needs more cores than the target has is refused before building."""
    current().check_kernel_fits_target(kernel, target)


def missing_alloc_capabilities(bench: Benchmark, defines: dict[str, str]) -> list[str]:
    """LAB_ALLOC_HAS_* the benchmark needs that the build's allocator (LAB_ALLOC) lacks."""
    return _na.missing_alloc_capabilities(bench, defines, current().allocators)


def alloc_na_reason(bench: Benchmark, defines: dict[str, str]) -> str | None:
    return _na.alloc_na_reason(bench, defines, current().allocators)
