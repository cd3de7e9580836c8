"""The allocation lab end to end (issue 14, seed 004): real builds of allocator folders,
real QEMU runs. Assertions are properties of the allocators and of the checks, not
instruction counts: an O(1) allocator's worst case does not grow on a fragmented heap, a
list-walking one's does; a corrupted block fails the run; bad input says what is wrong.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from rtoslab.paths import cache_root

from .conftest import RunCli

pytestmark = pytest.mark.qemu

REPO = Path(__file__).resolve().parents[2]


def run_json(run_cli: RunCli, db: Path, *args: str) -> dict[str, object]:
    proc = run_cli("run", "--json", "--db", str(db), "-j", "2", *args)
    doc: dict[str, object] = json.loads(proc.stdout)
    return doc


def rows(doc: dict[str, object]) -> list[dict[str, object]]:
    out = doc["results"]
    assert isinstance(out, list)
    return out


def worst(doc: dict[str, object], bench: str, prefix: str) -> float:
    vals = [float(r["max"]) for r in rows(doc)  # type: ignore[arg-type]
            if r["benchmark"] == bench and str(r["metric"]).startswith(prefix) and r["unit"] == "cycle"]
    assert vals, f"no {prefix}* metrics of {bench}"
    return max(vals)


@pytest.mark.parametrize("alloc", ["tlsf", "heap4"])
def test_sweep_worst_case_against_heap_state(run_cli: RunCli, tmp_path: Path, alloc: str) -> None:
    doc = run_json(run_cli, tmp_path / "r.sqlite", "--bench", "a_sweep", "--bench", "a_sweep_frag",
                   "--define", f"LAB_ALLOC={alloc}")
    bad = [r for r in rows(doc) if r["status"] != "ok"]
    assert not bad, bad[:2]
    empty = worst(doc, "a_sweep", "malloc_")
    frag = worst(doc, "a_sweep_frag", "malloc_")
    if alloc == "tlsf":  # O(1): the fragmented heap's worst case is not above the empty one's
        assert frag <= empty, (frag, empty)
    else:  # first fit walks the holes: the worst case grows with them
        assert frag > 3 * empty, (frag, empty)


def test_corrupted_block_fails_the_run(run_cli: RunCli, tmp_path: Path) -> None:
    doc = run_json(run_cli, tmp_path / "r.sqlite", "--bench", "a_sweep", "--define", "LAB_ALLOC_SABOTAGE=1")
    (r,) = {r["benchmark"]: r for r in rows(doc)}.values()
    assert r["status"] == "failed"
    assert "self-check failed" in str(r["reason"]) and "pattern" in str(r["reason"])


def test_heap_too_small_is_one_clear_line(run_cli: RunCli, tmp_path: Path) -> None:
    doc = run_json(run_cli, tmp_path / "r.sqlite", "--bench", "a_fill", "--define", "LAB_ALLOC=umm",
                   "--define", "LAB_ALLOC_HEAP_BYTES=32")
    (r,) = {r["benchmark"]: r for r in rows(doc)}.values()
    assert r["status"] == "failed"
    reason = str(r["reason"])
    assert "allocator umm refused the heap region" in reason and "LAB_ALLOC_HEAP_BYTES" in reason
    assert "\n" not in reason


def test_unknown_allocator_names_the_choices(run_cli: RunCli, tmp_path: Path) -> None:
    proc = run_cli("run", "--db", str(tmp_path / "r.sqlite"), "--bench", "a_sweep", "--define",
                   "LAB_ALLOC=nosuch")
    assert proc.returncode == 2  # refused before anything is built or stored
    assert "unknown allocator 'nosuch' (--define LAB_ALLOC): choose one of heap4, heap5," in proc.stderr
    assert not (tmp_path / "r.sqlite").exists()


def test_full_newlib_malloc_is_linked_not_nano(run_cli: RunCli, tmp_path: Path) -> None:
    doc = run_json(run_cli, tmp_path / "r.sqlite", "--bench", "a_sweep", "--define", "LAB_ALLOC=newlib")
    assert all(r["status"] == "ok" for r in rows(doc)), rows(doc)[:1]
    # the build folder of this image: the one whose recorded configuration picks newlib
    elfs = [p.parent / "a_sweep.elf" for p in (cache_root() / "build").glob("*/rtoslab-config.json")
            if json.loads(p.read_text()).get("defines") == {"LAB_ALLOC": "newlib"}
            and json.loads(p.read_text()).get("kernel") == "baremetal"]
    elf = max((e for e in elfs if e.is_file()), key=lambda e: e.stat().st_mtime)
    syms = subprocess.run(["arm-none-eabi-nm", str(elf)], capture_output=True, text=True, check=True).stdout
    assert " __malloc_av_" in syms  # dlmalloc's bins: only in the full newlib's mallocr.o
    assert "nano_malloc" not in syms


def test_lock_strategies_under_freertos(run_cli: RunCli, tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    doc = run_json(run_cli, db, "--kernel", "freertos", "--bench", "a_lock_mutex", "--bench", "a_lock_none",
                   "--define", "ALLOC_TASKS=2", "--option", "configTICK_RATE_HZ=10000")
    by = {(r["benchmark"], r["metric"], r["unit"]): r for r in rows(doc)}
    none = by[("a_lock_none", None, None)]
    # invalid by construction (no lock, two tasks): n/a with the reason, not a failed run
    assert none["status"] == "n/a", none
    assert str(none["reason"]).startswith(
        "a_lock_none runs only with ALLOC_TASKS=1, not ALLOC_TASKS=2: no lock")
    mutex = {m: r for (b, m, u), r in by.items() if b == "a_lock_mutex" and u == "cycle"}
    assert all(r["status"] == "ok" for r in mutex.values())
    for m in ("malloc_wait_t0", "malloc_own_t1", "malloc_total_t1", "free_wait_t1", "irq_latency"):
        assert m in mutex, sorted(str(k) for k in mutex)
    # task 1 wakes while task 0 holds the mutex: it waits for it, at least once longer
    # than task 0's typical work inside the lock
    assert float(mutex["malloc_wait_t1"]["max"]) > float(mutex["malloc_own_t0"]["median"])  # type: ignore[arg-type]


def test_missing_allocator_capability_is_na(run_cli: RunCli, tmp_path: Path) -> None:
    doc = run_json(run_cli, tmp_path / "r.sqlite", "--bench", "a_realloc", "--bench", "a_aligned",
                   "--define", "LAB_ALLOC=umm")
    by = {r["benchmark"]: r for r in rows(doc)}
    assert by["a_aligned"]["status"] == "n/a"
    assert by["a_aligned"]["reason"] == ("allocator umm lacks LAB_ALLOC_HAS_ALIGNED=0 "
                                         "(umm_malloc has no aligned allocation)")
    assert by["a_realloc"]["status"] == "ok"  # umm has realloc: built, run, checked
