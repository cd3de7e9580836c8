"""`rtoslab run --irq-windows` on the known-answer firmware (firmware/bench/w_irqwin): the
masked sections of exact lengths are reported with exactly those lengths, at the right
source lines, at the right priority levels, at every optimisation level; tracking the
windows leaves the samples bit-identical."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rtoslab.records import IrqWindows
from rtoslab.store.db import open_store

from .conftest import RunCli

pytestmark = pytest.mark.qemu

SOURCE = Path(__file__).resolve().parents[2] / "firmware/bench/w_irqwin/w_irqwin.c"
PRIMASK_LEN = 20 + 1  # the nops and the cpsie
BASEPRI_LEN = 40 + 2  # the nops, then mov and msr
HANDLER_LEN = 60 + 5  # the nops, 4 counting instructions and bx lr
REPEAT = 3


def _line(marker: str) -> int:
    lines = SOURCE.read_text().splitlines()
    hits = [i + 1 for i, text in enumerate(lines) if f"/* {marker} */" in text]
    assert len(hits) == 1, (marker, hits)
    return hits[0]


def _run(run_cli: RunCli, db: Path, *extra: str) -> tuple[IrqWindows | None, list[tuple[int, int]]]:
    proc = run_cli("run", "--bench", "w_irqwin", "--db", str(db), *extra)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    store = open_store(db, read_only=True)
    view = store.load_run(store.latest_run_id() or 0)
    (result,) = view.results
    samples = store.load_run_samples(view)
    flat = [(s.insns, s.cycles) for m in result.metrics for s in samples[m.id]]
    return result.irq_windows, flat


@pytest.mark.parametrize("cflags", ["-O0", "-O2", "-Os"])
def test_known_answer_windows(run_cli: RunCli, tmp_path: Path, cflags: str) -> None:
    windows, _ = _run(run_cli, tmp_path / "r.sqlite", "--cflags", cflags, "--irq-windows")
    assert windows is not None
    assert windows.prio_bits == 3 and len(windows.levels) == 8
    where = "firmware/bench/w_irqwin/w_irqwin.c"
    # section: (cause, length, levels, start line, end line)
    expect = {
        "primask": ("primask", PRIMASK_LEN, range(0, 8), _line("W_PRIMASK_START"), _line("W_PRIMASK_END")),
        "basepri": ("basepri", BASEPRI_LEN, range(2, 8), _line("W_BASEPRI_START"), _line("W_BASEPRI_END")),
        "basepri_max": ("basepri", 30 + 2, range(4, 8), _line("W_BASEPRI_MAX_START"),
                        _line("W_BASEPRI_MAX_END")),
        "faultmask": ("faultmask", 10 + 1, range(0, 8), _line("W_FAULTMASK_START"),
                      _line("W_FAULTMASK_END")),
        "handler": ("handler:47", HANDLER_LEN, range(5, 8), _line("W_HANDLER"), _line("W_HANDLER")),
    }
    for lv in windows.levels:
        by_start = {(w.cause, w.start.rsplit(":", 1)[1].rstrip(")")): w for w in lv.windows}
        for section, (cause, length, levels, start, end) in expect.items():
            if lv.level not in levels:
                assert (cause, str(start)) not in by_start, (cflags, lv.level, section)
                continue
            w = by_start[(cause, str(start))]
            assert (w.max_insns, w.count) == (length, REPEAT), (cflags, lv.level, w)
            assert w.start.endswith(f"({where}:{start})"), (cflags, w.start)
            assert w.end.endswith(f"({where}:{end})"), (cflags, w.end)
        longest = max(e[1] for e in expect.values() if lv.level in e[2])
        assert max(w.max_insns for w in lv.windows) == longest
        assert lv.count == REPEAT * sum(1 for e in expect.values() if lv.level in e[2])
        assert lv.bound_cycles == lv.max_cycles + windows.entry_cycles
        assert lv.open_at_exit is None
    code = next(w for w in windows.levels[0].windows if w.cause == "primask").code
    assert '"cpsid i"' in code[0] and '"cpsie i"' in code[-1] and len(code) == 3, code
    handler = next(w for w in windows.levels[7].windows if w.cause.startswith("handler"))
    assert handler.start.startswith("w_handler ")


def test_tracking_does_not_change_samples(run_cli: RunCli, tmp_path: Path) -> None:
    with_windows, a = _run(run_cli, tmp_path / "a.sqlite", "--irq-windows")
    without, b = _run(run_cli, tmp_path / "b.sqlite")
    assert with_windows is not None and without is None
    assert a == b and len(a) == REPEAT


def test_phase_sweep_meets_the_window_bound(run_cli: RunCli, tmp_path: Path) -> None:
    """firmware/bench/w_irqphase: on the one clock a timer tick arrives at every cycle of a
    21-instruction (21-cycle: 20 nops and the CPSIE) PRIMASK window, one cycle further back
    per loop iteration. The extra latency of each measured tick (its tick-to-handler cycles
    minus the fastest) covers 1 .. the window's length + 1, the values above 2 each exactly
    once; outside the window a tick that lands while a 2-cycle instruction runs waits 1 or
    2 cycles for it to complete. The worst is the longest window --irq-windows reports at
    the timer's level plus one cycle: in the phase where the window follows the sled's
    taken branch directly, the branch's refill is charged at the next block's entry, after
    QEMU checked the deadline, so the tick due at the CPSID is seen one instruction late
    (docs/timing-model.md, "One clock": the residual error). The bound holds within that
    cycle, and it is tight."""
    db = tmp_path / "r.sqlite"
    proc = run_cli("run", "--bench", "w_irqphase", "--irq-windows", "--db", str(db))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    store = open_store(db, read_only=True)
    view = store.load_run(store.latest_run_id() or 0)
    (result,) = view.results
    (metric,) = result.metrics
    periods = [s.cycles for s in store.load_run_samples(view)[metric.id]]
    measured = periods[0::2]  # sync -> measured tick, one per phase
    assert len(measured) == 100
    delays = [p - min(measured) for p in measured]
    window = windows_at_timer_level(result.irq_windows, cycles=True) + 1
    assert set(range(1, window + 1)) <= set(delays)
    assert sorted(d for d in delays if d > 2) == list(range(3, window + 1))
    assert max(delays) == window


def windows_at_timer_level(windows: IrqWindows | None, cycles: bool = False) -> int:
    """The PRIMASK window at the timer's level (priority 0x80) of w_irqphase's report, in
    instructions or modelled cycles (nops and CPS: one cycle each, so the same)."""
    assert windows is not None
    level = next(lv for lv in windows.levels if lv.priority == 0x80)
    primask = next(w for w in level.windows if w.cause == "primask")
    assert primask.count == 100 and primask.max_insns == PRIMASK_LEN
    return primask.max_cycles if cycles else primask.max_insns


def test_irq_windows_without_a_timing_model_is_refused_before_running(tmp_path: Path) -> None:
    """The plugin's own rule, through the CLI (the real rtoslab-plugin-describe)."""
    proc = subprocess.run([sys.executable, "-m", "rtoslab.cli.main", "run", "--bench", "w_irqwin",
                           "--irq-windows", "--timing", "core=none", "--db", str(tmp_path / "r.sqlite")],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip() == ("rtoslab: error: --irq-windows needs a timing model: drop --timing "
                                   "core=none (or set a core) for this run")
    db = tmp_path / "r.sqlite"
    if db.exists():  # nothing ran, so no run is stored
        with open_store(db) as store:
            assert store.list_runs() == []


def test_irq_windows_on_an_experiment_without_a_timing_model_writes_nothing(run_cli: RunCli,
                                                                             tmp_path: Path) -> None:
    """`run FILE --irq-windows` where a configuration of the file has core none: one line
    naming the file and where to set a core (was: "drop --timing core=none", an option the
    experiment path refuses), and no database created."""
    exp, db = tmp_path / "e.toml", tmp_path / "r.sqlite"
    exp.write_text('name = "e"\nbenchmarks = ["call"]\n[matrix.timing]\ncore = ["none", "cortex-m3"]\n')
    proc = run_cli("run", str(exp), "--irq-windows", "--db", str(db))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.strip() == (
        f"rtoslab: error: --irq-windows needs a timing model: experiment {exp} has a configuration "
        "with timing core none: set a core in its [matrix.timing] (or drop --irq-windows)")
    assert not db.exists() and list(tmp_path.iterdir()) == [exp]


def test_the_api_refuses_irq_windows_without_a_timing_model_before_the_run_record(tmp_path: Path) -> None:
    """api.execute_plan(irq_windows=True) on a plan with core none: refused before a run
    record exists (was: a run record, then every benchmark run without its windows)."""
    from rtoslab import api
    from rtoslab.records import RtoslabError

    plan = [(api.configuration(timing={"core": "none"}), api.select(["call"]))]
    with open_store(tmp_path / "r.sqlite") as store:
        with pytest.raises(RtoslabError, match=r"^--irq-windows needs a timing model: give every "
                                               r"configuration a core \(timing core=\.\.\.\)$"):
            api.execute_plan(store, plan, "test", irq_windows=True)
        assert store.list_runs() == []
