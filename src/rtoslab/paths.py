"""Where rtoslab's own files and caches live."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from rtoslab.records import RtoslabError


def repo_root() -> Path:
    """The rtoslab checkout (firmware sources, plugin crate, deps manifest).

    ``RTOSLAB_ROOT`` overrides; otherwise the checkout this package was installed from.
    """
    env = os.environ.get("RTOSLAB_ROOT")
    root = Path(env) if env else Path(__file__).resolve().parents[2]
    if not (root / "firmware" / "CMakeLists.txt").is_file():
        raise RtoslabError(
            f"no rtoslab firmware tree at {root}: run rtoslab from its checkout "
            "(installed with `make setup`) or set RTOSLAB_ROOT"
        )
    return root


def firmware_root() -> Path:
    return repo_root() / "firmware"


def cache_root() -> Path:
    """Build cache. ``RTOSLAB_CACHE`` overrides; default ``<checkout>/.cache``."""
    env = os.environ.get("RTOSLAB_CACHE")
    return Path(env) if env else repo_root() / ".cache"


def check_cache() -> Path:
    """The build cache folder, created if needed; one line saying what to change when it
    is a file or cannot be written (a read-only mount), before a run record exists."""
    root = cache_root()
    where = (f"RTOSLAB_CACHE={root}" if os.environ.get("RTOSLAB_CACHE")
             else f"the build cache {root}")
    if root.exists() and not root.is_dir():
        raise RtoslabError(f"{where} is a file, not a folder: point RTOSLAB_CACHE at a folder "
                           "(it is created if missing)")
    try:
        root.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=root):
            pass
    except OSError as err:
        raise RtoslabError(f"{where} cannot be written ({err.strerror}): point RTOSLAB_CACHE "
                           "at a writable folder") from err
    return root


def plugin_path() -> Path:
    return repo_root() / "plugin" / "target" / "release" / "librtoslab_plugin.so"
