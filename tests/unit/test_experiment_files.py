"""Experiment files: expansion of a good one, and one clear error for each bad one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rtoslab.catalog import Catalog
from rtoslab.experiments.experiment import load_experiment
from rtoslab.records import RtoslabError

CATALOG = Catalog()  # the checkout's folders alone

DATA = Path(__file__).resolve().parents[1] / "data" / "experiments"
REPO = Path(__file__).resolve().parents[2]

BAD = {
    "bad_syntax.toml": "not valid TOML",
    "bad_unknown_key.toml": "unknown key 'colour': allowed keys: name, description, suite",
    "bad_kernel.toml": ("key 'matrix.kernel' is 'nosuchkernel': choose from baremetal, coop, embassy, "
                        "freertos, freertos-smp, rtic"),
    "bad_opt.toml": "key 'matrix.opt' is '-O9': choose from -O0",
    "bad_empty_axis.toml": "key 'matrix.opt' is empty: give at least one value",
    "bad_empty_matrix.toml": "key 'exclude' leaves the matrix empty",
    "bad_no_benchmarks.toml": "key 'suite' is missing: give `suite` or `benchmarks`",
    "bad_suite.toml": "key 'suite' is 'nosuchsuite': choose from",
    "bad_benchmarks_type.toml": "key 'benchmarks[0]' must be a string, not 1",
    "bad_kernel_option.toml": (
        "key 'matrix.kernel_options.configTICK_RATE_HZ' is an option of no kernel in matrix.kernel"
    ),
    "bad_timing_key.toml": "key 'matrix.timing.warp_speed' unknown timing-model setting 'warp_speed'",
    "bad_timing_value.toml": "key 'matrix.timing.flash_ws' timing-model setting flash_ws=99: give a "
                             "whole number of wait states from 0 to 64 (the flash wait states)",
    "bad_timing_and_model.toml": "key 'matrix.model' is the old spelling of [matrix.timing]",
    "bad_lto.toml": "key 'matrix.lto[0]' must be true or false, not 'yes'",
    "bad_lto_scalar.toml": "key 'matrix.lto[0]' must be true or false, not 'yes'",
    "bad_matrix_axis.toml": "unknown key 'kernels' in [matrix]: allowed keys: target, kernel",
    "bad_cflags_define.toml": "key 'matrix.cflags' has '-DTOGGLE_TASKS=3', which sets a macro: give it "
                              "as a define instead",
    "bad_define_name.toml": "key 'matrix.defines.1X' define '1X': a macro name is a C identifier",
    "bad_define_type.toml": "key 'matrix.defines.X[0]' must be a string or an integer, not 1.5",
    "bad_exclude_misspelled_key.toml": "unknown key 'kernal' in [exclude[0]]: allowed keys: target, "
                                       "kernel,",
    "bad_exclude_value.toml": "key 'exclude[0].kernel' is 'baremtal': not a value of matrix.kernel "
                              "(baremetal, freertos)",
    "bad_exclude_type.toml": "key 'exclude[0].lto' must be true or false, not 'true'",
    "bad_exclude_axis.toml": "key 'exclude[0].kernel_options.configTICK_RATE_HZ' is not an axis of "
                             "the matrix",
    "bad_exclude_benchmark.toml": "key 'exclude[0].benchmark' is 'loop': not one of the experiment's "
                                  "benchmarks (call)",
    "bad_baseline.toml": "key 'baseline[0].opt' is '-O3': not a value of matrix.opt (-O2)",
    "bad_baseline_key.toml": "unknown key 'optt' in [baseline[0]]",
    "bad_baseline_unmatched.toml": "key 'baseline[0]' ('b') matches no configuration",
    "bad_report_rows.toml": "key 'report.rows' is 'metrics': choose one of 'benchmark', 'metric'",
    "bad_name.toml": "key 'name' is 'Has Spaces': use letters a-z",
}
# Files whose check reads the timing-model description (the recorded one, in process).
NEEDS_DESCRIPTION = {"bad_timing_key.toml", "bad_timing_value.toml"}


@pytest.mark.parametrize(("name", "message"), sorted(BAD.items()))
def test_bad_file_gets_its_error_naming_file_and_key(name: str, message: str,
                                                     request: pytest.FixtureRequest) -> None:
    if name in NEEDS_DESCRIPTION:
        request.getfixturevalue("plugin_description")
    path = DATA / name
    with pytest.raises(RtoslabError) as err:
        load_experiment(path, CATALOG)
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
        load_experiment(DATA / "nope.toml", CATALOG)


def test_example_matrix_expands_with_exclusions_and_labels(tmp_path: Path) -> None:
    f = tmp_path / "e.toml"
    f.write_text(
        'name = "e"\nsuite = "smoke"\n[matrix]\nopt = ["-O0", "-O2"]\nlto = [false, true]\n'
        'cflags = ["", "-fno-inline"]\n[[exclude]]\nopt = "-O0"\nlto = true\n'
        '[[baseline]]\nname = "b"\nopt = "-O2"\nlto = false\n')
    exp = load_experiment(f, CATALOG)
    labels = [p.label for p in exp.points]
    assert labels == ["-O0", "-O0 -fno-inline", "-O2", "-O2 -fno-inline", "-O2 lto",
                      "-O2 lto -fno-inline"]
    assert exp.points[4].config.cflags == ("-O2", "-flto")
    assert len({p.config.measure_key() for p in exp.points}) == 6
    assert [b.name for b in exp.benchmarks] == ["calib", "call", "loop", "straight"]
    assert exp.baselines[0].match == (("lto", False), ("opt", "-O2"))


def test_examples_in_repo_load() -> None:
    for f in sorted((REPO / "examples").glob("*.toml")):
        exp = load_experiment(f, CATALOG)
        assert exp.points, f


def test_examples_pass_no_macros_in_cflags() -> None:
    for f in sorted((REPO / "examples").glob("*.toml")):
        for p in load_experiment(f, CATALOG).points:
            assert not any(flag.startswith("-D") for flag in p.config.cflags), (f, p.label)


def test_defines_axis_builds_distinct_images_and_keeps_its_axes(tmp_path: Path) -> None:
    f = tmp_path / "e.toml"
    f.write_text('name = "e"\nbenchmarks = ["toggle_superloop"]\n[matrix.defines]\nTOGGLE_TASKS = [1, 3]\n'
                 '[[exclude]]\ndefines.TOGGLE_TASKS = 1\nbenchmark = "toggle_superloop"\nopt = "-O2"\n'
                 '[[baseline]]\nname = "three"\ndefines.TOGGLE_TASKS = 3\n')
    exp = load_experiment(f, CATALOG)
    assert [p.config.defines for p in exp.points] == [(("TOGGLE_TASKS", 3),)]
    assert exp.points[0].config.define_flags() == ["TOGGLE_TASKS=3"]
    assert exp.points[0].config.axis_values() == {
        "target": "mps2-an385", "kernel": "baremetal", "opt": "-O2", "lto": False, "cflags": "",
        "defines.TOGGLE_TASKS": 3}
    assert exp.baselines[0].match == (("defines.TOGGLE_TASKS", 3),)


def test_old_model_spelling_is_the_timing_axis(plugin_description: object) -> None:
    exp = load_experiment(DATA / "good_old_model_spelling.toml", CATALOG)
    assert [dict(p.config.timing) for p in exp.points] == [{"flash_ws": 0}, {"flash_ws": 2}]
    assert [p.axis("timing.flash_ws") for p in exp.points] == [0, 2]


def test_kernel_option_axes_apply_only_to_kernels_that_have_them(tmp_path: Path) -> None:
    f = tmp_path / "e.toml"
    f.write_text('name = "e"\nsuite = "smoke"\n[matrix]\nkernel = ["baremetal", "freertos"]\n'
                 '[matrix.kernel_options]\nconfigTICK_RATE_HZ = [1000, 10000]\n'
                 '[[exclude]]\nkernel = "freertos"\nkernel_options.configTICK_RATE_HZ = 10000\n')
    exp = load_experiment(f, CATALOG)
    assert [dict(p.axes).get("kernel_options.configTICK_RATE_HZ") for p in exp.points] == [None, 1000]
    assert exp.points[0].config.kernel_options == ()


def test_the_format_documented_in_the_module_loads(plugin_description: object) -> None:
    import tomllib

    import rtoslab.experiments.experiment as module

    example = (module.__doc__ or "").split("Loading parses")[0].splitlines()[2:]
    text = "\n".join(line[4:].split("#")[0] for line in example)
    exp = module.parse_experiment(tomllib.loads(text), Path("doc"), CATALOG)
    assert exp.rows == "metric" and exp.points and exp.baselines[0].name == "O2"
