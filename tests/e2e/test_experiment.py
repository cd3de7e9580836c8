"""A small matrix end to end: experiment file -> builds -> runs -> tables; cache reuse;
compare and its regression gate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rtoslab.catalog import Catalog
from rtoslab.experiments.experiment import load_experiment
from rtoslab.paths import cache_root

from .conftest import REPO, RunCli

CATALOG = Catalog()  # the checkout's folders alone

pytestmark = pytest.mark.qemu

EXAMPLE = REPO / "examples" / "smoke-sweep.toml"


@pytest.fixture(scope="module")
def sweep(run_cli: RunCli, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path]:
    db = tmp_path_factory.mktemp("sweep") / "r.sqlite"
    proc = run_cli("run", str(EXAMPLE), "--json", "--db", str(db))
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), db


def test_every_configuration_ran_every_benchmark(sweep: tuple[dict, Path]) -> None:
    doc, _ = sweep
    configs = {r["config"] for r in doc["results"]}
    assert len(configs) == len(load_experiment(EXAMPLE, CATALOG).points) == 6
    assert all(r["status"] == "ok" for r in doc["results"])
    # every row names its configuration's axes (issue 28: exports carry identity)
    points = {(r["axes"]["opt"], r["axes"]["lto"]) for r in doc["results"]}
    assert points == {(o, lto) for o in ("-O0", "-O2", "-Os") for lto in (False, True)}
    assert all(r["axes"]["timing.time"] == "one-clock" for r in doc["results"])


def test_probe_cost_is_calibrated_away_at_every_optimisation_level(sweep: tuple[dict, Path]) -> None:
    doc, _ = sweep
    by = {(r["config"], r["benchmark"]): r for r in doc["results"] if r["unit"] == "insn"}
    for (_config, bench), r in by.items():
        expected = {"calib": 0, "straight": 100, "loop": 301}.get(bench)
        if expected is not None:
            assert (r["min"], r["max"]) == (expected, expected), (bench, r)


def test_rerun_rebuilds_nothing_and_gives_identical_numbers(run_cli: RunCli,
                                                              sweep: tuple[dict, Path]) -> None:
    doc, db = sweep
    elfs = sorted((cache_root() / "build").glob("*/straight.elf"))
    before = {p: p.stat().st_mtime_ns for p in elfs}
    proc = run_cli("run", str(EXAMPLE), "--json", "--db", str(db))
    assert proc.returncode == 0, proc.stderr
    again = json.loads(proc.stdout)
    assert {p: p.stat().st_mtime_ns for p in elfs} == before

    def numbers(d: dict) -> list:
        return [{k: v for k, v in r.items() if k != "config"} | {"c": r["config"]} for r in d["results"]]

    assert numbers(again) == numbers(doc)


def test_experiment_prints_time_and_size_tables(run_cli: RunCli, tmp_path: Path) -> None:
    proc = run_cli("run", str(EXAMPLE), "--db", str(tmp_path / "r.sqlite"))
    assert proc.returncode == 0, proc.stderr
    assert "smoke-sweep: median cycle" in proc.stdout and "smoke-sweep: median us" in proc.stdout
    assert "smoke-sweep: median insn" not in proc.stdout  # time first (issue 28)
    assert "smoke-sweep: image size (bytes)" in proc.stdout
    assert "-O0 no-lto / -O2" in proc.stdout  # a ratio column says what it divides by
    assert "(baseline)" not in proc.stdout and "(vs O2)" not in proc.stdout
    # per-configuration tables only on request, headed by what distinguishes them
    assert "--per-config prints a table for each" in proc.stdout
    assert "timing: core cortex-m3, clock 25 MHz" in proc.stdout


def test_compare_within_run_and_regression_gate(run_cli: RunCli, sweep: tuple[dict, Path]) -> None:
    doc, db = sweep
    rid = str(doc["run_id"])
    proc = run_cli("compare", rid, "--baseline", "opt=-O2", "--baseline", "lto=false",
                   "--format", "json", "--db", str(db))
    assert proc.returncode == 0, proc.stderr
    table = json.loads(proc.stdout)
    rows = {tuple(r["row"]): r for r in table["rows"]}
    labels = [c["label"] for c in table["columns"]]
    o0 = labels.index("-O0 no-lto")
    o2 = labels.index("-O2 no-lto")
    call = rows[("call", "empty_call")]
    ratio_labels = [r["column"] for r in table["ratios"]]
    assert call["ratios"][ratio_labels.index("-O0 no-lto")] == pytest.approx(
        call["values"][o0] / call["values"][o2])
    # -O0's call is slower than -O2's: a 10% gate fails, naming the row.
    gate = run_cli("compare", rid, "--baseline", "opt=-O2", "--baseline", "lto=false",
                   "--fail-above", "10", "--db", str(db))
    assert gate.returncode == 1
    assert "regression: call/empty_call: -O0 no-lto is" in gate.stderr


def test_compare_two_runs_of_same_experiment_shows_ratio_one(run_cli: RunCli,
                                                             sweep: tuple[dict, Path]) -> None:
    doc, db = sweep
    rid = doc["run_id"]
    proc = run_cli("compare", str(rid), str(rid + 1), "--format", "json", "--fail-above", "0",
                   "--db", str(db))
    assert proc.returncode == 0, proc.stderr
    table = json.loads(proc.stdout)
    ratios = [x for r in table["rows"] for x in r["ratios"] if x is not None]
    assert ratios and all(x == 1.0 for x in ratios)
