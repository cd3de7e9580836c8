"""Rust benchmark versions for Rust kernel ports (docs/rust-models.md).

A port whose port.toml names a `rust_crate` is a Rust model (embassy, rtic). A benchmark
folder may hold a Rust version for such a kernel: the crate bench/<b>/rust/<kernel>/, a
member of the firmware workspace firmware/rust/ that builds a staticlib defining
lab_bench_run(). This module builds those staticlibs with Debian's rustc/cargo (the
`rustc-web` package: the thumb targets need -Zbuild-std=core, so compiler and library
sources must match; rustup's toolchain stays for the plugin), --locked --offline, into the
one target directory .cache/rust-target, and copies each into the CMake build folder,
where firmware/CMakeLists.txt links it instead of C sources. The C target keeps startup,
vectors and the harness.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tomllib
from functools import cache
from pathlib import Path

from rtoslab.catalog import Benchmark, Catalog, Kernel, Target
from rtoslab.paths import cache_root, firmware_root
from rtoslab.records import RtoslabError

# Debian's packaged toolchain (rustc-web, cargo-web from bookworm-security: `dpkg -L
# rustc-web`), called by path so that a rustup toolchain earlier in PATH is not used.
RUSTC = Path(os.environ.get("RTOSLAB_RUSTC", "/usr/bin/rustc"))
CARGO = Path(os.environ.get("RTOSLAB_CARGO", "/usr/bin/cargo"))
SETUP_FIX = "run `make setup` (installs rustc-web, cargo-web, rust-web-src from bookworm-security)"


def workspace_dir() -> Path:
    return firmware_root() / "rust"


def target_dir() -> Path:
    """The one cargo target directory of every Rust image (350+ MB: never one per build)."""
    return cache_root() / "rust-target"


def uses_rust(bench: Benchmark, kernel: Kernel) -> bool:
    """Does this benchmark's image for `kernel` come from its Rust version?"""
    return bool(kernel.rust_crate) and kernel.name in bench.rust_kernels


def crate_dir(bench: Benchmark, kernel: Kernel) -> Path:
    return bench.path / "rust" / kernel.name


def package_name(bench: Benchmark, kernel: Kernel) -> str:
    manifest = crate_dir(bench, kernel) / "Cargo.toml"
    with manifest.open("rb") as f:
        name = tomllib.load(f).get("package", {}).get("name")
    if not isinstance(name, str):
        raise RtoslabError(f"{manifest}: key 'package.name' is missing: name the crate")
    return name


def rust_triple(target: Target) -> str:
    triple = target.spec.rust_target
    if not triple:
        raise RtoslabError(f"target {target.name} has no rust_target in target.toml: add Rust's "
                           "triple for its core (e.g. \"thumbv7m-none-eabi\") to build Rust kernels")
    return triple


def cargo_home() -> Path:
    """Cargo's home (its registry sources): $CARGO_HOME, else ~/.cargo (as cargo finds it)."""
    env = os.environ.get("CARGO_HOME")
    return Path(env) if env else Path.home() / ".cargo"


def remap_flags() -> list[str]:
    """rustc's --remap-path-prefix for every folder whose place differs between clones and
    machines, so that file names compiled into an image (panic and check! locations:
    file!(), #[track_caller]; also debug info and diagnostics) are the same wherever the
    checkout is, as -ffile-prefix-map makes them for C (firmware/CMakeLists.txt): the
    firmware folder becomes "firmware" (the C name; analysis/irq_windows.py finds sources by
    it), the cargo target directory "rust-target" (build scripts' generated sources),
    cargo's registry and git sources "cargo-registry" and "cargo-git". rustc applies the
    last matching mapping (a textual prefix; The rustc book, "Remap source paths",
    doc.rust-lang.org/rustc/remap-source-paths.html), so the most specific folders come
    last. Both the path as given and its resolved form are mapped (cargo passes what it
    was given)."""
    pairs = [(cargo_home() / "registry" / "src", "cargo-registry"),
             (cargo_home() / "git" / "checkouts", "cargo-git"),
             (firmware_root(), "firmware"),
             (target_dir(), "rust-target")]
    flags: list[str] = []
    for folder, name in pairs:
        for form in dict.fromkeys((str(folder), str(folder.resolve()))):
            flags.append(f"--remap-path-prefix={form}={name}")
    return flags


# The workspace members' rustc wrapper (cargo's RUSTC_WORKSPACE_WRAPPER), written into the
# target directory. Cargo derives a crate's `-C metadata` (which rustc hashes into the
# crate's id, and so into every mangled symbol name) from its package id and, for a
# workspace member built through a wrapper, the wrapper's path; for a path package
# outside the workspace root, as bench/*/rust/* is (firmware/rust is the root), the id
# holds its absolute path. Another checkout would then give the symbols other names,
# which can reorder functions in the image. The wrapper replaces every workspace
# member's metadata by its crate name (each is compiled once per build and linked once
# into a benchmark's staticlib: the name is unique in every link) and runs rustc.
# Dependencies from the registry keep cargo's metadata (no path enters theirs).
_WRAPPER = """#!{python}
# Written by rtoslab (src/rtoslab/builder/rust.py, workspace_wrapper): do not edit.
import os, sys
args = sys.argv[1:]
if "--crate-name" in args:
    name = args[args.index("--crate-name") + 1]
    args = ["metadata=rtoslab-" + name if a.startswith("metadata=") else a for a in args]
os.execv(args[0], args)
"""


def workspace_wrapper() -> Path:
    """The rustc wrapper of the workspace members (written when missing). Its name holds
    a hash of its text: cargo rebuilds what a wrapper built when the wrapper's path
    changes, not when its text does."""
    text = _WRAPPER.format(python=sys.executable)
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    path = target_dir() / f"rtoslab-rustc-wrapper-{digest}"
    if not path.is_file() or path.read_text() != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(text)
        tmp.chmod(0o755)
        tmp.replace(path)
    return path


def cargo_env(target: Target, defines: dict[str, str] | None = None,
              clock_hz: int | None = None) -> dict[str, str]:
    """The environment of every cargo call: Debian's rustc, build-std allowed, the path
    remapping that keeps the checkout's place out of the image (``remap_flags``), the
    target's facts (read by the lab crate with env!, as the C build passes them as macros),
    and each of the configuration's defines NAME=VALUE as LAB_DEFINE_NAME (read with
    option_env!)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS", "RUSTUP_", "CARGO_BUILD_",
                                "RUSTC_WORKSPACE_WRAPPER", "RUSTC_WRAPPER",
                                "LAB_DEFINE_"))}
    spec = target.spec
    env.update({
        "RUSTC": str(RUSTC),
        "RUSTC_BOOTSTRAP": "1",  # -Zbuild-std on a release compiler
        # (the encoded form: one flag per 0x1f-separated field, so paths may hold spaces)
        "CARGO_ENCODED_RUSTFLAGS": "\x1f".join(remap_flags()),
        # our crates' symbol names independent of the checkout's place
        "RUSTC_WORKSPACE_WRAPPER": str(workspace_wrapper()),
        "CARGO_TARGET_DIR": str(target_dir()),
        "LAB_PROBE_REGION_BASE": f"{spec.probe.base:#x}",
        "LAB_PROBE_REGION_SIZE": f"{spec.probe.size:#x}",
        # the configured clock (None: the target's), as the C build gets it
        "LAB_TARGET_CLOCK_HZ": str(clock_hz if clock_hz is not None else spec.clock_hz),
        "LAB_TARGET_NVIC_PRIO_BITS": str(spec.nvic_prio_bits),
        "LAB_TARGET_IRQ_SOFT_TOP": str(spec.irq_soft_top),
    })
    for name, value in (defines or {}).items():
        env[f"LAB_DEFINE_{name}"] = value
    return env


def lib_file_name(package: str) -> str:
    return f"lib{package.replace('-', '_')}.a"


_NOT_COMPILED = re.compile(r"^error: could not compile `([^`]+)`", re.MULTILINE)


def crate_failures(stderr: str, packages: dict[str, str]) -> dict[str, str] | None:
    """Which benchmarks' own crates failed in `cargo build --keep-going` output, each with
    the first error line of the output: {benchmark: error}, from cargo's "error: could not
    compile `<package>`" lines and ``packages`` (benchmark -> package). None when a crate
    that is no benchmark's failed (lab, a model's crate, a dependency) or cargo failed
    without naming one: then every benchmark of the build fails."""
    failed_pkgs = _NOT_COMPILED.findall(stderr)
    owners = {p: b for b, p in packages.items()}
    if not failed_pkgs or any(p not in owners for p in failed_pkgs):
        return None
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    blocks: dict[str, str] = {}
    first = ""  # the first "error..." line before each "could not compile" line is its
    for ln in lines:
        m = _NOT_COMPILED.match(ln)
        if m:
            blocks.setdefault(owners[m.group(1)], first or ln)
            first = ""
        elif ln.startswith("error") and not first:
            first = ln
    return blocks


def build_staticlibs(target: Target, kernel: Kernel, benches: list[Benchmark], out_dir: Path,
                     log: Path, defines: dict[str, str] | None = None,
                     clock_hz: int | None = None) -> dict[str, str]:
    """Build the Rust versions of `benches` for `kernel` and leave lib<bench>.a in
    out_dir (rewritten only when changed, so Ninja relinks only what changed). Cargo
    keeps going past a crate that fails: a benchmark whose own crate does not compile is
    returned {benchmark: "Rust build failed: <first error> (full log: ...)"} and gets no
    library; a failure in what they share (lab, the model's crate) raises."""
    if not benches:
        return {}
    for tool in (RUSTC, CARGO):
        if not tool.is_file():
            raise RtoslabError(f"{tool} not found (Rust kernel {kernel.name}): {SETUP_FIX}")
    triple = rust_triple(target)
    packages = {b.name: package_name(b, kernel) for b in benches}
    cmd = [str(CARGO), "build", "--release", "--locked", "--offline", "--quiet",
           "--manifest-path", str(workspace_dir() / "Cargo.toml"), "--target", triple,
           "-Zbuild-std=core", "--keep-going"]
    for p in sorted(set(packages.values())):
        cmd += ["-p", p]
    target_dir().mkdir(parents=True, exist_ok=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    # One build at a time in the shared target directory, and the copies taken before
    # another configuration (other target facts) overwrites the outputs.
    with (target_dir() / ".rtoslab.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False,
                              env=cargo_env(target, defines, clock_hz), cwd=workspace_dir())
        log.parent.mkdir(parents=True, exist_ok=True)
        with log.open("a") as f:
            f.write("$ " + " ".join(cmd) + "\n" + proc.stdout + proc.stderr)
        failed: dict[str, str] = {}
        own = crate_failures(proc.stderr, packages) if proc.returncode != 0 else None
        if own is not None:
            failed = {b: f"Rust build failed: {err[:300]} (full log: {log})" for b, err in own.items()}
        elif proc.returncode != 0:
            lines = [ln.strip() for ln in proc.stderr.splitlines() if ln.strip()]
            first = next((ln for ln in lines if ln.startswith("error")), lines[0] if lines else "?")
            text = proc.stderr.lower()
            hint = (f"; crates missing offline: {SETUP_FIX}"
                    if any(w in text for w in ("offline", "no matching package", "lock file")) else "")
            raise RtoslabError(f"Rust build for kernel {kernel.name} failed: {first[:300]} "
                               f"(full log: {log}{hint})")
        for bench, package in packages.items():
            if bench in failed:
                continue
            src = target_dir() / triple / "release" / lib_file_name(package)
            dst = out_dir / f"lib{bench}.a"
            tmp = out_dir / f"lib{bench}.a.tmp"
            tmp.write_bytes(src.read_bytes())
            # The C harness owns `main`: a Rust `main` (RTIC's app generates one) becomes
            # lab_rust_main, which the benchmark's lab_bench_run calls.
            _run_objcopy(["--redefine-sym", "main=lab_rust_main", str(tmp)], log)
            data = tmp.read_bytes()
            tmp.unlink()
            if not dst.exists() or dst.read_bytes() != data:
                dst.write_bytes(data)
    return failed


def _run_objcopy(args: list[str], log: Path) -> None:
    objcopy = shutil.which("arm-none-eabi-objcopy")
    if objcopy is None:
        raise RtoslabError("arm-none-eabi-objcopy not found: run `make setup`")
    proc = subprocess.run([objcopy, *args], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RtoslabError(f"objcopy of a Rust staticlib failed: {proc.stderr.strip()[:200]} (log: {log})")


@cache
def rustc_version() -> str:
    """First line of Debian rustc's version, or "" when it is missing."""
    if not RUSTC.is_file():
        return ""
    proc = subprocess.run([str(RUSTC), "--version"], capture_output=True, text=True, check=False)
    return proc.stdout.strip().splitlines()[0] if proc.stdout.strip() else ""


def doctor_rows(catalog: Catalog) -> list[tuple[str, bool, str]]:
    """(item, ok, version or fix) for `rtoslab doctor`: Debian's rustc and cargo, the
    library sources build-std needs, and the workspace's crates fetched for offline builds."""
    rows: list[tuple[str, bool, str]] = []
    version = rustc_version()
    rows.append(("rustc-web (Rust firmware)", bool(version), version or f"{RUSTC} missing: {SETUP_FIX}"))
    rows.append(("cargo-web (Rust firmware)", CARGO.is_file(),
                 str(CARGO) if CARGO.is_file() else f"{CARGO} missing: {SETUP_FIX}"))
    if version:
        proc = subprocess.run([str(RUSTC), "--print", "sysroot"], capture_output=True, text=True,
                              check=False)
        core = Path(proc.stdout.strip()) / "lib/rustlib/src/rust/library/core/Cargo.toml"
        rows.append(("rust-web-src (build-std)", core.is_file(),
                     str(core.parent) if core.is_file() else f"no {core}: {SETUP_FIX}"))
    if CARGO.is_file():
        # The crates the firmware builds need: those of the targets' triples (as `make
        # setup` fetches them), not every platform's (cargo metadata without a platform
        # filter also resolves host-only build dependencies nothing here compiles).
        triples = sorted({t.spec.rust_target for t in catalog.targets.values() if t.spec.rust_target})
        missing = ""
        for triple in triples:
            proc = subprocess.run(
                [str(CARGO), "metadata", "--format-version", "1", "--locked", "--offline",
                 "--filter-platform", triple, "--manifest-path", str(workspace_dir() / "Cargo.toml")],
                capture_output=True, text=True, check=False, env={**os.environ, "RUSTC": str(RUSTC)})
            if proc.returncode != 0:
                missing = f"{triple}: {(proc.stderr.strip().splitlines() or ['?'])[-1].strip()}"
                break
        rows.append(("source: firmware/rust crates", not missing,
                     str(workspace_dir() / "Cargo.lock") if not missing
                     else f"not fetched ({missing}): {SETUP_FIX}"))
    return rows
