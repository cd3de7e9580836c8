"""rtoslab new: scaffold a benchmark, kernel port or target folder of your own."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rtoslab.scaffold import new


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("new", help="make a benchmark, kernel port or target folder that builds and "
                       "runs as made (docs/own-code.md)")
    p.add_argument("kind", choices=("bench", "port", "target"))
    p.add_argument("name", help="its name: the folder's name")
    p.add_argument("--dir", type=Path, default=None,
                   help="make DIR/NAME (default: in the project of the nearest rtoslab.toml, or "
                   "here, creating a rtoslab.toml that names bench/, ports/ and targets/)")
    p.set_defaults(func=cmd)


def cmd(args: argparse.Namespace) -> int:
    made = new(args.kind, args.name, Path.cwd(), args.dir)
    print(f"made {made.folder}" + (f" (found through {made.project_file})" if made.project_file else ""))
    print(f"next: {made.next_steps}", file=sys.stderr)
    return 0
