"""rtoslab list: targets, kernels, suites, benchmarks, and the timing model's cores and settings."""

from __future__ import annotations

import argparse

from rich import box
from rich.columns import Columns
from rich.console import Console
from rich.table import Table
from rich.text import Text

from rtoslab.catalog import Catalog, Target, na_reason, too_few_cores
from rtoslab.cli.common import StdoutConsole, add_path_options
from rtoslab.records import RtoslabError
from rtoslab.report.text import terminal_safe
from rtoslab.timing import Setting, description


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("list", help="list targets, kernels, suites and benchmarks")
    p.add_argument("--all", action="store_true",
                   help="every description, where each benchmark is n/a, and the timing model's "
                   "cores and settings with their values (default: a short overview, a line each)")
    add_path_options(p)
    p.set_defaults(func=cmd)


def _short(title: str, columns: tuple[str, ...], rows: list[tuple[str, ...]]) -> Table:
    """A table of one line per row: the names whole, the last column (a description, a
    list) cut to the terminal with an ellipsis."""
    t = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, padding=(0, 1), pad_edge=False,
              expand=True)
    for i, col in enumerate(columns):
        if i == len(columns) - 1:
            t.add_column(col, no_wrap=True, overflow="ellipsis", ratio=1)
        else:
            t.add_column(col, no_wrap=True, min_width=max(len(col), *(len(r[i]) for r in rows)))
    for row in rows:
        t.add_row(*_cells(*row))
    return t


def overview(con: Console, catalog: Catalog) -> None:
    """The short form of `rtoslab list`: a line per target, kernel and suite, the
    benchmarks' names packed, the timing settings' keys."""
    con.print(_short("targets", ("name", "cores", "clock", "description"),
                     [(tg.name, str(tg.spec.cores), f"{tg.clock_hz / 1e6:g} MHz", tg.description)
                      for tg in catalog.targets.values()]))
    con.print(_short("kernels", ("name", "description"),
                     [(kern.name + (" (template)" if kern.is_template else ""), kern.description)
                      for kern in catalog.kernels.values()]))
    con.print(_short("suites", ("suite", "n", "benchmarks"),
                     [(name, str(len(benches)), ", ".join(sorted(benches)))
                      for name, benches in sorted(catalog.suites().items())]))
    names = [terminal_safe(n) for n in sorted(catalog.benchmarks)]
    con.print(Text(f"benchmarks ({len(names)})", style="italic"))
    con.print(Columns(names, padding=(0, 2)))
    try:
        keys = [st.key for st in description().settings] + ["clock_hz", "time"]
        con.print(Text("\ntiming settings (--timing KEY=VALUE): ", style="italic") + Text(", ".join(keys)))
    except RtoslabError as e:
        con.print(Text(f"\ntiming model: {e}"))
    con.print(Text("\nrtoslab list --all: every description, where each benchmark is n/a, the "
                   "timing model's cores and each setting's values and meaning"))


def cmd(args: argparse.Namespace) -> int:
    con = StdoutConsole()
    catalog: Catalog = args.catalog
    if not args.all:
        overview(con, catalog)
        return 0
    t = Table(title="targets")
    for col in ("name", "core", "cores", "clock", "flash wait states", "QEMU machine", "description"):
        t.add_column(col)
    for tg in catalog.targets.values():
        t.add_row(*_cells(tg.name, tg.core, str(tg.spec.cores), f"{tg.clock_hz / 1e6:g} MHz",
                          flash_ws_text(tg), tg.qemu_machine or "none: a board (GDB server)",
                          tg.description))
    con.print(t)

    k = Table(title="kernels")
    for col in ("name", "capabilities", "description"):
        k.add_column(col)
    for kern in catalog.kernels.values():
        caps = ", ".join(
            c.removeprefix("LAB_HAS_").lower() for c, v in sorted(kern.capabilities.items()) if v
        )
        about = kern.description
        if kern.source is not None:  # port.toml [kernel_source]: docs/ci.md
            src = kern.source
            about += (f" --kernel-source: a {src.name} tree, {src.version_from} up to (not "
                      f"including) {src.version_below}.")
        k.add_row(*_cells(kern.name + (" (template)" if kern.is_template else ""), caps or "-", about))
    con.print(k)

    s = Table(title="suites")
    s.add_column("suite")
    s.add_column("benchmarks")
    for name, benches in sorted(catalog.suites().items()):
        s.add_row(*_cells(name, ", ".join(sorted(benches))))
    con.print(s)

    b = Table(title="benchmarks")
    b.add_column("name")
    b.add_column("suites")
    b.add_column("description")
    b.add_column("n/a on")
    for bench in catalog.benchmarks.values():
        na = [kern.name for kern in catalog.kernels.values()
              if na_reason(bench, kern) and not kern.is_template]
        # Targets with fewer cores than the benchmark needs (bench.toml min_cores).
        few = [tg.name for tg in catalog.targets.values() if too_few_cores(bench, tg)]
        if few:
            na.append(f"{', '.join(few)} (needs {bench.min_cores} cores)")
        b.add_row(*_cells(bench.name, ", ".join(bench.suites), bench.description, ", ".join(na) or "-"))
    con.print(b)
    print_timing(con)
    return 0


def _cells(*texts: str) -> list[Text]:
    """Table cells from folders that may be the user's: shown as text (no markup), control
    characters as escapes."""
    return [Text(terminal_safe(t)) for t in texts]


def flash_ws_text(target: Target) -> str:
    """The target's flash wait states: its clock rule ([flash_latency]), else its fixed
    [timing] default, whatever the clock."""
    rule = target.spec.flash_latency
    if rule is not None:
        return f"by clock: {rule.text()}"
    ws = target.timing_defaults.get("flash_ws")
    if ws is None:  # not in [timing]: the plugin's default
        try:
            ws = description().defaults().get("flash_ws", "?")
        except RtoslabError:
            ws = "the plugin's default"
    return f"{ws} WS at any clock (no rule)"


def print_timing(con: Console) -> None:
    """The timing model's cores and settings, as the plugin describes them."""
    try:
        desc = description()
    except RtoslabError as e:
        con.print(f"timing model: {e}", highlight=False)
        return
    c = Table(title=f"timing-model cores (plugin {desc.plugin_version})")
    for col in ("name", "arch", "description", "source"):
        c.add_column(col)
    for core in desc.cores:
        c.add_row(core.name, core.arch, core.description, core.source)
    con.print(c)
    t = Table(title="timing-model settings (--timing KEY=VALUE, [matrix.timing])")
    for col in ("key", "values", "default", "needs", "meaning"):
        t.add_column(col)
    for s in desc.settings:
        t.add_row(s.key, _values(s), "-" if s.default is None else str(s.default),
                  ", ".join(s.requires) or "-", s.doc)
    for s in desc.host_settings:  # the host's own (clock_hz, time): their default is the host's
        t.add_row(s.key, _values(s), "see meaning", ", ".join(s.requires) or "-", f"host only: {s.doc}")
    con.print(t)


def _values(s: Setting) -> str:
    if s.kind == "choice":
        return ", ".join(s.choices or ())
    if s.kind == "int":
        unit = f" {s.unit}" if s.unit else ""
        return f"{'' if s.min is None else s.min}..{'' if s.max is None else s.max}{unit}"
    most = "any number" if s.max_regions is None else f"at most {s.max_regions}"
    return f"BASE:SIZE regions ({most})"
