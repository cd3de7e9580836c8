"""rtoslab command line: `rtoslab SUBCOMMAND ...` (see README.md)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from rtoslab import __version__
from rtoslab.cli import compare_cmd, doctor, export_cmd, list_cmd, run, runs, show, validate_cmd
from rtoslab.records import RtoslabError

SUBCOMMANDS = (doctor, list_cmd, run, show, runs, compare_cmd, export_cmd, validate_cmd)


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


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args))
    except RtoslabError as e:
        print(f"rtoslab: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("rtoslab: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
