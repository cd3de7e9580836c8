"""scripts/round_charges.py: the fetch lines a block needs, their reuse distances (what tells an
evicted ART line from a cached one, docs/kernel-suite.md k_irq_from_task), and its usage errors."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "round_charges.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("round_charges", SCRIPT)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_block_lines_counts_a_straddling_instruction_in_both_lines() -> None:
    rc = _script()
    # k_irq_from_task's handler on netduinoplus2/FreeRTOS: movw, movt at 0x..e8/ec, str.w at 0x..f0.
    insns = [(0x80011E8, 4), (0x80011EC, 4), (0x80011F0, 4), (0x80011F4, 2), (0x80011F6, 2)]
    index = {a: i for i, (a, _) in enumerate(insns)}
    assert [ln * 16 for ln in rc.block_lines(insns, index, 0x80011E8, 3, 16)] == [0x80011E0, 0x80011F0]
    assert [ln * 8 for ln in rc.block_lines(insns, index, 0x80011E8, 3, 8)] == [0x80011E8, 0x80011F0]
    # a 32-bit instruction across a line boundary needs both lines
    straddle = [(0x8000696, 4), (0x800069A, 2)]
    sindex = {a: i for i, (a, _) in enumerate(straddle)}
    assert [ln * 8 for ln in rc.block_lines(straddle, sindex, 0x8000696, 2, 8)] == [0x8000690, 0x8000698]
    assert rc.block_lines(insns, index, 0x1234, 3, 16) == []  # not in the disassembly


def test_reuse_distance_counts_other_distinct_lines() -> None:
    rc = _script()
    reuse = rc.Reuse()
    assert reuse.use(1) is None
    assert reuse.use(1) == 0
    for ln in (2, 3, 2, 3, 4):
        reuse.use(ln)
    assert reuse.use(1) == 3  # 2, 3 and 4, each counted once
    # 64 other lines between two uses: beyond a 64-line LRU cache's reach (63 would still hit)
    for ln in range(100, 164):
        reuse.use(ln)
    assert reuse.use(1) == 64


def test_usage_errors_exit_2_with_one_line() -> None:
    for args in ([], ["x.elf", "3", "0"], ["x.elf", "0", "0"], ["x.elf", "2", "a"]):
        r = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, check=False)
        assert r.returncode == 2, args
        assert r.stderr.startswith("usage: round_charges.py"), r.stderr
    r = subprocess.run([sys.executable, str(SCRIPT), "/nonexistent/k.elf", "2", "0"],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 2
    assert "not an image of a build folder" in r.stderr and len(r.stderr.splitlines()) == 1
