"""Discovery of targets, ports and benchmarks, capabilities and n/a reasons."""

from __future__ import annotations

import pickle
import shutil
from pathlib import Path

import pytest

from rtoslab import api
from rtoslab.catalog import Benchmark, Catalog, Kernel, define_na_reason, na_reason, read_capabilities
from rtoslab.paths import firmware_root
from rtoslab.records import RtoslabError

CATALOG = Catalog()  # the checkout's folders alone


def test_smoke_suite_is_discovered_from_folders() -> None:
    assert {b.name for b in CATALOG.suite_benchmarks("smoke")} == {"calib", "call", "straight", "loop"}


def test_target_reads_its_toml() -> None:
    t = CATALOG.get_target("mps2-an385")
    assert (t.core, t.qemu_machine, t.probe_base, t.probe_size) == (
        "cortex-m3", "mps2-an385", 0x21000000, 0x4000)


def test_every_benchmark_requires_only_declared_capability_names() -> None:
    known = {c for k in ("baremetal",) for c in CATALOG.get_kernel(k).capabilities}
    for b in CATALOG.benchmarks.values():
        for cap in b.requires:
            assert cap.startswith(("LAB_HAS_", "LAB_ALLOC_HAS_")), (b.name, cap)
    assert "LAB_HAS_SCHEDULER" in known


def test_capabilities_and_reasons_are_read_from_the_header(tmp_path: Path) -> None:
    h = tmp_path / "lab_port_caps.h"
    h.write_text("#define LAB_HAS_A 1\n#define LAB_HAS_B 0 /* no B here */\n#define OTHER 1\n")
    caps, reasons = read_capabilities(h)
    assert caps == {"LAB_HAS_A": True, "LAB_HAS_B": False}
    assert reasons == {"LAB_HAS_B": "no B here"}


def test_na_reason_names_missing_capability_and_why(tmp_path: Path) -> None:
    kernel = Kernel("k", tmp_path, "", {"LAB_HAS_A": True, "LAB_HAS_B": False},
                    {"LAB_HAS_B": "no B here"}, {}, (), (), False)
    ok = Benchmark("x", tmp_path, ("s",), "", ("LAB_HAS_A",), 1, 1.0)
    missing = Benchmark("y", tmp_path, ("s",), "", ("LAB_HAS_A", "LAB_HAS_B", "LAB_HAS_C"), 1, 1.0)
    assert na_reason(ok, kernel) is None
    assert na_reason(missing, kernel) == "kernel k lacks LAB_HAS_B=0 (no B here), LAB_HAS_C=0"


def test_na_reason_names_the_board_feature_a_target_lacks(tmp_path: Path) -> None:
    kernel = Kernel("k", tmp_path, "", {"LAB_HAS_A": True}, {}, {}, (), (), False)
    small = CATALOG.get_target("stm32vldiscovery")
    big = CATALOG.get_target("mps2-an385")
    timed = Benchmark("t", tmp_path, ("s",), "", ("LAB_HAS_A",), 1, 1.0, needs=("timer",))
    reason = na_reason(timed, kernel, small)
    assert reason is not None and reason.startswith("target stm32vldiscovery lacks timer (QEMU")
    assert na_reason(timed, kernel, big) is None
    assert na_reason(timed, kernel) is None  # no target given: the kernel alone decides


def test_a_define_value_a_benchmark_cannot_run_with_is_na_with_the_reason() -> None:
    # a_lock_none has no lock: two or four tasks are invalid by construction (bench.toml
    # [defines_allowed.ALLOC_TASKS]); its default (ALLOC_TASKS undefined) is one task.
    bench = CATALOG.benchmarks["a_lock_none"]
    assert define_na_reason(bench, {}) is None
    assert define_na_reason(bench, {"ALLOC_TASKS": "1", "LAB_ALLOC": "heap4"}) is None
    reason = define_na_reason(bench, {"ALLOC_TASKS": "4"})
    assert reason is not None
    assert reason.startswith("a_lock_none runs only with ALLOC_TASKS=1, not ALLOC_TASKS=4: no lock")
    # the strategies with a lock take any number of tasks
    assert define_na_reason(CATALOG.benchmarks["a_lock_mutex"], {"ALLOC_TASKS": "4"}) is None


def test_unknown_names_are_clear_errors() -> None:
    with pytest.raises(RtoslabError,
                       match=r"unknown target 'x': choose one of .*mps2-an385, mps2-an386, mps2-an505, "
                             r".*stm32vldiscovery"):
        CATALOG.get_target("x")
    with pytest.raises(RtoslabError, match="unknown suite 'x'"):
        CATALOG.suite_benchmarks("x")


def _tree(tmp_path: Path, port_toml: str, bench_toml: str) -> Path:
    fw = tmp_path / "firmware"
    (fw / "ports" / "k").mkdir(parents=True)
    (fw / "bench" / "b").mkdir(parents=True)
    (fw / "CMakeLists.txt").write_text("")
    (fw / "ports" / "k" / "port.toml").write_text(port_toml)
    (fw / "ports" / "k" / "lab_port_caps.h").write_text("#define LAB_HAS_SCHEDULER 1\n")
    (fw / "bench" / "b" / "bench.toml").write_text(bench_toml)
    return fw


@pytest.mark.parametrize(("port", "bench", "message"), [
    ('description = "k"\n', 'suite = ["smoke"]\ndescription = "b"\nrequire = []\n',
     "bench/b/bench.toml: unknown key 'require': allowed keys: suite, description, requires"),
    ('description = "k"\n', 'suite = "smoke"\ndescription = "b"\n',
     "bench/b/bench.toml: key 'suite' must be an array, not 'smoke'"),
    ('description = "k"\n', 'suite = ["smoke"]\ndescription = "b"\ninsn_limit = "1e9"\n',
     "bench/b/bench.toml: key 'insn_limit' must be an integer, not '1e9'"),
    ('description = "k"\n', 'suite = ["smoke"]\ndescription = "b"\nrequires = ["LAB_HAS_SCHEDULR"]\n',
     "bench/b/bench.toml: key 'requires[0]' is 'LAB_HAS_SCHEDULR': choose capabilities the ports "
     "declare: LAB_HAS_SCHEDULER"),
    ('description = "k"\ntemplates = []\n', 'suite = ["smoke"]\ndescription = "b"\n',
     "ports/k/port.toml: unknown key 'templates': allowed keys: description, deps, config_templates"),
    ('config_templates = ["K.h"]\n', 'suite = ["smoke"]\ndescription = "b"\n',
     "ports/k/port.toml: key 'config_templates[0]' is 'K.h' but there is no K.h.in"),
    ('description = "k"\n', 'suite = ["smoke"]\ndescription = "b"\n[defines_allowed.N]\nvalues = [1]\n',
     "bench/b/bench.toml: key 'defines_allowed.N.reason' is missing: it must be a string"),
    ('description = "k"\n', 'suite = ["smoke"]\ndescription = "b"\n[defines_allowed.N]\nvalues = []\n'
     'reason = "r"\n',
     "bench/b/bench.toml: key 'defines_allowed.N': name a C macro and give at least one value and a reason"),
    ('[options]\nX = 1.5\n', 'suite = ["smoke"]\ndescription = "b"\n',
     "ports/k/port.toml: key 'options.X' must be a string or an integer or true or false, not 1.5"),
])
def test_bench_and_port_files_are_checked_strictly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   port: str, bench: str, message: str) -> None:
    _tree(tmp_path, port, bench)
    monkeypatch.setenv("RTOSLAB_ROOT", str(tmp_path))
    with pytest.raises(RtoslabError) as err:
        _ = Catalog().benchmarks  # discovery checks every bench.toml
    assert message in str(err.value) and "\n" not in str(err.value)


def test_a_catalog_is_one_set_of_search_paths_and_never_changes(tmp_path: Path) -> None:
    """Adding a folder makes another catalog (the first keeps what it found); adding
    nothing new gives the same one."""
    bench = tmp_path / "extra_bench"
    bench.mkdir()
    (bench / "bench.toml").write_text('suite = ["extra"]\ndescription = "an added benchmark"\n')
    base = Catalog()
    wider = base.with_paths(bench=[bench])
    assert wider is not base and base.paths.bench == () and wider.paths.bench == (bench.resolve(),)
    assert "extra_bench" in wider.benchmarks and "extra_bench" not in base.benchmarks
    assert wider.with_paths(bench=[bench]) is wider
    assert "extra_bench" not in CATALOG.benchmarks


def _own_folders(root: Path, clock_hz: int, about: str) -> None:
    """root/targets/mine (a copy of mps2-an385 at ``clock_hz``) and root/bench/mine_x."""
    target = root / "targets" / "mine"
    shutil.copytree(firmware_root() / "targets" / "mps2-an385", target)
    toml = target / "target.toml"
    text = toml.read_text()
    assert "clock_hz = 25000000\n" in text
    toml.write_text(text.replace("clock_hz = 25000000\n", f"clock_hz = {clock_hz}\n"))
    (root / "bench" / "mine_x").mkdir(parents=True)
    (root / "bench" / "mine_x" / "bench.toml").write_text(f'suite = ["own"]\ndescription = "{about}"\n')


def test_two_catalogs_with_different_search_paths_coexist_in_one_process(tmp_path: Path) -> None:
    """The same names found in different folders: each catalog, and each configuration
    made from it, answers from its own folders, used in turn in one process (the old
    process-wide catalog held one set of search paths at a time)."""
    a_root, b_root = tmp_path / "a", tmp_path / "b"
    _own_folders(a_root, 25_000_000, "the one in a")
    _own_folders(b_root, 50_000_000, "the one in b")
    a = Catalog().with_paths(bench=[a_root / "bench"], target=[a_root / "targets"])
    b = Catalog().with_paths(bench=[b_root / "bench"], target=[b_root / "targets"])
    for _ in range(2):  # interleaved, twice: nothing one does changes the other
        assert a.get_benchmark("mine_x").description == "the one in a"
        assert b.get_benchmark("mine_x").description == "the one in b"
        assert (a.get_target("mine").clock_hz, b.get_target("mine").clock_hz) == (25_000_000, 50_000_000)
    with pytest.raises(RtoslabError, match=r"^unknown target 'mine'"):
        CATALOG.get_target("mine")
    with pytest.raises(RtoslabError, match=r"^unknown benchmark 'mine_x'"):
        api.select(["mine_x"])  # no catalog given: the checkout's folders alone
    assert [x.description for x in api.select(["mine_x"], catalog=b)] == ["the one in b"]

    # A configuration carries its catalog down: same names, each its own target folder.
    in_a = api.configuration(target="mine", catalog=a)
    in_b = api.configuration(target="mine", catalog=b)
    assert in_a.target_info().path == (a_root / "targets" / "mine").resolve()
    assert in_b.target_info().path == (b_root / "targets" / "mine").resolve()
    assert (in_a.clock_hz(), in_b.clock_hz()) == (25_000_000, 50_000_000)
    assert in_a.measure_key() != in_b.measure_key()  # (the clock enters the timing settings)

    # Pickled (a cluster task's arguments), a catalog travels as its search paths and the
    # receiving process discovers the same folders itself.
    back = pickle.loads(pickle.dumps(in_b))
    assert back.catalog is not b and back.catalog.paths == b.paths
    assert back.target_info().path == in_b.target_info().path and back.clock_hz() == 50_000_000
    assert back.measure_key() == in_b.measure_key()


def test_commands_in_one_process_do_not_share_search_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """Each command makes its own catalog from its own options: a --bench-path of one
    `rtoslab list` is not searched by the next (it was, with the process-wide catalog)."""
    from rtoslab.cli.main import main

    monkeypatch.chdir(tmp_path)  # (no rtoslab.toml here or above)
    (tmp_path / "bench" / "mine_only_here").mkdir(parents=True)
    (tmp_path / "bench" / "mine_only_here" / "bench.toml").write_text('suite = ["own"]\ndescription = "x"\n')
    assert main(["list", "--bench-path", str(tmp_path / "bench")]) == 0
    assert "mine_only_here" in capsys.readouterr().out
    assert main(["list"]) == 0
    assert "mine_only_here" not in capsys.readouterr().out


def test_no_module_of_rtoslab_keeps_a_catalog() -> None:
    """A catalog is made by the CLI or the API and passed down: no module-level Catalog
    (or a container holding one) anywhere in src/rtoslab, and the catalog package exports
    no lookup that would need one."""
    import ast

    import rtoslab.catalog as package

    src = Path(package.__file__).resolve().parents[1]
    kept = []
    for path in sorted(src.rglob("*.py")):
        for node in ast.parse(path.read_text(), str(path)).body:
            value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
            if value is not None and any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                                         and n.func.id == "Catalog" for n in ast.walk(value)):
                kept.append(f"{path.relative_to(src)}:{node.lineno}")
    assert kept == []
    lookups = {"get_target", "get_kernel", "get_benchmark", "suite_benchmarks", "targets", "kernels",
               "benchmarks", "suites", "add_search_paths", "current", "use", "alloc_na_reason"}
    assert [n for n in sorted(lookups) if callable(getattr(package, n, None))] == []
