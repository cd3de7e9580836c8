"""Several rtoslab processes on one cache and one database (issue 27, item 1).

Two loops of three runs each, started together, of the same configuration that nobody has
built yet (a fresh RTOSLAB_CACHE): before the build lock and the private trace folders,
such runs broke each other (a CMake "failed to open for writing" on the shared build
folder; "the trace is incomplete" when two QEMUs wrote one trace file). All six must
pass and store the same samples, and the configuration is built once.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from .conftest import REPO

pytestmark = pytest.mark.qemu

BENCHES = ("k_yield", "k_sem")


def _loop(env: dict[str, str], db: Path, out: list[subprocess.CompletedProcess[str]]) -> None:
    for _ in range(3):
        out.append(subprocess.run(
            [sys.executable, "-m", "rtoslab.cli.main", "run", "--kernel", "freertos",
             "--cflags", "-O1 -fno-inline", *(a for b in BENCHES for a in ("--bench", b)),
             "-j", "2", "--json", "--db", str(db)],
            cwd=REPO, env=env, capture_output=True, text=True, timeout=900, check=False))


def test_two_loops_of_three_runs_share_a_cold_cache(tmp_path: Path) -> None:
    env = {**os.environ, "RTOSLAB_CACHE": str(tmp_path / "cache")}
    db = tmp_path / "r.sqlite"
    outs: list[list[subprocess.CompletedProcess[str]]] = [[], []]
    loops = [threading.Thread(target=_loop, args=(env, db, o)) for o in outs]
    for t in loops:
        t.start()
    for t in loops:
        t.join()
    runs = [p for o in outs for p in o]
    assert len(runs) == 6
    for p in runs:
        assert p.returncode == 0, p.stderr[-2000:]
        doc = json.loads(p.stdout)
        assert {r["status"] for r in doc["results"]} == {"ok"}, doc["results"]
    con = sqlite3.connect(db)
    ids = [r[0] for r in con.execute("SELECT id FROM runs ORDER BY id")]
    assert len(ids) == 6 and {r[0] for r in con.execute("SELECT status FROM runs")} == {"complete"}
    # one configuration row: every run stored the same identity
    assert con.execute("SELECT COUNT(*) FROM configs").fetchone()[0] == 1
    for other in ids[1:]:
        same = subprocess.run([sys.executable, str(REPO / "scripts" / "same_samples.py"), str(db),
                               str(ids[0]), str(db), str(other)],
                              capture_output=True, text=True, check=False)
        assert same.returncode == 0, same.stdout
    # built once: one configure in the build log, and every later build found nothing to do
    build_dirs = list((tmp_path / "cache" / "build").iterdir())
    assert len(build_dirs) == 1
    log = (build_dirs[0] / "build.log").read_text()
    assert log.count(" -G Ninja ") == 1, log[:2000]
    builds = log.split("$ ninja -k 0 ")[1:]  # each run's build step (after its regeneration check)
    assert len(builds) == 6 and sum("ninja: no work to do" in b for b in builds) == 5, log[-3000:]
    # the images were published beside the build, and no private trace folder is left
    images = tmp_path / "cache" / "images" / build_dirs[0].name
    assert {f"{b}.elf" for b in BENCHES} <= {p.name for p in images.iterdir()}
    traces = next((tmp_path / "cache" / "traces").iterdir())
    assert sorted(p.name for p in traces.iterdir()) == sorted(f"{b}.trace" for b in BENCHES)
