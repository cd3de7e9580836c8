"""A new target is one folder: a copy of mps2-an385 under another name, in a copy of the
firmware tree (RTOSLAB_ROOT), builds and runs the smoke suite with the same counts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from .conftest import REPO, RunCli

pytestmark = pytest.mark.qemu

SUMMARY_KEYS = ("n", "min", "max", "mean", "median", "mode", "stdev", "p90", "p99")


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A private checkout: its own firmware tree (so the copied target exists for this test
    only, safe under parallel runs) and the real plugin and third-party sources."""
    root = tmp_path_factory.mktemp("root")
    shutil.copytree(REPO / "firmware", root / "firmware")
    targets = root / "firmware" / "targets"
    shutil.copytree(targets / "mps2-an385", targets / "copy-an385")
    for name in ("deps", "formats", "plugin", "scripts"):  # scripts/qemu: the patched QEMU's build key
        (root / name).symlink_to(REPO / name)
    return root


def _smoke(run_cli: RunCli, root: Path, target: str) -> dict[tuple[str, str, str], tuple[object, ...]]:
    env = {"RTOSLAB_ROOT": str(root), "RTOSLAB_CACHE": str(root / ".cache")}
    proc = run_cli("run", "--suite", "smoke", "--target", target, "--json", "--db",
                   str(root / f"{target}.sqlite"), env=env)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    doc = json.loads(proc.stdout)
    rows = doc["results"]
    assert rows and {r["target"] for r in rows} == {target}
    return {(r["benchmark"], r["metric"], r["unit"]): tuple(r[k] for k in SUMMARY_KEYS) for r in rows}


def test_a_copied_target_folder_runs_the_smoke_suite_with_the_same_counts(run_cli: RunCli,
                                                                          root: Path) -> None:
    copied = _smoke(run_cli, root, "copy-an385")
    original = _smoke(run_cli, root, "mps2-an385")
    assert copied == original
    assert copied[("straight", "block_100", "insn")][1:3] == (100, 100)
    assert copied[("loop", "sum_loop_100", "insn")][1:3] == (301, 301)
    # its generated MEMORY block came from its own target.toml
    gen = list((root / ".cache" / "build").glob("*/target/memory.ld"))
    assert any("copy-an385/target.toml" in p.read_text() for p in gen)


def test_a_cpu_the_kernel_port_has_no_code_for_is_a_clear_build_error(run_cli: RunCli, root: Path) -> None:
    """The cpu/fpu -> FreeRTOS portable folder mapping is the port's: a new core fails the
    configure step with the line to add, named in the benchmark's failure reason."""
    folder = root / "firmware" / "targets" / "copy-m7"
    shutil.copytree(root / "firmware" / "targets" / "mps2-an385", folder)
    toml = folder / "target.toml"
    toml.write_text(toml.read_text().replace('cpu = "cortex-m3"', 'cpu = "cortex-m7"'))
    env = {"RTOSLAB_ROOT": str(root), "RTOSLAB_CACHE": str(root / ".cache")}
    proc = run_cli("run", "--bench", "k_yield", "--kernel", "freertos", "--target", "copy-m7", "--json",
                   "--db", str(root / "m7.sqlite"), env=env)
    assert proc.returncode == 1, proc.stderr
    reason = json.loads(proc.stdout)["results"][0]["reason"]
    assert ("no FreeRTOS port for cpu 'cortex-m7' with fpu 'none' (target.toml of copy-m7): add "
            "set(LAB_FREERTOS_ARCH_cortex-m7_none <portable/GCC folder>) to ports/freertos/port.cmake"
            ) in reason
