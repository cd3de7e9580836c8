"""rtoslab command line: `rtoslab SUBCOMMAND ...` (see README.md)."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from rtoslab.cli import (
    ci_cmd,
    compare_cmd,
    doctor,
    export_cmd,
    history_cmd,
    list_cmd,
    merge_cmd,
    new_cmd,
    publish_cmd,
    run,
    runs,
    show,
    validate_cmd,
)
from rtoslab.cli.common import command_catalog
from rtoslab.project import nearest_project
from rtoslab.records import HostError, RtoslabError
from rtoslab.report.text import terminal_safe
from rtoslab.version import __version__

SUBCOMMANDS = (doctor, list_cmd, run, show, runs, compare_cmd, ci_cmd, history_cmd, publish_cmd,
               export_cmd, validate_cmd, new_cmd, merge_cmd)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rtoslab",
        description="Measure what RTOS kernels and execution models cost on emulated Cortex-M cores.",
    )
    parser.add_argument("--version", action="version", version=f"rtoslab {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in SUBCOMMANDS:
        module.register(sub)
    return parser


def _value_options(parser: argparse.ArgumentParser) -> set[str]:
    """Every option string (of the parser and its subcommands) that takes exactly one value."""
    out: set[str] = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                out |= _value_options(sub)
        elif action.option_strings and action.nargs is None:
            out.update(action.option_strings)
    return out


def join_dash_values(argv: Sequence[str], value_options: set[str]) -> list[str]:
    """``--cflags -O2`` -> ``--cflags=-O2`` (``-j -3`` -> ``-j-3``): argparse reads a value
    that starts with ``-`` as an option and fails with "expected one argument"; an option
    that takes one value always takes the next word, as the README writes it."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        word = argv[i]
        if word == "--":
            out.extend(argv[i:])
            break
        if word in value_options and i + 1 < len(argv) and argv[i + 1].startswith("-"):
            joiner = "=" if word.startswith("--") else ""
            out.append(f"{word}{joiner}{argv[i + 1]}")
            i += 2
            continue
        out.append(word)
        i += 1
    return out


def _stdout_gone() -> int:
    """The reader of stdout went away (``| head``): everything is stored and the reports
    are written; silence the rest of the output and exit as a shell would on SIGPIPE."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 141


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    words = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(join_dash_values(words, _value_options(parser)))
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        project = nearest_project(Path.cwd())  # rtoslab.toml here or above: the user's own folders
        args.project_kernel_source = project.kernel_source if project is not None else None
        args.catalog = command_catalog(args, project)  # the one catalog, passed down from here
        code = int(args.func(args))
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        return _stdout_gone()
    except HostError as e:  # a full disk, an unwritable database: exit 1, not bad input
        _say(f"rtoslab: error: {e}")
        return 1
    except RtoslabError as e:
        _say(f"rtoslab: error: {e}")
        return 2
    except KeyboardInterrupt:
        _say("rtoslab: interrupted")
        return 130


def _say(line: str) -> None:
    with contextlib.suppress(OSError):  # stderr closed too: the exit status says it
        print(terminal_safe(line), file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
