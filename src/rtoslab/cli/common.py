"""Options and helpers shared by several subcommands."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from rtoslab.catalog import add_search_paths
from rtoslab.records import RtoslabError
from rtoslab.store.db import Store, default_db_path, open_store


def add_db_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", type=Path, default=None,
                   help="results database (default: $RTOSLAB_DB or ./rtoslab-results/results.sqlite)")


def terminal_width() -> int:
    """The terminal's width (160 when output is not a terminal), at least 80."""
    return max(80, shutil.get_terminal_size((160, 40)).columns)


def add_layout_options(p: argparse.ArgumentParser) -> None:
    """--per-config and --wide, for the commands that print a run's tables."""
    p.add_argument("--per-config", action="store_true",
                   help="also print a table per configuration (all statistics, every unit)")
    p.add_argument("--wide", action="store_true",
                   help="never split a table to fit the terminal's width")


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


def apply_path_options(args: argparse.Namespace) -> None:
    """Add the folders of --bench-path / --port-path / --target-path to the search."""
    add_search_paths(getattr(args, "bench_path", []), getattr(args, "port_path", []),
                     getattr(args, "target_path", []))


RUN_REF_HELP = "a run id, 'latest', or 'latest~N' (the Nth run before the latest)"


def resolve_run(store: Store, text: str) -> int:
    """A run reference: a number, ``latest`` (the most recently started run) or
    ``latest~N`` (N runs before it: ``latest~1`` is the one before the latest)."""
    word = text.strip()
    if word == "latest" or word.startswith("latest~"):
        back_text = word.removeprefix("latest").removeprefix("~") or "0"
        if not back_text.isdigit():
            raise RtoslabError(f"bad run '{text}': write latest or latest~N with N a whole number")
        back = int(back_text)
        runs = store.list_runs(limit=back + 1)
        if not runs:
            raise RtoslabError(f"no runs in {store.path}: `rtoslab run` makes one")
        if back >= len(runs):
            raise RtoslabError(f"run '{text}': {store.path} holds only {len(runs)} run(s)")
        return runs[back].id
    try:
        return int(word)
    except ValueError:
        raise RtoslabError(f"bad run id '{text}': give a number, 'latest' or 'latest~N' "
                           "(`rtoslab runs` lists them)") from None
