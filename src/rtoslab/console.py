"""The firmware's console protocol (docs/formats.md §7): every ``LAB-`` line kind, parsed once.

The harness prints these lines on the target's UART; the runner captures the console
text. Lines are separated by ``\\n`` (a trailing ``\\r`` or blank is ignored). A protocol
failure line (``LAB-FAIL``, ``LAB-FAULT``) may follow output that did not end its line
(``counted 3LAB-FAIL main.c:12: x``): it is found where it starts. The other kinds count
only at the start of a line. Anything else is the benchmark's own output, left alone.

    LAB-KV name=value     a counter: name [a-z0-9_]+, value a decimal integer
    LAB-FAIL text         a failed self-check or kernel error (the exit status says which)
    LAB-FAULT text        the target's fault report (exception number, pc, fault status)
    LAB-DONE              the harness finished normally
    LAB-TASK n name       a traced port's task number and name (docs/timeline.md)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_KV = re.compile(r"LAB-KV ([a-z0-9_]+)=(-?\d+)\s*")
_TASK = re.compile(r"LAB-TASK (\d+) (.*?)\s*")
_TEXT_KINDS = ("LAB-FAIL", "LAB-FAULT")


@dataclass(frozen=True)
class ConsoleReport:
    """What the protocol lines of one console say.

    ``counters``: every ``LAB-KV`` line; a name printed twice keeps its last value.
    ``fail`` / ``fault``: the text after the first ``LAB-FAIL`` / ``LAB-FAULT`` (stripped).
    ``done``: a ``LAB-DONE`` line was printed.
    ``tasks``: task number -> name, from ``LAB-TASK`` lines (a traced run only).
    """

    counters: dict[str, int] = field(default_factory=dict)
    fail: str | None = None
    fault: str | None = None
    done: bool = False
    tasks: dict[int, str] = field(default_factory=dict)


def _protocol_part(line: str) -> str | None:
    """The line if it starts with ``LAB-``; else from where a failure line starts after
    benchmark output that did not end its line; else None."""
    if line.startswith("LAB-"):
        return line
    at = line.find("LAB-", 1)
    while at >= 0:
        if line.startswith(_TEXT_KINDS, at):
            return line[at:]
        at = line.find("LAB-", at + 1)
    return None


def parse_console(text: str) -> ConsoleReport:
    """Parse a whole console capture. Never fails: a malformed ``LAB-KV`` line is
    benchmark output, not a counter."""
    counters: dict[str, int] = {}
    first: dict[str, str] = {}
    done = False
    tasks: dict[int, str] = {}
    for raw in text.split("\n"):
        line = _protocol_part(raw)
        if line is None:
            continue
        kv = _KV.fullmatch(line)
        if kv is not None:
            counters[kv.group(1)] = int(kv.group(2))
            continue
        task = _TASK.fullmatch(line)
        if task is not None:
            tasks[int(task.group(1))] = task.group(2)
            continue
        for kind in _TEXT_KINDS:
            if line.startswith(kind) and kind not in first and line[len(kind):][:1] in (" ", "\t", "\r", ""):
                first[kind] = line[len(kind):].strip()
        if line.rstrip() == "LAB-DONE":
            done = True
    return ConsoleReport(counters, first.get("LAB-FAIL"), first.get("LAB-FAULT"), done, tasks)
