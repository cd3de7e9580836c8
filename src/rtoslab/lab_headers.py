"""Numbers the firmware's seam headers declare (firmware/include/lab/), read by the host
from there so that each has one declaration (docs/architecture.md, "One home per fact")."""

from __future__ import annotations

import re
from functools import cache

from rtoslab.paths import firmware_root
from rtoslab.records import RtoslabError


@cache
def define_value(header: str, name: str) -> int:
    """The integer ``#define NAME <value>[u]`` of ``firmware/include/lab/<header>``; one-line
    RtoslabError when the header or the define is missing."""
    path = firmware_root() / "include" / "lab" / header
    try:
        text = path.read_text()
    except OSError as e:
        raise RtoslabError(f"{path}: cannot read it ({e.strerror})") from e
    m = re.search(rf"^\s*#\s*define\s+{re.escape(name)}\s+(\d+)u?\b", text, re.MULTILINE)
    if m is None:
        raise RtoslabError(f"{path}: no integer #define {name}: the host reads it from there")
    return int(m.group(1))


def trace_tasks() -> int:
    """LAB_TRACE_TASKS (lab/port.h): probe ids the task-switch hook takes at the region's end."""
    return define_value("port.h", "LAB_TRACE_TASKS")
