"""The Arduino Uno target (issue 30): avr-gcc images on qemu-system-avr, measured by the
plugin's AVR model. One configuration (bare metal, -O2) serves every test here."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from .conftest import RunCli

pytestmark = pytest.mark.qemu


def _run(run_cli: RunCli, db: Path, *args: str) -> dict[str, object]:
    proc = run_cli("run", "--target", "arduino-uno", *args, "--json", "--db", str(db))
    doc = json.loads(proc.stdout)
    assert isinstance(doc, dict)
    doc["_returncode"] = proc.returncode
    doc["_stderr"] = proc.stderr
    return doc


def _medians(doc: dict[str, object], unit: str) -> dict[tuple[str, str], float]:
    rows = doc["results"]
    assert isinstance(rows, list)
    return {(r["benchmark"], r["metric"]): r["median"] for r in rows if r.get("unit") == unit}


def _statuses(doc: dict[str, object]) -> dict[str, tuple[str, str]]:
    rows = doc["benchmarks"] if "benchmarks" in doc else doc["results"]
    assert isinstance(rows, list)
    return {r["benchmark"]: (r.get("status", ""), r.get("reason") or "") for r in rows}


def test_the_avr_model_prices_the_manuals_sequences_exactly(run_cli: RunCli, tmp_path: Path) -> None:
    """v_avr's sequences at the AVR Instruction Set Manual's AVRe counts, to the cycle
    (bench.toml [[validation]]), and a CALL+RET pair (call): 4 + 4."""
    doc = _run(run_cli, tmp_path / "r.sqlite", "--bench", "v_avr", "--bench", "call",
               "--bench", "calib")
    assert doc["_returncode"] == 0, doc["_stderr"]
    cycles = _medians(doc, "cycle")
    want = {"alu": 10, "data_mem": 18, "mul_word": 8, "calls": 22, "jumps": 7, "branches": 5,
            "skips": 22, "lpm": 9, "reti": 8, "io_data": 8}
    assert {m: cycles[("v_avr", m)] for m in want} == want
    assert cycles[("call", "empty_call")] == 8
    assert _medians(doc, "insn")[("calib", "empty_pair")] == 0


def test_validate_reports_the_avr_cases_within_zero_cycles(run_cli: RunCli, tmp_path: Path) -> None:
    proc = run_cli("validate", "--bench", "v_avr", "--db", str(tmp_path / "v.sqlite"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("arduino-uno") >= 10
    assert "**no**" not in proc.stdout


def test_what_the_uno_cannot_run_is_na_with_the_reason(run_cli: RunCli, tmp_path: Path) -> None:
    proc = run_cli("run", "--target", "arduino-uno", "--bench", "loop", "--bench", "perf_mix",
                   "--bench", "k_irq_latency", "--db", str(tmp_path / "r.sqlite"))
    out = proc.stdout + proc.stderr
    assert "n/a loop: target arduino-uno lacks thumb (its core, atmega328p, is an 8-bit AVR" in out
    assert re.search(r"n/a perf_mix: needs (\d+) bytes of RAM, (\d+) more than arduino-uno's 2048 ", out)
    assert "n/a k_irq_latency:" in out


def test_a_cortex_m_timing_setting_is_refused_on_the_uno(run_cli: RunCli, tmp_path: Path) -> None:
    proc = run_cli("run", "--target", "arduino-uno", "--bench", "calib", "--timing", "flash_ws=1",
                   "--db", str(tmp_path / "r.sqlite"))
    assert proc.returncode == 2
    assert "flash_ws=1: the avre model has no flash_ws setting" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_freertos_preempts_on_the_uno_tick(run_cli: RunCli, tmp_path: Path) -> None:
    """The kernel's ATMega323 port adapted to the 328P (ports/freertos/avr_port.cmake): the
    tick on timer 1 preempts (k_tick's tick-driven switch), and five equal-priority toggling
    tasks with 128-byte stacks fit the 2 KiB and time-slice: their first-to-last spread is a
    fraction of one task's 8000 writes (the super loop's would be four tasks' worth)."""
    db = tmp_path / "r.sqlite"
    doc = _run(run_cli, db, "--kernel", "freertos", "--bench", "k_tick", "--bench", "k_yield")
    assert doc["_returncode"] == 0, doc["_stderr"]
    cycles = _medians(doc, "cycle")
    assert cycles[("k_tick", "tick_switch")] > 0 and cycles[("k_yield", "yield_switch")] > 0
    doc = _run(run_cli, db, "--kernel", "freertos", "--bench", "toggle_rtos",
               "--define", "TOGGLE_TASKS=5", "--define", "TOGGLE_STACK_WORDS=128")
    assert doc["_returncode"] == 0, doc["_stderr"]
    cycles = _medians(doc, "cycle")
    one_task = cycles[("toggle_rtos", "total")] / 5
    assert 0 < cycles[("toggle_rtos", "spread")] < one_task
