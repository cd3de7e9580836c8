"""A kernel built from the user's own source tree (``--kernel-source DIR``).

A port whose kernel has third-party sources may declare, in its port.toml, where those
sources come from and how to recognise a tree of them (``[kernel_source]``,
``KernelSourceSpec``). rtoslab then passes the kernel's folder to CMake as
``LAB_KERNEL_SOURCE_DIR``: the pinned crate's folder (deps/Cargo.toml) by default, or the
tree the user names with ``--kernel-source`` (also ``kernel_source`` in an experiment file
or in rtoslab.toml). Such a tree is checked before anything is built (its files, its
version) and identified by content: the hash of every file below it, and with git its
commit, commit time and whether it has uncommitted changes. The identity enters the image
key (so two trees never share a build unless their files are equal) and the stored
configuration identity (``kernel_source``; docs/formats.md §8). No path is stored.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from rtoslab.records import RtoslabError

# The CMake variable that carries the kernel's folder to a port.cmake declaring the hook.
CMAKE_VAR = "LAB_KERNEL_SOURCE_DIR"


@dataclass(frozen=True)
class KernelSourceSpec:
    """port.toml ``[kernel_source]``: the hook a port declares to build from a tree."""

    name: str  # what the tree is, in messages: "FreeRTOS-Kernel"
    pinned: str  # the pinned sources: "<crate of deps>/<folder inside it>"
    files: tuple[str, ...]  # paths (files or folders) every tree of this kernel has
    version_file: str  # the file that states the kernel's version
    version_pattern: str  # regex; group 1 is the version, "11.2.0" (a "+" suffix allowed)
    version_from: str  # the oldest version the port supports, "11.0.0"
    version_below: str  # the first version it does not, "12.0.0"
    hint: str = ""  # where a user gets a tree, for the refusal's last words


@dataclass(frozen=True)
class KernelTree:
    """A checked kernel source tree and what identifies it."""

    path: Path
    version: str  # as the tree states it, e.g. "V11.2.0" or "V11.2.0+"
    content: str  # SHA-256 of every file's relative path and bytes (.git excluded)
    commit: str = ""  # git commit of HEAD ("" without git)
    committed: str = ""  # its committer time, ISO 8601 ("" without git)
    dirty: bool = False  # the tree differs from its commit (tracked or untracked files)

    def identity(self) -> dict[str, object]:
        """What the stored configuration identity says of the tree (no path)."""
        out: dict[str, object] = {"version": self.version, "content": self.content[:16]}
        if self.commit:
            out.update(commit=self.commit, committed=self.committed, dirty=self.dirty)
        return out

    def short(self) -> str:
        """``a1b2c3d4e5f6`` (with ``+dirty``), or ``content 0123abcd...``: for labels."""
        if self.commit:
            return self.commit[:12] + ("+dirty" if self.dirty else "")
        return f"content {self.content[:12]}"


def _numbers(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version)[:3])


def check_tree(spec: KernelSourceSpec, path: Path, kernel: str) -> KernelTree:
    """The tree at ``path`` checked against the port's declaration: one line naming what is
    missing or which version it is, else its identity."""
    where = f"kernel tree {path}"
    if not path.is_dir():
        raise RtoslabError(f"{where}: not a folder: give the folder of a {spec.name} tree")
    missing = [f for f in spec.files if not (path / f).exists()]
    if missing:
        hint = f" ({spec.hint})" if spec.hint else ""
        raise RtoslabError(f"{where} is not a {spec.name} tree for kernel {kernel}: missing "
                           f"{', '.join(missing)}: give the folder that holds them{hint}")
    vfile = path / spec.version_file
    m = re.search(spec.version_pattern, vfile.read_text(errors="replace"), re.MULTILINE)
    if m is None:
        raise RtoslabError(f"{where}: {spec.version_file} states no {spec.name} version (no match "
                           f"for {spec.version_pattern!r}): is it a {spec.name} tree?")
    version = m.group(1)
    number = _numbers(version)
    if not _numbers(spec.version_from) <= number < _numbers(spec.version_below):
        raise RtoslabError(f"{where} is {spec.name} {version}, which kernel {kernel} does not "
                           f"support: it builds {spec.version_from} up to (not including) "
                           f"{spec.version_below}")
    return _identify(path.resolve(), version)


@cache
def _identify(path: Path, version: str) -> KernelTree:
    commit, committed, dirty = _git_state(path)
    return KernelTree(path, version, content_hash(path), commit, committed, dirty)


def content_hash(root: Path) -> str:
    """SHA-256 of every file below ``root`` (its path relative to ``root`` and its bytes),
    in sorted order; ``.git`` is left out. Two copies of one tree hash alike wherever they
    are."""
    h = hashlib.sha256()
    files = sorted(f for f in root.rglob("*") if f.is_file() and ".git" not in f.relative_to(root).parts)
    for f in files:
        h.update(f.relative_to(root).as_posix().encode())
        h.update(b"\0")
        h.update(f.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def _git_state(path: Path) -> tuple[str, str, bool]:
    """(commit, committer time, dirty) of the git work tree holding ``path``; ("", "",
    False) when it is in none (or git is missing)."""
    git = shutil.which("git")
    if git is None:
        return "", "", False

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([git, "-C", str(path), *args], capture_output=True, text=True,
                              check=False)

    head = run("log", "-1", "--format=%H %cI")
    if head.returncode != 0 or not head.stdout.strip():
        return "", "", False  # not a git tree, or one without a commit
    commit, _, committed = head.stdout.strip().partition(" ")
    status = run("status", "--porcelain", "--untracked-files=normal", "--", ".")
    return commit, committed, bool(status.stdout.strip())
