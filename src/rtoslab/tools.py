"""External tools rtoslab needs: their versions (part of every result's identity) and,
for `rtoslab doctor`, the command that installs each one that is missing."""

from __future__ import annotations

import hashlib
import platform
import re
import shutil
import subprocess
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from rtoslab.paths import plugin_path, repo_root
from rtoslab.qemu_build import PKGVERSION_PREFIX, patched_qemu_path, qemu_build_key
from rtoslab.records import RtoslabError
from rtoslab.version import __version__


@dataclass(frozen=True)
class ToolStatus:
    name: str
    found: bool
    version: str  # first line of its version output, or "" when missing
    fix: str  # the command that installs it


_APT = "sudo apt-get install -y"

# The plugin is built against QEMU plugin API version 4 (plugin/Cargo.toml), which QEMU
# 9.2 introduced (qemu-plugin.h version history: "version 4: added
# qemu_plugin_read_memory_vaddr"); older QEMUs refuse to load it. Debian 12 ships 7.2;
# bookworm-backports has 10.0, which `make setup` installs.
QEMU_MIN_VERSION = (9, 2)
QEMU_FIX = "run `make setup` (installs qemu-system-arm from bookworm-backports)"
_QEMU_VERSION_RE = re.compile(r"QEMU emulator version (\d+)\.(\d+)(?:\.(\d+))?")
TOOLS: tuple[tuple[str, list[str], str], ...] = (
    ("arm-none-eabi-gcc", ["arm-none-eabi-gcc", "--version"],
     f"{_APT} gcc-arm-none-eabi libnewlib-arm-none-eabi"),
    ("qemu-system-arm", ["qemu-system-arm", "--version"], QEMU_FIX),
    ("avr-gcc", ["avr-gcc", "--version"], f"{_APT} gcc-avr avr-libc"),
    ("qemu-system-avr", ["qemu-system-avr", "--version"],
     "run `make setup` (installs qemu-system-misc from bookworm-backports)"),
    ("cmake", ["cmake", "--version"], f"{_APT} cmake"),
    ("ninja", ["ninja", "--version"], f"{_APT} ninja-build"),
    ("cargo", ["cargo", "--version"], "install Rust (rustup) or: sudo apt-get install -y cargo"),
    ("rustc", ["rustc", "--version"], "install Rust (rustup) or: sudo apt-get install -y rustc"),
)


def _first_line(cmd: list[str]) -> str:
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    out = (proc.stdout or proc.stderr).strip().splitlines()
    return out[0].strip() if out else ""


def parse_qemu_version(line: str) -> tuple[int, int, int] | None:
    """(major, minor, micro) from the first line of `qemu-system-arm --version`."""
    m = _QEMU_VERSION_RE.search(line)
    if m is None:
        return None
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


def qemu_problem(line: str) -> str | None:
    """Why the QEMU whose version line is `line` cannot run the plugin, or None."""
    version = parse_qemu_version(line)
    floor = ".".join(map(str, QEMU_MIN_VERSION))
    if version is None:
        return (f"qemu-system-arm: cannot read its version from {line!r}: "
                f"rtoslab needs QEMU >= {floor}; {QEMU_FIX}")
    if version[:2] < QEMU_MIN_VERSION:
        have = ".".join(map(str, version))
        return (f"qemu-system-arm {have} is too old: the rtoslab plugin needs QEMU >= {floor} "
                f"(plugin API v4); {QEMU_FIX}")
    return None


ONE_CLOCK_FIX = ("run `make setup` (it builds rtoslab's patched qemu-system-arm and -avr once), "
                 "or measure on QEMU's instruction clock with --timing time=instruction")


@cache
def patched_qemu(system: str = "arm") -> Path | None:
    """rtoslab's patched qemu-system-<system> (arm, avr) for this checkout (the one clock,
    docs/timing-model.md), or None when `make setup` has not built it for the checkout's
    patch (missing or stale: the build key names the patch)."""
    try:
        path = patched_qemu_path(repo_root(), system)
        key = qemu_build_key(repo_root())
    except OSError:
        return None
    if not path.is_file() or f"{PKGVERSION_PREFIX}{key}" not in _first_line([str(path), "--version"]):
        return None
    return path


def qemu_binary(system: str = "arm") -> str:
    """The qemu-system-<system> rtoslab runs (arm; avr for AVR targets): the patched one
    when built (without a clock registered it behaves as the stock one), else the one on
    PATH."""
    path = patched_qemu(system)
    return str(path) if path is not None else f"qemu-system-{system}"


def check_one_clock(system: str = "arm") -> None:
    """Raise one line, with the fix, when the one clock cannot run here."""
    if patched_qemu(system) is None:
        try:
            where = str(patched_qemu_path(repo_root(), system))
        except OSError:
            where = "its build folder"
        raise RtoslabError(f"the one clock needs rtoslab's patched qemu-system-{system}, which is missing "
                           f"or stale ({where}): {ONE_CLOCK_FIX}")


@cache
def check_qemu() -> None:
    """Raise one line, with the fix, when qemu-system-arm is missing or cannot load the
    plugin (older than QEMU_MIN_VERSION)."""
    qemu = next(s for s in tool_status() if s.name == "qemu-system-arm")
    if not qemu.found:
        raise RtoslabError(f"qemu-system-arm not found: {QEMU_FIX}")
    problem = qemu_problem(qemu.version)
    if problem:
        raise RtoslabError(problem)


@cache
def tool_status() -> tuple[ToolStatus, ...]:
    out = []
    for name, cmd, fix in TOOLS:
        if name in ("qemu-system-arm", "qemu-system-avr"):
            cmd = [qemu_binary(name.removeprefix("qemu-system-")), *cmd[1:]]
        found = shutil.which(cmd[0]) is not None
        out.append(ToolStatus(name, found, _first_line(cmd) if found else "", fix))
    plugin = plugin_path()
    out.append(ToolStatus("rtoslab-plugin", plugin.is_file(),
                          plugin_identity(plugin) if plugin.is_file() else "",
                          "make setup (builds plugin/ with cargo)"))
    return tuple(out)


def plugin_identity(plugin: Path) -> str:
    """The plugin as results name it: crate version and the short sha256 of the built
    library, e.g. ``rtoslab-plugin 0.1.0 sha256:1a2b3c4d5e6f``. A rebuilt plugin is another
    tool; its path is not part of it (two clones of one revision share identities)."""
    digest = hashlib.sha256(plugin.read_bytes()).hexdigest()[:12]
    return f"rtoslab-plugin {plugin_crate_version()} sha256:{digest}"


@cache
def plugin_crate_version() -> str:
    """``version`` of plugin/Cargo.toml's package (the version the plugin reports; taken
    from ``[workspace.package]`` when the package inherits it), or "?"."""
    try:
        with (repo_root() / "plugin" / "Cargo.toml").open("rb") as f:
            manifest = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError):
        return "?"
    package = manifest.get("package", {})
    version = package.get("version") if isinstance(package, dict) else None
    if isinstance(version, dict) and version.get("workspace") is True:
        workspace = manifest.get("workspace", {})
        shared = workspace.get("package", {}) if isinstance(workspace, dict) else {}
        version = shared.get("version") if isinstance(shared, dict) else None
    return str(version) if isinstance(version, str) else "?"


@cache
def rtoslab_revision() -> str:
    """git describe of the checkout, '+dirty' when it has uncommitted changes."""
    try:
        proc = subprocess.run(["git", "-C", str(repo_root()), "describe", "--always", "--dirty",
                               "--abbrev=12"], capture_output=True, text=True, timeout=10, check=False)
        rev = proc.stdout.strip()
    except OSError:
        rev = ""
    return f"{__version__}+{rev}" if rev else __version__


def tool_versions() -> dict[str, str]:
    versions = {t.name: t.version for t in tool_status() if t.found}
    versions["python"] = platform.python_version()
    versions["rtoslab"] = rtoslab_revision()
    return versions


def host_name() -> str:
    return platform.node()
