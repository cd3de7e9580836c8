"""The ``Catalog``: the targets, kernel ports, benchmarks and allocators found for one
set of search paths, each kind discovered once, when first asked for.

A catalog never changes: adding search paths makes another (``with_paths``), whose
discoveries start afresh, so nothing is cleared by hand (a fresh ``Catalog(paths)``
looks at the folders again). Whoever reads the search paths (the CLI, the Python API)
makes one and passes it down: a ``BuildConfig`` and an ``Experiment`` carry theirs.
Pickled (a Ray task's arguments), a catalog travels as its search paths alone and the
receiving process discovers the same folders again.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cached_property
from pathlib import Path

from rtoslab.catalog import applicability
from rtoslab.catalog.allocators import AllocatorCaps, read_allocators
from rtoslab.catalog.benchmarks import Benchmark, load_benchmarks
from rtoslab.catalog.common import choices
from rtoslab.catalog.ports import Kernel, load_kernels
from rtoslab.catalog.search import Kind, SearchPaths, discover, looked_in, search_dirs
from rtoslab.catalog.targets import Target, load_target
from rtoslab.names import did_you_mean
from rtoslab.paths import firmware_root
from rtoslab.records import RtoslabError


class Catalog:
    """What exists for these search paths (besides the checkout's own folders)."""

    def __init__(self, paths: SearchPaths | None = None) -> None:
        self.paths = paths if paths is not None else SearchPaths()

    def __repr__(self) -> str:
        return f"Catalog({self.paths!r})"

    def __reduce__(self) -> tuple[type[Catalog], tuple[SearchPaths]]:
        # Pickled as its search paths: the receiver (a cluster worker) discovers the same
        # folders itself rather than unpickling another process's discoveries.
        return (Catalog, (self.paths,))

    def with_paths(self, bench: Iterable[Path] = (), port: Iterable[Path] = (),
                   target: Iterable[Path] = ()) -> Catalog:
        """This catalog with these folders searched too (each: one benchmark/port/target
        folder, or a folder of them; a path that is not a folder is a one-line error):
        another catalog, or this one when nothing is new."""
        paths = self.paths.with_added(bench, port, target)
        return self if paths == self.paths else Catalog(paths)

    def search_dirs(self, kind: Kind) -> list[Path]:
        """Where ``kind`` folders are looked for: the checkout's, then the added paths."""
        return search_dirs(self.paths, kind)

    @cached_property
    def targets(self) -> dict[str, Target]:
        return {t.parent.name: load_target(t) for t in discover(self.paths, "target", "target.toml")}

    @cached_property
    def kernels(self) -> dict[str, Kernel]:
        return load_kernels(discover(self.paths, "port", "port.toml"))

    @cached_property
    def allocators(self) -> AllocatorCaps:
        """Allocator folder (firmware/allocators/<name>/) -> its LAB_ALLOC_HAS_* values
        from lab_alloc_caps.h and the comment beside each 0 (docs/allocation.md)."""
        return read_allocators(firmware_root())

    @cached_property
    def benchmarks(self) -> dict[str, Benchmark]:
        return load_benchmarks(discover(self.paths, "bench", "bench.toml"), self.kernels, self.allocators)

    def suites(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for b in self.benchmarks.values():
            for s in b.suites:
                out.setdefault(s, []).append(b.name)
        return out

    def get_target(self, name: str) -> Target:
        t = self.targets.get(name)
        if t is None:
            raise RtoslabError(f"unknown target '{name}'{did_you_mean(name, self.targets)}: choose one of "
                               f"{choices(self.targets)} (looked in "
                               f"{looked_in(self.paths, 'target')}; add folders with --target-path or "
                               "rtoslab.toml)")
        return t

    def check_kernel_fits_target(self, kernel: Kernel, target: Target) -> None:
        """A kernel that needs more cores than the target has is refused before building (a
        wrong pair, not a benchmark's limit: nothing of it could run), naming targets that
        have enough."""
        have = target.spec.cores
        if have >= kernel.min_cores:
            return
        fits = sorted(t.name for t in self.targets.values() if t.spec.cores >= kernel.min_cores)
        hint = f"use --target {fits[0]}" if len(fits) == 1 else (
            f"use a target with {kernel.min_cores}: {choices(fits)}" if fits else
            "no known target has that many")
        raise RtoslabError(f"kernel {kernel.name} needs {kernel.min_cores} cores (its port.toml min_cores) "
                           f"but target {target.name} has {have}: {hint}")

    def get_kernel(self, name: str) -> Kernel:
        k = self.kernels.get(name)
        if k is None:
            raise RtoslabError(f"unknown kernel '{name}'{did_you_mean(name, self.kernels)}: choose one of "
                               f"{choices(self.kernels)} (looked in "
                               f"{looked_in(self.paths, 'port')}; add folders with --port-path or "
                               "rtoslab.toml)")
        return k

    def suite_benchmarks(self, suite: str) -> list[Benchmark]:
        suites = self.suites()
        names = suites.get(suite)
        if not names:
            raise RtoslabError(f"unknown suite '{suite}'{did_you_mean(suite, suites)}: choose one of "
                               f"{choices(suites)}")
        return [self.benchmarks[n] for n in sorted(names)]

    def missing_alloc_capabilities(self, bench: Benchmark, defines: dict[str, str]) -> list[str]:
        """LAB_ALLOC_HAS_* the benchmark needs that the build's allocator (LAB_ALLOC) lacks."""
        return applicability.missing_alloc_capabilities(bench, defines, self.allocators)

    def alloc_na_reason(self, bench: Benchmark, defines: dict[str, str]) -> str | None:
        """Why the build's allocator cannot run the benchmark (its LAB_ALLOC_HAS_* = 0), or None."""
        return applicability.alloc_na_reason(bench, defines, self.allocators)

    def get_benchmark(self, name: str) -> Benchmark:
        b = self.benchmarks.get(name)
        if b is None:
            raise RtoslabError(f"unknown benchmark '{name}'{did_you_mean(name, self.benchmarks)}: looked in "
                               f"{looked_in(self.paths, 'bench')}: "
                               "`rtoslab list` shows them; add folders with --bench-path or rtoslab.toml")
        return b
