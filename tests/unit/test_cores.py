"""Several cores in the catalog: target.toml `cores` (C: LAB_TARGET_CORES) and bench.toml
`min_cores` (n/a with the reason on a target with fewer), checked strictly; the shared
Cortex-M core code is chosen by LAB_TARGET_CORES, never by a board list."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from rtoslab.builder.cmake import target_cmake_args
from rtoslab.catalog import Catalog, na_reason, too_few_cores
from rtoslab.catalog.targets import _check_target
from rtoslab.paths import firmware_root
from rtoslab.records import RtoslabError

CATALOG = Catalog()  # the checkout's folders alone

# The targets' own facts (target.toml `cores`), not a list kept here: a new target folder
# is covered by itself.
MULTI = sorted(name for name, t in CATALOG.targets.items() if t.spec.cores > 1)
SINGLE = sorted(name for name, t in CATALOG.targets.items() if t.spec.cores == 1)


def test_the_catalog_has_both_kinds_of_target() -> None:
    assert MULTI and SINGLE
    assert all(1 <= t.spec.cores <= 8 for t in CATALOG.targets.values())  # the plugin's vCPU limit


@pytest.mark.parametrize("name", sorted(CATALOG.targets))
def test_cores_reach_cmake_as_lab_target_cores(tmp_path: Path, name: str) -> None:
    target = CATALOG.get_target(name)
    assert target_cmake_args(target, tmp_path)["LAB_TARGET_CORES"] == str(target.spec.cores)


def test_a_two_core_benchmark_is_na_on_a_one_core_target_with_the_reason() -> None:
    bench, kernel = CATALOG.get_benchmark("x_doorbell"), CATALOG.get_kernel("baremetal")
    assert bench.min_cores == 2
    # one core, and a Rust triple (so the rtic check below reaches the kernel's reason)
    one = next(n for n in SINGLE if CATALOG.get_target(n).spec.rust_target)
    two = MULTI[0]
    assert na_reason(bench, kernel, CATALOG.get_target(one)) == f"needs 2 cores; {one} has 1"
    assert too_few_cores(bench, CATALOG.get_target(two)) is None
    assert na_reason(bench, kernel, CATALOG.get_target(two)) is None
    # A kernel that cannot run it says so first (the kernel decides before the target).
    reason = na_reason(bench, CATALOG.get_kernel("rtic"), CATALOG.get_target(one))
    assert reason is not None and reason.startswith("kernel rtic lacks")


def test_cores_out_of_range_is_one_line() -> None:
    spec = CATALOG.get_target("mps2-an521").spec
    with pytest.raises(RtoslabError,
                       match=r"^t.toml: key 'cores' is 0: give the board's processor cores, 1..32$"):
        _check_target(dataclasses.replace(spec, cores=0), "t.toml")


def test_min_cores_out_of_range_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fw = tmp_path / "firmware"
    (fw / "ports" / "k").mkdir(parents=True)
    (fw / "bench" / "b").mkdir(parents=True)
    (fw / "CMakeLists.txt").write_text("")
    (fw / "ports" / "k" / "port.toml").write_text('description = "k"\n')
    (fw / "ports" / "k" / "lab_port_caps.h").write_text("#define LAB_HAS_SCHEDULER 1\n")
    (fw / "bench" / "b" / "bench.toml").write_text('suite = ["smp"]\ndescription = "b"\nmin_cores = 0\n')
    monkeypatch.setenv("RTOSLAB_ROOT", str(tmp_path))
    with pytest.raises(RtoslabError, match=r"bench/b/bench.toml: key 'min_cores' is 0: give the "
                           r"processor cores the benchmark needs, 1..32$"):
        _ = Catalog().benchmarks  # discovery checks every bench.toml


def test_shared_core_code_is_chosen_by_lab_target_cores_not_by_board() -> None:
    arch = firmware_root() / "arch" / "cortex-m"
    text = (arch / "lab_cortex_m_cores.h").read_text()
    assert "#if LAB_TARGET_CORES == 1" in text
    for name in CATALOG.targets:
        assert name not in text, f"lab_cortex_m_cores.h names target {name}"
    # Every Cortex-M target gets the cores section through the shared IRQ code.
    assert '#include "lab_cortex_m_cores.h"' in (arch / "lab_cortex_m_target.h").read_text()
