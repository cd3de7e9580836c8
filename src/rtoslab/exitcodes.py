"""The firmware's exit statuses, read from their one declaration, firmware/include/lab/exit.h.

Each ``#define LAB_EXIT_<NAME> <code>`` there carries its meaning as a trailing comment,
which is the one-line reason a failed run names; the harness, ports and targets use the
macros, the host this table (docs/architecture.md, "One home per fact"). The plugin's own
status for a hang (the instruction limit) comes from its description
(``rtoslab.timing.description().exit_insn_limit``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from rtoslab.paths import firmware_root
from rtoslab.records import RtoslabError

_DEFINE = re.compile(r"^\s*#\s*define\s+LAB_EXIT_([A-Z_]+)\s+(\d+)\s*(?:/\*\s*(.*?)\s*\*/)?\s*$",
                     re.MULTILINE)


@dataclass(frozen=True)
class ExitCode:
    name: str  # after LAB_EXIT_, e.g. CHECK_FAILED
    code: int
    reason: str  # the trailing comment: what a run that ends with it failed of


def parse_exit_header(text: str, where: str) -> dict[str, ExitCode]:
    """NAME -> ExitCode from exit.h's text; one-line RtoslabError when a code is missing,
    repeated or has no reason."""
    codes: dict[str, ExitCode] = {}
    for m in _DEFINE.finditer(text):
        name, code, reason = m.group(1), int(m.group(2)), m.group(3) or ""
        if name != "OK" and not reason:
            raise RtoslabError(f"{where}: LAB_EXIT_{name} has no reason: end its #define with a "
                               "/* comment */ saying what a run that exits with it failed of")
        if any(c.code == code for c in codes.values()):
            raise RtoslabError(f"{where}: LAB_EXIT_{name} repeats exit status {code}: give it its own")
        codes[name] = ExitCode(name, code, reason)
    for needed in ("OK", "CHECK_FAILED", "FAULT", "UNSUPPORTED"):
        if needed not in codes:
            raise RtoslabError(f"{where}: LAB_EXIT_{needed} is missing: the host needs it")
    return codes


def exit_header() -> Path:
    return firmware_root() / "include" / "lab" / "exit.h"


@cache
def exit_codes() -> dict[str, ExitCode]:
    """The firmware's exit statuses (read once per process)."""
    path = exit_header()
    try:
        text = path.read_text()
    except OSError as e:
        raise RtoslabError(f"{path}: cannot read the firmware's exit statuses ({e.strerror})") from e
    return parse_exit_header(text, str(path))


def code_of(name: str) -> int:
    return exit_codes()[name].code
