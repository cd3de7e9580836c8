"""`rtoslab run --cluster` on a real Ray cluster (issue 27, item 3): a head and one extra
worker node on 127.0.0.1 (scripts/local_ray_cluster.py, bounded start time), the same
plan run locally and on the cluster (the driver shipping images, and the workers
building), compared: the same samples, JSON results, progress lines and exit status.
Then Ctrl-C, an unknown address and a node without QEMU."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import REPO, RunCli

if not (os.environ.get("CI") or os.environ.get("RTOSLAB_REQUIRE_QEMU") == "1"):  # there: must not skip
    pytest.importorskip("ray", reason="needs the extra rtoslab[cluster] (make setup installs it)")
sys.path.insert(0, str(REPO / "scripts"))
from local_ray_cluster import LocalCluster

pytestmark = [pytest.mark.qemu, pytest.mark.long]

PLAN = ("--suite", "smoke", "--trace")  # two configurations (LAB_TRACE 0 and 1), timelines too


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    with LocalCluster(workers=1, cpus=1, timeout_s=180) as c:
        yield c


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "rtoslab.cli.main", *args], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or {})})


def _results(stdout: str) -> list[dict]:
    return [{k: v for k, v in r.items() if k != "wall_s"} for r in json.loads(stdout)["results"]]


def _lines(stderr: str) -> list[str]:
    return [ln for ln in stderr.splitlines() if ln.startswith("[")]


@pytest.mark.parametrize("builds", ["driver", "workers"])
def test_cluster_run_is_identical_to_a_local_run(builds: str, cluster: LocalCluster, run_cli: RunCli,
                                                 tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    local = run_cli("run", *PLAN, "-j", "2", "--json", "--db", str(db))
    assert local.returncode == 0, local.stderr
    remote = run_cli("run", *PLAN, "--cluster", cluster.address, "--cluster-builds", builds, "--json",
                     "--db", str(db), env=cluster.client_env)
    assert remote.returncode == 0, remote.stderr
    assert _results(remote.stdout) == _results(local.stdout)
    assert _lines(remote.stderr) == _lines(local.stderr)
    same = subprocess.run([sys.executable, str(REPO / "scripts" / "same_samples.py"), str(db), "1",
                           str(db), "2"], capture_output=True, text=True, check=False)
    assert same.returncode == 0 and "0 different" in same.stdout, same.stdout
    # the timelines travelled back and were stored by the driver
    assert len(list((tmp_path / "timelines" / "r.sqlite" / "run-2").iterdir())) == \
        len(list((tmp_path / "timelines" / "r.sqlite" / "run-1").iterdir())) > 0


def test_ctrl_c_cancels_and_stores_incomplete(cluster: LocalCluster, tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    proc = _cli("run", str(REPO / "examples" / "smoke-sweep.toml"), "--cluster", cluster.address,
                "--db", str(db), env=cluster.client_env)
    assert proc.stderr is not None
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if line.startswith("[1/"):
            proc.send_signal(signal.SIGINT)
            break
    _out, err = proc.communicate(timeout=300)
    assert proc.returncode == 130, "".join(seen) + err
    con = sqlite3.connect(db)
    status, = con.execute("SELECT status FROM runs").fetchone()
    n, = con.execute("SELECT COUNT(*) FROM bench_runs").fetchone()
    assert status == "incomplete" and 1 <= n < 24


def test_unknown_address_is_one_line_and_writes_nothing(run_cli: RunCli, tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    proc = run_cli("run", "--cluster", "127.0.0.1:1", "--db", str(db))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rtoslab: error: --cluster 127.0.0.1:1: no Ray cluster "
                                                   "answers there"), proc.stderr
    assert not db.exists()


def test_a_node_without_qemu_is_named(run_cli: RunCli, tmp_path: Path) -> None:
    """A node whose qemu-system-arm is missing (no patched build in its cache, none on its
    PATH): one line naming the tool and the node, exit 2, nothing stored."""
    bare = tmp_path / "bin"
    bare.mkdir()
    for tool in ("sh", "env", "uname", "cat"):
        where = subprocess.run(["which", tool], capture_output=True, text=True, check=False).stdout.strip()
        if where:
            (bare / tool).symlink_to(where)
    node_env = {"PATH": f"{Path(sys.executable).parent}:{bare}", "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    start = time.monotonic()
    with LocalCluster(workers=0, cpus=1, env=node_env, timeout_s=180) as c:
        db = tmp_path / "r.sqlite"
        proc = run_cli("run", "--cluster", c.address, "--db", str(db), env=c.client_env)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "lacks qemu-system-arm" in lines[0] and "worker " in lines[0], proc.stderr
    assert not db.exists()
    assert time.monotonic() - start < 600


def test_doctor_worker(run_cli: RunCli, tmp_path: Path) -> None:
    ok = run_cli("doctor", "--worker")
    assert ok.returncode == 0 and "has what a task needs" in ok.stdout, ok.stdout + ok.stderr
    bare = run_cli("doctor", "--worker", env={"XDG_CACHE_HOME": str(tmp_path)})  # no patched QEMU there
    assert bare.returncode == 1 and "lacks the one clock" in bare.stdout, bare.stdout


def test_a_node_lost_mid_run(run_cli: RunCli, tmp_path: Path) -> None:
    """The worker node dies while tasks run (SIGKILL to all its processes): its tasks are
    retried on the head (at most twice) and the run still ends complete and identical to
    a local run."""
    db = tmp_path / "r.sqlite"
    experiment = str(REPO / "examples" / "smoke-sweep.toml")
    local = run_cli("run", experiment, "-j", "2", "--json", "--db", str(db))
    assert local.returncode == 0, local.stderr
    with LocalCluster(workers=1, cpus=1, timeout_s=180) as c:
        proc = _cli("run", experiment, "--cluster", c.address, "--json", "--db", str(db), env=c.client_env)
        assert proc.stderr is not None
        seen = []
        for line in proc.stderr:
            seen.append(line)
            if line.startswith("[1/"):
                c.kill_node(1)
                break
        out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, "".join(seen) + err
    assert _results(out) == _results(local.stdout)
