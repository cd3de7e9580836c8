"""What makes one cache safe to share between processes (and workers on one file system).

Any number of rtoslab processes may use one ``RTOSLAB_CACHE`` at once:

- a configuration's CMake build folder (``build/<image_key>``) is touched only by the
  process holding that image key's lock (``locks/build-<image_key>.lock``, an exclusive
  ``flock``): the folder is private to the lock holder while it configures and builds, so
  two processes never configure one folder at once, and the second finds the first one's
  build finished (ninja has nothing to do: it is never built twice);
- the images a run uses are *published*: copied into ``images/<image_key>/`` under a
  private temporary name and renamed into place (``os.replace``), so a reader sees either
  the whole previous file or the whole new one, never a half-written image. (The CMake
  folder itself cannot be renamed into place: CMake and ninja record its absolute path.)
- every benchmark run writes its trace and event files in a private folder of its own
  (``traces/<measure_key>/.<bench>-XXXX/``); the latest trace is then renamed to
  ``traces/<measure_key>/<bench>.trace`` for inspection.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from rtoslab.paths import cache_root


@contextlib.contextmanager
def locked(name: str) -> Iterator[None]:
    """Hold the cache-wide exclusive lock ``name`` (blocks until it is free). The lock
    is a file's ``flock``: the kernel drops it when the holder dies, so a killed process
    never leaves a stale lock behind."""
    folder = cache_root() / "locks"
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / f"{name}.lock").open("a") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def images_dir(image_key: str) -> Path:
    """Where a configuration's finished images are published."""
    return cache_root() / "images" / image_key


def publish(src: Path, folder: Path) -> Path:
    """Put a copy of ``src`` into ``folder`` atomically (a private temporary file renamed
    into place); an identical copy already there is left alone. Returns its path."""
    folder.mkdir(parents=True, exist_ok=True)
    dst = folder / src.name
    data = src.read_bytes()
    with contextlib.suppress(OSError):
        if dst.read_bytes() == data:
            return dst
    fd, tmp = tempfile.mkstemp(prefix=f".{src.name}.", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, dst)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return dst


def private_run_dir(measure_key: str, bench: str) -> Path:
    """A new folder of this benchmark run alone, for its trace and event files."""
    root = cache_root() / "traces" / measure_key
    root.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f".{bench}-", dir=root))


def release_run_dir(work: Path, bench: str) -> None:
    """Keep the run's trace as the latest one of its configuration (renamed into place:
    ``traces/<measure_key>/<bench>.trace``) and remove the private folder."""
    trace = work / f"{bench}.trace"
    with contextlib.suppress(OSError):
        if trace.is_file():
            os.replace(trace, work.parent / trace.name)
    shutil.rmtree(work, ignore_errors=True)
