"""Measuring your own code (issue 12) without a toolchain: run references (latest~N),
stored consoles, the project file, search paths, scaffolds and the API's optional extra."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from rtoslab.api import Results, resolve_run
from rtoslab.catalog import Catalog
from rtoslab.cli.show import console_text
from rtoslab.paths import firmware_root
from rtoslab.project import find_project, load_project
from rtoslab.records import BenchResult, RtoslabError
from rtoslab.scaffold import new
from rtoslab.store import open_store
from rtoslab.store.db import Store

CATALOG = Catalog()  # the checkout's folders alone

IDENTITY = {"target": "t", "core": "cortex-m3", "kernel": "k", "kernel_config": {},
            "kernel_config_hash": "", "compiler": "gcc", "compiler_version": "1", "cflags": "",
            "ldflags": "", "timing": {}}


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = open_store(tmp_path / "r.sqlite")
    for i in range(3):
        run_id = s.begin_run(f"run {i}", "rev", "host", {})
        for h in ("aaaaaa", "bbbbbb"):
            config_id = s.upsert_config({**IDENTITY, "identity_hash": h, "kernel": f"k{h[0]}"})
            s.add_bench_result(run_id, config_id, "src", BenchResult("b", "n/a", "why", console=f"out {h}\n"))
        s.finish_run(run_id, "complete")
    return s


def test_run_references(store: Store) -> None:
    assert [resolve_run(store, r) for r in ("latest", "latest~0", "latest~1", "latest~2", "2", 1)] == \
        [3, 3, 2, 1, 2, 1]
    for ref, message in (("latest~3", r"holds only 3 run"), ("latest~x", r"write latest or latest~N"),
                         ("first", r"bad run id 'first': give a number, 'latest' or 'latest~N'")):
        with pytest.raises(RtoslabError, match=message):
            resolve_run(store, ref)


def test_console_is_shown_per_configuration(store: Store) -> None:
    view = store.load_run(3)
    text = console_text(view, "b")
    assert text.startswith("== b on t · ka · gcc 1 [aaaaaa] (n/a) ==\nout aaaaaa\n")
    assert "== b on t · kb · gcc 1 [bbbbbb] (n/a) ==\nout bbbbbb\n" in text
    with pytest.raises(RtoslabError, match=r"^run 3 has no benchmark 'x': choose one of b$"):
        console_text(view, "x")
    assert Results(store).console("latest~2", "b") == ["out aaaaaa\n", "out bbbbbb\n"]


def test_dataframe_without_the_extra_says_what_to_install(store: Store,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pandas", None)  # as if not installed: import fails
    with pytest.raises(RtoslabError) as err:
        Results(store).to_dataframe("latest")
    assert str(err.value) == ("pandas is not installed: install the extra: pip install 'rtoslab[pandas]' "
                              "(pandas and pyarrow)")
    records = Results(store).records("latest")  # the core needs no extra
    assert [(r["kernel"], r["status"], r["reason"]) for r in records] == [("ka", "n/a", "why"),
                                                                          ("kb", "n/a", "why")]


def test_project_file_is_found_above_and_checked(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "mine").mkdir()
    (tmp_path / "rtoslab.toml").write_text('[paths]\nbench = ["mine"]\n')
    found = find_project(tmp_path / "a" / "b")
    assert found == tmp_path.resolve() / "rtoslab.toml"
    assert load_project(found).bench == (tmp_path.resolve() / "mine",)
    (tmp_path / "rtoslab.toml").write_text('[paths]\nbench = ["nothere"]\n')
    with pytest.raises(RtoslabError, match=r"key 'paths.bench\[0\]' is 'nothere', which is not a folder"):
        load_project(found)
    (tmp_path / "rtoslab.toml").write_text('[path]\nbench = ["mine"]\n')
    with pytest.raises(RtoslabError, match=r"rtoslab.toml: unknown key 'path': allowed keys: paths"):
        load_project(found)


def _bench(folder: Path) -> None:
    folder.mkdir(parents=True)
    (folder / "bench.toml").write_text('suite = ["own"]\ndescription = "mine"\n')


def test_search_paths_add_benchmark_folders_or_folders_of_them(tmp_path: Path) -> None:
    _bench(tmp_path / "one" / "mine_a")
    _bench(tmp_path / "many" / "mine_b")
    _bench(tmp_path / "many" / "mine_c")
    _bench(tmp_path / "clash" / "call")
    catalog = CATALOG.with_paths(bench=[tmp_path / "one" / "mine_a", tmp_path / "many"])
    assert catalog.with_paths(bench=[tmp_path / "many"]) is catalog  # again: nothing changes
    assert catalog.paths.bench == (tmp_path.resolve() / "one" / "mine_a", tmp_path.resolve() / "many")
    assert {"mine_a", "mine_b", "mine_c", "call"} <= set(catalog.benchmarks)
    assert catalog.get_benchmark("mine_b").path == tmp_path.resolve() / "many" / "mine_b"
    with pytest.raises(RtoslabError, match=r"looked in .*/firmware/bench, .*/one/mine_a, .*/many: "):
        catalog.get_benchmark("mine_z")
    clashing = catalog.with_paths(bench=[tmp_path / "clash"])
    with pytest.raises(RtoslabError, match=r"^bench 'call' is in two folders, .*/firmware/bench/call and "
                       r".*/clash/call: rename one$"):
        _ = clashing.benchmarks
    with pytest.raises(RtoslabError, match=r"^--port-path .*/nope: no such folder"):
        catalog.with_paths(port=[tmp_path / "nope"])
    assert "mine_a" not in CATALOG.benchmarks and "mine_a" in catalog.benchmarks


def test_scaffolds_check_names_and_do_not_overwrite(tmp_path: Path) -> None:
    with pytest.raises(RtoslabError, match=r"^bad bench name 'My-Fn': use \[a-z\]\[a-z0-9_\]\*"):
        new("bench", "My-Fn", tmp_path)
    made = new("bench", "fn", tmp_path, into=tmp_path / "benches")
    assert made.project_file is None and not (tmp_path / "rtoslab.toml").exists()
    assert made.next_steps == f"rtoslab run --bench-path {tmp_path / 'benches'} --bench fn"
    with pytest.raises(RtoslabError, match=r"exists already"):
        new("bench", "fn", tmp_path, into=tmp_path / "benches")
    port = new("port", "my-os", tmp_path)
    assert port.project_file == tmp_path.resolve() / "rtoslab.toml"
    assert (port.folder / "port_my_os.c").is_file() and not (port.folder / "port_template.c").exists()
    assert "port_my_os.c" in (port.folder / "port.cmake").read_text()
    template_files = {p.name for p in (firmware_root() / "ports" / "template").iterdir()}
    assert {p.name for p in port.folder.iterdir()} == template_files - {"port_template.c"} | {"port_my_os.c"}
    kernel = CATALOG.with_paths(port=[tmp_path / "ports"]).kernels["my-os"]
    assert not kernel.is_template and kernel.capabilities == CATALOG.kernels["template"].capabilities


def test_experiment_files_name_their_own_folders(tmp_path: Path) -> None:
    from rtoslab.experiments.experiment import load_experiment

    _bench(tmp_path / "bench" / "mine_x")
    (tmp_path / "bench" / "mine_x" / "bench.toml").write_text('suite = ["own"]\ndescription = "x"\n')
    exp_file = tmp_path / "exp.toml"
    exp_file.write_text('name = "e"\nbenchmarks = ["mine_x"]\nbench_paths = ["bench"]\n')
    exp = load_experiment(exp_file, CATALOG)
    assert [b.name for _, bs in exp.plan() for b in bs] == ["mine_x"]
    # the file's folders are the experiment's catalog's, each configuration's too, not CATALOG's
    assert exp.catalog.paths.bench == ((tmp_path / "bench").resolve(),)
    assert all(config.catalog is exp.catalog for config, _ in exp.plan())
    assert "mine_x" not in CATALOG.benchmarks
    exp_file.write_text('name = "e"\nbenchmarks = ["mine_x"]\nport_paths = ["ports"]\n')
    with pytest.raises(RtoslabError, match=r"exp.toml: key 'port_paths\[0\]' is 'ports', which is not"):
        load_experiment(exp_file, CATALOG)


def test_new_refuses_to_make_a_project_inside_the_checkout() -> None:
    with pytest.raises(RtoslabError, match=r"is inside the rtoslab checkout: run `rtoslab new` in a folder"):
        new("bench", "fn", firmware_root().parent / "docs")
