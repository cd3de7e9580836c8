"""``rtoslab new bench|port|target NAME``: a folder that builds and runs as generated.

- bench: ``bench.toml`` and ``NAME.c`` measuring one call of a function of your own (an
  interval metric, a self-check, a LAB-KV counter and a derived per-call rate), with
  comments saying what to change.
- port: a copy of the checkout's ``firmware/ports/template`` (every lab/port.h function
  present, each failing clearly until implemented), renamed and no longer a template.
- target: a copy of ``firmware/targets/mps2-an385`` (a board's part: target.toml, lab_board.h,
  linker.ld, target.cmake), renamed; the Cortex-M code every target shares and the MPS2 board
  code stay in the checkout's ``firmware/arch/cortex-m`` and ``firmware/boards/mps2``.

The folder goes to ``DIR/NAME`` with ``--dir DIR``; otherwise into the project (the
folder of the nearest rtoslab.toml, or the current folder, where a rtoslab.toml naming
bench/, ports/ and targets/ is then created): ``bench/NAME``, ``ports/NAME``,
``targets/NAME``.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from rtoslab.paths import firmware_root, repo_root
from rtoslab.project import NEW_FOLDERS, find_project, write_project_file
from rtoslab.records import RtoslabError

Kind = Literal["bench", "port", "target"]
_NAMES: dict[str, re.Pattern[str]] = {
    "bench": re.compile(r"[a-z][a-z0-9_]{0,30}"),
    "port": re.compile(r"[a-z][a-z0-9_-]{0,30}"),
    "target": re.compile(r"[a-z][a-z0-9_-]{0,30}"),
}
TARGET_MODEL = "mps2-an385"  # the target whose shape a new target copies


@dataclass(frozen=True)
class Scaffold:
    folder: Path  # what was created
    project_file: Path | None  # the rtoslab.toml that makes it found (None with --dir)
    next_steps: str  # what to run next, one line


def new(kind: Kind, name: str, cwd: Path, into: Path | None = None) -> Scaffold:
    """Create the folder for a new benchmark, port or target named ``name``. A folder that
    cannot be written (a read-only mount, a full disk) is one line; nothing half-made
    stays behind."""
    if not _NAMES[kind].fullmatch(name):
        rule = "[a-z][a-z0-9_]" if kind == "bench" else "[a-z][a-z0-9_-]"
        raise RtoslabError(f"bad {kind} name '{name}': use {rule}*, at most 31 characters")
    target = into / name if into is not None else None
    try:
        return _new(kind, name, cwd, into)
    except OSError as err:
        if target is not None and target.is_dir():
            shutil.rmtree(target, ignore_errors=True)  # the half-made folder
        where = err.filename or target or cwd
        raise RtoslabError(f"cannot create the {kind} folder: {where}: {err.strerror}: choose a "
                           "writable folder with --dir") from err


def _new(kind: Kind, name: str, cwd: Path, into: Path | None) -> Scaffold:
    project: Path | None = None
    if into is None:
        found = find_project(cwd)
        root = found.parent if found is not None else cwd.resolve()
        if root.is_relative_to(repo_root().resolve()):
            raise RtoslabError(f"{root} is inside the rtoslab checkout: run `rtoslab new` in a folder "
                               "of your own, or give --dir (in-tree folders go under firmware/)")
        project = write_project_file(root)
        parent = root / NEW_FOLDERS[kind]
    else:
        parent = into
    folder = parent / name
    if folder.exists():
        raise RtoslabError(f"{folder} exists already: choose another name or remove it")
    parent.mkdir(parents=True, exist_ok=True)
    if kind == "bench":
        _new_bench(folder, name)
        flag = "" if project else f" --bench-path {parent}"
        steps = f"rtoslab run{flag} --bench {name}"
    elif kind == "port":
        _new_port(folder, name)
        flag = "" if project else f" --port-path {parent}"
        steps = f"rtoslab run{flag} --kernel {name} --suite smoke"
    else:
        _new_target(folder, name)
        flag = "" if project else f" --target-path {parent}"
        steps = f"rtoslab run{flag} --target {name} --suite smoke"
    return Scaffold(folder, project, steps)


_BENCH_TOML = '''\
# {name}: a benchmark of your own (docs/own-code.md; every key: docs/extending.md).
# CHANGE: the description, and the suites it belongs to (`rtoslab run --suite NAME`).
suite = ["own"]
description = "One call of {name}_work (CHANGE: say what is measured)."
# LAB_HAS_* capabilities a kernel port must have to run it ([] : runs on every port,
# bare metal too); a port without one reports the benchmark "n/a" with the reason.
requires = []

# A figure computed on the host from what the firmware measured and printed: here the
# cost per operation and operations per second of the "window" interval around all calls
# (docs/formats.md §5: kinds rate, ratio, difference, tick).
[[derived]]
name = "per_call"
description = "window / calls: cycles per call of {name}_work, calls per second"
kind = "rate"
counter = "calls"
interval = "window"

# "window" is taken once by design: not a statistic of many samples.
[[metric]]
name = "window"
samples = "total"
'''

_BENCH_C = '''\
/*
 * {name}: measures one call of {name}_work(), your function (docs/own-code.md).
 *
 * CHANGE: put your code in {name}_work() (or call your own function there, adding its
 * source file to this folder: every .c and .S here is compiled; sources elsewhere are
 * added in a bench.cmake, docs/extending.md), and make the self-check below prove that
 * the work really happened. A failed LAB_CHECK fails the run: no numbers are stored.
 *
 * Metrics (probe ids 2..4095; each pair is declared once, the host reads the
 * declarations from the ELF):
 *   work    probe 2 -> 3 around each call: {rounds} samples (insn, cycle, us)
 *   window  probe 4 -> 5 around all {rounds} calls, once (bench.toml: samples = "total")
 * and LAB-KV calls={rounds}, from which the host derives per_call (bench.toml [[derived]]).
 * Nothing is printed between the probes: the measured path never prints.
 */
#include <stdint.h>

#include "lab/bench.h"
#include "lab/console.h"

#define ROUNDS {rounds}u /* CHANGE: how many samples (30 or more for sound statistics) */

LAB_INTERVAL(work, 2, 3, "one call of {name}_work");
LAB_INTERVAL(window, 4, 5, "all ROUNDS calls of {name}_work, loop included");

static volatile uint32_t lab_{name}_input = 12345u; /* volatile: not folded at compile time */

/* CHANGE: the code to measure. noipa: the compiler keeps it a call and may not move it
 * out of the loop or out of the probes (as it could a pure function it can see into). */
__attribute__((noipa)) static uint32_t {name}_work(uint32_t x)
{{
    uint32_t acc = 0u;
    for (uint32_t i = 0u; i < 8u; i++) {{
        acc = acc * 31u + (x >> i);
    }}
    return acc;
}}

/* The expected result, computed without the function under test (the self-check). */
static uint32_t {name}_expected(uint32_t x)
{{
    uint32_t acc = 0u;
    for (uint32_t i = 0u; i < 8u; i++) {{
        acc = acc * 31u + (x >> i);
    }}
    return acc;
}}

void lab_bench_run(void)
{{
    uint32_t x = 0u;
    uint32_t result = 0u;
    LAB_PROBE(4);
    for (uint32_t r = 0u; r < ROUNDS; r++) {{
        x = lab_{name}_input; /* read before the probe: not part of the measured call */
        LAB_PROBE(2);
        result = {name}_work(x);
        LAB_PROBE(3);
        LAB_KEEP(result);
    }}
    LAB_PROBE(5);
    LAB_CHECK(result == {name}_expected(x));
    lab_console_put_kv("calls", ROUNDS);
}}
'''


def _new_bench(folder: Path, name: str) -> None:
    folder.mkdir()
    values = {"name": name, "rounds": 100}
    (folder / "bench.toml").write_text(_BENCH_TOML.format(**values))
    (folder / f"{name}.c").write_text(_BENCH_C.format(**values))


def _new_port(folder: Path, name: str) -> None:
    src = firmware_root() / "ports" / "template"
    shutil.copytree(src, folder)
    ident = name.replace("-", "_")
    old_c = folder / "port_template.c"
    new_c = folder / f"port_{ident}.c"
    old_c.rename(new_c)
    cmake = folder / "port.cmake"
    cmake.write_text(cmake.read_text().replace("port_template.c", new_c.name))
    toml = folder / "port.toml"
    text = toml.read_text()
    if "template = true\n" not in text:
        raise RtoslabError(f"{src / 'port.toml'} has no 'template = true' line: the template port "
                           "changed; copy it by hand (docs/kernel-suite.md)")
    text = text.replace("template = true\n", "")
    lines = text.splitlines(keepends=True)
    while lines and lines[0].startswith("#"):  # the template's own header: replaced below
        lines.pop(0)
    text = "".join(lines)
    text = re.sub(r'^description = ".*"$', f'description = "{name}: a kernel port (CHANGE: say which '
                  'kernel and version)"', text, count=1, flags=re.MULTILINE)
    header = (f"# {name}: made by `rtoslab new port {name}` from rtoslab's template port. As made, every\n"
              "# kernel function fails with LAB_EXIT_UNSUPPORTED and every capability is 0, so only\n"
              "# benchmarks that need no kernel run. CHANGE: implement port_"
              f"{ident}.c (lab/port.h says what each\n"
              "# function guarantees), set capabilities to 1 in lab_port_caps.h as groups work, and\n"
              "# list the kernel's sources in port.cmake.\n")
    toml.write_text(header + text)


def _new_target(folder: Path, name: str) -> None:
    src = firmware_root() / "targets" / TARGET_MODEL
    shutil.copytree(src, folder)
    toml = folder / "target.toml"
    text = toml.read_text()
    text = re.sub(r'^description = ".*"$', f'description = "{name}: a copy of {TARGET_MODEL} (CHANGE: '
                  'the board)"', text, count=1, flags=re.MULTILINE)
    header = (f"# {name}: made by `rtoslab new target {name}` as a copy of {TARGET_MODEL}; it builds\n"
              f"# and runs as made (on QEMU's {TARGET_MODEL} machine). CHANGE, for another board:\n"
              "# qemu_machine, cpu/fpu/float_abi, clock_hz, nvic_prio_bits, [probe], [[memory]]\n"
              "# below; lab_board.h (IRQ count, software IRQ lines, device addresses), linker.ld\n"
              "# (stack size, bulk memory), and a target.c of the board's own in target.cmake in\n"
              "# place of the MPS2 one (lab/target.h: UART, benchmark timer, output register;\n"
              "# firmware/boards/mps2/mps2_target.c shows the shape). The vector table, fault\n"
              "# capture, IRQ API, probe and linker sections are shared by every Cortex-M target:\n"
              "# firmware/arch/cortex-m/ (docs/extending.md).\n")
    toml.write_text(header + text)
