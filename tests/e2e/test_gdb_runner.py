"""The GDB runner against QEMU's own gdbstub (issue 29; docs/boards.md, "Without a board").

QEMU (rtoslab's patched one, with the plugin's timing model on the one clock, so SysTick
counts modelled cycles) starts halted with `-S -gdb tcp::PORT` and no image; `rtoslab run
--runner gdb` loads buffer-mode images into it through gdb-multiarch and reads the RAM probe
buffer with the SysTick probe clock (QEMU reads DWT CYCCNT as 0, so the DWT clock is for
chips). Checked: the same probe ids and sample counts as the plugin path, intervals within
a few cycles of the plugin's modelled cycles, and one line and the documented exit status
for a fault, a hang, a refused connection and a wrong ELF for the board.
"""

from __future__ import annotations

import json
import shutil
import socket
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from rtoslab.catalog import Catalog
from rtoslab.pipeline import gdbstub_command

from .conftest import RunCli

pytestmark = pytest.mark.qemu


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Stub:
    """A halted QEMU with a gdbstub, for one test module."""

    def __init__(self, target: str, tmp: Path) -> None:
        self.port = _free_port()
        self.proc = subprocess.Popen(gdbstub_command(Catalog(), target, self.port, tmp / f"{target}.trace"),
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"QEMU's gdbstub did not open port {self.port}")

    @property
    def server(self) -> str:
        return f"127.0.0.1:{self.port}"

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


@pytest.fixture(scope="module")
def an385(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stub]:
    if shutil.which("gdb-multiarch") is None:
        pytest.fail("gdb-multiarch is missing: run `make setup`")
    stub = Stub("mps2-an385", tmp_path_factory.mktemp("an385"))
    yield stub
    stub.close()


@pytest.fixture(scope="module")
def microbit(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stub]:
    stub = Stub("microbit", tmp_path_factory.mktemp("microbit"))
    yield stub
    stub.close()


def _metrics(doc: dict[str, object]) -> dict[tuple[str, str], tuple[int, float]]:
    """(benchmark, metric) -> (samples, median cycles) of a rtoslab.run/1 document."""
    return {(r["benchmark"], r["metric"]): (int(r["n"]), float(r["median"]))
            for r in doc["results"] if r["status"] == "ok" and r["unit"] == "cycle"}  # type: ignore[attr-defined]


def _identity(db: Path, config: str) -> dict[str, object]:
    with sqlite3.connect(db) as conn:
        row = conn.execute("SELECT identity FROM configs WHERE hash = ?", (config,)).fetchone()
    return dict(json.loads(row[0]))


def _run(run_cli: RunCli, db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli("run", "--db", str(db), "--json", "-j", "1", *args, timeout=900)


# Cycles a median of the buffer probe may differ from the plugin's: the buffer probe's
# clock read overlaps the code before it by a cycle or two (docs/boards.md, "Probe cost").
# The kernel benchmarks chosen have a fixed sample count: those whose count depends on
# how many ticks fall inside the run (k_yield, k_tick, k_delay) differ by design, as the
# buffer probe's 20 instructions make each round longer than the region probe's 3.
TOLERANCE = 3


@pytest.mark.parametrize("target,kernel,suite,benches", [
    ("mps2-an385", "baremetal", "smoke", ()),
    ("mps2-an385", "freertos", None, ("k_sem", "k_queue", "k_irq_latency", "k_mutex", "k_task_create")),
    ("microbit", "baremetal", "smoke", ()),
    ("microbit", "freertos", None, ("k_sem", "k_mutex", "k_isr_to_task")),
])
def test_the_gdb_path_measures_what_the_plugin_path_does(
        run_cli: RunCli, tmp_path: Path, request: pytest.FixtureRequest, target: str, kernel: str,
        suite: str | None, benches: tuple[str, ...]) -> None:
    stub: Stub = request.getfixturevalue("an385" if target == "mps2-an385" else "microbit")
    sel = ["--suite", suite] if suite else [a for b in benches for a in ("--bench", b)]
    db = tmp_path / "r.sqlite"
    plugin = _run(run_cli, db, "--target", target, "--kernel", kernel, *sel)
    assert plugin.returncode == 0, plugin.stderr
    gdb = _run(run_cli, db, "--target", target, "--kernel", kernel, *sel, "--runner", "gdb",
               "--gdb-server", stub.server)
    assert gdb.returncode == 0, gdb.stderr[-3000:]
    want, got = _metrics(json.loads(plugin.stdout)), _metrics(json.loads(gdb.stdout))
    assert want and set(got) == set(want)
    off = {key: (got[key], want[key]) for key in want
           if got[key][0] != want[key][0] or abs(got[key][1] - want[key][1]) > TOLERANCE}
    assert not off, off
    doc = json.loads(gdb.stdout)
    identity = _identity(db, doc["results"][0]["config"])
    assert identity["probe"] == "buffer"
    assert identity["measured_on"].startswith("emulator:qemu 10.")  # never "hardware:" here


def test_failures_are_one_line_each(run_cli: RunCli, tmp_path: Path, an385: Stub) -> None:
    db = tmp_path / "r.sqlite"
    fault = run_cli("run", "--db", str(db), "--bench", "t_fault", "--runner", "gdb",
                    "--gdb-server", an385.server)
    assert fault.returncode == 1
    line = next(x for x in fault.stderr.splitlines() if "FAILED t_fault" in x)
    assert "HardFault" in line or "UsageFault" in line, line
    hang = run_cli("run", "--db", str(db), "--bench", "t_hang", "--runner", "gdb",
                   "--gdb-server", an385.server)
    assert hang.returncode == 1
    assert any("FAILED t_hang: t_hang: hang: no end within 5 s" in x for x in hang.stderr.splitlines())
    # A microbit image on the M3 behind this server: refused before it is loaded.
    wrong = run_cli("run", "--db", str(db), "--target", "microbit", "--bench", "calib",
                    "--runner", "gdb", "--gdb-server", an385.server)
    assert wrong.returncode == 1
    assert any("wrong ELF for the board: the core at" in x and "cortex-m3" in x
               for x in wrong.stderr.splitlines()), wrong.stderr
    refused = run_cli("run", "--db", str(db), "--bench", "calib", "--runner", "gdb",
                      "--gdb-server", f"127.0.0.1:{_free_port()}")
    assert refused.returncode == 2
    assert refused.stderr.strip().count("\n") == 0 and "refused the connection" in refused.stderr


def test_validate_board_prints_board_model_and_error(run_cli: RunCli, tmp_path: Path,
                                                     an385: Stub) -> None:
    """QEMU's gdbstub stands in for the board: the board side reads the SysTick clock on
    the one clock, the model side is the plugin; the table has both and the error."""
    proc = run_cli("validate", "--db", str(tmp_path / "r.sqlite"), "--board", "mps2-an385",
                   "--gdb-server", an385.server, "--bench", "loop", "--bench", "straight")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "(emulator:qemu 10." in proc.stdout  # never claims a chip
    rows = {line.split()[1]: line.split()[2:] for line in proc.stdout.splitlines()
            if line.startswith(("loop ", "straight "))}
    board, model, error = rows["block_100"]
    assert float(model) == 100.0 and abs(float(board) - 100.0) <= TOLERANCE and error.endswith("%")
    assert abs(float(rows["sum_loop_100"][0]) - float(rows["sum_loop_100"][1])) <= TOLERANCE
