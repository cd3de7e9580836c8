"""The masked-window report: the plugin's ``irq_windows`` file (docs/formats.md §9) read,
checked, and its addresses mapped to function and source line through the ELF's debug
information (``arm-none-eabi-addr2line``), plus the stored form (a JSON document).

Pure functions but for ``locate``, which runs addr2line and reads the source lines of
each window (what the HTML report shows as its code).
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import asdict, replace
from pathlib import Path

from rtoslab.paths import firmware_root
from rtoslab.records import IrqLevel, IrqWindows, IrqWindowSite, RtoslabError

SCHEMA = "rtoslab.irq-windows/1"
ADDR2LINE = "arm-none-eabi-addr2line"
# Source lines kept per window for the report (from its start line on).
CODE_LINES = 24


def _int(d: dict[str, object], key: str, where: str) -> int:
    v = d.get(key)
    if not isinstance(v, int) or isinstance(v, bool):
        raise RtoslabError(f"irq-windows report {where}: '{key}' is missing or not an integer")
    return v


def _site(d: object, where: str) -> IrqWindowSite:
    if not isinstance(d, dict):
        raise RtoslabError(f"irq-windows report {where}: a window is not an object")
    return IrqWindowSite(
        start_pc=_int(d, "start_pc", where),
        end_pc=int(d.get("end_pc", 0) or 0),
        cause=str(d.get("cause", "?")),
        count=int(d.get("count", 1) or 1),
        max_insns=int(d.get("max_insns", d.get("insns", 0)) or 0),
        max_cycles=int(d.get("max_cycles", d.get("cycles", 0)) or 0),
        max_at=int(d.get("max_at", 0) or 0),
        start_lr=int(d.get("start_lr", 0) or 0),
        end_lr=int(d.get("end_lr", 0) or 0),
    )


def parse_report(text: str, where: str = "") -> IrqWindows:
    """The plugin's report (docs/formats.md §9); a clear one-line error when it is not one."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise RtoslabError(f"irq-windows report {where}: not JSON ({e.msg} at line {e.lineno})") from None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise RtoslabError(f"irq-windows report {where}: schema is not {SCHEMA}: rebuild the plugin "
                           "(make setup)")
    levels = []
    for lv in doc.get("levels", []):
        if not isinstance(lv, dict):
            raise RtoslabError(f"irq-windows report {where}: a level is not an object")
        bound = lv.get("bound_cycles")
        open_at_exit = lv.get("open_at_exit")
        levels.append(IrqLevel(
            level=_int(lv, "level", where),
            priority=_int(lv, "priority", where),
            count=_int(lv, "count", where),
            masked_insns=_int(lv, "masked_insns", where),
            masked_cycles=_int(lv, "masked_cycles", where),
            max_insns=_int(lv, "max_insns", where),
            max_cycles=_int(lv, "max_cycles", where),
            bound_cycles=bound if isinstance(bound, int) else None,
            hist_insns=tuple(int(x) for x in lv.get("hist_insns", [])),
            windows=tuple(_site(w, where) for w in lv.get("windows", [])),
            open_at_exit=None if open_at_exit is None else _site(open_at_exit, where),
            core=int(lv.get("core", 0) or 0),
        ))
    return IrqWindows(
        prio_bits=_int(doc, "prio_bits", where),
        prigroup=_int(doc, "prigroup", where),
        entry_cycles=_int(doc, "entry_cycles", where),
        cycles_modelled=bool(doc.get("cycles_modelled", False)),
        levels=tuple(levels),
        cores=int(doc.get("cores", 1) or 1),
    )


def short_path(path: str) -> str:
    """A source path without the machine-specific part: from ``firmware/`` on for
    rtoslab's own sources, else the last three components (third-party sources)."""
    if "/firmware/" in path:
        return "firmware/" + path.rsplit("/firmware/", 1)[1]
    parts = path.split("/")
    return "/".join(parts[-3:])


def addr2line(elf: Path, addrs: list[int]) -> dict[int, tuple[str, str, int, str]]:
    """(function, file, line, caller) of each address: the innermost (inlined) function and
    its line, and ``caller``, the function it is inlined into ("" when not inlined).
    Unknown parts are "?" (line 0). Names are demangled (-C: C++ and Rust symbols)."""
    if not addrs:
        return {}
    try:
        out = subprocess.run([ADDR2LINE, "-a", "-f", "-i", "-C", "-e", str(elf), *(f"{a:#x}" for a in addrs)],
                             capture_output=True, text=True, check=True).stdout.splitlines()
    except FileNotFoundError:
        raise RtoslabError(f"{ADDR2LINE} not found: install binutils-arm-none-eabi (make setup)") from None
    except subprocess.CalledProcessError as e:
        raise RtoslabError(f"{ADDR2LINE} failed on {elf}: {e.stderr.strip()[:200]}") from None
    # With -a every address starts a group: "0x...", then (function, file:line) pairs from
    # the innermost inlined function out to the function that holds the code.
    groups: list[list[str]] = []
    for line in out:
        if line.startswith("0x") and len(groups) < len(addrs) and all(c in "0123456789abcdefx" for c in line):
            groups.append([])
        elif groups:
            groups[-1].append(line)
    result: dict[int, tuple[str, str, int, str]] = {}
    for a, g in zip(addrs, groups, strict=False):
        func = g[0] if g and g[0] != "??" else "?"
        loc = g[1] if len(g) > 1 else "??:0"
        file, _, line = loc.partition(" ")[0].rpartition(":")
        caller = g[-2] if len(g) >= 4 and g[-2] != "??" else ""
        result[a] = (func, file if file and file != "??" else "?", int(line) if line.isdigit() else 0,
                     caller)
    return result


def source_file(file: str) -> Path:
    """Where a debug-information path is on this machine: rtoslab's own sources are
    compiled with ``-ffile-prefix-map`` to ``firmware/...`` (relative to the build
    directory), so those are looked up under this checkout's firmware folder."""
    path = Path(file)
    if not path.is_file() and "firmware/" in file:
        return firmware_root() / file.rsplit("firmware/", 1)[1]
    return path


def _code(file: str, first: int, last: int) -> tuple[str, ...]:
    """Source lines ``first`` .. ``last`` of ``file`` (at most CODE_LINES), numbered."""
    if first <= 0 or file == "?":
        return ()
    try:
        lines = source_file(file).read_text(errors="replace").splitlines()
    except OSError:
        return ()
    end = last if last >= first else first
    end = min(end, first + CODE_LINES - 1, len(lines))
    return tuple(f"{n:5d}  {lines[n - 1].rstrip()}" for n in range(first, end + 1))


def call_site(lr: int) -> int:
    """An address inside the call instruction that left return address ``lr`` (0 when
    ``lr`` is not a code address: unread, or an EXC_RETURN value)."""
    return (lr & ~1) - 2 if 2 <= lr < 0xF000_0000 else 0


def locate(report: IrqWindows, elf: Path) -> IrqWindows:
    """The report with every window's start and end as ``function (file:line)``, the call
    sites their link registers point at, and its code (the source lines from start to end
    when both are in one file)."""
    sites = [w for lv in report.levels
             for w in (*lv.windows, *([lv.open_at_exit] if lv.open_at_exit else []))]
    addrs = sorted({a for w in sites for a in (w.start_pc, w.end_pc, call_site(w.start_lr),
                                                  call_site(w.end_lr)) if a})
    where = addr2line(elf, addrs)

    def name(a: int) -> tuple[str, str, int, str]:
        return where.get(a, ("?", "?", 0, ""))

    def text(func: str, file: str, line: int, caller: str) -> str:
        return f"{func} ({short_path(file)}:{line})" + (f" in {caller}" if caller else "")

    def outer(loc: tuple[str, str, int, str]) -> str:
        return loc[3] or loc[0]

    def caller(at: tuple[str, str, int, str], lr: int) -> str:
        """Where ``lr`` returns to, when that is another function than the one at ``at``
        (in a function that has made a call, LR holds that call's return address)."""
        site = call_site(lr)
        if not site or outer(name(site)) in ("?", outer(at)):
            return ""
        return text(*name(site))

    def one(w: IrqWindowSite) -> IrqWindowSite:
        start, end = name(w.start_pc), name(w.end_pc)
        code = _code(start[1], start[2], end[2] if end[1] == start[1] else start[2])
        start_from = caller(start, w.start_lr)
        end_from = caller(end, w.end_lr)
        return replace(w, start=text(*start), end=text(*end) if w.end_pc else "-", code=code,
                       start_from=start_from, end_from=end_from)

    return replace(report, levels=tuple(
        replace(lv, windows=tuple(one(w) for w in lv.windows),
                open_at_exit=one(lv.open_at_exit) if lv.open_at_exit else None)
        for lv in report.levels))


def to_doc(report: IrqWindows) -> dict[str, object]:
    """The stored form (table irq_windows, JSON export): the plugin's report plus the
    locations (docs/formats.md §9)."""
    doc = asdict(report)
    doc["schema"] = SCHEMA
    if report.cores == 1:
        # One core: the form it had before reports knew cores.
        del doc["cores"]
        for lv in doc["levels"]:
            del lv["core"]
    return doc


def from_doc(doc: dict[str, object]) -> IrqWindows:
    """Inverse of ``to_doc``."""
    def site(d: dict[str, object]) -> IrqWindowSite:
        d = dict(d)
        d["code"] = tuple(d.get("code", ()))  # type: ignore[arg-type]
        return IrqWindowSite(**d)  # type: ignore[arg-type]

    levels = []
    for lv in doc.get("levels", []):  # type: ignore[attr-defined]
        lv = dict(lv)
        lv["hist_insns"] = tuple(lv["hist_insns"])
        lv["windows"] = tuple(site(w) for w in lv["windows"])
        lv["open_at_exit"] = site(lv["open_at_exit"]) if lv.get("open_at_exit") else None
        levels.append(IrqLevel(**lv))
    return IrqWindows(prio_bits=int(doc["prio_bits"]), prigroup=int(doc["prigroup"]),  # type: ignore[call-overload]
                      entry_cycles=int(doc["entry_cycles"]),  # type: ignore[call-overload]
                      cycles_modelled=bool(doc["cycles_modelled"]), levels=tuple(levels),
                      cores=int(doc.get("cores", 1)))  # type: ignore[call-overload]


def level_name(report: IrqWindows, lv: IrqLevel) -> str:
    """``level K``, or ``core N level K`` in a report of several cores."""
    return f"core {lv.core} level {lv.level}" if report.cores > 1 else f"level {lv.level}"


def top_lines(report: IrqWindows, per_level: int = 3) -> list[str]:
    """Plain-text lines: per level, its bound and its longest windows (terminal, Markdown)."""
    out: list[str] = []
    unit = "cycles" if report.cycles_modelled else "insns"
    for lv in report.levels:
        name = level_name(report, lv)
        head = (f"{name} (priority {lv.priority:#04x}): {lv.count} windows, "
                f"longest {lv.max_insns} insns / {lv.max_cycles} cycles")
        if lv.bound_cycles is not None:
            head += f", bound {lv.bound_cycles} cycles (+ entry {report.entry_cycles})"
        if lv.count == 0:
            head = f"{name} (priority {lv.priority:#04x}): never masked"
        out.append(head)
        for w in lv.windows[:per_level]:
            n = w.max_cycles if report.cycles_modelled else w.max_insns
            out.append(f"  {n:>7} {unit} {w.max_insns:>6} insns x{w.count:<5} {w.cause:<11} "
                       f"{w.start} -> {w.end}")
            if w.start_from or w.end_from:
                out.append(f"{'':>40}called from {w.start_from or '?'} -> {w.end_from or '?'}")
        if lv.open_at_exit is not None:
            w = lv.open_at_exit
            out.append(f"  still masked at exit: {w.cause} since {w.start} ({w.max_insns} insns)")
    return out
