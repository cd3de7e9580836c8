"""Rust models (docs/rust-models.md) under QEMU: a benchmark's Rust version is built with
Debian's rustc, linked into the C target's startup and harness, and its probes and
.lab_meta records measure exactly as the C ones do."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rtoslab.paths import repo_root

from .conftest import RunCli

pytestmark = [pytest.mark.qemu, pytest.mark.long]


@pytest.fixture(scope="module")
def embassy_smoke(run_cli: RunCli, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path]:
    db = tmp_path_factory.mktemp("rust") / "r.sqlite"
    proc = run_cli("run", "--suite", "smoke", "--kernel", "embassy", "--json", "--db", str(db))
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), db


def _median(doc: dict, bench: str, metric: str) -> float:
    rows = [r for r in doc["results"]
            if r["benchmark"] == bench and r["metric"] == metric and r["unit"] == "insn"]
    assert len(rows) == 1, rows
    assert rows[0]["min"] == rows[0]["max"] == rows[0]["median"], rows[0]
    return float(rows[0]["median"])


def _rust_elf(bench: str, symbol: str, target: str = "mps2-an385") -> Path:
    """The newest built ELF of `bench` for `target` that defines `symbol` (its Rust
    version's; other targets' builds share the cache)."""
    from rtoslab.paths import cache_root
    elfs = sorted((cache_root() / "build").glob(f"*/{bench}.elf"), key=lambda p: p.stat().st_mtime)
    for elf in reversed(elfs):
        ninja = elf.parent / "build.ninja"
        if not ninja.is_file() or f"targets/{target}/" not in ninja.read_text():
            continue
        syms = subprocess.run(["arm-none-eabi-nm", str(elf)], capture_output=True, text=True,
                              check=True).stdout
        if re.search(rf"\b{symbol}$", syms, re.MULTILINE):
            return elf
    raise AssertionError(f"no {bench}.elf defines {symbol}")


def _function_insns(elf: Path, name: str) -> int:
    """Instructions of function `name` in the ELF's disassembly."""
    out = subprocess.run(["arm-none-eabi-objdump", "-d", "--section=.text", str(elf)],
                         capture_output=True, text=True, check=True).stdout
    block = out.split(f"<{name}>:\n", 1)[1].split("\n\n", 1)[0]
    return sum(1 for ln in block.splitlines() if re.match(r"^\s*[0-9a-f]+:\s+[0-9a-f]{4}", ln))


def test_rust_probes_measure_exact_counts(embassy_smoke: tuple[dict, Path]) -> None:
    doc, _ = embassy_smoke
    # calib is the C harness's pair; straight's Rust version is one asm! block of exactly
    # 100 instructions between its two probes: the same counts as the C smoke suite.
    assert _median(doc, "calib", "empty_pair") == 0
    assert _median(doc, "straight", "block_100") == 100
    assert _median(doc, "loop", "sum_loop_100") == 301  # the C version (no Rust one)
    # call: the bl plus the Rust function as compiled (Rust's thumb targets force frame
    # pointers, so it is push/mov/pop rather than GCC's bx lr): counted from the ELF.
    call_elf = _rust_elf("call", "lab_rs_call_empty")
    body = _function_insns(call_elf, "lab_rs_call_empty")
    assert body >= 1
    assert _median(doc, "call", "empty_call") == 1 + body


def test_rust_version_is_linked_and_metadata_read(embassy_smoke: tuple[dict, Path]) -> None:
    doc, _ = embassy_smoke
    # the Rust .lab_meta record, not the C one: the image the run built from the Rust version
    assert _rust_elf("straight", "LAB_META_RUST").is_file()
    metrics = {(r["benchmark"], r["metric"]) for r in doc["results"]}
    assert ("straight", "block_100") in metrics and ("call", "empty_call") in metrics


def test_rust_run_is_bit_identical(run_cli: RunCli, embassy_smoke: tuple[dict, Path]) -> None:
    _, db = embassy_smoke
    proc = run_cli("run", "--suite", "smoke", "--kernel", "embassy", "--json", "--db", str(db))
    assert proc.returncode == 0, proc.stderr
    runs = subprocess.run([sys.executable, str(repo_root() / "scripts" / "same_samples.py"),
                           str(db), "1", str(db), "2"],
                          capture_output=True, text=True, check=False)
    assert runs.returncode == 0, runs.stdout + runs.stderr


def loaded_bytes(elf: Path) -> bytes:
    """What a loader puts in memory: every PT_LOAD segment's file bytes, with its address."""
    from elftools.elf.elffile import ELFFile
    out = b""
    with elf.open("rb") as f:
        for seg in ELFFile(f).iter_segments():
            if seg["p_type"] == "PT_LOAD":
                out += seg["p_paddr"].to_bytes(4, "little") + seg.data()
    return out


def test_rust_images_hold_no_checkout_path(embassy_smoke: tuple[dict, Path]) -> None:
    """File names compiled into a Rust image (panic and check! locations) are remapped
    (builder/rust.py remap_flags): the loaded bytes name no folder of this checkout, so
    another clone builds the same image."""
    from rtoslab.paths import cache_root
    elf = _rust_elf("call", "lab_rs_call_empty")
    image = loaded_bytes(elf)
    assert b"firmware/" in image  # the remapped names are there (the check looks at paths)
    for folder in (repo_root(), repo_root().resolve(), cache_root(), Path.home() / ".cargo"):
        assert str(folder).encode() + b"/" not in image, folder


RUST_KERNEL_BENCHES = ("k_yield", "k_preempt", "k_isr_to_task", "k_queue", "k_mutex", "k_irq_latency",
                       "toggle_rtos")


@pytest.mark.parametrize("kernel", ["rtic", "embassy"])
def test_rust_kernel_benchmarks_run_check_and_repeat_bit_identically(
        run_cli: RunCli, tmp_path: Path, kernel: str) -> None:
    db = tmp_path / "r.sqlite"
    args = ["run", "--kernel", kernel, "--json", "--db", str(db)]
    for b in RUST_KERNEL_BENCHES + (("k_delay", "ftl_os") if kernel == "rtic" else ("ftl_os",)):
        args += ["--bench", b]
    first = run_cli(*args)
    assert first.returncode == 0, first.stderr
    doc = json.loads(first.stdout)
    metrics = {(r["benchmark"], r["metric"]) for r in doc["results"] if r["unit"] == "cycle"}
    # the C suite's metric names where the measured thing is the same
    expected = [("k_yield", "yield_switch"), ("k_preempt", "preempt_resume"),
                ("k_isr_to_task", "isr_notify_to_task"), ("k_queue", "queue_latency"),
                ("k_mutex", "mutex_lock"), ("k_irq_latency", "irq_latency_idle"),
                ("toggle_rtos", "total"), ("ftl_os", "total")]
    if kernel == "rtic":
        expected.append(("k_delay", "wake_latency"))
    for m in expected:
        assert m in metrics, (kernel, m)
    preempt = [r for r in doc["results"] if r["metric"] == "preempt_resume" and r["unit"] == "insn"]
    assert preempt[0]["n"] == 1000 and preempt[0]["min"] == preempt[0]["max"]
    second = run_cli(*args)
    assert second.returncode == 0, second.stderr
    same = subprocess.run([sys.executable, str(repo_root() / "scripts" / "same_samples.py"),
                           str(db), "1", str(db), "2"], capture_output=True, text=True, check=False)
    assert same.returncode == 0, same.stdout + same.stderr


def test_rust_kernel_lacking_a_version_is_na_with_the_reason(run_cli: RunCli, tmp_path: Path) -> None:
    proc = run_cli("run", "--kernel", "rtic", "--bench", "k_sem", "--db", str(tmp_path / "r.sqlite"))
    assert "n/a" in proc.stdout + proc.stderr
    assert "rtic: tasks are RTIC software and hardware tasks" in proc.stdout + proc.stderr


@pytest.mark.parametrize("target", ["microbit", "mps2-an505"])
def test_rust_models_run_on_another_architecture(run_cli: RunCli, tmp_path: Path, target: str) -> None:
    """ARMv6-M (microbit: thumbv6m-none-eabi, RTIC's source-masking backend, the literal
    probe) and ARMv8-M mainline (mps2-an505: thumbv8m.main-none-eabihf, hard float): both
    models build for the target's triple, take the target's free interrupt lines and pass
    their own checks."""
    db = tmp_path / "r.sqlite"
    for kernel in ("rtic", "embassy"):
        # (embassy's k_isr_to_task idles in WFE, which QEMU runs as a busy loop: about
        # 250 M instructions, a minute under QEMU's Cortex-M33, so only on the microbit
        # here; examples/rust-targets.toml measures it on every target.)
        slow = kernel == "embassy" and target == "mps2-an505"
        benches = ("k_yield",) if slow else ("k_yield", "k_isr_to_task")
        args = [a for b in benches for a in ("--bench", b)]
        proc = run_cli("run", "--target", target, "--kernel", kernel, *args, "--json", "--db", str(db))
        assert proc.returncode == 0, (kernel, proc.stderr)
        doc = json.loads(proc.stdout)
        for metric in ("yield_switch", "isr_notify_to_task")[:len(benches)]:
            rows = [r for r in doc["results"] if r["metric"] == metric and r["unit"] == "insn"]
            assert len(rows) == 1 and rows[0]["n"] >= 500, (kernel, metric, rows)
