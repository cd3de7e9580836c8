"""Where rtoslab's own files and caches live."""

from __future__ import annotations

import os
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


PLUGIN_FILE = "librtoslab_plugin.so"  # the plugin library cargo builds (plugin/Cargo.toml)


def plugin_path() -> Path:
    """The rtoslab TCG plugin. ``RTOSLAB_PLUGIN`` overrides (a cluster worker runs the
    driver's copy, shipped to it: rtoslab.cluster); default: the checkout's build."""
    env = os.environ.get("RTOSLAB_PLUGIN")
    return Path(env) if env else repo_root() / "plugin" / "target" / "release" / PLUGIN_FILE
