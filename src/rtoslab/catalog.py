"""What exists: targets, kernel ports and benchmarks, discovered from their folders.

Adding one means adding a folder (firmware/targets/X/target.toml, firmware/ports/X/
port.toml, firmware/bench/X/bench.toml); nothing here lists them.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from rtoslab.paths import firmware_root
from rtoslab.records import RtoslabError
from rtoslab.schema import parse_file

_CAP_RE = re.compile(r"^\s*#\s*define\s+(LAB_HAS_[A-Z0-9_]+)\s+([01])\b", re.MULTILINE)
_CAP_DOC_RE = re.compile(r"^\s*#\s*define\s+(LAB_HAS_[A-Z0-9_]+)\s+([01])\s*/\*\s*(.*?)\s*\*/",
                         re.MULTILINE)


@dataclass(frozen=True)
class Target:
    name: str
    path: Path
    description: str
    qemu_machine: str
    core: str
    clock_hz: int
    probe_base: int
    probe_size: int
    model_defaults: dict[str, object]  # timing-model settings ([timing] in target.toml)
    raw: dict[str, object] = field(default_factory=dict, compare=False, hash=False)


@dataclass(frozen=True)
class Kernel:
    name: str
    path: Path
    description: str
    capabilities: dict[str, bool]
    unsupported_reasons: dict[str, str]  # capability -> why the port lacks it
    options: dict[str, object]  # default kernel configuration values
    config_templates: tuple[str, ...]  # files X.in rendered into the config dir as X
    deps: tuple[str, ...]  # crates.io packages whose sources the build needs
    is_template: bool


@dataclass(frozen=True)
class Benchmark:
    name: str
    path: Path
    suites: tuple[str, ...]
    description: str
    requires: tuple[str, ...]
    insn_limit: int
    timeout_s: float


def _load_toml(path: Path) -> dict[str, object]:
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        raise RtoslabError(f"{path}: not valid TOML ({e}): fix the file") from e


def _get(data: dict[str, object], key: str, kind: type, path: Path, default: object = None) -> object:
    value = data.get(key, default)
    if value is None:
        raise RtoslabError(f"{path}: missing key '{key}'")
    if not isinstance(value, kind):
        raise RtoslabError(f"{path}: key '{key}' must be a {kind.__name__}")
    return value


@cache
def targets() -> dict[str, Target]:
    found: dict[str, Target] = {}
    for toml in sorted((firmware_root() / "targets").glob("*/target.toml")):
        d = _load_toml(toml)
        name = toml.parent.name
        found[name] = Target(
            name=name,
            path=toml.parent,
            description=str(_get(d, "description", str, toml, "")),
            qemu_machine=str(_get(d, "qemu_machine", str, toml)),
            core=str(_get(d, "core", str, toml)),
            clock_hz=int(_get(d, "clock_hz", int, toml)),  # type: ignore[call-overload]
            probe_base=int(_get(d, "probe_base", int, toml)),  # type: ignore[call-overload]
            probe_size=int(_get(d, "probe_size", int, toml)),  # type: ignore[call-overload]
            model_defaults=dict(_get(d, "timing", dict, toml, {})),  # type: ignore[call-overload]
            raw=d,
        )
    return found


def read_capabilities(header: Path) -> tuple[dict[str, bool], dict[str, str]]:
    """LAB_HAS_* values from a port's lab_port_caps.h, and the comment beside each 0."""
    text = header.read_text()
    caps = {m.group(1): m.group(2) == "1" for m in _CAP_RE.finditer(text)}
    reasons = {m.group(1): m.group(3) for m in _CAP_DOC_RE.finditer(text) if m.group(2) == "0"}
    return caps, reasons


@dataclass(frozen=True)
class PortFile:
    """Schema of firmware/ports/<name>/port.toml."""

    description: str = ""
    deps: tuple[str, ...] = ()  # crates.io packages (deps/Cargo.toml) whose sources it needs
    config_templates: tuple[str, ...] = ()  # X: the port folder holds X.in
    template: bool = False  # a skeleton to copy, not a kernel to measure
    options: dict[str, str | int | bool] = field(default_factory=dict)  # kernel option defaults


@dataclass(frozen=True)
class BenchFile:
    """Schema of firmware/bench/<name>/bench.toml."""

    suite: tuple[str, ...]
    description: str
    requires: tuple[str, ...] = ()  # LAB_HAS_* capabilities a port must have
    insn_limit: int = 2_000_000_000  # guest instructions before the run counts as a hang
    timeout_s: float = 120.0  # wall-clock seconds before QEMU counts as broken


_SUITE_RE = re.compile(r"[a-z0-9_]+")
_CAP_NAME_RE = re.compile(r"LAB_HAS_[A-Z0-9_]+")


@cache
def kernels() -> dict[str, Kernel]:
    found: dict[str, Kernel] = {}
    for toml in sorted((firmware_root() / "ports").glob("*/port.toml")):
        d = parse_file(PortFile, toml)
        name = toml.parent.name
        caps_h = toml.parent / "lab_port_caps.h"
        if not caps_h.is_file():
            raise RtoslabError(f"kernel port {name}: missing {caps_h}")
        caps, reasons = read_capabilities(caps_h)
        for i, tmpl in enumerate(d.config_templates):
            if not (toml.parent / f"{tmpl}.in").is_file():
                raise RtoslabError(f"{toml}: key 'config_templates[{i}]' is {tmpl!r} but there is no "
                                   f"{tmpl}.in in {toml.parent}: add the file or drop the entry")
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
        )
    return found


@cache
def benchmarks() -> dict[str, Benchmark]:
    found: dict[str, Benchmark] = {}
    known_caps = {c for k in kernels().values() for c in k.capabilities}
    for toml in sorted((firmware_root() / "bench").glob("*/bench.toml")):
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
            if not _CAP_NAME_RE.fullmatch(cap) or cap not in known_caps:
                raise RtoslabError(f"{toml}: key 'requires[{i}]' is {cap!r}: choose capabilities the "
                                   f"ports declare: {_choices(known_caps)}")
        if d.insn_limit <= 0:
            raise RtoslabError(f"{toml}: key 'insn_limit' is {d.insn_limit}: give a positive "
                               "instruction count")
        if d.timeout_s <= 0:
            raise RtoslabError(f"{toml}: key 'timeout_s' is {d.timeout_s:g}: give positive seconds")
        found[name] = Benchmark(
            name=name,
            path=toml.parent,
            suites=d.suite,
            description=d.description,
            requires=d.requires,
            insn_limit=d.insn_limit,
            timeout_s=d.timeout_s,
        )
    return found


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
        raise RtoslabError(f"unknown target '{name}': choose one of {_choices(targets())}")
    return t


def get_kernel(name: str) -> Kernel:
    k = kernels().get(name)
    if k is None:
        raise RtoslabError(f"unknown kernel '{name}': choose one of {_choices(kernels())}")
    return k


def suite_benchmarks(suite: str) -> list[Benchmark]:
    names = suites().get(suite)
    if not names:
        raise RtoslabError(f"unknown suite '{suite}': choose one of {_choices(suites())}")
    return [benchmarks()[n] for n in sorted(names)]


def get_benchmark(name: str) -> Benchmark:
    b = benchmarks().get(name)
    if b is None:
        raise RtoslabError(f"unknown benchmark '{name}': `rtoslab list` shows them")
    return b


def missing_capabilities(bench: Benchmark, kernel: Kernel) -> list[str]:
    """Capabilities the benchmark needs that the kernel does not have (empty: it can run)."""
    return [c for c in bench.requires if not kernel.capabilities.get(c, False)]


def na_reason(bench: Benchmark, kernel: Kernel) -> str | None:
    missing = missing_capabilities(bench, kernel)
    if not missing:
        return None
    parts = []
    for cap in missing:
        why = kernel.unsupported_reasons.get(cap)
        parts.append(f"{cap}=0" + (f" ({why})" if why else ""))
    return f"kernel {kernel.name} lacks " + ", ".join(parts)
