"""Where the catalog looks: the checkout's firmware/bench, firmware/ports and
firmware/targets, then folders the user adds (``--bench-path``, ``--port-path``,
``--target-path``, a project's rtoslab.toml, an experiment file): each either one such
folder (it holds the .toml itself) or a folder of them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from rtoslab.paths import firmware_root
from rtoslab.records import RtoslabError


@dataclass(frozen=True)
class SearchPaths:
    """Folders searched besides the checkout's firmware/bench, firmware/ports and
    firmware/targets (absolute; in the order added)."""

    bench: tuple[Path, ...] = ()
    port: tuple[Path, ...] = ()
    target: tuple[Path, ...] = ()

    def with_added(self, bench: Iterable[Path] = (), port: Iterable[Path] = (),
                   target: Iterable[Path] = ()) -> SearchPaths:
        """These paths and the given folders (each: one benchmark/port/target folder, or a
        folder of them). A path that is not a folder is a one-line error. A path already
        searched is not added again."""
        new: dict[str, tuple[Path, ...]] = {}
        for kind, paths, have in (("bench", bench, self.bench), ("port", port, self.port),
                                  ("target", target, self.target)):
            out = list(have)
            for p in paths:
                path = Path(p).expanduser().resolve()
                if not path.is_dir():
                    raise RtoslabError(f"--{kind}-path {p}: no such folder: give a {kind} folder or a "
                                       f"folder of them")
                if ";" in str(path):
                    raise RtoslabError(f"--{kind}-path {path}: the path has ';', which CMake reads as a "
                                       "list separator (the build would split it): rename the folder "
                                       "or move it to a path without ';'")
                if path not in out:
                    out.append(path)
            new[kind] = tuple(out)
        return SearchPaths(new["bench"], new["port"], new["target"])


Kind = Literal["bench", "port", "target"]


def search_dirs(paths: SearchPaths, kind: Kind) -> list[Path]:
    """Where ``kind`` folders are looked for: the checkout's, then the added paths."""
    builtin = {"bench": "bench", "port": "ports", "target": "targets"}[kind]
    return [firmware_root() / builtin, *getattr(paths, kind)]


def discover(paths: SearchPaths, kind: Kind, filename: str) -> list[Path]:
    """Every ``<folder>/<filename>`` in the search directories; a name found twice is an
    error naming both folders."""
    found: dict[str, Path] = {}
    for root in search_dirs(paths, kind):
        tomls = [root / filename] if (root / filename).is_file() else sorted(root.glob(f"*/{filename}"))
        for toml in tomls:
            name = toml.parent.name
            if name in found and found[name] != toml:
                raise RtoslabError(f"{kind} '{name}' is in two folders, {found[name].parent} and "
                                   f"{toml.parent}: rename one")
            found[name] = toml
    return [found[n] for n in sorted(found)]


def looked_in(paths: SearchPaths, kind: Kind) -> str:
    return ", ".join(str(d) for d in search_dirs(paths, kind))
