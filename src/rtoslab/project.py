"""A project file, ``rtoslab.toml``: the user's own benchmark, port and target folders.

rtoslab looks for it in the current directory and then in each parent (the first one
found wins). Its folders are searched besides the checkout's (``Project.catalog``: the
CLI's and the API's ``Catalog`` starts from them)::

    kernel_source = "FreeRTOS-Kernel"   # optional: the kernel tree the kernels that take
                                        # one build from (`--kernel-source` overrides it)
    [paths]
    bench = ["bench"]        # folders of benchmark folders, or benchmark folders
    port = ["ports"]
    target = ["targets"]

Relative paths are taken from the folder holding rtoslab.toml; a folder named here that
does not exist is skipped only when it is one of the defaults ``rtoslab new`` writes
(bench, ports, targets), otherwise it is a one-line error.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rtoslab.catalog import Catalog
from rtoslab.records import RtoslabError
from rtoslab.schema import parse_file

PROJECT_FILE = "rtoslab.toml"
# The folders `rtoslab new` creates inside a project (bench/NAME, ports/NAME, targets/NAME).
NEW_FOLDERS = {"bench": "bench", "port": "ports", "target": "targets"}


@dataclass(frozen=True)
class ProjectPaths:
    bench: tuple[str, ...] = ()
    port: tuple[str, ...] = ()
    target: tuple[str, ...] = ()


@dataclass(frozen=True)
class ProjectFile:
    """The schema of rtoslab.toml."""

    paths: ProjectPaths = ProjectPaths()
    kernel_source: str = ""


@dataclass(frozen=True)
class Project:
    root: Path  # the folder holding rtoslab.toml
    bench: tuple[Path, ...]
    port: tuple[Path, ...]
    target: tuple[Path, ...]
    kernel_source: Path | None = None  # the kernel tree (checked when a configuration uses it)

    def catalog(self, base: Catalog) -> Catalog:
        """``base`` with this project's folders searched too."""
        return base.with_paths(self.bench, self.port, self.target)


def find_project(start: Path) -> Path | None:
    """The nearest rtoslab.toml in ``start`` or a parent of it, or None."""
    here = start.resolve()
    for folder in (here, *here.parents):
        candidate = folder / PROJECT_FILE
        if candidate.is_file():
            return candidate
    return None


def load_project(path: Path) -> Project:
    """Read and check one rtoslab.toml."""
    spec = parse_file(ProjectFile, path)
    root = path.parent.resolve()
    resolved: dict[str, tuple[Path, ...]] = {}
    for kind in ("bench", "port", "target"):
        out = []
        for i, text in enumerate(getattr(spec.paths, kind)):
            folder = (root / text).resolve()
            if folder.is_dir():
                out.append(folder)
            elif Path(text) != Path(NEW_FOLDERS[kind]):
                raise RtoslabError(f"{path}: key 'paths.{kind}[{i}]' is {text!r}, which is not a folder "
                                   f"(from {root}): create it or fix the path")
        resolved[kind] = tuple(out)
    source = None
    if spec.kernel_source:
        source = (root / spec.kernel_source).resolve()
        if not source.is_dir():
            raise RtoslabError(f"{path}: key 'kernel_source' is {spec.kernel_source!r}, which is not a "
                               f"folder (from {root}): give the kernel tree's folder")
    return Project(root, resolved["bench"], resolved["port"], resolved["target"], source)


def nearest_project(start: Path) -> Project | None:
    """The project of the rtoslab.toml in ``start`` or above it (read and checked), or None."""
    path = find_project(start)
    return None if path is None else load_project(path)


def write_project_file(root: Path) -> Path:
    """Create a rtoslab.toml naming the folders ``rtoslab new`` fills; an existing one is
    left as it is. Returns its path."""
    path = root / PROJECT_FILE
    if not path.exists():
        lines = ["# rtoslab project: the folders searched for your own benchmarks, kernel ports",
                 "# and targets, besides the ones in the rtoslab checkout (docs/own-code.md).",
                 "[paths]"]
        lines += [f'{kind} = ["{folder}"]' for kind, folder in NEW_FOLDERS.items()]
        path.write_text("\n".join(lines) + "\n")
    return path
