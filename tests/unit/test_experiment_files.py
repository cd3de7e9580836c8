"""Experiment files: expansion of a good one, and one clear error for each bad one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rtoslab.experiments.experiment import load_experiment
from rtoslab.records import RtoslabError

DATA = Path(__file__).resolve().parents[1] / "data" / "experiments"
REPO = Path(__file__).resolve().parents[2]

BAD = {
    "bad_syntax.toml": "not valid TOML",
    "bad_unknown_key.toml": "colour: unknown key: allowed keys are",
    "bad_kernel.toml": "matrix.kernel: 'nosuchkernel' is not allowed: choose from",
    "bad_opt.toml": "matrix.opt: '-O9' is not allowed: choose from -O0",
    "bad_empty_axis.toml": "matrix.opt: is empty: give at least one value",
    "bad_empty_matrix.toml": "exclude: the matrix is empty after exclusions",
    "bad_no_benchmarks.toml": "suite: give `suite` or `benchmarks`",
    "bad_suite.toml": "suite: 'nosuchsuite' is not allowed",
    "bad_kernel_option.toml": (
        "matrix.kernel_options.configTICK_RATE_HZ: no kernel in matrix.kernel has this option"
    ),
    "bad_model_key.toml": "matrix.model.warp_speed: unknown setting",
    "bad_model_value.toml": "matrix: timing-model setting flash_ws=99: give a whole number",
    "bad_lto.toml": "matrix.lto: 'yes' must be true or false",
    "bad_baseline.toml": "baseline 'O3': matches no configuration",
    "bad_name.toml": "name: required, letters a-z",
}


@pytest.mark.parametrize(("name", "message"), sorted(BAD.items()))
def test_bad_file_gets_its_error_naming_file_and_key(name: str, message: str) -> None:
    path = DATA / name
    with pytest.raises(RtoslabError) as err:
        load_experiment(path)
    text = str(err.value)
    assert text.startswith(f"{path}: ")
    assert message in text
    assert "\n" not in text


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_file_through_cli_is_one_line_and_writes_no_database(name: str, tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    proc = subprocess.run([sys.executable, "-m", "rtoslab.cli.main", "run", str(DATA / name),
                           "--db", str(db)], capture_output=True, text=True, cwd=REPO, check=False)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rtoslab: error: "), proc.stderr
    assert not db.exists()


def test_missing_file() -> None:
    with pytest.raises(RtoslabError, match="no such experiment file"):
        load_experiment(DATA / "nope.toml")


def test_example_matrix_expands_with_exclusions_and_labels(tmp_path: Path) -> None:
    f = tmp_path / "e.toml"
    f.write_text(
        'name = "e"\nsuite = "smoke"\n[matrix]\nopt = ["-O0", "-O2"]\nlto = [false, true]\n'
        'cflags = ["", "-fno-inline"]\n[[exclude]]\nopt = "-O0"\nlto = true\n'
        '[[baseline]]\nname = "b"\nopt = "-O2"\nlto = false\n')
    exp = load_experiment(f)
    labels = [p.label for p in exp.points]
    assert labels == ["-O0", "-O0 -fno-inline", "-O2", "-O2 -fno-inline", "-O2 lto",
                      "-O2 lto -fno-inline"]
    assert exp.points[4].config.cflags == ("-O2", "-flto")
    assert len({p.config.hash() for p in exp.points}) == 6
    assert [b.name for b in exp.benchmarks] == ["calib", "call", "loop", "straight"]
    assert exp.baselines[0].match == (("lto", False), ("opt", "-O2"))


def test_examples_in_repo_load() -> None:
    for f in sorted((REPO / "examples").glob("*.toml")):
        exp = load_experiment(f)
        assert exp.points, f
