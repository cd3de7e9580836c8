"""rtoslab doctor: what is installed and what is missing, with the command that fixes it."""

from __future__ import annotations

import argparse
import shutil

from rich.table import Table

from rtoslab.builder.deps import dep_path
from rtoslab.builder.rust import doctor_rows as rust_doctor_rows
from rtoslab.cli.common import StdoutConsole
from rtoslab.records import RtoslabError
from rtoslab.runners.gdb import GDB
from rtoslab.timing import description
from rtoslab.tools import ONE_CLOCK_FIX, patched_qemu, qemu_problem, tool_status


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("doctor", help="check the toolchain, emulator, plugin and sources")
    p.add_argument("--worker", action="store_true",
                   help="check this node as a Ray worker of `run --cluster` instead (what a worker "
                   "needs: deploy/worker.Containerfile)")
    p.add_argument("--cluster-builds", choices=("workers", "driver"), default="workers",
                   help="with --worker: who builds, as `run --cluster-builds` (workers that build "
                   "need the toolchain too)")
    p.set_defaults(func=cmd)


def worker(builds: str) -> int:
    """This node as a cluster worker: Ray, the patched QEMU (the one clock), and with
    ``builds == "workers"`` the toolchain and the plugin; one line per problem, naming
    the tool and the node (as a task on it would fail)."""
    import importlib.util
    import platform

    from rtoslab.cluster import INSTALL_HINT, WORKER_TOOLS, check_worker

    node = platform.node()
    problems = []
    if importlib.util.find_spec("ray") is None:
        problems.append(f"worker {node} lacks Ray: {INSTALL_HINT}")
    tools = WORKER_TOOLS[builds] + (("rtoslab-plugin",) if builds == "workers" else ())
    problems += check_worker(tools)
    if patched_qemu() is None:
        problems.append(f"worker {node} lacks the one clock (rtoslab's patched qemu-system-arm): "
                        f"{ONE_CLOCK_FIX}")
    for line in problems:
        print(line)
    if problems:
        return 1
    print(f"worker {node} has what a task needs when {'the driver' if builds == 'driver' else 'it'} "
          f"builds: {', '.join(tools)}, Ray")
    return 0


def cmd(args: argparse.Namespace) -> int:
    if args.worker:
        return worker(args.cluster_builds)
    table = Table(title="rtoslab doctor")
    table.add_column("item")
    table.add_column("status")
    table.add_column("version / path, or how to fix")
    missing = 0
    for t in tool_status():
        problem = qemu_problem(t.version) if t.found and t.name == "qemu-system-arm" else None
        if problem:
            missing += 1
            table.add_row(t.name, "[red]unusable[/red]", problem)
        elif t.found:
            table.add_row(t.name, "ok", t.version)
        else:
            missing += 1
            table.add_row(t.name, "[red]missing[/red]", t.fix)
    gdb = shutil.which(GDB)  # the GDB runner's client (boards; docs/boards.md)
    if gdb is not None:
        table.add_row(GDB, "ok", f"{gdb}: the GDB runner's client (docs/boards.md)")
    else:
        missing += 1
        table.add_row(GDB, "[red]missing[/red]", "sudo apt-get install -y gdb-multiarch (or make setup)")
    clock = patched_qemu()
    if clock is not None:
        table.add_row("one clock (patched QEMU)", "ok",
                      f"{clock}: QEMU's time follows the modelled cycles (docs/timing-model.md)")
    else:
        missing += 1
        table.add_row("one clock (patched QEMU)", "[red]missing[/red]",
                      f"runs need --timing time=instruction (QEMU's instruction clock): {ONE_CLOCK_FIX}")
    try:
        desc = description()
        table.add_row("rtoslab-plugin-describe", "ok",
                      f"plugin {desc.plugin_version}: {len(desc.settings)} timing settings, "
                      f"{len(desc.cores)} cores")
    except RtoslabError as e:
        missing += 1
        table.add_row("rtoslab-plugin-describe", "[red]missing[/red]", str(e))
    crates = sorted({c for k in args.catalog.kernels.values() for c in k.deps})
    for crate in crates:
        try:
            table.add_row(f"source: {crate}", "ok", str(dep_path(crate)))
        except RtoslabError as e:
            missing += 1
            table.add_row(f"source: {crate}", "[red]missing[/red]", str(e))
    for item, ok, text in rust_doctor_rows(args.catalog):  # Rust kernel ports (docs/rust-models.md)
        missing += not ok
        table.add_row(item, "ok" if ok else "[red]missing[/red]", text)
    StdoutConsole().print(table)
    if missing:
        print(f"{missing} item(s) missing or unusable: `make setup` installs all of them")
        return 1
    print("everything rtoslab needs is installed")
    return 0
