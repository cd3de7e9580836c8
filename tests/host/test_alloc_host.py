"""Host correctness tests of every allocator behind lab/alloc.h (firmware/allocators/*).

tests/host/alloc/CMakeLists.txt builds one allocator folder, unchanged, for the host with
the randomised test tests/host/alloc/test_alloc.c under AddressSanitizer and
UndefinedBehaviorSanitizer: no overlap, alignment, contents intact, stats consistent,
exhaustion. Allocators that exist only prebuilt for ARM (newlib, newlib-nano) say why in
host_na.txt; their checks run on the target (the a_* benchmarks).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from rtoslab.builder.deps import cmake_var, dep_path
from rtoslab.catalog import Catalog

CATALOG = Catalog()  # the checkout's folders alone

ROOT = Path(__file__).resolve().parents[2]
HOST = ROOT / "tests" / "host" / "alloc"
ALLOCATORS = sorted(p.parent.name for p in (ROOT / "firmware" / "allocators").glob("*/alloc.cmake"))
CRATES = ("freertos-next", "umm-malloc-sys", "o1heap")
SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed$", re.M)

pytestmark = pytest.mark.skipif(
    shutil.which("gcc") is None or shutil.which("cmake") is None or shutil.which("ninja") is None,
    reason="no host gcc/cmake/ninja on PATH: cannot build the allocator host tests",
)


def build(alloc: str, build_dir: Path) -> subprocess.CompletedProcess[str] | None:
    """Configure and build; None when the allocator has no host build (host_na.txt)."""
    deps = [f"-D{cmake_var(c)}={dep_path(c)}" for c in CRATES]
    conf = subprocess.run(
        ["cmake", "-G", "Ninja", "-S", str(HOST), "-B", str(build_dir), f"-DLAB_ALLOC={alloc}",
         "-DCMAKE_C_COMPILER=gcc", *deps],
        capture_output=True, text=True, check=False, timeout=120,
    )
    assert conf.returncode == 0, conf.stdout[-3000:] + conf.stderr[-3000:]
    if (build_dir / "host_na.txt").exists():
        return None
    made = subprocess.run(["ninja", "-C", str(build_dir)], capture_output=True, text=True,
                          check=False, timeout=300)
    assert made.returncode == 0, made.stdout[-4000:] + made.stderr[-2000:]
    return made


def run(build_dir: Path, *seeds: str, sabotage: bool = False) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("LAB_ALLOC_TEST_SABOTAGE", None)
    if sabotage:
        env["LAB_ALLOC_TEST_SABOTAGE"] = "1"
    return subprocess.run([str(build_dir / "test_alloc"), *seeds], capture_output=True, text=True,
                          env=env, check=False, timeout=300)


def test_every_allocator_folder_is_found() -> None:
    assert {"tlsf", "pool", "heap4", "heap5", "umm", "o1heap", "newlib", "newlib_nano"} <= set(ALLOCATORS)


@pytest.mark.parametrize("alloc", ALLOCATORS)
def test_allocator_host_correctness(alloc: str, tmp_path: Path) -> None:
    if build(alloc, tmp_path / alloc) is None:
        reason = (tmp_path / alloc / "host_na.txt").read_text().strip()
        assert alloc.startswith("newlib"), f"{alloc} has no host build: {reason}"
        pytest.skip(f"{alloc}: {reason} (checked on the target)")
    proc = run(tmp_path / alloc)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    m = SUMMARY.search(proc.stdout)
    assert m is not None and int(m.group(1)) == 5 and m.group(2) == "0", out[-4000:]


def test_corruption_behind_the_allocator_fails_the_test(tmp_path: Path) -> None:
    """The checker can fail: a byte changed behind tlsf's back is found."""
    assert build("tlsf", tmp_path / "tlsf") is not None
    proc = run(tmp_path / "tlsf", "1", sabotage=True)
    assert proc.returncode != 0
    assert "0 passed, 1 failed" in proc.stdout
    assert "intact" in proc.stdout + proc.stderr


def test_every_allocator_states_every_capability_with_a_reason_for_each_0() -> None:

    seam = (ROOT / "firmware" / "include" / "lab" / "alloc.h").read_text()
    documented = set(re.findall(r"\bLAB_ALLOC_HAS_[A-Z_]+\b", seam))
    assert {"LAB_ALLOC_HAS_REALLOC", "LAB_ALLOC_HAS_ALIGNED", "LAB_ALLOC_HAS_FREE_BYTES"} <= documented
    caps = CATALOG.allocators
    assert set(caps) == set(ALLOCATORS)
    for name, (have, reasons) in caps.items():
        assert set(have) == documented, name
        for cap, on in have.items():
            assert on or reasons.get(cap), f"{name}: {cap} = 0 without a reason"


def test_missing_allocator_capability_is_na_with_the_reason() -> None:

    bench = CATALOG.benchmarks["a_realloc"]
    assert CATALOG.alloc_na_reason(bench, {"LAB_ALLOC": "tlsf"}) is None
    assert CATALOG.alloc_na_reason(bench, {}) is None  # the default allocator, tlsf, has realloc
    assert CATALOG.alloc_na_reason(bench, {"LAB_ALLOC": "pool"}) == (
        "allocator pool lacks LAB_ALLOC_HAS_REALLOC=0 (a fixed-block pool has one block size: "
        "nothing to resize)")
    assert CATALOG.missing_alloc_capabilities(bench, {"LAB_ALLOC": "nosuch"}) == []  # the build says why


def test_recorded_trace_is_what_the_pipeline_model_records(tmp_path: Path) -> None:
    """traces/pipeline.trace is the recorder's output for the committed model (seed 1,
    2000 packets): re-recording gives the same bytes, and the header is well formed."""
    import struct
    import sys

    out = tmp_path / "pipeline.trace"
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "alloc_trace.py"), str(out)],
                          capture_output=True, text=True, check=False, timeout=120)
    assert proc.returncode == 0, proc.stderr
    committed = (ROOT / "firmware" / "workloads" / "alloc" / "traces" / "pipeline.trace").read_bytes()
    assert out.read_bytes() == committed
    magic, version, events, slots = struct.unpack_from("<4I", committed)
    assert (magic, version) == (0x5254414C, 1) and slots <= 64
    assert len(committed) == 16 + 4 * events
    words = struct.unpack_from(f"<{events}I", committed, 16)
    assert sum(1 for w in words if w & 0x80000000) * 2 == events  # every malloc freed
