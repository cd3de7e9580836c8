"""rtoslab list: targets, kernels, suites and benchmarks."""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.table import Table

from rtoslab.catalog import benchmarks, kernels, na_reason, suites, targets


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("list", help="list targets, kernels, suites and benchmarks")
    p.set_defaults(func=cmd)


def cmd(args: argparse.Namespace) -> int:
    con = Console()
    t = Table(title="targets")
    for col in ("name", "core", "clock", "QEMU machine", "description"):
        t.add_column(col)
    for tg in targets().values():
        t.add_row(tg.name, tg.core, f"{tg.clock_hz / 1e6:g} MHz", tg.qemu_machine, tg.description)
    con.print(t)

    k = Table(title="kernels")
    for col in ("name", "capabilities", "description"):
        k.add_column(col)
    for kern in kernels().values():
        caps = ", ".join(
            c.removeprefix("LAB_HAS_").lower() for c, v in sorted(kern.capabilities.items()) if v
        )
        k.add_row(kern.name + (" (template)" if kern.is_template else ""), caps or "-", kern.description)
    con.print(k)

    s = Table(title="suites")
    s.add_column("suite")
    s.add_column("benchmarks")
    for name, benches in sorted(suites().items()):
        s.add_row(name, ", ".join(sorted(benches)))
    con.print(s)

    b = Table(title="benchmarks")
    b.add_column("name")
    b.add_column("suites")
    b.add_column("description")
    b.add_column("n/a on")
    for bench in benchmarks().values():
        na = [kern.name for kern in kernels().values() if na_reason(bench, kern) and not kern.is_template]
        b.add_row(bench.name, ", ".join(bench.suites), bench.description, ", ".join(na) or "-")
    con.print(b)
    return 0
