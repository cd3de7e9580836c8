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
from collections.abc import Callable
from pathlib import Path

import pytest

from rtoslab.builder.config import BuildConfig
from rtoslab.catalog import Catalog
from rtoslab.paths import cache_root
from rtoslab.store import open_store

from .conftest import RunCli

CATALOG = Catalog()  # the checkout's folders alone

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
CLOCK_HZ = 25_000_000  # mps2-an385's clock_hz (target.toml): op/s are of modelled time
BAREMETAL_RUNS = {"tp_basic", "tp_mem"}  # need no scheduler (tp_mem: a critical section)

# A window holds its operations plus the code that opens and closes it and any tick
# interrupts that fell inside. The opening/closing code is below 100 instructions (39 at
# -O2); a tick costs at most 121 instructions (k_tick's tick_wake) plus 53 when it switches
# tasks (tick_switch). On the one clock a 1 kHz tick fires every 25,000 cycles, so a window
# of 5000 yields (about 0.7 M cycles) holds about 28 of them (LAB-KV ticks, measured). So
# the window's cost per operation exceeds the operations' own by less than
# (100 + ticks * 174) / ops instructions, and, at no more than 4 cycles per instruction
# (below), by less than 4 times that in cycles.
EDGE_OPEN_CLOSE_INSNS = 100
EDGE_TICK_INSNS = 121 + 53
TICK_CYCLES = 25_000  # FreeRTOS's 1 kHz tick at mps2-an385's 25 MHz
# Cortex-M3 TRM r2p1 (ARM DDI 0337I) Table 3-1: every instruction of the loop (load 2,
# store 1-2, add or compare 1, branch 1 or, taken, 1 + P with P 1..3) takes 1 to 4 cycles.
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
    return _run(run_cli, tmp_path_factory.mktemp("tpbaremetal") / "r.sqlite", "baremetal", "--with-na")


def _row(doc: dict, bench: str, metric: str, unit: str) -> dict:
    rows = [r for r in doc["results"] if (r["benchmark"], r["metric"], r["unit"]) == (bench, metric, unit)]
    assert len(rows) == 1, (bench, metric, unit)
    return rows[0]


def test_the_suite_is_the_eight_thread_metric_tests() -> None:
    assert {b.name for b in CATALOG.suite_benchmarks("throughput")} == set(PROMISED)


def test_every_test_passes_on_freertos_with_its_promised_operations(freertos: Outcome) -> None:
    doc, counters = freertos
    for bench, (metric, ops) in PROMISED.items():
        row = _row(doc, bench, metric, "insn")
        assert row["status"] == "ok" and row["n"] == 1, (bench, row)
        ticks = counters[bench]["ticks"]
        if bench == "tp_coop":  # a tick's switch can lose an update of the shared total
            assert ops <= counters[bench]["ops"] <= ops + ticks, (bench, counters[bench])
            ops = counters[bench]["ops"]
        assert counters[bench]["ops"] == ops, bench
        # on the one clock a tick every 25,000 modelled cycles: the window holds as many
        # as its cycles span, give or take the one at each end
        cycles = _row(doc, bench, metric, "cycle")["median"]
        assert abs(ticks - cycles / TICK_CYCLES) <= 1, (bench, ticks, cycles)
        # every operation costs something on top of the loop: no empty windows
        assert row["median"] >= 5 * ops, bench
        # the bench.toml rate: the window over the operations, per op and per modelled second
        rate = bench.removeprefix("tp_") + "_op"
        assert _row(doc, bench, rate, "insn/op")["median"] == pytest.approx(row["median"] / ops)
        assert _row(doc, bench, rate, "cycle/op")["median"] == pytest.approx(cycles / ops)
        assert _row(doc, bench, rate, "op/s")["median"] == pytest.approx(ops * CLOCK_HZ / cycles)


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


_UNCONDITIONAL = ("b", "b.n", "b.w")
_CONDITIONAL = re.compile(r"(b(eq|ne|cs|hs|cc|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le)(\.[nw])?|cbn?z)$")
Insns = list[tuple[int, str, str]]


def _paths(insns: Insns, start: int, stop: Callable[[int], bool], limit: int = 64) -> set[tuple[int, int]]:
    """(length, i) of every path from insns[start] to an instruction i with stop(i), the
    length counting the instructions executed before i: unconditional branches are followed,
    conditional ones both ways; any call or return ends a path without reaching the stop
    (the measured code between the probes and the yield makes no other call)."""
    index = {addr: i for i, (addr, _, _) in enumerate(insns)}
    found: set[tuple[int, int]] = set()
    todo = [(start, 0)]
    while todo:
        i, n = todo.pop()
        if i >= len(insns) or n > limit:
            continue
        if stop(i):
            found.add((n, i))
            continue
        _, op, args = insns[i]
        target = re.match(r"([0-9a-f]+) <", args)
        if op in _UNCONDITIONAL and target:
            todo.append((index[int(target.group(1), 16)], n + 1))
        elif _CONDITIONAL.match(op) and target:
            todo += [(index[int(target.group(1), 16)], n + 1), (i + 1, n + 1)]
        elif op in ("bl", "blx", "bx") or (op == "pop" and "pc" in args):
            continue
        else:
            todo.append((i + 1, n + 1))
    return found


def _calls(insns: Insns, i: int, callee: str) -> bool:
    return insns[i][1] == "bl" and f"<{callee}>" in insns[i][2]


def _probe(insns: Insns, i: int, probe_id: int) -> bool:
    """insns[i] is the first instruction of LAB_PROBE(probe_id): movw ip, #(4 * id)."""
    return insns[i][1] == "movw" and re.match(rf"ip, #{4 * probe_id}$", insns[i][2]) is not None


def _loop_instructions(elf: Path, function: str, callee: str) -> int:
    """The instructions one turn of `function`'s loop around `bl callee` executes outside
    the call: the path from the instruction after the call back to that same call."""
    insns = _disassembly(elf, function)
    for call in range(len(insns)):
        if _calls(insns, call, callee):
            back = _paths(insns, call + 1, lambda i: _calls(insns, i, callee))
            lengths = {n for n, at in back if at == call}
            if lengths:
                assert len(lengths) == 1, lengths
                return lengths.pop()
    raise AssertionError(f"no loop around bl {callee} in {function}")


def _instructions_beside_the_call(elf: Path, function: str, callee: str, start: int, end: int) -> int:
    """The instructions a start -> end probe interval around `bl callee` executes besides
    the call and what it runs: from probe `start`'s store to the call, and from the
    instruction after the call to probe `end`. Where several call sites qualify (a first
    round with its own path) the fewest: the steady-state loop's, which the median sees."""
    insns = _disassembly(elf, function)
    best: int | None = None
    for p in range(len(insns) - 2):
        if not _probe(insns, p, start):
            continue
        # the probe is movw/movt/str; calibration removes it, so count from after its store
        for before, call in _paths(insns, p + 3, lambda i: _calls(insns, i, callee)):
            for after, _ in _paths(insns, call + 1, lambda i: _probe(insns, i, end)):
                best = before + after if best is None else min(best, before + after)
    assert best is not None, f"no probe {start} -> bl {callee} -> probe {end} in {function}"
    return best


def test_cooperative_cost_per_operation_is_k_yield_plus_the_loop(freertos: Outcome) -> None:
    """docs/throughput.md, "Cooperative scheduling against k_yield": one turn of tp_coop is
    the yield path k_yield measures plus the loop's own instructions. k_yield's interval
    may hold an instruction or two of its own beside the call (-Os puts a branch between the
    yield's return and probe 3); both counts come from the disassembly of the two ELFs."""
    doc, counters = freertos
    ops = counters["tp_coop"]["ops"]
    build = cache_root() / "build" / BuildConfig(catalog=CATALOG, kernel="freertos").image_key()
    loop = _loop_instructions(build / "tp_coop.elf", "coop_task", "lab_task_yield")
    beside = _instructions_beside_the_call(build / "k_yield.elf", "yield_task", "lab_task_yield", 2, 3)
    assert 5 <= loop <= 20 and 0 <= beside <= 4, (loop, beside)  # a few loads, adds, a test

    edge_insn_per_op = (EDGE_OPEN_CLOSE_INSNS + counters["tp_coop"]["ticks"] * EDGE_TICK_INSNS) / ops
    yield_insn = _row(doc, "k_yield", "yield_switch", "insn")["median"] - beside
    insn_per_op = _row(doc, "tp_coop", "coop_window", "insn")["median"] / ops
    assert 0 <= insn_per_op - (yield_insn + loop) < edge_insn_per_op, (insn_per_op, yield_insn, loop)

    # cycles: the loop's instructions cost CPI_MIN .. CPI_MAX each; k_yield's instructions
    # beside the call as much (they are in its cycle count and not in tp_coop's)
    yield_cycle = _row(doc, "k_yield", "yield_switch", "cycle")["median"]
    cycle_per_op = _row(doc, "tp_coop", "coop_window", "cycle")["median"] / ops
    rest = cycle_per_op - yield_cycle  # = loop cycles - cycles of the instructions beside
    low = CPI_MIN * loop - CPI_MAX * beside
    high = CPI_MAX * loop - CPI_MIN * beside + CPI_MAX * edge_insn_per_op
    assert low <= rest <= high, (cycle_per_op, yield_cycle, loop, beside)
