"""The n/a decisions: whether a benchmark can run with a kernel, on a target, with an
allocator and with a configuration's defines, and if not, the reason stored with it."""

from __future__ import annotations

from rtoslab.catalog.allocators import DEFAULT_ALLOCATOR, AllocatorCaps
from rtoslab.catalog.benchmarks import Benchmark
from rtoslab.catalog.ports import Kernel
from rtoslab.catalog.targets import THUMB1_CPUS, Target


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


def missing_alloc_capabilities(bench: Benchmark, defines: dict[str, str],
                               allocators: AllocatorCaps) -> list[str]:
    """LAB_ALLOC_HAS_* the benchmark needs that the build's allocator (LAB_ALLOC) lacks.
    An unknown allocator has none missing here: its build says what is wrong."""
    alloc = defines.get("LAB_ALLOC", DEFAULT_ALLOCATOR)
    caps = allocators.get(alloc)
    if caps is None:
        return []
    return [c for c in bench.requires if c.startswith("LAB_ALLOC_HAS_") and not caps[0].get(c, False)]


def alloc_na_reason(bench: Benchmark, defines: dict[str, str], allocators: AllocatorCaps) -> str | None:
    missing = missing_alloc_capabilities(bench, defines, allocators)
    if not missing:
        return None
    alloc = defines.get("LAB_ALLOC", DEFAULT_ALLOCATOR)
    reasons = allocators[alloc][1]
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
