#!/usr/bin/env python3
"""Lint the Rust firmware (firmware/rust/ and every benchmark's rust/<kernel>/ crate) as
reviewers do: ``cargo fmt --check`` and ``cargo clippy -D warnings``. Called by `make lint`.

    scripts/lint_rust_firmware.py

The crates only compile for the thumb targets, with Debian's compiler and -Zbuild-std=core
(as the firmware build compiles them: src/rtoslab/builder/rust.py), so clippy is Debian's
rust-web-clippy, the one of that compiler (`make setup` installs it). Their code differs
by target only between Thumb-2 and ARMv6-M cores (``cfg(target_feature = "thumb2")``,
``cfg(target_has_atomic)``), so clippy runs once for the first target (by name) with a
Rust triple of each kind, with that target's facts in cargo's environment, into its own
target directory, never the build's: machine-wide like the patched QEMU
(``$XDG_CACHE_HOME/rtoslab/rust-lint/<triple>``, else ``~/.cache/...``), since what it keeps
is mostly `core` and the registry's crates checked, the same for every checkout (cargo
checks a checkout's own crates again by their files). The two clippy runs are
independent (each checks `core` and the dependencies for its triple, mostly one rustc at a
time), so they run at the same time and their output is printed after, one triple at a
time. Formatting uses the rustup
toolchain's rustfmt (Debian's has none), with the plugin's settings (the defaults).

Exit status 0 when clean, 1 on a finding (cargo's own output says which), 2 when a tool
is missing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from rtoslab.builder.rust import CARGO, RUSTC, cargo_env, workspace_dir
from rtoslab.catalog import Catalog, lacked_features

CATALOG = Catalog()  # the checkout's folders alone

CLIPPY = Path("/usr/bin/cargo-clippy")  # rust-web-clippy: Debian's rustc-web's clippy


def lint_dir(triple: str) -> Path:
    """Clippy's target directory for `triple` (machine-wide: see the module's doc)."""
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return (base / "rtoslab" / "rust-lint" / triple).absolute()


def lint_targets() -> list[str]:
    """One target per kind of core the crates' code distinguishes (Thumb-2 or not)."""
    chosen: dict[bool, str] = {}
    for name, target in sorted(CATALOG.targets.items()):
        if target.spec.rust_target:
            chosen.setdefault("thumb2" in lacked_features(target), name)
    return [chosen[k] for k in sorted(chosen)]


def main() -> int:
    for tool in (RUSTC, CARGO, CLIPPY):
        if not tool.is_file():
            print(f"lint_rust_firmware: {tool} not found: run `make setup`", file=sys.stderr)
            return 2
    rustup_cargo = shutil.which("cargo", path=f"{Path.home()}/.cargo/bin:{os.environ.get('PATH', '')}")
    if rustup_cargo is None:
        print("lint_rust_firmware: cargo (rustup, with rustfmt) not found: run `make setup`",
              file=sys.stderr)
        return 2
    ws = workspace_dir()
    failed = subprocess.run([rustup_cargo, "fmt", "--all", "--check"], cwd=ws,
                            check=False).returncode != 0
    runs: list[tuple[str, subprocess.Popen[str]]] = []
    for name in lint_targets():
        target = CATALOG.targets[name]
        triple = str(target.spec.rust_target)
        env = cargo_env(target)
        env.pop("RUSTC_WORKSPACE_WRAPPER")  # clippy's own driver takes that place
        env.pop("CARGO_ENCODED_RUSTFLAGS")  # path remapping: only images need it
        env["CARGO_TARGET_DIR"] = str(lint_dir(triple))
        # /usr/bin first: `cargo clippy` runs the cargo-clippy found in PATH, and rustup's
        # (another compiler's) must not answer for Debian's cargo.
        env["PATH"] = "/usr/bin:" + env.get("PATH", "")
        # Under `make -j` (make test) the jobserver's descriptors are not passed on to
        # these processes: cargo's own job count, not a warning per run.
        for var in ("MAKEFLAGS", "MFLAGS", "CARGO_MAKEFLAGS"):
            env.pop(var, None)
        cmd = [str(CARGO), "clippy", "--release", "--locked", "--offline", "--quiet", "--workspace",
               "--keep-going", "--target", triple, "-Zbuild-std=core", "--", "-D", "warnings"]
        runs.append((f"{name} ({triple})", subprocess.Popen(
            cmd, cwd=ws, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)))
    for what, proc in runs:
        output, _ = proc.communicate()
        print(f"lint_rust_firmware: clippy for {what}", flush=True)
        if output:
            print(output, end="", flush=True)
        if proc.returncode != 0:
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
