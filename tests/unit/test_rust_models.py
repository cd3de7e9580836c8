"""Rust models (docs/rust-models.md): how the catalog and the builder see Rust kernel
ports and benchmark versions, and that the firmware workspace is complete (every crate a
--locked --offline build needs is in Cargo.lock). No toolchain needed."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from rtoslab.builder import rust
from rtoslab.catalog import Catalog, missing_capabilities, na_reason
from rtoslab.paths import firmware_root

CATALOG = Catalog()  # the checkout's folders alone

RUST_KERNELS = ("embassy", "rtic")
WORKSPACE = firmware_root() / "rust"


def _toml(path: Path) -> dict:
    with path.open("rb") as f:
        return tomllib.load(f)


def test_rust_ports_name_their_crate_and_c_ports_none() -> None:
    for name, k in CATALOG.kernels.items():
        if name in RUST_KERNELS:
            assert k.rust_crate and (WORKSPACE / k.rust_crate / "Cargo.toml").is_file()
            # no lab/port.h task API (C kernel benchmarks n/a); critical sections for C workloads
            assert {c for c, v in k.capabilities.items() if v} == {"LAB_HAS_CRITICAL"}
        else:
            assert k.rust_crate == ""


def test_rust_versions_are_discovered_and_replace_the_capability_check() -> None:
    b = CATALOG.benchmarks
    for name in ("k_yield", "k_preempt", "k_isr_to_task", "k_queue", "k_mutex", "k_irq_latency"):
        assert set(RUST_KERNELS) <= set(b[name].rust_kernels), name
    emb, rtic, free = CATALOG.kernels["embassy"], CATALOG.kernels["rtic"], CATALOG.kernels["freertos"]
    assert missing_capabilities(b["k_yield"], emb) == []
    assert rust.uses_rust(b["k_yield"], rtic) and not rust.uses_rust(b["k_yield"], free)
    # no Rust version: the C benchmark's requirements decide, with the port's reason
    reason = na_reason(b["k_sem"], emb)
    assert reason is not None and "embassy: tasks are async futures" in reason
    # a C benchmark without requirements runs as C on a Rust kernel
    assert missing_capabilities(b["loop"], emb) == [] and not rust.uses_rust(b["loop"], emb)
    # C kernels are unaffected by the rust/ folders
    assert missing_capabilities(b["k_yield"], CATALOG.kernels["baremetal"])


def _bench_crates() -> list[Path]:
    return sorted(firmware_root().glob("bench/*/rust/*/Cargo.toml"))


@pytest.mark.parametrize("manifest", _bench_crates(), ids=lambda p: f"{p.parts[-4]}/{p.parts[-2]}")
def test_every_benchmark_crate_is_a_workspace_staticlib_of_a_rust_kernel(manifest: Path) -> None:
    d = _toml(manifest)
    assert d["lib"]["crate-type"] == ["staticlib"]
    assert d["package"]["workspace"] == "../../../../rust"
    kernel = manifest.parent.name
    assert kernel in CATALOG.kernels and CATALOG.kernels[kernel].rust_crate, \
        f"{kernel} is not a Rust kernel port"
    locked = {p["name"] for p in _toml(WORKSPACE / "Cargo.lock")["package"]}
    assert d["package"]["name"] in locked, "not in Cargo.lock: run cargo fetch in firmware/rust"
    src = (manifest.parent / "src" / "lib.rs").read_text()
    # its entry point: its own, or (RTIC) the one lab-rtic-device's bench_glue! defines
    assert "fn lab_bench_run" in src or (kernel == "rtic" and "lab_rtic_device::bench_glue!(" in src)
    # its metrics: its own .lab_meta records, or the C workload's it calls (bench.cmake)
    assert "meta!(" in src or (manifest.parents[2] / "bench.cmake").is_file()


@pytest.mark.parametrize("lib", sorted(firmware_root().glob("bench/*/rust/rtic/src/lib.rs")),
                         ids=lambda p: p.parts[-5])
def test_every_rtic_app_installs_exactly_the_lines_it_uses(lib: Path) -> None:
    """The free lines of lab-rtic-device's bench_glue! (handlers declared, installed in
    init, listed for the timing model) are the app's dispatchers and bound lines: a line
    left out would reach the target's default handler, one too many takes a free line."""
    src = lib.read_text()
    app = re.search(r"#\[rtic::app\(([^)]*)\)\]", src)
    assert app, "no #[rtic::app(...)]"
    dispatchers = re.search(r"dispatchers = \[([^\]]*)\]", app.group(1))
    used = set(re.findall(r"FREE\d", dispatchers.group(1))) if dispatchers else set()
    used |= set(re.findall(r"binds = (FREE\d)", src))
    [glue] = re.findall(r"lab_rtic_device::bench_glue!\(([^)]*)\);", src)
    installed = dict(re.findall(r"(FREE\d) => (\d+)", glue))
    assert set(installed) == used
    assert "crate::handlers::install();" in src and "mod handlers" not in src


def test_workspace_members_cover_every_crate() -> None:
    members = _toml(WORKSPACE / "Cargo.toml")["workspace"]["members"]
    assert "../bench/*/rust/*" in members
    for k in RUST_KERNELS:
        assert CATALOG.kernels[k].rust_crate in members


def test_cargo_env_passes_target_facts_and_no_outside_rustflags(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RUSTFLAGS", "-C opt-level=0")
    monkeypatch.setenv("RUSTUP_TOOLCHAIN", "stable")
    t = CATALOG.get_target("mps2-an385")
    env = rust.cargo_env(t)
    assert "RUSTFLAGS" not in env and "RUSTUP_TOOLCHAIN" not in env
    assert env["LAB_PROBE_REGION_BASE"] == f"{t.spec.probe.base:#x}"
    assert env["LAB_TARGET_NVIC_PRIO_BITS"] == str(t.spec.nvic_prio_bits)
    assert env["RUSTC"] == str(rust.RUSTC) and env["RUSTC_BOOTSTRAP"] == "1"
    assert rust.rust_triple(t) == "thumbv7m-none-eabi"
    assert rust.lib_file_name("bench-k_yield-embassy") == "libbench_k_yield_embassy.a"


def test_a_target_without_rust_target_is_refused_in_one_line() -> None:
    import dataclasses

    from rtoslab.records import RtoslabError

    t = CATALOG.get_target("mps2-an385")
    bare = dataclasses.replace(t, spec=dataclasses.replace(t.spec, rust_target=""))
    with pytest.raises(RtoslabError, match=r"has no rust_target in target.toml"):
        rust.rust_triple(bare)


def test_every_workspace_crate_denies_warnings() -> None:
    assert _toml(WORKSPACE / "Cargo.toml")["workspace"]["lints"]["rust"]["warnings"] == "deny"
    manifests = [WORKSPACE / m / "Cargo.toml" for m in ("lab", "lab-embassy", "lab-rtic-device")]
    for manifest in manifests + _bench_crates():
        assert _toml(manifest).get("lints") == {"workspace": True}, manifest


def test_footprint_splits_a_rust_staticlib_by_crate_role() -> None:
    from rtoslab.builder.footprint import component_of

    member = "rust/libk_mutex.a({}-391a224d1d9a8244.{}.e0bb2b265a849e59-cgu.0.rcgu.o)"
    assert component_of(member.format("bench_k_mutex_rtic", "bench_k_mutex_rtic")) == "benchmark"
    assert component_of(member.format("core", "core")) == "libc"
    assert component_of(member.format("compiler_builtins", "compiler_builtins")) == "libc"
    for crate in ("rtic", "embassy_executor", "lab", "cortex_m"):
        assert component_of(member.format(crate, crate)) == "kernel"
    assert component_of("/abs/build/rust/libcall.a(lab-0123abcd.lab.x-cgu.0.rcgu.o)") == "kernel"


def test_cargo_env_passes_the_free_interrupt_lines() -> None:
    for t in (CATALOG.get_target(n) for n in ("mps2-an385", "mps2-an505", "microbit")):
        assert rust.cargo_env(t)["LAB_TARGET_IRQ_SOFT_TOP"] == str(t.spec.irq_soft_top)


@pytest.mark.parametrize("name", ["microbit", "mps2-an385", "mps2-an386", "mps2-an505",
                                  "netduinoplus2", "stm32vldiscovery"])
def test_rust_facts_of_a_target_match_its_c_side(name: str) -> None:
    """The free interrupt lines have one home, target.toml's irq_soft_top (C reads it as
    LAB_TARGET_IRQ_SOFT_TOP, RTIC's device crate from cargo's environment): no board header
    repeats it; and the triple's float ABI is the C side's."""
    t = CATALOG.get_target(name)
    for h in t.path.glob("*.h"):
        assert "SOFT_IRQ_TOP" not in h.read_text(), f"{h} repeats target.toml's irq_soft_top"
    if t.spec.rust_target:
        assert t.spec.rust_target.endswith("hf") == (t.spec.float_abi == "hard")


def test_a_rust_triple_with_the_wrong_float_abi_or_no_free_line_is_refused() -> None:
    import dataclasses

    from rtoslab.catalog.targets import _check_target
    from rtoslab.records import RtoslabError

    spec = CATALOG.get_target("mps2-an386").spec
    with pytest.raises(RtoslabError,
                       match=r"key 'rust_target' is 'thumbv7em-none-eabi' but float_abi is 'hard'"):
        _check_target(dataclasses.replace(spec, rust_target="thumbv7em-none-eabi"), "t.toml")
    with pytest.raises(RtoslabError, match=r"key 'irq_soft_top' is missing"):
        _check_target(dataclasses.replace(spec, irq_soft_top=-1), "t.toml")


def test_rust_kernels_are_na_on_a_target_without_rust_target() -> None:
    import dataclasses

    t = CATALOG.get_target("mps2-an385")
    bare = dataclasses.replace(t, spec=dataclasses.replace(t.spec, rust_target=""))
    for k in RUST_KERNELS:
        reason = na_reason(CATALOG.benchmarks["k_yield"], CATALOG.kernels[k], bare)
        assert reason is not None and "has no rust_target" in reason
    assert na_reason(CATALOG.benchmarks["k_yield"], CATALOG.kernels["freertos"], bare) is None
    assert na_reason(CATALOG.benchmarks["k_yield"], CATALOG.kernels["rtic"], t) is None


def test_a_rust_version_s_own_board_needs_make_only_it_na() -> None:
    b = CATALOG.benchmarks["k_isr_to_task"]
    assert b.rust_needs == {"embassy": ("timer",)}
    bare = CATALOG.get_target("stm32vldiscovery")  # [lacks] timer
    reason = na_reason(b, CATALOG.kernels["embassy"], bare)
    assert reason is not None and "lacks timer" in reason
    assert na_reason(b, CATALOG.kernels["rtic"], bare) is None
    assert na_reason(b, CATALOG.kernels["freertos"], bare) is None



def test_rust_builds_remap_every_machine_dependent_path(monkeypatch: pytest.MonkeyPatch,
                                                        tmp_path: Path) -> None:
    """Two clones build the same Rust images: cargo's rustc flags map the firmware folder
    (to "firmware", C's -ffile-prefix-map name), the cargo target directory and cargo's
    crate sources to fixed names, and nothing those names map to holds a path."""
    monkeypatch.setenv("CARGO_HOME", str(tmp_path / "cargo home"))
    env = rust.cargo_env(CATALOG.get_target("mps2-an385"))
    assert "RUSTFLAGS" not in env
    flags = env["CARGO_ENCODED_RUSTFLAGS"].split("\x1f")
    assert flags == rust.remap_flags()
    mapped = dict(f.removeprefix("--remap-path-prefix=").rsplit("=", 1) for f in flags)
    assert all(f.startswith("--remap-path-prefix=") for f in flags)
    assert mapped[str(firmware_root())] == "firmware"
    assert mapped[str(rust.target_dir())] == "rust-target"
    assert mapped[str(tmp_path / "cargo home" / "registry" / "src")] == "cargo-registry"
    assert mapped[str(tmp_path / "cargo home" / "git" / "checkouts")] == "cargo-git"
    assert not any("/" in name for name in mapped.values())
    # rustc applies the last matching mapping: no earlier folder lies inside a later one
    folders = list(mapped)
    for i, inner in enumerate(folders):
        assert not any(Path(inner).is_relative_to(outer) and inner != outer
                       for outer in folders[i + 1:]), inner


def test_the_workspace_wrapper_names_our_crates_by_their_name() -> None:
    """cargo hashes a path package's place (and the wrapper's) into -C metadata, and so
    into its symbol names: the wrapper of the workspace members replaces it by the crate
    name. Run for real, with /bin/echo as the "rustc" it hands on to."""
    import os
    import subprocess
    env = rust.cargo_env(CATALOG.get_target("mps2-an385"))
    wrapper = env["RUSTC_WORKSPACE_WRAPPER"]

    def run(*args: str) -> list[str]:
        return subprocess.run([wrapper, "/bin/echo", *args], capture_output=True, text=True,
                              check=True, env={**os.environ, **env}).stdout.split()

    out = run("--crate-name", "bench_call_embassy", "x/lib.rs", "-C", "metadata=0123abcd", "-O")
    assert out == ["--crate-name", "bench_call_embassy", "x/lib.rs", "-C",
                   "metadata=rtoslab-bench_call_embassy", "-O"]
    assert run("-vV") == ["-vV"]  # cargo's version query passes through


def test_a_benchmark_crate_that_fails_is_named_with_its_first_error() -> None:
    """cargo --keep-going's output: each failed crate's "could not compile" line follows its
    errors; a benchmark's own crate fails alone, any other crate fails the build."""
    out = ("   Compiling lab v0.1.0\n"
           "error[E0425]: cannot find value `nope` in this scope\n"
           " --> firmware/bench/k_yield/rust/embassy/src/lib.rs:10:5\n"
           "error: could not compile `bench_k_yield_embassy` (lib) due to 1 previous error\n"
           "warning: build failed, waiting for other jobs to finish...\n")
    packages = {"k_yield": "bench_k_yield_embassy", "call": "bench_call_embassy"}
    assert rust.crate_failures(out, packages) == {
        "k_yield": "error[E0425]: cannot find value `nope` in this scope"}
    shared = out.replace("`bench_k_yield_embassy`", "`lab`")
    assert rust.crate_failures(shared, packages) is None
    assert rust.crate_failures("error: failed to load manifest\n", packages) is None
