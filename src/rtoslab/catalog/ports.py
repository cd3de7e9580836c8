"""Kernel ports: port.toml and lab_port_caps.h (the LAB_HAS_* capabilities), checked."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from rtoslab.builder.kernel_source import KernelSourceSpec
from rtoslab.catalog.common import check_min_cores, choices
from rtoslab.paths import firmware_root
from rtoslab.records import RtoslabError
from rtoslab.schema import parse_file

_CAP_RE = re.compile(r"^\s*#\s*define\s+(LAB_HAS_[A-Z0-9_]+)\s+([01])\b", re.MULTILINE)
_CAP_DOC_RE = re.compile(r"^\s*#\s*define\s+(LAB_HAS_[A-Z0-9_]+)\s+([01])\s*/\*\s*(.*?)\s*\*/",
                         re.MULTILINE)


def read_capabilities(header: Path) -> tuple[dict[str, bool], dict[str, str]]:
    """LAB_HAS_* values from a port's lab_port_caps.h, and the comment beside each 0."""
    text = header.read_text()
    caps = {m.group(1): m.group(2) == "1" for m in _CAP_RE.finditer(text)}
    reasons = {m.group(1): m.group(3) for m in _CAP_DOC_RE.finditer(text) if m.group(2) == "0"}
    return caps, reasons


@dataclass(frozen=True)
class OptionRule:
    """One [[rule]] of a port.toml: when the resolved options have every value of `when`,
    they must have every value of `require`; otherwise the configuration is refused before
    building, with `reason`."""

    when: dict[str, str | int | bool]
    require: dict[str, str | int | bool]
    reason: str


@dataclass(frozen=True)
class PortFile:
    """Schema of firmware/ports/<name>/port.toml."""

    description: str = ""
    deps: tuple[str, ...] = ()  # crates.io packages (deps/Cargo.toml) whose sources it needs
    config_templates: tuple[str, ...] = ()  # X: the port folder holds X.in
    template: bool = False  # a skeleton to copy, not a kernel to measure
    options: dict[str, str | int | bool] = field(default_factory=dict)  # kernel option defaults
    # A Rust model: the name of its crate in firmware/rust/ (docs/rust-models.md).
    rust_crate: str = ""
    # The kernel needs a target with at least this many cores (target.toml cores).
    min_cores: int = 1
    # Option combinations refused before building.
    rule: tuple[OptionRule, ...] = ()
    # Options that take only some values: any other is refused before building.
    values: dict[str, tuple[str | int | bool, ...]] = field(default_factory=dict)
    # The hook for building the kernel from the user's own tree (--kernel-source).
    kernel_source: KernelSourceSpec | None = None
    # Another port this one builds on (its name): that port's folder comes after this
    # one's on the include path and is LAB_PORT_BASE_DIR in port.cmake, so the port uses
    # its files without reaching into it by a relative path (freertos-smp: freertos).
    base: str = ""


@dataclass(frozen=True)
class Kernel:
    name: str
    path: Path
    description: str
    capabilities: dict[str, bool]
    unsupported_reasons: dict[str, str]  # capability -> why the port lacks it
    options: dict[str, object]  # default kernel configuration values
    # files X.in rendered into the config dir as X (X.in from the port's folder, else its
    # base's: a template both share lives once, in the base)
    config_templates: tuple[str, ...]
    deps: tuple[str, ...]  # crates.io packages whose sources the build needs
    is_template: bool
    # A Rust model (docs/rust-models.md): its crate in firmware/rust/; benchmarks with a
    # Rust version for this kernel (bench/<b>/rust/<kernel>/) use it. "" = a C kernel.
    rust_crate: str = ""
    # Cores the kernel needs on the target (port.toml min_cores; target.toml cores).
    min_cores: int = 1
    # Option combinations the port refuses before building (port.toml [[rule]]).
    rules: tuple[OptionRule, ...] = ()
    # Options that take only some values (port.toml [values]): option -> the values.
    values: dict[str, tuple[str | int | bool, ...]] = field(default_factory=dict)
    # The kernel's sources may come from the user's tree (port.toml [kernel_source]:
    # `--kernel-source DIR`; rtoslab.builder.kernel_source). None: the port has no hook.
    source: KernelSourceSpec | None = None
    # The folder of the port this one builds on (port.toml base); None: none.
    base_path: Path | None = None


def load_kernels(tomls: Iterable[Path]) -> dict[str, Kernel]:
    """Every kernel port of these port.toml files, checked (a base must be another of them)."""
    found: dict[str, Kernel] = {}
    bases: dict[str, tuple[str, Path]] = {}  # port -> (its base, its port.toml)
    from_base: dict[str, list[tuple[int, str]]] = {}  # port -> templates its folder lacks
    for toml in tomls:
        d = parse_file(PortFile, toml)
        name = toml.parent.name
        caps_h = toml.parent / "lab_port_caps.h"
        if not caps_h.is_file():
            raise RtoslabError(f"kernel port {name}: missing {caps_h}")
        caps, reasons = read_capabilities(caps_h)
        templates_checked_with_base = []
        for i, tmpl in enumerate(d.config_templates):
            if (toml.parent / f"{tmpl}.in").is_file():
                continue
            if not d.base:
                raise RtoslabError(f"{toml}: key 'config_templates[{i}]' is {tmpl!r} but there is no "
                                   f"{tmpl}.in in {toml.parent}: add the file or drop the entry")
            templates_checked_with_base.append((i, tmpl))  # may be the base's (checked below)
        if d.rust_crate and not (firmware_root() / "rust" / d.rust_crate / "Cargo.toml").is_file():
            raise RtoslabError(f"{toml}: key 'rust_crate' is {d.rust_crate!r} but there is no "
                               f"firmware/rust/{d.rust_crate}/Cargo.toml: name a crate of the "
                               "Rust firmware workspace or drop the key")
        check_min_cores(toml, d.min_cores, "the kernel")
        for i, rule in enumerate(d.rule):
            for part, values in (("when", rule.when), ("require", rule.require)):
                if not values:
                    raise RtoslabError(f"{toml}: key 'rule[{i}].{part}' is empty: name at least one option")
                for key in values:
                    if key not in d.options:
                        raise RtoslabError(f"{toml}: key 'rule[{i}].{part}' names {key!r}, which is not "
                                           "in [options]: name one of the port's options")
        for key, allowed in d.values.items():
            if key not in d.options:
                raise RtoslabError(f"{toml}: key 'values.{key}' is not in [options]: name one of the "
                                   "port's options")
            if not allowed:
                raise RtoslabError(f"{toml}: key 'values.{key}' is empty: list the values it takes")
        if d.kernel_source is not None:
            crate = d.kernel_source.pinned.split("/", 1)[0]
            if crate not in d.deps:
                deps = ", ".join(d.deps) or "none"
                raise RtoslabError(f"{toml}: key 'kernel_source.pinned' is {d.kernel_source.pinned!r}: "
                                   f"its first part must be a crate of 'deps' ({deps})")
            try:
                re.compile(d.kernel_source.version_pattern)
            except re.error as e:
                raise RtoslabError(f"{toml}: key 'kernel_source.version_pattern' is not a regular "
                                   f"expression ({e})") from e
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
            rust_crate=d.rust_crate,
            min_cores=d.min_cores,
            rules=d.rule,
            values=dict(d.values),
            source=d.kernel_source,
        )
        bases[name] = (d.base, toml)
        from_base[name] = templates_checked_with_base
    for name, (base, toml) in bases.items():
        if not base:
            continue
        if base == name or base not in found:
            others = choices(n for n in found if n != name)
            raise RtoslabError(f"{toml}: key 'base' is {base!r}, which is not another kernel port: "
                               f"name one of {others}")
        if bases[base][0]:
            raise RtoslabError(f"{toml}: key 'base' is {base!r}, which has a base of its own "
                               f"({bases[base][0]!r}): a port builds on one port that has none")
        for i, tmpl in from_base[name]:
            if not (found[base].path / f"{tmpl}.in").is_file():
                raise RtoslabError(f"{toml}: key 'config_templates[{i}]' is {tmpl!r} but there is no "
                                   f"{tmpl}.in in {toml.parent} or in its base {found[base].path}: "
                                   "add the file or drop the entry")
        found[name] = dataclasses.replace(found[name], base_path=found[base].path)
    return found
