"""Seed 003's experiment (examples/smp.toml, docs/smp.md) and the cross-core kernel
benchmarks it runs: the variant set is complete, the benchmarks are where the kernel suite
and the smp suite expect them, and each says n/a (never a number) when the kernel
schedules one core."""

from __future__ import annotations

import re
from pathlib import Path

from rtoslab.catalog import Catalog
from rtoslab.experiments.experiment import load_experiment

CATALOG = Catalog()  # the checkout's folders alone

REPO = Path(__file__).resolve().parents[2]
CROSS = ("k_activate_x", "k_sem_x", "k_queue_x", "k_notify_x")
START, LOCKS, CORE_ID = ("kernel_options.labSMP_START_CORES", "kernel_options.labSMP_ELIDE_LOCKS",
                         "kernel_options.labSMP_ELIDE_CORE_ID")


def _variant(axes: dict[str, object]) -> tuple[object, ...]:
    return (axes["kernel"], axes.get(START), axes.get(LOCKS), axes.get(CORE_ID))


def test_the_example_has_seed_003s_variants_and_nothing_else() -> None:
    exp = load_experiment(REPO / "examples" / "smp.toml", CATALOG)
    variants = sorted((_variant(dict(p.axes)) for p in exp.points), key=repr)
    assert variants == sorted([
        ("freertos", None, None, None),            # a) the single-core kernel (ASP3)
        ("freertos-smp", 1, False, False),         # b) SMP kernel, core 0 only (FMP3 on one processor)
        ("freertos-smp", 1, True, False),          # c) b + locks elided
        ("freertos-smp", 1, False, True),          # d) b + core-id read elided
        ("freertos-smp", 1, True, True),           # e) b + both
        ("freertos-smp", 2, False, False),         # f) SMP kernel on both cores
    ], key=repr)
    assert {p.config.target for p in exp.points} == {"mps2-an521"}
    assert {p.config.cflags for p in exp.points} == {("-O2",)}
    assert {b.name for b in exp.benchmarks} == {"k_activate", "k_sem", "k_queue", *CROSS}
    names = {b.name for b in exp.baselines}
    assert names == {"vs single-core kernel", "vs SMP on one core"}
    # the tables the seed reports: the mode, and ratios against a) and against b)
    stats = {t.stat for t in exp.tables}
    assert {"mode", "median", "max"} <= stats
    ratios = {t.ratio for t in exp.tables if t.ratio}
    assert ("kernel", "freertos-smp", "freertos") in ratios
    assert (LOCKS, "True", "False") in ratios and (CORE_ID, "True", "False") in ratios


def test_cross_core_benchmarks_are_in_the_kernel_and_smp_suites_and_need_two_cores() -> None:
    for name in CROSS:
        b = CATALOG.benchmarks[name]
        assert name in CATALOG.suites()["kernel"] and name in CATALOG.suites()["smp"], name
        assert "LAB_HAS_SMP" in b.requires, name
        assert b.min_cores == 2, name


def test_cross_core_benchmarks_end_unsupported_when_one_core_is_scheduled() -> None:
    """A one-core configuration of an SMP kernel cannot run them: the image ends with
    LAB_EXIT_UNSUPPORTED (reported n/a) before any probe, and checks which core ran."""
    for name in CROSS:
        src = (REPO / "firmware" / "bench" / name / f"{name}.c").read_text()
        run = src[src.index("void lab_bench_run(void)"):]
        check = re.search(r"if \(lab_port_cores\(\) < 2u\) \{\s*lab_fail_status\(LAB_EXIT_UNSUPPORTED", run)
        assert check, name
        assert run.index("lab_port_cores()") < run.index("lab_port_start()"), name
        assert "lab_target_core_id()" in src, name  # the self-check of where each side ran
