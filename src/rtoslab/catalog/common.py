"""Small helpers the catalog's parts share: text for messages, and the checks a
bench.toml and a port.toml make alike."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from pathlib import Path

from rtoslab.records import RtoslabError

# The most processor cores a file may ask of a target (bench.toml and port.toml min_cores;
# a target.toml's cores are checked against the same range).
MAX_CORES = 32


def choices(names: Iterable[str]) -> str:
    """Names for a message: sorted, comma-separated."""
    return ", ".join(sorted(names))


def check_choice(toml: Path, key: str, value: str, allowed: Collection[str], what: str) -> None:
    """``value`` (at ``key`` of ``toml``) must be one of ``allowed``; else one line naming
    the file, the key, the value and the choices (``what``: e.g. "board features")."""
    if value not in allowed:
        raise RtoslabError(f"{toml}: key '{key}' is {value!r}: choose {what}: {choices(allowed)}")


def check_min_cores(toml: Path, value: int, whose: str) -> None:
    """A file's ``min_cores``: 1 to MAX_CORES (``whose``: "the benchmark", "the kernel")."""
    if not 1 <= value <= MAX_CORES:
        raise RtoslabError(f"{toml}: key 'min_cores' is {value}: give the processor cores {whose} "
                           f"needs, 1..{MAX_CORES}")
