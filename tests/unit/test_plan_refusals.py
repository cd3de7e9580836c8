"""Issue 26, "Records that lie": inputs that would make a stored record say something that
did not happen are refused before anything is built or stored. Each case is the real
`rtoslab` process: one line on stderr, exit status 2, no database created. The process
reads the recorded plugin description (tests/unit/conftest.py); a case that needs the
plugin's own `check` is an e2e test."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rtoslab.catalog import Catalog

REPO = Path(__file__).resolve().parents[2]
CATALOG = Catalog()  # the checkout's folders alone


def rtoslab(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "rtoslab.cli.main", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120, check=False)


def refused(proc: subprocess.CompletedProcess[str]) -> str:
    """Exit 2 with one line on stderr and nothing on stdout; that line."""
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert proc.stdout == ""
    return lines[0]


# ------------------------------------------------ item 1: flags beside an experiment file


@pytest.mark.parametrize("flags", [("--kernel", "freertos"), ("--target", "mps2-an386"),
                                   ("--cflags", "-O3"), ("--kernel", "baremetal"),
                                   ("--target", "mps2-an386", "--cflags", "-O3")])
def test_plan_flags_beside_an_experiment_file_are_refused(tmp_path: Path, flags: tuple[str, ...]) -> None:
    """`run FILE --kernel freertos` ran the file's kernel and stored a command naming
    freertos; a flag that would change the plan is refused with the file (also one that
    names the file's own value: the stored command must not claim it chose anything)."""
    db = tmp_path / "r.sqlite"
    line = refused(rtoslab("run", "examples/smoke-sweep.toml", *flags, "--db", str(db)))
    assert line.startswith("rtoslab: error: an experiment file sets its own "), line
    assert flags[0] in line and "edit the file" in line, line
    assert not db.exists()


# ------------------------------------------------ item 2: macros and files through cflags

# A flag (as one --cflags word list) that sets macros or reads files the stored identity
# cannot show (its `defines` would read {} while the compiler saw FOO), and ';', which
# CMake splits a value on (so "-O2;-DFOO=1" reached the compiler as two flags).
HIDDEN = ["-O2;-DFOO=1", "-O2 -Wp,-DFOO=1", "-O2 -Xpreprocessor -DFOO=1", "-O2 -include foo.h",
          "-O2 -includefoo.h", "-O2 -imacros foo.h", "-O2 @flags.txt", "-O2 -specs=nano.specs",
          "-O2 --specs=nano.specs", "-O2 -DFOO", "-O2 -UNDEBUG", "-O2 -Wa,--defsym,FOO=1",
          "-O2 -Xassembler --defsym", "-O2 -I/tmp", "-O2 -isystem /tmp", "-O2 -iquote /tmp",
          "-O2 -idirafter /tmp", "-O2 --sysroot=/tmp", "-O2 -B/tmp", "-O2 -fplugin=x.so",
          "-O2 -fprofile-use=/tmp/p", "-O2 -Wl,-T,x.ld", "-O2 -Xlinker --defsym=FOO=1",
          "-O2 -T x.ld", "-O2 -L/tmp", "-O2 -lm", "-O2 --include=foo.h", "-O2 --define-macro=FOO",
          "-O2 -AFOO(1)", "-O2 -wrapper x", "-O2 -fsanitize-ignorelist=x.txt"]


@pytest.mark.parametrize("cflags", HIDDEN)
def test_cflags_the_identity_cannot_show_are_refused(cflags: str) -> None:
    from rtoslab import api
    from rtoslab.records import RtoslabError

    with pytest.raises(RtoslabError) as err:
        api.configuration(cflags=cflags)
    text = str(err.value)
    assert text.startswith("--cflags has '") and "\n" not in text, text


@pytest.mark.parametrize("cflags", HIDDEN)
def test_experiment_cflags_the_identity_cannot_show_are_refused(tmp_path: Path, cflags: str) -> None:
    from rtoslab.experiments.experiment import load_experiment
    from rtoslab.records import RtoslabError

    exp = tmp_path / "e.toml"
    exp.write_text(f'name = "e"\nbenchmarks = ["call"]\n[matrix]\ncflags = ["", {cflags[4:]!r}]\n')
    with pytest.raises(RtoslabError, match=r"key 'matrix.cflags' has '"):
        load_experiment(exp, CATALOG)


def test_plain_flags_still_pass() -> None:
    from rtoslab import api

    config = api.configuration(cflags="-O2 -flto -fno-inline -mno-unaligned-access -g -Wno-unused "
                               "-fomit-frame-pointer -ffunction-sections -Wall -Werror -Wpedantic")
    assert "-fno-inline" in config.cflags


@pytest.mark.parametrize("cflags", ["-O2;-DFOO=1", "-O2 -Wp,-DFOO=1", "-O2 -include /dev/null"])
def test_cli_refuses_hidden_macros_before_anything_is_stored(tmp_path: Path, cflags: str) -> None:
    db = tmp_path / "r.sqlite"
    line = refused(rtoslab("run", "--bench", "call", "--cflags", cflags, "--db", str(db)))
    assert line.startswith("rtoslab: error: --cflags has '"), line
    assert not db.exists()


def test_a_semicolon_in_a_folder_that_reaches_cmake_is_refused(tmp_path: Path) -> None:
    """A --bench-path with ';' failed as "has no .c or .S sources" (CMake split it)."""
    folder = tmp_path / "my;benches" / "mine"
    folder.mkdir(parents=True)
    (folder / "bench.toml").write_text('suite = ["mine"]\ndescription = "x"\n')
    (folder / "mine.c").write_text("int x;\n")
    db = tmp_path / "r.sqlite"
    line = refused(rtoslab("run", "--bench-path", str(folder.parent), "--bench", "mine", "--db", str(db)))
    assert "';'" in line and "my;benches" in line, line
    assert not db.exists()


def test_a_semicolon_in_the_cache_folder_is_refused(tmp_path: Path) -> None:
    import os

    cache = tmp_path / "ca;che"
    db = tmp_path / "r.sqlite"
    proc = subprocess.run([sys.executable, "-m", "rtoslab.cli.main", "run", "--bench", "call", "--db",
                           str(db)], cwd=REPO, capture_output=True, text=True, timeout=120, check=False,
                          env={**os.environ, "RTOSLAB_CACHE": str(cache)})
    line = refused(proc)
    assert "RTOSLAB_CACHE" in line and "';'" in line, line
    assert not db.exists()


# ------------------------------------------------ item 3: report tables checked before running

SWEEP = '''name = "t"
suite = "smoke"
[matrix]
opt = ["-O0", "-O2"]
lto = [false, true]
'''


def table_error(tmp_path: Path, table: str, head: str = SWEEP) -> str:
    from rtoslab.experiments.experiment import load_experiment
    from rtoslab.records import RtoslabError

    exp = tmp_path / "e.toml"
    exp.write_text(head + "[[report.table]]\ntitle = \"T\"\n" + table)
    with pytest.raises(RtoslabError) as err:
        load_experiment(exp, CATALOG)
    text = str(err.value)
    assert text.startswith(f"{exp}: key 'report.table[0]") and "\n" not in text, text
    return text


def table_ok(tmp_path: Path, table: str, head: str = SWEEP) -> None:
    from rtoslab.experiments.experiment import load_experiment

    exp = tmp_path / "e.toml"
    exp.write_text(head + "[[report.table]]\ntitle = \"T\"\n" + table)
    load_experiment(exp, CATALOG)


def test_a_varying_axis_left_unplaced_is_a_plan_error(tmp_path: Path) -> None:
    """It ran all benchmarks, stored the run, then exited 2 with "place lto ..."."""
    text = table_error(tmp_path, 'rows = ["benchmark"]\ncolumns = ["opt"]\n')
    assert "leaves lto unplaced" in text and "place lto in rows or columns" in text, text
    table_ok(tmp_path, 'rows = ["benchmark"]\ncolumns = ["opt", "lto"]\n')
    table_ok(tmp_path, 'rows = ["benchmark"]\ncolumns = ["opt"]\nwhere = { lto = true }\n')


def test_an_unknown_metric_is_a_plan_error(tmp_path: Path) -> None:
    text = table_error(tmp_path, 'rows = ["benchmark"]\ncolumns = ["opt", "lto"]\n'
                       'metrics = ["no_such_metric"]\n')
    assert "'no_such_metric', a metric no benchmark of the table declares" in text, text
    assert "empty_call" in text  # what there is
    table_ok(tmp_path, 'rows = ["opt"]\ncolumns = ["lto"]\nmetrics = ["empty_call"]\n')


def test_a_ratio_value_outside_the_matrix_is_a_plan_error(tmp_path: Path) -> None:
    text = table_error(tmp_path, 'rows = ["benchmark"]\ncolumns = ["opt", "lto"]\n'
                       'ratio = ["opt", "-O7", "-O2"]\n')
    assert "opt = '-O7'" in text and "-O0, -O2" in text, text
    table_ok(tmp_path, 'rows = ["benchmark"]\ncolumns = ["opt", "lto"]\nratio = ["opt", "-O0", "-O2"]\n')
    table_ok(tmp_path, 'rows = ["benchmark"]\ncolumns = ["opt", "lto"]\nratio = ["lto", "true", "false"]\n')


def test_a_where_value_outside_the_matrix_is_a_plan_error(tmp_path: Path) -> None:
    text = table_error(tmp_path, 'rows = ["benchmark"]\ncolumns = ["opt"]\nwhere = { lto = "yes" }\n')
    assert "where.lto" in text and "would be empty" in text, text
    text = table_error(tmp_path, 'rows = ["opt"]\ncolumns = ["lto"]\nwhere = { benchmark = "k_yield" }\n')
    assert "where.benchmark" in text, text


def test_benchmarks_left_unplaced_collide_only_on_a_shared_metric(tmp_path: Path) -> None:
    """Benchmarks with their own metric names may share a column unplaced (examples/cores.toml);
    two that both declare a metric the table shows may not."""
    head = 'name = "t"\nbenchmarks = ["k_yield", "k_sem"]\n[matrix]\nkernel = "freertos"\n'
    table_ok(tmp_path, 'rows = ["metric"]\ncolumns = ["kernel"]\n', head)
    head = 'name = "t"\nbenchmarks = ["toggle_rtos", "toggle_fsm"]\n[matrix]\nkernel = "freertos"\n'
    text = table_error(tmp_path, 'rows = ["metric"]\ncolumns = ["kernel"]\n', head)
    assert "leaves benchmark unplaced" in text, text
    table_ok(tmp_path, 'rows = ["metric"]\ncolumns = ["benchmark"]\n', head)


def test_every_example_experiment_passes_the_table_checks() -> None:
    """Each example file loads: its tables, axes and each timing value (against the
    recorded description). The plugin's own check of the resolved settings is
    tests/e2e/test_timing_describe.py's."""
    from rtoslab.experiments.experiment import load_experiment

    for path in sorted((REPO / "examples").glob("*.toml")):
        load_experiment(path, CATALOG)


def test_the_cli_refuses_a_bad_table_before_a_database_exists(tmp_path: Path) -> None:
    exp = tmp_path / "e.toml"
    exp.write_text(SWEEP + '[[report.table]]\ntitle = "T"\nrows = ["benchmark"]\ncolumns = ["opt"]\n')
    db = tmp_path / "r.sqlite"
    line = refused(rtoslab("run", str(exp), "--db", str(db)))
    assert "place lto in rows or columns" in line, line
    assert not db.exists()


# ------------------------------------------------ item 18: small inconsistencies


def small_db(tmp_path: Path) -> Path:
    from rtoslab.records import BenchResult
    from rtoslab.store import open_store

    db = tmp_path / "r.sqlite"
    with open_store(db) as store:
        config = store.upsert_config({
            "identity_hash": "feed18", "target": "mps2-an385", "core": "cortex-m3", "kernel": "baremetal",
            "kernel_config": {}, "kernel_config_hash": "kc", "compiler": "gcc", "compiler_version": "13",
            "cflags": "-O2", "ldflags": "", "timing": {}})
        for _ in range(2):
            run_id = store.begin_run("rtoslab run", "r", "h", {})
            store.add_bench_result(run_id, config, "s", BenchResult("call", "n/a", "why"))
            store.finish_run(run_id, "complete")
    return db


def test_show_json_with_another_format_is_refused(tmp_path: Path) -> None:
    """`show latest --json --format html` printed JSON, ignoring --format."""
    db = small_db(tmp_path)
    line = refused(rtoslab("show", "latest", "--json", "--format", "html", "--db", str(db)))
    assert "--json" in line and "--format html" in line and "give one of them" in line, line
    ok = rtoslab("show", "latest", "--json", "--format", "json", "--db", str(db))
    assert ok.returncode == 0 and ok.stdout.startswith("{"), ok.stderr


@pytest.mark.parametrize("ref", ["latest~", "latest~-1", "latest~x", "latest~ 1", "latest~١"])
def test_latest_tilde_without_a_number_is_refused(tmp_path: Path, ref: str) -> None:
    """`show 'latest~'` showed the latest run while `latest~-1` was refused."""
    db = small_db(tmp_path)
    line = refused(rtoslab("show", ref, "--db", str(db)))
    assert "write latest or latest~N with N a whole number" in line, line
    ok = rtoslab("show", "latest~1", "--db", str(db))
    assert ok.returncode == 0 and "rtoslab run 1" in ok.stdout, ok.stderr


@pytest.mark.parametrize("flag,first,second", [
    ("--define", "TOGGLE_TASKS=1", "TOGGLE_TASKS=3"),
    ("--option", "configTICK_RATE_HZ=100", "configTICK_RATE_HZ=1000"),
    ("--timing", "flash_ws=1", "flash_ws=1")])
def test_a_repeated_key_is_refused(tmp_path: Path, flag: str, first: str, second: str) -> None:
    """`--define N=1 --define N=3` silently ran with N=3."""
    db = tmp_path / "r.sqlite"
    line = refused(rtoslab("run", "--kernel", "freertos", "--bench", "toggle_rtos", flag, first, flag, second,
                           "--db", str(db)))
    key = first.split("=")[0]
    assert f"{flag} {key} is given twice ({first} and {second}): give it once" in line, line
    assert not db.exists()
