"""The smoke suite under QEMU: exact instruction counts, bit-identical repeats."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from rtoslab.builder.config import BuildConfig
from rtoslab.catalog import Catalog
from rtoslab.paths import cache_root
from rtoslab.store.db import open_store

from .conftest import RunCli

CATALOG = Catalog()  # the checkout's folders alone

pytestmark = pytest.mark.qemu


@pytest.fixture(scope="module")
def smoke(run_cli: RunCli, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path]:
    db = tmp_path_factory.mktemp("smoke") / "r.sqlite"
    proc = run_cli("run", "--suite", "smoke", "--json", "--db", str(db))
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), db


def _entry(doc: dict, bench: str, unit: str = "insn") -> dict:
    rows = [r for r in doc["results"] if r["benchmark"] == bench and r["unit"] == unit]
    assert len(rows) == 1, rows
    return rows[0]


def _disassembly(elf: Path) -> list[tuple[int, str]]:
    """(address, mnemonic) of every instruction of the ELF's .text."""
    out = subprocess.run(["arm-none-eabi-objdump", "-d", "--section=.text", str(elf)],
                         capture_output=True, text=True, check=True).stdout
    rows = []
    for line in out.splitlines():
        m = re.match(r"^\s+([0-9a-f]+):\s+(?:[0-9a-f]{4}\s?){1,2}\s+(\S+)", line)
        if m:
            rows.append((int(m.group(1), 16), m.group(2)))
    return rows


def _symbols(elf: Path) -> dict[str, int]:
    out = subprocess.run(["arm-none-eabi-nm", str(elf)], capture_output=True, text=True,
                         check=True).stdout
    syms = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3:
            syms[parts[2]] = int(parts[0], 16) & ~1
    return syms


def _count(insns: list[tuple[int, str]], start: int, end: int) -> int:
    return sum(1 for addr, _ in insns if start <= addr < end)


def _elf(name: str) -> Path:
    return cache_root() / "build" / BuildConfig(catalog=CATALOG).image_key() / f"{name}.elf"


def test_all_smoke_benchmarks_pass(smoke: tuple[dict, Path]) -> None:
    doc, _ = smoke
    assert doc["schema"] == "rtoslab.run/1"
    assert doc["status"] == "complete"
    assert {r["benchmark"] for r in doc["results"]} == {"calib", "call", "straight", "loop"}
    assert all(r["status"] == "ok" for r in doc["results"])


def test_empty_pair_measures_exactly_zero(smoke: tuple[dict, Path]) -> None:
    e = _entry(smoke[0], "calib")
    assert (e["n"], e["min"], e["max"], e["mode"]) == (1000, 0, 0, 0)


def test_straight_block_measures_exactly_k(smoke: tuple[dict, Path]) -> None:
    e = _entry(smoke[0], "straight")
    assert (e["n"], e["min"], e["max"]) == (1000, 100, 100)
    # The block in the ELF really is 100 instructions between the two probe stores.
    elf = _elf("straight")
    insns = _disassembly(elf)
    start = _symbols(elf)["lab_straight_block"]
    stores = [a for a, m in insns if a >= start and m == "str.w"][:2]
    assert len(stores) == 2
    # from the first probe's str to the second's str: str + 100 + movw + movt
    assert _count(insns, stores[0], stores[1]) - 3 == 100


def test_loop_count_follows_from_disassembly(smoke: tuple[dict, Path]) -> None:
    elf = _elf("loop")
    syms = _symbols(elf)
    insns = _disassembly(elf)
    setup = _count(insns, syms["lab_sum_loop_setup"], syms["lab_sum_loop_body"])
    body = _count(insns, syms["lab_sum_loop_body"], syms["lab_sum_loop_exit"])
    expected = setup + 100 * body
    e = _entry(smoke[0], "loop")
    assert (e["n"], e["min"], e["max"]) == (1000, expected, expected)


def test_call_count_follows_from_disassembly(smoke: tuple[dict, Path]) -> None:
    elf = _elf("call")
    syms = _symbols(elf)
    insns = _disassembly(elf)
    start = syms["lab_call_empty"]
    body = []
    for addr, mnem in insns:
        if addr >= start:
            body.append(mnem)
            if mnem.startswith("bx") or mnem.startswith("pop"):
                break
    expected = 1 + len(body)  # the bl, then the function up to and including its return
    e = _entry(smoke[0], "call")
    assert (e["n"], e["min"], e["max"]) == (1000, expected, expected)


def test_repeated_run_gives_bit_identical_samples(run_cli: RunCli, smoke: tuple[dict, Path]) -> None:
    _, db = smoke
    proc = run_cli("run", "--suite", "smoke", "--json", "--db", str(db))
    assert proc.returncode == 0, proc.stderr
    second = json.loads(proc.stdout)["run_id"]
    store = open_store(db)
    first_view, second_view = store.load_run(second - 1), store.load_run(second)

    def raw(view: object) -> dict[tuple[str, str], tuple]:
        out = {}
        for r in view.results:  # type: ignore[attr-defined]
            for m in r.metrics:
                out[(r.benchmark, m.name)] = store.load_samples(m.id)
        return out

    a, b = raw(first_view), raw(second_view)
    assert a.keys() == b.keys() and len(a) >= 4
    assert a == b


def test_show_prints_stored_run_again(run_cli: RunCli, smoke: tuple[dict, Path]) -> None:
    doc, db = smoke
    proc = run_cli("show", str(doc["run_id"]), "--json", "--db", str(db))
    assert proc.returncode == 0, proc.stderr
    again = json.loads(proc.stdout)
    assert again["results"] == doc["results"]
    table = run_cli("show", str(doc["run_id"]), "--db", str(db))
    assert "straight" in table.stdout and "block_100" in table.stdout
