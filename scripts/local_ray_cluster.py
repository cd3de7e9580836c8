#!/usr/bin/env python3
"""Start a real Ray cluster on 127.0.0.1: a head node and N extra worker nodes, each a
`ray start --block` process with its own free ports and a private temp folder, so it
neither meets another Ray on this machine nor outlives its owner (each process is stopped
by its own id; `ray stop` would stop every Ray on the machine).

    scripts/local_ray_cluster.py [--workers N] [--cpus C]   # prints the address, runs until Ctrl-C

Used by tests/e2e/test_cluster.py and scripts/bench_scale.py (``LocalCluster``).
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RAY = Path(sys.executable).parent / "ray"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _ports() -> list[str]:
    out = []
    for flag in ("--node-manager-port", "--object-manager-port", "--dashboard-agent-listen-port",
                 "--dashboard-agent-grpc-port", "--runtime-env-agent-port", "--metrics-export-port"):
        out += [flag, str(_free_port())]
    return out


class LocalCluster:
    """A head plus ``workers`` extra nodes of ``cpus`` CPUs each; ``address`` to connect,
    with ``client_env`` in the client's environment."""

    def __init__(self, workers: int = 1, cpus: int = 1, env: dict[str, str] | None = None,
                 worker_env: dict[str, str] | None = None, timeout_s: float = 120) -> None:
        self.temp = Path(tempfile.mkdtemp(prefix="rtoslab-ray-"))
        self.port = _free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.procs: list[subprocess.Popen[bytes]] = []
        # Ray's token authentication, with a token of this cluster alone: a client needs
        # ``client_env`` (RAY_AUTH_MODE=token, RAY_AUTH_TOKEN) to join it.
        self.client_env = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)}
        base = {**os.environ, **(env or {}), **self.client_env}
        base.pop("RAY_ADDRESS", None)
        self.log = (self.temp / "start.log").open("ab")
        try:
            self._start_all(base, workers, cpus, worker_env, timeout_s)
        except BaseException:
            self.stop()
            raise

    def _start_all(self, base: dict[str, str], workers: int, cpus: int,
                   worker_env: dict[str, str] | None, timeout_s: float) -> None:
        self._start([str(RAY), "start", "--head", "--block", "--node-ip-address", "127.0.0.1",
                     "--port", str(self.port), "--num-cpus", str(cpus), "--include-dashboard", "false",
                     "--temp-dir", str(self.temp / "t"),
                     *_ports()], base)
        self._wait_nodes(1, timeout_s)
        for _ in range(workers):
            self._start([str(RAY), "start", "--block", "--address", self.address, "--node-ip-address",
                         "127.0.0.1", "--num-cpus", str(cpus), *_ports()], {**base, **(worker_env or {})})
        self._wait_nodes(1 + workers, timeout_s)

    def _start(self, cmd: list[str], env: dict[str, str]) -> None:
        self.procs.append(subprocess.Popen(cmd, env=env, stdout=self.log, stderr=self.log,
                                           start_new_session=True))

    def _wait_nodes(self, n: int, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        probe = ("import ray,sys; ray.init(address=sys.argv[1], logging_level='error', log_to_driver=False);"
                 "print(sum(1 for x in ray.nodes() if x['Alive']))")
        while time.monotonic() < deadline:
            if any(p.poll() is not None for p in self.procs):
                raise RuntimeError(f"a ray start process ended early: see {self.temp / 'start.log'}")
            try:
                out = subprocess.run([sys.executable, "-c", probe, self.address], capture_output=True,
                                     text=True, timeout=30, check=False,
                                     env={**os.environ, **self.client_env})
            except subprocess.TimeoutExpired:
                continue
            if out.returncode == 0 and out.stdout.strip().splitlines()[-1:] == [str(n)]:
                return
            time.sleep(1)
        raise RuntimeError(f"the local Ray cluster did not reach {n} node(s) in {timeout_s:.0f} s")

    def kill_node(self, index: int) -> None:
        """Kill extra node ``index`` (1: the first worker node) at once, as a machine that
        dies would go: SIGKILL to its process group."""
        proc = self.procs[index]
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()

    def stop(self) -> None:
        """Stop every process this cluster started (each `ray start --block` stops the Ray
        processes it started), by its own process group, workers first."""
        for p in reversed(self.procs):
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        for p in reversed(self.procs):
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        self.procs.clear()
        if not self.log.closed:
            self.log.close()
        shutil.rmtree(self.temp, ignore_errors=True)

    def __enter__(self) -> LocalCluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--cpus", type=int, default=1)
    args = ap.parse_args()
    with LocalCluster(args.workers, args.cpus) as cluster:
        print(" ".join(f"{k}={v}" for k, v in cluster.client_env.items()), cluster.address, flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
