"""The firmware's C modules depend one way: no include cycle between them.

A module is a source file and its header of the same name in one folder (``alloc.c`` and
``alloc.h``); it depends on another module of that folder when its .c or .h includes the
other's header with ``#include "name.h"``. Two modules that include each other's headers
share state without an owner (issue 25, item 6: the FTL's ``alloc.c`` and ``wear.c``).
Read from the source alone; no compiler needed.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.unit.test_import_graph import _cycle

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"/]+)\.h"', re.MULTILINE)
SOURCES = ("*.c", "*.h", "*.S")


def include_graph(root: Path = FIRMWARE) -> dict[str, set[str]]:
    """folder/module -> the modules of the same folder whose headers it includes."""
    graph: dict[str, set[str]] = {}
    for pattern in SOURCES:
        for path in sorted(root.rglob(pattern)):
            folder = path.parent
            name = f"{folder.relative_to(root)}/{path.stem}"
            deps = graph.setdefault(name, set())
            for stem in INCLUDE.findall(path.read_text(errors="replace")):
                if stem != path.stem and (folder / f"{stem}.h").exists():
                    deps.add(f"{folder.relative_to(root)}/{stem}")
    return graph


def test_the_graph_is_read() -> None:
    graph = include_graph()
    assert "workloads/ftl/core/wear" in graph["workloads/ftl/core/alloc"]
    assert "workloads/ftl/core/alloc" in graph["workloads/ftl/core/gc"]


def test_no_include_cycles() -> None:
    cycle = _cycle(include_graph())
    assert cycle is None, "include cycle: " + " -> ".join(cycle or [])


def test_a_cycle_is_found(tmp_path: Path) -> None:
    (tmp_path / "a.h").write_text("")
    (tmp_path / "b.h").write_text("")
    (tmp_path / "a.c").write_text('#include "a.h"\n#include "b.h"\n')
    (tmp_path / "b.c").write_text('#include "b.h"\n#include "a.h"\n')
    assert _cycle(include_graph(tmp_path)) == ["./a", "./b", "./a"]
