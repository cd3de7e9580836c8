"""The large-plan guard counts an experiment's runs without expanding its matrix (issue 27,
item 4): the count agrees with the expansion on every example and on excludes of both
kinds, and a plan of 832,000 runs is counted at once."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from rtoslab.catalog import Catalog
from rtoslab.experiments.experiment import count_runs, load_experiment

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.toml"))
CATALOG = Catalog()  # the checkout's folders alone


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_count_agrees_with_the_expansion(path: Path) -> None:
    assert count_runs(path, CATALOG) == load_experiment(path, CATALOG).run_count()


def _write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "e.toml"
    path.write_text(body)
    return path


def test_excludes_of_points_and_of_benchmarks(tmp_path: Path) -> None:
    path = _write(tmp_path, """
name = "x"
benchmarks = ["loop", "call", "straight"]
[matrix]
kernel = ["freertos", "baremetal"]
opt = ["-O0", "-O1", "-O2", "-Os"]
lto = [false, true]
[matrix.kernel_options]
configUSE_PREEMPTION = [0, 1]
[[exclude]]
kernel = "baremetal"
opt = "-O0"
[[exclude]]
opt = "-Os"
lto = true
[[exclude]]
benchmark = "call"
opt = "-O1"
[[exclude]]
benchmark = "loop"
kernel = "freertos"
lto = false
""")
    expanded = load_experiment(path, CATALOG).run_count()
    assert count_runs(path, CATALOG) == expanded
    assert expanded < 3 * (2 * 8 + 8)  # the rules did remove runs


def test_a_million_run_plan_is_counted_at_once(tmp_path: Path) -> None:
    values = ", ".join(str(i) for i in range(1, 101))
    path = _write(tmp_path, f"""
name = "huge"
suite = "kernel"
[matrix]
kernel = ["freertos"]
opt = ["-O0", "-O1", "-O2", "-Os"]
lto = [false, true]
[matrix.defines]
A = [{values}]
B = [{values}]
[[exclude]]
opt = "-O0"
lto = true
""")
    start = time.monotonic()
    n = count_runs(path, CATALOG)
    assert time.monotonic() - start < 5  # (the expansion takes minutes and hundreds of MB)
    per_point = len(load_experiment(_write(tmp_path, """
name = "one"
suite = "kernel"
[matrix]
kernel = ["freertos"]
"""), CATALOG).benchmarks)
    assert n == 7 * 100 * 100 * per_point
