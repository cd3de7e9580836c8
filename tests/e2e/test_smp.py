"""Two cores through the whole pipeline (real compiler, QEMU mps2-an521 and plugin): the
inter-core doorbell benchmark runs, its cross-core samples are stored and repeat exactly
from run to run, it is n/a on a one-core target with the reason, and a failure on core 1
(a failed check, a fault) fails the run. x_tick checks lab_target_tick_start on both
cores."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from .conftest import RunCli

pytestmark = pytest.mark.qemu


def _run(run_cli: RunCli, db: Path, *args: str) -> tuple[int, list[dict[str, object]], str]:
    proc = run_cli("run", "--json", "--db", str(db), "-j", "1", *args)
    doc = json.loads(proc.stdout)
    return proc.returncode, doc["results"], proc.stderr


def _samples(db: Path, run_id: int, metric: str) -> list[tuple[int, int]]:
    con = sqlite3.connect(db)
    rows = con.execute(
        "SELECT s.insns, s.cycles FROM samples s JOIN metrics m ON m.id = s.metric_id "
        "JOIN bench_runs b ON b.id = m.bench_run_id WHERE b.run_id = ? AND m.name = ? "
        "ORDER BY s.seq", (run_id, metric)).fetchall()
    con.close()
    return [(int(i), int(c)) for i, c in rows]


def test_doorbell_runs_on_two_cores_and_repeats_exactly(run_cli: RunCli, tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    args = ("--target", "mps2-an521", "--bench", "x_doorbell", "--bench", "x_tick")
    code, rows, err = _run(run_cli, db, *args)
    assert code == 0, err
    assert {r["benchmark"]: r["status"] for r in rows} == {"x_doorbell": "ok", "x_tick": "ok"}
    n = {r["metric"]: r["n"] for r in rows if r["unit"] == "insn"}
    # 32 rounds + the stopping round across cores; 32 self-rings on core 0.
    assert n == {"ring_other": 33, "reply": 33, "ring_self": 32}
    first = {m: _samples(db, 1, m) for m in n}
    # Stored, and the same every round: each core idles in WFI between rounds.
    for metric, samples in first.items():
        assert len(samples) == n[metric]
        assert len({i for i, _ in samples}) == 1, (metric, samples)
        assert all(i > 0 and c > 0 for i, c in samples)
    # More than the self-ring: QEMU runs core 1 only once core 0 sleeps, so core 0's way
    # from the ring to its WFI is in the interval (README.md of mps2-an521).
    assert first["ring_other"][0][0] > first["ring_self"][0][0]
    code, _, err = _run(run_cli, db, *args)
    assert code == 0, err
    assert {m: _samples(db, 2, m) for m in n} == first, "two runs of the same image: identical samples"
    # Core 0 busy after the ring (1000 iterations of nop/subs/bne, and the count's mov):
    # core 1 waits for it, every instruction of it is in the interval.
    one = ("--target", "mps2-an521", "--bench", "x_doorbell", "--define", "X_DOORBELL_BUSY=1000")
    code, _, err = _run(run_cli, db, *one)
    assert code == 0, err
    assert {i for i, _ in _samples(db, 3, "ring_other")} == {first["ring_other"][0][0] + 3001}
    # SEV+WFE after the ring (a yield in QEMU): core 1 runs at once, the busy loop is not
    # in the interval: the self-ring's path plus the ring's return and the pair.
    code, _, err = _run(run_cli, db, *one, "--define", "X_DOORBELL_YIELD=1")
    assert code == 0, err
    assert {i for i, _ in _samples(db, 4, "ring_other")} == {first["ring_self"][0][0] + 3}


def test_doorbell_is_na_on_a_one_core_target(run_cli: RunCli, tmp_path: Path) -> None:
    """x_doorbell is n/a with the reason; x_tick runs there and checks the one-core answers
    (core id 0, core_start and doorbell_install -1, a ring does nothing) and the tick."""
    code, rows, err = _run(run_cli, tmp_path / "r.sqlite", "--target", "mps2-an505", "--bench", "x_doorbell",
                           "--bench", "x_tick")
    assert code == 0, err
    assert [(r["benchmark"], r["status"], r["reason"]) for r in rows] == [
        ("x_doorbell", "n/a", "needs 2 cores; mps2-an505 has 1"), ("x_tick", "ok", None)]


@pytest.mark.parametrize(("define", "message"), [
    ("X_DOORBELL_FAIL_CORE1=1", "self-check failed: firmware/bench/x_doorbell/x_doorbell.c:"),
    ("X_DOORBELL_FAULT_CORE1=1", "undefined instruction at 0x"),
])
def test_a_failure_on_core_1_fails_the_run(run_cli: RunCli, tmp_path: Path, define: str,
                                           message: str) -> None:
    code, rows, _ = _run(run_cli, tmp_path / "r.sqlite", "--target", "mps2-an521", "--bench", "x_doorbell",
                         "--define", define)
    assert code != 0
    assert [r["status"] for r in rows] == ["failed"]
    reason = rows[0]["reason"]
    assert isinstance(reason, str) and message in reason, reason
    # The failure is core 1's: its check, or the faulting code's location.
    assert "X_DOORBELL_FAIL_CORE1 == 0" in reason or "(x_core1_main+" in reason, reason


def test_list_shows_each_targets_cores_and_who_has_too_few(run_cli: RunCli) -> None:
    proc = run_cli("list", "--all", env={"COLUMNS": "250"})
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    [an521] = [line for line in lines if " mps2-an521 " in line and "cortex-m33" in line]
    [an505] = [line for line in lines if " mps2-an505 " in line and "cortex-m33" in line]
    assert [c.strip() for c in an521.split("│")][3] == "2"
    assert [c.strip() for c in an505.split("│")][3] == "1"
    doorbell = "\n".join(line for line in lines
                         if "x_doorbell" in line or "(needs 2" in line or "cores)" in line)
    assert "mps2-an505" in doorbell and "(needs 2" in doorbell, doorbell
