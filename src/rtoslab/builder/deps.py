"""Third-party sources fetched by `make setup` (cargo fetch of deps/Cargo.toml).

cargo verifies every package against the checksums in deps/Cargo.lock; here we only ask
cargo where it unpacked them. Nothing third-party is stored in this repository.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

from rtoslab.paths import repo_root
from rtoslab.records import RtoslabError


@cache
def dep_sources() -> dict[str, Path]:
    """crate name -> folder of its unpacked sources."""
    return {p["name"]: Path(p["manifest_path"]).parent for p in _metadata()["packages"]}


def direct_deps() -> tuple[str, ...]:
    """The crates deps/Cargo.toml names itself (not their own dependencies)."""
    root = repo_root() / "deps" / "Cargo.toml"
    for p in _metadata()["packages"]:
        if Path(p["manifest_path"]) == root:
            return tuple(sorted(d["name"] for d in p["dependencies"] if d.get("kind") is None))
    return ()


@cache
def _metadata() -> dict[str, Any]:
    cargo = shutil.which("cargo")
    if cargo is None:
        raise RtoslabError("cargo not found: run `make setup` (it installs what is missing)")
    manifest = repo_root() / "deps" / "Cargo.toml"
    proc = subprocess.run(
        [cargo, "metadata", "--format-version", "1", "--locked", "--offline",
         "--manifest-path", str(manifest)],
        capture_output=True, text=True, check=False,
    )
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["?"])[-1]
        raise RtoslabError(f"third-party sources not fetched ({last}): run `make setup`")
    meta: dict[str, Any] = json.loads(proc.stdout)
    return meta


def dep_path(crate: str) -> Path:
    path = dep_sources().get(crate)
    if path is None or not path.is_dir():
        raise RtoslabError(f"dependency {crate} is not fetched: run `make setup`")
    return path


def cmake_var(crate: str) -> str:
    """The CMake cache variable that carries a dependency's path: LAB_DEPS_<NAME>."""
    return "LAB_DEPS_" + crate.upper().replace("-", "_")
