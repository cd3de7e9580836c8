"""Where `make setup` puts rtoslab's patched qemu-system-arm and qemu-system-avr
(scripts/qemu/build_qemu.sh).

The build key is the first 16 hex digits of the SHA-256 of the files below, concatenated
in this order; the binary is ``<cache root>/<key>/qemu-system-arm`` and its ``--version``
line names ``rtoslab-clock-<key>``. The cache root is machine-wide so that several
checkouts share one build: ``$RTOSLAB_QEMU_DIR``, else ``$XDG_CACHE_HOME/rtoslab/qemu``,
else ``~/.cache/rtoslab/qemu`` (an empty variable counts as unset, as in the script).
The script computes the same key and path (``--print-key``, ``--print-path``); the unit
test tests/unit/test_qemu_build.py checks that they agree.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

KEY_FILES = ("scripts/qemu/source.toml", "scripts/qemu/patch_qemu.py", "scripts/qemu/build_qemu.sh",
             "scripts/qemu/src/rtoslab-clock.c", "scripts/qemu/src/rtoslab-clock.h")
PKGVERSION_PREFIX = "rtoslab-clock-"


def qemu_build_key(repo_root: Path) -> str:
    """The build key of the checkout at ``repo_root``."""
    digest = hashlib.sha256()
    for rel in KEY_FILES:
        digest.update((repo_root / rel).read_bytes())
    return digest.hexdigest()[:16]


def qemu_cache_root() -> Path:
    """The machine-wide folder of patched QEMU builds (one subfolder per key)."""
    env = os.environ.get("RTOSLAB_QEMU_DIR")
    if env:
        return Path(env).absolute()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return (base / "rtoslab" / "qemu").absolute()


def patched_qemu_path(repo_root: Path, system: str = "arm") -> Path:
    """Where the checkout's patched qemu-system-<system> (arm, or avr for the Arduino Uno)
    is once `make setup` has built it; the build makes both, side by side."""
    return qemu_cache_root() / qemu_build_key(repo_root) / f"qemu-system-{system}"
