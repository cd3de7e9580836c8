"""Where rtoslab's own files and caches live."""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

from rtoslab.records import HostError, RtoslabError


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
    is a file or cannot be written (a read-only mount), or when its disk is (nearly) full
    (a HostError), before a run record exists."""
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
        if is_no_space(err):
            raise no_space_error(root, "the build cache") from err
        raise RtoslabError(f"{where} cannot be written ({err.strerror}): point RTOSLAB_CACHE "
                           "at a writable folder") from err
    if low_on_space(root):  # a run would fail in its first build: say so before it starts
        raise no_space_error(root, "the build cache")
    return root


# What a tool prints when its disk is full (gcc, ld, CMake, Ninja: strerror(ENOSPC) or
# EDQUOT; the plugin, a Rust io::Error: "... (os error 28)").
_NO_SPACE = ("No space left on device", "Disk quota exceeded", "(os error 28)", "(os error 122)")
# Less free space than this after a failed build or run: the disk is taken to be full.
LOW_SPACE_BYTES = 1 << 20


def is_no_space(err: BaseException) -> bool:
    """An OSError that says the disk (or the quota) is full."""
    return isinstance(err, OSError) and err.errno in (errno.ENOSPC, errno.EDQUOT)


def says_no_space(text: str) -> bool:
    """A tool's output says its disk is full."""
    return any(s in text for s in _NO_SPACE)


def _existing(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def free_bytes(path: Path) -> int | None:
    """Bytes free for this user on the disk holding ``path`` (None if unknown)."""
    try:
        st = os.statvfs(_existing(path))
    except OSError:
        return None
    return st.f_bavail * st.f_frsize


def low_on_space(path: Path) -> bool:
    """The disk holding ``path`` has less than LOW_SPACE_BYTES free."""
    free = free_bytes(path)
    return free is not None and free < LOW_SPACE_BYTES


def mount_point(path: Path) -> Path:
    """The mount point of the file system holding ``path``."""
    p = _existing(path.absolute())
    while not os.path.ismount(p) and p != p.parent:
        p = p.parent
    return p


def no_space_error(path: Path, what: str) -> HostError:
    """One line naming the full disk: ``what`` (e.g. "the build cache") at ``path``."""
    free = free_bytes(path)
    left = f", {free} bytes free" if free is not None else ""
    env = " or point RTOSLAB_CACHE at a folder on another disk" if "cache" in what else ""
    return HostError(f"no space left on the disk of {what} {path} (file system at "
                     f"{mount_point(path)}{left}): free space there{env}, and run again")


PLUGIN_FILE = "librtoslab_plugin.so"  # the plugin library cargo builds (plugin/Cargo.toml)


def plugin_path() -> Path:
    """The rtoslab TCG plugin. ``RTOSLAB_PLUGIN`` overrides (a cluster worker runs the
    driver's copy, shipped to it: rtoslab.cluster); default: the checkout's build."""
    env = os.environ.get("RTOSLAB_PLUGIN")
    return Path(env) if env else repo_root() / "plugin" / "target" / "release" / PLUGIN_FILE
