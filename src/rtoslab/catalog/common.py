"""Small text helpers the catalog's parts share."""

from __future__ import annotations

import re
from collections.abc import Iterable

_CAP_NAME_RE = re.compile(r"LAB_(ALLOC_)?HAS_[A-Z0-9_]+")


def choices(names: Iterable[str]) -> str:
    """Names for a message: sorted, comma-separated."""
    return ", ".join(sorted(names))
