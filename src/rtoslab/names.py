"""Suggestions for a name the user mistyped (a benchmark, kernel, target, suite, kernel
option or timing setting): one place, so every "unknown X" line offers them alike."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def did_you_mean(name: str, names: Iterable[str]) -> str:
    """`` (did you mean X?)`` for an unknown name, or "" when nothing is close: the known
    names that contain it (``yield`` -> ``k_yield``), else the closest by spelling."""
    known = sorted(names)
    low = name.lower()
    hits = [n for n in known if low and low in n.lower()][:3]
    if not hits:
        hits = difflib.get_close_matches(name, known, n=2, cutoff=0.75)
    return f" (did you mean {' or '.join(hits)}?)" if hits else ""
