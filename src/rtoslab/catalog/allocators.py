"""Allocators: firmware/allocators/<name>/lab_alloc_caps.h (LAB_ALLOC_HAS_*;
docs/allocation.md)."""

from __future__ import annotations

import re
from pathlib import Path

_ALLOC_CAP_RE = re.compile(r"^\s*#\s*define\s+(LAB_ALLOC_HAS_[A-Z0-9_]+)\s+([01])\b", re.MULTILINE)
_ALLOC_CAP_DOC_RE = re.compile(
    r"^\s*#\s*define\s+(LAB_ALLOC_HAS_[A-Z0-9_]+)\s+([01])\s*/\*\s*(.*?)\s*\*/", re.MULTILINE)
DEFAULT_ALLOCATOR = "tlsf"  # the allocator of a build without LAB_ALLOC (alloc_select.cmake)

# allocator -> (LAB_ALLOC_HAS_* values, the comment beside each 0)
AllocatorCaps = dict[str, tuple[dict[str, bool], dict[str, str]]]


def read_allocators(firmware: Path) -> AllocatorCaps:
    """Allocator folder (firmware/allocators/<name>/) -> its LAB_ALLOC_HAS_* values from
    lab_alloc_caps.h and the comment beside each 0 (docs/allocation.md)."""
    found: AllocatorCaps = {}
    for header in sorted((firmware / "allocators").glob("*/lab_alloc_caps.h")):
        text = header.read_text()
        caps = {m.group(1): m.group(2) == "1" for m in _ALLOC_CAP_RE.finditer(text)}
        reasons = {m.group(1): m.group(3) for m in _ALLOC_CAP_DOC_RE.finditer(text) if m.group(2) == "0"}
        found[header.parent.name] = (caps, reasons)
    return found
