"""The throughput suite end to end (docs/throughput.md): FreeRTOS and bare metal under QEMU.

Every tp_* benchmark passes on FreeRTOS with one window holding the operation count its
source promises; bare metal runs what needs no scheduler and names the missing
capabilities for the rest; basic processing executes the same instructions on both; and
the cooperative-scheduling cost per operation is k_yield's yield_switch plus the loop's
own instructions, read from the loop's disassembly (the agreement docs/throughput.md
shows with the numbers).
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from rtoslab.builder.config import BuildConfig
from rtoslab.catalog import suite_benchmarks
from rtoslab.paths import cache_root
from rtoslab.store import open_store

from .conftest import RunCli

pytestmark = pytest.mark.qemu

# benchmark -> (its window metric, the operations its source puts in that window)
PROMISED = {
    "tp_basic": ("basic_window", 40),
    "tp_coop": ("coop_window", 5000),
    "tp_preempt": ("preempt_window", 2500),
    "tp_irq": ("irq_window", 2000),
    "tp_irq_preempt": ("irq_preempt_window", 2000),
    "tp_msg": ("msg_window", 2000),
    "tp_sync": ("sync_window", 2000),
    "tp_mem": ("mem_window", 5000),
}
BAREMETAL_RUNS = {"tp_basic", "tp_mem"}  # need no scheduler (tp_mem: a critical section)

# A window holds its operations plus the code that opens and closes it and any tick
# interrupts that fell inside. The opening/closing code is below 100 instructions (39 at
# -O2); a tick costs at most 121 instructions (k_tick's tick_wake) plus 53 when it switches
# tasks (tick_switch); at most 2 ticks fall in a window of 5000 yields (about 0.3 M
# instructions; a tick every 1 M). So the window's cost per operation exceeds the
# operations' own by less than (100 + 2 * 174) / 5000 < 0.1 instruction, and, at no more
# than 4 cycles per instruction (below), by less than 0.4 cycle.
EDGE_INSN_PER_OP = 0.1
EDGE_CYCLE_PER_OP = 0.4
# Cortex-M3 TRM (DDI 0337, "Processor instruction timings"): every instruction of the loop
# (load, store, add, compare, branch) takes 1 to 4 cycles (a taken branch 1 + P, P <= 3).
CPI_MIN, CPI_MAX = 1, 4


Outcome = tuple[dict, dict[str, dict[str, int]]]  # the JSON document; benchmark -> LAB-KV counters


def _run(run_cli: RunCli, db: Path, kernel: str, *extra: str) -> Outcome:
    proc = run_cli("run", "--suite", "throughput", *extra, "--kernel", kernel, "--json", "--db", str(db))
    doc = json.loads(proc.stdout)
    failed = [r for r in doc["results"] if r["status"] == "failed"]
    assert proc.returncode == 0 and not failed, (failed, proc.stderr[-2000:])
    with open_store(db) as store:
        view = store.load_run(doc["run_id"])
    return doc, {r.benchmark: r.counters for r in view.results}


@pytest.fixture(scope="module")
def freertos(run_cli: RunCli, tmp_path_factory: pytest.TempPathFactory) -> Outcome:
    return _run(run_cli, tmp_path_factory.mktemp("tpfreertos") / "r.sqlite", "freertos", "--bench", "k_yield")


@pytest.fixture(scope="module")
def baremetal(run_cli: RunCli, tmp_path_factory: pytest.TempPathFactory) -> Outcome:
    return _run(run_cli, tmp_path_factory.mktemp("tpbaremetal") / "r.sqlite", "baremetal")


def _row(doc: dict, bench: str, metric: str, unit: str) -> dict:
    rows = [r for r in doc["results"] if (r["benchmark"], r["metric"], r["unit"]) == (bench, metric, unit)]
    assert len(rows) == 1, (bench, metric, unit)
    return rows[0]


def test_the_suite_is_the_eight_thread_metric_tests() -> None:
    assert {b.name for b in suite_benchmarks("throughput")} == set(PROMISED)


def test_every_test_passes_on_freertos_with_its_promised_operations(freertos: Outcome) -> None:
    doc, counters = freertos
    for bench, (metric, ops) in PROMISED.items():
        row = _row(doc, bench, metric, "insn")
        assert row["status"] == "ok" and row["n"] == 1, (bench, row)
        assert counters[bench]["ops"] == ops, bench
        # one tick every 1 M instructions of the instruction clock: the window's ticks
        # cannot outnumber its millions of instructions (plus the one it may start in)
        assert counters[bench]["ticks"] <= row["median"] // 1_000_000 + 1, (bench, counters[bench])
        # every operation costs something on top of the loop: no empty windows
        assert row["median"] >= 5 * ops, bench


def test_bare_metal_runs_what_needs_no_scheduler_and_names_the_rest(baremetal: Outcome) -> None:
    doc, counters = baremetal
    for bench in PROMISED:
        rows = [r for r in doc["results"] if r["benchmark"] == bench]
        if bench in BAREMETAL_RUNS:
            assert all(r["status"] == "ok" for r in rows), bench
            assert counters[bench]["ops"] == PROMISED[bench][1] and "ticks" not in counters[bench]
        else:
            assert [r["status"] for r in rows] == ["n/a"], bench
            assert "LAB_HAS_SCHEDULER=0" in rows[0]["reason"], rows[0]["reason"]


def test_basic_processing_runs_the_same_instructions_on_both(freertos: Outcome, baremetal: Outcome) -> None:
    """The calibration test calls no kernel: its window differs between kernels only by
    the tick interrupts that fell into it (at most 121 instructions each, k_tick)."""
    f = _row(freertos[0], "tp_basic", "basic_window", "insn")["median"]
    b = _row(baremetal[0], "tp_basic", "basic_window", "insn")["median"]
    ticks = freertos[1]["tp_basic"]["ticks"]
    assert 0 <= f - b <= 121 * ticks, (f, b, ticks)


def _disassembly(elf: Path, function: str) -> list[tuple[int, str, str]]:
    """(address, mnemonic, operands) of one function's instructions."""
    out = subprocess.run(["arm-none-eabi-objdump", "-d", str(elf)], capture_output=True, text=True,
                         check=True).stdout
    body = out.split(f"<{function}>:\n", 1)[1].split("\n\n", 1)[0]
    insns = []
    for line in body.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\t(?:[0-9a-f]{4} ?){1,2}\s*\t(\S+)\s*(.*)", line)
        if m and m.group(2) != ".word":
            insns.append((int(m.group(1), 16), m.group(2), m.group(3)))
    return insns


def _loop_instructions(elf: Path, function: str, callee: str) -> int:
    """The instructions one turn of `function`'s loop around `bl callee` executes outside
    the call: walk from the instruction after the call, taking backward branches (the
    loop's) and not forward ones (its exits), until the same call is reached again."""
    insns = _disassembly(elf, function)
    index = {addr: i for i, (addr, _, _) in enumerate(insns)}
    calls = [i for i, (_, op, args) in enumerate(insns) if op == "bl" and f"<{callee}>" in args]
    for call in calls:
        i, count = call + 1, 0
        while count < 64 and i < len(insns):
            addr, op, args = insns[i]
            if op == "bl" and f"<{callee}>" in args:
                break
            count += 1
            target = re.match(r"([0-9a-f]+) <", args)
            if op.startswith("b") and op not in ("bl", "blx", "bic", "bics", "bfi", "bfc") and target:
                dest = int(target.group(1), 16)
                if op in ("b", "b.n", "b.w") or dest < addr:
                    i = index[dest]
                    continue
            i += 1
        if i == call:
            return count
    raise AssertionError(f"no loop around bl {callee} in {function}")


def test_cooperative_cost_per_operation_is_k_yield_plus_the_loop(freertos: Outcome) -> None:
    """docs/throughput.md, "Cooperative scheduling against k_yield"."""
    doc, counters = freertos
    ops = counters["tp_coop"]["ops"]
    elf = cache_root() / "build" / BuildConfig(kernel="freertos").image_key() / "tp_coop.elf"
    loop = _loop_instructions(elf, "coop_task", "lab_task_yield")
    assert 5 <= loop <= 20, loop  # a counter, a total, a test: a handful of instructions

    insn_per_op = _row(doc, "tp_coop", "coop_window", "insn")["median"] / ops
    yield_insn = _row(doc, "k_yield", "yield_switch", "insn")["median"]
    assert 0 <= insn_per_op - (yield_insn + loop) < EDGE_INSN_PER_OP, (insn_per_op, yield_insn, loop)

    cycle_per_op = _row(doc, "tp_coop", "coop_window", "cycle")["median"] / ops
    yield_cycle = _row(doc, "k_yield", "yield_switch", "cycle")["median"]
    loop_cycles = cycle_per_op - yield_cycle
    assert CPI_MIN * loop <= loop_cycles <= CPI_MAX * loop + EDGE_CYCLE_PER_OP, \
        (cycle_per_op, yield_cycle, loop)
