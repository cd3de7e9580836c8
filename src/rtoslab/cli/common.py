"""Options and helpers shared by several subcommands."""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
from pathlib import Path

from rich.console import Console

from rtoslab.catalog import Catalog
from rtoslab.project import Project
from rtoslab.records import SUMMARY_UNITS, Unit
from rtoslab.store.db import Store, default_db_path, open_store


def add_db_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", type=Path, default=None,
                   help="results database (default: $RTOSLAB_DB or ./rtoslab-results/results.sqlite)")


def terminal_width() -> int:
    """The terminal's width (160 when output is not a terminal), at least 80."""
    return max(80, shutil.get_terminal_size((160, 40)).columns)


class StdoutConsole(Console):
    """rich's console on stdout whose closed pipe (``rtoslab list | true``) is a
    BrokenPipeError, which ``main`` turns into exit status 141 as a shell would (rich's own
    answer, SystemExit(1), would read as "a benchmark failed" and say nothing)."""

    def __init__(self) -> None:
        super().__init__(highlight=False)

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError("stdout is closed")


def add_layout_options(p: argparse.ArgumentParser) -> None:
    """--per-config and --wide, for the commands that print a run's tables."""
    p.add_argument("--per-config", action="store_true",
                   help="also print a table per configuration (all statistics, every unit)")
    p.add_argument("--wide", action="store_true",
                   help="never split a table or wrap a name to fit the terminal's width")
    p.add_argument("--unit", default=None, choices=[u.value for u in SUMMARY_UNITS],
                   help="the unit of the spread statistics and summary tables (default: modelled "
                   "cycles, with the median time in µs or ms; insn: guest instructions)")


def open_db(args: argparse.Namespace, *, read_only: bool = False) -> Store:
    """The results database of ``--db`` (or the default). ``read_only`` for the commands
    that only read: the database must exist, and a read-only mount is fine."""
    return open_store(args.db if args.db is not None else default_db_path(), read_only=read_only)


def positive_int(text: str) -> int:
    """An argparse type: an integer >= 1 (bad input is argparse's one line and exit 2)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got '{text}'") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {value}")
    return value


def add_path_options(p: argparse.ArgumentParser) -> None:
    """--bench-path, --port-path, --target-path: folders outside the checkout to search."""
    for kind, what in (("bench", "benchmark"), ("port", "kernel port"), ("target", "target")):
        p.add_argument(f"--{kind}-path", action="append", default=[], type=Path, metavar="DIR",
                       help=f"also look for {what} folders in DIR (a {what} folder, or a folder of "
                       "them; repeatable; besides rtoslab.toml's)")


def command_catalog(args: argparse.Namespace, project: Project | None) -> Catalog:
    """The one catalog a command answers from (``args.catalog``, passed down from there):
    the checkout's folders, rtoslab.toml's (``project``), then --bench-path / --port-path /
    --target-path. An experiment file's own *_paths make a catalog of their own from it."""
    catalog = Catalog() if project is None else project.catalog(Catalog())
    return catalog.with_paths(getattr(args, "bench_path", []), getattr(args, "port_path", []),
                              getattr(args, "target_path", []))


def unit_arg(args: argparse.Namespace) -> Unit | None:
    """--unit as a Unit (None: the default, time first)."""
    value = getattr(args, "unit", None)
    return Unit(value) if value else None


RUN_REF_HELP = "a run id, 'latest', or 'latest~N' (the Nth run before the latest)"



def add_kernel_source_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--kernel-source", type=Path, default=None, metavar="DIR",
                   help="build the kernel from this source tree instead of the pinned sources "
                   "(a FreeRTOS-Kernel V11 tree for freertos and freertos-smp); its git commit, "
                   "or its content hash, enters each result's identity (docs/ci.md). Default: "
                   "rtoslab.toml's kernel_source, if any")


def kernel_source_of(args: argparse.Namespace) -> tuple[Path | None, bool]:
    """The kernel tree the command line names (--kernel-source), else rtoslab.toml's:
    (folder or None, given on the command line)."""
    given = getattr(args, "kernel_source", None)
    if given is not None:
        return given, True
    return getattr(args, "project_kernel_source", None), False


def write_whole(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all: into a temporary file beside it,
    then renamed over it, so a full disk leaves no empty or cut file (and an earlier
    version of the file stays). A path that is not a regular file (a pipe, /dev/stdout)
    is written directly. Raises OSError as ``Path.write_text`` does."""
    if path.exists() and not path.is_file():
        path.write_text(text, encoding="utf-8")
        return
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
