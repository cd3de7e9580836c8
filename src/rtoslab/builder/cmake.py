"""Build one configuration with CMake + Ninja into a cached build directory.

The build directory is named by the configuration hash and configured with every
benchmark the kernel can run, so later runs of other benchmarks reuse it; Ninja rebuilds
only what changed (nothing, for an unchanged configuration).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from rtoslab.builder.config import BuildConfig
from rtoslab.builder.deps import cmake_var, dep_path
from rtoslab.catalog import Benchmark, benchmarks, missing_capabilities
from rtoslab.paths import cache_root, firmware_root
from rtoslab.records import RtoslabError

_PLACEHOLDER = re.compile(r"@([A-Za-z_][A-Za-z0-9_]*)@")


@dataclass(frozen=True)
class BuildResult:
    config_hash: str
    build_dir: Path
    elfs: dict[str, Path]  # benchmark -> ELF
    rebuilt: bool  # did ninja have anything to do


def _render_value(value: object) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def render_template(text: str, options: dict[str, object], source: str) -> str:
    """Replace every @NAME@ with the option's value; an unknown name is an error."""

    def sub(m: re.Match[str]) -> str:
        key = m.group(1)
        if key not in options:
            raise RtoslabError(f"{source}: placeholder @{key}@ has no kernel option: add it to port.toml")
        return _render_value(options[key])

    return _PLACEHOLDER.sub(sub, text)


def write_kernel_config(config: BuildConfig, out_dir: Path) -> None:
    kernel = config.kernel_info()
    options = config.resolved_kernel_options()
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in kernel.config_templates:
        src = kernel.path / f"{name}.in"
        text = render_template(src.read_text(), options, str(src))
        dst = out_dir / name
        if not dst.exists() or dst.read_text() != text:  # keep mtimes: no needless rebuilds
            dst.write_text(text)


def buildable_benchmarks(config: BuildConfig) -> list[Benchmark]:
    kernel = config.kernel_info()
    return [b for b in benchmarks().values() if not missing_capabilities(b, kernel)]


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise RtoslabError(f"{name} not found: run `make setup` (it installs what is missing)")
    return path


def build(config: BuildConfig, wanted: list[Benchmark]) -> BuildResult:
    """Configure (if needed) and build the wanted benchmarks. Blocks until done."""
    cmake = _tool("cmake")
    _tool("ninja")
    _tool("arm-none-eabi-gcc")
    chash = config.image_key()
    build_dir = cache_root() / "build" / chash
    kconfig = build_dir / "kconfig"
    write_kernel_config(config, kconfig)

    benches = buildable_benchmarks(config)
    args = {
        "LAB_TARGET": config.target,
        "LAB_KERNEL": config.kernel,
        "LAB_KERNEL_CONFIG_DIR": str(kconfig),
        "LAB_BENCH_DIRS": ";".join(str(b.path) for b in sorted(benches, key=lambda b: b.name)),
        "LAB_OPT_FLAGS": ";".join(config.cflags),
        "LAB_DEFINES": ";".join(config.define_flags()),
        "CMAKE_TOOLCHAIN_FILE": str(firmware_root() / "cmake" / "arm-none-eabi.cmake"),
        "CMAKE_BUILD_TYPE": "None",
    }
    # The image is built for the emulated board's clock (the rate QEMU's SysTick counts
    # at), never the timing model's clock_hz, which only converts cycles to time.
    args["LAB_TARGET_CLOCK_HZ"] = str(config.target_info().clock_hz)
    for crate in config.kernel_info().deps:
        args[cmake_var(crate)] = str(dep_path(crate))

    stamp = build_dir / "rtoslab-configure.json"
    log = build_dir / "build.log"
    want_stamp = json.dumps(args, sort_keys=True, indent=1)
    if not stamp.exists() or stamp.read_text() != want_stamp or not (build_dir / "build.ninja").exists():
        cmd = [cmake, "-G", "Ninja", "-S", str(firmware_root()), "-B", str(build_dir)]
        cmd += [f"-D{k}={v}" for k, v in args.items()]
        _run_logged(cmd, log, f"configure of {config.describe()} ({chash})")
        stamp.write_text(want_stamp)
        (build_dir / "rtoslab-config.json").write_text(
            json.dumps({"hash": chash, "target": config.target, "kernel": config.kernel,
                        "kernel_options": config.resolved_kernel_options(),
                        "cflags": list(config.cflags), "defines": config.define_map(),
                        "timing": config.timing_settings()},
                       indent=1, sort_keys=True, default=str))
    names = sorted({b.name for b in wanted})
    for b in wanted:
        if b not in benches:
            raise RtoslabError(f"benchmark {b.name} cannot be built for kernel {config.kernel}")
    out = _run_logged(["ninja", "-C", str(build_dir), *names], log,
                      f"build of {config.describe()} ({chash})")
    rebuilt = "no work to do" not in out
    elfs = {n: build_dir / f"{n}.elf" for n in names}
    for n, p in elfs.items():
        if not p.is_file():
            raise RtoslabError(f"build of {n} produced no ELF at {p}: see {log}")
    return BuildResult(chash, build_dir, elfs, rebuilt)


_ERROR_LINE = re.compile(r"(\berror:|\bError\b|FAILED:|CMake Error)")


def first_error(output: str) -> str:
    """The compiler's or CMake's first error line (not a command line that says -Werror)."""
    lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
    for ln in lines:
        if _ERROR_LINE.search(ln) and not ln.startswith(("/usr/bin/", "[")):
            return ln
    return lines[-1] if lines else "no output"


def _run_logged(cmd: list[str], log: Path, what: str) -> str:
    log.parent.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    with log.open("a") as f:
        f.write("$ " + " ".join(cmd) + "\n" + proc.stdout + proc.stderr)
    if proc.returncode != 0:
        text = proc.stdout + proc.stderr
        err = first_error(text)
        raise RtoslabError(f"{what} failed: {err[:300]} (full log: {log})")
    return proc.stdout
