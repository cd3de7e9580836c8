"""Plans split into shards (`rtoslab run --shard I/N`), and the default costs both the
split and the duration estimate fall back on.

A shard is a deterministic part of the whole plan, by configuration: every shard of one
plan computes the same split from the plan alone (never from its database, which differs
between CI jobs), so the N shards hold every configuration exactly once. The split is
balanced by the estimate's default costs (a build, plus each benchmark run): the
configurations, costliest first, each go to the shard with the least cost so far.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rtoslab.builder.config import BuildConfig
from rtoslab.catalog import Benchmark
from rtoslab.records import RtoslabError

Plan = list[tuple[BuildConfig, list[Benchmark]]]

# A configuration's build, when no earlier build of its target is in the database (the
# median build of the kernel suite measured here: docs/performance.md, "Large sweeps").
DEFAULT_BUILD_S = 8.0
# One benchmark run, for the split (the estimate uses the database's earlier runs): the
# kernel suite's mean emulation per benchmark measured with the build default.
DEFAULT_RUN_S = 0.2

_SHARD = re.compile(r"(\d+)/(\d+)")


def parse_shard(text: str) -> tuple[int, int]:
    """``I/N`` with 1 <= I <= N: (I, N); anything else is one line saying what to write."""
    m = _SHARD.fullmatch(text.strip())
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
        raise RtoslabError(f"bad --shard '{text}': write I/N with 1 <= I <= N, e.g. --shard 1/4 "
                           "... --shard 4/4 for four shards")
    return int(m.group(1)), int(m.group(2))


def shard_cost(benches: Sequence[Benchmark]) -> float:
    return DEFAULT_BUILD_S + DEFAULT_RUN_S * len(benches)


def split(plan: Plan, shards: int) -> list[int]:
    """For each configuration of ``plan``, the shard (0-based) it belongs to."""
    order = sorted(range(len(plan)), key=lambda i: (-shard_cost(plan[i][1]), plan[i][0].measure_key(), i))
    load = [0.0] * shards
    owner = [0] * len(plan)
    for i in order:
        s = min(range(shards), key=lambda k: (load[k], k))
        owner[i] = s
        load[s] += shard_cost(plan[i][1])
    return owner


def shard_of(plan: Plan, index: int, shards: int) -> tuple[Plan, list[int]]:
    """Shard ``index`` (1-based) of ``shards``: its configurations in plan order, and for
    each the position of its first benchmark run in the whole plan (``plan_index``)."""
    if len(plan) < shards:
        raise RtoslabError(f"--shard {index}/{shards}: the plan has only {len(plan)} configuration(s), "
                           f"so it splits into at most {len(plan)} shards")
    owner = split(plan, shards)
    part: Plan = []
    offsets: list[int] = []
    at = 0
    for i, (config, benches) in enumerate(plan):
        if owner[i] == index - 1:
            part.append((config, benches))
            offsets.append(at)
        at += len(benches)
    return part, offsets
