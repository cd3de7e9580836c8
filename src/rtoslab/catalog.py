"""What exists: targets, kernel ports and benchmarks, discovered from their folders.

Adding one means adding a folder (firmware/targets/X/target.toml, firmware/ports/X/
port.toml, firmware/bench/X/bench.toml); nothing here lists them.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from rtoslab.paths import firmware_root
from rtoslab.records import RtoslabError

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
    model_defaults: dict[str, object]  # timing-model settings ([model] in target.toml)
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
            model_defaults=dict(_get(d, "model", dict, toml, {})),  # type: ignore[call-overload]
            raw=d,
        )
    return found


def read_capabilities(header: Path) -> tuple[dict[str, bool], dict[str, str]]:
    """LAB_HAS_* values from a port's lab_port_caps.h, and the comment beside each 0."""
    text = header.read_text()
    caps = {m.group(1): m.group(2) == "1" for m in _CAP_RE.finditer(text)}
    reasons = {m.group(1): m.group(3) for m in _CAP_DOC_RE.finditer(text) if m.group(2) == "0"}
    return caps, reasons


@cache
def kernels() -> dict[str, Kernel]:
    found: dict[str, Kernel] = {}
    for toml in sorted((firmware_root() / "ports").glob("*/port.toml")):
        d = _load_toml(toml)
        name = toml.parent.name
        caps_h = toml.parent / "lab_port_caps.h"
        if not caps_h.is_file():
            raise RtoslabError(f"kernel port {name}: missing {caps_h}")
        caps, reasons = read_capabilities(caps_h)
        options = d.get("options", {})
        if not isinstance(options, dict):
            raise RtoslabError(f"{toml}: [options] must be a table")
        found[name] = Kernel(
            name=name,
            path=toml.parent,
            description=str(_get(d, "description", str, toml, "")),
            capabilities=caps,
            unsupported_reasons=reasons,
            options=dict(options),
            config_templates=tuple(_get(d, "config_templates", list, toml, [])),  # type: ignore[arg-type]
            deps=tuple(_get(d, "deps", list, toml, [])),  # type: ignore[arg-type]
            is_template=bool(d.get("template", False)),
        )
    return found


@cache
def benchmarks() -> dict[str, Benchmark]:
    found: dict[str, Benchmark] = {}
    for toml in sorted((firmware_root() / "bench").glob("*/bench.toml")):
        d = _load_toml(toml)
        name = toml.parent.name
        if not re.fullmatch(r"[a-z0-9_]+", name):
            raise RtoslabError(f"benchmark folder {toml.parent}: name must match [a-z0-9_]+")
        found[name] = Benchmark(
            name=name,
            path=toml.parent,
            suites=tuple(_get(d, "suite", list, toml)),  # type: ignore[arg-type]
            description=str(_get(d, "description", str, toml)),
            requires=tuple(_get(d, "requires", list, toml, [])),  # type: ignore[arg-type]
            insn_limit=int(d.get("insn_limit", 2_000_000_000)),  # type: ignore[call-overload]
            timeout_s=float(d.get("timeout_s", 120.0)),  # type: ignore[arg-type]
        )
    return found


def suites() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for b in benchmarks().values():
        for s in b.suites:
            out.setdefault(s, []).append(b.name)
    return out


def _choices(names: object) -> str:
    return ", ".join(sorted(names))  # type: ignore[call-overload]


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
