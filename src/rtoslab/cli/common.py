"""Options and helpers shared by several subcommands."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from rtoslab.report.terminal import TerminalRenderer
from rtoslab.store.db import Store, default_db_path, open_store


def add_db_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", type=Path, default=None,
                   help="results database (default: $RTOSLAB_DB or ./rtoslab-results/results.sqlite)")


def terminal_renderer() -> TerminalRenderer:
    """The table renderer for this terminal: at least 160 columns so names never fold."""
    return TerminalRenderer(width=max(160, shutil.get_terminal_size((160, 40)).columns))


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
