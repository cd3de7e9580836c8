"""rtoslab merge: join results databases (the shards of a plan) into one."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rtoslab.store.merge import merge


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("merge", help="merge results databases (e.g. the shards of `run --shard I/N`) "
                       "into a new one")
    p.add_argument("inputs", nargs="+", type=Path, metavar="DB", help="databases to merge")
    p.add_argument("-o", "--output", type=Path, required=True, metavar="ALL",
                   help="the merged database (a new file)")
    p.set_defaults(func=cmd)


def cmd(args: argparse.Namespace) -> int:
    for line in merge(list(args.inputs), args.output):
        print(line)
    print(f"merged {len(args.inputs)} database(s) into {args.output}", file=sys.stderr)
    return 0
