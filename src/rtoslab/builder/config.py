"""A build configuration and its identity.

A configuration is everything that changes the firmware image apart from which benchmark
it runs: target, kernel, kernel options, compiler flags, the timing model's settings. Its
hash names the build directory (the build cache) and identifies results in the store.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from rtoslab.catalog import Kernel, Target, get_kernel, get_target
from rtoslab.records import RtoslabError


def canonical_json(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def tree_hash(paths: list[Path]) -> str:
    """Hash of the named files' paths (relative to each given root's parent) and contents;
    a folder stands for every file below it."""
    h = hashlib.sha256()
    for p in paths:
        files = sorted(f for f in p.rglob("*") if f.is_file()) if p.is_dir() else [p]
        for f in files:
            h.update(f.relative_to(p.parent).as_posix().encode())
            h.update(b"\0")
            h.update(f.read_bytes())
            h.update(b"\0")
    return h.hexdigest()


# Timing-model settings (docs/timing-model.md); all but clock_hz are plugin arguments.
MODEL_KEYS = frozenset({"clock_hz", "core", "flash", "sram", "flash_ws", "sram_ws", "prefetch", "div"})


# Allowed values of the enumerated and numeric settings (the plugin checks them too, but a
# bad value must fail before anything is built or stored).
MODEL_CHOICES: dict[str, tuple[str, ...]] = {
    "core": ("cortex-m3", "cortex-m4", "cortex-m0", "cortex-m0plus", "none"),
    "prefetch": ("on", "off"),
    "div": ("min", "typ", "max"),
}
MODEL_MAX_WS = 64


def check_model_value(key: str, value: object) -> None:
    """Raise RtoslabError, naming the setting and what is allowed, for a bad value."""
    if key in MODEL_CHOICES and str(value) not in MODEL_CHOICES[key]:
        raise RtoslabError(f"timing-model setting {key}={value}: choose one of "
                           f"{', '.join(MODEL_CHOICES[key])}")
    if key in ("flash_ws", "sram_ws"):
        try:
            ok = 0 <= int(str(value), 0) <= MODEL_MAX_WS
        except ValueError:
            ok = False
        if not ok:
            raise RtoslabError(f"timing-model setting {key}={value}: give a whole number of wait "
                               f"states from 0 to {MODEL_MAX_WS}")
    if key == "clock_hz":
        try:
            ok = int(str(value), 0) > 0
        except ValueError:
            ok = False
        if not ok:
            raise RtoslabError(f"timing-model setting clock_hz={value}: give the core clock in Hz, "
                               "e.g. 72000000")


@dataclass(frozen=True)
class BuildConfig:
    target: str = "mps2-an385"
    kernel: str = "baremetal"
    kernel_options: tuple[tuple[str, object], ...] = ()  # overrides of the port's defaults
    cflags: tuple[str, ...] = ("-O2",)
    model: tuple[tuple[str, object], ...] = ()  # timing-model settings (plugin args)
    label: str = field(default="", compare=False)  # a human name, e.g. "O2 lto"

    # ------------------------------------------------------------------ derived values
    def target_info(self) -> Target:
        return get_target(self.target)

    def kernel_info(self) -> Kernel:
        return get_kernel(self.kernel)

    def resolved_kernel_options(self) -> dict[str, object]:
        """The port's defaults with this configuration's overrides; unknown keys fail."""
        kernel = self.kernel_info()
        opts = dict(kernel.options)
        for key, value in self.kernel_options:
            if key not in kernel.options:
                known = ", ".join(sorted(kernel.options)) or "none"
                raise RtoslabError(
                    f"unknown option '{key}' for kernel {kernel.name}: known options: {known}"
                )
            opts[key] = value
        return opts

    def model_settings(self) -> dict[str, object]:
        """Effective timing-model settings: the target's defaults, then the overrides.

        ``clock_hz`` (the target's clock unless overridden) converts cycles to µs on the
        host; every other key is passed to the QEMU plugin as an argument.
        """
        target = self.target_info()
        settings: dict[str, object] = {"clock_hz": target.clock_hz, **target.model_defaults}
        for key, value in self.model:
            if key not in MODEL_KEYS:
                raise RtoslabError(f"unknown timing-model setting '{key}': known settings: "
                                   f"{', '.join(sorted(MODEL_KEYS))}")
            check_model_value(key, value)
            settings[key] = value
        return settings

    def kernel_config_hash(self) -> str:
        return sha256_text(canonical_json(self.resolved_kernel_options()))[:16]

    def build_hash(self) -> str:
        """Identity of the firmware image set (12 hex digits): the build-cache key.

        Timing-model settings are not part of it: they change how an image is measured,
        not the image, so a sweep over them reuses one build.
        """
        ident = {
            "target": self.target,
            "kernel": self.kernel,
            "kernel_options": self.resolved_kernel_options(),
            "cflags": list(self.cflags),
        }
        return sha256_text(canonical_json(ident))[:12]

    def hash(self) -> str:
        """Stable identity of this configuration, model settings included (12 hex digits)."""
        ident = {"build": self.build_hash(), "model": self.model_settings()}
        return sha256_text(canonical_json(ident))[:12]

    def describe(self) -> str:
        return self.label or " ".join(self.cflags)
