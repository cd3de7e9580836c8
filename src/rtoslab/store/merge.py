"""Merge results databases (`rtoslab merge A B ... -o ALL`): the shards of a plan run on
several machines (`rtoslab run --shard I/N`) become one store, as if one machine had run
the whole plan.

- One run per experiment: the runs of the inputs are grouped by their experiment file (a
  run without one, by its command without --shard/--db/-j); each group becomes one run
  that keeps the experiment file's path and its stored report spec (tables, baselines,
  names: ``runs.report_spec``).
- Results come in the whole plan's order (each result's ``plan_index``, stored by
  `run`); configurations are shared by identity hash.
- Two results of one identity (configuration, benchmark, source) in one group must be
  the same measurement (status, reason, totals, calibration, every metric's samples and
  summaries): then one is kept; if they differ the merge is refused. Two configurations
  with one hash and different identities are refused too. So are inputs of another
  schema version than this rtoslab's.
- A group of shards that lacks some of its N shards, or holds a run that did not
  complete, is stored with the worst status among them (``incomplete`` for a missing
  shard), never as complete.

Nothing is written unless everything checks: the output is built under a temporary name
beside it and renamed into place at the end.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from rtoslab.records import RtoslabError
from rtoslab.store.db import open_store
from rtoslab.store.schema import MIGRATIONS, current_version, latest_version
from rtoslab.trace.timeline import timeline_dir

_STATUS_RANK = {"complete": 0, "failed": 1, "incomplete": 2, "running": 3}
_DROP_WITH_VALUE = {"--shard", "--db", "-j", "--jobs", "--report", "--cluster"}
_DROP = {"--json", "--yes", "--wide", "--per-config"}


@dataclass
class _Group:
    key: str
    runs: list[tuple[int, sqlite3.Row]] = field(default_factory=list)  # (input index, run row)


def _open_input(path: Path) -> sqlite3.Connection:
    if not path.is_file():
        raise RtoslabError(f"merge: no database at {path}: give the shards' result files")
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    try:
        version = current_version(conn, path)
    except sqlite3.DatabaseError as err:
        conn.close()
        raise RtoslabError(f"merge: {path} is not an rtoslab results database ({err})") from err
    except RtoslabError as err:
        conn.close()
        raise RtoslabError(f"merge: {err}") from err
    known = latest_version(MIGRATIONS)
    if version != known:
        conn.close()
        raise RtoslabError(f"merge: {path} has schema v{version}, this rtoslab writes v{known}: open it once "
                           f"with this rtoslab (`rtoslab runs --db {path}` upgrades an older one) or merge "
                           "with the rtoslab that wrote it")
    return conn


def _columns(row: sqlite3.Row) -> list[str]:
    """A row's column names (``in`` on a row looks at its values)."""
    return list(row.keys())


def _group_key(run: sqlite3.Row) -> str:
    if run["experiment"]:
        return "experiment:" + str(run["experiment"])
    words = shlex.split(str(run["command"]))
    kept: list[str] = []
    skip = False
    for w in words:
        if skip:
            skip = False
            continue
        name = w.split("=", 1)[0]
        if name in _DROP_WITH_VALUE:
            skip = "=" not in w
            continue
        if name in _DROP:
            continue
        kept.append(w)
    return "command:" + " ".join(kept)


def _result_fingerprint(conn: sqlite3.Connection, row: sqlite3.Row) -> str:
    """Everything of a result that a repeated measurement reproduces exactly (not its wall
    time, console timing or when it was stored)."""
    metrics = []
    for m in conn.execute("SELECT id, name, description, time_base, time_note FROM metrics "
                          "WHERE bench_run_id = ? ORDER BY name", (row["id"],)):
        samples = conn.execute("SELECT insns, cycles FROM samples WHERE metric_id = ? ORDER BY seq",
                               (m["id"],)).fetchall()
        summaries = conn.execute("SELECT unit, n, min, max, mean, median, mode, stdev, p90, p99, warnings "
                                 "FROM summaries WHERE metric_id = ? ORDER BY unit", (m["id"],)).fetchall()
        metrics.append([m["name"], m["time_base"], m["time_note"], [tuple(s) for s in samples],
                        [tuple(s) for s in summaries]])
    return json.dumps([row["status"], row["reason"], row["total_insns"], row["total_cycles"],
                       row["calib_insns"], row["calib_cycles"], metrics])


def merge(inputs: list[Path], output: Path) -> list[str]:
    """Merge ``inputs`` into the new database ``output``; returns one line per merged run
    (what it holds). Raises RtoslabError (one line) and writes nothing on any conflict."""
    if len(inputs) < 1:
        raise RtoslabError("merge: give at least one database to merge, and -o OUTPUT")
    if output.exists():
        raise RtoslabError(f"merge: {output} exists: give a new path with -o (merge never overwrites)")
    if len({p.resolve() for p in inputs}) != len(inputs):
        raise RtoslabError("merge: a database is given twice")
    conns = [_open_input(p) for p in inputs]
    try:
        return _merge(inputs, conns, output)
    finally:
        for c in conns:
            c.close()


def _merge(inputs: list[Path], conns: list[sqlite3.Connection], output: Path) -> list[str]:
    # configurations: one per hash, and the same identity wherever it appears
    identities: dict[str, tuple[str, int]] = {}  # hash -> (identity json, input index)
    for i, conn in enumerate(conns):
        for c in conn.execute("SELECT hash, identity FROM configs"):
            seen = identities.get(c["hash"])
            if seen is None:
                identities[c["hash"]] = (c["identity"], i)
            elif json.loads(seen[0]) != json.loads(c["identity"]):
                a, b = json.loads(seen[0]), json.loads(c["identity"])
                differ = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
                raise RtoslabError(f"merge: configuration {c['hash']} has different identities in "
                                   f"{inputs[seen[1]]} and {inputs[i]} ({', '.join(differ)}): "
                                   "these stores cannot be merged")
    groups: dict[str, _Group] = {}
    for i, conn in enumerate(conns):
        for run in conn.execute("SELECT * FROM runs ORDER BY started_at, id"):
            key = _group_key(run)
            groups.setdefault(key, _Group(key)).runs.append((i, run))
    # results per group, in plan order; duplicates of one identity must agree
    plans: dict[str, list[tuple[int, sqlite3.Row]]] = {}
    for key, group in groups.items():
        chosen: dict[tuple[str, str, str, int | None], tuple[int, sqlite3.Row, str]] = {}
        for i, run in group.runs:
            conn = conns[i]
            rows = conn.execute("SELECT b.*, c.hash AS config_hash FROM bench_runs b "
                                "JOIN configs c ON c.id = b.config_id WHERE b.run_id = ? ORDER BY b.id",
                                (run["id"],)).fetchall()
            for row in rows:
                ident = (row["config_hash"], row["benchmark"], row["source_hash"], row["plan_index"])
                fp = _result_fingerprint(conn, row)
                if ident in chosen:
                    j, other, other_fp = chosen[ident]
                    if other_fp != fp:
                        raise RtoslabError(
                            f"merge: {row['benchmark']} on configuration {row['config_hash']} differs "
                            f"between {inputs[j]} (run {other['run_id']}) and {inputs[i]} (run "
                            f"{run['id']}): merge only shards of one plan, or results that agree")
                    continue
                chosen[ident] = (i, row, fp)
        ordered = sorted(chosen.values(), key=lambda t: (
            t[1]["plan_index"] if t[1]["plan_index"] is not None else 1 << 62, t[0], t[1]["id"]))
        plans[key] = [(i, row) for i, row, _ in ordered]

    tmp = output.with_name(f".{output.name}.merging-{os.getpid()}")
    for p in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
        p.unlink(missing_ok=True)
    lines: list[str] = []
    try:
        with open_store(tmp) as store:
            store.close()
        out = sqlite3.connect(tmp, isolation_level=None)
        out.row_factory = sqlite3.Row
        try:
            out.execute("BEGIN IMMEDIATE")
            config_ids: dict[str, int] = {}
            for h, (_identity, i) in identities.items():
                row = conns[i].execute("SELECT * FROM configs WHERE hash = ?", (h,)).fetchone()
                cols = [k for k in _columns(row) if k != "id"]
                cur = out.execute(f"INSERT INTO configs ({', '.join(cols)}) VALUES "
                                  f"({', '.join('?' * len(cols))})", [row[k] for k in cols])
                config_ids[h] = int(cur.lastrowid or 0)
            timeline_copies: list[tuple[Path, Path]] = []
            order = sorted(groups.values(), key=lambda g: min(str(r["started_at"]) for _, r in g.runs))
            for group in order:
                lines.append(_write_group(out, group, plans[group.key], conns, inputs, config_ids,
                                          output, timeline_copies))
            out.execute("COMMIT")
        except BaseException:
            if out.in_transaction:
                out.execute("ROLLBACK")
            raise
        finally:
            out.close()
        with open_store(tmp) as check:  # a last look: the store reads back
            check.list_runs(1)
        for src, dst in timeline_copies:
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)
        os.replace(tmp, output)
    finally:
        for p in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
            with contextlib.suppress(OSError):
                p.unlink()
    return lines


def _write_group(out: sqlite3.Connection, group: _Group, rows: list[tuple[int, sqlite3.Row]],
                 conns: list[sqlite3.Connection], inputs: list[Path], config_ids: dict[str, int],
                 output: Path, timeline_copies: list[tuple[Path, Path]]) -> str:
    runs = [r for _, r in group.runs]
    status = max((str(r["status"]) for r in runs), key=lambda s: _STATUS_RANK.get(s, 3))
    if status == "running":
        status = "incomplete"  # (a shard whose process never finished it)
    shards = {str(r["shard"]) for r in runs if r["shard"]}
    note = ""
    if shards:
        totals = {s.split("/")[1] for s in shards}
        have = {int(s.split("/")[0]) for s in shards}
        n = max(int(t) for t in totals)
        missing = sorted(set(range(1, n + 1)) - have)
        if len(totals) > 1 or missing or len(shards) != len(runs):
            status = "incomplete"
            note = f" (shards {', '.join(sorted(shards))}{'; missing ' if missing else ''}" \
                   f"{', '.join(f'{m}/{n}' for m in missing)}: stored incomplete)"
    first = runs[0]

    def joined(col: str) -> str:
        return ", ".join(dict.fromkeys(str(r[col]) for r in runs))

    tools: dict[str, str] = {}
    for r in runs:
        for k, v in json.loads(r["tool_versions"] or "{}").items():
            tools[k] = v if tools.get(k, v) == v else f"{tools[k]} | {v}"
    command = "rtoslab merge " + " ".join(shlex.quote(str(p)) for p in inputs) + \
              f" -o {shlex.quote(str(output))} (of: {first['command']})"
    finished = [str(r["finished_at"]) for r in runs if r["finished_at"]]
    cur = out.execute(
        "INSERT INTO runs (started_at, finished_at, status, rtoslab_revision, host, tool_versions, "
        "command, experiment, report_spec) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (min(str(r["started_at"]) for r in runs), max(finished) if finished else None, status,
         joined("rtoslab_revision"), joined("host"), json.dumps(tools, sort_keys=True), command,
         first["experiment"], first["report_spec"]))
    run_id = int(cur.lastrowid or 0)
    for i, row in rows:
        conn = conns[i]
        cols = [k for k in _columns(row) if k not in ("id", "config_hash", "run_id", "config_id")]
        cur = out.execute(f"INSERT INTO bench_runs (run_id, config_id, {', '.join(cols)}) VALUES "
                          f"(?, ?, {', '.join('?' * len(cols))})",
                          [run_id, config_ids[row["config_hash"]], *(row[k] for k in cols)])
        new_id = int(cur.lastrowid or 0)
        for m in conn.execute("SELECT * FROM metrics WHERE bench_run_id = ? ORDER BY id", (row["id"],)):
            mcols = [k for k in _columns(m) if k not in ("id", "bench_run_id")]
            mcur = out.execute(f"INSERT INTO metrics (bench_run_id, {', '.join(mcols)}) VALUES "
                               f"(?, {', '.join('?' * len(mcols))})", [new_id, *(m[k] for k in mcols)])
            mid = int(mcur.lastrowid or 0)
            out.executemany("INSERT INTO samples (metric_id, seq, insns, cycles) VALUES (?, ?, ?, ?)",
                            [(mid, s["seq"], s["insns"], s["cycles"]) for s in conn.execute(
                                "SELECT seq, insns, cycles FROM samples WHERE metric_id = ?", (m["id"],))])
            for s in conn.execute("SELECT * FROM summaries WHERE metric_id = ?", (m["id"],)):
                scols = [k for k in _columns(s) if k != "metric_id"]
                out.execute(f"INSERT INTO summaries (metric_id, {', '.join(scols)}) VALUES "
                            f"(?, {', '.join('?' * len(scols))})", [mid, *(s[k] for k in scols)])
        for w in conn.execute("SELECT report FROM irq_windows WHERE bench_run_id = ?", (row["id"],)):
            out.execute("INSERT INTO irq_windows (bench_run_id, report) VALUES (?, ?)", (new_id, w["report"]))
        timeline = timeline_dir(inputs[i], int(row["run_id"])) / f"bench-{row['id']}.json"
        if timeline.is_file():
            timeline_copies.append((timeline, timeline_dir(output, run_id) / f"bench-{new_id}.json"))
    for i, r in group.runs:
        for b in conns[i].execute("SELECT * FROM builds WHERE run_id = ?", (r["id"],)):
            bcols = [k for k in _columns(b) if k not in ("id", "run_id")]
            out.execute(f"INSERT INTO builds (run_id, {', '.join(bcols)}) VALUES "
                        f"(?, {', '.join('?' * len(bcols))})", [run_id, *(b[k] for k in bcols)])
    what = first["experiment"] or first["command"]
    return f"run {run_id}: {len(rows)} result(s) of {len(runs)} run(s), {what}, {status}{note}"
