"""External tools rtoslab needs: their versions (part of every result's identity) and,
for `rtoslab doctor`, the command that installs each one that is missing."""

from __future__ import annotations

import hashlib
import platform
import shutil
import subprocess
from dataclasses import dataclass
from functools import cache

from rtoslab import __version__
from rtoslab.paths import plugin_path, repo_root


@dataclass(frozen=True)
class ToolStatus:
    name: str
    found: bool
    version: str  # first line of its version output, or "" when missing
    fix: str  # the command that installs it


_APT = "sudo apt-get install -y"
TOOLS: tuple[tuple[str, list[str], str], ...] = (
    ("arm-none-eabi-gcc", ["arm-none-eabi-gcc", "--version"],
     f"{_APT} gcc-arm-none-eabi libnewlib-arm-none-eabi"),
    ("qemu-system-arm", ["qemu-system-arm", "--version"], f"{_APT} qemu-system-arm"),
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


@cache
def tool_status() -> tuple[ToolStatus, ...]:
    out = []
    for name, cmd, fix in TOOLS:
        found = shutil.which(cmd[0]) is not None
        out.append(ToolStatus(name, found, _first_line(cmd) if found else "", fix))
    plugin = plugin_path()
    version = ""
    if plugin.is_file():  # the build is identified by its bytes: a rebuilt plugin is another tool
        version = f"{plugin} sha256:{hashlib.sha256(plugin.read_bytes()).hexdigest()[:12]}"
    out.append(ToolStatus("rtoslab-plugin", plugin.is_file(), version,
                          "make setup (builds plugin/ with cargo)"))
    return tuple(out)


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
